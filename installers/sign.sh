#!/usr/bin/env bash
# Signs the Linux packages of a build into a release directory that users (and
# installers/verify.sh) can check with stock tools:
#
#   <out>/Airlock_<v>_<arch>.deb          the .deb, unchanged
#   <out>/Packages, Packages.gz, Release   a flat apt repository over the .deb (apt-ftparchive)
#   <out>/InRelease, Release.gpg           its Release file signed with the GPG key: apt checks
#                                          these itself on every `apt update` / `apt install`
#   <out>/Airlock-<v>-1.<arch>.rpm        the .rpm, its header signed with the same GPG key
#                                          (`rpm --addsign`; `rpm -K` / dnf / zypper check it)
#   <out>/*.deb.sig, *.rpm.sig             the Tauri updater's signatures (`tauri signer sign`,
#                                          minisign format, bound to the version and file name)
#   <out>/latest.json                      the update channel manifest tauri-plugin-updater reads
#                                          (platforms linux-<arch>-deb / linux-<arch>-rpm)
#   <out>/SHA256SUMS                       every file above
#   <out>/SHA256SUMS.minisig, .asc         SHA256SUMS signed with minisign and with the GPG key
#
# Why a signed apt repository and not debsigs for the .deb: dpkg on Debian and Ubuntu is
# configured with `no-debsig`, so a signature embedded with debsigs is never checked at install
# time, and checking it by hand (debsig-verify) needs a per-key policy file under /etc/debsig.
# apt, on the other hand, refuses a repository whose InRelease does not verify against the
# keyring named in `signed-by`, and a .deb whose SHA-256 differs from the signed index, with no
# extra setup. A single downloaded .deb is covered by the signed SHA256SUMS.
#
# Usage: installers/sign.sh BUNDLE_DIR OUT_DIR
#   BUNDLE_DIR  where `tauri build` left the packages (<target>/<profile>/bundle: deb/*.deb,
#               rpm/*.rpm); exactly one .deb and one .rpm
#   OUT_DIR     the release directory to write; must not exist or be empty
#
# Key material (nothing is read from the repository; never commit a secret key):
#   AIRLOCK_GPG_KEY                 fingerprint (or user id) of the secret GPG key in the keyring
#                                   (GNUPGHOME as usual); signs InRelease, Release.gpg, the .rpm and
#                                   SHA256SUMS.asc
#   AIRLOCK_GPG_PASSPHRASE_FILE     optional: file holding that key's passphrase
#   AIRLOCK_MINISIGN_KEY            minisign secret key file (signs SHA256SUMS)
#   AIRLOCK_MINISIGN_PASSWORD_FILE  optional: file holding its password (none for a `-W` key)
#   TAURI_SIGNING_PRIVATE_KEY_PATH  the Tauri updater's secret key file (`tauri signer generate`),
#     or TAURI_SIGNING_PRIVATE_KEY  the key itself; TAURI_SIGNING_PRIVATE_KEY_PASSWORD its password
# Release description:
#   AIRLOCK_RELEASE_URL    where OUT_DIR's files will be served (the manifest's download URLs);
#                          default https://example.invalid/airlock/releases/v<version> (a warning says so)
#   AIRLOCK_RELEASE_NOTES  the manifest's notes (default "Airlock <version>")
#   SOURCE_DATE_EPOCH      the manifest's pub_date (default now)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
die() { echo "sign.sh: $*" >&2; exit 1; }

