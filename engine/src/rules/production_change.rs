//! What runs in production changed directly.
//!
//! **What it does:** `kubectl`/`oc` changing workloads in a namespace or context named for
//! production (`-n prod`, `--context prod-eu-1`): a new image (`set image`), new environment
//! (`set env`), a patch, an edit, a manifest applied, created or replaced, a rollout undone;
//! and `helm upgrade`/`install`/`rollback` into one — `production_change`, AUTH in balanced
//! and stricter modes. Reading (`get`, `logs`, `describe`, `diff`), a restart, and any
//! change to a namespace or context not named for production pass. A deploy to production
//! (`vercel --prod`, `netlify deploy --prod`, `fly deploy -a api-prod`, `git push production
//! main`) is the same change by another road; previews and staging pass.
//! **Why:** a hijacked agent that swaps a production image for its own (or for `busybox`) has
//! taken the service down or over without deleting anything; changes to production usually
//! go through review and CI, so a direct one is worth a look.
//! Writes to production data and infrastructure are `production_write` (AUTH in balanced and
//! stricter modes): a database client given writing SQL (`UPDATE`, `ALTER`, `GRANT`, `DO`,
//! a script file) for a host, URL or variable named for production; a migration, seed or
//! fixture load run with a production environment (`RAILS_ENV=production bin/rails
//! db:migrate`, `--settings=….production`, a `$PROD_DATABASE_URL`); an infrastructure apply
//! to a production stack, folder or inventory (`terraform -chdir=envs/prod apply`, `pulumi up
//! --stack acme/prod`, `cdk deploy Orders-prod`, `ansible-playbook -i inventories/production`);
//! a cloud or payment client's creating, updating or importing subcommand on a production
//! resource (`aws dynamodb update-time-to-live --table-name orders-prod`, `stripe … create
//! --live`). Reading production (`SELECT`, `plan`, `describe`, `--check`) and building in
//! production mode (`NODE_ENV=production npm run build`) pass.
//! **Example:** `kubectl -n prod set image deploy/api api=busybox:1.36` → `production_change`.

use crate::verdict::{Finding, Reason, Verdict};

use super::Ctx;

pub const PRODUCTION_CHANGE: Reason = Reason::new(
    "production_change",
    "Changes what runs in production directly (a new image, patch, manifest, release or deploy to production).",
);

pub const PRODUCTION_WRITE: Reason = Reason::new(
    "production_write",
    "Writes to production data or infrastructure directly (a write, migration, seed, apply or payment against a production target).",
);

/// Words of a text, lower-cased, split at everything but letters and digits.
pub(crate) fn words_of(t: &str) -> impl Iterator<Item = String> + '_ {
    t.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_ascii_lowercase)
}

/// Does a text name production (`db-prod.internal`, `$BILLING_PROD_URL`, `envs/prod`,
/// `acme/production`, `settings.production`)?
fn names_production(t: &str) -> bool {
    words_of(t).any(|w| matches!(w.as_str(), "prod" | "production" | "prd"))
}

/// The invocation's target is production: an argument, or an assignment's value, names it;
/// or a payment client is told to use live mode (`--live`).
fn production_target(inv: &crate::shell::Invocation) -> bool {
    // Free text (a query, a message) is not a target; a connection string is.
    let target_like =
        |a: &str| !a.contains(char::is_whitespace) || a.contains("host=") || a.contains("://");
    inv.argv()
        .any(|a| a == "--live" || target_like(a) && names_production(a))
        || inv
            .assignments
            .iter()
            .any(|(_, v)| names_production(&v.text))
}

/// Statements that change data, schema or rights (`UPDATE`, `INSERT`, `ALTER`, `GRANT`, a
/// `DO` block, a prepared or executed string); reading and routine maintenance do not.
pub(crate) fn sql_writes(sql: &str) -> bool {
    let mut text = String::with_capacity(sql.len());
    let mut quote = false;
    for c in sql.chars() {
        match c {
            '\'' => quote = !quote,
            _ if quote => {}
            _ => text.push(c),
        }
    }
    text.split(';').any(|stmt| {
        let mut w = words_of(stmt);
        let first = w.next().unwrap_or_default();
        let second = w.next().unwrap_or_default();
        match first.as_str() {
            "insert" | "update" | "delete" | "merge" | "upsert" | "replace" | "alter"
            | "create" | "drop" | "truncate" | "grant" | "revoke" | "do" | "execute" | "exec"
            | "call" | "prepare" | "rename" | "comment" | "load" => true,
            "copy" => words_of(stmt).any(|x| x == "from"),
            "set" => matches!(second.as_str(), "global" | "persist"),
            // `WITH x AS (…) UPDATE …`.
            "with" => words_of(stmt).any(|x| matches!(x.as_str(), "update" | "delete" | "insert")),
            _ => false,
        }
    })
}

