//! MCP tool annotations, read the cautious way.
//!
//! **What it does:** a tool call whose server declared `destructiveHint: true`, or did not
//! declare `readOnlyHint: true` (the spec's default is "may be destructive"), is AUTH. A tool
//! with no annotations at all is AUTH. When the entry point cannot see the definition (host
//! hooks only see the call) a read-style name (`get_*`, `list_*`, `search_*`, …) is taken as
//! read-only, anything else is AUTH (PASS in light; everything not declared read-only is AUTH
//! in paranoid) — except opening an issue or a pull request or commenting on one, which is
//! routine in light and balanced while the session has taken in nothing untrusted and read
//! no secret. A `readOnlyHint` never lowers what another rule raised: it only means this
//! rule adds nothing.
//! **Why:** annotations come from the server and may lie; their absence must not read as safe.
//! **Example:** `mcp__github__delete_repository` (no annotations visible) → `mcp_unannotated`.

use crate::action::{AnnotationInfo, Operation};
use crate::policy::Mode;
use crate::verdict::{Finding, Reason, Verdict};

use super::Ctx;

pub const MCP_DESTRUCTIVE: Reason = Reason::new(
    "mcp_destructive",
    "The MCP tool says it may make irreversible changes.",
);
pub const MCP_UNANNOTATED: Reason = Reason::new(
    "mcp_unannotated",
    "The MCP tool does not declare itself read-only, so it may change things.",
);

const READ_VERBS: &[&str] = &[
    "get",
    "list",
    "read",
    "search",
    "find",
    "fetch",
    "describe",
    "show",
    "view",
    "lookup",
    "count",
    "check",
    "status",
    "resolve",
    "inspect",
    "browse",
    "retrieve",
    "explain",
    "query",
    "stat",
    "info",
    "diff",
    "compare",
    "validate",
    "preview",
    "summarize",
    "analyze",
    "whoami",
    "directory",
    "tree",
    "sequentialthinking",
    "think",
    "echo",
    "ping",
    "recent",
    "browser",
    "navigate",
    "snapshot",
    "screenshot",
];

/// The first word of a tool name (`get_issue`, `getIssue`, `get-library-docs` → `get`).
pub fn verb(tool: &str) -> String {
    let mut out = String::new();
    for (i, c) in tool.chars().enumerate() {
        if c == '_' || c == '-' || c == '.' || (i > 0 && c.is_ascii_uppercase()) {
            break;
        }
        out.push(c.to_ascii_lowercase());
    }
    out
}

/// Words that make a tool name a change, wherever they stand in it.
const WRITE_WORDS: &[&str] = &[
    "create",
    "delete",
    "update",
    "post",
    "send",
    "put",
    "patch",
    "remove",
    "drop",
    "exec",
    "execute",
    "run",
    "apply",
    "write",
    "set",
    "add",
    "install",
    "deploy",
    "scale",
    "restart",
    "kill",
    "stop",
    "start",
    "cancel",
    "merge",
    "push",
    "upload",
    "transfer",
    "pay",
    "invite",
    "grant",
    "revoke",
    "rollback",
    "truncate",
    "purge",
    "destroy",
    "terminate",
    "move",
    "rename",
    "edit",
    "modify",
    "insert",
    "publish",
    "approve",
    "reject",
    "assign",
    "close",
    "archive",
    "disable",
    "enable",
    "reset",
    "evict",
    "drain",
    "cordon",
    "attach",
    "detach",
];

/// Does a tool name read, when no definition is visible? Its first word is a read verb
/// (`get_issue`), after the server's own prefix (`jira_get_issue` on `jira`,
/// `puppeteer_navigate` on `puppeteer`); or its first word is a noun and its second a read
/// verb with no word of change anywhere (`pods_list_in_namespace`).
fn reads(server: &str, tool: &str) -> bool {
    let server = server.to_ascii_lowercase();
    let all = words(tool);
    let mut w: &[String] = &all;
    while let Some((first, rest)) = w.split_first() {
        let prefix =
            *first == server || server.split(['-', '_', '.']).any(|p| p == first) || first == "api";
        if !prefix || rest.is_empty() {
            break;
        }
        w = rest;
    }
    let is_read = |x: &String| READ_VERBS.contains(&x.as_str());
    let is_write = |x: &String| WRITE_WORDS.contains(&x.as_str());
    match w {
        [first, ..] if is_read(first) => true,
        [first, second, ..] => !is_write(first) && is_read(second) && !w.iter().any(is_write),
        _ => false,
    }
}

