//! A development or test configuration pointed at production.
//!
//! **What it does:** an edit to a configuration that is not production's own (`.env.test`,
//! `config/database.yml`, `settings/local.py`, `pytest.ini`, a Compose file) that replaces a
//! local target (`localhost`, `…_development`, a test database) with a connection named for
//! production (`pg-prod.acme.example`, `$PROD_DATABASE_URL`, a volume `acme_prod_pgdata`)
//! is `config_points_at_production`: AUTH (BLOCK from strict up, and from balanced up once
//! the session took in untrusted content). The session remembers the file (see
//! `planted_run`), so the next routine command there — `rails db:reset`, `pytest`,
//! `npm run test:integration`, `docker compose down -v` — is asked about too. A file named
//! for production (`.env.production`, `envs/prod/`) and a target that stays local are not.
//! **Why:** those commands are meant to wipe and reseed a throwaway database; one line in
//! their configuration makes them wipe production, and nothing on their command line says so.
//! **Example:** `TEST_DATABASE_URL=postgresql://localhost/inventory_test` →
//! `…@pg-prod.acme.example:5432/inventory` in `pytest.ini`, then `pytest`.

use super::Ctx;
use crate::verdict::{Finding, Reason};

pub const POINTS_AT_PRODUCTION: Reason = Reason::new(
    "config_points_at_production",
    "Points a development or test configuration at production, where its resets and test runs would change real data.",
);

fn names(t: &str, set: &[&str]) -> bool {
    super::production_change::words_of(t).any(|w| set.contains(&w.as_str()))
}

const PRODUCTION: &[&str] = &["prod", "production", "prd", "live"];
const LOCAL: &[&str] = &[
    "localhost",
    "127",
    "development",
    "dev",
    "test",
    "testing",
    "local",
    "sqlite3",
    "sqlite",
];

/// Keys that choose a mode rather than a target (`NODE_ENV=production` builds for it).
const MODE_KEYS: &[&str] = &[
    "node_env",
    "rails_env",
    "rack_env",
    "app_env",
    "mix_env",
    "environment",
    "env",
    "flask_env",
    "aspnetcore_environment",
    "spring_profiles_active",
];

/// A line that names where a connection goes: an address, a host/URL/database key, an
/// environment variable read for one, or a volume's name.
fn connection_line(line: &str) -> bool {
    let t = line.trim().trim_start_matches("- ");
    if t.starts_with('#') || t.starts_with("//") {
        return false;
    }
    let (key, value) = match t.find([':', '=']) {
        Some(i) => (t.get(..i).unwrap_or(""), t.get(i + 1..).unwrap_or("")),
        None => ("", t),
    };
    let key = key.trim().trim_matches(['"', '\'']).to_ascii_lowercase();
    if MODE_KEYS.contains(&key.as_str()) {
        return false;
    }
    let keyed = [
        "host", "url", "uri", "dsn", "database", "db", "redis", "mongo", "server", "endpoint",
        "addr", "broker", "name", "context", "cluster", "conn",
    ]
    .iter()
    .any(|k| key.contains(k));
    let env_read = ["environ", "env[", "getenv", "${", "env("]
        .iter()
        .any(|k| t.to_ascii_lowercase().contains(k));
    value.contains("://") || keyed || env_read
}

pub(crate) fn names_production_target(text: &str) -> bool {
    text.lines()
        .any(|l| connection_line(l) && names(l, PRODUCTION))
}

/// Host names and IPv4 addresses in a text (`db-1.eu-west-1.rds.amazonaws.com`,
/// `10.42.8.15`), lower-cased: words of letters, digits, dots and dashes with at least two
/// dots and a final label of letters, or four numbers.
pub(crate) fn hosts_in(text: &str) -> Vec<String> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '.' || c == '-'))
        .map(|w| w.trim_matches(['.', '-']).to_ascii_lowercase())
        .filter(|w| {
            let labels: Vec<&str> = w.split('.').collect();
            let ipv4 = labels.len() == 4 && labels.iter().all(|l| l.parse::<u8>().is_ok());
            let name = labels.len() >= 3
                && labels.iter().all(|l| !l.is_empty())
                && labels.last().is_some_and(|t| {
                    (2..=12).contains(&t.len()) && t.chars().all(|c| c.is_ascii_lowercase())
                })
                && !labels.last().is_some_and(|t| {
                    matches!(
                        *t,
                        "yaml"
                            | "yml"
                            | "json"
                            | "py"
                            | "rb"
                            | "js"
                            | "ts"
                            | "toml"
                            | "conf"
                            | "txt"
                            | "sh"
                            | "md"
                    )
                });
            (ipv4 && !w.starts_with("127.") && w != "0.0.0.0") || name
        })
        .collect()
}

/// A connection line naming a host the session read in production's own configuration.
fn names_remembered_host(text: &str, hosts: &std::collections::BTreeSet<String>) -> bool {
    !hosts.is_empty()
        && text
            .lines()
            .filter(|l| connection_line(l))
            .any(|l| hosts_in(l).iter().any(|h| hosts.contains(h)))
}

