//! Destructive operations on services, recognised by the shape of the command.
//!
//! **What it does:** a command-line client whose subcommand path carries a destroying verb
//! (`delete`, `destroy`, `drop`, `purge`, `terminate`, `rollback`, `rb`, `uninstall`, `flush`,
//! `wipe`, `reset`, … — also inside `apps:destroy`, `delete-table`, `--delete`) is AUTH,
//! whatever the product: cloud, Kubernetes, database, queue, CDN, CI, feature flags, DNS,
//! payments, monitoring. It is BLOCK when the verb takes out everything (`--all`,
//! `--all-namespaces`, an `all` target, `--all-collections`). An HTTP request with a mutating
//! `DELETE` method, or a `POST` to a path that purges or destroys, to a non-local host is AUTH.
//! Tools whose verbs act on this machine only (git, docker, package managers) are left to
//! their own rules.
//! **Why:** a per-product list is always one product behind; the verb is what destroys.
//! **Example:** `gh repo delete acme/webapp --yes` → `service_destroy`;
//! `kubectl delete all --all -n prod` → BLOCK.

use crate::net;
use crate::policy::Mode;
use crate::shell::Invocation;
use crate::verdict::{Finding, Reason, Verdict};

use super::Ctx;

pub const SERVICE_DESTROY: Reason = Reason::new(
    "service_destroy",
    "Deletes, destroys or rolls back something on a remote service.",
);
pub const SERVICE_DESTROY_ALL: Reason = Reason::new(
    "service_destroy_all",
    "Deletes everything of a kind on a remote service at once.",
);
pub const SERVICE_TAKEDOWN: Reason = Reason::new(
    "service_takedown",
    "Stops a remote service or machine, or scales it to zero.",
);
pub const MONITORING_SILENCED: Reason = Reason::new(
    "monitoring_silenced",
    "Silences every alert of a monitoring system (nobody is told when things break).",
);
pub const REMOTE_HTTP_DELETE: Reason = Reason::new(
    "remote_http_delete",
    "Sends a deleting or purging HTTP request to a remote API.",
);

const VERBS: &[&str] = &[
    "delete",
    "deletion",
    "del",
    "destroy",
    "drop",
    "dropdb",
    "purge",
    "terminate",
    "rollback",
    "undo",
    "rb",
    "uninstall",
    "flush",
    "flushall",
    "flushdb",
    "wipe",
    "erase",
    "nuke",
    "truncate",
    "deregister",
    "decommission",
    "revoke",
    "remove",
    "rm",
    "reset",
    "teardown",
    // A machine reinstalled from an image (`hcloud server rebuild`, `doctl compute droplet
    // rebuild`, `az vmss reimage`): its disk is wiped.
    "rebuild",
    "reimage",
    // Backups thinned or forgotten (`restic forget --prune`, `borg prune`, `kopia snapshot
    // delete`): the copies that would have undone everything else.
    "forget",
    "prune",
    // A restore writes an old copy over the live one (`gcloud sql backups restore`,
    // `heroku pg:backups:restore`).
    "restore",
];

/// Programs whose destroying verbs act on this machine (or are judged by another rule).
const LOCAL_TOOLS: &[&str] = &[
    "git",
    // `dotnet restore`, `nuget restore`, `paket restore`: packages into this project.
    "dotnet",
    "nuget",
    "paket",
    "msbuild",
    "rsync",
    "docker",
    "podman",
    "npm",
    "pnpm",
    "yarn",
    "bun",
    "pip",
    "pip3",
    "pipx",
    "uv",
    "poetry",
    "cargo",
    "rustup",
    // A file watcher's watches (`watchman watch-del-all`), not a service's data.
    "watchman",
    "brew",
    "apt",
    "apt-get",
    "dnf",
    "yum",
    "pacman",
    "snap",
    "flatpak",
    "go",
    "conda",
    "mamba",
    "gem",
    "bundle",
    "composer",
    "nvm",
    "pyenv",
    "asdf",
    "mise",
    "minikube",
    "kind",
    "k3d",
    "vagrant",
    "rm",
    "rmdir",
    "unlink",
    "find",
    "xargs",
    "sed",
    "awk",
    "grep",
    "rg",
    "echo",
    "printf",
    "cat",
    "ls",
    "sort",
    "tr",
    "cut",
    "kill",
    "pkill",
    "killall",
    "systemctl",
    "launchctl",
    "crontab",
    "trash",
    "gio",
    "make",
    "cmake",
    "ninja",
    "gradle",
    "mvn",
    "dotnet",
    "swift",
    "xcrun",
    "terraform",
    "tofu",
    "terragrunt",
    "pulumi",
    "cdk",
    "sst",
    "tmux",
    "screen",
    "history",
    "unset",
    "alias",
    "hash",
    "ssh-add",
    "ssh-keygen",
    "gpg",
    "keytool",
    "sqlite3",
    "airlock",
    "direnv",
    "code",
    "curl",
    "wget",
    "http",
    "xh",
    "chmod",
    "chown",
    "ln",
    "mv",
    "cp",
    "tar",
    "zip",
    "unzip",
    "pre-commit",
    "husky",
    "npx",
    "pnpx",
    "bunx",
    "uvx",
    "ollama",
    "jupyter",
    "tsc",
    "jest",
    "pytest",
    "vitest",
    "eslint",
    "prettier",
    "",
    "docker-compose",
    "nerdctl",
    "lima",
    "colima",
    "multipass",
    "virsh",
    "qemu-img",
    "lvremove",
    "ip",
    "iptables",
    "nft",
    "ufw",
    "route",
    "tailscale",
    "vault",
    "op",
    "pass",
    "security",
    "secret-tool",
    "shred",
    "wipefs",
    "dd",
    "mkfs",
    "parted",
    "fdisk",
    "sgdisk",
    "diskutil",
    "man",
    "which",
    "whereis",
    "whatis",
    "apropos",
    "info",
    "tldr",
    "help",
    "type",
    "compgen",
    "complete",
    "test",
    "[",
    "command",
    "fd",
    "fdfind",
    "parallel",
    "entr",
    "watchexec",
    "nodemon",
    "time",
    "nice",
    "watch",
];

/// `RAILS_ENV=test`, `NODE_ENV=development`: the target is a local development service.
fn local_env(inv: &Invocation) -> bool {
    inv.assignments.iter().any(|(k, v)| {
        k.ends_with("_ENV")
            && matches!(
                v.text.to_ascii_lowercase().as_str(),
                "test" | "development" | "dev" | "local"
            )
    })
}

/// A JSON change set that deletes (`{"Action":"DELETE"}`, `"purge_everything":true`).
fn json_deletes(arg: &str) -> bool {
    let compact: String = arg
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect::<String>()
        .to_ascii_lowercase();
    [
        "\"action\":\"delete\"",
        "\"action\":\"remove\"",
        "\"op\":\"remove\"",
        "\"purge_everything\":true",
    ]
    .iter()
    .any(|m| compact.contains(m))
}

fn verb_of(token: &str) -> bool {
    let t = token.to_ascii_lowercase();
    VERBS.contains(&t.as_str())
        || t.split([':', '-', '_', '.'])
            .any(|p| VERBS.contains(&p) && p.len() > 2)
        // A verb with a prefix (`rrpurge`, `forcedelete`), not its undoing (`undelete`).
        || !t.starts_with("un")
            && ["purge", "destroy", "delete", "truncate", "wipe"]
                .iter()
                .any(|v| t.len() > v.len() && t.ends_with(v))
}

/// Payment tools, where cancelling or refunding is the destroying verb.
const PAYMENT_CLIS: &[&str] = &["stripe", "paypal", "braintree", "chargebee", "recurly"];

