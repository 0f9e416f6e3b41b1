//! A well-known project installed from an owner that is not its own.
//!
//! **What it does:** installing, running or applying code from a repository whose name is a
//! well-known project's but whose owner is not that project's (`go install
//! github.com/golangci-lint/golangci-lint/…` for `golangci/golangci-lint`, `cargo install
//! --git https://github.com/burnt-sushi/ripgrep`, `npm install
//! github:expressjs-community/express`, `pip install git+https://github.com/requests-maint/
//! requests`, `kubectl apply -f https://raw.githubusercontent.com/certmgr-io/cert-manager/…`,
//! `gh extension install`, `brew tap`, `asdf plugin add`, a workflow's `uses:
//! actions-helper/checkout@main`) is `lookalike_source`: AUTH (BLOCK
//! once the session took in untrusted content, and from strict up). A VS Code extension id one
//! typo away from a popular one (`ms-pyhton.python`) is `typosquat_package`, AUTH; a Helm
//! repository added from a host nobody listed is `untrusted_package_source` (AUTH, PASS in
//! light).
//! **Why:** a fork under a plausible owner ("-community", "-maint", a hyphen moved) is how a
//! poisoned README or a hallucinated instruction gets an agent to run someone else's code
//! under a trusted project's name; a listed forge (github.com) does not make it the project.
//! **Example:** `cargo install --git https://github.com/burnt-sushi/ripgrep ripgrep` →
//! `lookalike_source`.

use crate::verdict::{Finding, Reason, Verdict};

use super::Ctx;
use super::supply_chain::TYPOSQUAT;

pub const LOOKALIKE_SOURCE: Reason = Reason::new(
    "lookalike_source",
    "Installs a well-known project from an owner that is not its own (a look-alike fork).",
);

