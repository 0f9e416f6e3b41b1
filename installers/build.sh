#!/usr/bin/env bash
# Builds the Linux packages (.deb and .rpm) of the Airlock tray app, offline, with the npm
# Tauri CLI (ui/node_modules/.bin/tauri). The packages also carry the `airlock` CLI (the guard
# service), `airlock-hook` (the small hook binary the wiring runs), `airlock-sh` (the wrapper
# shell) and `airlock-proxy` (the MCP proxy), installed next to the app in /usr/bin: Tauri's `bundle.externalBin` wants them as
# src-tauri/binaries/<name>-<target triple>, which this script builds and copies there.
#
# Usage: installers/build.sh            (from anywhere; outputs under <app target>/release/bundle/)
# Environment: CARGO_TARGET_DIR (the app's target dir), AIRLOCK_WS_TARGET_DIR (workspace's),
#   AIRLOCK_PACKAGE_PROFILE=debug  build the packages from debug builds (what CI installs and
#   tests: it reuses the test builds instead of two release builds; outputs under
#   <app target>/debug/bundle/). Binaries are stripped either way.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ws_target="${AIRLOCK_WS_TARGET_DIR:-$root/target}"
triple="$(rustc -vV | sed -n 's/^host: //p')"

profile="${AIRLOCK_PACKAGE_PROFILE:-release}"
case "$profile" in
  release) cargo_profile=(--release); tauri_profile=(); out_dir=release ;;
  debug) cargo_profile=(); tauri_profile=(--debug); out_dir=debug ;;
  *) echo "build.sh: AIRLOCK_PACKAGE_PROFILE is release or debug" >&2; exit 2 ;;
esac
cargo build "${cargo_profile[@]}" --locked --manifest-path "$root/Cargo.toml" --target-dir "$ws_target" \
  -p airlock-cli --bin airlock -p airlock-hook --bin airlock-hook --bin airlock-sh -p airlock-proxy --bin airlock-proxy
mkdir -p "$root/src-tauri/binaries"
for b in airlock airlock-hook airlock-sh airlock-proxy; do
  # Stripped: the workspace release profile keeps line tables (debug = 1) for backtraces.
  install -s -m 0755 "$ws_target/$out_dir/$b" "$root/src-tauri/binaries/$b-$triple"
done

if [ ! -x "$root/ui/node_modules/.bin/tauri" ]; then
  (cd "$root/ui" && npm ci --no-audit --no-fund)
fi
cd "$root"
ui/node_modules/.bin/tauri build "${tauri_profile[@]}" --bundles deb,rpm --config "$root/installers/tauri.bundle.json"

out="${CARGO_TARGET_DIR:-$root/src-tauri/target}/$out_dir/bundle"
ls -l "$out"/deb/*.deb "$out"/rpm/*.rpm
