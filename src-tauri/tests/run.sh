#!/usr/bin/env bash
# The tray app's test suite: unit tests, and the real-window tests (tests/gui.rs,
# tests/hook_popup.rs, tests/always_popup.rs, tests/remote_app.rs, tests/system_app.rs, tests/system_wizard.rs, tests/wizard.rs, tests/desktop.rs) under a virtual X display and a private session bus.
#
# On a fresh Debian 12 machine with the Rust toolchain it first installs the system packages
# the build and the tests need (only those missing; sudo only when not root), then builds the
# `airlock` CLI (workspace, its own target dir) and runs
#   dbus-run-session -- xvfb-run -a -s "-screen 0 1280x800x24" cargo test (src-tauri)
# Exits non-zero on any failure.
#
# Environment:
#   CARGO_TARGET_DIR        target dir for the app (default: src-tauri/target)
#   AIRLOCK_WS_TARGET_DIR   target dir for the workspace crates (default: <repo>/target)
#   AIRLOCK_SHOTS=<dir>     also write the screenshots (docs/ holds the committed ones)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
t0=$(date +%s)

# --- system packages -------------------------------------------------------------------
pkgs=(
  # build: Tauri v2 on Linux (WebKitGTK 4.1, GTK 3, tray, xdo)
  build-essential pkg-config file libssl-dev libdbus-1-dev
  libwebkit2gtk-4.1-dev libgtk-3-dev libayatana-appindicator3-dev librsvg2-dev libxdo-dev
  # tests: virtual display, session bus, clicking, screenshots, tray host, notifications
  xvfb xauth dbus-x11 xdotool imagemagick trayer dunst
  # remote approval through the app: a real Secret Service keyring for the TOTP secret
  gnome-keyring
)
missing=()
for p in "${pkgs[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if ((${#missing[@]})); then
  echo "run.sh: installing ${missing[*]}" >&2
  sudo=()
  if [ "$(id -u)" -ne 0 ]; then sudo=(sudo); fi
  "${sudo[@]}" apt-get update -qq
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
for t in cargo dbus-run-session xvfb-run xdotool import; do
  command -v "$t" >/dev/null || { echo "run.sh: \`$t\` is missing" >&2; exit 1; }
done

# --- the real `airlock` CLI the tests run as hooks ---------------------------------------
ws_target="${AIRLOCK_WS_TARGET_DIR:-$root/target}"
cargo build --quiet --manifest-path "$root/Cargo.toml" --locked \
  -p airlock-cli --bin airlock -p airlock-hook --bin airlock-hook --target-dir "$ws_target"
export AIRLOCK_TEST_CLI_BIN="$ws_target/debug/airlock"

# A package build (installers/build.sh) leaves the bundled side binaries next to the app;
# the app prefers an `airlock` beside itself, so stale ones would stand in for the CLI above.
app_target="${CARGO_TARGET_DIR:-$root/src-tauri/target}"
rm -f "$app_target"/debug/airlock "$app_target"/debug/airlock-hook \
  "$app_target"/debug/airlock-sh "$app_target"/debug/airlock-proxy

# --- build, then run under Xvfb ---------------------------------------------------------
cargo test --quiet --manifest-path "$root/src-tauri/Cargo.toml" --locked --no-run
dbus-run-session -- xvfb-run -a -s "-screen 0 1280x800x24" \
  cargo test --manifest-path "$root/src-tauri/Cargo.toml" --locked
# Remote approval through the app starts gnome-keyring on the session bus: a bus of its own.
dbus-run-session -- xvfb-run -a -s "-screen 0 1280x800x24" \
  cargo test --manifest-path "$root/src-tauri/Cargo.toml" --locked --test remote_app -- --ignored

echo "run.sh: tray suite passed in $(( $(date +%s) - t0 )) s" >&2
