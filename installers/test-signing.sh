#!/usr/bin/env bash
# The release checks of the Linux packages, with throwaway keys:
#   1. builds the .deb and .rpm (debug profile, stripped; installers/build.sh) and runs lintian on
#      the .deb: no error and no warning (the few accepted tags are overridden, with reasons, in
#      installers/debian/airlock.lintian-overrides shipped in the package); checks the copyright
#      file (machine-readable, Apache-2.0 like LICENSE), the changelog's version and the libc6
#      dependency;
#   2. makes a throwaway GPG key (temporary GNUPGHOME), minisign key and Tauri updater key, all
#      with a fixed passphrase, signs the packages (installers/sign.sh) and verifies every
#      artefact the way a user would (installers/verify.sh: minisign, gpgv, sha256sum, apt from
#      the signed repository, rpmkeys with a temporary rpm database, the updater signatures);
#   3. tampers with copies and checks that verification fails, and fails where it should: a
#      flipped byte in the .deb, in the .rpm, in InRelease; the unsigned .rpm swapped in with
#      SHA256SUMS recomputed; latest.json given the wrong signature; and someone else's keys.
# Installs what it needs with apt (gnupg, rpm, minisign, apt-utils, lintian, dpkg-dev) when
# missing. Needs root for that (CI runs as root); elsewhere it skips loudly (fails when CI is set).
# AIRLOCK_BUNDLE_DIR=<dir>: use packages already built there instead of building.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
t0=$(date +%s)
if [ "$(id -u)" -ne 0 ]; then
  echo "SKIPPED installers/test-signing.sh: needs root to install its tools" >&2
  [ -z "${CI:-}" ] || exit 1
  exit 0
fi
passed=0
ok() { passed=$((passed + 1)); echo "signing: ok - $*"; }
fail() { echo "signing: FAILED - $*" >&2; echo "signing: $passed passed, 1 failed"; exit 1; }

# --- tools ---------------------------------------------------------------------------------
pkgs=(gnupg gpgv rpm minisign apt-utils lintian dpkg-dev python3 file)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "signing: installing ${missing[*]}" >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

tmp="$(mktemp -d)"
cleanup() {
  # The gpg-agents these throwaway GNUPGHOMEs started.
  for h in "$tmp/keys/gnupg" "$tmp/other/gnupg"; do
    [ ! -d "$h" ] || gpgconf --homedir "$h" --kill all 2>/dev/null || true
  done
  rm -rf "$tmp"
}
trap cleanup EXIT

# --- 1. build, lintian ------------------------------------------------------------------------
if [ -n "${AIRLOCK_BUNDLE_DIR:-}" ]; then
  bundle="$AIRLOCK_BUNDLE_DIR"
else
  AIRLOCK_PACKAGE_PROFILE=debug bash "$root/installers/build.sh" >"$tmp/build.log" 2>&1 \
    || { tail -40 "$tmp/build.log" >&2; fail "building the packages"; }
  bundle="${CARGO_TARGET_DIR:-$root/src-tauri/target}/debug/bundle"
fi
deb="$(ls -t "$bundle"/deb/*.deb | head -1)"
rpm="$(ls -t "$bundle"/rpm/*.rpm | head -1)"
echo "signing: packages $deb, $rpm ($(( $(date +%s) - t0 )) s)"

# TMPDIR: lintian leaves its ELF caches (mldbm-*) behind.
if ! TMPDIR="$tmp" lintian --fail-on error,warning -I --tag-display-limit 0 "$deb" >"$tmp/lintian.log" 2>&1; then
  cat "$tmp/lintian.log" >&2
  fail "lintian reports errors or warnings on the .deb"
fi
sed 's/^/    /' "$tmp/lintian.log"
ok "lintian: no error, no warning"

x="$tmp/deb-root"
dpkg-deb -x "$deb" "$x"
pkg="$(dpkg-deb -f "$deb" Package)"
version="$(dpkg-deb -f "$deb" Version)"
cmp -s "$x/usr/share/doc/$pkg/copyright" "$root/installers/debian/copyright" \
  || fail "/usr/share/doc/$pkg/copyright is not installers/debian/copyright"
head -1 "$x/usr/share/doc/$pkg/copyright" \
  | grep -qx 'Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/' \
  || fail "the copyright file is not in the machine-readable format"
grep -q '^License: Apache-2.0$' "$x/usr/share/doc/$pkg/copyright" && grep -q 'Apache License' "$root/LICENSE" \
  && grep -q 'Version 2.0' "$root/LICENSE" || fail "the copyright file's licence is not LICENSE's"
