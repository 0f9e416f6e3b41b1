#!/usr/bin/env python3
"""Per-call latency and memory of airlock-proxy, against the same MCP server called directly.

Usage (from the repository root, release build, peers installed):
    cargo build --release --bin airlock --bin airlock-proxy
    bash proxy/tests/setup-peers.sh
    proxy/tests/peers/.venv/bin/python proxy/tests/bench/proxy_latency.py --calls 500 --warmup 50

One run, one client, one server: the official `mcp` Python SDK client (the pinned version in
proxy/tests/peers/.venv) calls the `echo` tool of `@modelcontextprotocol/server-everything`
(proxy/tests/peers/node_modules, run as `node <entry>`) over stdio, one `tools/call` at a time:

    direct   client -> node server-everything
    airlock  client -> airlock-proxy serve --name everything -- node server-everything
    <name>   client -> any other stdio wrapper given with --wrapper NAME='CMD ... {server}'
             ({server} is replaced by the server's argv), e.g. an npm `mcp-doorman` if one is
             installed; without it that row says why it was skipped.

All sessions are opened side by side in one event loop (each with its own server process,
`initialize` and one `tools/list`, as a real client does), warmed up, then measured in
interleaved rounds (round r: calls/rounds calls on each path, path order rotated per round),
so background CPU noise lands on every path alike. Latency is the client's wall clock around
`session.call_tool` (`time.perf_counter_ns`), so every row includes the SDK client's own cost
(the `direct` row is that baseline plus node's); the ADDED latency is a row's p50 minus
direct's p50. The per-round spread of that difference is printed as a noise indicator.

Memory: VmRSS and VmHWM from /proc/<pid>/status of the wrapper process (and of the server
process under it, for scale), read after the measured calls while every session is still
open. CPU: the wrapper's utime+stime over the measured phase, divided by the calls.

Airlock runs as a throw-away user: HOME is a fresh temp dir (its store created by
`airlock mode`), XDG_* and RUST_LOG are removed, so the proxy uses its default policy
(balanced) and its default log level; children's stderr goes to a log file in that temp dir.
Prints a Markdown table and the exact command line. Every call's result is checked (the echo
must come back, not an Airlock block), so a mis-configured run fails instead of timing a
refusal.
"""
import argparse
import contextlib
import json
import math
import os
import platform
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

HERE = Path(__file__).resolve().parent
TESTS = HERE.parent
REPO = TESTS.parent.parent
PEERS = TESTS / "peers"
SERVER_ENTRY = PEERS / "node_modules/@modelcontextprotocol/server-everything/dist/index.js"
CLK_TCK = os.sysconf("SC_CLK_TCK")

DOORMAN_SKIP = (
    "skipped: no `mcp-doorman` stdio wrapper here (not on the npm registry; "
    "see proxy/tests/bench/README.md). Pass --wrapper doorman='CMD ... {server}' to add one."
)


# ---------------------------------------------------------------- /proc helpers (Linux only)

def children_of(pid):
    """Direct children of pid (scanning /proc/*/stat)."""
    out = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            stat = Path(f"/proc/{d}/stat").read_text()
        except OSError:
            continue
        # pid (comm) state ppid ...: comm may contain spaces and parens; split after the last ')'.
        fields = stat[stat.rfind(")") + 2:].split()
        if int(fields[1]) == pid:
            out.append(int(d))
    return out


def cmdline(pid):
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0].decode(errors="replace")
    except OSError:
        return "?"


def mem_kb(pid):
    """(VmRSS, VmHWM) in kB."""
    vals = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        k, _, v = line.partition(":")
        if k in ("VmRSS", "VmHWM"):
            vals[k] = int(v.split()[0])
    return vals.get("VmRSS", 0), vals.get("VmHWM", 0)


def cpu_s(pid):
    stat = Path(f"/proc/{pid}/stat").read_text()
    fields = stat[stat.rfind(")") + 2:].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK  # utime + stime


def descendants(pid):
    out = []
    for c in children_of(pid):
        out.append(c)
        out.extend(descendants(c))
    return out


# ---------------------------------------------------------------- statistics

def pct(sorted_ms, q):
    """Nearest-rank percentile."""
    if not sorted_ms:
        return float("nan")
    k = max(0, min(len(sorted_ms) - 1, math.ceil(q * len(sorted_ms)) - 1))
    return sorted_ms[k]


def summary(ms):
    s = sorted(ms)
    return {
        "n": len(s),
        "p50": statistics.median(s),
        "p90": pct(s, 0.90),
        "p99": pct(s, 0.99),
        "mean": statistics.fmean(s),
        "min": s[0],
        "max": s[-1],
    }


# ---------------------------------------------------------------- the run