/// Well-known projects developers install or apply from source, and their owners (lower case).
const KNOWN: &[(&str, &[&str])] = &[
    ("ripgrep", &["burntsushi"]),
    ("cargo-audit", &["rustsec"]),
    ("rustsec", &["rustsec"]),
    ("dataframes.jl", &["juliadata"]),
    ("csv.jl", &["juliadata"]),
    ("nixpkgs", &["nixos"]),
    // R packages installed from GitHub, Helm plugins.
    ("dplyr", &["tidyverse"]),
    ("ggplot2", &["tidyverse"]),
    ("tidyr", &["tidyverse"]),
    ("readr", &["tidyverse"]),
    ("purrr", &["tidyverse"]),
    ("data.table", &["rdatatable"]),
    ("helm-diff", &["databus23"]),
    ("helm-secrets", &["jkroepke", "zendesk"]),
    ("helm-unittest", &["helm-unittest", "quintush"]),
    ("fd", &["sharkdp"]),
    ("bat", &["sharkdp"]),
    ("hyperfine", &["sharkdp"]),
    ("eza", &["eza-community"]),
    ("fzf", &["junegunn"]),
    ("jq", &["jqlang", "stedolan"]),
    ("yq", &["mikefarah"]),
    ("lazygit", &["jesseduffield"]),
    ("delta", &["dandavison"]),
    ("starship", &["starship"]),
    ("zoxide", &["ajeetdsouza"]),
    ("golangci-lint", &["golangci"]),
    ("gofumpt", &["mvdan"]),
    ("staticcheck", &["dominikh"]),
    ("go-tools", &["dominikh"]),
    ("goreleaser", &["goreleaser"]),
    ("air", &["air-verse", "cosmtrek"]),
    ("delve", &["go-delve"]),
    ("mockery", &["vektra"]),
    ("sqlc", &["sqlc-dev", "kyleconroy"]),
    ("migrate", &["golang-migrate"]),
    ("cobra-cli", &["spf13"]),
    ("cobra", &["spf13"]),
    ("protobuf", &["protocolbuffers", "golang"]),
    ("cert-manager", &["cert-manager", "jetstack"]),
    ("ingress-nginx", &["kubernetes"]),
    ("metrics-server", &["kubernetes-sigs"]),
    ("kustomize", &["kubernetes-sigs"]),
    ("kind", &["kubernetes-sigs"]),
    ("helm", &["helm"]),
    ("k9s", &["derailed"]),
    ("kubectx", &["ahmetb"]),
    ("stern", &["stern", "wercker"]),
    ("argo-cd", &["argoproj"]),
    ("flux2", &["fluxcd"]),
    ("prometheus", &["prometheus"]),
    ("terraform", &["hashicorp"]),
    ("tflint", &["terraform-linters"]),
    ("trivy", &["aquasecurity"]),
    ("act", &["nektos"]),
    ("gh-copilot", &["github"]),
    ("requests", &["psf"]),
    ("black", &["psf"]),
    ("gitleaks", &["gitleaks", "zricethezav"]),
    ("pre-commit-hooks", &["pre-commit"]),
    ("ruff-pre-commit", &["astral-sh", "charliermarsh"]),
    ("flask", &["pallets"]),
    ("django", &["django"]),
    ("fastapi", &["tiangolo", "fastapi"]),
    ("pydantic", &["pydantic"]),
    ("numpy", &["numpy"]),
    ("pandas", &["pandas-dev"]),
    ("express", &["expressjs"]),
    ("lodash", &["lodash"]),
    ("axios", &["axios"]),
    ("chalk", &["chalk"]),
    ("dotenv", &["motdotla"]),
    ("webpack", &["webpack"]),
    ("yargs", &["yargs"]),
    // (A common name: the JavaScript, Go and Rust projects of that name.)
    ("uuid", &["uuidjs", "google", "gofrs", "satori", "uuid-rs"]),
    ("commander.js", &["tj"]),
    ("react", &["facebook"]),
    ("next.js", &["vercel"]),
    ("vite", &["vitejs"]),
    ("prettier", &["prettier"]),
    ("eslint", &["eslint"]),
    ("typescript", &["microsoft"]),
    ("nvm", &["nvm-sh", "creationix"]),
    ("asdf", &["asdf-vm"]),
    ("asdf-nodejs", &["asdf-vm"]),
    ("asdf-python", &["asdf-community", "danhper"]),
    ("asdf-golang", &["asdf-community", "kennyp"]),
    ("pyenv", &["pyenv"]),
    ("rbenv", &["rbenv"]),
    ("ohmyzsh", &["ohmyzsh", "robbyrussell"]),
    ("oh-my-zsh", &["ohmyzsh", "robbyrussell"]),
    ("rust-analyzer", &["rust-lang"]),
    ("rustup", &["rust-lang"]),
    ("cargo-edit", &["killercup"]),
    ("neovim", &["neovim"]),
    ("zsh-autosuggestions", &["zsh-users"]),
    ("powerlevel10k", &["romkatv"]),
    ("pre-commit", &["pre-commit"]),
    ("ruff", &["astral-sh"]),
    ("uv", &["astral-sh"]),
    ("poetry", &["python-poetry"]),
    ("pipx", &["pypa"]),
    ("httpie", &["httpie"]),
    ("ollama", &["ollama"]),
    ("llama.cpp", &["ggerganov", "ggml-org"]),
    ("transformers", &["huggingface"]),
    ("compose", &["docker"]),
    ("buildx", &["docker"]),
    ("minikube", &["kubernetes"]),
    ("k3d", &["k3d-io", "rancher"]),
    ("skaffold", &["googlecontainertools"]),
    ("sops", &["getsops", "mozilla"]),
    ("age", &["filosottile"]),
    ("mkcert", &["filosottile"]),
    ("homebrew-core", &["homebrew"]),
    ("homebrew-cask", &["homebrew"]),
    // GitHub Actions every workflow uses (`uses: OWNER/NAME@ref`).
    ("checkout", &["actions"]),
    ("setup-node", &["actions"]),
    ("setup-python", &["actions"]),
    ("setup-go", &["actions"]),
    ("setup-java", &["actions"]),
    ("setup-dotnet", &["actions"]),
    ("cache", &["actions"]),
    ("upload-artifact", &["actions"]),
    ("download-artifact", &["actions"]),
    ("github-script", &["actions"]),
    ("labeler", &["actions"]),
    ("stale", &["actions"]),
    ("codeql-action", &["github"]),
    ("login-action", &["docker"]),
    ("build-push-action", &["docker"]),
    ("setup-buildx-action", &["docker"]),
    ("setup-qemu-action", &["docker"]),
    ("metadata-action", &["docker"]),
    ("configure-aws-credentials", &["aws-actions"]),
    ("auth", &["google-github-actions"]),
    ("setup-gcloud", &["google-github-actions"]),
    ("rust-toolchain", &["dtolnay"]),
    ("action-gh-release", &["softprops"]),
    ("gitleaks-action", &["gitleaks"]),
];

