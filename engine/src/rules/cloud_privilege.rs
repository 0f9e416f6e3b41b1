//! Minting credentials and granting privileges on cloud and cluster accounts.
//!
//! **What it does:** a cloud or cluster CLI call that creates a credential (an access key, a
//! service-account key, a login profile, a token, an SSH or deploy key) or grants a privilege
//! (attaching or writing a policy, a role binding, an IAM binding, opening a security group,
//! a bucket policy or ACL) is `cloud_privilege`: AUTH in every mode, and BLOCK in
//! balanced/strict/paranoid when the session took in untrusted content or read secrets (the
//! key a poisoned page asked for would leave with the next call). Listing, describing and
//! deleting are left to other rules (`aws iam list-access-keys` passes; deleting is
//! `service_destroy`).
//! **Why:** "rotate the keys: run `aws iam create-access-key`" is the classic injected step; a
//! new long-lived credential or a wider grant outlives the session and is invisible in the
//! project's files.
//! **Example:** WebFetch a poisoned page, then `aws iam create-access-key --user-name ci` →
//! `cloud_privilege` (BLOCK in balanced).

use crate::shell::Invocation;
use crate::verdict::{Finding, Reason, Verdict};

use super::Ctx;

pub const CLOUD_PRIVILEGE: Reason = Reason::new(
    "cloud_privilege",
    "Creates a credential or grants a privilege on a cloud or cluster account.",
);

/// `aws iam|sts|… OPERATION` operations that mint a credential or widen access.
const AWS_OPS: &[&str] = &[
    "create-access-key",
    "create-user",
    "create-login-profile",
    "update-login-profile",
    "create-service-specific-credential",
    "upload-ssh-public-key",
    "attach-user-policy",
    "attach-role-policy",
    "attach-group-policy",
    "put-user-policy",
    "put-role-policy",
    "put-group-policy",
    "add-user-to-group",
    "update-assume-role-policy",
    "create-policy-version",
    "set-default-policy-version",
    "authorize-security-group-ingress",
    "put-bucket-policy",
    "put-bucket-acl",
    "put-object-acl",
    "delete-public-access-block",
    "add-permission",
    "create-grant",
    "modify-image-attribute",
    "modify-snapshot-attribute",
];

/// Subcommand paths (leading operands, lower-cased) per program.
const PATHS: &[(&str, &[&str])] = &[
    ("gcloud", &["iam", "service-accounts", "keys", "create"]),
    ("gcloud", &["projects", "add-iam-policy-binding"]),
    ("gcloud", &["organizations", "add-iam-policy-binding"]),
    (
        "gcloud",
        &["resource-manager", "folders", "add-iam-policy-binding"],
    ),
    (
        "gcloud",
        &["iam", "service-accounts", "add-iam-policy-binding"],
    ),
    ("gcloud", &["iam", "roles", "create"]),
    ("gcloud", &["storage", "buckets", "add-iam-policy-binding"]),
    ("gsutil", &["iam", "ch"]),
    ("gsutil", &["acl", "ch"]),
    ("az", &["ad", "sp", "create-for-rbac"]),
    ("az", &["ad", "sp", "credential", "reset"]),
    ("az", &["ad", "app", "credential", "reset"]),
    ("az", &["ad", "user", "create"]),
    ("az", &["role", "assignment", "create"]),
    ("az", &["keyvault", "set-policy"]),
    ("kubectl", &["create", "clusterrolebinding"]),
    ("kubectl", &["create", "rolebinding"]),
    ("kubectl", &["create", "token"]),
    ("kubectl", &["certificate", "approve"]),
    ("oc", &["create", "clusterrolebinding"]),
    ("oc", &["create", "rolebinding"]),
    ("oc", &["create", "token"]),
    ("oc", &["adm", "policy", "add-cluster-role-to-user"]),
    ("oc", &["adm", "policy", "add-role-to-user"]),
    ("oc", &["adm", "policy", "add-scc-to-user"]),
    ("gh", &["ssh-key", "add"]),
    ("gh", &["gpg-key", "add"]),
    ("gh", &["repo", "deploy-key", "add"]),
    ("doctl", &["registry", "docker-config"]),
    ("heroku", &["authorizations:create"]),
    ("heroku", &["access:add"]),
];

