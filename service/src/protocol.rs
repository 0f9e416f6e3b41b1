//! The guard service's wire format: one JSON object per line over a local socket.
//!
//! A connection carries one exchange. For a hook: the client sends [`Request::Hook`]; the
//! service may ask once for the files the call executes or reads ([`Response::NeedFiles`],
//! answered by [`Request::Files`]), may send any number of [`Response::Waiting`] lines (a
//! human is being asked: the client extends its own deadline), then one [`Response::Hook`];
//! the client prints it and sends [`Request::Ack`]. A hook connection that closes before its `Ack` means the hook
//! process died before the host saw Airlock's answer: the service marks that session
//! bypassed.

use airlock_core::dials::Changed;
use airlock_core::factors::{FactorNeeds, Proof};
use serde::{Deserialize, Serialize};

/// Longest request line the service reads: a hook payload (8 MiB) escaped as a JSON string.
pub const MAX_REQUEST_LINE: usize = 20 * 1024 * 1024;
/// Longest answer line a client reads.
pub const MAX_RESPONSE_LINE: usize = 1024 * 1024;

/// What a client asks.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Request {
    /// Judge one hook event: `host` as named on the hook's command line, `payload` the exact
    /// stdin text the host gave the hook.
    Hook { host: String, payload: String },
    /// One MCP message from the proxy, which at the system level cannot reach the store (it
    /// runs as the user): a call or read before it is forwarded (`result: None`: judged,
    /// asked, recorded), or what it returned (`result: Some`: screened and remembered in the
    /// session). `raises` are the proxy's own findings (a changed tool definition, a rate
    /// limit): they only ever raise the verdict. The host, provenance and session id are the
    /// service's to set (see `server`). The exchange is [`Response::NeedFiles`] /
    /// [`Response::Waiting`] as for a hook, then one [`Response::Mcp`]; no `Ack` (nothing
    /// runs unless the proxy forwards it).
    Mcp {
        action: Box<airlock_engine::Action>,
        #[serde(default)]
        result: Option<String>,
        #[serde(default)]
        raises: Vec<airlock_engine::ReasonReport>,
    },
    /// The hook printed the answer (last line of a hook exchange).
    Ack,
    /// The files the service asked for ([`Response::NeedFiles`]), as the hook's user sees
    /// them (content bounded, unreadable, too large, missing; links resolved).
    Files { facts: airlock_engine::CallFacts },
    /// The level, dials and any tampering seen, for this peer's user.
    Status,
    /// Move a dial (`mode`, `enforcement`); lowering needs `proof`, verified in the service.
    Dial {
        dial: String,
        to: String,
        proof: Option<Proof>,
    },
    /// The allow rules, with their identifiers.
    AllowList,
    /// Add an allow rule (a weakening: needs `proof`, verified in the service).
    AllowAdd {
        rule: airlock_core::settings::AllowRule,
        proof: Option<Proof>,
    },
    /// Remove the allow rule an identifier from [`Response::AllowRules`] names (a tightening:
    /// no factor). Ledgered as `allow_remove`.
    AllowRemove { id: String },
    /// Set the first password (system level: the user cannot write the store).
    SetPassword { password: String },
    /// Start TOTP enrolment (system level: the service keeps the secret, sealed under the
    /// password, since it has no keyring). Needs the password; refused while TOTP is enrolled.
    /// Answered by [`Response::TotpOffer`].
    TotpBegin { password: String },
    /// Finish TOTP enrolment with a code from the authenticator: only then does TOTP take
    /// effect. Ledgered either way.
    TotpFinish { password: String, code: String },
    /// Change the password: `proof` is the current one (and a TOTP code once enrolled). An
    /// encrypted TOTP secret is re-sealed under the new one. Ledgered either way.
    PasswordChange { proof: Proof, new: String },
    /// Remove TOTP (a weakening: needs `proof`, the password and a code). Ledgered.
    TotpRemove { proof: Option<Proof> },
    /// Release a session marked bypassed (a weakening: needs `proof`).
    Release {
        host: String,
        session_id: String,
        proof: Option<Proof>,
    },
    /// Compare a host transcript's tool calls with the audit log: which calls never reached
    /// Airlock (a hook that was not wired, was removed, or died). `calls` are the transcript's
    /// tool uses in order, as `{tool_name, tool_input}`.
    TranscriptAudit {
        host: String,
        session_id: String,
        cwd: Option<String>,
        calls: Vec<TranscriptCall>,
    },
    /// Ask the service to stop (only its own user or root may).
    Shutdown,
    /// This user's newest decisions from the audit log (the service owns the store), newest
    /// first; at most [`MAX_DECISIONS`].
    Decisions { query: DecisionQuery },
    /// This user's policy ledger and whether its hash chain is intact.
    Ledger,
    /// Become this user's approval agent (system level; see [`crate::agent`]): `proof` is the
    /// user's factor, verified in the service. On success the connection stays open for
    /// [`Response::AgentAsk`] / [`Request::AgentAnswer`].
    AgentRegister { proof: Option<Proof> },
    /// A registered agent's answer to the request `id` it was sent; approving a high-risk
    /// request needs `proof` again.
    AgentAnswer {
        id: u64,
        decision: AgentDecision,
        #[serde(default)]
        proof: Option<Proof>,
    },
}