/// Chart repositories of well-known projects (host and path prefix).
const KNOWN_CHART_REPOS: &[&str] = &[
    "charts.bitnami.com/",
    "kubernetes.github.io/",
    "kubernetes-sigs.github.io/",
    "charts.jetstack.io",
    "prometheus-community.github.io/",
    "grafana.github.io/",
    "helm.releases.hashicorp.com",
    "argoproj.github.io/",
    "aws.github.io/eks-charts",
    "charts.gitlab.io",
    "helm.elastic.co",
    "helm.cilium.io",
    "charts.external-secrets.io",
    "traefik.github.io/",
    "helm.traefik.io",
    "charts.crossplane.io",
    "open-telemetry.github.io/",
    "istio-release.storage.googleapis.com/",
    "helm.nginx.com",
    "fluxcd-community.github.io/",
    "charts.longhorn.io",
    "helm.linkerd.io",
    "strimzi.io/charts",
    "dapr.github.io/",
    "kedacore.github.io/",
    "getsentry.github.io/",
    "codecentric.github.io/",
    "bitnami-labs.github.io/",
];

/// Popular VS Code extension ids (publisher.name, lower case).
pub(crate) const POPULAR_EXTENSIONS: &[&str] = &[
    "ms-python.python",
    "ms-python.vscode-pylance",
    "ms-toolsai.jupyter",
    "ms-vscode.cpptools",
    "esbenp.prettier-vscode",
    "dbaeumer.vscode-eslint",
    "ms-azuretools.vscode-docker",
    "github.copilot",
    "github.copilot-chat",
    "rust-lang.rust-analyzer",
    "golang.go",
    "redhat.vscode-yaml",
    "redhat.java",
    "eamodio.gitlens",
    "ms-vscode-remote.remote-ssh",
    "ms-vscode-remote.remote-containers",
    "hashicorp.terraform",
    "bradlc.vscode-tailwindcss",
    "vscodevim.vim",
    "ms-dotnettools.csharp",
    "vue.volar",
    "svelte.svelte-vscode",
    "prisma.prisma",
    "ms-kubernetes-tools.vscode-kubernetes-tools",
    "streetsidesoftware.code-spell-checker",
    "christian-kohler.path-intellisense",
    "pkief.material-icon-theme",
    "ritwickdey.liveserver",
    "formulahendry.code-runner",
    "editorconfig.editorconfig",
];

/// `(owner, repo)` of every repository a word names: `github.com/O/R…`,
/// `raw.githubusercontent.com/O/R/…`, `gitlab.com/O/R`, `github:O/R`, `O.github.io/R`.
fn repos_in(word: &str) -> Vec<(String, String)> {
    let w = word.to_ascii_lowercase();
    let mut out = Vec::new();
    for host in [
        "github.com/",
        "raw.githubusercontent.com/",
        "gitlab.com/",
        "codeberg.org/",
    ] {
        for (i, _) in w.match_indices(host) {
            let rest = w.get(i + host.len()..).unwrap_or("");
            let rest = rest.trim_start_matches(':');
            // (Inside code the address ends at its closing quote: `url="…/o/r.jl")`.)
            let mut parts = rest.split(['/', '#', '@', '?', '"', '\'', ')', ' ', ',', '`']);
            if let (Some(o), Some(r)) = (parts.next(), parts.next()) {
                push(&mut out, o, r);
            }
        }
    }
    // `github:O/R` (npm, nix), mise's backends `ubi:O/R` and `aqua:O/R`.
    if let Some(rest) = ["github:", "ubi:", "aqua:", "gh:"]
        .iter()
        .find_map(|p| w.strip_prefix(p))
    {
        let mut parts = rest.split(['/', '#', '@']);
        if let (Some(o), Some(r)) = (parts.next(), parts.next()) {
            push(&mut out, o, r);
        }
    }
    // `kubernetes.github.io/ingress-nginx`: a project's pages (Helm repositories).
    if let Some(i) = w.find(".github.io/") {
        let owner = w
            .get(..i)
            .unwrap_or("")
            .rsplit(['/', '.'])
            .next()
            .unwrap_or("");
        let repo = w
            .get(i + ".github.io/".len()..)
            .unwrap_or("")
            .split(['/', '#', '?'])
            .next()
            .unwrap_or("");
        push(&mut out, owner, repo);
    }
    out
}

fn push(out: &mut Vec<(String, String)>, owner: &str, repo: &str) {
    let repo = repo.trim_end_matches(".git");
    if !owner.is_empty() && !repo.is_empty() {
        out.push((owner.to_owned(), repo.to_owned()));
    }
}

