//! The rules. One file per rule family; each has stable reason codes, a one-line explanation
//! that never echoes the payload, and table-driven tests beside it.
//!
//! A rule is a pure function `check(&Ctx, &mut Vec<Finding>)`. Rules only ever *add* findings;
//! the engine combines them with [`crate::verdict::combine`] (maximum wins), so no rule can
//! lower what another raised.

use crate::action::Action;
use crate::effects::Effects;
use crate::needs::CallFacts;
use crate::policy::{Mode, Policy};
use crate::secrets::SecretScanner;
use crate::session::{FingerprintKey, SessionState};
use crate::shell::ShellAnalysis;
use crate::verdict::Finding;

pub mod archive_escape;
pub mod armed_config;
pub mod bad_input;
pub mod behaviour;
pub mod bulk_delete;
pub mod check_made_optional;
pub mod ci_secrets;
pub mod cleanup_redirected;
pub mod cloud_privilege;
pub mod code_backdoor;
pub mod code_exfiltration;
pub mod container_escape;
pub mod data_controls;
pub mod data_protection;
pub mod destination;
pub mod destructive;
pub mod destructive_code;
pub mod endpoint_moved;
pub mod env_poisoning;
pub mod evasion;
pub mod exfiltration;
pub mod fetched_code;
pub mod gates_lowered;
pub mod git_destructive;
pub mod hidden_text;
pub mod infra_destructive;
pub mod known_bad_release;
pub mod lockfile_edited;
pub mod lookalike_source;
pub mod manifest_dependencies;
pub mod mcp_annotations;
pub mod mcp_recipients;
pub mod personal_data;
pub mod planted_command;
pub mod planted_instructions;
pub mod planted_run;
pub mod points_at_production;
pub mod production_change;
pub mod secret_access;
pub mod secret_echo;
pub mod secret_in_args;
pub mod secret_var_egress;
pub mod secrets_unshielded;
pub mod security_setting_off;
pub mod self_protection;
pub mod serve_folder;
pub mod service_destructive;
pub mod session_floor;
pub mod shell_issues;
pub mod source_moved;
pub mod spliced_names;
pub mod supply_chain;
pub mod synthetic_input;
pub mod system_disruption;
pub mod turn_gate;
pub mod unguarded_agent;
pub mod verification_bypass;
pub mod weakened_code;

/// Everything a rule may look at. Built once per decision.
pub struct Ctx<'a> {
    pub action: &'a Action,
    pub policy: &'a Policy,
    pub session: &'a SessionState,
    pub key: &'a FingerprintKey,
    pub scanner: &'a SecretScanner,
    pub shell: Option<&'a ShellAnalysis>,
    pub fx: &'a Effects,
    /// What the adapter supplied for this call (files, baseline p-values).
    pub facts: &'a CallFacts,
    /// For a write of a file whose commands run later (a script, a build recipe: see
    /// [`crate::autorun::later_commands`]), the reasons its commands get if run now.
    pub planted: Option<Vec<crate::verdict::ReasonReport>>,
    /// For a write of a configuration a routine command reads (see
    /// [`crate::autorun::routine_commands`]), that command's verdict after the write when
    /// the write made it stricter.
    pub armed: Option<crate::verdict::Verdict>,
    /// The write as the code rules see it, worked out once per decision (see
    /// [`Ctx::source_write`]).
    pub source: std::cell::OnceCell<Option<crate::code::SourceWrite>>,
}