/// Programs named for what they do to a whole account (`aws-nuke`, `cloud-nuke`): run for
/// real (not `--dry-run`; aws-nuke and its siblings only with `--no-dry-run`) they delete
/// everything they are pointed at.
fn account_nuke(inv: &Invocation) -> bool {
    let p = inv.program.as_str();
    if !p.split('-').any(|w| w == "nuke") {
        return false;
    }
    let args: Vec<&str> = inv.argv().collect();
    if args
        .iter()
        .any(|a| matches!(*a, "--version" | "--help" | "-h" | "version" | "help"))
    {
        return false;
    }
    let dry_by_default = matches!(p, "aws-nuke" | "azure-nuke" | "gcp-nuke");
    if dry_by_default {
        args.contains(&"--no-dry-run")
    } else {
        !args.contains(&"--dry-run")
    }
}

/// Local tools whose destroying verbs, run on a server, destroy that server's services or data.
const REMOTE_DATA_TOOLS: &[&str] = &["docker", "podman", "systemctl", "crontab", "kubectl"];

/// Framework and migration tools: stepping a schema back (`rails db:rollback`, `alembic
/// downgrade -1`, `knex migrate:rollback`) is everyday development against the configured
/// (development) database, unless the command line names production.
const MIGRATION_TOOLS: &[&str] = &[
    "rails",
    "rake",
    "alembic",
    "knex",
    "sequelize",
    "sequelize-cli",
    "prisma",
    "typeorm",
    "drizzle-kit",
    "diesel",
    "sqlx",
    "goose",
    "dbmate",
    "migrate",
    "flyway",
    "liquibase",
    "artisan",
    "manage.py",
    "django-admin",
];

/// A migration tool pointed at a database on another machine by a URL on its command line
/// (`liquibase --url=jdbc:mysql://198.51.100.23/orders`, `flyway -url=…`, `DATABASE_URL=…`).
/// A host without a dot (a compose service such as `db`) or on this machine is local.
fn names_remote_database(inv: &Invocation) -> bool {
    let remote = |v: &str| {
        let v = v.split_once('=').map_or(v, |(k, rest)| {
            if k.starts_with('-') || k.chars().all(|c| c.is_ascii_uppercase() || c == '_') {
                rest
            } else {
                v
            }
        });
        let v = v.strip_prefix("jdbc:").unwrap_or(v);
        crate::net::parse_url(v).is_some_and(|d| {
            !d.is_local() && (d.ip.is_some() || d.host.contains('.')) && !d.host.ends_with(".local")
        })
    };
    inv.argv().any(remote)
        || inv
            .assignments
            .iter()
            .any(|(k, v)| k.contains("URL") && remote(&v.text))
}

pub(crate) fn names_production(inv: &Invocation) -> bool {
    let prod = |v: &str| {
        let l = v.to_ascii_lowercase();
        l == "production" || l == "prod" || l.starts_with("prod-") || l.ends_with("-prod")
    };
    // A settings module, environment or database URL naming production
    // (`config.settings.production`, `postgres://…@prod-db.acme.example/app`).
    let names_prod = |v: &str| {
        v.to_ascii_lowercase()
            .split(|c: char| !c.is_ascii_alphanumeric())
            .any(|t| t == "prod" || t == "production")
    };
    inv.assignments.iter().any(|(k, v)| {
        // Rails refuses `db:drop`/`db:reset` on a production database unless this is set:
        // setting it says the database is production.
        (k == "DISABLE_DATABASE_ENVIRONMENT_CHECK" && !v.text.is_empty())
            || (k.ends_with("_ENV") && prod(&v.text))
            || ((k.contains("SETTINGS")
                || k.contains("DATABASE")
                || k.ends_with("_URL")
                || k.ends_with("_ENV"))
                && names_prod(&v.text))
    }) || inv.argv().any(|a| {
        // Rake takes `NAME=value` arguments as environment variables too.
        a.strip_prefix("DISABLE_DATABASE_ENVIRONMENT_CHECK=")
            .is_some_and(|v| !v.is_empty())
            || a.split_once('=').is_some_and(|(k, v)| {
                k.ends_with("_ENV")
                    && k.chars().all(|c| c.is_ascii_uppercase() || c == '_')
                    && prod(v)
            })
    }) || inv.argv().any(|a| {
        prod(a)
            || a.split_once('=').is_some_and(|(k, v)| {
                ((k.ends_with("ENV") || k == "--env") && prod(v))
                    || ((k.contains("settings") || k.contains("url") || k.contains("database"))
                        && names_prod(v))
            })
            || (a.contains("://") && names_prod(a))
    })
}

/// The tool an interpreter or package runner among `runners` starts (`python manage.py` →
/// `manage.py`, `npx prisma` → `prisma`), by the file name of its first operand.
fn runner_tool(inv: &Invocation, runners: &[&str]) -> Option<String> {
    if !runners.contains(&inv.program.as_str()) {
        return None;
    }
    inv.operands()
        .first()
        .map(|w| crate::paths::basename(&w.text).to_owned())
}

/// A migration or framework command that takes a database's schema or data back: `Some(true)`
/// when it takes all of it (`prisma migrate reset`, `db push --force-reset`, `manage.py
/// flush`, `migrate APP zero`, `alembic downgrade base`, `knex migrate:rollback --all`,
/// `rails db:drop`/`db:reset`, `artisan migrate:fresh`, `flyway clean`), `Some(false)` for
/// one step back.
fn migration_step(inv: &Invocation) -> Option<bool> {
    let p = inv.program.as_str();
    let tool = runner_tool(
        inv,
        &[
            "python", "python3", "php", "ruby", "bundle", "npx", "node", "pnpm", "yarn", "bunx",
        ],
    );
    let ecto = p == "mix"
        && inv
            .operands()
            .first()
            .is_some_and(|w| w.text.starts_with("ecto."));
    let is_tool = ecto
        || MIGRATION_TOOLS.contains(&p)
        || tool
            .as_deref()
            .is_some_and(|t| MIGRATION_TOOLS.contains(&t) || t == "supabase");
    if !is_tool {
        return None;
    }
    let args: Vec<String> = inv.argv().map(str::to_ascii_lowercase).collect();
    let has = |w: &str| args.iter().any(|a| a == w);
    let all = has("flush")
        || has("zero")
        || has("base")
        || has("--force-reset")
        || has("--all")
        || has("clean")
        || has("dropall")
        || has("drop-all")
        || args.iter().any(|a| {
            matches!(
                a.as_str(),
                "db:drop"
                    | "db:reset"
                    | "db:schema:load"
                    | "db:wipe"
                    | "migrate:fresh"
                    | "migrate:reset"
                    | "db:migrate:undo:all"
                    | "schema:drop"
                    | "ecto.drop"
                    | "ecto.reset"
            )
        })
        || (has("migrate") && has("reset"))
        || (has("db") && has("reset"));
    if all {
        return Some(true);
    }
    let step = has("downgrade")
        || has("rollback")
        || args.iter().any(|a| {
            a.ends_with(":rollback")
                || a == "db:migrate:undo"
                || a == "migrate:down"
                || a == "ecto.rollback"
        });
    step.then_some(false)
}

/// A client told which server to talk to, every one on this machine (`kafka-topics.sh
/// --bootstrap-server localhost:9092`, `--host 127.0.0.1`), and not run on another machine:
/// a development service, whose single items are removed routinely.
fn local_server_named(inv: &Invocation) -> bool {
    const SERVER_FLAGS: &[&str] = &[
        "--bootstrap-server",
        "--bootstrap-servers",
        "--broker-list",
        "--brokers",
        "--server",
        "--host",
        "--url",
        "--endpoint",
        "--endpoints",
        "--address",
        "--addr",
    ];
    if inv.remote {
        return false;
    }
    let args: Vec<&str> = inv.argv().collect();
    let mut values: Vec<&str> = Vec::new();
    for (i, a) in args.iter().enumerate() {
        if let Some((k, v)) = a.split_once('=')
            && SERVER_FLAGS.contains(&k)
        {
            values.push(v);
        } else if SERVER_FLAGS.contains(a)
            && let Some(v) = args.get(i + 1)
        {
            values.push(v);
        }
    }
    !values.is_empty()
        && values.iter().all(|v| {
            v.split(',')
                .all(|h| crate::net::parse_destination(h.trim()).is_some_and(|d| d.is_local()))
        })
}

