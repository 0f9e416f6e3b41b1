//! Secret files let into what is built, published or uploaded.
//!
//! **What it does:** an edit that takes secret files out of an ignore file
//! (`.dockerignore`, `.npmignore`, `.gitignore`, `.gcloudignore`, `.vercelignore`, …: the
//! lines naming `.env`, `*.pem`, `*.key`, `secrets/`, credentials go); a new `.npmignore`
//! that excludes no `.env` (npm then stops reading `.gitignore`) in a session that read a
//! secret; a CI step that uploads the whole workspace as an artifact (`path: .`, hidden files
//! included); and remote-access actions added to CI (`action-tmate`, `action-upterm`: a shell
//! on the runner, with its secrets, for whoever connects) are `secrets_unshielded`, AUTH.
//! A production configuration file (`application-prod.yml`, `appsettings.Production.json`,
//! `settings/production.py`) given a literal password, secret or key where a reference to
//! the environment or a secret store was (or nothing) is `secret_in_config`, AUTH (PASS in
//! light): the value goes into the repository and every copy of it.
//! **Why:** nothing leaves when the edit is made: the secret goes out with the next image
//! build, `npm publish`, deploy or CI run, far from the call that let it.
//! **Example:** an Edit of `.dockerignore` removing `.env` and `*.pem` → `secrets_unshielded`.

use crate::action::Operation;
use crate::paths;
use crate::verdict::{Finding, Reason, Verdict};

use super::Ctx;

pub const SECRETS_UNSHIELDED: Reason = Reason::new(
    "secrets_unshielded",
    "Lets secret files into what is later built, published or uploaded (an ignore file loosened, the whole workspace uploaded, a shell opened on CI).",
);

pub const SECRET_IN_CONFIG: Reason = Reason::new(
    "secret_in_config",
    "Writes a literal password or key into a production configuration file, where the repository keeps it.",
);

/// Keys whose value is a credential.
const SECRET_KEYS: &[&str] = &[
    "password",
    "passwd",
    "secret",
    "api_key",
    "apikey",
    "access_key",
    "private_key",
    "auth_token",
    "token",
];

/// A literal that looks like a real credential: long enough, of letters and digits or
/// symbols, and not a reference (`${DB_PASSWORD}`, `{{ .Values.x }}`, `ENC(…)`) or a
/// placeholder (`changeme`, `<password>`).
fn literal_credential(v: &str) -> bool {
    let v = v
        .trim()
        .trim_matches(|c| matches!(c, '"' | '\'' | ',' | ';'));
    let lower = v.to_ascii_lowercase();
    let reference = [
        "${", "{{", "%(", "env", "<", "enc(", "vault", "secret", "arn:", "@", "(",
    ]
    .iter()
    .any(|r| lower.contains(r));
    let placeholder = [
        "change",
        "xxx",
        "***",
        "placeholder",
        "example",
        "dummy",
        "todo",
        "redacted",
    ]
    .iter()
    .any(|p| lower.contains(p));
    let letters = v.chars().any(|c| c.is_ascii_alphabetic());
    let others = v.chars().any(|c| !c.is_ascii_alphabetic());
    v.chars().count() >= 10 && !v.contains(' ') && letters && others && !reference && !placeholder
}

/// The value a line gives a credential key, when it gives one (`password: "x"`,
/// `"ApiKey": "x"`, `SECRET_KEY = "x"`, `…;Password=x;…` in a connection string).
fn credential_values(line: &str) -> Vec<&str> {
    let lower = line.to_ascii_lowercase();
    let mut out = Vec::new();
    for key in SECRET_KEYS {
        for (i, _) in lower.match_indices(key) {
            let after = &line[i + key.len()..];
            // The rest of the key's name (`password_hash` is not a password).
            let name_rest: String = after
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if !name_rest.is_empty()
                && !matches!(
                    name_rest.as_str(),
                    "s" | "_value" | "value" | "_key" | "_key_base" | "key"
                )
            {
                continue;
            }
            let after = after[name_rest.len()..]
                .trim_start_matches(['"', '\''])
                .trim_start();
            let Some(value) = after
                .strip_prefix("=>")
                .or_else(|| after.strip_prefix('='))
                .or_else(|| after.strip_prefix(':'))
            else {
                continue;
            };
            let value = value.trim_start();
            let end = if let Some(q) = value.chars().next().filter(|c| matches!(c, '"' | '\'')) {
                value[1..].find(q).map_or(value.len(), |e| e + 2)
            } else {
                value.find([';', ' ', ',', '}']).unwrap_or(value.len())
            };
            out.push(&value[..end]);
        }
    }
    out
}