impl Ctx<'_> {
    pub fn mode(&self) -> Mode {
        self.policy.mode
    }

    /// Is this host a destination somebody chose: on the policy's list, or named by the
    /// user in one of this session's turns?
    pub fn host_listed(&self, host: &str) -> bool {
        self.policy.host_allowed(host) || self.session.user_hosts.contains(host)
    }
    pub fn home(&self) -> Option<&str> {
        self.policy.home()
    }
    pub fn cwd(&self) -> Option<&str> {
        self.action.cwd.as_deref()
    }
    /// This call's write of source code or configuration, compacted once for every code rule.
    pub fn source_write(&self) -> Option<&crate::code::SourceWrite> {
        self.source
            .get_or_init(|| {
                crate::code::SourceWrite::of(&self.action.op, self.facts, self.cwd(), self.home())
            })
            .as_ref()
    }
    /// Untrusted content came into the session, or this call itself is marked untrusted.
    pub fn untrusted(&self) -> bool {
        self.session.tainted || self.action.provenance == crate::action::Provenance::Untrusted
    }
    /// A harmful code or configuration edit: PASS in light, AUTH in balanced and strict,
    /// BLOCK in paranoid; from strict up (AUTH in light) once the session took in untrusted
    /// content.
    pub fn code_edit_verdict(&self) -> crate::verdict::Verdict {
        use crate::verdict::Verdict::{Auth, Block, Pass};
        if self.untrusted() {
            self.mode().pick([Auth, Auth, Block, Block])
        } else {
            self.mode().pick([Pass, Auth, Auth, Block])
        }
    }
    /// `[AUTH, AUTH, BLOCK, BLOCK]` by mode, raised to BLOCK from balanced up once the
    /// session took in untrusted content.
    pub fn ask_or_block(&self) -> crate::verdict::Verdict {
        use crate::verdict::Verdict::{Auth, Block};
        if self.untrusted() {
            self.mode().pick([Auth, Block, Block, Block])
        } else {
            self.mode().pick([Auth, Auth, Block, Block])
        }
    }
}

