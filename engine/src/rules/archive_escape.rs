//! Unpacking an archive with its own paths trusted.
//!
//! **What it does:** extracting with the safeguards against paths that leave the folder
//! switched off — `tar -P` / `--absolute-names`, `unzip -:` (keep `../`), `bsdtar -P`,
//! `7z x -spf` — is `archive_paths_trusted`: AUTH (BLOCK from strict up, and from balanced
//! up once the session took in untrusted content). Listing (`tar -tvf`, `unzip -l`) and
//! ordinary extraction are not judged here.
//! **Why:** without those safeguards an entry named `../../.bashrc` or
//! `/home/dev/.ssh/authorized_keys` is written there: a downloaded "fixtures" archive
//! becomes a write anywhere the user can write, and nothing on the command line names it.
//! **Example:** `unzip -o -: /tmp/golden.zip -d tests/fixtures` → `archive_paths_trusted`.

use crate::verdict::{Finding, Reason};

use super::Ctx;

pub const ARCHIVE_PATHS_TRUSTED: Reason = Reason::new(
    "archive_paths_trusted",
    "Unpacks an archive letting its entries write outside the target folder (absolute or ../ paths).",
);

/// Does `inv` unpack with absolute or parent paths kept?
fn trusts_paths(inv: &crate::shell::Invocation) -> bool {
    let args: Vec<&str> = inv.argv().collect();
    // Short options bundled (`-xPf`), or tar's old style first word (`xPf`).
    let bundle_has = |c: char| {
        args.iter().enumerate().any(|(i, a)| {
            let b = match a.strip_prefix('-') {
                Some(b) if !b.starts_with('-') => b,
                Some(_) => return false,
                None if i == 0 => a,
                None => return false,
            };
            b.chars().all(|x| x.is_ascii_alphabetic()) && b.contains(c)
        })
    };
    match inv.program.as_str() {
        "tar" | "gtar" | "bsdtar" => {
            let extracts =
                args.iter().any(|a| *a == "--extract" || *a == "--get") || bundle_has('x');
            extracts && (args.contains(&"--absolute-names") || bundle_has('P'))
        }
        "unzip" => args
            .iter()
            .any(|a| a.starts_with('-') && !a.starts_with("--") && a.contains(':')),
        "7z" | "7za" | "7zz" => args.first() == Some(&"x") && args.contains(&"-spf"),
        _ => false,
    }
}

pub fn check(cx: &Ctx<'_>, out: &mut Vec<Finding>) {
    let Some(sa) = cx.shell else {
        return;
    };
    if sa
        .invocations
        .iter()
        .filter(|i| !i.remote)
        .any(trusts_paths)
    {
        out.push(Finding::new(ARCHIVE_PATHS_TRUSTED, cx.ask_or_block()));
    }
}

#[cfg(test)]
mod tests {
    use crate::Verdict::*;
    use crate::policy::Mode;
    use crate::rules::testutil::table;

    #[test]
    fn archives_unpacked_with_their_own_paths() {
        table(
            Mode::Balanced,
            &[
                (
                    "unzip -o -: /tmp/golden-v3.zip -d tests/fixtures",
                    Auth,
                    "archive_paths_trusted",
                ),
                (
                    "tar -xPf vendor/model-cache.tar -C .cache/models",
                    Auth,
                    "archive_paths_trusted",
                ),
                (
                    "tar --extract --absolute-names -f backup.tar",
                    Auth,
                    "archive_paths_trusted",
                ),
                ("7z x -spf bundle.7z", Auth, "archive_paths_trusted"),
                // Ordinary extraction and listing.
                ("unzip -o /tmp/golden-v3.zip -d tests/fixtures", Pass, ""),
                ("tar -xf vendor/model-cache.tar -C .cache/models", Pass, ""),
                ("tar -tvPf vendor/model-cache.tar", Pass, ""),
                ("tar -cPf /tmp/etc.tar /etc/hosts", Pass, ""),
                ("unzip -l bundle.zip", Pass, ""),
            ],
        );
    }
}
