"""A real MCP client (the official `mcp` Python SDK) that drives airlock-proxy for the tests.

Usage:
    python mcp_client.py --steps JSON [--elicit accept|decline|hang|none] -- <proxy command> [args...]
    python mcp_client.py --steps JSON [--elicit ...] --url http://127.0.0.1:PORT/mcp

It spawns the proxy over stdio (or, with --url, connects with the SDK's streamable-HTTP client), runs the `initialize` handshake, then the steps in order,
and prints one JSON object per line on stdout:

    {"step": N, "op": "list", "tools": [...]}            tools/list (names and full entries)
    {"step": N, "op": "call", "result": {...}}           tools/call result (as the SDK parsed it)
    {"step": N, "op": "call", "error": {"code", "message"}}  a JSON-RPC error (or a timeout)
    {"op": "elicitations", "messages": [...]}            every approval prompt the proxy sent

Steps (a JSON array):
    {"op": "list"}
    {"op": "call", "name": "...", "args": {...}, "timeout": 10, "progress": true}
    {"op": "sleep", "s": 0.5}
    {"op": "resources"}                                   resources/list → {"uris": [...]}
    {"op": "read", "uri": "..."}                          resources/read → {"result"} or {"error"}
    {"op": "prompts"}                                     prompts/list → {"names": [...]}

--elicit: how the user answers approval prompts (`none` advertises no elicitation
capability at all; `hang` never answers).
"""

import argparse
import json
import os
import sys

import anyio
import mcp_types as types
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError


def emit(obj):
    print(json.dumps(obj), flush=True)


async def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", required=True)
    ap.add_argument("--elicit", default="none", choices=["accept", "decline", "hang", "none"])
    ap.add_argument("--url", default=None)
    ap.add_argument("command", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.command[1:] if a.command and a.command[0] == "--" else a.command
    steps = json.loads(a.steps)
    prompts = []

    async def on_elicit(context, params):
        prompts.append({"message": params.message, "schema": params.requested_schema})
        if a.elicit == "hang":
            await anyio.sleep(3600)
        if a.elicit == "accept":
            return types.ElicitResult(action="accept", content={"approve": True})
        return types.ElicitResult(action="decline")

    kwargs = {} if a.elicit == "none" else {"elicitation_callback": on_elicit}
    if a.url:
        transport = streamable_http_client(a.url)
    else:
        params = StdioServerParameters(command=cmd[0], args=cmd[1:], env=dict(os.environ))
        transport = stdio_client(params)
    async with transport as streams:
        read, write = streams[0], streams[1]
        async with ClientSession(read, write, **kwargs) as session:
            init = await session.initialize()
            emit({"op": "initialize", "server": init.server_info.name})
            for i, step in enumerate(steps):
                op = step["op"]
                if op == "sleep":
                    await anyio.sleep(step["s"])
                    continue
                if op == "list":
                    r = await session.list_tools()
                    tools = [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in r.tools]
                    emit({"step": i, "op": "list", "names": [t["name"] for t in tools], "tools": tools})
                    continue
                if op == "call":
                    progress = []

                    async def on_progress(p, total, message, _progress=progress):
                        _progress.append(p)

                    try:
                        r = await session.call_tool(
                            step["name"],
                            step.get("args", {}),
                            read_timeout_seconds=step.get("timeout", 20),
                            progress_callback=on_progress if step.get("progress") else None,
                        )
                        out = {"step": i, "op": "call", "result": r.model_dump(mode="json", by_alias=True, exclude_none=True)}
                    except MCPError as e:
                        out = {"step": i, "op": "call", "error": {"code": e.error.code, "message": e.error.message}}
                    if step.get("progress"):
                        out["progress"] = progress
                    emit(out)
                    continue
                if op == "resources":
                    r = await session.list_resources()
                    emit({"step": i, "op": op, "uris": [str(x.uri) for x in r.resources]})
                    continue
                if op == "prompts":
                    r = await session.list_prompts()
                    emit({"step": i, "op": op, "names": [x.name for x in r.prompts]})
                    continue
                if op == "read":
                    try:
                        r = await session.read_resource(step["uri"])
                        out = {"step": i, "op": op, "result": r.model_dump(mode="json", by_alias=True, exclude_none=True)}
                    except MCPError as e:
                        out = {"step": i, "op": op, "error": {"code": e.error.code, "message": e.error.message}}
                    emit(out)
                    continue
                raise SystemExit(f"unknown step {op}")
            emit({"op": "elicitations", "messages": prompts})


if __name__ == "__main__":
    try:
        anyio.run(main)
    except BaseException as e:  # report, then fail: the Rust test shows stderr
        print(f"mcp_client: {type(e).__name__}: {e}", file=sys.stderr)
        raise
