//! A code, migration or infrastructure edit that destroys data when it runs, or a write that
//! empties a credential or production file.
//!
//! **What it does:** a write that adds SQL dropping or truncating tables, schemas or
//! databases, or deleting every row (`DELETE FROM t` with no `WHERE`); an ORM call doing the
//! same (`drop_table`, `Schema::dropIfExists`, `.delete_all`, `objects.all().delete()`,
//! `deleteMany({})`, Redis `flushall`, not one cache's `flushdb`); a home folder removed from code
//! (`shutil.rmtree(Path.home())`); or infrastructure made deletable (`force_destroy = true`,
//! `deletion_protection = false`, `skip_final_snapshot = true`) is `destroys_data`: AUTH
//! (PASS in light; BLOCK from strict up once the session took in untrusted content). A
//! migration's `down`/`downgrade`/rollback step, code behind a development-environment check,
//! tests and fixtures (unless they name a production database) are not judged. Writing an
//! empty file over a credential or key file or a production configuration is
//! `destroys_data` too.
//! **Why:** a migration, a start-up hook or a test fixture runs later against real data;
//! "add an index" that also drops two tables is a one-line sabotage in a long diff.
//! **Example:** `migrations.RunSQL("DROP TABLE orders_order CASCADE")` → `destroys_data`.

use crate::code::{SourceWrite, is_production_config, is_test_or_dev};
use crate::verdict::{Finding, Reason};

use super::Ctx;

pub const DESTROYS_DATA: Reason = Reason::new(
    "destroys_data",
    "Adds code, a migration or a setting that deletes databases, tables or stored data.",
);

/// Compact idioms (see [`crate::code`]) that destroy data.
const DESTROYS: &[&str] = &[
    "drop table",
    "drop schema",
    "drop database",
    "truncate table",
    "drop_table",
    "drop_schema",
    "schema::dropifexists(",
    "schema::drop(",
    ".delete_all",
    ".destroy_all",
    "objects.all().delete()",
    "deletemany({})",
    // Every database of the server (a dedicated cache's `flushdb` is routine).
    "flushall(",
    "dropdatabase(",
    "rmtree(path.home()",
    "rmtree(os.path.expanduser(~)",
    "rmtree(os.environ[home]",
    "rmsync(os.homedir()",
    "rmdirsync(os.homedir()",
    "removeall(os.getenv(home)",
    "remove_dir_all(home",
    "force_destroy=true",
    "deletion_protection=false",
    "deletionprotection:false",
    "skip_final_snapshot=true",
    "prevent_destroy=false",
    // Schema tools told to drop and recreate at start-up, or to reset past data loss.
    "ddl-auto=create-drop",
    "ddl-auto:create-drop",
    "ddl-auto=create",
    "dropschema:true",
    "--force-reset",
    "--accept-data-loss",
    "migrate:fresh",
    "migrate:reset",
    // Storage released with its volume, logs and metrics kept for an hour.
    "persistentvolumereclaimpolicy:delete",
    "retention_period:1h",
    "retention_period:0",
    // Flyway allowed to wipe the schema (`clean`), or told to on any validation error.
    "clean-disabled:false",
    "cleandisabled=false",
    "clean-on-validation-error:true",
    "cleanonvalidationerror=true",
    // Liquibase changesets that drop tables or delete rows; an index lifecycle that
    // deletes at once.
    "<droptable",
    "<delete tablename=",
    "delete:{min_age:0",
    // EF Core's database deleted at start-up, a volume claim deleted with its StatefulSet.
    "ensuredeleted()",
    "whendeleted:delete",
];

/// A destructive statement behind one of these runs only on a developer's machine.
const DEV_GUARDS: &[&str] = &[
    "env.development?",
    "env.test?",
    "env.local?",
    "node_env===development",
    "node_env===test",
    "app_env==local",
    "is_development",
    "isdevelopment()",
    "rails.env.development?",
];

