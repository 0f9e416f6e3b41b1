#!/usr/bin/env bash
# Builds the Linux packages (.deb and .rpm) of the Airlock tray app, offline, with the npm
# Tauri CLI (ui/node_modules/.bin/tauri). The packages also carry the `airlock` CLI (the guard
# service), `airlock-hook` (the small hook binary the wiring runs), `airlock-sh` (the wrapper
# shell) and `airlock-proxy` (the MCP proxy), installed next to the app in /usr/bin: Tauri's
# `bundle.externalBin` wants them as src-tauri/binaries/<name>-<target triple>, which this
# script builds and copies there.
#
# What Debian policy (and lintian, installers/test-signing.sh) wants and Tauri's bundler does not
# do by itself, done here:
#   - every binary stripped: the side binaries with `install -s`, the app at link time
#     (`strip` for the app crate only, so its dependencies keep the test builds' artifacts);
#   - Depends computed from the binaries' shared libraries with dpkg-shlibdeps (what
#     ${shlibs:Depends} is in a Debian build: libc6 with its minimum version and the rest),
#     added to the fixed ones in installers/tauri.bundle.json;
#   - /usr/share/doc/airlock/{copyright,changelog.gz} and the manual pages, from
#     installers/debian/ (gzipped into installers/.build/, which git ignores).
#
# Usage: installers/build.sh            (from anywhere; outputs under <app target>/release/bundle/)
# Environment: CARGO_TARGET_DIR (the app's target dir), AIRLOCK_WS_TARGET_DIR (workspace's),
#   AIRLOCK_PACKAGE_PROFILE=debug  build the packages from debug builds (what CI installs and
#   tests: it reuses the test builds instead of two release builds; outputs under
#   <app target>/debug/bundle/). Binaries are stripped either way.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ws_target="${AIRLOCK_WS_TARGET_DIR:-$root/target}"
app_target="${CARGO_TARGET_DIR:-$root/src-tauri/target}"
triple="$(rustc -vV | sed -n 's/^host: //p')"

profile="${AIRLOCK_PACKAGE_PROFILE:-release}"
case "$profile" in
  release) cargo_profile=(--release); tauri_profile=(); out_dir=release; profile_name=release ;;
  debug) cargo_profile=(); tauri_profile=(--debug); out_dir=debug; profile_name=dev ;;
  *) echo "build.sh: AIRLOCK_PACKAGE_PROFILE is release or debug" >&2; exit 2 ;;
esac
cargo build "${cargo_profile[@]}" --locked --manifest-path "$root/Cargo.toml" --target-dir "$ws_target" \
  -p airlock-cli --bin airlock -p airlock-proxy --bin airlock-proxy
# The binaries agents run on every call, linked statically (glibc's static PIE): a dynamic
# Rust binary spends about a quarter of a millisecond in the loader, a third of a hook call's
# cost (BENCHMARKS.md). They use no NSS (the service's user is read from /etc/passwd). With
# --target, RUSTFLAGS reach only the target's crates, never build scripts or proc macros.
RUSTFLAGS="${RUSTFLAGS:-} -C target-feature=+crt-static" \
  cargo build "${cargo_profile[@]}" --locked --manifest-path "$root/Cargo.toml" --target-dir "$ws_target" \
  --target "$triple" -p airlock-hook --bin airlock-hook --bin airlock-sh
mkdir -p "$root/src-tauri/binaries"
for b in airlock airlock-proxy; do
  # Stripped: the workspace release profile keeps line tables (debug = 1) for backtraces.
  install -s -m 0755 "$ws_target/$out_dir/$b" "$root/src-tauri/binaries/$b-$triple"
done
for b in airlock-hook airlock-sh; do
  install -s -m 0755 "$ws_target/$triple/$out_dir/$b" "$root/src-tauri/binaries/$b-$triple"
done

# Generated inputs of the bundle (paths named in installers/tauri.bundle.json).
gen="$root/installers/.build"
rm -rf "$gen"
mkdir -p "$gen"
gzip -9n -c "$root/installers/debian/changelog" > "$gen/changelog.gz"
for m in "$root"/installers/debian/man/*.1; do
  gzip -9n -c "$m" > "$gen/$(basename "$m").gz"
done

if [ ! -x "$root/ui/node_modules/.bin/tauri" ]; then
  (cd "$root/ui" && npm ci --no-audit --no-fund)
fi
cd "$root"
# The Tauri CLI reads CI as its boolean `--ci` flag and rejects anything but true/false, while
# CI systems set CI=1, CI=yes or CI=true: say the same thing in the one spelling it accepts.
if [ -n "${CI:-}" ]; then export CI=true; fi
tauri=(ui/node_modules/.bin/tauri)
"${tauri[@]}" build "${tauri_profile[@]}" --no-bundle --config "$root/installers/tauri.bundle.json" \
  -- --config "profile.$profile_name.package.airlock-app.strip=\"symbols\""

# Depends: the fixed ones (installers/tauri.bundle.json) and the shared libraries' packages.
app="$app_target/$out_dir/airlock-app"
shlibs_dir="$(mktemp -d)"
trap 'rm -rf "$shlibs_dir"' EXIT
mkdir "$shlibs_dir/debian"
printf 'Source: airlock\n\nPackage: airlock\nArchitecture: any\n' > "$shlibs_dir/debian/control"
elfs=(-e"$app")
for b in airlock airlock-hook airlock-sh airlock-proxy; do
  elfs+=(-e"$root/src-tauri/binaries/$b-$triple")
done
shlibs="$(cd "$shlibs_dir" && dpkg-shlibdeps -O "${elfs[@]}" \
  2>"$shlibs_dir/log" | sed -n 's/^shlibs:Depends=//p')" || true
if [ -z "$shlibs" ] || ! grep -q 'libc6' <<<"$shlibs"; then
  cat "$shlibs_dir/log" >&2
  echo "build.sh: dpkg-shlibdeps found no libc6 dependency (is dpkg-dev installed?)" >&2
  exit 1
fi
python3 - "$root/installers/tauri.bundle.json" "$shlibs" "$gen/deb-depends.json" <<'PY'
import json, sys
conf, shlibs, out = sys.argv[1:]
fixed = json.load(open(conf))["bundle"]["linux"]["deb"].get("depends", [])
depends = fixed + [d.strip() for d in shlibs.split(",") if d.strip()]
json.dump({"bundle": {"linux": {"deb": {"depends": depends}}}}, open(out, "w"), indent=2)
PY
echo "build.sh: .deb Depends: $(python3 -c 'import json,sys; print(", ".join(json.load(open(sys.argv[1]))["bundle"]["linux"]["deb"]["depends"]))' "$gen/deb-depends.json")"

"${tauri[@]}" bundle "${tauri_profile[@]}" --bundles deb,rpm \
  --config "$root/installers/tauri.bundle.json" --config "$gen/deb-depends.json"

out="$app_target/$out_dir/bundle"
ls -l "$out"/deb/*.deb "$out"/rpm/*.rpm
