#!/usr/bin/env bash
# Verifies a release directory written by installers/sign.sh the way a user would, with stock
# tools and only the public keys:
#   1. SHA256SUMS: its minisign signature (`minisign -V`) and its GPG signature (`gpgv`);
#   2. every file in the directory is listed in SHA256SUMS and matches it (`sha256sum -c`);
#   3. the apt repository: InRelease verifies against the key (`gpgv`), and apt itself, with a
#      private state directory and `signed-by` that key, updates from it and downloads the .deb
#      (apt checks the Release signature, the Packages hash and the .deb's hash);
#   4. the .rpm: `rpmkeys --checksig` with the key imported into a temporary rpm database says
#      "digests signatures OK";
#   5. the update channel: each updater .sig verifies against the Tauri updater public key (it is
#      minisign underneath: the .sig and the key are base64 of minisign's own files), names the
#      file and the version in its signed comment, and latest.json carries exactly those
#      signatures, the package's version and URLs ending in the file names.
# Runs every check, prints one line each, and exits non-zero if any failed.
#
# Usage: installers/verify.sh --gpg-key FILE --minisign-key FILE --updater-key FILE RELEASE_DIR
#   --gpg-key       the GPG public key (armored or binary) that signed apt, the .rpm, SHA256SUMS.asc
#   --minisign-key  the minisign public key file (minisign.pub)
#   --updater-key   the Tauri updater public key file (what `tauri signer generate` writes as .pub,
#                   and what tauri.conf.json's plugins.updater.pubkey holds)
# The same can be given as AIRLOCK_GPG_PUBKEY, AIRLOCK_MINISIGN_PUBKEY, AIRLOCK_UPDATER_PUBKEY.
set -uo pipefail

gpg_key="${AIRLOCK_GPG_PUBKEY:-}"
minisign_key="${AIRLOCK_MINISIGN_PUBKEY:-}"
updater_key="${AIRLOCK_UPDATER_PUBKEY:-}"
dir=""
while [ $# -gt 0 ]; do
  case "$1" in
    --gpg-key) gpg_key="$2"; shift 2 ;;
    --minisign-key) minisign_key="$2"; shift 2 ;;
    --updater-key) updater_key="$2"; shift 2 ;;
    -*) echo "verify.sh: unknown option $1" >&2; exit 2 ;;
    *) [ -z "$dir" ] || { echo "verify.sh: one release directory" >&2; exit 2; }; dir="$1"; shift ;;
  esac
done
if [ -z "$dir" ] || [ -z "$gpg_key" ] || [ -z "$minisign_key" ] || [ -z "$updater_key" ]; then
  echo "usage: installers/verify.sh --gpg-key FILE --minisign-key FILE --updater-key FILE RELEASE_DIR" >&2
  exit 2
fi
for f in "$gpg_key" "$minisign_key" "$updater_key"; do
  [ -r "$f" ] || { echo "verify.sh: cannot read $f" >&2; exit 2; }
done
[ -d "$dir" ] || { echo "verify.sh: no directory $dir" >&2; exit 2; }
for t in gpg gpgv minisign sha256sum rpmkeys apt-get python3 base64; do
  command -v "$t" >/dev/null || { echo "verify.sh: \`$t\` is missing" >&2; exit 2; }
done
dir="$(cd "$dir" && pwd)"

tmp="$(mktemp -d)"
trap 'GNUPGHOME="$tmp/gnupg" gpgconf --kill all 2>/dev/null; rm -rf "$tmp"' EXIT
passed=0
failed=0
ok() { passed=$((passed + 1)); echo "verify: ok - $*"; }
bad() { failed=$((failed + 1)); echo "verify: FAILED - $*"; }
# Runs a check quietly; on failure shows what the tool said.
check() {
  local what="$1"; shift
  local log
  if log="$("$@" 2>&1)"; then ok "$what"; else bad "$what"; printf '%s\n' "$log" | sed 's/^/    /' | tail -8; fi
}