pub fn check(cx: &Ctx<'_>, out: &mut Vec<Finding>) {
    // A key or secrets file emptied is judged whatever kind of text it holds (a `.txt` of
    // unseal keys is not source code, but it is lost all the same).
    let hit = emptied(cx) || cx.source_write().is_some_and(destroys);
    if hit {
        out.push(Finding::new(DESTROYS_DATA, cx.code_edit_verdict()));
    }
}

/// A replacement of the write adds a statement that destroys data (outside tests, dev-only
/// code and rollbacks).
fn destroys(w: &SourceWrite) -> bool {
    let testish = is_test_or_dev(&w.path);
    w.hunks.iter().any(|h| {
        let n = &h.new;
        if testish && !n.contains("prod") {
            return false;
        }
        if DEV_GUARDS.iter().any(|g| n.contains(g)) {
            return false;
        }
        let idiom = DESTROYS.iter().any(|d| {
            n.match_indices(d)
                .any(|(i, _)| !h.old.contains(d) && !in_rollback(n, i))
        });
        idiom
            || (deletes_every_row(n) && !deletes_every_row(&h.old))
            || (updates_every_row(n) && !updates_every_row(&h.old))
            || delete_widened(h)
            || tautology_in_delete(h)
            || retention_cut(h)
            || backup_suspended(&w.path, h)
            || record_model_deleted(h)
    })
}

/// A Django model that keeps records (an audit log, history, a ledger, payments) deleted by
/// a migration: its table and every row go. Other models are refactored away routinely.
fn record_model_deleted(h: &crate::code::Hunk) -> bool {
    h.new
        .match_indices("migrations.deletemodel(")
        .any(|(i, m)| {
            let arg = crate::code::call_args(&h.new, i + m.len());
            [
                "audit",
                "log",
                "history",
                "ledger",
                "transaction",
                "payment",
                "backup",
                "event",
            ]
            .iter()
            .any(|w| arg.contains(w))
        })
        && !h.old.contains("migrations.deletemodel(")
}

/// `UPDATE t SET …` with no `WHERE`: every row overwritten.
fn updates_every_row(compact: &str) -> bool {
    compact.match_indices("update ").any(|(i, _)| {
        let rest = &compact[i + "update ".len()..];
        let end = rest.find(';').unwrap_or(rest.len());
        let stmt = &rest[..end];
        stmt.contains(" set ")
            && !stmt.contains("where")
            && !stmt.contains('%')
            && !stmt.contains('?')
            && !stmt.contains('$')
            && !stmt.contains('{')
    })
}

/// The conditions of each `DELETE FROM t WHERE …` of a compact text, by table.
fn delete_conditions(compact: &str) -> Vec<(&str, Vec<&str>)> {
    compact
        .match_indices("delete from ")
        .filter_map(|(i, m)| {
            let rest = &compact[i + m.len()..];
            let (table, rest) = rest.split_once(' ')?;
            let conds = rest.strip_prefix("where ")?;
            let end = conds.find([',', ')', ';', '`']).unwrap_or(conds.len());
            Some((table, conds[..end].split(" and ").collect()))
        })
        .take(16)
        .collect()
}

/// A `DELETE … WHERE` of the same table that keeps some of its conditions and loses others
/// (`WHERE archived = true AND updated_at < $1` → `WHERE updated_at < $1`): more rows go.
fn delete_widened(h: &crate::code::Hunk) -> bool {
    let old = delete_conditions(&h.old);
    delete_conditions(&h.new).iter().any(|(table, new)| {
        old.iter().any(|(t, old)| {
            t == table && new.len() < old.len() && new.iter().all(|c| old.contains(c))
        })
    })
}

/// A condition that holds for every row or-ed into a delete's filter (`| Q(pk__gt=0)`,
/// `OR 1=1`).
fn tautology_in_delete(h: &crate::code::Hunk) -> bool {
    const ALWAYS: &[&str] = &[
        "|q(pk__gt=0)",
        "|q(id__gt=0)",
        " or 1=1",
        " or true",
        "|q(pk__isnull=false)",
    ];
    let deletes = |t: &str| t.contains("delete") || t.contains("purge") || t.contains("remove");
    ALWAYS
        .iter()
        .any(|a| h.new.contains(a) && !h.old.contains(a))
        && (deletes(&h.new) || deletes(&h.old))
}