class Route:
    """One measured path: a name, the argv the client spawns, and what it measured."""

    def __init__(self, name, argv):
        self.name = name
        self.argv = argv
        self.session = None
        self.wrapper_pid = None  # the process the client spawned
        self.server_pid = None  # node server-everything (== wrapper_pid for direct)
        self.times_ms = []
        self.rounds = []  # per-round list of ms
        self.mem = None
        self.server_mem = None
        self.cpu_per_call_us = None


async def open_path(stack, p, env, errlog):
    before = set(children_of(os.getpid()))
    params = StdioServerParameters(command=p.argv[0], args=p.argv[1:], env=env)
    read, write = await stack.enter_async_context(stdio_client(params, errlog=errlog))
    p.session = await stack.enter_async_context(ClientSession(read, write))
    await p.session.initialize()
    tools = await p.session.list_tools()
    names = [t.name for t in tools.tools]
    if "echo" not in names:
        raise SystemExit(f"{p.name}: no `echo` tool listed: {names}")
    new = [c for c in children_of(os.getpid()) if c not in before]
    if len(new) != 1:
        raise SystemExit(f"{p.name}: expected one new child process, found {new}")
    p.wrapper_pid = new[0]
    if p.name == "direct":
        p.server_pid = p.wrapper_pid
    else:
        nodes = [d for d in descendants(p.wrapper_pid) if "node" in os.path.basename(cmdline(d))]
        p.server_pid = nodes[0] if nodes else None


async def call(p, i, message):
    text = f"{message} #{i}"
    t0 = time.perf_counter_ns()
    r = await p.session.call_tool("echo", {"message": text}, read_timeout_seconds=10)
    dt = (time.perf_counter_ns() - t0) / 1e6
    got = " ".join(c.text for c in r.content if getattr(c, "type", "") == "text")
    if r.is_error or text not in got:
        raise SystemExit(f"{p.name}: call {i} did not echo (isError={r.is_error}): {got[:300]!r}")
    return dt


