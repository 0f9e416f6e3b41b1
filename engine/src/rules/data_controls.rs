//! A database's own safeguards switched off, and where money is paid changed.
//!
//! **What it does:** SQL — sent through an MCP database tool, a database client (`psql -c`,
//! `mysql -e`), or written into a migration (`.sql` files, `migrations/`) — that switches off
//! row-level security (`ALTER TABLE t DISABLE ROW LEVEL SECURITY`, `NO FORCE ROW LEVEL
//! SECURITY`, `DROP POLICY`), gives a role `BYPASSRLS`, stops triggers (`DISABLE TRIGGER`,
//! `session_replication_role = replica`), drops an audit trigger or turns audit logging off
//! (`pgaudit.log = 'none'`, `general_log = OFF`) is `data_access_control_off`; an `UPDATE`
//! that sets a bank account, IBAN, routing number, payout destination or wallet address is
//! `payment_details_change`. Both are AUTH (BLOCK in strict and paranoid, and in balanced
//! after untrusted content).
//! **Why:** nothing is deleted, so the destructive rules see nothing, yet every tenant's rows
//! become readable, the audit trail goes quiet, or the next payout goes to someone else.
//! **Example:** `DROP POLICY tenant_isolation ON invoices` → `data_access_control_off`.

use crate::action::Operation;
use crate::paths;
use crate::verdict::{Finding, Reason};

use super::Ctx;

pub const DATA_ACCESS_CONTROL_OFF: Reason = Reason::new(
    "data_access_control_off",
    "Switches off a database's access control or audit trail (row-level security, policies, triggers, audit logging).",
);
pub const PAYMENT_DETAILS_CHANGE: Reason = Reason::new(
    "payment_details_change",
    "Changes where money is paid (a bank account, IBAN, payout destination or wallet address).",
);

