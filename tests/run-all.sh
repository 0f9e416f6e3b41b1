#!/usr/bin/env bash
# The whole test suite, as the README gives it and CI runs it:
#   1. the real MCP peers the proxy tests drive (npm + PyPI, idempotent);
#   2. every workspace crate: engine, hooks, store, broker, wire, CLI, proxy (real servers and
#      clients, HTTP front, gateway, conformance suite), end-to-end hooks and the corpus gate;
#   3. the tray app: its apt packages when missing, then unit and real-window tests under
#      Xvfb and a private D-Bus session (src-tauri/tests/run.sh);
#   4. the package: the .deb built (debug profile), installed with apt as root, the system
#      protection level checked with a real hook call from an unprivileged user, removed
#      (installers/test-package.sh; skips loudly when not root, fails when CI is set);
#   5. the release checks: lintian on the .deb, then throwaway GPG, minisign and Tauri updater
#      keys sign the packages, every artefact is verified as a user would, and tampered copies
#      must fail verification (installers/test-signing.sh; same root rule).
# Exits non-zero on the first failure.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"
t0=$(date +%s)
bash proxy/tests/setup-peers.sh
cargo test --workspace --locked
echo "run-all: workspace passed after $(( $(date +%s) - t0 )) s" >&2
bash src-tauri/tests/run.sh
bash installers/test-package.sh
bash installers/test-signing.sh
echo "run-all: everything passed in $(( $(date +%s) - t0 )) s" >&2