/// Mongo shell code that changes documents or collections.
fn mongo_writes(code: &str) -> bool {
    let c = code.to_ascii_lowercase();
    [
        ".update",
        ".insert",
        ".delete",
        ".remove",
        ".drop",
        ".replace",
        ".rename",
        ".bulkwrite",
        ".findoneandupdate",
        ".findoneanddelete",
        ".createindex",
    ]
    .iter()
    .any(|m| c.contains(m))
}

/// The SQL (or Mongo) a database client is told to run, `None` for a script it reads (whose
/// content is not on the line) — `Some(text)` otherwise; no text at all is an interactive
/// session or a read.
fn client_writes(cx: &Ctx<'_>, inv: &crate::shell::Invocation) -> bool {
    let args: Vec<&str> = inv.argv().collect();
    let p = inv.program.as_str();
    let value_of = |flags: &[&str]| -> Vec<&str> {
        let mut out = Vec::new();
        for (i, a) in args.iter().enumerate() {
            for f in flags {
                if a == f {
                    if let Some(v) = args.get(i + 1) {
                        out.push(*v);
                    }
                } else if let Some(v) = a.strip_prefix(&format!("{f}=")) {
                    out.push(v);
                }
            }
        }
        out
    };
    match p {
        "psql" | "mysql" | "mariadb" | "sqlcmd" | "cqlsh" | "clickhouse-client" | "snowsql"
        | "cockroach" | "usql" | "pgcli" | "mycli" => {
            let script = !value_of(&["-f", "--file", "-i", "--input-file", "--source"]).is_empty()
                || inv.redirects.iter().any(|r| {
                    r.kind == crate::shell::RedirectKind::Read && r.target.text.ends_with(".sql")
                });
            // A script is judged by its content where the session or the adapter knows it.
            let known = super::infra_destructive::sql_files(cx, inv);
            script && (known.is_empty() || known.iter().any(|c| sql_writes(c)))
                || value_of(&["-c", "--command", "-e", "--execute", "-Q", "-q", "--query"])
                    .iter()
                    .any(|q| sql_writes(q))
        }
        "mongosh" | "mongo" => value_of(&["--eval"]).iter().any(|c| mongo_writes(c)),
        "redis-cli" => args.iter().enumerate().any(|(i, a)| {
            match a.to_ascii_lowercase().as_str() {
                "set" | "del" | "unlink" | "hset" | "hdel" | "expire" | "rename" | "lpush"
                | "rpush" | "sadd" | "srem" | "zadd" | "zrem" | "eval" | "mset" | "persist"
                | "restore" | "migrate" => true,
                // `CONFIG SET` / `REWRITE` change the server; `CONFIG GET` reads it.
                "config" => args
                    .get(i + 1)
                    .is_some_and(|s| !s.eq_ignore_ascii_case("get")),
                _ => false,
            }
        }),
        _ => false,
    }
}