ok "/usr/share/doc/$pkg/copyright is machine-readable and says Apache-2.0, like LICENSE"
changelog_version="$(zcat "$x/usr/share/doc/$pkg/changelog.gz" | dpkg-parsechangelog -l- -SVersion)"
[ "$changelog_version" = "$version" ] \
  || fail "the changelog's last entry is $changelog_version, the package $version (add an entry to installers/debian/changelog)"
ok "the changelog's last entry is the package's version ($version)"
dpkg-deb -f "$deb" Depends | grep -Eq '(^|, )libc6 \(>= [0-9.]+\)' || fail "no versioned libc6 in Depends"
dpkg-deb -f "$deb" Maintainer | grep -Eq '<[^@ ]+@[^> ]+>' || fail "the Maintainer has no address"
ok "Depends has libc6 ($(dpkg-deb -f "$deb" Depends | grep -Eo 'libc6 \([^)]*\)')), Maintainer has an address"

# --- 2. throwaway keys, sign, verify ----------------------------------------------------------
tauri="$root/ui/node_modules/.bin/tauri"
[ -x "$tauri" ] || (cd "$root/ui" && npm ci --no-audit --no-fund >/dev/null)
pass="throwaway-test-passphrase"
printf '%s\n' "$pass" > "$tmp/passphrase"
# make_keys DIR NAME: a GPG key in DIR/gnupg (public half DIR/gpg.asc), DIR/minisign.{key,pub},
# DIR/updater.key{,.pub}; prints the GPG fingerprint.
make_keys() {
  local d="$1" name="$2"
  mkdir -p "$d"
  mkdir -m 700 "$d/gnupg"
  GNUPGHOME="$d/gnupg" gpg --batch --quiet --pinentry-mode loopback --passphrase-file "$tmp/passphrase" \
    --quick-gen-key "$name (throwaway test key) <airlock-test@example.invalid>" rsa3072 sign 1d 2>/dev/null
  local fpr
  fpr="$(GNUPGHOME="$d/gnupg" gpg --batch --with-colons --list-secret-keys 2>/dev/null | awk -F: '/^fpr/ {print $10; exit}')"
  GNUPGHOME="$d/gnupg" gpg --batch --armor --export "$fpr" > "$d/gpg.asc"
  printf '%s\n%s\n' "$pass" "$pass" | minisign -G -f -p "$d/minisign.pub" -s "$d/minisign.key" >/dev/null 2>&1
  CI=true "$tauri" signer generate --ci -f -p "$pass" -w "$d/updater.key" >/dev/null 2>&1
  [ -s "$d/minisign.key" ] && [ -s "$d/updater.key.pub" ] && [ -s "$d/gpg.asc" ] || return 1
  echo "$fpr"
}
fpr="$(make_keys "$tmp/keys" "Airlock CI")" || fail "making the throwaway keys"
make_keys "$tmp/other" "Someone else" >/dev/null || fail "making the second set of keys"
ok "throwaway keys: GPG $fpr, minisign, Tauri updater (and a second, unrelated set)"

rel="$tmp/release"
GNUPGHOME="$tmp/keys/gnupg" AIRLOCK_GPG_KEY="$fpr" AIRLOCK_GPG_PASSPHRASE_FILE="$tmp/passphrase" \
  AIRLOCK_MINISIGN_KEY="$tmp/keys/minisign.key" AIRLOCK_MINISIGN_PASSWORD_FILE="$tmp/passphrase" \
  TAURI_SIGNING_PRIVATE_KEY_PATH="$tmp/keys/updater.key" TAURI_SIGNING_PRIVATE_KEY_PASSWORD="$pass" \
  AIRLOCK_RELEASE_URL="https://example.invalid/airlock/releases/v$version" \
  bash "$root/installers/sign.sh" "$bundle" "$rel" >"$tmp/sign.log" 2>&1 \
  || { cat "$tmp/sign.log" >&2; fail "sign.sh"; }
for f in "$(basename "$deb")" "$(basename "$rpm")" "$(basename "$deb").sig" "$(basename "$rpm").sig" \
  latest.json Packages Packages.gz Release InRelease Release.gpg SHA256SUMS SHA256SUMS.minisig SHA256SUMS.asc; do
  [ -s "$rel/$f" ] || fail "sign.sh wrote no $f"
