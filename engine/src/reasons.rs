//! Every reason the engine can give, by its stable code: what the dashboard, notifications
//! and `airlock log` show in words for a code stored in the audit log (which keeps codes,
//! never payloads). A test reads this crate's sources and fails when a reason is missing.

use crate::verdict::Reason;

/// Every reason of the built-in rules, the user's policy rules and the engine itself.
pub const ALL: &[&[Reason]] = &[RULES, crate::injection::REASONS];

const RULES: &[Reason] = &[
    crate::user_rules::POLICY_RULE_ASK,
    crate::user_rules::POLICY_RULE_NEVER,
    crate::user_rules::PROJECT_POLICY_INVALID,
    crate::rules::weakened_code::WEAKENS_SECURITY,
    crate::rules::check_made_optional::CHECK_MADE_OPTIONAL,
    crate::rules::planted_run::RUNS_PLANTED_CODE,
    crate::rules::planted_run::WIRES_PLANTED_FILE,
    crate::rules::spliced_names::SPLICED_NAME,
    crate::rules::cleanup_redirected::CLEANUP_REDIRECTED,
    crate::rules::code_backdoor::CODE_BACKDOOR,
    crate::rules::code_backdoor::HARDCODED_CREDENTIAL,
    crate::rules::code_backdoor::LOGIN_WITHOUT_CHECK,
    crate::rules::code_exfiltration::CODE_EXFILTRATION,
    crate::rules::code_exfiltration::SECRET_LOGGED,
    crate::rules::manifest_dependencies::TYPOSQUAT_DEPENDENCY,
    crate::rules::secrets_unshielded::SECRETS_UNSHIELDED,
    crate::rules::secrets_unshielded::SECRET_IN_CONFIG,
    crate::rules::code_exfiltration::SECRET_TO_CLIENT,
    crate::rules::code_exfiltration::LOGS_SENT_OUT,
    crate::rules::manifest_dependencies::DEPENDENCY_DOWNGRADED,
    crate::rules::manifest_dependencies::DEPENDENCY_SOURCE,
    crate::rules::lockfile_edited::LOCKFILE_HAND_EDITED,
    crate::rules::planted_command::PLANTED_COMMAND,
    crate::rules::armed_config::ARMED_CONFIG,
    crate::rules::destructive_code::DESTROYS_DATA,
    crate::rules::planted_instructions::REMOTE_INSTRUCTIONS,
    crate::rules::planted_instructions::SECRET_EXFIL_GUIDANCE,
    crate::rules::planted_instructions::SECRET_SHARING_GUIDANCE,
    crate::rules::env_poisoning::PROGRAM_SHADOWED,
    crate::rules::lookalike_source::LOOKALIKE_SOURCE,
    crate::rules::destructive::DESTRUCTIVE_RM,
    crate::rules::destructive::KEY_OVERWRITTEN,
    crate::rules::destructive::DESTRUCTIVE_FIND,
    crate::rules::destructive::RM_DYNAMIC_TARGET,
    crate::rules::destructive::DELETE_OUTSIDE_PROJECT,
    crate::rules::destructive::DISK_OVERWRITE,
    crate::rules::destructive::DISK_FORMAT,
    crate::rules::destructive::FORK_BOMB,
    crate::rules::destructive::RECURSIVE_PERMISSIONS,
    crate::rules::destructive::SECURE_DELETE,
    crate::rules::destructive::SYSTEM_FILE_DELETE,
    crate::rules::git_destructive::FORCE_PUSH,
    crate::rules::git_destructive::HISTORY_LOSS,
    crate::rules::git_destructive::REMOTE_DELETE,
    crate::rules::service_destructive::SERVICE_DESTROY,
    crate::rules::service_destructive::SERVICE_DESTROY_ALL,
    crate::rules::service_destructive::REMOTE_HTTP_DELETE,
    crate::rules::service_destructive::SERVICE_TAKEDOWN,
    crate::rules::service_destructive::MONITORING_SILENCED,
    crate::rules::shell_issues::UNPARSEABLE_COMMAND,
    crate::rules::shell_issues::OVERSIZED_INPUT,
    crate::rules::shell_issues::DYNAMIC_COMMAND,
    crate::rules::shell_issues::DYNAMIC_EVAL,
    crate::rules::shell_issues::OBFUSCATED_EXEC,
    crate::rules::shell_issues::PIPE_TO_SHELL,
    crate::rules::shell_issues::OPAQUE_INLINE_CODE,
    crate::rules::shell_issues::UNSEEN_EXECUTED_FILE,
    crate::rules::shell_issues::INTERACTIVE_SHELL,
    crate::rules::infra_destructive::INFRA_DESTROY,
    crate::rules::infra_destructive::DATABASE_DROP,
    crate::rules::infra_destructive::DATA_DELETE,
    crate::rules::infra_destructive::SQL_HOST_ACCESS,
    crate::rules::turn_gate::TURN_STYLE_OUTLIER,
    crate::rules::turn_gate::TURN_REPEAT,
    crate::rules::turn_gate::TURN_REPEAT_LOCKOUT,
    crate::rules::turn_gate::FLAGGED_TURN_FOLLOWUP,
    crate::rules::self_protection::TAMPER,
    crate::rules::points_at_production::POINTS_AT_PRODUCTION,
    crate::rules::fetched_code::FETCHED_CODE_RUN,
    crate::rules::endpoint_moved::ENDPOINT_MOVED,
    crate::rules::self_protection::GUARD_SECRETS_READ,
    crate::rules::self_protection::GUARD_FILES_OVERLAID,
    crate::rules::self_protection::MCP_SERVER_UNGUARDED,
    crate::rules::self_protection::PROJECT_HOOKS,
    crate::rules::self_protection::AGENT_HOOKS_REMOVED,
    crate::rules::self_protection::AGENT_SETTINGS_CHANGED,
    crate::rules::unguarded_agent::AGENT_VERSION_PINNED,
    crate::rules::unguarded_agent::AGENT_SAFETY_OFF,
    crate::rules::unguarded_agent::AGENT_REMOTE_PROMPT,
    crate::rules::unguarded_agent::AGENT_ENDPOINT_REDIRECTED,
    crate::rules::verification_bypass::CHECK_DISABLED,
    crate::rules::secret_access::SECRET_SWEEP,
    crate::rules::secret_access::SECRET_LINKED,
    crate::rules::supply_chain::REMOTE_CODE_ADDED,
    crate::rules::evasion::SECURITY_OFF,
    crate::rules::supply_chain::UNSAFE_DESERIALIZE,
    crate::rules::planted_instructions::GUARD_EVASION_GUIDANCE,
    crate::rules::destination::EXFIL_DESTINATION,
    crate::rules::destination::CREDENTIALS_IN_URL,
    crate::rules::destination::RAW_IP,
    crate::rules::destination::UPLOAD_UNKNOWN,
    crate::rules::destination::UNKNOWN_DESTINATION,
    crate::rules::destination::DNS_EXFIL,
    crate::rules::mcp_recipients::UNLISTED_RECIPIENT_TAINTED,
    crate::rules::mcp_recipients::UNLISTED_RECIPIENT,
    crate::rules::session_floor::LETHAL_TRIFECTA,
    crate::rules::session_floor::EGRESS_AFTER_SECRET,
    crate::rules::session_floor::EGRESS_AFTER_UNTRUSTED,
    crate::rules::session_floor::PUBLISH_AFTER_SECRET,
    crate::rules::supply_chain::CURL_PIPE_SHELL,
    crate::rules::supply_chain::TYPOSQUAT,
    crate::rules::supply_chain::UNKNOWN_PACKAGE,
    crate::rules::supply_chain::UNTRUSTED_SOURCE,
    crate::rules::known_bad_release::KNOWN_MALICIOUS,
    crate::rules::exfiltration::EXFILTRATION,
    crate::rules::exfiltration::REVERSE_SHELL,
    crate::rules::exfiltration::RAW_SOCKET,
    crate::rules::synthetic_input::SYNTHETIC_INPUT,
    crate::rules::synthetic_input::TERMINAL_ANSWER,
    crate::rules::self_protection::PROJECT_POLICY_LOOSENED,
    crate::rules::env_poisoning::PRELOAD,
    crate::rules::env_poisoning::PATH_HIJACK,
    crate::rules::env_poisoning::SHELL_RC,
    crate::rules::env_poisoning::PERSISTENCE,
    crate::rules::env_poisoning::GIT_HOOK,
    crate::rules::env_poisoning::SYSTEM_WRITE,
    crate::rules::env_poisoning::PRIVILEGE_FILE,
    crate::rules::env_poisoning::SETUID_GRANT,
    crate::rules::secret_echo::SECRET_EXFILTRATION,
    crate::rules::exfiltration::UNSEEN_FILES_SENT,
    crate::rules::secret_echo::SECRET_TO_REMOTE_STORE,
    crate::rules::secret_echo::PROJECT_ROOT_PUBLISHED,
    crate::rules::hidden_text::HIDDEN_TEXT,
    crate::rules::planted_instructions::PLANTED_INSTRUCTIONS,
    crate::rules::ci_secrets::CI_SECRET_EXPOSURE,
    crate::rules::secret_var_egress::SECRET_VAR_EGRESS,
    crate::rules::hidden_text::HIDDEN_TAG_TEXT,
    crate::rules::hidden_text::HOMOGLYPH_DOMAIN,
    crate::rules::hidden_text::HOMOGLYPH_NAME,
    crate::rules::hidden_text::ENCODED_PAYLOAD,
    crate::rules::bad_input::UNPARSEABLE_INPUT,
    crate::rules::bad_input::UNKNOWN_TOOL,
    crate::rules::serve_folder::SERVE_SECRETS,
    crate::rules::serve_folder::SERVE_FOLDER,
    crate::rules::archive_escape::ARCHIVE_PATHS_TRUSTED,
    crate::rules::container_escape::CONTAINER_HOST_ROOT,
    crate::rules::container_escape::CONTAINER_HOST_ACCESS,
    crate::rules::cloud_privilege::CLOUD_PRIVILEGE,
    crate::rules::secret_in_args::SECRET_IN_EGRESS,
    crate::rules::secret_in_args::SECRET_IN_ARGS,
    crate::rules::bulk_delete::BULK_DELETE,
    crate::rules::verification_bypass::VERIFICATION_BYPASS,
    crate::rules::behaviour::BEHAVIOUR_ANOMALY,
    crate::rules::mcp_annotations::MCP_DESTRUCTIVE,
    crate::rules::mcp_annotations::MCP_UNANNOTATED,
    crate::rules::secret_access::SECRET_READ_DOTENV,
    crate::rules::secret_access::SECRET_READ_KEY,
    crate::rules::secret_access::SECRET_READ_CREDENTIALS,
    crate::rules::secret_access::SECRET_READ_SYSTEM,
    crate::rules::secret_access::ENV_PUBLISHED,
    crate::rules::secret_access::ENV_DUMP,
    crate::rules::secret_access::KEYCHAIN_ACCESS,
    crate::rules::evasion::HISTORY_TAMPERING,
    crate::rules::evasion::ACCOUNT_CHANGE,
    crate::rules::evasion::LOGS_CLEARED,
    crate::rules::data_controls::DATA_ACCESS_CONTROL_OFF,
    crate::rules::data_controls::PAYMENT_DETAILS_CHANGE,
    crate::rules::production_change::PRODUCTION_CHANGE,
    crate::rules::production_change::PRODUCTION_WRITE,
    crate::rules::security_setting_off::SECURITY_SETTING_OFF,
    crate::rules::personal_data::PERSONAL_DATA_SENT,
    crate::rules::evasion::TRAFFIC_PROXIED,
    crate::rules::data_protection::CLOUD_PROTECTION_OFF,
    crate::rules::data_protection::PORT_EXPOSED,
    crate::rules::data_protection::REMOTE_LOGIN_OPENED,
    crate::rules::data_protection::USER_KEYS_DELETED,
    crate::rules::evasion::TLS_CHECKS_OFF,
    crate::rules::evasion::ROOT_CA_TRUSTED,
    crate::rules::system_disruption::KILL_EVERYTHING,
    crate::rules::system_disruption::SERVICE_STOPPED,
    crate::rules::system_disruption::SYSTEM_PACKAGE_REMOVED,
    crate::rules::system_disruption::DISK_FILL,
    crate::INTERNAL_ERROR,
    crate::REPEAT_AFTER_BLOCK,
];