/// Runs migrations, seeds or fixture loads, or applies infrastructure.
fn applies_changes(inv: &crate::shell::Invocation) -> bool {
    let mut words: Vec<String> = std::iter::once(inv.program.clone())
        .chain(inv.argv().map(str::to_ascii_lowercase))
        .collect();
    // Runners in front (`npx prisma …`, `bundle exec rails …`, `python manage.py …`).
    while let Some(first) = words.first().map(String::as_str) {
        let runner = matches!(
            first,
            "npx"
                | "pnpx"
                | "bunx"
                | "exec"
                | "bundle"
                | "poetry"
                | "pipenv"
                | "uv"
                | "run"
                | "python"
                | "python3"
                | "php"
                | "dotnet"
        );
        if !runner {
            break;
        }
        words.remove(0);
    }
    let w = |i: usize| words.get(i).map(String::as_str).unwrap_or("");
    let tool = crate::paths::basename(w(0)).to_owned();
    let rest: Vec<&str> = words.iter().skip(1).map(String::as_str).collect();
    let verb = rest
        .iter()
        .find(|a| !a.starts_with('-') && !a.contains('='))
        .copied()
        .unwrap_or("");
    let has = |x: &str| rest.contains(&x);
    match tool.as_str() {
        "rails" | "rake" => rest.iter().any(|a| {
            a.starts_with("db:")
                && !matches!(
                    *a,
                    "db:version" | "db:migrate:status" | "db:abort_if_pending_migrations"
                )
        }),
        "alembic" => matches!(verb, "upgrade" | "downgrade" | "stamp"),
        "prisma" => {
            (has("migrate") && (has("deploy") || has("reset") || has("dev")))
                || (has("db") && (has("push") || has("seed") || has("execute")))
        }
        "manage.py" | "django-admin" => matches!(
            verb,
            "migrate" | "loaddata" | "flush" | "createsuperuser" | "changepassword" | "shell"
        ),
        "artisan" => verb.starts_with("migrate") || matches!(verb, "db:seed" | "db:wipe"),
        "knex" => verb.starts_with("migrate:") && verb != "migrate:status" || verb == "seed:run",
        "sequelize" | "sequelize-cli" => verb.starts_with("db:"),
        "typeorm" => matches!(
            verb,
            "migration:run" | "migration:revert" | "schema:sync" | "schema:drop"
        ),
        "flyway" => matches!(verb, "migrate" | "clean" | "repair" | "baseline" | "undo"),
        "liquibase" => {
            verb.starts_with("update") || verb.starts_with("rollback") || verb == "drop-all"
        }
        "dbmate" | "goose" | "migrate" => matches!(
            verb,
            "up" | "down" | "migrate" | "rollback" | "drop" | "reset" | "redo" | "force"
        ),
        "supabase" => has("db") && (has("push") || has("reset")),
        "diesel" | "sqlx" => {
            (has("migration") || has("migrate")) && (has("run") || has("revert") || has("redo"))
        }
        "mix" => matches!(
            verb,
            "ecto.migrate" | "ecto.rollback" | "ecto.reset" | "ecto.drop"
        ),
        "ef" => has("database") && (has("update") || has("drop")),
        "terraform" | "tofu" | "terragrunt" => {
            matches!(
                verb,
                "apply" | "destroy" | "import" | "taint" | "untaint" | "force-unlock"
            ) || verb == "state" && rest.iter().any(|a| matches!(*a, "rm" | "mv" | "push"))
        }
        "pulumi" => {
            matches!(verb, "up" | "update" | "destroy" | "import")
                || verb == "state" && has("delete")
        }
        "cdk" => matches!(verb, "deploy" | "destroy"),
        "sls" | "serverless" | "sam" => matches!(verb, "deploy" | "remove" | "delete"),
        "ansible-playbook" => !inv.argv().any(|a| {
            matches!(
                a,
                "--check" | "-C" | "--syntax-check" | "--list-hosts" | "--list-tasks"
            )
        }),
        _ => false,
    }
}

/// A cloud or payment client's subcommand that creates, changes or imports something
/// (`aws dynamodb update-time-to-live`, `gcloud sql import`, `stripe transfers create`).
fn cloud_write(inv: &crate::shell::Invocation) -> bool {
    if !matches!(
        inv.program.as_str(),
        "aws" | "gcloud" | "az" | "stripe" | "doctl" | "bq" | "heroku" | "auth0" | "okta"
    ) {
        return false;
    }
    inv.argv()
        .take_while(|a| !a.starts_with('-'))
        .take(4)
        .flat_map(|a| {
            a.split(['-', '_', ':'])
                .map(str::to_ascii_lowercase)
                .collect::<Vec<_>>()
        })
        .any(|w| {
            matches!(
                w.as_str(),
                "create"
                    | "update"
                    | "put"
                    | "modify"
                    | "set"
                    | "import"
                    | "patch"
                    | "attach"
                    | "add"
                    | "enable"
                    | "disable"
                    | "transfer"
                    | "transfers"
                    | "payouts"
                    | "subscribe"
                    | "restore"
                    | "replace"
                    | "reset"
                    | "refund"
                    | "cancel"
            )
        })
}

/// Flags of `kubectl` and `helm` that take a value (so the value is not the subcommand).
const VALUED: &[&str] = &[
    "-n",
    "--namespace",
    "--context",
    "--kube-context",
    "--kubeconfig",
    "--cluster",
    "--user",
    "-f",
    "--filename",
    "-k",
    "--kustomize",
    "-l",
    "--selector",
    "-p",
    "--patch",
    "--type",
    "-o",
    "--output",
    "-c",
    "--container",
    "--values",
    "--set",
    "--set-string",
    "--version",
    "--timeout",
];