[ $# -eq 2 ] || die "usage: installers/sign.sh BUNDLE_DIR OUT_DIR"
bundle="$1"
out="$2"
[ -d "$bundle" ] || die "no bundle directory $bundle"
if [ -e "$out" ] && [ -n "$(ls -A "$out")" ]; then die "$out exists and is not empty"; fi

: "${AIRLOCK_GPG_KEY:?sign.sh: set AIRLOCK_GPG_KEY to the fingerprint of the GPG signing key}"
: "${AIRLOCK_MINISIGN_KEY:?sign.sh: set AIRLOCK_MINISIGN_KEY to the minisign secret key file}"
[ -r "$AIRLOCK_MINISIGN_KEY" ] || die "cannot read $AIRLOCK_MINISIGN_KEY"
if [ -z "${TAURI_SIGNING_PRIVATE_KEY_PATH:-}" ] && [ -z "${TAURI_SIGNING_PRIVATE_KEY:-}" ]; then
  die "set TAURI_SIGNING_PRIVATE_KEY_PATH (or TAURI_SIGNING_PRIVATE_KEY) to the updater's secret key"
fi
# Key files are used from inside OUT_DIR: make their paths absolute.
abs() {
  local p
  [ -n "${!1:-}" ] || return 0
  p="$(realpath -e "${!1}")" || die "no file ${!1} ($1)"
  printf -v "$1" '%s' "$p"
}
for v in AIRLOCK_GPG_PASSPHRASE_FILE AIRLOCK_MINISIGN_KEY AIRLOCK_MINISIGN_PASSWORD_FILE TAURI_SIGNING_PRIVATE_KEY_PATH; do
  abs "$v"
done
[ -z "${TAURI_SIGNING_PRIVATE_KEY_PATH:-}" ] || export TAURI_SIGNING_PRIVATE_KEY_PATH
for t in gpg rpmsign apt-ftparchive minisign sha256sum python3; do
  command -v "$t" >/dev/null || die "\`$t\` is missing (installers/test-signing.sh lists the apt packages)"
done

mapfile -t debs < <(find "$bundle" -maxdepth 2 -type f -name '*.deb')
mapfile -t rpms < <(find "$bundle" -maxdepth 2 -type f -name '*.rpm')
[ ${#debs[@]} -eq 1 ] || die "want exactly one .deb under $bundle, found ${#debs[@]}"
[ ${#rpms[@]} -eq 1 ] || die "want exactly one .rpm under $bundle, found ${#rpms[@]}"

version="$(dpkg-deb -f "${debs[0]}" Version)"
rpm_version="$(rpm -qp --qf '%{VERSION}' "${rpms[0]}" 2>/dev/null)"
[ "$version" = "$rpm_version" ] || die "the .deb is version $version but the .rpm $rpm_version"
case "$(dpkg-deb -f "${debs[0]}" Architecture)" in
  amd64) arch=x86_64 ;;
  arm64) arch=aarch64 ;;
  i386) arch=i686 ;;
  armhf) arch=armv7 ;;
  *) die "no updater platform for the .deb's architecture" ;;
esac
release_url="${AIRLOCK_RELEASE_URL:-}"
if [ -z "$release_url" ]; then
  release_url="https://example.invalid/airlock/releases/v$version"
  echo "sign.sh: warning: AIRLOCK_RELEASE_URL unset; latest.json points at $release_url" >&2
fi
release_url="${release_url%/}"

mkdir -p "$out"
out="$(cd "$out" && pwd)"
deb="$(basename "${debs[0]}")"
rpm="$(basename "${rpms[0]}")"
cp "${debs[0]}" "$out/$deb"
cp "${rpms[0]}" "$out/$rpm"

gpg_args=(--batch --yes --no-tty --local-user "$AIRLOCK_GPG_KEY" --digest-algo SHA512)
if [ -n "${AIRLOCK_GPG_PASSPHRASE_FILE:-}" ]; then
  gpg_args+=(--pinentry-mode loopback --passphrase-file "$AIRLOCK_GPG_PASSPHRASE_FILE")
fi
gpg --batch --list-secret-keys "$AIRLOCK_GPG_KEY" >/dev/null 2>&1 \
  || die "no secret key $AIRLOCK_GPG_KEY in ${GNUPGHOME:-~/.gnupg}"

# --- .rpm: a header signature with the GPG key (what `rpm --addsign` does) -------------------
# rpm's default %__gpg is gpg2, which Debian does not ship; the extra arguments feed the
# passphrase (if any) without a pinentry.
rpm_gpg_extra="--batch --no-tty --digest-algo SHA512"
if [ -n "${AIRLOCK_GPG_PASSPHRASE_FILE:-}" ]; then
  rpm_gpg_extra+=" --pinentry-mode loopback --passphrase-file $AIRLOCK_GPG_PASSPHRASE_FILE"
fi
rpmsign --define "__gpg $(command -v gpg)" \
  --define "_gpg_path ${GNUPGHOME:-$HOME/.gnupg}" \
  --define "_gpg_name $AIRLOCK_GPG_KEY" \
  --define "_gpg_sign_cmd_extra_args $rpm_gpg_extra" \
  --addsign "$out/$rpm" >"$out/.rpmsign.log" 2>&1 \
  || { cat "$out/.rpmsign.log" >&2; die "rpmsign --addsign failed"; }