async def run(a, paths, env, errlog):
    async with contextlib.AsyncExitStack() as stack:
        for p in paths:
            await open_path(stack, p, env, errlog)
        for p in paths:  # warm-up: JIT in node, page-in, SQLite cache, SDK caches
            for i in range(a.warmup):
                await call(p, -i - 1, a.message)
        cpu0 = {p.name: cpu_s(p.wrapper_pid) for p in paths}
        per_round = max(1, a.calls // a.rounds)
        for r in range(a.rounds):
            order = paths[r % len(paths):] + paths[:r % len(paths)]
            for p in order:
                this = []
                for i in range(per_round):
                    this.append(await call(p, r * per_round + i, a.message))
                p.rounds.append(this)
                p.times_ms.extend(this)
        for p in paths:
            n = len(p.times_ms)
            p.cpu_per_call_us = (cpu_s(p.wrapper_pid) - cpu0[p.name]) / n * 1e6
            p.mem = mem_kb(p.wrapper_pid)
            if p.server_pid is not None:
                p.server_mem = mem_kb(p.server_pid)
        # Leaving the stack closes every session (stdin closed, processes reaped).


def fmt_mem(m):
    return f"{m[0] / 1024:.1f} / {m[1] / 1024:.1f}" if m else "–"


def report(a, paths, skipped, load_before, load_after, started):
    direct = next(p for p in paths if p.name == "direct")
    d = summary(direct.times_ms)
    lines = []
    lines.append(f"Command: `{shlex.join(sys.orig_argv)}`  (cwd `{os.getcwd()}`)")
    lines.append("")
    lines.append(
        f"{started} · {platform.node()} · {os.cpu_count()} CPUs · Python {platform.python_version()} · "
        f"node {subprocess.run(['node', '--version'], capture_output=True, text=True).stdout.strip()} · "
        f"loadavg before {load_before} / after {load_after} · "
        f"{a.warmup} warm-up + {len(direct.times_ms)} measured calls per path in {a.rounds} interleaved rounds"
    )
    lines.append("")
    lines.append(
        "| path | p50 ms | p90 ms | p99 ms | mean ms | added p50 ms (per-round min…max) | "
        "added p90 ms | wrapper RSS / HWM MB | server RSS / HWM MB | wrapper CPU µs/call |"
    )
    lines.append("|---|---|---|---|---|---|---|---|---|---|")
    for p in paths:
        s = summary(p.times_ms)
        if p is direct:
            added = "–"
            added90 = "–"
            wrap_mem = "– (no wrapper)"
            cpu = "–"
        else:
            diffs = [statistics.median(x) - statistics.median(y) for x, y in zip(p.rounds, direct.rounds)]
            added = f"**{s['p50'] - d['p50']:+.3f}** ({min(diffs):+.3f}…{max(diffs):+.3f})"
            added90 = f"{s['p90'] - d['p90']:+.3f}"
            wrap_mem = fmt_mem(p.mem)
            cpu = f"{p.cpu_per_call_us:.0f}"
        lines.append(
            f"| {p.name} | {s['p50']:.3f} | {s['p90']:.3f} | {s['p99']:.3f} | {s['mean']:.3f} | "
            f"{added} | {added90} | {wrap_mem} | {fmt_mem(p.server_mem)} | {cpu} |"
        )
    for name, why in skipped:
        lines.append(f"| {name} | – | – | – | – | {why} | – | – | – | – |")
    lines.append("")
    airlock = next((p for p in paths if p.name == "airlock"), None)
    if airlock is not None:
        added = summary(airlock.times_ms)["p50"] - d["p50"]
        rss_mb = airlock.mem[0] / 1024
        hwm_mb = airlock.mem[1] / 1024
        lines.append(
            f"Targets: added p50 < {a.target_added_ms} ms → "
            f"{'met' if added < a.target_added_ms else f'MISSED by {added - a.target_added_ms:.3f} ms'} "
            f"({added:.3f} ms); RSS < {a.target_rss_mb} MB → "
            f"{'met' if rss_mb < a.target_rss_mb else f'MISSED by {rss_mb - a.target_rss_mb:.1f} MB'} "
            f"(VmRSS {rss_mb:.1f} MB, VmHWM {hwm_mb:.1f} MB)."
        )
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--proxy", default=str(REPO / "target/release/airlock-proxy"))
    ap.add_argument("--airlock", default=str(REPO / "target/release/airlock"))
    ap.add_argument("--node", default="node")
    ap.add_argument("--server", default=str(SERVER_ENTRY), help="server-everything's entry (dist/index.js)")
    ap.add_argument("--calls", type=int, default=500, help="measured calls per path")
    ap.add_argument("--warmup", type=int, default=50, help="warm-up calls per path")
    ap.add_argument("--rounds", type=int, default=10, help="interleaved rounds the calls are split into")
    ap.add_argument("--message", default="hello from the airlock latency bench")
    ap.add_argument(
        "--wrapper", action="append", default=[], metavar="NAME='CMD ... {server}'",
        help="another stdio wrapper to measure; {server} becomes the server argv",
    )
    ap.add_argument("--target-added-ms", type=float, default=0.2)
    ap.add_argument("--target-rss-mb", type=float, default=15.0)
    ap.add_argument("--json", help="also write the raw per-call samples here")
    ap.add_argument("--keep", action="store_true", help="keep the temp HOME (store, children's stderr log)")
    a = ap.parse_args()

    for f in (a.proxy, a.airlock, a.server):
        if not Path(f).exists():
            raise SystemExit(f"missing {f}: build with `cargo build --release --bin airlock "
                             "--bin airlock-proxy` and run `bash proxy/tests/setup-peers.sh`")

    started = time.strftime("%Y-%m-%d %H:%M:%S %Z")
    home = tempfile.mkdtemp(prefix="airlock-bench-")
    env = {k: v for k, v in os.environ.items() if not k.startswith("XDG_") and k != "RUST_LOG"}
    env["HOME"] = home
    # Create the store (and its default policy) as that user.
    subprocess.run([a.airlock, "mode"], env=env, cwd=home, check=True, capture_output=True)

    server = [a.node, a.server]
    paths = [Route("direct", server),
             Route("airlock", [a.proxy, "serve", "--name", "everything", "--"] + server)]
    skipped = []
    names = set()
    for w in a.wrapper:
        name, _, tmpl = w.partition("=")
        argv = []
        for tok in shlex.split(tmpl):
            argv.extend(server if tok == "{server}" else [tok])
        paths.append(Route(name, argv))
        names.add(name)
    if "doorman" not in names:
        skipped.append(("doorman", DOORMAN_SKIP))

    load_before = " ".join(Path("/proc/loadavg").read_text().split()[:3])
    with open(os.path.join(home, "children-stderr.log"), "w") as errlog:
        anyio.run(run, a, paths, env, errlog)
    load_after = " ".join(Path("/proc/loadavg").read_text().split()[:3])

    print(report(a, paths, skipped, load_before, load_after, started))
    if a.keep:
        print(f"\n(temp HOME kept: {home}; children's stderr in children-stderr.log)")
    else:
        shutil.rmtree(home, ignore_errors=True)
    if a.json:
        Path(a.json).write_text(json.dumps({
            p.name: {"samples_ms": p.times_ms, "wrapper_mem_kb": p.mem, "server_mem_kb": p.server_mem,
                     "cpu_per_call_us": p.cpu_per_call_us} for p in paths}))


if __name__ == "__main__":
    main()