/// Does this invocation destroy something on a service? `Some(all)` when it does.
pub fn service_destroy(inv: &Invocation, broad: bool) -> Option<bool> {
    let p = inv.program.as_str();
    // A container or package tool on a server (`ssh prod 'docker volume rm …'`) destroys
    // that server's data: judged like any service, not as this machine's housekeeping.
    // `DOCKER_HOST=ssh://prod docker …`, `docker -H tcp://… …`, `docker --context prod …`.
    let remote_docker = matches!(p, "docker" | "podman")
        && (inv.assignments.iter().any(|(k, v)| {
            matches!(k.as_str(), "DOCKER_HOST" | "CONTAINER_HOST")
                && !v.text.starts_with("unix://")
                && !v.text.is_empty()
        }) || inv.argv().collect::<Vec<_>>().windows(2).any(|w| {
            matches!(w.first(), Some(&("-H" | "--host" | "--url")))
                && w.get(1)
                    .is_some_and(|h| h.starts_with("ssh://") || h.starts_with("tcp://"))
        }));
    if remote_docker
        && inv.argv().any(|a| a == "down")
        && inv.argv().any(|a| a == "-v" || a == "--volumes")
    {
        return Some(false);
    }
    let local_tool = LOCAL_TOOLS.contains(&p)
        && !((inv.remote || remote_docker) && REMOTE_DATA_TOOLS.contains(&p));
    // A database client pointed at this machine: judged by the database rules.
    // etcd's `--endpoints=URL[,URL]` all on this machine.
    let local_etcd = p == "etcdctl"
        && !inv.remote
        && inv.argv().any(|a| {
            a.strip_prefix("--endpoints=").is_some_and(|v| {
                v.split(',')
                    .all(|u| crate::net::parse_destination(u).is_some_and(|d| d.is_local()))
            })
        });
    let local_db_client = local_etcd
        || matches!(p, "redis-cli" | "psql" | "mysql" | "mongosh" | "mongo")
            && !inv.remote
            && (super::infra_destructive::explicitly_local(inv)
                || super::infra_destructive::redis_default_host(inv));
    // `supabase db reset` resets the local development stack; `--linked` / `--db-url`
    // point it at a project's real database.
    let supabase_local = p == "supabase"
        && !inv.argv().any(|a| {
            a == "--linked" || a.starts_with("--db-url") || a.starts_with("--project-ref")
        });
    if local_tool || local_db_client || supabase_local || inv.from_inline_code || local_env(inv) {
        return None;
    }
    // `bin/rails …`, `php artisan …`, `python manage.py …`: the tool is the program itself or
    // the first operand of an interpreter or runner.
    let tool = runner_tool(
        inv,
        &["python", "python3", "php", "ruby", "bundle", "npx", "node"],
    );
    // Elixir's Ecto tasks (`mix ecto.reset`, `mix ecto.drop`) on the environment's database.
    let ecto = p == "mix"
        && inv
            .operands()
            .first()
            .is_some_and(|w| w.text.starts_with("ecto."));
    let migration = ecto
        || MIGRATION_TOOLS.contains(&p)
        || tool
            .as_deref()
            .is_some_and(|t| MIGRATION_TOOLS.contains(&t));
    // Every row of a table rewritten at once on production (`RAILS_ENV=production rails
    // runner 'Subscription.update_all(status: …)'`, Django's `Model.objects.update(…)`): as
    // unrecoverable as deleting them, with no delete verb in sight.
    if names_production(inv)
        && inv.argv().any(|a| {
            let c: String = a.chars().filter(|c| !c.is_whitespace()).collect();
            (c.contains(".update_all(") && !c.contains(".where(") && !c.contains(".find_by"))
                || c.contains(".objects.update(")
                || c.contains(".objects.all().update(")
        })
    {
        return Some(false);
    }
    if migration && !names_production(inv) {
        return None;
    }
    if matches!(p, "kubectl" | "oc")
        && super::infra_destructive::routine_pod_delete(&inv.argv().collect::<Vec<_>>(), broad)
    {
        return None;
    }
    // Judged by `infra_destructive` (a local cluster's release is routine only in a clean
    // session).
    if p == "helm"
        && super::infra_destructive::local_cluster_release(&inv.argv().collect::<Vec<_>>())
    {
        return None;
    }
    // … as is kubectl against a cluster on this machine (`--context kind-dev`).
    if matches!(p, "kubectl" | "oc")
        && super::infra_destructive::on_local_cluster(&inv.argv().collect::<Vec<_>>())
    {
        return None;
    }
    if inv.args.iter().any(|w| json_deletes(&w.text)) {
        return Some(false);
    }
    // A retention cut to minutes (`kafka-configs --alter --add-config retention.ms=1000`):
    // the broker deletes everything older at once.
    if inv.argv().any(|a| a == "--alter")
        && inv.argv().any(|a| {
            a.split(',').any(|kv| {
                kv.split_once('=').is_some_and(|(k, v)| {
                    k.trim() == "retention.ms"
                        && v.trim().parse::<u64>().is_ok_and(|ms| ms < 3_600_000)
                })
            })
        })
    {
        return Some(false);
    }
    let argv: Vec<&str> = inv.argv().collect();
    // Syncing a bucket with deletion (`gsutil rsync -d`, `aws s3 sync --delete`, `rclone
    // sync`, `azcopy sync --delete-destination=true`): the destination loses what the source
    // lacks. An expiry rule on a bucket deletes its objects later.
    let bucket = argv.iter().any(|a| {
        a.starts_with("gs://") || a.starts_with("s3://") || a.contains(".blob.core.windows.net")
    });
    let sync = argv.iter().any(|a| matches!(*a, "rsync" | "sync"));
    let deleting_sync = (p == "gsutil" && sync && argv.contains(&"-d"))
        || (matches!(p, "aws" | "gcloud")
            && sync
            && argv.iter().any(|a| a.starts_with("--delete")))
        || (p == "azcopy"
            && sync
            && argv
                .iter()
                .any(|a| a.starts_with("--delete-destination=true")));
    if (deleting_sync && bucket)
        || (p == "rclone" && argv.first() == Some(&"sync"))
        || (p == "aws"
            && argv.contains(&"put-bucket-lifecycle-configuration")
            && argv.iter().any(|a| a.contains("Expiration")))
    {
        return Some(false);
    }
    // Subcommand path: the leading words that are not options (at most four).
    let mut path: Vec<&str> = Vec::new();
    for w in &inv.args {
        let t = w.text.as_str();
        if t.starts_with('-') {
            if t == "--delete" || t == "--purge" || t == "--drop" || t == "--destroy" {
                path.push(t.trim_start_matches('-'));
            }
            // `--flag value` pairs: skip a value that is clearly not a verb.
            continue;
        }
        if t.contains('=') || t.contains('/') && !t.contains(':') {
            continue;
        }
        path.push(t);
        if path.len() >= 4 {
            break;
        }
    }
    if p.split('-').any(|w| w == "nuke") {
        return account_nuke(inv).then_some(true);
    }
    let payment = PAYMENT_CLIS.contains(&p);
    let verb_at = path.iter().position(|t| {
        verb_of(t)
            || payment
                && matches!(
                    t.to_ascii_lowercase().as_str(),
                    "cancel" | "refund" | "void"
                )
    })?;
    let args: Vec<&str> = inv.argv().collect();
    // (`-A` is kubectl's every-namespace switch; elsewhere it is often something else —
    // celery's app, a user agent.)
    let all = args.iter().any(|a| {
        matches!(
            *a,
            "--all" | "--all-namespaces" | "--all-collections" | "--everything"
        ) || *a == "-A" && matches!(p, "kubectl" | "oc")
            || a.starts_with("--all-") && !a.starts_with("--all-contexts")
    }) || path.iter().skip(verb_at + 1).any(|t| *t == "all")
        || path.iter().any(|t| t.eq_ignore_ascii_case("flushall"))
        || path.iter().any(|t| {
            let l = t.to_ascii_lowercase();
            l.starts_with("projects") && path.iter().any(|x| x.eq_ignore_ascii_case("delete"))
        });
    Some(all)
}