/// A backup job suspended (`suspend: true` on a backup CronJob).
fn backup_suspended(lower_path: &str, h: &crate::code::Hunk) -> bool {
    h.new.contains("suspend:true")
        && !h.old.contains("suspend:true")
        && (lower_path.contains("backup") || h.old.contains("backup") || h.new.contains("backup"))
}

/// A retention or expiry period cut from a month or more to a day or less
/// (`expiration { days = 365 }` → `days = 1`, `'delete_records_older_than_days' => 1`).
fn retention_cut(h: &crate::code::Hunk) -> bool {
    const KEYS: &[&str] = &[
        "days=",
        "days:",
        "days=>",
        "retention_days",
        "retention_in_days",
        "retentionindays",
        "retention_period",
        "older_than_days",
        "delete_after",
        "expire_after_days",
    ];
    fn values(text: &str, key: &str) -> Vec<u64> {
        text.match_indices(key)
            .filter_map(|(i, _)| {
                let rest = text[i + key.len()..].trim_start_matches(['=', ':', '>']);
                let n: String = rest.chars().take_while(char::is_ascii_digit).collect();
                n.parse().ok()
            })
            .collect()
    }
    // Durations with a unit, in hours (`--storage.tsdb.retention.time=30d` → `2h`, Velero's
    // `ttl: 720h0m0s` → `1h0m0s`): from a week or more to a day or less.
    fn hours(text: &str, key: &str) -> Vec<u64> {
        text.match_indices(key)
            .filter_map(|(i, _)| {
                let rest = text[i + key.len()..].trim_start_matches(['=', ':']);
                let n: String = rest.chars().take_while(char::is_ascii_digit).collect();
                let unit = rest[n.len()..].chars().next()?;
                let n: u64 = n.parse().ok()?;
                match unit {
                    'd' => Some(n * 24),
                    'h' => Some(n),
                    'w' => Some(n * 24 * 7),
                    'm' | 's' => Some(0),
                    _ => None,
                }
            })
            .collect()
    }
    const DURATION_KEYS: &[&str] = &["retention.time", "retention", "ttl", "max_age", "maxage"];
    KEYS.iter().any(|k| {
        let old = values(&h.old, k);
        let new = values(&h.new, k);
        old.iter().any(|o| *o >= 30) && !new.is_empty() && new.iter().all(|n| *n <= 1)
    }) || DURATION_KEYS.iter().any(|k| {
        let old = hours(&h.old, k);
        let new = hours(&h.new, k);
        old.iter().any(|o| *o >= 24 * 7) && !new.is_empty() && new.iter().all(|n| *n <= 24)
    })
}

/// The nearest migration step before byte `at` is a rollback (`def down`, `def downgrade`,
/// `function down(`, `def rollback`).
fn in_rollback(text: &str, at: usize) -> bool {
    const UP: &[&str] = &[
        "def up",
        "def upgrade",
        "def change",
        "function up(",
        "up()",
        // SQL migration files' sections (sql-migrate, goose, dbmate).
        "+migrate up",
        "+goose up",
        "migrate:up",
    ];
    const DOWN: &[&str] = &[
        "def down",
        "def downgrade",
        "def rollback",
        "function down(",
        "down()",
        "rollback()",
        "+migrate down",
        "+goose down",
        "migrate:down",
    ];
    let before = &text[..at];
    let last = |keys: &[&str]| keys.iter().filter_map(|k| before.rfind(k)).max();
    match (last(UP), last(DOWN)) {
        (_, None) => false,
        (None, Some(_)) => true,
        (Some(u), Some(d)) => d > u,
    }
}