/// A known project's name under an owner that is not one of its own.
fn lookalike(owner: &str, repo: &str) -> bool {
    let names = [repo, repo.strip_prefix("homebrew-").unwrap_or(repo)];
    KNOWN.iter().any(|(name, owners)| {
        !owners.contains(&owner) && names.iter().any(|n| *n == *name || improved_copy(n, name))
    }) || lookalike_owner(owner)
}

/// Words a look-alike owner adds to a real one (`rustsec-tools`, `juliadata-community`).
const FORK_SUFFIXES: &[&str] = &[
    "community",
    "tools",
    "maint",
    "maintained",
    "maintainers",
    "official",
    "team",
    "labs",
    "hq",
    "org",
    "oss",
    "dev",
    "contrib",
    "mirror",
    "fork",
];

/// An owner that is a well-known project's owner with a word added (`rustsec-tools` for
/// `rustsec`), when it is not itself one of the owners listed (`eza-community` is).
fn lookalike_owner(owner: &str) -> bool {
    // (Chart repositories' owners are real organisations: `prometheus-community`.)
    let listed = |o: &str| {
        KNOWN.iter().any(|(_, owners)| owners.contains(&o))
            || KNOWN_CHART_REPOS.iter().any(|r| {
                r.strip_prefix(o)
                    .is_some_and(|rest| rest.starts_with(".github.io"))
            })
    };
    if listed(owner) {
        return false;
    }
    owner
        .rsplit_once(['-', '_'])
        .is_some_and(|(base, suffix)| FORK_SUFFIXES.contains(&suffix) && listed(base))
}

/// Words a copy adds to a well-known project's name to pass for a better build of it
/// (`ripgrep-turbo`, `eslint-fixed`, `prettier_pro`); real companion projects use other
/// words (`ripgrep-all`, `eslint-plugin-…`).
const IMPROVED: &[&str] = &[
    "turbo", "fast", "faster", "pro", "plus", "fixed", "patched", "official", "latest", "new",
    "next", "v2", "2", "ultra", "enhanced", "improved", "extra", "premium", "secure", "hook",
    "hooks",
];

fn improved_copy(repo: &str, name: &str) -> bool {
    repo.strip_prefix(name).is_some_and(|rest| {
        let rest = rest.trim_start_matches(['-', '_', '.']);
        rest.len() < repo.len() - name.len() && IMPROVED.contains(&rest)
    })
}

/// The commands that install, run or apply what they name.
fn installs(program: &str, args: &[&str]) -> bool {
    let first = args.first().copied().unwrap_or("");
    match program {
        "go" => matches!(first, "install" | "run" | "get"),
        "cargo" => first == "install",
        "pip" | "pip3" | "uv" | "pipx" | "poetry" | "pipenv" => {
            matches!(first, "install" | "add" | "run" | "tool" | "inject")
        }
        "npm" | "pnpm" | "yarn" | "bun" => {
            matches!(first, "install" | "i" | "add" | "exec" | "dlx")
        }
        "npx" | "bunx" | "pnpx" => true,
        "gh" => first == "extension" || first == "ext",
        "brew" => matches!(first, "tap" | "install"),
        "asdf" => first == "plugin" || first == "plugin-add",
        "mise" | "rtx" => matches!(
            first,
            "plugin" | "plugin-add" | "use" | "install" | "exec" | "x"
        ),
        "uvx" => true,
        "nix" => matches!(
            first,
            "profile" | "run" | "shell" | "build" | "develop" | "flake"
        ),
        "nix-env" => true,
        "kubectl" | "oc" => matches!(first, "apply" | "create" | "replace"),
        "helm" => matches!(first, "install" | "upgrade" | "repo" | "plugin"),
        // `Rscript -e 'remotes::install_github("O/R")'`.
        "rscript" | "r" => args.iter().any(|a| a.contains("install_github(")),
        // `julia -e 'using Pkg; Pkg.add(url="https://github.com/O/R.jl")'`.
        "julia" => args
            .iter()
            .any(|a| a.contains("Pkg.add(") || a.contains("Pkg.develop(")),
        _ => false,
    }
}