/// The subcommand words of a `kubectl`/`helm` line, and whether it names production.
fn scope(args: &[&str]) -> (Vec<String>, bool) {
    let mut ops = Vec::new();
    let mut prod = false;
    let mut it = args.iter().copied();
    while let Some(a) = it.next() {
        if let Some((k, v)) = a.split_once('=')
            && k.starts_with('-')
        {
            if matches!(
                k,
                "--namespace" | "--context" | "--kube-context" | "-n" | "--cluster"
            ) {
                prod |= super::infra_destructive::prod_name(v);
            }
            continue;
        }
        if VALUED.contains(&a) {
            if let Some(v) = it.next()
                && matches!(
                    a,
                    "-n" | "--namespace" | "--context" | "--kube-context" | "--cluster"
                )
            {
                prod |= super::infra_destructive::prod_name(v);
            }
            continue;
        }
        if a.starts_with("-n") && a.len() > 2 && !a.starts_with("--") {
            prod |= a.get(2..).is_some_and(super::infra_destructive::prod_name);
            continue;
        }
        if a.starts_with('-') {
            continue;
        }
        ops.push(a.to_ascii_lowercase());
    }
    (ops, prod)
}

fn changes_production(inv: &crate::shell::Invocation) -> bool {
    let args: Vec<&str> = inv.argv().collect();
    let (ops, prod) = scope(&args);
    if !prod {
        return false;
    }
    let op = |i: usize| ops.get(i).map(String::as_str).unwrap_or("");
    match inv.program.as_str() {
        "kubectl" | "oc" => {
            matches!(op(0), "patch" | "edit" | "replace" | "apply" | "create")
                || op(0) == "set" && matches!(op(1), "image" | "env" | "serviceaccount" | "sa")
                || op(0) == "rollout" && op(1) == "undo"
        }
        "helm" => matches!(op(0), "upgrade" | "install" | "rollback"),
        _ => false,
    }
}

/// A site, app or function deployed to production: `vercel --prod` (and `vercel promote`),
/// `netlify deploy --prod`, `wrangler deploy --env production`, `firebase deploy --project
/// acme-prod`, `fly deploy -a api-prod`, `serverless deploy --stage prod`, `eb deploy
/// shop-prod`, `kamal deploy -d production`, `cap production deploy`, `railway up -e
/// production`, `heroku … -a shop-prod` releasing or rolling back, and `git push` to a remote
/// named for production (`git push production main`). Also through `npx`/`pnpm dlx`.
/// Deploys to preview, staging or an unnamed target pass.
fn deploys_production(inv: &crate::shell::Invocation) -> bool {
    let all: Vec<&str> = inv.argv().collect();
    let (tool, args): (&str, &[&str]) = match inv.program.as_str() {
        "npx" | "pnpx" | "bunx" => match all.iter().position(|a| !a.starts_with('-')) {
            Some(at) => (
                all.get(at).copied().unwrap_or(""),
                all.get(at + 1..).unwrap_or(&[]),
            ),
            None => return false,
        },
        "pnpm" | "yarn" | "bun" if matches!(all.first(), Some(&("dlx" | "exec" | "x"))) => (
            all.get(1).copied().unwrap_or(""),
            all.get(2..).unwrap_or(&[]),
        ),
        p => (p, all.as_slice()),
    };
    let tool = tool.split('@').find(|t| !t.is_empty()).unwrap_or(tool);
    let ops: Vec<&str> = args
        .iter()
        .copied()
        .filter(|a| !a.starts_with('-'))
        .collect();
    let op = |i: usize| ops.get(i).copied().unwrap_or("");
    let prod_flag = args
        .iter()
        .any(|a| matches!(*a, "--prod" | "--production" | "--prod-if-unlocked"));
    // The value of one of `names` (`-e prod`, `--env=production`) names production.
    let named = |names: &[&str]| {
        args.windows(2).any(|w| match w {
            [f, v] => names.contains(f) && super::infra_destructive::prod_name(v),
            _ => false,
        }) || args.iter().any(|a| {
            a.split_once('=')
                .is_some_and(|(f, v)| names.contains(&f) && super::infra_destructive::prod_name(v))
        })
    };
    match tool {
        "vercel" => prod_flag || op(0) == "promote",
        "netlify" => op(0) == "deploy" && prod_flag,
        "wrangler" => {
            matches!(op(0), "deploy" | "publish" | "versions" | "rollback")
                && named(&["--env", "-e"])
        }
        "firebase" => op(0) == "deploy" && named(&["--project", "-P"]),
        "fly" | "flyctl" => {
            matches!(op(0), "deploy" | "releases" | "secrets" | "scale")
                && named(&["--app", "-a", "--config", "-c"])
        }
        "serverless" | "sls" => op(0) == "deploy" && named(&["--stage", "-s"]),
        "eb" => {
            op(0) == "deploy" && (super::infra_destructive::prod_name(op(1)) || named(&["--env"]))
        }
        "kamal" => {
            matches!(op(0), "deploy" | "redeploy" | "rollback") && named(&["-d", "--destination"])
        }
        "cap" => op(1) == "deploy" && super::infra_destructive::prod_name(op(0)),
        "railway" => matches!(op(0), "up" | "redeploy") && named(&["--environment", "-e"]),
        "heroku" => {
            (op(0).starts_with("releases:rollback")
                || op(0).starts_with("container:release")
                || op(0).starts_with("pipelines:promote"))
                && named(&["--app", "-a", "--remote", "-r"])
        }
        "git" => {
            op(0) == "push"
                && ops.get(1).is_some_and(|r| {
                    !r.contains([':', '/']) && super::infra_destructive::prod_name(r)
                })
        }
        _ => false,
    }
}