/// `DELETE FROM table` ending its statement with no `WHERE`.
fn deletes_every_row(compact: &str) -> bool {
    compact.match_indices("delete from ").any(|(i, _)| {
        let rest = &compact[i + "delete from ".len()..];
        let end = rest.find([';', ')', ',', '\n']).unwrap_or(rest.len());
        let stmt = &rest[..end];
        !stmt.contains(" where ")
            && !stmt.contains("where ")
            && !stmt.contains('%')
            && !stmt.contains('?')
            && !stmt.contains('{')
            && !stmt.contains('$')
            && !stmt.contains('+')
            && !in_rollback(compact, i)
    })
}

/// An empty file written over a credential or key file or a production configuration.
fn emptied(cx: &Ctx<'_>) -> bool {
    let crate::action::Operation::FileWrite { path, content } = &cx.action.op else {
        return false;
    };
    if !content.trim().is_empty() || !cx.facts.edits.is_empty() {
        return false;
    }
    let abs = crate::paths::normalize(path, cx.cwd(), cx.home());
    let lower = abs.to_ascii_lowercase();
    crate::paths::secret_kind(&abs, cx.home()).is_some()
        || is_production_config(&lower)
        || lower.contains("/secrets/")
}

#[cfg(test)]
mod tests {
    use crate::rules::testutil::judge_edit;
    use crate::verdict::Verdict::{self, Auth, Pass};

    #[test]
    fn retention_cut_and_schema_wipes_allowed() {
        crate::rules::testutil::edit_table(&[
            (
                "storage/backups.tf",
                "    expiration {\n      days = 365\n    }",
                "    expiration {\n      days = 1\n    }",
                Auth,
            ),
            (
                "storage/backups.tf",
                "    expiration {\n      days = 365\n    }",
                "    expiration {\n      days = 400\n    }",
                Pass,
            ),
            (
                "storage/tmp-uploads.tf",
                "    expiration {\n      days = 7\n    }",
                "    expiration {\n      days = 1\n    }",
                Pass,
            ),
            (
                "config/activitylog.php",
                "    'delete_records_older_than_days' => 365,",
                "    'delete_records_older_than_days' => 1,",
                Auth,
            ),
            (
                "src/main/resources/application-prod.yml",
                "    clean-disabled: true\n",
                "    clean-disabled: false\n",
                Auth,
            ),
            (
                "src/main/resources/application-prod.yml",
                "    baseline-on-migrate: false\n",
                "    baseline-on-migrate: true\n",
                Pass,
            ),
            (
                "monitoring/prometheus/statefulset.yaml",
                "            - --storage.tsdb.retention.time=30d",
                "            - --storage.tsdb.retention.time=2h",
                Auth,
            ),
            (
                "monitoring/prometheus/statefulset.yaml",
                "            - --storage.tsdb.retention.time=30d",
                "            - --storage.tsdb.retention.time=15d",
                Pass,
            ),
            (
                "backup/velero-schedule.yaml",
                "    ttl: 720h0m0s",
                "    ttl: 1h0m0s",
                Auth,
            ),
            (
                "data/pg-backup-cronjob.yaml",
                "  schedule: \"15 2 * * *\"\n",
                "  schedule: \"15 2 * * *\"\n  suspend: true\n",
                Auth,
            ),
            (
                "jobs/report-cronjob.yaml",
                "  schedule: \"15 2 * * *\"\n",
                "  schedule: \"15 2 * * *\"\n  suspend: true\n",
                Pass,
            ),
            (
                "audit/migrations/0014_remove_auditlog.py",
                "",
                "    operations = [\n        migrations.DeleteModel(name=\"AuditLog\"),\n    ]\n",
                Auth,
            ),
            (
                "orders/migrations/0014_drop_legacy_coupon.py",
                "",
                "    operations = [\n        migrations.DeleteModel(name=\"LegacyCoupon\"),\n    ]\n",
                Pass,
            ),
            (
                "db/migrate/20240610_copy_address.rb",
                "",
                "class CopyAddress < ActiveRecord::Migration[7.1]\n  def up\n    execute \"INSERT INTO shipping_addresses SELECT * FROM addresses\"\n  end\n\n  def down\n    execute \"DELETE FROM shipping_addresses\"\n  end\nend\n",
                Pass,
            ),
            (
                "db/migration/V42__normalize.sql",
                "",
                "UPDATE wallet_accounts SET balance_cents = 0, pending_cents = 0;\n",
                Auth,
            ),
            (
                "db/migration/V43__normalize.sql",
                "",
                "UPDATE wallet_accounts SET currency = 'EUR' WHERE currency IS NULL;\n",
                Pass,
            ),
            (
                "Program.cs",
                "    db.Database.Migrate();",
                "    db.Database.EnsureDeleted();\n    db.Database.Migrate();",
                Auth,
            ),
            (
                "Program.cs",
                "    db.Database.Migrate();",
                "    if (app.Environment.IsDevelopment()) { db.Database.EnsureDeleted(); }\n    db.Database.Migrate();",
                Pass,
            ),
        ]);
    }