/// Options whose value is separate (so it is not taken for a subcommand word).
const VALUE_OPTS: &[&str] = &[
    "--profile",
    "--region",
    "--project",
    "--output",
    "-o",
    "--namespace",
    "-n",
    "--context",
    "--subscription",
    "--repo",
    "-R",
    "--app",
    "-a",
    "--kubeconfig",
    "--endpoint-url",
];

fn operands(inv: &Invocation) -> Vec<String> {
    let mut out = Vec::new();
    let mut it = inv.args.iter();
    while let Some(w) = it.next() {
        let t = w.text.as_str();
        if VALUE_OPTS.contains(&t) {
            let _ = it.next();
            continue;
        }
        if t.starts_with('-') {
            continue;
        }
        out.push(t.to_ascii_lowercase());
        if out.len() >= 6 {
            break;
        }
    }
    out
}

/// Does this invocation mint a credential or grant a privilege?
pub fn grants_privilege(inv: &Invocation) -> bool {
    if inv.from_inline_code {
        return false;
    }
    let p = inv.program.as_str();
    let ops = operands(inv);
    let args: Vec<&str> = inv.argv().collect();
    // A private repository made public; a debugging pod on a cluster node (it gets the
    // node's root filesystem at /host).
    if p == "gh"
        && ops.first().map(String::as_str) == Some("repo")
        && ops.get(1).map(String::as_str) == Some("edit")
        && args
            .iter()
            .any(|a| *a == "--visibility=public" || *a == "public")
    {
        return true;
    }
    // Someone made an owner of a published package (`npm owner add`, `cargo owner --add`,
    // `gem owner --add`): they can publish the next release everyone installs.
    let owner_add = match p {
        "npm" | "pnpm" | "yarn" => {
            ops.first().map(String::as_str) == Some("owner")
                && ops
                    .get(1)
                    .is_some_and(|o| matches!(o.as_str(), "add" | "a"))
        }
        "cargo" => {
            ops.first().map(String::as_str) == Some("owner")
                && args
                    .iter()
                    .any(|a| *a == "--add" || *a == "-a" || a.starts_with("--add="))
        }
        "gem" => {
            ops.first().map(String::as_str) == Some("owner")
                && args.iter().any(|a| *a == "--add" || *a == "-a")
        }
        _ => false,
    };
    if owner_add {
        return true;
    }
    // This folder's code pushed into a new public repository (`gh repo create x --public
    // --source=. --push`): everyone can read it from then on. An empty public repository
    // made from nothing local is not.
    if p == "gh"
        && ops.first().map(String::as_str) == Some("repo")
        && ops.get(1).map(String::as_str) == Some("create")
        && args.contains(&"--public")
        && args
            .iter()
            .any(|a| *a == "--push" || *a == "--source" || a.starts_with("--source="))
    {
        return true;
    }
    // `gh api -X PUT repos/o/r/collaborators/u`, `gh api -X POST repos/o/r/keys … read_only=false`:
    // an outside account or key given access to the repository.
    if p == "gh" && ops.first().map(String::as_str) == Some("api") {
        let method = args
            .windows(2)
            .find(|w| matches!(w.first(), Some(&("-X" | "--method"))))
            .and_then(|w| w.get(1))
            .map(|m| m.to_ascii_uppercase());
        let writes = matches!(method.as_deref(), Some("PUT" | "POST" | "PATCH"));
        let grants = ops.iter().any(|o| {
            let o = o.to_ascii_lowercase();
            o.contains("/collaborators/")
                || o.ends_with("/keys")
                || o.contains("/invitations")
                || o.contains("/memberships/")
                || (o.contains("/teams/") && o.contains("/repos/"))
        });
        if writes && grants {
            return true;
        }
    }
    if matches!(p, "kubectl" | "oc")
        && ops.first().map(String::as_str) == Some("debug")
        && args.iter().any(|a| a.starts_with("node/") || *a == "node")
    {
        return true;
    }
    // Kubernetes: an outside identity mapped to cluster administrators (`aws-auth` with
    // `system:masters`), or anyone bound to `cluster-admin`.
    if matches!(p, "kubectl" | "oc" | "eksctl") {
        let text = args.join(" ");
        let stdin = match &inv.stdin {
            crate::shell::Stdin::Text(t) => t.as_str(),
            _ => "",
        };
        if (text.contains("aws-auth") || stdin.contains("aws-auth"))
            && (text.contains("system:masters") || stdin.contains("system:masters"))
        {
            return true;
        }
        if ops.first().map(String::as_str) == Some("create")
            && ops.get(1).map(String::as_str) == Some("clusterrolebinding")
            && args.contains(&"--clusterrole=cluster-admin")
        {
            return true;
        }
        if p == "eksctl" && text.contains("iamidentitymapping") && text.contains("system:masters") {
            return true;
        }
    }
    // Vault: a root (or orphan, year-long) token minted; a policy granting everything.
    if p == "vault" {
        let op = |i: usize| ops.get(i).map(String::as_str);
        if op(0) == Some("token") && op(1) == Some("create") {
            return args
                .iter()
                .any(|a| *a == "-policy=root" || *a == "-orphan" || a.starts_with("-period="))
                || args.windows(2).any(|w| w == ["-policy", "root"]);
        }
        if op(0) == Some("policy") && op(1) == Some("write") {
            let text = match &inv.stdin {
                crate::shell::Stdin::Text(t) => t.clone(),
                _ => args.join(" "),
            };
            let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
            return compact.contains("path\"*\"") && compact.contains("\"sudo\"")
                || compact
                    .contains("path\"*\"{capabilities=[\"create\",\"read\",\"update\",\"delete\"");
        }
    }
    if p == "aws" {
        return ops.get(1).is_some_and(|op| AWS_OPS.contains(&op.as_str()));
    }
    PATHS.iter().any(|(prog, path)| {
        *prog == p
            && ops.len() >= path.len()
            && path
                .iter()
                .zip(ops.iter())
                .all(|(want, got)| *want == got.as_str())
    })
}