done
ok "sign.sh wrote the apt repository, the signed .rpm, the updater signatures, latest.json, signed SHA256SUMS"

verify() { # verify KEYDIR RELEASE_DIR LOG
  bash "$root/installers/verify.sh" --gpg-key "$1/gpg.asc" --minisign-key "$1/minisign.pub" \
    --updater-key "$1/updater.key.pub" "$2" >"$3" 2>&1
}
verify "$tmp/keys" "$rel" "$tmp/verify.log" || { cat "$tmp/verify.log" >&2; fail "verify.sh on the signed release"; }
sed 's/^/    /' "$tmp/verify.log"
ok "verify.sh: every artefact verifies ($(grep -c '^verify: ok' "$tmp/verify.log") checks)"

# --- 3. tampering is caught -------------------------------------------------------------------
# flip FILE [OFFSET]: xor one byte, by default the middle one (negative: from the end).
flip() {
  python3 -c 'import sys; p=sys.argv[1]; b=bytearray(open(p,"rb").read()); i=int(sys.argv[2]) if len(sys.argv)>2 else len(b)//2; b[i]^=1; open(p,"wb").write(b)' "$@"
}
# tampered NAME KEYDIR EXPECTED-FAILED-CHECK... : verification of $tmp/bad must fail, and each
# named check must be among the failed ones.
tampered() {
  local name="$1" keys="$2"; shift 2
  if verify "$keys" "$tmp/bad" "$tmp/bad.log"; then cat "$tmp/bad.log" >&2; fail "$name: verify.sh passed"; fi
  local want
  for want in "$@"; do
    grep -F "verify: FAILED - " "$tmp/bad.log" | grep -qF "$want" \
      || { cat "$tmp/bad.log" >&2; fail "$name: the check \"$want\" did not fail"; }
  done
  local joined
  joined="$(printf '%s; ' "$@")"
  ok "$name: verification fails ($(grep -c '^verify: FAILED' "$tmp/bad.log") checks failed, among them: ${joined%; })"
  rm -rf "$tmp/bad"
}
d="$(basename "$deb")"
r="$(basename "$rpm")"

cp -a "$rel" "$tmp/bad" && flip "$tmp/bad/$d"
tampered "a flipped byte in the .deb" "$tmp/keys" "sha256sum -c" "apt download" "$d.sig"

# In the payload (near its end): the signature header has reserved space that no digest covers.
cp -a "$rel" "$tmp/bad" && flip "$tmp/bad/$r" -16
tampered "a flipped byte in the .rpm" "$tmp/keys" "sha256sum -c" "$r (rpmkeys" "$r.sig"

cp -a "$rel" "$tmp/bad" && sed -i 's/^Origin: Airlock$/Origin: Airlocc/' "$tmp/bad/InRelease"
tampered "a changed byte in InRelease" "$tmp/keys" "InRelease (gpgv)" "apt update"

# What someone without the keys could do: put the unsigned .rpm in and recompute SHA256SUMS.
cp -a "$rel" "$tmp/bad" && cp "$rpm" "$tmp/bad/$r"
(cd "$tmp/bad" && find . -maxdepth 1 -type f ! -name 'SHA256SUMS*' -printf '%P\n' | LC_ALL=C sort \
  | xargs -d '\n' sha256sum > SHA256SUMS)
tampered "the unsigned .rpm with SHA256SUMS recomputed" "$tmp/keys" \
  "SHA256SUMS.minisig" "SHA256SUMS.asc" "$r (rpmkeys"

cp -a "$rel" "$tmp/bad"
python3 - "$tmp/bad/latest.json" <<'PY'
import json, sys
p = sys.argv[1]
m = json.load(open(p))
k = sorted(m["platforms"])
m["platforms"][k[0]]["signature"], m["platforms"][k[1]]["signature"] = (
    m["platforms"][k[1]]["signature"], m["platforms"][k[0]]["signature"])
json.dump(m, open(p, "w"), indent=2)
PY
tampered "latest.json with the signatures swapped" "$tmp/keys" "sha256sum -c" "latest.json carries"

cp -a "$rel" "$tmp/bad"
tampered "the release checked against someone else's keys" "$tmp/other" \
  "SHA256SUMS.minisig" "SHA256SUMS.asc" "InRelease (gpgv)" "apt update" "$r (rpmkeys" "$d.sig" "$r.sig"

echo "signing: $passed passed, 0 failed in $(( $(date +%s) - t0 )) s"
