//! What runs in production changed directly.
//!
//! **What it does:** `kubectl`/`oc` changing workloads in a namespace or context named for
//! production (`-n prod`, `--context prod-eu-1`): a new image (`set image`), new environment
//! (`set env`), a patch, an edit, a manifest applied, created or replaced, a rollout undone;
//! and `helm upgrade`/`install`/`rollback` into one — `production_change`, AUTH in balanced
//! and stricter modes. Reading (`get`, `logs`, `describe`, `diff`), a restart, and any
//! change to a namespace or context not named for production pass.
//! **Why:** a hijacked agent that swaps a production image for its own (or for `busybox`) has
//! taken the service down or over without deleting anything; changes to production usually
//! go through review and CI, so a direct one is worth a look.
//! **Example:** `kubectl -n prod set image deploy/api api=busybox:1.36` → `production_change`.

use crate::verdict::{Finding, Reason, Verdict};

use super::Ctx;

pub const PRODUCTION_CHANGE: Reason = Reason::new(
    "production_change",
    "Changes what runs in production directly (a new image, patch, manifest or release on a production cluster).",
);

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

pub fn check(cx: &Ctx<'_>, out: &mut Vec<Finding>) {
    if cx
        .shell
        .is_some_and(|sa| sa.invocations.iter().any(changes_production))
    {
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
}