/// Hosts and addresses in what a call showed, when the call read production's own
/// configuration: a file whose path names production, or a command line that does. Local
/// and private-looking names are kept too (a production database is often on `10.x`).
pub fn production_hosts_seen(
    action: &crate::action::Action,
    result: &str,
    home: Option<&str>,
) -> Vec<String> {
    use crate::action::Operation;
    let (names_prod, inventory) = match &action.op {
        Operation::FileRead { path } => (
            production_file(&crate::paths::normalize(path, action.cwd.as_deref(), home)),
            false,
        ),
        Operation::Shell { command } => (names(command, PRODUCTION), deployed_inventory(command)),
        _ => (false, false),
    };
    if !(names_prod || inventory) || result.is_empty() {
        return Vec::new();
    }
    let text: String = result.chars().take(64 * 1024).collect();
    let mut out = hosts_in(&text);
    // What an inventory lists is deployed; a host named for development or tests is not
    // production's.
    if inventory && !names_prod {
        out.retain(|h| !names(h, LOCAL) && !names(h, DEV_MARKERS));
    }
    out.dedup();
    out.truncate(crate::session::MAX_PRODUCTION_HOSTS);
    out
}

/// Words that mark a target as a throwaway one (`acme-dev`, `orders-it`, `qa-db`).
const DEV_MARKERS: &[&str] = &[
    "dev",
    "development",
    "test",
    "testing",
    "it",
    "qa",
    "staging",
    "stage",
    "stg",
    "sandbox",
    "local",
    "ci",
    "e2e",
    "tmp",
    "scratch",
];

/// A command that lists what is deployed: infrastructure outputs and cloud inventories
/// (`terraform output`, `pulumi stack output`, `aws rds describe-db-instances`, `az sql db
/// list`, `doctl databases connection`, `gcloud sql instances describe`). The addresses it
/// shows are real services, whatever they are named.
fn deployed_inventory(command: &str) -> bool {
    let words: Vec<&str> = command.split_whitespace().collect();
    let has = |w: &str| words.contains(&w);
    let iac = ["terraform", "tofu", "terragrunt", "pulumi"]
        .iter()
        .any(|t| has(t))
        && (has("output") || has("show"));
    let cloud = [
        "aws",
        "az",
        "gcloud",
        "doctl",
        "heroku",
        "flyctl",
        "scw",
        "linode-cli",
    ]
    .iter()
    .any(|t| has(t))
        && words.iter().any(|w| {
            w.starts_with("describe")
                || w.starts_with("config:")
                || matches!(
                    *w,
                    "list" | "show" | "connection" | "get" | "info" | "config"
                )
        });
    iac || cloud
}

/// Keys that choose which account, table or store a run touches.
const TARGET_KEYS: &[&str] = &[
    "profile",
    "table",
    "bucket",
    "project",
    "account",
    "namespace",
    "queue",
    "topic",
    "index",
    "database",
    "db",
    "host",
    "url",
    "context",
    "cluster",
    "schema",
    "keyspace",
    "group",
];

/// `KEY=VALUE` / `key: value` pairs of a text, keys lower-cased.
fn pairs(text: &str) -> Vec<(String, String)> {
    text.lines()
        .filter_map(|l| {
            let t = l.trim().trim_start_matches("export ");
            if t.starts_with('#') {
                return None;
            }
            let i = t.find(['=', ':'])?;
            let k = t
                .get(..i)?
                .trim()
                .trim_matches(['"', '\''])
                .to_ascii_lowercase();
            let v = t.get(i + 1..)?.trim().trim_matches(['"', '\'']).to_owned();
            (!k.is_empty() && !k.contains(' ') && !v.is_empty()).then_some((k, v))
        })
        .collect()
}

/// An edit that takes a target key off its throwaway target: the old value is marked for
/// development or tests (`acme-dev`, `orders-it`), the new one for nothing
/// (`acme-main`, `orders`).
fn marker_dropped(old: &str, new: &str) -> bool {
    let before = pairs(old);
    pairs(new).iter().any(|(k, v)| {
        TARGET_KEYS.iter().any(|t| k.contains(t))
            && !MODE_KEYS.contains(&k.as_str())
            && !names(v, DEV_MARKERS)
            && !names(v, LOCAL)
            && before
                .iter()
                .any(|(ok, ov)| ok == k && ov != v && names(ov, DEV_MARKERS))
    })
}

/// Production's own configuration (`.env.production`, `config/prod/`, `*.prod.yml`).
fn production_file(path: &str) -> bool {
    names(path, PRODUCTION)
}

/// A configuration for development, tests or this machine by its name.
fn dev_file(path: &str) -> bool {
    let base = crate::paths::basename(path);
    base.starts_with(".env.")
        || names(
            base,
            &["dev", "development", "local", "test", "testing", "override"],
        )
        || base.starts_with("docker-compose")
        || base.starts_with("compose.")
        || matches!(
            base,
            "pytest.ini" | "phpunit.xml" | "phpunit.xml.dist" | "tox.ini"
        )
}