rm -f "$out/.rpmsign.log"

# --- .deb: a flat apt repository whose Release file is signed ------------------------------
(
  cd "$out"
  apt-ftparchive packages . > Packages
  gzip -9n -c Packages > Packages.gz
  apt-ftparchive \
    -o APT::FTPArchive::Release::Origin=Airlock \
    -o APT::FTPArchive::Release::Label=Airlock \
    -o APT::FTPArchive::Release::Suite=stable \
    -o APT::FTPArchive::Release::Architectures="$(dpkg-deb -f "$deb" Architecture)" \
    -o APT::FTPArchive::Release::Description="Airlock $version" \
    release . > Release.tmp
  mv Release.tmp Release
  gpg "${gpg_args[@]}" --clearsign --output InRelease Release
  gpg "${gpg_args[@]}" --armor --detach-sign --output Release.gpg Release
) || die "signing the apt repository failed"

# --- the update channel: Tauri updater signatures and latest.json ---------------------------
tauri="$root/ui/node_modules/.bin/tauri"
if [ ! -x "$tauri" ]; then
  (cd "$root/ui" && npm ci --no-audit --no-fund >/dev/null)
fi
export TAURI_SIGNING_PRIVATE_KEY_PASSWORD="${TAURI_SIGNING_PRIVATE_KEY_PASSWORD:-}"
for f in "$deb" "$rpm"; do
  # Signs the final bytes (after rpm's header signature); the trusted comment carries the file
  # name and the version (`requireSignedVersion` in the updater checks the latter).
  (cd "$out" && "$tauri" signer sign --app-version "$version" "$f" </dev/null >/dev/null) \
    || die "tauri signer sign $f failed"
  [ -s "$out/$f.sig" ] || die "tauri signer wrote no $f.sig"
done
pub_date="$(date -u ${SOURCE_DATE_EPOCH:+-d "@$SOURCE_DATE_EPOCH"} +%Y-%m-%dT%H:%M:%SZ)"
python3 - "$out" "$version" "$arch" "$release_url" "$deb" "$rpm" "$pub_date" \
  "${AIRLOCK_RELEASE_NOTES:-Airlock $version}" <<'PY'
import json, pathlib, sys
out, version, arch, url, deb, rpm, pub_date, notes = sys.argv[1:]
out = pathlib.Path(out)
def entry(name):
    return {"signature": (out / f"{name}.sig").read_text().strip(), "url": f"{url}/{name}"}
manifest = {
    "version": version,
    "notes": notes,
    "pub_date": pub_date,
    # tauri-plugin-updater looks up "<os>-<arch>-<installer>" first: a .deb install gets the .deb,
    # an .rpm install the .rpm (there is no AppImage to offer under the plain "linux-<arch>").
    "platforms": {
        f"linux-{arch}-deb": entry(deb),
        f"linux-{arch}-rpm": entry(rpm),
    },
}
(out / "latest.json").write_text(json.dumps(manifest, indent=2) + "\n")
PY

# --- SHA256SUMS over everything, signed with minisign and GPG ------------------------------
(
  cd "$out"
  find . -maxdepth 1 -type f ! -name 'SHA256SUMS*' -printf '%P\n' | LC_ALL=C sort \
    | xargs -d '\n' sha256sum > SHA256SUMS
  if [ -n "${AIRLOCK_MINISIGN_PASSWORD_FILE:-}" ]; then
    minisign -S -s "$AIRLOCK_MINISIGN_KEY" -m SHA256SUMS -x SHA256SUMS.minisig \
      -t "Airlock $version SHA256SUMS" <"$AIRLOCK_MINISIGN_PASSWORD_FILE" >/dev/null
  else
    minisign -S -s "$AIRLOCK_MINISIGN_KEY" -m SHA256SUMS -x SHA256SUMS.minisig \
      -t "Airlock $version SHA256SUMS" </dev/null >/dev/null
  fi
  gpg "${gpg_args[@]}" --armor --detach-sign --output SHA256SUMS.asc SHA256SUMS
) || die "signing SHA256SUMS failed"

echo "sign.sh: signed Airlock $version into $out:"
(cd "$out" && ls -l)