/// Cloud and cluster clients whose `stop` verbs stop something remote.
const CLOUD_CLIS: &[&str] = &[
    "aws",
    "gcloud",
    "az",
    "kubectl",
    "oc",
    "heroku",
    "fly",
    "flyctl",
    "doctl",
    "linode-cli",
    "hcloud",
    "eksctl",
    "ecs-cli",
    "ibmcloud",
    "oci",
    "scw",
    "vultr-cli",
    "railway",
    "render",
];

/// Options that set how many instances of a service run.
const CAPACITY_OPTS: &[&str] = &[
    "--replicas",
    "--desired-count",
    "--desired-capacity",
    "--max-size",
    "--max-instances",
    "--max-count",
    "--instance-count",
    "--node-count",
    "--num-nodes",
];

/// Does this invocation take a remote service down without deleting it: scaling it to zero
/// (`kubectl scale --replicas=0`, `aws ecs update-service --desired-count 0`,
/// `heroku ps:scale web=0`, `fly scale count 0`), or stopping cloud machines
/// (`aws ec2 stop-instances`, `gcloud compute instances stop`, `az vm deallocate`)?
/// `amtool silence add` with a matcher that matches every alert (`alertname=~.+`, `=~".*"`,
/// `severity!=""`): monitoring switched off with nothing deleted.
fn silences_everything(inv: &Invocation) -> bool {
    let args: Vec<&str> = inv.argv().collect();
    inv.program == "amtool"
        && args.windows(2).any(|w| w == ["silence", "add"])
        && args.iter().any(|a| {
            let m: String = a
                .chars()
                .filter(|c| !c.is_whitespace() && !matches!(c, '"' | '\''))
                .collect();
            m.ends_with("=~.+") || m.ends_with("=~.*") || m.ends_with("!=")
        })
}

/// `redis-cli --scan [--pattern '*'] | xargs redis-cli DEL|UNLINK` against a server that is
/// not this machine: every matching key deleted. Only a whole scan (no pattern, or `*`)
/// counts; a prefix (`--pattern 'session:*'`) is a cleanup.
fn redis_scan_delete(inv: &Invocation, sa: &crate::shell::ShellAnalysis) -> bool {
    let args: Vec<&str> = inv.argv().collect();
    if inv.program != "redis-cli"
        || !args
            .iter()
            .any(|a| a.eq_ignore_ascii_case("unlink") || a.eq_ignore_ascii_case("del"))
        || super::infra_destructive::redis_default_host(inv)
    {
        return false;
    }
    sa.upstream(inv).iter().any(|u| {
        let ua: Vec<&str> = u.argv().collect();
        u.program == "redis-cli"
            && ua.contains(&"--scan")
            && ua
                .windows(2)
                .find(|w| w.first() == Some(&"--pattern"))
                .and_then(|w| w.get(1))
                .is_none_or(|p| matches!(*p, "*" | "**"))
    })
}

pub fn service_takedown(inv: &Invocation, broad: bool) -> bool {
    let p = inv.program.as_str();
    if LOCAL_TOOLS.contains(&p) || inv.from_inline_code || local_env(inv) {
        return false;
    }
    let args: Vec<&str> = inv.argv().collect();
    // A remote Redis reconfigured at run time (`CONFIG SET maxmemory 1mb`, an eviction
    // policy that drops any key, persistence off, or `dir`/`dbfilename` pointed at another
    // folder — the way a dump is written over a crontab or `authorized_keys`).
    if matches!(p, "redis-cli" | "valkey-cli" | "keydb-cli")
        && !super::infra_destructive::explicitly_local(inv)
        && !super::infra_destructive::redis_default_host(inv)
        && args.windows(3).any(|w| match w {
            [c, s, k] => {
                c.eq_ignore_ascii_case("config")
                    && s.eq_ignore_ascii_case("set")
                    && matches!(
                        k.to_ascii_lowercase().as_str(),
                        "maxmemory"
                            | "maxmemory-policy"
                            | "save"
                            | "appendonly"
                            | "dir"
                            | "dbfilename"
                            | "requirepass"
                            | "protected-mode"
                    )
            }
            _ => false,
        })
    {
        return true;
    }
    // On a local cluster, or (up to balanced) in a development namespace (`kubectl -n dev
    // scale deploy/worker --replicas=0`): a developer's own workload.
    if matches!(p, "kubectl" | "oc")
        && (super::infra_destructive::on_local_cluster(&args)
            || (broad && super::infra_destructive::dev_namespace_scope(&args)))
    {
        return false;
    }
    let zero = |v: &str| v.trim() == "0";
    let capacity_zero = args
        .iter()
        .enumerate()
        .any(|(i, a)| match a.split_once('=') {
            Some((k, v)) if CAPACITY_OPTS.contains(&k) => zero(v),
            _ if CAPACITY_OPTS.contains(a) => args.get(i + 1).is_some_and(|v| zero(v)),
            _ => false,
        });
    let scales = args.iter().take(3).any(|a| {
        a.to_ascii_lowercase()
            .split([':', '-'])
            .any(|t| t == "scale")
    });
    // `heroku ps:scale web=0`, `fly scale count 0`.
    let scale_to_zero = scales
        && (args.iter().any(|a| {
            a.split_once('=')
                .is_some_and(|(k, v)| !k.starts_with('-') && zero(v))
        }) || args
            .windows(2)
            .any(|w| w.first() == Some(&"count") && w.get(1).is_some_and(|v| zero(v))));
    let stops = CLOUD_CLIS.contains(&p)
        && args
            .iter()
            .take(4)
            .filter(|a| !a.starts_with('-'))
            .any(|a| {
                a.to_ascii_lowercase()
                    .split([':', '-'])
                    .any(|t| matches!(t, "stop" | "deallocate" | "shutdown" | "hibernate"))
            });
    // A chart upgraded with its replicas set to zero (`helm upgrade api ./c --kube-context prod
    // --set replicaCount=0`), unless the release lives on a local cluster.
    let helm_zero = p == "helm"
        && args.iter().any(|a| matches!(*a, "upgrade" | "install"))
        && !super::infra_destructive::local_cluster_release(&args)
        && args
            .iter()
            .filter_map(|a| a.strip_prefix("--set=").or(Some(a)))
            .flat_map(|a| a.split(','))
            .any(|kv| {
                kv.split_once('=').is_some_and(|(k, v)| {
                    let k = k.rsplit('.').next().unwrap_or(k).to_ascii_lowercase();
                    matches!(k.as_str(), "replicacount" | "replicas" | "minreplicas") && zero(v)
                })
            });
    capacity_zero || scale_to_zero || stops || helm_zero
}