pub fn check(cx: &Ctx<'_>, out: &mut Vec<Finding>) {
    let Some(w) = cx.source_write() else {
        return;
    };
    if production_file(&w.path) {
        return;
    }
    let hosts = &cx.session.production_hosts;
    let pointed = w.hunks.iter().any(|h| {
        let to_production = (names_production_target(&h.new_lower)
            && !names(&h.old_lower, PRODUCTION))
            || (names_remembered_host(&h.new_lower, hosts)
                && !names_remembered_host(&h.old_lower, hosts));
        if !to_production {
            // A development or test file's target moved off its throwaway one.
            return marker_dropped(&h.old_lower, &h.new_lower)
                && (dev_file(&w.path)
                    || h.old_lower
                        .lines()
                        .any(|l| connection_line(l) && names(l, LOCAL)));
        }
        if h.old_lower.trim().is_empty() {
            // A new file: only one named for development or tests.
            return dev_file(&w.path) && !w.path.ends_with("/.env.example");
        }
        dev_file(&w.path)
            || h.old_lower
                .lines()
                .any(|l| connection_line(l) && names(l, LOCAL))
    });
    if pointed {
        out.push(Finding::new(POINTS_AT_PRODUCTION, cx.ask_or_block()));
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::testutil::judge_edit;
    use crate::verdict::Verdict::{self, Auth, Pass};

    #[test]
    fn development_configuration_pointed_at_production() {
        let cases: &[(&str, &str, &str, Verdict)] = &[
            (
                "config/database.yml",
                "  host: localhost\n  database: shop_development\n",
                "  host: pg-primary.prod.acme.example\n  database: shop_production\n",
                Auth,
            ),
            (
                ".env.test",
                "REDIS_URL=redis://localhost:6379/15\n",
                "REDIS_URL=redis://:pw@cache-prod.acme.example:6379/0\n",
                Auth,
            ),
            (
                "pytest.ini",
                "    TEST_DATABASE_URL=postgresql://localhost:5432/inventory_test\n",
                "    TEST_DATABASE_URL=postgresql://inventory:pw@pg-prod.acme.example:5432/inventory\n",
                Auth,
            ),
            (
                "portal/settings/local.py",
                "        \"NAME\": \"portal_dev\",\n        \"HOST\": \"localhost\",\n",
                "DATABASES = {\"default\": dj_database_url.parse(os.environ[\"PROD_DATABASE_URL\"])}\n",
                Auth,
            ),
            (
                "docker-compose.yml",
                "volumes:\n  pgdata: {}\n",
                "volumes:\n  pgdata:\n    name: acme_prod_pgdata\n",
                Auth,
            ),
            // A test configuration's account and tables moved off their test ones.
            (
                ".env.test",
                "AWS_PROFILE=acme-dev\nORDERS_TABLE=orders-it\n",
                "AWS_PROFILE=acme-main\nORDERS_TABLE=orders\n",
                Auth,
            ),
            (
                ".env.test",
                "AWS_PROFILE=acme-dev\nORDERS_TABLE=orders-it\n",
                "AWS_PROFILE=acme-dev\nORDERS_TABLE=orders-it-v2\n",
                Pass,
            ),
            (
                ".env.test",
                "AWS_PROFILE=acme-dev\n",
                "AWS_PROFILE=acme-sandbox\n",
                Pass,
            ),
            // A local `.env` whose consumer group leaves its development one.
            (
                ".env",
                "KAFKA_BROKERS=localhost:9092\nKAFKA_GROUP_ID=notifications-dev\n",
                "KAFKA_BROKERS=b-1.msk.example.net:9098\nKAFKA_GROUP_ID=notifications\n",
                Auth,
            ),
            // Look-alikes: still local, production's own file, a mode switch, a comment.
            (
                ".env.test",
                "REDIS_URL=redis://localhost:6379/15\n",
                "REDIS_URL=redis://127.0.0.1:6380/15\n",
                Pass,
            ),
            (
                ".env.production",
                "DATABASE_URL=postgresql://db-1.internal/app\n",
                "DATABASE_URL=postgresql://db-prod-2.internal/app\n",
                Pass,
            ),
            (
                ".env.local",
                "NODE_ENV=development\n",
                "NODE_ENV=production\n",
                Pass,
            ),
            (
                "config/database.yml",
                "  host: localhost\n",
                "  # production uses DATABASE_URL from the environment\n  host: localhost\n",
                Pass,
            ),
        ];
        for (path, old, new, want) in cases {
            let (verdict, codes) = judge_edit(path, old, new);
            let got = if codes.iter().any(|c| c == "config_points_at_production") {
                verdict
            } else {
                Pass
            };
            assert_eq!(got, *want, "{path}: {old:?} -> {new:?}: {codes:?}");
        }
    }
}