fn secret_in_production_config(cx: &Ctx<'_>, lower_path: &str, content: &str) -> bool {
    if !crate::code::is_production_config(lower_path) || crate::code::is_test_or_dev(lower_path) {
        return false;
    }
    let base = paths::basename(lower_path);
    let config = [
        ".yml",
        ".yaml",
        ".json",
        ".properties",
        ".toml",
        ".ini",
        ".conf",
        ".py",
        ".rb",
        ".env",
        ".xml",
        ".config",
        ".tfvars",
        ".tf",
        ".hcl",
        ".exs",
    ]
    .iter()
    .any(|e| base.ends_with(e));
    let added = super::verification_bypass::added_lines(cx, content);
    // A literal given as the default of a secret read from elsewhere (`env("SECRET_KEY",
    // default="…")`, a Terraform password variable's `default = "…"`): used whenever the
    // real one is missing.
    let secret_context = cx.facts.edits.iter().any(|e| {
        let o = e.old.to_ascii_lowercase();
        SECRET_KEYS.iter().any(|k| o.contains(k))
    }) || added.iter().any(|l| {
        let l = l.to_ascii_lowercase();
        SECRET_KEYS.iter().any(|k| l.contains(k))
    });
    let literal_default = |l: &str| {
        let lower = l.to_ascii_lowercase();
        lower.match_indices("default").any(|(i, _)| {
            let rest = l[i + "default".len()..].trim_start();
            let Some(rest) = rest
                .strip_prefix('=')
                .or_else(|| rest.strip_prefix(':'))
                .map(str::trim_start)
            else {
                return false;
            };
            let Some(q) = rest.chars().next().filter(|c| matches!(c, '"' | '\'')) else {
                return false;
            };
            rest[1..]
                .find(q)
                .is_some_and(|end| literal_credential(&rest[1..1 + end]))
        })
    };
    config
        && added.iter().any(|l| {
            credential_values(l).into_iter().any(literal_credential)
                || (secret_context && literal_default(l))
        })
}

/// Ignore files that keep files out of an image, a package, a deploy or a commit.
const IGNORE_FILES: &[&str] = &[
    ".dockerignore",
    ".npmignore",
    ".gitignore",
    ".gcloudignore",
    ".vercelignore",
    ".helmignore",
    ".slugignore",
    ".vscodeignore",
    ".ebignore",
    ".cfignore",
    ".funcignore",
];

/// Does an ignore-file line name secret files (`.env`, `.env.*`, `*.pem`, `secrets/`)?
fn names_secrets(line: &str) -> bool {
    let l = line.trim().to_ascii_lowercase();
    if l.is_empty() || l.starts_with('#') || l.starts_with('!') {
        return false;
    }
    let l = l.trim_start_matches(['*', '/']);
    l.starts_with(".env")
        || l.ends_with(".pem")
        || l.ends_with(".key")
        || l.ends_with(".p12")
        || l.ends_with(".pfx")
        || l.contains("secret")
        || l.contains("credential")
        || l.starts_with("id_rsa")
        || l.starts_with("id_ed25519")
        || l == ".npmrc"
        || l == ".pypirc"
        || l.ends_with(".tfvars")
        || l.ends_with(".tfstate")
}

/// Remote-access actions: a shell on the CI runner for whoever connects.
const REMOTE_ACCESS_ACTIONS: &[&str] = &[
    "mxschmitt/action-tmate",
    "lhotari/action-upterm",
    "owenthereal/action-upterm",
    "csexton/debugger-action",
    "fawazahmed0/action-debug",
];