/// `supabase db push` (and `db reset --linked`): the project's migrations applied to the
/// hosted database it is linked to — the live one, unless told `--local` or `--dry-run`.
fn linked_remote_write(inv: &crate::shell::Invocation) -> bool {
    let args: Vec<&str> = inv.argv().collect();
    let supabase = inv.program == "supabase" || args.first() == Some(&"supabase");
    supabase
        && args.contains(&"db")
        && (args.contains(&"push") || args.contains(&"reset") && args.contains(&"--linked"))
        && !args.iter().any(|a| matches!(*a, "--local" | "--dry-run"))
}

/// Does a user's turn ask for a change to production: it names production (`prod`,
/// `production`) and a verb of changing it (`deploy`, `ship`, `release`, `push`, `roll out`,
/// `migrate`, `apply`, `publish`, `promote`, `fix`)? (`why is prod slow?` does not.)
pub fn asks_for_production(text: &str) -> bool {
    let words: Vec<String> = words_of(text).collect();
    let names = words
        .iter()
        .any(|w| matches!(w.as_str(), "prod" | "production"));
    let verb = words.iter().any(|w| {
        [
            "deploy", "ship", "release", "push", "roll", "migrat", "apply", "publish", "promot",
            "upgrad", "rollback", "revert", "update", "fix", "patch", "redeploy",
        ]
        .iter()
        .any(|v| w.starts_with(v))
    });
    names && verb
}

/// The environment files a migration, seed or reset run in a folder takes its database
/// from (dotenv's, and the frameworks' defaults).
pub(crate) const ENV_FILES: &[&str] = &[".env", ".env.local", ".env.development"];

/// A migration, seed or reset run in a folder whose environment file (as the session saw
/// it, or as the adapter read it) connects to production.
fn env_targets_production(cx: &Ctx<'_>, inv: &crate::shell::Invocation) -> bool {
    let Some(cwd) = inv.cwd.as_deref().or(cx.cwd()) else {
        return false;
    };
    ENV_FILES.iter().any(|name| {
        let path = format!("{}/{name}", cwd.trim_end_matches('/'));
        crate::needs::text_before(cx.facts, cx.session, &path).is_some_and(|t| {
            super::points_at_production::names_production_target(&t.to_ascii_lowercase())
        })
    })
}

/// Does this invocation apply migrations, seeds or resets (for the adapter: read the folder's
/// environment files first)?
pub(crate) fn applies_data_changes(inv: &crate::shell::Invocation) -> bool {
    applies_changes(inv)
}

fn writes_production(cx: &Ctx<'_>, inv: &crate::shell::Invocation) -> bool {
    linked_remote_write(inv)
        || production_target(inv)
            && (client_writes(cx, inv) || applies_changes(inv) || cloud_write(inv))
        || applies_changes(inv) && env_targets_production(cx, inv)
}