/// `uses: OWNER/NAME@ref` lines a CI file adds whose action is a well-known one under
/// another owner (`actions-helper/checkout@main`).
fn lookalike_action(cx: &Ctx<'_>) -> bool {
    let crate::action::Operation::FileWrite { path, content } = &cx.action.op else {
        return false;
    };
    let abs = crate::paths::normalize(path, cx.cwd(), cx.home());
    let lower = abs.to_ascii_lowercase();
    let old: Vec<&str> = cx.facts.edits.iter().map(|e| e.old.as_str()).collect();
    let base = crate::paths::basename(&lower);
    // A pre-commit hook repository (`- repo: https://github.com/OWNER/REPO`) runs its code on
    // every commit; a Terraform provider (`source = "OWNER/aws"`) on every plan.
    if base.starts_with(".pre-commit-config") || base.ends_with(".tf") {
        return content.lines().any(|l| {
            let t = l.trim().trim_start_matches("- ").trim();
            let spec = if let Some(r) = t.strip_prefix("repo:") {
                r.trim().trim_matches(['"', '\'']).to_ascii_lowercase()
            } else if let Some(r) = t.strip_prefix("source").map(str::trim_start)
                && let Some(v) = r.strip_prefix('=')
                && base.ends_with(".tf")
            {
                let v = v.trim().trim_matches(['"', '\'']).to_ascii_lowercase();
                // `registry.terraform.io/OWNER/NAME` or `OWNER/NAME`.
                let v = v
                    .strip_prefix("registry.terraform.io/")
                    .unwrap_or(&v)
                    .to_owned();
                let mut p = v.split('/');
                return match (p.next(), p.next(), p.next()) {
                    (Some(owner), Some(name), None) => {
                        lookalike_provider(owner, name)
                            && !old.iter().any(|o| o.to_ascii_lowercase().contains(&v))
                    }
                    _ => false,
                };
            } else {
                return false;
            };
            repos_in(&spec).iter().any(|(o, r)| {
                lookalike(o, r) && !old.iter().any(|x| x.to_ascii_lowercase().contains(&spec))
            })
        });
    }
    if !crate::autorun::is_ci_file(&lower) {
        return false;
    }
    content.lines().any(|l| {
        let t = l.trim().trim_start_matches("- ").trim();
        let Some(spec) = t.strip_prefix("uses:") else {
            return false;
        };
        let spec = spec.trim().trim_matches(['"', '\'']).to_ascii_lowercase();
        let name = spec.split('@').next().unwrap_or("");
        let mut parts = name.split('/');
        let (Some(owner), Some(repo)) = (parts.next(), parts.next()) else {
            return false;
        };
        lookalike(owner, repo) && !old.iter().any(|o| o.to_ascii_lowercase().contains(name))
    })
}

/// Terraform's best-known providers under an owner that is not theirs
/// (`hashicorp-oss/aws` for `hashicorp/aws`).
fn lookalike_provider(owner: &str, name: &str) -> bool {
    const PROVIDERS: &[(&str, &str)] = &[
        ("aws", "hashicorp"),
        ("google", "hashicorp"),
        ("google-beta", "hashicorp"),
        ("azurerm", "hashicorp"),
        ("azuread", "hashicorp"),
        ("kubernetes", "hashicorp"),
        ("helm", "hashicorp"),
        ("random", "hashicorp"),
        ("null", "hashicorp"),
        ("tls", "hashicorp"),
        ("local", "hashicorp"),
        ("archive", "hashicorp"),
        ("http", "hashicorp"),
        ("time", "hashicorp"),
        ("vault", "hashicorp"),
        ("cloudflare", "cloudflare"),
        ("datadog", "datadog"),
        ("github", "integrations"),
    ];
    PROVIDERS
        .iter()
        .any(|(n, o)| *n == name && *o != owner && owner.contains(o))
}

/// The container images a text names (`image: postgres:16`, `FROM node:20 AS build`), as
/// their repository paths without tag or digest.
fn images_in(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| {
            let t = l.trim().trim_start_matches("- ");
            let v = t
                .strip_prefix("image:")
                .or_else(|| t.strip_prefix("FROM "))
                .or_else(|| t.strip_prefix("from "))?;
            let v = v.split_whitespace().find(|w| !w.starts_with("--"))?;
            let v = v.trim_matches(['"', '\'']);
            let repo = v.split('@').next().unwrap_or(v);
            // `host:port/x` keeps its port; a tag is after the last `/`.
            let repo = match repo.rsplit_once('/') {
                Some((head, last)) => format!("{head}/{}", last.split(':').next().unwrap_or(last)),
                None => repo.split(':').next().unwrap_or(repo).to_owned(),
            };
            (!repo.is_empty() && !repo.contains('$')).then(|| repo.to_ascii_lowercase())
        })
        .collect()
}