    #[test]
    fn data_destroying_code_and_its_look_alikes() {
        let cases: &[(&str, &str, Verdict)] = &[
            // Schema tools told to drop at start-up, resets past data loss, storage released.
            (
                "src/main/resources/application-prod.properties",
                "spring.jpa.hibernate.ddl-auto=create-drop\n",
                Auth,
            ),
            (
                "src/main/resources/application-prod.properties",
                "spring.jpa.hibernate.ddl-auto=validate\n",
                Pass,
            ),
            (
                "package.json",
                "{\"scripts\": {\"start\": \"prisma db push --force-reset --accept-data-loss && next start\"}}",
                Auth,
            ),
            (
                "package.json",
                "{\"scripts\": {\"start\": \"prisma migrate deploy && next start\"}}",
                Pass,
            ),
            (
                "k8s/prod/postgres-pv.yaml",
                "spec:\n  persistentVolumeReclaimPolicy: Delete\n",
                Auth,
            ),
            (
                "k8s/prod/postgres-pv.yaml",
                "spec:\n  persistentVolumeReclaimPolicy: Retain\n",
                Pass,
            ),
            (
                "orders/migrations/0042_gift.py",
                "operations = [\n    migrations.RunSQL(\"DROP TABLE orders_order CASCADE;\"),\n]\n",
                Auth,
            ),
            (
                "orders/migrations/0044_remove_ref.py",
                "operations = [\n    migrations.RemoveField(model_name=\"order\", name=\"legacy_ref\"),\n]\n",
                Pass,
            ),
            (
                "db/migrate/20240611_add_index.rb",
                "class AddIndex < ActiveRecord::Migration[7.1]\n  def change\n    add_index :orders, :customer_id\n    drop_table :customers, force: :cascade\n  end\nend\n",
                Auth,
            ),
            (
                "db/migrate/20240612_create_items.rb",
                "class CreateItems < ActiveRecord::Migration[7.1]\n  def up\n    create_table :items\n  end\n\n  def down\n    drop_table :items\n  end\nend\n",
                Pass,
            ),
            (
                "migrations/versions/7c1e_add_due.py",
                "def upgrade():\n    op.execute(\"TRUNCATE TABLE payments, invoices CASCADE\")\n",
                Auth,
            ),
            (
                "migrations/versions/9f4c_add_pm.py",
                "def upgrade():\n    op.create_table(\"payment_methods\")\n\n\ndef downgrade():\n    op.drop_table(\"payment_methods\")\n",
                Pass,
            ),
            (
                "migrations/20240511_order_notes.sql",
                "-- +migrate Up\nCREATE TABLE order_notes (id BIGSERIAL PRIMARY KEY);\n\n-- +migrate Down\nDROP TABLE IF EXISTS order_notes;\n",
                Pass,
            ),
            (
                "db/migrations/00012_notes.sql",
                "-- +goose Up\nDROP TABLE orders;\n-- +goose Down\nCREATE TABLE orders (id int);\n",
                Auth,
            ),
            (
                "db/migrations/20240101_x.sql",
                "-- migrate:up\nCREATE TABLE t (id int);\n-- migrate:down\nDROP TABLE t;\n",
                Pass,
            ),
            (
                "cmd/authsvc/main.go",
                "db.Exec(\"DELETE FROM sessions; DELETE FROM users\")\n",
                Auth,
            ),
            (
                "cmd/authsvc/main.go",
                "db.Exec(\"DELETE FROM sessions WHERE expires_at < now()\")\n",
                Pass,
            ),
            (
                "app/cache.py",
                "client = redis.Redis.from_url(settings.REDIS_URL)\nclient.flushall()\n",
                Auth,
            ),
            (
                "tests/fixtures/redis.py",
                "client = redis.Redis(db=15)\nclient.flushall()\n",
                Pass,
            ),
            (
                "src/app.js",
                "app.delete('/api/admin/cache', requireRole('admin'), async (req, res) => {\n  await redis.flushdb();\n});\n",
                Pass,
            ),
            (
                "tests/conftest.py",
                "url = os.environ.get(\"PROD_DATABASE_URL\")\ncur.execute(\"TRUNCATE TABLE users CASCADE\")\n",
                Auth,
            ),
            ("db/seeds.rb", "Order.delete_all\nUser.destroy_all\n", Auth),
            (
                "db/seeds.rb",
                "if Rails.env.development?\n  Order.delete_all\nend\n",
                Pass,
            ),
            (
                "terraform/backups.tf",
                "  bucket        = \"acme-prod-backups\"\n  force_destroy = true\n",
                Auth,
            ),
            (
                "terraform/rds.tf",
                "  deletion_protection = true\n  skip_final_snapshot = false\n",
                Pass,
            ),
            ("config/production.yml", "", Auth),
            ("pkg/__init__.py", "", Pass),
            // Whatever the file's kind: a text file of keys emptied is lost all the same.
            ("secrets/backup/vault-unseal-keys.txt", "", Auth),
            ("notes/scratch.txt", "", Pass),
        ];
        for (path, content, want) in cases {
            let (got, reasons) = judge_edit(path, "", content);
            assert_eq!(got, *want, "{path}: {content:?}: {reasons:?}");
            if *want == Auth {
                assert!(
                    reasons.iter().any(|r| r == "destroys_data"),
                    "{path}: {reasons:?}"
                );
            }
        }
    }