pub fn check(cx: &Ctx<'_>, out: &mut Vec<Finding>) {
    // The user asked for this turn's production change, and nothing untrusted was read since.
    if cx.session.user_asked_production && !cx.session.tainted {
        return;
    }
    if cx
        .shell
        .is_some_and(|sa| sa.invocations.iter().any(|i| writes_production(cx, i)))
    {
        out.push(Finding::new(
            PRODUCTION_WRITE,
            cx.mode()
                .pick([Verdict::Pass, Verdict::Auth, Verdict::Auth, Verdict::Auth]),
        ));
    }
    if cx.shell.is_some_and(|sa| {
        sa.invocations
            .iter()
            .any(|i| changes_production(i) || deploys_production(i))
    }) {
        out.push(Finding::new(
            PRODUCTION_CHANGE,
            cx.mode()
                .pick([Verdict::Pass, Verdict::Auth, Verdict::Auth, Verdict::Auth]),
        ));
    }
}

#[cfg(test)]
mod tests {
    use crate::Verdict::*;
    use crate::policy::Mode;
    use crate::rules::testutil::table;

    /// A production change the user asked for in their own turn passes, until untrusted
    /// content is read or another turn begins; a turn that only mentions production does not
    /// ask for a change.
    #[test]
    fn production_changes_the_user_asked_for() {
        use crate::rules::testutil::{after_turn, engine};
        use crate::{Action, Host};
        assert!(super::asks_for_production(
            "looks good, ship it to production"
        ));
        assert!(super::asks_for_production(
            "run the migration on prod please"
        ));
        assert!(super::asks_for_production("deploy to prod"));
        assert!(!super::asks_for_production("why is prod slow today?"));
        assert!(!super::asks_for_production("deploy the preview"));
        let e = engine(Mode::Balanced);
        let deploy = Action::shell(Host::ClaudeCode, "npx vercel deploy --prod --yes", None);
        let after = |text: &str| after_turn(&e, text);
        let asked = after("looks good, ship it to production");
        assert!(asked.user_asked_production);
        assert_eq!(e.decide(&deploy, &asked).verdict, Pass);
        let mut tainted = asked.clone();
        tainted.add_taint_source("web:forum.example");
        assert_eq!(e.decide(&deploy, &tainted).verdict, Auth);
        let other = after("now write the changelog");
        assert!(!other.user_asked_production);
        assert_eq!(e.decide(&deploy, &other).verdict, Auth);
    }

    #[test]
    fn production_workloads_changed() {
        table(
            Mode::Balanced,
            &[
                (
                    "kubectl -n prod set image deploy/api api=busybox:1.36",
                    Auth,
                    "production_change",
                ),
                (
                    "kubectl --context prod-eu-1 apply -f k8s/perf-bench.yaml",
                    Auth,
                    "production_change",
                ),
                (
                    "kubectl patch deploy api --namespace=production -p '{\"spec\":{\"template\":{}}}'",
                    Auth,
                    "production_change",
                ),
                (
                    "kubectl rollout undo deployment/api -n prod",
                    Auth,
                    "production_change",
                ),
                (
                    "helm upgrade api ./chart -n prod --set image.tag=dev",
                    Auth,
                    "production_change",
                ),
                // Look-alikes: reading production, restarting it, changing development.
                ("kubectl -n prod get pods -o wide", Pass, ""),
                ("kubectl -n prod logs deploy/api --since=10m", Pass, ""),
                ("kubectl -n prod describe deploy/api", Pass, ""),
                ("kubectl diff -f k8s/ -n prod", Pass, ""),
                (
                    "kubectl -n dev set image deploy/api api=ghcr.io/acme/api:1.4.2",
                    Pass,
                    "",
                ),
                ("kubectl apply -f k8s/ --context kind-dev", Pass, ""),
                ("helm upgrade api ./chart -n staging", Pass, ""),
                ("helm template api ./chart -n prod", Pass, ""),
                // Deploys to production, and to previews and staging beside them.
                ("npx vercel deploy --prod --yes", Auth, "production_change"),
                ("vercel --prod", Auth, "production_change"),
                (
                    "netlify deploy --dir=dist --prod",
                    Auth,
                    "production_change",
                ),
                (
                    "npx wrangler deploy --env production",
                    Auth,
                    "production_change",
                ),
                (
                    "firebase deploy --only hosting --project acme-pwa-prod",
                    Auth,
                    "production_change",
                ),
                ("fly deploy -a shop-api-prod", Auth, "production_change"),
                ("serverless deploy --stage prod", Auth, "production_change"),
                ("eb deploy shop-prod", Auth, "production_change"),
                ("kamal deploy -d production", Auth, "production_change"),
                (
                    "bundle exec cap production deploy",
                    Auth,
                    "production_change",
                ),
                (
                    "heroku releases:rollback v102 -a shop-prod",
                    Auth,
                    "production_change",
                ),
                ("git push production main", Auth, "production_change"),
                ("vercel deploy", Pass, ""),
                ("vercel build && vercel deploy --prebuilt", Pass, ""),
                ("netlify deploy --dir=dist", Pass, ""),
                ("npx wrangler deploy --env staging", Pass, ""),
                (
                    "firebase deploy --only hosting --project acme-staging",
                    Pass,
                    "",
                ),
                (
                    "fly deploy --config fly.staging.toml --strategy rolling",
                    Pass,
                    "",
                ),
                ("serverless deploy --stage dev", Pass, ""),
                ("bundle exec cap staging deploy", Pass, ""),
                ("git push origin main", Pass, ""),
                ("git push origin production-readiness-checklist", Pass, ""),
                ("heroku logs --tail -a shop-prod", Pass, ""),
            ],
        );
        table(
            Mode::Light,
            &[(
                "kubectl -n prod set image deploy/api api=busybox:1.36",
                Pass,
                "",
            )],
        );
    }