/// An edit that swaps an image for one of the same name from another owner or registry
/// (`postgres:16-alpine` → `ghcr.io/postgres-official/postgres:16-alpine`): the same
/// software by its name, someone else's build. The official library's mirrors are the same
/// image.
fn image_swapped(cx: &Ctx<'_>) -> bool {
    let official = |r: &str| {
        let r = r
            .trim_start_matches("docker.io/")
            .trim_start_matches("index.docker.io/")
            .trim_start_matches("public.ecr.aws/docker/")
            .trim_start_matches("mirror.gcr.io/");
        r.strip_prefix("library/").unwrap_or(r).to_owned()
    };
    cx.facts.edits.iter().any(|e| {
        let old = images_in(&e.old);
        let new = images_in(&e.new);
        new.iter().any(|n| {
            let name = n.rsplit('/').next().unwrap_or(n);
            old.iter().any(|o| {
                let same_name = o.rsplit('/').next().unwrap_or(o) == name;
                same_name && official(o) != official(n)
            })
        })
    })
}

/// Does this address name a well-known repository under a look-alike owner
/// (`git+https://github.com/astral-sh-dev/ruff`)?
pub(crate) fn lookalike_repo_url(url: &str) -> bool {
    repos_in(url).iter().any(|(o, r)| lookalike(o, r))
}

