#!/usr/bin/env python3
"""Whole-process hook latency: Airlock's `airlock hook claude-code` and Doberman's
`doberman hook pre`, on the same typical PreToolUse payloads, side by side.

Usage:
    cargo build --release --bin airlock
    python3 -m venv /tmp/dobenv && /tmp/dobenv/bin/pip install doberman-core
    python3 tests/bench/hook_latency.py --airlock target/release/airlock \
        --doberman /tmp/dobenv/bin/doberman --runs 300

Each run is one fresh process fed one payload on stdin (as an agent host does), with HOME
pointing at a fresh temporary directory per tool so both use a real, warm local store.
Reports p50/p90/p99 wall-clock milliseconds and the ratio. Prints a Markdown table.
"""
import argparse
import json
import os
import statistics
import subprocess
import tempfile
import time

COMMANDS = [
    "git status",
    "cargo test --workspace",
    "npm run build && npm test",
    "ls -la src/",
    "grep -rn TODO src/ | head -20",
    "git diff --stat HEAD~1",
    "python3 -m pytest -q tests/",
    "rm -rf node_modules && npm ci",
    "curl -s https://api.github.com/repos/rust-lang/rust",
    "cat README.md",
]


def payloads():
    out = []
    for i, c in enumerate(COMMANDS):
        out.append(json.dumps({
            "session_id": f"bench-{i % 3}",
            "transcript_path": "/tmp/t.jsonl",
            "cwd": "/home/dev/project",
            "permission_mode": "default",
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": c, "description": "bench"},
        }).encode())
    return out


def measure(argv, runs, home):
    env = dict(os.environ, HOME=home)
    for k in ("XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
        env.pop(k, None)
    ps = payloads()
    # Warm-up: create stores, page the binaries in.
    for p in ps:
        subprocess.run(argv, input=p, env=env, capture_output=True, check=False)
    times = []
    for i in range(runs):
        p = ps[i % len(ps)]
        t = time.perf_counter()
        r = subprocess.run(argv, input=p, env=env, capture_output=True, check=False)
        times.append((time.perf_counter() - t) * 1000.0)
        if r.returncode not in (0, 2):
            raise SystemExit(f"{argv[0]} failed: {r.returncode} {r.stderr[:200]!r}")
    times.sort()
    q = lambda f: times[min(len(times) - 1, int(f * len(times)))]
    return {"p50": statistics.median(times), "p90": q(0.90), "p99": q(0.99), "mean": statistics.fmean(times)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--airlock", required=True)
    ap.add_argument("--doberman")
    ap.add_argument("--runs", type=int, default=300)
    a = ap.parse_args()
    rows = []
    # The harness's own cost: spawning a process that does nothing.
    with tempfile.TemporaryDirectory() as h:
        rows.append(("/bin/true (spawn baseline)", measure(["/bin/true"], a.runs, h)))
    with tempfile.TemporaryDirectory() as h:
        rows.append(("airlock hook claude-code", measure([a.airlock, "hook", "claude-code"], a.runs, h)))
    if a.doberman:
        with tempfile.TemporaryDirectory() as h:
            rows.append(("doberman hook pre", measure([a.doberman, "hook", "pre"], a.runs, h)))
    print(f"runs per tool: {a.runs}\n")
    print("| hook | p50 ms | p90 ms | p99 ms | mean ms |")
    print("|---|---|---|---|---|")
    for name, r in rows:
        print(f"| {name} | {r['p50']:.2f} | {r['p90']:.2f} | {r['p99']:.2f} | {r['mean']:.2f} |")
    if len(rows) == 3:
        ra, rd = rows[1][1], rows[2][1]
        print(f"\nDoberman / Airlock: p50 x{rd['p50'] / ra['p50']:.1f}, p99 x{rd['p99'] / ra['p99']:.1f}")


if __name__ == "__main__":
    main()