# The GPG key as a binary keyring (gpgv, apt's signed-by) and armored (rpmkeys --import), through a
# throwaway GNUPGHOME so the user's keyring is never touched.
mkdir -m 700 "$tmp/gnupg"
if ! GNUPGHOME="$tmp/gnupg" gpg --batch --quiet --import "$gpg_key" 2>/dev/null; then
  echo "verify.sh: $gpg_key is not an OpenPGP public key" >&2; exit 2
fi
GNUPGHOME="$tmp/gnupg" gpg --batch --export > "$tmp/keyring.gpg"
GNUPGHOME="$tmp/gnupg" gpg --batch --armor --export > "$tmp/key.asc"
fpr="$(GNUPGHOME="$tmp/gnupg" gpg --batch --with-colons --list-keys | awk -F: '/^fpr/ {print $10; exit}')"
echo "verify: GPG key $fpr"

# --- 1. SHA256SUMS is signed ----------------------------------------------------------------
check "SHA256SUMS.minisig (minisign)" minisign -V -p "$minisign_key" -m "$dir/SHA256SUMS" -x "$dir/SHA256SUMS.minisig"
check "SHA256SUMS.asc (gpgv)" gpgv --keyring "$tmp/keyring.gpg" "$dir/SHA256SUMS.asc" "$dir/SHA256SUMS"

# --- 2. every file is listed and matches ----------------------------------------------------
check "sha256sum -c SHA256SUMS" bash -c 'cd "$1" && sha256sum --strict --quiet -c SHA256SUMS' _ "$dir"
unlisted="$(cd "$dir" && comm -23 \
  <(find . -maxdepth 1 -type f ! -name 'SHA256SUMS*' -printf '%P\n' | LC_ALL=C sort) \
  <(sed 's/^[0-9a-f]*  //' SHA256SUMS 2>/dev/null | LC_ALL=C sort))"
if [ -z "$unlisted" ]; then ok "every file is in SHA256SUMS"; else bad "not in SHA256SUMS: $unlisted"; fi