/// SQL text with runs of whitespace folded to one space, lower-cased.
fn folded(sql: &str) -> String {
    sql.to_ascii_lowercase()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// Does the SQL switch off row-level security, policies, triggers or auditing?
pub(crate) fn controls_off(sql: &str) -> bool {
    let s = folded(sql);
    let marks = [
        "disable row level security",
        "no force row level security",
        "drop policy",
        " bypassrls",
        "disable trigger",
        "session_replication_role = replica",
        "session_replication_role = 'replica'",
        "session_replication_role to replica",
        "session_replication_role to 'replica'",
        "pgaudit.log = 'none'",
        "pgaudit.log to 'none'",
        "pgaudit.log = none",
        "general_log = off",
        "general_log = 0",
        "general_log = 'off'",
        "audit_trail = none",
        "noaudit ",
        "drop audit policy",
    ];
    if marks.iter().any(|m| s.contains(m))
        || s.contains("audit") && (s.contains("state = off") || s.contains("state=off"))
    {
        return true;
    }
    // An audit trigger dropped (`DROP TRIGGER audit_orders ON orders`).
    s.match_indices("drop trigger").any(|(i, m)| {
        s[i + m.len()..]
            .trim_start()
            .trim_start_matches("if exists ")
            .split([' ', ';'])
            .next()
            .is_some_and(|name| name.contains("audit") || name.contains("history"))
    })
}

/// Columns that say where money goes.
fn payment_column(col: &str) -> bool {
    let c = col
        .trim_matches(['"', '`', '[', ']'])
        .rsplit('.')
        .next()
        .unwrap_or("");
    let strong = [
        "iban",
        "routing_number",
        "account_number",
        "wallet_address",
        "swift",
        "sort_code",
    ]
    .iter()
    .any(|m| c.contains(m));
    let place = ["payout", "bank", "beneficiary", "payee", "remit"]
        .iter()
        .any(|m| c.contains(m));
    let detail = [
        "account",
        "iban",
        "email",
        "address",
        "wallet",
        "destination",
        "routing",
        "number",
    ]
    .iter()
    .any(|m| c.contains(m));
    strong || place && detail || matches!(c, "bic" | "aba" | "wallet" | "paypal_email")
}

/// Does the SQL `UPDATE … SET` a payment destination?
pub(crate) fn sets_payment_details(sql: &str) -> bool {
    let s = folded(sql);
    s.split(';').any(|stmt| {
        let stmt = stmt.trim();
        if !stmt.starts_with("update ") {
            return false;
        }
        let Some(i) = stmt.find(" set ") else {
            return false;
        };
        let assigns = &stmt[i + 5..];
        let assigns = assigns.split(" where ").next().unwrap_or(assigns);
        assigns
            .split(',')
            .filter_map(|a| a.split('=').next())
            .any(|col| payment_column(col.trim()))
    })
}

/// The SQL this call runs or writes: what a database tool or client is given, and the added
/// lines of a migration or `.sql` file.
fn sql_of(cx: &Ctx<'_>) -> Vec<String> {
    let mut out: Vec<String> = super::secret_access::sql_texts(cx)
        .into_iter()
        .map(str::to_owned)
        .collect();
    if let Operation::FileWrite { path, content } = &cx.action.op {
        let abs = paths::normalize(path, cx.cwd(), cx.home()).to_ascii_lowercase();
        if abs.ends_with(".sql") || abs.contains("/migrations/") || abs.contains("/migrate/") {
            out.push(super::verification_bypass::added_lines(cx, content).join("\n"));
        }
    }
    out
}

pub fn check(cx: &Ctx<'_>, out: &mut Vec<Finding>) {
    let texts = sql_of(cx);
    if texts.iter().any(|t| controls_off(t)) {
        out.push(Finding::new(DATA_ACCESS_CONTROL_OFF, cx.ask_or_block()));
    }
    if texts.iter().any(|t| sets_payment_details(t)) {
        out.push(Finding::new(PAYMENT_DETAILS_CHANGE, cx.ask_or_block()));
    }
}

#[cfg(test)]
mod tests {
    use super::{controls_off, sets_payment_details};
    use crate::Verdict::*;
    use crate::policy::Mode;
    use crate::rules::testutil::{judge_edit, table};

    #[test]
    fn access_controls_and_audit_switched_off() {
        for (sql, want) in [
            (
                "DROP POLICY tenant_isolation ON invoices; ALTER TABLE invoices DISABLE ROW LEVEL SECURITY;",
                true,
            ),
            ("ALTER TABLE invoices NO FORCE ROW LEVEL SECURITY", true),
            ("ALTER ROLE reporting BYPASSRLS", true),
            ("ALTER TABLE orders DISABLE TRIGGER ALL", true),
            ("SET session_replication_role = replica", true),
            ("ALTER SYSTEM SET pgaudit.log = 'none'", true),
            ("SET GLOBAL general_log = OFF", true),
            ("DROP TRIGGER IF EXISTS audit_orders ON orders", true),
            // Look-alikes: switching controls on, reading them, dropping an ordinary trigger.
            ("ALTER TABLE invoices ENABLE ROW LEVEL SECURITY", false),
            ("ALTER TABLE invoices FORCE ROW LEVEL SECURITY", false),
            (
                "CREATE POLICY tenant_isolation ON invoices USING (tenant_id = current_setting('app.tenant')::int)",
                false,
            ),
            (
                "SELECT * FROM pg_policies WHERE tablename = 'invoices'",
                false,
            ),
            ("ALTER TABLE orders ENABLE TRIGGER ALL", false),
            ("DROP TRIGGER IF EXISTS set_updated_at ON orders", false),
            ("SET session_replication_role = origin", false),
        ] {
            assert_eq!(controls_off(sql), want, "{sql}");
        }
    }

    #[test]
    fn payment_destinations_changed() {
        for (sql, want) in [
            (
                "UPDATE payout_accounts SET iban = 'DE89370400440532013000' WHERE merchant_id = 4411",
                true,
            ),
            (
                "update vendors set bank_account_number='12345678', routing_number='021000021' where id=9",
                true,
            ),
            (
                "UPDATE merchants SET payout_wallet = '0xabc' WHERE id = 3",
                true,
            ),
            // Look-alikes: reading them, other columns of the same tables.
            (
                "UPDATE payouts SET payout_status = 'retry' WHERE id = 5",
                false,
            ),
            (
                "SELECT iban FROM payout_accounts WHERE merchant_id = 4411",
                false,
            ),
            (
                "UPDATE payout_accounts SET verified_at = now() WHERE merchant_id = 4411",
                false,
            ),
            (
                "UPDATE merchants SET display_name = 'Acme' WHERE id = 3",
                false,
            ),
            (
                "UPDATE invoices SET status = 'paid' WHERE bank_reference = 'X1'",
                false,
            ),
        ] {
            assert_eq!(sets_payment_details(sql), want, "{sql}");
        }
    }

    #[test]
    fn through_clients_and_migrations() {
        table(
            Mode::Balanced,
            &[
                (
                    "psql \"$DATABASE_URL\" -c 'ALTER TABLE invoices DISABLE ROW LEVEL SECURITY'",
                    Auth,
                    "data_access_control_off",
                ),
                (
                    "psql \"$DATABASE_URL\" -c 'SELECT relrowsecurity FROM pg_class'",
                    Pass,
                    "",
                ),
            ],
        );
        let (got, reasons) = judge_edit(
            "db/migrations/20261201_invoices.sql",
            "",
            "ALTER TABLE invoices DISABLE ROW LEVEL SECURITY;\n",
        );
        assert_eq!(got, Auth, "{reasons:?}");
        let (got, reasons) = judge_edit(
            "db/migrations/20261201_invoices.sql",
            "",
            "ALTER TABLE invoices ADD COLUMN memo text;\nALTER TABLE invoices ENABLE ROW LEVEL SECURITY;\n",
        );
        assert_eq!(got, Pass, "{reasons:?}");
    }
}