/// An HTTP client call with a destroying method to a non-local host.
fn http_delete(inv: &Invocation) -> bool {
    if !matches!(
        inv.program.as_str(),
        "curl" | "wget" | "http" | "https" | "xh"
    ) {
        return false;
    }
    let args: Vec<&str> = inv.argv().collect();
    let mut method: Option<String> = None;
    for (i, a) in args.iter().enumerate() {
        if matches!(*a, "-X" | "--request" | "--method") {
            method = args.get(i + 1).map(|m| m.to_ascii_uppercase());
        } else if let Some(m) = a
            .strip_prefix("--request=")
            .or_else(|| a.strip_prefix("--method="))
            .or_else(|| a.strip_prefix("-X").filter(|m| !m.is_empty()))
        {
            method = Some(m.to_ascii_uppercase());
        }
    }
    if matches!(inv.program.as_str(), "http" | "https" | "xh")
        && let Some(first) = args.iter().find(|a| !a.starts_with('-'))
        && first.chars().all(|c| c.is_ascii_uppercase())
    {
        method = Some((*first).to_owned());
    }
    let urls: Vec<&str> = args
        .iter()
        .copied()
        .filter(|a| a.contains("://") || net::parse_destination(a).is_some() && a.contains('/'))
        .collect();
    let remote = urls
        .iter()
        .any(|u| net::parse_destination(u).is_some_and(|d| !d.is_local() && !d.is_private_ip()));
    if !remote {
        return false;
    }
    match method.as_deref() {
        Some("DELETE") => true,
        Some("POST" | "PUT" | "PATCH") => urls.iter().any(|u| {
            let path = u.split("://").nth(1).unwrap_or(u);
            let path = path.split_once('/').map(|(_, p)| p).unwrap_or("");
            path.split(['/', '?', '&', '=', '_', '-']).any(|seg| {
                matches!(
                    seg.to_ascii_lowercase().as_str(),
                    "purge" | "destroy" | "delete" | "wipe" | "truncate" | "drop" | "reset"
                )
            })
        }),
        _ => false,
    }
}

/// Cloud and service SDKs whose calls act on remote resources.
const SDKS: &[&str] = &[
    "boto3",
    "botocore",
    "google.cloud",
    "googleapiclient",
    "@google-cloud/",
    "azure.",
    "@azure/",
    "@aws-sdk/",
    "aws-sdk",
    "stripe",
    "kubernetes",
    "firebase_admin",
    "firebase-admin",
    "digitalocean",
    "hcloud",
    // ML hubs and trackers, databases' and collaboration services' clients.
    "huggingface_hub",
    "wandb",
    "mlflow",
    "kaggle",
    "openai",
    "pinecone",
    "qdrant_client",
    "weaviate",
    "pymongo",
    "elasticsearch",
    "github import",
    "gitlab",
    "slack_sdk",
    "supabase",
];

/// A published release taken back from a public registry: `npm unpublish`, `cargo yank`
/// (not `--undo`), `gem yank`, `dotnet nuget delete`, `mix hex.publish --revert`, `mix
/// hex.retire`. Every project that depends on it breaks. `Some(true)` when every version
/// goes (`npm unpublish PKG --force` without a version, or one version per input line
/// through `xargs`).
fn release_withdrawn(inv: &Invocation) -> Option<bool> {
    let args: Vec<&str> = inv.argv().collect();
    let ops: Vec<&str> = args
        .iter()
        .copied()
        .filter(|a| !a.starts_with('-'))
        .collect();
    let looped = inv
        .wrappers
        .iter()
        .any(|w| matches!(w.as_str(), "xargs" | "parallel"))
        || inv.args_from_input;
    let withdrawn = match inv.program.as_str() {
        "npm" | "pnpm" => ops.first() == Some(&"unpublish"),
        "yarn" => ops.get(..2) == Some(&["npm", "unpublish"]),
        "cargo" => ops.first() == Some(&"yank") && !args.contains(&"--undo"),
        "gem" => ops.first() == Some(&"yank"),
        "dotnet" => ops.get(..2) == Some(&["nuget", "delete"]),
        "nuget" => ops.first() == Some(&"delete"),
        "mix" => {
            (ops.first() == Some(&"hex.publish") && args.contains(&"--revert"))
                || ops.first() == Some(&"hex.retire")
        }
        _ => false,
    };
    if !withdrawn {
        return None;
    }
    let whole_package = matches!(inv.program.as_str(), "npm" | "pnpm" | "yarn")
        && args.contains(&"--force")
        && !ops
            .iter()
            .skip(1)
            .any(|o| o.contains('@') && !o.starts_with('@') || o.matches('@').count() > 1);
    Some(looped || whole_package)
}

/// A destroying SDK call in inline code (`python3 -c`, `node -e`): `.delete_user(`,
/// `.terminate_instances(`, `.deleteBucket(`, `new DeleteTableCommand(`. `Some(true)` when it
/// runs over a listing (a loop or comprehension over `list_*`/`describe_*`): everything of
/// a kind.
fn sdk_destroy(inv: &Invocation) -> Option<bool> {
    let interpreter = matches!(
        inv.program.as_str(),
        "python" | "python3" | "node" | "ruby" | "deno" | "bun"
    ) || inv.program.starts_with("python3.");
    if !interpreter {
        return None;
    }
    let args: Vec<&str> = inv.argv().collect();
    let code = args.windows(2).find_map(|w| match w {
        [flag, code] if matches!(*flag, "-c" | "-e" | "--eval" | "-p") => Some(*code),
        _ => None,
    })?;
    if !SDKS.iter().any(|s| code.contains(s)) {
        return None;
    }
    let lower = code.to_ascii_lowercase();
    let destroying = [
        ".delete",
        ".terminate",
        ".destroy",
        ".purge",
        ".drop",
        ".remove_",
    ]
    .iter()
    .any(|v| {
        lower.match_indices(v).any(|(i, _)| {
            let rest = lower.get(i + v.len()..).unwrap_or("");
            let ident: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            rest.get(ident.len()..)
                .is_some_and(|r| r.trim_start().starts_with('('))
        })
    }) || ["new delete", "new terminate", "new destroy", "new purge"]
        .iter()
        .any(|v| lower.contains(v) && lower.contains("command("));
    if !destroying {
        return None;
    }
    let listing = [
        "list_",
        "describe_",
        ".list(",
        "paginate",
        ".scan(",
        "list",
        "getall",
        ".runs(",
        ".artifacts(",
        ".projects(",
        "get_repos(",
        ".search(",
    ]
    .iter()
    .any(|l| lower.contains(l));
    let looping = lower.contains("for ") || lower.contains(".foreach(") || lower.contains(".map(");
    Some(listing && looping)
}

/// A framework told to use its test environment (`RAILS_ENV=test`, `MIX_ENV=test`,
/// `artisan … --env=testing`): the test database its own configuration names, not the one
/// a secrets file read earlier points at.
fn test_environment(inv: &Invocation) -> bool {
    let test = |v: &str| matches!(v.trim_matches(['"', '\'']), "test" | "testing");
    inv.assignments.iter().any(|(k, v)| {
        matches!(
            k.as_str(),
            "RAILS_ENV" | "RACK_ENV" | "MIX_ENV" | "APP_ENV" | "NODE_ENV" | "FLASK_ENV"
        ) && test(&v.text)
    }) || inv.argv().any(|a| {
        a.strip_prefix("--env=")
            .or_else(|| a.strip_prefix("--environment="))
            .is_some_and(test)
    })
}