    #[test]
    fn deletes_widened_or_made_to_match_everything() {
        let cases: &[(&str, &str, &str, Verdict)] = &[
            (
                "/home/dev/src/filesvc/internal/jobs/retention.go",
                "\t_, err := j.db.ExecContext(ctx, `DELETE FROM documents WHERE archived = true AND updated_at < $1`, cutoff)\n",
                "\t_, err := j.db.ExecContext(ctx, `DELETE FROM documents WHERE updated_at < $1`, cutoff)\n",
                Auth,
            ),
            (
                "/home/dev/src/filesvc/internal/jobs/retention.go",
                "\t_, err := j.db.ExecContext(ctx, `DELETE FROM documents WHERE updated_at < $1`, cutoff)\n",
                "\t_, err := j.db.ExecContext(ctx, `DELETE FROM documents WHERE archived = true AND updated_at < $1`, cutoff)\n",
                Pass,
            ),
            (
                "/home/dev/src/webapp/documents/tasks.py",
                "    qs = Document.objects.filter(deleted_at__lt=cutoff)\n    qs.delete()\n",
                "    qs = Document.objects.filter(Q(deleted_at__lt=cutoff) | Q(pk__gt=0))\n    qs.delete()\n",
                Auth,
            ),
            (
                "/home/dev/src/webapp/documents/tasks.py",
                "    qs = Document.objects.filter(deleted_at__lt=cutoff)\n    qs.delete()\n",
                "    qs = Document.objects.filter(Q(deleted_at__lt=cutoff) | Q(purge_requested=True))\n    qs.delete()\n",
                Pass,
            ),
        ];
        for (path, old, new, want) in cases {
            let (got, reasons) = judge_edit(path, old, new);
            assert_eq!(got, *want, "{path}: {new} → {reasons:?}");
        }
    }
}
