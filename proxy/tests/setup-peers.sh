#!/usr/bin/env bash
# Installs the real MCP peers airlock-proxy's integration tests drive, idempotently:
#   - npm: @modelcontextprotocol/server-filesystem, server-everything and the MCP conformance
#     suite @modelcontextprotocol/conformance (versions pinned by peers/package.json +
#     package-lock.json) into peers/node_modules
#   - PyPI: the `mcp` SDK (pinned below) into the virtualenv peers/.venv
# Needs node/npm and python3 (with venv). Safe to run again: it only installs what is missing
# or out of date. Run it before `cargo test` (CI: before `cargo test --workspace`).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
peers="$here/peers"
MCP_VERSION="2.3.0"

exec 9>"$peers/.stamp-lock"
flock 9 2>/dev/null || true

if [ ! -f "$peers/node_modules/.package-lock.json" ] \
   || ! cmp -s "$peers/package-lock.json" "$peers/.stamp-npm" \
   || [ ! -x "$peers/node_modules/.bin/mcp-server-filesystem" ] \
   || [ ! -x "$peers/node_modules/.bin/mcp-server-everything" ] \
   || [ ! -x "$peers/node_modules/.bin/conformance" ]; then
  (cd "$peers" && npm ci --no-audit --no-fund --loglevel=error)
  cp "$peers/package-lock.json" "$peers/.stamp-npm"
fi

if [ ! -x "$peers/.venv/bin/python" ] \
   || [ "$(cat "$peers/.stamp-pip" 2>/dev/null)" != "mcp==$MCP_VERSION" ]; then
  python3 -m venv "$peers/.venv"
  "$peers/.venv/bin/python" -m pip install --quiet --disable-pip-version-check "mcp==$MCP_VERSION"
  echo "mcp==$MCP_VERSION" > "$peers/.stamp-pip"
fi

"$peers/.venv/bin/python" -c "import mcp, mcp_types" >/dev/null
echo "MCP test peers ready in $peers"