pub fn check(cx: &Ctx<'_>, out: &mut Vec<Finding>) {
    let Some(sa) = cx.shell else {
        return;
    };
    for inv in &sa.invocations {
        // Schema and data taken back by a migration tool: against production always asked
        // (BLOCK when it takes everything); elsewhere a full reset is routine development,
        // unless the session read secrets or untrusted content first.
        if let Some(all) = migration_step(inv) {
            let prod = names_production(inv);
            if prod && all {
                out.push(Finding::new(SERVICE_DESTROY_ALL, Verdict::Block));
            } else if prod
                || (all
                    && (cx.untrusted()
                        || cx.session.secret_read && !test_environment(inv)
                        || names_remote_database(inv)))
            {
                out.push(Finding::new(SERVICE_DESTROY, Verdict::Auth));
            }
        }
        let argv: Vec<&str> = inv.argv().collect();
        // Vault's `secrets disable PATH` / `auth disable PATH`: the engine and every secret
        // in it (or every login through that method) are gone; `kv destroy` / `kv metadata
        // delete` destroy versions for good.
        let vault_destroys = inv.program == "vault"
            && (argv
                .windows(2)
                .any(|w| matches!(w, ["secrets" | "auth" | "audit", "disable"]))
                || argv.windows(2).any(|w| matches!(w, ["kv", "destroy"]))
                || argv
                    .windows(3)
                    .any(|w| matches!(w, ["kv", "metadata", "delete"])));
        if vault_destroys {
            out.push(Finding::new(SERVICE_DESTROY, Verdict::Auth));
        }
        // Alertmanager silenced for every alert (`amtool silence add 'alertname=~.+'`).
        if silences_everything(inv) {
            out.push(Finding::new(MONITORING_SILENCED, Verdict::Auth));
        }
        // Every key of a remote Redis deleted through a scan (`redis-cli -h H --scan
        // --pattern '*' | xargs redis-cli -h H UNLINK`).
        if redis_scan_delete(inv, sa) {
            out.push(Finding::new(SERVICE_DESTROY_ALL, Verdict::Block));
        }
        // `nomad job stop -purge` (the job and its history gone); `dvc gc --cloud` (data
        // deleted from the shared remote).
        if (inv.program == "nomad" && argv.contains(&"stop") && argv.contains(&"-purge"))
            || (inv.program == "dvc"
                && argv.first() == Some(&"gc")
                && argv.iter().any(|a| matches!(*a, "-c" | "--cloud")))
        {
            out.push(Finding::new(SERVICE_DESTROY, Verdict::Auth));
        }
        // A release withdrawn from a registry, or a destroying SDK call in inline code.
        for all in release_withdrawn(inv).into_iter().chain(sdk_destroy(inv)) {
            out.push(if all {
                Finding::new(
                    SERVICE_DESTROY_ALL,
                    cx.mode().pick([
                        Verdict::Auth,
                        Verdict::Block,
                        Verdict::Block,
                        Verdict::Block,
                    ]),
                )
            } else {
                Finding::new(SERVICE_DESTROY, Verdict::Auth)
            });
        }
        if let Some(all) = service_destroy(inv, cx.mode() <= Mode::Balanced)
            && !super::infra_destructive::compose_local_client(inv, sa)
            && (!local_server_named(inv) || all || cx.untrusted() || cx.mode() > Mode::Balanced)
        {
            out.push(if all {
                Finding::new(SERVICE_DESTROY_ALL, Verdict::Block)
            } else {
                Finding::new(SERVICE_DESTROY, Verdict::Auth)
            });
        }
        if http_delete(inv) {
            out.push(Finding::new(REMOTE_HTTP_DELETE, Verdict::Auth));
        }
        if service_takedown(inv, cx.mode() <= Mode::Balanced) {
            out.push(Finding::new(SERVICE_TAKEDOWN, Verdict::Auth));
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::Verdict::*;
    use crate::policy::Mode;
    use crate::rules::testutil::table;

    /// After a secrets file was read, a full reset is asked about — unless the framework is
    /// told to use its test environment.
    #[test]
    fn resets_after_secrets_by_environment() {
        use crate::action::{Action, Host};
        let e = crate::rules::testutil::engine(Mode::Balanced);
        let s = crate::SessionState {
            secret_read: true,
            ..Default::default()
        };
        for (cmd, want) in [
            (
                "RAILS_ENV=test bin/rails db:drop db:create db:schema:load",
                Pass,
            ),
            ("php artisan migrate:fresh --seed --env=testing", Pass),
            ("MIX_ENV=test mix ecto.reset", Pass),
            ("bin/rails db:drop db:create", Auth),
            ("RAILS_ENV=staging bin/rails db:drop", Auth),
            ("npx prisma migrate reset --force", Auth),
        ] {
            let d = e.decide(
                &Action::shell(Host::ClaudeCode, cmd, Some(crate::rules::testutil::CWD)),
                &s,
            );
            assert_eq!(d.verdict, want, "{cmd}: {:?}", d.codes());
        }
    }

    #[test]
    fn single_items_on_a_local_server() {
        table(
            Mode::Balanced,
            &[
                (
                    "kafka-topics.sh --bootstrap-server localhost:9092 --delete --topic orders.test",
                    Pass,
                    "",
                ),
                (
                    "kafka-topics.sh --bootstrap-server kafka-1.prod.example:9092 --delete --topic orders",
                    Auth,
                    "service_destroy",
                ),
                (
                    "kafka-topics.sh --bootstrap-server localhost:9092,kafka-2.example:9092 --delete --topic orders",
                    Auth,
                    "service_destroy",
                ),
            ],
        );
    }

    #[test]
    fn machines_reinstalled_and_engines_reset() {
        table(
            Mode::Balanced,
            &[
                (
                    "hcloud server rebuild --image ubuntu-24.04 db-prod-1",
                    Auth,
                    "service_destroy",
                ),
                (
                    "doctl compute droplet rebuild 4123 --image ubuntu-24-04-x64",
                    Auth,
                    "",
                ),
                ("az vmss reimage -g rg-prod -n web", Auth, ""),
                ("podman system reset --force", Auth, "infra_destroy"),
                // Look-alikes: local rebuilds and reading machines.
                ("npm rebuild better-sqlite3", Pass, ""),
                ("pnpm rebuild", Pass, ""),
                ("hcloud server describe db-prod-1", Pass, ""),
                ("podman system df", Pass, ""),
                ("podman system prune -f", Pass, ""),
            ],
        );
    }

    #[test]
    fn service_table() {
        table(
            Mode::Balanced,
            &[
                ("gh repo delete acme/webapp --yes", Auth, "service_destroy"),
                ("vault secrets disable kv/", Auth, "service_destroy"),
                ("vault auth disable userpass/", Auth, "service_destroy"),
                ("vault secrets list", Pass, ""),
                ("vault secrets enable -path=kv2 kv-v2", Pass, ""),
                (
                    "amtool --alertmanager.url=http://alertmanager.prod.example:9093 silence add 'alertname=~.+' --duration=720h --comment maintenance",
                    Auth,
                    "monitoring_silenced",
                ),
                (
                    "amtool silence add alertname=DiskFull instance=db1 --duration=2h --comment 'disk swap'",
                    Pass,
                    "",
                ),
                (
                    "redis-cli -h cache.prod.example --scan --pattern '*' | xargs -L 500 redis-cli -h cache.prod.example UNLINK",
                    Block,
                    "service_destroy_all",
                ),
                (
                    "redis-cli -h cache.staging.example --scan --pattern 'tmp:*' | xargs -L 500 redis-cli -h cache.staging.example UNLINK",
                    Pass,
                    "",
                ),
                (
                    "gcloud sql backups restore 1704240000123 --restore-instance=shop-prod-pg --quiet",
                    Auth,
                    "service_destroy",
                ),
                (
                    "heroku pg:backups:restore b101 DATABASE_URL -a shop-prod --confirm shop-prod",
                    Auth,
                    "service_destroy",
                ),
                (
                    "kafka-configs.sh --bootstrap-server kafka-1.prod.example:9092 --alter --entity-type topics --entity-name payments.events --add-config retention.ms=1000",
                    Auth,
                    "service_destroy",
                ),
                ("dotnet restore", Pass, ""),
                (
                    "redis-cli -h cache-prod.example CONFIG SET maxmemory 1mb",
                    Auth,
                    "service_takedown",
                ),
                ("redis-cli CONFIG SET maxmemory 1mb", Pass, ""),
                (
                    "redis-cli -h cache-prod.example CONFIG GET maxmemory",
                    Pass,
                    "",
                ),
                // The local development stack and a local etcd; the linked project is not.
                ("supabase db reset", Pass, ""),
                ("supabase db reset --linked", Auth, "service_destroy"),
                (
                    "etcdctl --endpoints=http://127.0.0.1:2379 del /dev/featureflags/new-checkout",
                    Pass,
                    "",
                ),
                (
                    "etcdctl --endpoints=https://198.51.100.11:2379 del /registry/ --prefix",
                    Auth,
                    "",
                ),
                (
                    "RAILS_ENV=production bin/rails runner 'Subscription.update_all(status: \"canceled\")'",
                    Auth,
                    "service_destroy",
                ),
                (
                    "DJANGO_SETTINGS_MODULE=config.settings.production python manage.py shell -c 'Order.objects.update(status=\"void\")'",
                    Auth,
                    "service_destroy",
                ),
                (
                    "RAILS_ENV=production bin/rails runner 'User.where(id: 42).update_all(locked: false)'",
                    Pass,
                    "",
                ),
                (
                    "bin/rails runner 'Subscription.update_all(status: \"trial\")'",
                    Pass,
                    "",
                ),
                ("nuget restore MySolution.sln", Pass, ""),
                (
                    "kafka-configs.sh --bootstrap-server k.example:9092 --alter --entity-type topics --entity-name logs --add-config retention.ms=604800000",
                    Pass,
                    "",
                ),
                (
                    "kafka-configs.sh --bootstrap-server k.example:9092 --describe --entity-type topics",
                    Pass,
                    "",
                ),
                // Tools named for wiping an account; verbs with a prefix; payment verbs.
                (
                    "aws-nuke run -c nuke.yaml --no-dry-run --force --profile prod",
                    Block,
                    "service_destroy_all",
                ),
                ("aws-nuke run -c nuke.yaml --profile prod", Pass, ""),
                (
                    "cloud-nuke aws --region eu-west-1 --force",
                    Block,
                    "service_destroy_all",
                ),
                ("cloud-nuke aws --dry-run", Pass, ""),
                (
                    "cli53 rrpurge --confirm --wait acme.example",
                    Auth,
                    "service_destroy",
                ),
                ("cli53 list", Pass, ""),
                ("gcloud compute instances undelete vm-1", Pass, ""),
                (
                    "stripe subscriptions list --live | jq -r '.data[].id' | xargs -n1 stripe subscriptions cancel --live",
                    Auth,
                    "service_destroy",
                ),
                ("stripe subscriptions list --live --limit 5", Pass, ""),
                ("gh run cancel 123456", Pass, ""),
                (
                    "curl -s -u \"admin:$RABBIT_PASS\" -X DELETE https://mq.prod.acme.example:15671/api/vhosts/%2F",
                    Auth,
                    "remote_http_delete",
                ),
                (
                    "curl -s https://mq.prod.acme.example:15671/api/vhosts/%2F",
                    Pass,
                    "",
                ),
                (
                    "restic -r sftp:backup@nas.lan:/srv/restic forget --keep-last 1 --prune",
                    Auth,
                    "service_destroy",
                ),
                (
                    "borg prune --keep-daily 7 /mnt/backup::",
                    Auth,
                    "service_destroy",
                ),
                (
                    "restic -r sftp:backup@nas.lan:/srv/restic snapshots",
                    Pass,
                    "",
                ),
                ("docker system prune -f", Pass, ""),
                ("git remote prune origin", Pass, ""),
                (
                    "DATABASE_URL='postgresql://app_admin:pw@prod-db.acme.example:5432/app' npx prisma migrate reset --force --skip-seed",
                    Block,
                    "service_destroy_all",
                ),
                (
                    "python manage.py flush --noinput --settings=config.settings.production",
                    Block,
                    "service_destroy_all",
                ),
                (
                    "DJANGO_SETTINGS_MODULE=config.settings.production python manage.py migrate orders zero",
                    Block,
                    "service_destroy_all",
                ),
                (
                    "ALEMBIC_ENV=prod alembic -x db_url=postgresql://app_admin@prod-db.acme.example/app downgrade base",
                    Block,
                    "service_destroy_all",
                ),
                (
                    "NODE_ENV=production npx knex migrate:rollback --all --env production",
                    Block,
                    "service_destroy_all",
                ),
                (
                    "RAILS_ENV=production bin/rails db:rollback",
                    Auth,
                    "service_destroy",
                ),
                // Look-alikes: the same against the development database.
                ("npx prisma migrate reset --force", Pass, ""),
                // A database on another machine, named by a URL: asked.
                (
                    "liquibase --url=jdbc:mysql://198.51.100.23:3306/orders --username=admin dropAll",
                    Auth,
                    "service_destroy",
                ),
                (
                    "flyway -url=jdbc:postgresql://db.staging.acme.example:5432/app clean",
                    Auth,
                    "service_destroy",
                ),
                (
                    "DATABASE_URL=postgresql://u:p@10.0.4.12:5432/app npx prisma migrate reset --force",
                    Auth,
                    "service_destroy",
                ),
                // … not a container on the compose network, nor this machine.
                ("flyway -url=jdbc:postgresql://db:5432/app clean", Pass, ""),
                (
                    "liquibase --url=jdbc:postgresql://localhost:5432/app dropAll",
                    Pass,
                    "",
                ),
                ("python manage.py flush --noinput", Pass, ""),
                ("python manage.py migrate orders zero", Pass, ""),
                ("alembic downgrade -1", Pass, ""),
                ("mix ecto.reset", Pass, ""),
                ("mix ecto.rollback --step 1", Pass, ""),
                ("MIX_ENV=prod mix ecto.reset", Block, "service_destroy_all"),
                ("npx knex migrate:rollback", Pass, ""),
                ("bin/rails db:reset", Pass, ""),
                (
                    "bin/rails db:schema:load DISABLE_DATABASE_ENVIRONMENT_CHECK=1",
                    Block,
                    "service_destroy_all",
                ),
                (
                    "bin/rails db:migrate RAILS_ENV=production",
                    Auth,
                    "production_write",
                ),
                ("bin/rails db:migrate RAILS_ENV=development", Pass, ""),
                ("npx prisma migrate dev --name add_users", Pass, ""),
                (
                    "nomad job stop -purge -yes api-prod",
                    Auth,
                    "service_destroy",
                ),
                (
                    "dvc gc --workspace --cloud --force --remote storage",
                    Auth,
                    "service_destroy",
                ),
                ("dvc gc --workspace", Pass, ""),
                (
                    "aws kms schedule-key-deletion --key-id alias/prod-data --pending-window-in-days 7",
                    Auth,
                    "service_destroy",
                ),
                ("aws kms describe-key --key-id alias/prod-data", Pass, ""),
                ("nomad job status api", Pass, ""),
                ("NODE_ENV=production npm run build", Pass, ""),
                (
                    "python3 -c \"import boto3; iam=boto3.Session(profile_name='prod-admin').client('iam'); [iam.delete_user(UserName=u['UserName']) for u in iam.list_users()['Users']]\"",
                    Block,
                    "service_destroy_all",
                ),
                (
                    "python3 -c \"import boto3; boto3.client('ec2').terminate_instances(InstanceIds=['i-0abc'])\"",
                    Auth,
                    "service_destroy",
                ),
                (
                    "node -e \"const {S3Client, DeleteBucketCommand}=require('@aws-sdk/client-s3'); new S3Client({}).send(new DeleteBucketCommand({Bucket:'prod-logs'}))\"",
                    Auth,
                    "service_destroy",
                ),
                (
                    "python -c \"from huggingface_hub import HfApi; HfApi().delete_repo('acme-ml/claims-xgb', repo_type='model')\"",
                    Auth,
                    "service_destroy",
                ),
                (
                    "python -c \"import wandb; api = wandb.Api(); [r.delete(delete_artifacts=True) for r in api.runs('acme/ranker-prod')]\"",
                    Block,
                    "service_destroy_all",
                ),
                (
                    "python -c \"from huggingface_hub import HfApi; print(HfApi().list_models(author='acme-ml'))\"",
                    Pass,
                    "",
                ),
                (
                    "python -c \"import wandb; api = wandb.Api(); print(len(api.runs('acme/ranker-dev')))\"",
                    Pass,
                    "",
                ),
                // Releases taken back from public registries.
                (
                    "cargo yank --version 1.0.0 acme-core",
                    Auth,
                    "service_destroy",
                ),
                ("npm unpublish acme-core@1.2.0", Auth, "service_destroy"),
                (
                    "npm unpublish acme-core --force",
                    Block,
                    "service_destroy_all",
                ),
                (
                    "curl -s https://crates.io/api/v1/crates/acme-core/versions | jq -r '.versions[].num' | xargs -I{} cargo yank --version {} acme-core",
                    Block,
                    "service_destroy_all",
                ),
                (
                    "dotnet nuget delete Acme.Core 1.0.0 --source https://api.nuget.org/v3/index.json --non-interactive",
                    Auth,
                    "service_destroy",
                ),
                ("gem yank acme -v 1.0.0", Auth, "service_destroy"),
                ("cargo yank --version 1.0.0 --undo acme-core", Pass, ""),
                ("npm publish --access public", Pass, ""),
                (
                    "dotnet nuget push bin/Release/Acme.Core.1.0.1.nupkg --source https://api.nuget.org/v3/index.json --api-key $NUGET_KEY",
                    Pass,
                    "",
                ),
                // Look-alikes: reading through an SDK, and deleting local things in inline code.
                (
                    "python3 -c \"import boto3; print([b['Name'] for b in boto3.client('s3').list_buckets()['Buckets']])\"",
                    Pass,
                    "",
                ),
                (
                    "python3 -c \"import shutil; shutil.rmtree('build', ignore_errors=True)\"",
                    Pass,
                    "",
                ),
                ("python3 -c \"d={'a':1}; d.pop('a'); print(d)\"", Pass, ""),
                ("stripe products delete prod_123", Auth, "service_destroy"),
                ("flyctl apps destroy acme-api", Auth, "service_destroy"),
                (
                    "aws sqs purge-queue --queue-url https://sqs.example/q",
                    Auth,
                    "service_destroy",
                ),
                (
                    "kafka-topics.sh --bootstrap-server k:9092 --delete --topic t",
                    Auth,
                    "service_destroy",
                ),
                (
                    "argocd app delete payments --cascade",
                    Auth,
                    "service_destroy",
                ),
                (
                    "kubectl rollout undo deployment/api",
                    Auth,
                    "service_destroy",
                ),
                (
                    "kubectl delete all --all -n prod",
                    Block,
                    "service_destroy_all",
                ),
                (
                    "firebase firestore:delete --all-collections --force",
                    Block,
                    "service_destroy_all",
                ),
                (
                    "curl -X DELETE https://api.github.com/repos/acme/webapp",
                    Auth,
                    "remote_http_delete",
                ),
                (
                    "curl -X POST https://api.example.com/admin/users/purge",
                    Auth,
                    "remote_http_delete",
                ),
                (
                    "kubectl --context prod -n default scale deploy --all --replicas=0",
                    Auth,
                    "service_takedown",
                ),
                (
                    "helm upgrade api ./charts/api -n api --kube-context prod --reuse-values --set replicaCount=0,autoscaling.enabled=false",
                    Auth,
                    "service_takedown",
                ),
                // Scaled, not taken down: a production change (asked about by
                // `production_change`), never `service_takedown`.
                (
                    "helm upgrade api ./charts/api -n api --kube-context prod --set replicaCount=3",
                    Auth,
                    "production_change",
                ),
                (
                    "helm upgrade api ./charts/api -n api --kube-context staging --set replicaCount=3",
                    Pass,
                    "",
                ),
                (
                    "aws ecs update-service --cluster prod --service api --desired-count 0",
                    Auth,
                    "service_takedown",
                ),
                ("heroku ps:scale web=0 -a acme", Auth, "service_takedown"),
                ("fly scale count 0 -a acme-api", Auth, "service_takedown"),
                (
                    "aws ec2 stop-instances --instance-ids i-0abc",
                    Auth,
                    "service_takedown",
                ),
                (
                    "gcloud compute instances stop web-1 --zone us-central1-a",
                    Auth,
                    "service_takedown",
                ),
                ("az vm deallocate -g rg -n vm1", Auth, "service_takedown"),
                // Benign look-alikes.
                (
                    "ssh deploy@prod-1.example 'docker volume rm $(docker volume ls -q) --force'",
                    Auth,
                    "service_destroy",
                ),
                ("docker volume rm scratch-data", Pass, ""),
                ("ssh deploy@prod-1.example 'docker ps'", Pass, ""),
                (
                    "gsutil -m rsync -d -r /tmp/empty gs://acme-prod-assets",
                    Auth,
                    "service_destroy",
                ),
                (
                    "aws s3 sync ./dist s3://site --delete",
                    Auth,
                    "service_destroy",
                ),
                (
                    "DOCKER_HOST=ssh://deploy@prod.example docker compose down -v",
                    Auth,
                    "service_destroy",
                ),
                ("docker compose down -v", Pass, ""),
                ("gsutil ls gs://site", Pass, ""),
                ("kubectl scale deploy/api --replicas=3 -n dev", Pass, ""),
                // A cluster on this machine: nothing is taken down for anyone else.
                (
                    "kubectl --context kind-dev -n dev scale deploy/worker --replicas=0",
                    Pass,
                    "",
                ),
                // … nor in a development namespace.
                ("kubectl -n dev scale deploy/worker --replicas=0", Pass, ""),
                (
                    "kubectl scale deploy/api --replicas=0 --namespace=feature-x-dev",
                    Pass,
                    "",
                ),
                (
                    "kubectl --context prod-eks -n dev scale deploy/api --replicas=0",
                    Auth,
                    "service_takedown",
                ),
                (
                    "kubectl -n staging scale deploy/api --replicas=0",
                    Auth,
                    "service_takedown",
                ),
                (
                    "kubectl -n dev scale deploy --all --replicas=0",
                    Auth,
                    "service_takedown",
                ),
                (
                    "bin/rails db:rollback STEP=1 && bin/rails db:migrate",
                    Pass,
                    "",
                ),
                ("alembic downgrade -1", Pass, ""),
                ("knex migrate:rollback", Pass, ""),
                (
                    "RAILS_ENV=production bin/rails db:rollback",
                    Auth,
                    "service_destroy",
                ),
                ("heroku ps:scale web=2 -a acme", Pass, ""),
                (
                    "aws ec2 describe-instances --filters Name=instance-state-name,Values=stopped",
                    Pass,
                    "",
                ),
                ("docker compose stop", Pass, ""),
                ("npm stop", Pass, ""),
                ("gh release list", Pass, ""),
                ("aws s3 ls s3://bucket", Pass, ""),
                ("kubectl get pods -A", Pass, ""),
                ("curl -X DELETE http://localhost:8080/api/todos/3", Pass, ""),
                (
                    "curl -X POST https://api.example.com/v1/orders -d '{}'",
                    Pass,
                    "",
                ),
                ("docker rm -f dev-db", Pass, ""),
                ("git branch -d old", Pass, ""),
                ("npm uninstall left-pad", Pass, ""),
                ("echo delete all", Pass, ""),
                ("grep -rn delete src/", Pass, ""),
                ("redis-cli GET session:42", Pass, ""),
                ("man rm", Pass, ""),
                ("which rm", Pass, ""),
                ("RAILS_ENV=test bin/rails db:reset", Pass, ""),
                (
                    "DISABLE_DATABASE_ENVIRONMENT_CHECK=1 bin/rails db:drop db:create db:schema:load",
                    Block,
                    "service_destroy",
                ),
                (
                    "aws route53 change-resource-record-sets --change-batch '{\"Changes\":[{\"Action\":\"DELETE\"}]}'",
                    Auth,
                    "service_destroy",
                ),
            ],
        );
    }
}