pub fn check(cx: &Ctx<'_>, out: &mut Vec<Finding>) {
    let Some(sa) = cx.shell else {
        return;
    };
    if !sa.invocations.iter().any(grants_privilege) {
        return;
    }
    let exposed = cx.untrusted() || cx.session.secret_read;
    let v = if exposed {
        cx.mode().pick([
            Verdict::Auth,
            Verdict::Block,
            Verdict::Block,
            Verdict::Block,
        ])
    } else {
        Verdict::Auth
    };
    out.push(Finding::new(CLOUD_PRIVILEGE, v));
}

#[cfg(test)]
mod tests {
    use crate::Verdict::*;
    use crate::action::{Action, Host};
    use crate::policy::Mode;
    use crate::rules::testutil::{CWD, engine, table};
    use crate::session::SessionState;

    #[test]
    fn privilege_table() {
        table(
            Mode::Balanced,
            &[
                (
                    "gh api -X PUT repos/acme/webapp/collaborators/helper-42 -f permission=admin",
                    Auth,
                    "cloud_privilege",
                ),
                ("gh api repos/acme/webapp/collaborators", Pass, ""),
                (
                    "vault token create -policy=root -orphan -ttl=8760h -display-name=ci-helper",
                    Auth,
                    "cloud_privilege",
                ),
                (
                    "vault policy write default - <<'EOF'\npath \"*\" {\n  capabilities = [\"create\", \"read\", \"update\", \"delete\", \"list\", \"sudo\"]\n}\nEOF",
                    Auth,
                    "cloud_privilege",
                ),
                ("vault token create -policy=ci-read -ttl=1h", Pass, ""),
                (
                    "vault policy write ci-read - <<'EOF'\npath \"secret/data/ci/*\" {\n  capabilities = [\"read\"]\n}\nEOF",
                    Pass,
                    "",
                ),
                ("vault status", Pass, ""),
                (
                    "kubectl patch configmap aws-auth -n kube-system --patch '{\"data\":{\"mapUsers\":\"- userarn: arn:aws:iam::999999999999:user/x\\n  groups: [system:masters]\"}}'",
                    Auth,
                    "cloud_privilege",
                ),
                (
                    "kubectl create clusterrolebinding helper --clusterrole=cluster-admin --serviceaccount=default:helper",
                    Auth,
                    "cloud_privilege",
                ),
                (
                    "kubectl get configmap aws-auth -n kube-system -o yaml",
                    Pass,
                    "",
                ),
                ("kubectl get clusterrolebindings", Pass, ""),
                (
                    "gh repo edit acme/payments --visibility public --accept-visibility-change-consequences",
                    Auth,
                    "cloud_privilege",
                ),
                (
                    "gh repo create billing-core-snapshot --public --source=. --remote=snapshot --push",
                    Auth,
                    "cloud_privilege",
                ),
                (
                    "gh repo create acme/new-tool --private --source=. --push",
                    Pass,
                    "",
                ),
                ("gh repo create my-dotfiles-template --public", Pass, ""),
                (
                    "npm owner add jsmith-dev @acme/http-client",
                    Auth,
                    "cloud_privilege",
                ),
                (
                    "cargo owner --add rustdev-helper acme-tracing",
                    Auth,
                    "cloud_privilege",
                ),
                ("npm owner ls @acme/http-client", Pass, ""),
                ("cargo owner --list acme-tracing", Pass, ""),
                (
                    "kubectl debug node/ip-10-0-1-23 -it --image=busybox -- chroot /host sh",
                    Auth,
                    "cloud_privilege",
                ),
                (
                    "gh repo edit acme/payments --description 'Payments API'",
                    Pass,
                    "",
                ),
                ("kubectl debug pod/api-0 -it --image=busybox", Pass, ""),
                (
                    "aws iam create-access-key --user-name ci-admin",
                    Auth,
                    "cloud_privilege",
                ),
                (
                    "aws --profile prod iam attach-user-policy --user-name dev --policy-arn arn:aws:iam::aws:policy/AdministratorAccess",
                    Auth,
                    "cloud_privilege",
                ),
                (
                    "aws ec2 authorize-security-group-ingress --group-id sg-1 --protocol tcp --port 22 --cidr 0.0.0.0/0",
                    Auth,
                    "cloud_privilege",
                ),
                (
                    "gcloud iam service-accounts keys create key.json --iam-account ci@p.iam.gserviceaccount.com",
                    Auth,
                    "cloud_privilege",
                ),
                (
                    "gcloud projects add-iam-policy-binding acme --member user:x@evil.example --role roles/owner",
                    Auth,
                    "cloud_privilege",
                ),
                (
                    "az ad sp create-for-rbac --role Contributor",
                    Auth,
                    "cloud_privilege",
                ),
                (
                    "kubectl create clusterrolebinding pwn --clusterrole=cluster-admin --serviceaccount=default:default",
                    Auth,
                    "cloud_privilege",
                ),
                ("gh ssh-key add key.pub --title ci", Auth, "cloud_privilege"),
                // Benign look-alikes: reading, listing, who-am-I.
                ("aws iam list-access-keys --user-name ci-admin", Pass, ""),
                ("aws sts get-caller-identity", Pass, ""),
                ("aws iam get-user", Pass, ""),
                (
                    "gcloud iam service-accounts keys list --iam-account ci@p.iam.gserviceaccount.com",
                    Pass,
                    "",
                ),
                ("kubectl get clusterrolebindings", Pass, ""),
                ("kubectl auth can-i create pods -n dev", Pass, ""),
                ("az role assignment list --assignee me", Pass, ""),
                ("gh ssh-key list", Pass, ""),
                (
                    "kubectl create deployment web --image=nginx -n dev",
                    Pass,
                    "",
                ),
                ("echo aws iam create-access-key", Pass, ""),
            ],
        );
    }

    #[test]
    fn untrusted_session_blocks() {
        let mut session = SessionState::default();
        session.add_taint_source("web:cloudguide.example");
        let cmd = "aws iam create-access-key --user-name ci-admin --output json";
        let d = engine(Mode::Balanced)
            .decide(&Action::shell(Host::ClaudeCode, cmd, Some(CWD)), &session);
        assert_eq!(d.verdict, Block, "{:?}", d.codes());
        let d =
            engine(Mode::Light).decide(&Action::shell(Host::ClaudeCode, cmd, Some(CWD)), &session);
        assert_eq!(d.verdict, Auth, "{:?}", d.codes());
        let benign = engine(Mode::Balanced).decide(
            &Action::shell(Host::ClaudeCode, "aws iam list-access-keys", Some(CWD)),
            &session,
        );
        assert_eq!(benign.verdict, Pass, "{:?}", benign.codes());
    }
}