/// The plain-words explanation of a reason code, or `None` for a code the engine does not
/// give (codes of the service, the proxy or a custom rule).
pub fn describe(code: &str) -> Option<&'static str> {
    ALL.iter()
        .flat_map(|list| list.iter())
        .find(|r| r.code == code)
        .map(|r| r.message)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]
    use super::*;
    use std::collections::BTreeSet;
    use std::path::Path;

    /// Every `Reason::new("code", …)` written in the engine's sources.
    fn codes_in_sources(dir: &Path, out: &mut BTreeSet<String>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                codes_in_sources(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs")
                && !path.ends_with("proptests.rs")
                && !path.ends_with("verdict.rs")
                && !path.ends_with("reasons.rs")
            {
                let text = std::fs::read_to_string(&path).unwrap();
                for (i, _) in text.match_indices("Reason::new(") {
                    let rest = text[i + "Reason::new(".len()..].trim_start();
                    if let Some(rest) = rest.strip_prefix('"') {
                        let code = &rest[..rest.find('"').unwrap()];
                        out.insert(code.to_owned());
                    }
                }
            }
        }
    }

    #[test]
    fn every_reason_in_the_sources_is_in_the_catalogue() {
        let mut written = BTreeSet::new();
        codes_in_sources(
            &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
            &mut written,
        );
        assert!(
            written.len() > 80,
            "the scan found too few reasons: {}",
            written.len()
        );
        let missing: Vec<_> = written.iter().filter(|c| describe(c).is_none()).collect();
        assert!(
            missing.is_empty(),
            "reasons missing from reasons::ALL: {missing:?}"
        );
    }

    #[test]
    fn codes_are_unique_and_messages_are_sentences() {
        let mut seen = BTreeSet::new();
        for r in ALL.iter().flat_map(|l| l.iter()) {
            assert!(seen.insert(r.code), "duplicate code {}", r.code);
            assert!(
                r.code
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'),
                "{}",
                r.code
            );
            assert!(r.message.ends_with('.'), "{}: {}", r.code, r.message);
        }
    }

    #[test]
    fn describe_known_and_unknown() {
        assert_eq!(
            describe(crate::rules::destructive::DESTRUCTIVE_RM.code),
            Some(crate::rules::destructive::DESTRUCTIVE_RM.message)
        );
        assert_eq!(describe("approved_for_session"), None);
        assert_eq!(describe(""), None);
    }
}