/// Most decisions one [`Request::Decisions`] returns.
pub const MAX_DECISIONS: usize = 500;
/// Most ledger rows one [`Request::Ledger`] returns (the newest; the chain status covers all).
pub const MAX_LEDGER_ROWS: usize = 1000;

/// Which decisions [`Request::Decisions`] asks for (each field narrows; empty: any).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DecisionQuery {
    pub limit: usize,
    #[serde(default)]
    pub host: Option<String>,
    #[serde(default)]
    pub session_id: Option<String>,
    /// `PASS`, `AUTH` or `BLOCK`.
    #[serde(default)]
    pub verdict: Option<String>,
    #[serde(default)]
    pub outcome: Option<airlock_store::Outcome>,
}

/// An approval agent's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AgentDecision {
    Approved,
    ApprovedForSession,
    Denied,
}

/// One tool use as a host's transcript recorded it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct TranscriptCall {
    pub tool_name: String,
    pub tool_input: serde_json::Value,
}

/// What the service answers.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Response {
    /// A human is being asked; the final answer comes by `deadline_ms` (wall clock).
    Waiting {
        deadline_ms: i64,
    },
    /// The call executes or reads these files: the hook reads them (as the user the call runs
    /// as) and answers [`Request::Files`].
    NeedFiles {
        paths: Vec<String>,
    },
    /// Exactly what the hook prints and how it exits.
    Hook {
        stdout: String,
        stderr: String,
        exit_code: i32,
    },
    /// The `otpauth://` URI to add to an authenticator app (its QR code is drawn by the
    /// client: `airlock_core::factors::qr_png`).
    TotpOffer {
        uri: String,
    },
    /// The answer to [`Request::Mcp`].
    Mcp {
        outcome: McpOutcome,
    },
    Status(Status),
    Changed(Changed),
    /// The allow rules after the request, and the rule it added or removed (none when the
    /// request changed nothing).
    AllowRules {
        rules: Vec<airlock_core::settings::ListedAllowRule>,
        changed: Option<airlock_core::settings::ListedAllowRule>,
    },
    /// Indexes (into the request's `calls`) of the tool uses with no audit row, and how many
    /// were matched.
    Audit {
        matched: usize,
        missing: Vec<usize>,
    },
    Done,
    /// This user's decisions, newest first.
    Decisions {
        rows: Vec<airlock_store::DecisionRow>,
    },
    /// This user's ledger, oldest first (the newest [`MAX_LEDGER_ROWS`]), and the status of
    /// the whole chain.
    Ledger {
        rows: Vec<airlock_store::LedgerRow>,
        status: airlock_store::LedgerStatus,
    },
    /// This connection is now the user's approval agent.
    AgentRegistered,
    /// A request for the approval agent to put before its human; approvals are taken from
    /// `armed_ms` (ms since the epoch) on.
    AgentAsk {
        id: u64,
        request: airlock_broker::ApprovalRequest,
        armed_ms: i64,
    },
    /// Request `id` ended (`approved`, `denied`, `timeout`, `unavailable`): close its popup.
    AgentClosed {
        id: u64,
        outcome: String,
    },
    /// A stable code and a message that never echoes a payload.
    Error {
        code: String,
        message: String,
    },
}

/// What the proxy does with an MCP message ([`Request::Mcp`]).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
#[serde(tag = "do", rename_all = "snake_case")]
pub enum McpOutcome {
    /// Forward the call (it passed, or a human approved it in the popup); recorded.
    Forward,
    /// Do not forward it; `reason` is for the model (never the payload). Recorded.
    Deny { reason: String },
    /// A result, screened: `screen.action` says whether to pass it as is, flag it or
    /// withhold it.
    Screened {
        screen: airlock_engine::ResultScreen,
    },
}

/// The service's view for one user.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Status {
    pub level: airlock_core::Level,
    pub level_text: String,
    pub mode: String,
    pub enforcement: String,
    /// Every dial by its name (`mode`, `turn_gate`, `screening.web`, …) → value.
    #[serde(default)]
    pub dials: std::collections::BTreeMap<String, String>,
    pub factor: FactorNeeds,
    pub password_set: bool,
    /// Out-of-band changes seen (empty when none): while non-empty every call is denied.
    pub tampered: Option<String>,
    /// Sessions whose hook was killed before it answered, as `host/session`.
    pub bypassed: Vec<String>,
    pub version: String,
    pub pid: u32,
    /// The export destinations this service started (`[export]`): sent, dropped, failed.
    #[serde(default)]
    pub export: Vec<airlock_core::export::DestinationStats>,
}