pub fn check(cx: &Ctx<'_>, out: &mut Vec<Finding>) {
    if image_swapped(cx) {
        out.push(Finding::new(LOOKALIKE_SOURCE, cx.ask_or_block()));
    }
    if lookalike_action(cx) {
        out.push(Finding::new(LOOKALIKE_SOURCE, cx.ask_or_block()));
    }
    let Some(sa) = cx.shell else {
        return;
    };
    let mut fork = false;
    let mut squat = false;
    let mut unlisted_repo = false;
    for inv in &sa.invocations {
        let args: Vec<&str> = inv.argv().collect();
        let p = inv.program.as_str();
        if installs(p, &args) {
            // `gh extension install O/R`, `brew tap O/R`, `npm install O/R`: owner/repo
            // shorthand on GitHub.
            let shorthand = matches!(p, "gh" | "brew" | "npm" | "pnpm" | "yarn" | "bun");
            for a in args.iter().skip(1) {
                let mut refs = repos_in(a);
                // R's `install_github("O/R")`: owner/repo shorthand inside the code.
                for (i, _) in a.match_indices("install_github(") {
                    let inner = a.get(i + 15..).unwrap_or("");
                    let inner = inner.trim_start_matches(['"', '\'']);
                    let spec: String = inner
                        .chars()
                        .take_while(|c| !matches!(c, '"' | '\'' | ')' | '@' | ','))
                        .collect();
                    if let Some((o, r)) = spec.split_once('/') {
                        push(&mut refs, &o.to_ascii_lowercase(), &r.to_ascii_lowercase());
                    }
                }
                // (`github:O/R#ref`, `gitlab:O/R`: the package managers' forge shorthands.)
                let a = ["github:", "gitlab:", "bitbucket:"]
                    .iter()
                    .find_map(|f| a.strip_prefix(f))
                    .map_or(*a, |rest| rest.split('#').next().unwrap_or(rest));
                if refs.is_empty()
                    && shorthand
                    && !a.starts_with(['-', '@', '.', '/', '~'])
                    && !a.contains(':')
                    && let Some((o, r)) = a.split_once('/')
                    && !r.contains('/')
                {
                    push(&mut refs, &o.to_ascii_lowercase(), &r.to_ascii_lowercase());
                }
                fork |= refs.iter().any(|(o, r)| lookalike(o, r));
            }
        }
        // `helm repo add NAME https://charts.unknown.example`: every chart installed from it
        // later runs that host's templates and images.
        if p == "helm"
            && args.first() == Some(&"repo")
            && args.get(1) == Some(&"add")
            && let Some(url) = args.iter().skip(3).find(|a| a.contains("://"))
            && let Some(d) = crate::net::parse_destination(url)
            && !cx.policy.host_allowed(&d.host)
            && !d.is_local()
            && !d.is_private_ip()
            && !KNOWN_CHART_REPOS.iter().any(|k| {
                url.split_once("://")
                    .is_some_and(|(_, rest)| rest.to_ascii_lowercase().starts_with(k))
            })
        {
            unlisted_repo = true;
        }
        // `code --install-extension ms-pyhton.python`
        if matches!(
            p,
            "code" | "code-insiders" | "codium" | "cursor" | "windsurf"
        ) {
            for w in args.windows(2) {
                if let [flag, id] = w
                    && *flag == "--install-extension"
                {
                    let id = id.split('@').next().unwrap_or(id).to_ascii_lowercase();
                    squat |= !POPULAR_EXTENSIONS.contains(&id.as_str())
                        && POPULAR_EXTENSIONS
                            .iter()
                            .any(|p| super::supply_chain::typosquat(&id, &[p]));
                }
            }
        }
    }
    if fork {
        out.push(Finding::new(LOOKALIKE_SOURCE, cx.ask_or_block()));
    }
    if squat {
        out.push(Finding::new(TYPOSQUAT, Verdict::Auth));
    }
    if unlisted_repo {
        out.push(Finding::new(
            super::supply_chain::UNTRUSTED_SOURCE,
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

    /// An image swapped for one of the same name from someone else.
    #[test]
    fn images_swapped_for_a_namesake() {
        use crate::rules::testutil::judge_edit;
        for (path, old, new, want) in [
            (
                "docker-compose.yml",
                "    image: postgres:16-alpine\n",
                "    image: ghcr.io/postgres-official/postgres:16-alpine\n",
                true,
            ),
            (
                "Dockerfile",
                "FROM node:20-slim AS build\n",
                "FROM nodejs-images/node:20-slim AS build\n",
                true,
            ),
            (
                "docker-compose.yml",
                "    image: postgres:16-alpine\n",
                "    image: postgres:17-alpine\n",
                false,
            ),
            (
                "docker-compose.yml",
                "    image: redis:7\n",
                "    image: public.ecr.aws/docker/library/redis:7\n",
                false,
            ),
            (
                "Dockerfile",
                "FROM node:20\n",
                "FROM node:20@sha256:abc\n",
                false,
            ),
        ] {
            let (_, reasons) = judge_edit(path, old, new);
            assert_eq!(
                reasons.iter().any(|r| r == "lookalike_source"),
                want,
                "{path}: {new}: {reasons:?}"
            );
        }
    }

    #[test]
    fn forge_shorthands_of_package_managers() {
        crate::rules::testutil::table(
            crate::policy::Mode::Balanced,
            &[
                (
                    "bun add github:lodash-utils/lodash#main",
                    Auth,
                    "lookalike_source",
                ),
                (
                    "npm install github:axios-dev/axios",
                    Auth,
                    "lookalike_source",
                ),
                ("bun add github:lodash/lodash", Pass, ""),
                ("npm install lodash", Pass, ""),
            ],
        );
    }

    #[test]
    fn lookalike_actions_in_a_workflow() {
        use crate::rules::testutil::write_table;
        write_table(&[
            (
                ".github/workflows/release.yml",
                "      - uses: actions-helper/checkout@main\n      - uses: actions/setup-node@v4\n",
                Auth,
                "lookalike_source",
            ),
            (
                ".github/workflows/release.yml",
                "      - uses: actions/checkout@v4\n      - uses: docker/login-action@v3\n      - uses: acme/deploy-action@v1\n",
                Pass,
                "",
            ),
            // Hook repositories and Terraform providers under an owner not theirs.
            (
                ".pre-commit-config.yaml",
                "repos:\n  - repo: https://github.com/gitleaks-community/gitleaks-hook\n    rev: main\n",
                Auth,
                "lookalike_source",
            ),
            (
                ".pre-commit-config.yaml",
                "repos:\n  - repo: https://github.com/gitleaks/gitleaks\n    rev: v8.18.2\n",
                Pass,
                "",
            ),
            (
                "versions.tf",
                "    aws = {\n      source  = \"hashicorp-oss/aws\"\n    }\n",
                Auth,
                "lookalike_source",
            ),
            (
                "versions.tf",
                "    aws = {\n      source  = \"hashicorp/aws\"\n    }\n",
                Pass,
                "",
            ),
            (
                "versions.tf",
                "    acme = {\n      source  = \"acme-corp/acme\"\n    }\n",
                Pass,
                "",
            ),
        ]);
    }

    #[test]
    fn lookalike_sources_and_the_real_projects() {
        table(
            Mode::Balanced,
            &[
                (
                    "Rscript -e 'remotes::install_github(\"tidyverse-org/dplyr\")'",
                    Auth,
                    "lookalike_source",
                ),
                (
                    "Rscript -e 'remotes::install_github(\"tidyverse/dplyr\")'",
                    Pass,
                    "",
                ),
                (
                    "helm plugin install https://github.com/helm-plugins/helm-diff",
                    Auth,
                    "lookalike_source",
                ),
                (
                    "helm plugin install https://github.com/databus23/helm-diff",
                    Pass,
                    "",
                ),
                (
                    "go install github.com/golangci-lint/golangci-lint/cmd/golangci-lint@latest",
                    Auth,
                    "lookalike_source",
                ),
                (
                    "go install github.com/golangci/golangci-lint/cmd/golangci-lint@latest",
                    Pass,
                    "",
                ),
                (
                    "cargo install --git https://github.com/burnt-sushi/ripgrep ripgrep",
                    Auth,
                    "lookalike_source",
                ),
                (
                    "mise use -g ubi:BurntSushl/ripgrep@latest",
                    Auth,
                    "lookalike_source",
                ),
                (
                    "nix profile install github:nixos-pkgs/nixpkgs#kubectl",
                    Auth,
                    "lookalike_source",
                ),
                ("mise use -g ubi:BurntSushi/ripgrep@latest", Pass, ""),
                ("nix profile install github:NixOS/nixpkgs#kubectl", Pass, ""),
                (
                    "cargo install --git https://github.com/BurntSushi/ripgrep ripgrep",
                    Pass,
                    "",
                ),
                // A "better build" of a well-known project from someone else.
                (
                    "cargo install --git https://github.com/fastrg-dev/ripgrep-turbo --force",
                    Auth,
                    "lookalike_source",
                ),
                (
                    "cargo install --git https://github.com/phiresky/ripgrep-all",
                    Pass,
                    "",
                ),
                (
                    "npm install github:expressjs-community/express#main",
                    Auth,
                    "lookalike_source",
                ),
                ("npm install github:expressjs/express#master", Pass, ""),
                // An owner that is a known owner with a word added, whatever the repository.
                (
                    "cargo install --git https://github.com/rustsec-tools/cargo-audit cargo-audit",
                    Auth,
                    "lookalike_source",
                ),
                (
                    "go install github.com/sharkdp-community/hexyl@latest",
                    Auth,
                    "lookalike_source",
                ),
                (
                    "cargo install --git https://github.com/rustsec/rustsec cargo-audit",
                    Pass,
                    "",
                ),
                (
                    "go install github.com/acme-tools/deploy-cli@latest",
                    Pass,
                    "",
                ),
                (
                    "helm repo add prometheus-community https://prometheus-community.github.io/helm-charts",
                    Pass,
                    "",
                ),
                (
                    "pip install --upgrade 'git+https://github.com/requests-maint/requests.git@fix#egg=requests'",
                    Auth,
                    "lookalike_source",
                ),
                (
                    "kubectl apply -f https://raw.githubusercontent.com/certmgr-io/cert-manager/master/deploy/crds.yaml",
                    Auth,
                    "lookalike_source",
                ),
                (
                    "kubectl apply -f https://github.com/cert-manager/cert-manager/releases/download/v1.15.0/cert-manager.crds.yaml",
                    Pass,
                    "",
                ),
                (
                    "gh extension install gh-copilot-ext/gh-copilot",
                    Auth,
                    "lookalike_source",
                ),
                ("gh extension install github/gh-copilot", Pass, ""),
                (
                    "asdf plugin add nodejs https://github.com/asdf-node-js/asdf-nodejs.git",
                    Auth,
                    "lookalike_source",
                ),
                (
                    "asdf plugin add nodejs https://github.com/asdf-vm/asdf-nodejs.git",
                    Pass,
                    "",
                ),
                (
                    "code --install-extension ms-pyhton.python --force",
                    Auth,
                    "typosquat_package",
                ),
                ("code --install-extension ms-python.python", Pass, ""),
                // Someone's own project that shares no known name.
                ("go install github.com/acme/tools/cmd/gen@latest", Pass, ""),
                ("git clone https://github.com/someone/ripgrep", Pass, ""),
                (
                    "helm repo add fastcharts https://charts.fastcharts.example && helm repo update",
                    Auth,
                    "untrusted_package_source",
                ),
                ("helm repo update && helm list -A", Pass, ""),
                (
                    "helm repo add bitnami https://charts.bitnami.com/bitnami && helm repo update",
                    Pass,
                    "",
                ),
                (
                    "helm repo add ingress-nginx https://kubernetes.github.io/ingress-nginx",
                    Pass,
                    "",
                ),
            ],
        );
    }
}