pub type RuleFn = fn(&Ctx<'_>, &mut Vec<Finding>);

/// Every rule, in no particular order (order cannot matter: the combine is a maximum).
pub const RULES: &[(&str, RuleFn)] = &[
    ("bad_input", bad_input::check),
    ("shell_issues", shell_issues::check),
    ("self_protection", self_protection::check),
    ("destructive", destructive::check),
    ("bulk_delete", bulk_delete::check),
    ("git_destructive", git_destructive::check),
    ("infra_destructive", infra_destructive::check),
    ("secret_access", secret_access::check),
    ("secret_in_args", secret_in_args::check),
    ("secret_echo", secret_echo::check),
    ("exfiltration", exfiltration::check),
    ("destination", destination::check),
    ("session_floor", session_floor::check),
    ("turn_gate", turn_gate::check),
    ("behaviour", behaviour::check),
    ("supply_chain", supply_chain::check),
    ("known_bad_release", known_bad_release::check),
    ("synthetic_input", synthetic_input::check),
    ("env_poisoning", env_poisoning::check),
    ("verification_bypass", verification_bypass::check),
    ("gates_lowered", gates_lowered::check),
    ("planted_run", planted_run::check),
    ("spliced_names", spliced_names::check),
    ("wires_planted", planted_run::check_wiring),
    ("cleanup_redirected", cleanup_redirected::check),
    ("check_made_optional", check_made_optional::check),
    ("mcp_annotations", mcp_annotations::check),
    ("mcp_recipients", mcp_recipients::check),
    ("service_destructive", service_destructive::check),
    ("evasion", evasion::check),
    ("data_controls", data_controls::check),
    ("production_change", production_change::check),
    ("security_setting_off", security_setting_off::check),
    ("personal_data", personal_data::check),
    ("data_protection", data_protection::check),
    ("system_disruption", system_disruption::check),
    ("hidden_text", hidden_text::check),
    ("planted_instructions", planted_instructions::check),
    ("ci_secrets", ci_secrets::check),
    ("secret_var_egress", secret_var_egress::check),
    ("secrets_unshielded", secrets_unshielded::check),
    ("serve_folder", serve_folder::check),
    ("archive_escape", archive_escape::check),
    ("container_escape", container_escape::check),
    ("cloud_privilege", cloud_privilege::check),
    ("unguarded_agent", unguarded_agent::check),
    ("weakened_code", weakened_code::check),
    ("code_backdoor", code_backdoor::check),
    ("code_exfiltration", code_exfiltration::check),
    ("manifest_dependencies", manifest_dependencies::check),
    ("source_moved", source_moved::check),
    ("fetched_code", fetched_code::check),
    ("endpoint_moved", endpoint_moved::check),
    ("points_at_production", points_at_production::check),
    ("lockfile_edited", lockfile_edited::check),
    ("planted_command", planted_command::check),
    ("armed_config", armed_config::check),
    ("destructive_code", destructive_code::check),
    ("lookalike_source", lookalike_source::check),
];

#[cfg(test)]
pub(crate) mod testutil {
    use crate::action::{Action, Host};
    use crate::policy::{HostFacts, Mode, Policy, PolicyConfig};
    use crate::session::{FingerprintKey, SessionState};
    use crate::{Decision, Engine, Verdict};

    pub const CWD: &str = "/home/dev/project";

    /// The session a fresh one becomes after the user's turn `text` (judged and recorded).
    pub fn after_turn(e: &Engine, text: &str) -> SessionState {
        let s = SessionState::default();
        let p = Action {
            host: crate::Host::ClaudeCode,
            tool: crate::PROMPT_TOOL.into(),
            op: crate::Operation::Prompt { text: text.into() },
            cwd: None,
            provenance: crate::Provenance::User,
            session_id: Some("t".into()),
        };
        let d = e.decide(&p, &s);
        e.record(&s, &p, &d)
    }

    /// One compiled engine per process (regex compilation is slow in debug builds); each
    /// call gets a clone in the requested mode.
    pub fn engine(mode: Mode) -> Engine {
        static BASE: std::sync::OnceLock<Engine> = std::sync::OnceLock::new();
        let base = BASE.get_or_init(|| {
            let facts = HostFacts {
                home: Some("/home/dev".into()),
                protected_paths: vec!["/opt/airlock".into()],
            };
            let policy = Policy::compile(&PolicyConfig::default(), &facts).unwrap();
            Engine::new(policy, FingerprintKey::new([9; 32])).unwrap()
        });
        base.with_policy(base.policy().clone().with_mode(mode))
    }

    /// The agent's `Read` of the project's `.env`.
    pub fn read_env() -> Action {
        Action {
            host: Host::ClaudeCode,
            tool: "Read".into(),
            op: crate::action::Operation::FileRead {
                path: ".env".into(),
            },
            cwd: Some(CWD.into()),
            provenance: crate::action::Provenance::User,
            session_id: None,
        }
    }

    /// An MCP tool call as a host hook reports it (no annotations visible), from `cwd`.
    pub fn mcp_call(server: &str, tool: &str, args: serde_json::Value, cwd: &str) -> Action {
        Action {
            host: Host::ClaudeCode,
            tool: format!("mcp__{server}__{tool}"),
            op: crate::action::Operation::McpCall {
                server: server.into(),
                tool: tool.into(),
                arguments: args,
                annotations: crate::action::AnnotationInfo::Unknown,
            },
            cwd: Some(cwd.into()),
            provenance: crate::action::Provenance::User,
            session_id: None,
        }
    }

    /// A file tool's write (`tool` is `Write` or `Edit`) from the project folder.
    pub fn file_write(tool: &str, path: &str, content: &str) -> Action {
        Action {
            host: Host::ClaudeCode,
            tool: tool.into(),
            op: crate::action::Operation::FileWrite {
                path: path.into(),
                content: content.into(),
            },
            cwd: Some(CWD.into()),
            provenance: crate::action::Provenance::User,
            session_id: None,
        }
    }

    /// A session's steps, each judged, recorded (as if it went ahead) and observed with its
    /// output; the last step's verdict.
    pub fn after_steps(mode: Mode, steps: &[(Action, &str)]) -> Verdict {
        let e = engine(mode);
        let mut s = SessionState::default();
        let mut last = Verdict::Pass;
        for (action, output) in steps {
            let d = e.decide(action, &s);
            last = d.verdict;
            s = e.record_with(&s, action, &d, true);
            s = e.observe(&s, action, output);
        }
        last
    }

    /// The balanced verdict and reason codes of an edit of `path` (relative to the project)
    /// replacing `old` with `new`, the replacement passed as the service passes it; an empty
    /// `old` is a whole-file write.
    pub fn judge_edit(path: &str, old: &str, new: &str) -> (Verdict, Vec<String>) {
        let facts = crate::needs::CallFacts {
            edits: if old.is_empty() {
                Vec::new()
            } else {
                vec![crate::consequences::TextEdit {
                    old: old.into(),
                    new: new.into(),
                }]
            },
            ..crate::needs::CallFacts::default()
        };
        let tool = if old.is_empty() { "Write" } else { "Edit" };
        let d = engine(Mode::Balanced).decide_with(
            &file_write(tool, path, new),
            &SessionState::default(),
            &facts,
        );
        (d.verdict, d.reasons.into_iter().map(|r| r.code).collect())
    }

    /// Assert each `(path, content, verdict, code)` write in balanced mode; `code`, when not
    /// empty, must be among the reasons.
    pub fn write_table(cases: &[(&str, &str, Verdict, &str)]) {
        for (path, content, want, code) in cases {
            let (got, reasons) = judge_edit(path, "", content);
            assert_eq!(got, *want, "{path}: {content:?}: {reasons:?}");
            if !code.is_empty() {
                assert!(reasons.iter().any(|r| r == code), "{path}: {reasons:?}");
            }
        }
    }

    /// Assert each `(path, old, new, verdict)` edit in balanced mode (`old` empty: a write).
    pub fn edit_table(cases: &[(&str, &str, &str, Verdict)]) {
        for (path, old, new, want) in cases {
            let (got, reasons) = judge_edit(path, old, new);
            assert_eq!(got, *want, "{path}: {new:?} → {reasons:?}");
        }
    }

    /// The decision on `cmd` in a session that first wrote each `(path, content)`: the
    /// session remembers them, and the adapter finds them on disk.
    pub fn after_writes(mode: Mode, writes: &[(&str, &str)], cmd: &str) -> Decision {
        let e = engine(mode);
        let mut s = SessionState::default();
        let mut facts = crate::needs::CallFacts::default();
        for (path, content) in writes {
            s = e.observe(&s, &file_write("Write", path, content), "");
            facts.files.insert(
                (*path).to_owned(),
                crate::needs::FileView::Content((*content).to_owned()),
            );
        }
        e.decide_with(&Action::shell(Host::ClaudeCode, cmd, Some(CWD)), &s, &facts)
    }

    /// Files a session wrote first: `(path, content)`.
    pub type Writes<'a> = &'a [(&'a str, &'a str)];

    /// Assert each `(writes, command, verdict, code)` in `mode` (see [`after_writes`]).
    pub fn session_table(mode: Mode, cases: &[(Writes<'_>, &str, Verdict, &str)]) {
        for (writes, cmd, want, code) in cases {
            let d = after_writes(mode, writes, cmd);
            assert_decision(&d, *want, code, &format!("{writes:?} then {cmd}"));
        }
    }

    pub fn decide_shell(mode: Mode, cmd: &str) -> Decision {
        engine(mode).decide(
            &Action::shell(Host::ClaudeCode, cmd, Some(CWD)),
            &SessionState::default(),
        )
    }

    /// Assert each `(command, verdict, code)` in balanced mode; `code` must appear in the
    /// reasons when the verdict is not PASS.
    pub fn table(mode: Mode, cases: &[(&str, Verdict, &str)]) {
        for (cmd, want, code) in cases {
            assert_decision(&decide_shell(mode, cmd), *want, code, cmd);
        }
    }

    /// `d` has verdict `want`, and `code` among its reasons when `code` is not empty.
    pub fn assert_decision(d: &Decision, want: Verdict, code: &str, what: &str) {
        assert_eq!(d.verdict, want, "{what}: {:?}", d.codes());
        if !code.is_empty() {
            assert!(
                d.codes().contains(&code),
                "{what}: expected {code} in {:?}",
                d.codes()
            );
        }
    }
}