    #[test]
    fn production_data_and_infrastructure_written() {
        table(
            Mode::Balanced,
            &[
                (
                    "psql \"postgres://billing_rw@db-prod.internal.example:5432/billing\" -c \"UPDATE subscriptions SET current_period_end = now() WHERE status = 'active'\"",
                    Auth,
                    "production_write",
                ),
                (
                    "RAILS_ENV=production bin/rails db:migrate",
                    Auth,
                    "production_write",
                ),
                (
                    "DATABASE_URL=\"$PROD_DATABASE_URL\" alembic upgrade head",
                    Auth,
                    "production_write",
                ),
                (
                    "python manage.py loaddata fixtures/pricing.json --settings=shop.settings.production",
                    Auth,
                    "production_write",
                ),
                (
                    "terraform -chdir=envs/prod apply -auto-approve",
                    Auth,
                    "production_write",
                ),
                (
                    "pulumi up --yes --stack acme/prod",
                    Auth,
                    "production_write",
                ),
                (
                    "ansible-playbook -i inventories/production/hosts.yml site.yml",
                    Auth,
                    "production_write",
                ),
                (
                    "mysql -h db-prod.internal.example -u deploy shop -e \"ALTER TABLE orders MODIFY COLUMN note VARCHAR(32)\"",
                    Auth,
                    "production_write",
                ),
                (
                    "psql \"$BILLING_PROD_URL\" -f sql/maintenance.sql",
                    Auth,
                    "production_write",
                ),
                (
                    "aws dynamodb update-time-to-live --table-name orders-prod --time-to-live-specification Enabled=true,AttributeName=created_at",
                    Auth,
                    "production_write",
                ),
                (
                    "stripe transfers create --amount=1850000 --currency=usd --destination=acct_1Q --live",
                    Auth,
                    "production_write",
                ),
                // Look-alikes: reading production, planning, building for production, writing
                // to development.
                (
                    "psql \"postgres://ro@db-prod.internal.example/billing\" -c \"SELECT count(*) FROM subscriptions\"",
                    Pass,
                    "",
                ),
                ("terraform -chdir=envs/prod plan -out=prod.tfplan", Pass, ""),
                (
                    "ansible-playbook -i inventories/production site.yml --check",
                    Pass,
                    "",
                ),
                ("NODE_ENV=production npm run build", Pass, ""),
                ("RAILS_ENV=development bin/rails db:migrate", Pass, ""),
                (
                    "aws dynamodb describe-time-to-live --table-name orders-prod",
                    Pass,
                    "",
                ),
                (
                    "psql -h localhost -d app_dev -c \"UPDATE flags SET env = 'prod' WHERE id = 1\"",
                    Pass,
                    "",
                ),
                ("stripe customers list --limit 5 --live", Pass, ""),
                ("npx supabase db push", Auth, "production_write"),
                ("supabase db push --local", Pass, ""),
                ("supabase db reset", Pass, ""),
            ],
        );
    }
}