/// Words of a tool name (`create_pull_request`, `addIssueComment` → `create pull request`).
fn words(tool: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut cur = String::new();
    for (i, c) in tool.chars().enumerate() {
        if c == '_' || c == '-' || c == '.' || (i > 0 && c.is_ascii_uppercase()) {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            if c.is_ascii_uppercase() {
                cur.push(c.to_ascii_lowercase());
            }
            continue;
        }
        cur.push(c.to_ascii_lowercase());
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// An additive, visible, reversible step in a project's tracker or code review: opening an
/// issue or a pull request, commenting, replying to a review. Nothing that deletes, merges,
/// sends mail or messages, shares, invites, or touches secrets, files, releases or access.
fn collaborative(tool: &str) -> bool {
    let w = words(tool);
    let has = |xs: &[&str]| w.iter().any(|t| xs.contains(&t.as_str()));
    has(&[
        "create",
        "add",
        "reply",
        "comment",
        "update",
        "move",
        "transition",
        "label",
    ]) && has(&[
        "issue",
        "comment",
        "pull",
        "pr",
        "review",
        "discussion",
        "label",
        "labels",
    ]) && !has(&[
        "delete",
        "remove",
        "merge",
        "close",
        "lock",
        "transfer",
        "secret",
        "key",
        "token",
        "collaborator",
        "member",
        "invite",
        "permission",
        "webhook",
        "deploy",
        "release",
        "file",
        "files",
        "push",
        "fork",
        "repository",
        "repo",
        "email",
        "mail",
        "message",
        "send",
        "share",
        "user",
        "team",
        "workflow",
        "variable",
    ])
}

pub fn check(cx: &Ctx<'_>, out: &mut Vec<Finding>) {
    let Operation::McpCall {
        server,
        tool,
        annotations,
        ..
    } = &cx.action.op
    else {
        return;
    };
    let mode = cx.mode();
    match annotations {
        AnnotationInfo::Declared(a) => {
            if a.destructive_hint == Some(true) {
                out.push(Finding::new(MCP_DESTRUCTIVE, Verdict::Auth));
            } else if a.read_only_hint != Some(true) {
                out.push(Finding::new(
                    MCP_UNANNOTATED,
                    mode.pick([Verdict::Pass, Verdict::Auth, Verdict::Auth, Verdict::Auth]),
                ));
            }
        }
        AnnotationInfo::Absent => out.push(Finding::new(MCP_UNANNOTATED, Verdict::Auth)),
        AnnotationInfo::Unknown => {
            // Servers that only act on this machine: their paths, SQL and commands are judged
            // by the other rules like any local tool call.
            let local =
                crate::effects::LOCAL_SERVERS.contains(&server.to_ascii_lowercase().as_str());
            let read_like = local || reads(server, tool);
            // Opening an issue or a pull request, or commenting, in a session that has taken
            // in nothing untrusted and read no secret: routine in balanced.
            let clean = !cx.untrusted() && !cx.session.secret_read;
            let routine = collaborative(tool) && clean && mode <= Mode::Balanced;
            if (!read_like && !routine) || mode == Mode::Paranoid {
                out.push(Finding::new(
                    MCP_UNANNOTATED,
                    mode.pick([Verdict::Pass, Verdict::Auth, Verdict::Auth, Verdict::Auth]),
                ));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::verb;
    use crate::action::{Action, AnnotationInfo, Host, Operation, Provenance, ToolAnnotations};
    use crate::policy::Mode;
    use crate::rules::testutil::engine;
    use crate::{SessionState, Verdict::*};

    #[test]
    fn collaboration_steps_in_a_clean_session() {
        use super::collaborative;
        for t in [
            "create_pull_request",
            "add_issue_comment",
            "create_issue",
            "createPullRequestReview",
            "create_comment",
            "reply_to_review_comment",
            "update_issue",
            "add_labels",
        ] {
            assert!(collaborative(t), "{t}");
        }
        for t in [
            "merge_pull_request",
            "delete_issue_comment",
            "send_email",
            "post_message",
            "create_repository",
            "add_collaborator",
            "create_or_update_file",
            "push_files",
            "create_release",
            "invite_user",
            "add_secret",
        ] {
            assert!(!collaborative(t), "{t}");
        }
    }

    fn call(tool: &str, args: serde_json::Value, ann: AnnotationInfo) -> Action {
        Action {
            host: Host::McpProxy,
            tool: tool.into(),
            op: Operation::McpCall {
                server: "s".into(),
                tool: tool.into(),
                arguments: args,
                annotations: ann,
            },
            cwd: Some("/home/dev/project".into()),
            provenance: Provenance::User,
            session_id: None,
        }
    }

    #[test]
    fn reads_after_the_servers_own_prefix() {
        use super::reads;
        for (server, tool) in [
            ("jira", "jira_get_issue"),
            ("puppeteer", "puppeteer_navigate"),
            ("puppeteer", "puppeteer_screenshot"),
            ("kubernetes", "pods_list_in_namespace"),
            ("github", "get_issue"),
            ("mcp-server-kubernetes", "kubernetes_list_pods"),
        ] {
            assert!(reads(server, tool), "{server} {tool}");
        }
        for (server, tool) in [
            ("slack", "slack_post_message"),
            ("kubernetes", "pods_delete"),
            ("kubernetes", "pods_exec_in_namespace"),
            ("jira", "jira_create_issue"),
            ("github", "delete_repository"),
            ("notion", "API-post-search"),
            ("db", "users_list_then_delete"),
            ("jira", "jira"),
        ] {
            assert!(!reads(server, tool), "{server} {tool}");
        }
    }

    #[test]
    fn verbs() {
        assert_eq!(verb("get_issue"), "get");
        assert_eq!(verb("getIssue"), "get");
        assert_eq!(verb("get-library-docs"), "get");
        assert_eq!(verb("delete_repository"), "delete");
    }

    #[test]
    fn annotation_table() {
        let ro = AnnotationInfo::Declared(ToolAnnotations {
            read_only_hint: Some(true),
            ..Default::default()
        });
        let destructive = AnnotationInfo::Declared(ToolAnnotations {
            destructive_hint: Some(true),
            ..Default::default()
        });
        let e = engine(Mode::Balanced);
        let s = SessionState::default();

        let cases = [
            (
                call(
                    "read_file",
                    serde_json::json!({"path": "/home/dev/project/README.md"}),
                    ro.clone(),
                ),
                Pass,
            ),
            (
                call(
                    "write_file",
                    serde_json::json!({"path": "/home/dev/project/x.md", "content": "hi"}),
                    destructive.clone(),
                ),
                Auth,
            ),
            (
                call("anything", serde_json::json!({}), AnnotationInfo::Absent),
                Auth,
            ),
            (
                call(
                    "get_issue",
                    serde_json::json!({"number": 3}),
                    AnnotationInfo::Unknown,
                ),
                Pass,
            ),
            (
                call(
                    "delete_repository",
                    serde_json::json!({"repo": "x"}),
                    AnnotationInfo::Unknown,
                ),
                Auth,
            ),
            // readOnlyHint never lowers another rule's verdict.
            (
                call(
                    "read_file",
                    serde_json::json!({"path": "/home/dev/.aws/credentials"}),
                    ro.clone(),
                ),
                Auth,
            ),
            (
                call(
                    "read_file",
                    serde_json::json!({"path": "/home/dev/.claude/settings.json", "content": "{}"}),
                    ro,
                ),
                Pass,
            ),
            (
                call(
                    "run",
                    serde_json::json!({"sql": "DROP DATABASE prod"}),
                    AnnotationInfo::Unknown,
                ),
                Block,
            ),
        ];
        for (a, want) in cases {
            assert_eq!(e.decide(&a, &s).verdict, want, "{a:?}");
        }
    }
}