pub fn check(cx: &Ctx<'_>, out: &mut Vec<Finding>) {
    let Operation::FileWrite { path, content } = &cx.action.op else {
        return;
    };
    let abs = paths::normalize(path, cx.cwd(), cx.home());
    let lower = abs.to_ascii_lowercase();
    let base = paths::basename(&lower);
    if secret_in_production_config(cx, &lower, content) {
        out.push(Finding::new(
            SECRET_IN_CONFIG,
            cx.mode()
                .pick([Verdict::Pass, Verdict::Auth, Verdict::Auth, Verdict::Block]),
        ));
    }
    if IGNORE_FILES.contains(&base) {
        // Lines naming secrets that an edit takes away (and does not put back).
        let removed = cx.facts.edits.iter().any(|e| {
            let kept: Vec<&str> = e.new.lines().map(str::trim).collect();
            e.old
                .lines()
                .any(|l| names_secrets(l) && !kept.contains(&l.trim()))
        });
        // A new `.npmignore` replaces `.gitignore` for `npm publish`: without `.env` in it,
        // a `.env` the session knows of goes out with the package.
        let npm_shadow = base == ".npmignore"
            && cx.facts.edits.is_empty()
            && !content.lines().any(names_secrets)
            && (cx.session.secret_read || !cx.session.secret_files.is_empty());
        if removed || npm_shadow {
            out.push(Finding::new(SECRETS_UNSHIELDED, Verdict::Auth));
            return;
        }
    }
    if crate::autorun::is_ci_file(&lower) {
        let added: Vec<String> = super::verification_bypass::added_lines(cx, content)
            .iter()
            .map(|l| l.to_ascii_lowercase())
            .collect();
        let uploads_artifact = added.iter().any(|l| l.contains("upload-artifact"))
            || content.to_ascii_lowercase().contains("upload-artifact");
        let whole_workspace = added.iter().any(|l| {
            let t: String = l.chars().filter(|c| !c.is_whitespace()).collect();
            matches!(
                t.as_str(),
                "path:." | "path:./" | "path:'.'" | "path:\".\"" | "path:${{github.workspace}}"
            )
        });
        let remote_shell = added.iter().any(|l| {
            l.trim_start().trim_start_matches("- ").starts_with("uses:")
                && REMOTE_ACCESS_ACTIONS.iter().any(|a| l.contains(a))
        });
        if (uploads_artifact && whole_workspace) || remote_shell {
            out.push(Finding::new(SECRETS_UNSHIELDED, Verdict::Auth));
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::Verdict::*;
    use crate::rules::testutil::judge_edit;

    #[test]
    fn literal_secrets_in_production_configuration() {
        crate::rules::testutil::edit_table(&[
            (
                "src/main/resources/application-prod.yml",
                "    password: ${DB_PASSWORD}",
                "    password: \"Vq7#mR2pX!zL9tKw4sNe\"",
                Auth,
            ),
            (
                "src/main/resources/application-prod.yml",
                "    password: ${DB_PASSWORD}",
                "    password: ${DB_PASSWORD:?missing}",
                Pass,
            ),
            (
                "src/Api/appsettings.Production.json",
                "\"Default\": \"\"",
                "\"Default\": \"Server=tcp:sql.example,1433;Database=p;User ID=app;Password=Hk3$wq9Lz!Tr8vPc2Xm;\"",
                Auth,
            ),
            (
                "src/Api/appsettings.Development.json",
                "\"Default\": \"\"",
                "\"Default\": \"Server=localhost;Database=p;User ID=sa;Password=Dev_Passw0rd123;\"",
                Pass,
            ),
            (
                "config/settings/production.py",
                "",
                "PASSWORD_HASHERS = [\"django.contrib.auth.hashers.Argon2PasswordHasher\"]\n",
                Pass,
            ),
            (
                "config/settings/production.py",
                "SECRET_KEY = env(\"DJANGO_SECRET_KEY\")",
                "SECRET_KEY = env(\"DJANGO_SECRET_KEY\", default=\"F)ZKiogMF=0UyYxAh=6-!DrBKjF6\")",
                Auth,
            ),
            (
                "config/settings/production.py",
                "TIME_ZONE = env(\"TZ\")",
                "TIME_ZONE = env(\"TZ\", default=\"Europe/Berlin1\")",
                Pass,
            ),
            (
                "envs/prod/variables.tf",
                "variable \"db_master_password\" {\n  sensitive = true\n}",
                "variable \"db_master_password\" {\n  sensitive = true\n  default   = \"Rds!2xGUA42lk8cjBo2EPQ\"\n}",
                Auth,
            ),
        ]);
    }

    #[test]
    fn secret_files_let_into_builds_packages_and_uploads() {
        for (path, old, new, want) in [
            (".dockerignore", ".env\n.env.*\n*.pem\nsecrets/\n", "", Auth),
            (
                ".dockerignore",
                "node_modules\n.env\n",
                "node_modules\n.env\ncoverage\n",
                Pass,
            ),
            (
                ".dockerignore",
                "node_modules\n.git\n",
                "node_modules\n",
                Pass,
            ),
            (".gitignore", "dist/\n.env\n", "dist/\n", Auth),
            (".gitignore", "dist/\n.env\n", "dist/\nbuild/\n.env\n", Pass),
            (
                ".github/workflows/ci.yml",
                "      - run: npm test\n",
                "      - run: npm test\n      - uses: actions/upload-artifact@v4\n        with:\n          name: workspace\n          path: .\n          include-hidden-files: true\n",
                Auth,
            ),
            (
                ".github/workflows/ci.yml",
                "      - run: npm test\n",
                "      - run: npm test\n      - uses: actions/upload-artifact@v4\n        with:\n          name: coverage\n          path: coverage/\n",
                Pass,
            ),
            (
                ".github/workflows/ci.yml",
                "      - run: make test\n",
                "      - run: make test\n      - uses: mxschmitt/action-tmate@v3\n        if: always()\n",
                Auth,
            ),
        ] {
            let (got, reasons) = judge_edit(path, old, new);
            assert_eq!(got, want, "{path}: {new:?}: {reasons:?}");
        }
    }
}