# --- 3. the apt repository -------------------------------------------------------------------
check "InRelease (gpgv)" gpgv --keyring "$tmp/keyring.gpg" "$dir/InRelease"
check "Release.gpg (gpgv)" gpgv --keyring "$tmp/keyring.gpg" "$dir/Release.gpg" "$dir/Release"
deb_files=("$dir"/*.deb)
if [ ! -e "${deb_files[0]}" ]; then
  bad "no .deb in $dir"
else
  pkg="$(sed -n 's/^Package: //p' "$dir/Packages" 2>/dev/null | head -1)"
  # apt as a user runs it, but with everything private: its own sources list, lists, cache and
  # an empty dpkg status, so the machine's apt setup neither helps nor is touched.
  a="$tmp/apt"
  mkdir -p "$a/lists/partial" "$a/cache/archives/partial" "$a/etc/preferences.d" "$a/dl"
  : > "$a/status"
  echo "deb [signed-by=$tmp/keyring.gpg] file:$dir ./" > "$a/sources.list"
  apt_opts=(
    -o Dir::Etc::SourceList="$a/sources.list" -o Dir::Etc::SourceParts=/nonexistent
    -o Dir::Etc::Preferences=/nonexistent -o Dir::Etc::PreferencesParts="$a/etc/preferences.d"
    -o Dir::State::Lists="$a/lists" -o Dir::State::Status="$a/status"
    -o Dir::Cache="$a/cache" -o Debug::NoLocking=1 -o APT::Sandbox::User="$(id -un)"
    -o Acquire::Languages=none -o APT::Get::List-Cleanup=0
  )
  check "apt update from the repository (signed InRelease)" \
    bash -c 'out="$(apt-get "$@" update 2>&1)"; printf "%s\n" "$out";
             ! printf "%s\n" "$out" | grep -Eq "^(W|E|Err):"' _ "${apt_opts[@]}"
  check "apt download $pkg (hash in the signed index)" \
    bash -c 'deb="$0" dl="$1" pkg="$2"; shift 2; cd "$dl" && apt-get "$@" download "$pkg" && cmp -s ./*.deb "$deb"' \
    "${deb_files[0]}" "$a/dl" "$pkg" "${apt_opts[@]}"
fi

# --- 4. the .rpm ---------------------------------------------------------------------------
rpm_files=("$dir"/*.rpm)
if [ ! -e "${rpm_files[0]}" ]; then
  bad "no .rpm in $dir"
else
  mkdir -p "$tmp/rpmdb"
  if rpmkeys --dbpath "$tmp/rpmdb" --import "$tmp/key.asc" 2>"$tmp/rpm-import.log"; then
    for f in "${rpm_files[@]}"; do
      # `rpmkeys -K` exits 0 on an unsigned package ("digests OK"): insist on "signatures OK".
      check "$(basename "$f") (rpmkeys --checksig)" \
        bash -c 'out="$(rpmkeys --dbpath "$1" --checksig "$2" 2>&1)"; rc=$?; printf "%s\n" "$out";
                 [ $rc -eq 0 ] && printf "%s\n" "$out" | grep -q ": digests signatures OK$"' \
        _ "$tmp/rpmdb" "$f"
    done
  else
    bad "importing the key into a temporary rpm database"; cat "$tmp/rpm-import.log"
  fi
fi

# --- 5. the update channel -----------------------------------------------------------------
base64 -d "$updater_key" > "$tmp/updater.pub" 2>/dev/null \
  || { bad "the updater key is not base64 (want the .pub of tauri signer generate)"; : > "$tmp/updater.pub"; }
version="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["version"])' "$dir/latest.json" 2>/dev/null)"
for f in "$dir"/*.deb "$dir"/*.rpm; do
  [ -e "$f" ] || continue
  name="$(basename "$f")"
  if [ ! -s "$f.sig" ]; then bad "$name has no updater signature"; continue; fi
  base64 -d "$f.sig" > "$tmp/$name.minisig" 2>/dev/null || { bad "$name.sig is not base64"; continue; }
  check "$name.sig (Tauri updater signature, minisign)" \
    minisign -V -p "$tmp/updater.pub" -m "$f" -x "$tmp/$name.minisig"
  comment="$(sed -n 's/^trusted comment: //p' "$tmp/$name.minisig")"
  case "$comment" in
    *"file:$name"*"version:$version"*) ok "$name.sig is bound to $name and version $version" ;;
    *) bad "$name.sig's signed comment does not name $name and version ${version:-?}: $comment" ;;
  esac
done
check "latest.json carries those signatures, the version and the file names" python3 - "$dir" <<'PY'
import json, pathlib, sys
d = pathlib.Path(sys.argv[1])
m = json.loads((d / "latest.json").read_text())
files = {p.name: p for p in list(d.glob("*.deb")) + list(d.glob("*.rpm"))}
want = {name: name.rsplit(".", 1)[-1] for name in files}
# The version the signed apt index gives the package.
versions = [l.split(":", 1)[1].strip() for l in (d / "Packages").read_text().splitlines() if l.startswith("Version:")]
assert m.get("version") in versions, f"latest.json version {m.get('version')} is not the package's {versions}"
platforms = m.get("platforms") or {}
assert platforms, "latest.json has no platforms"
seen = set()
for key, entry in platforms.items():
    name = entry["url"].rsplit("/", 1)[-1]
    assert name in files, f"{key} points at {entry['url']}, not a file of this release"
    assert key.endswith("-" + want[name]), f"{key} offers {name}"
    sig = (d / f"{name}.sig").read_text().strip()
    assert entry["signature"] == sig, f"{key}'s signature is not {name}.sig"
    seen.add(name)
assert seen == set(files), f"latest.json leaves out {set(files) - seen}"
PY

echo "verify: $passed checks passed, $failed failed ($dir)"
[ "$failed" -eq 0 ]
