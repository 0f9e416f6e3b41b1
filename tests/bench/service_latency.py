#!/usr/bin/env python3
"""Hook latency through the resident guard service, against the bare process-spawn time, and
how it holds up with use.

Usage:
    cargo build --release --bin airlock --bin airlock-hook
    RUSTFLAGS="-C target-feature=+crt-static" cargo build --release -p airlock-hook \
        --bin airlock-hook --target x86_64-unknown-linux-gnu     # what the package ships
    python3 tests/bench/service_latency.py --airlock target/release/airlock \
        --hook target/x86_64-unknown-linux-gnu/release/airlock-hook --runs 1000 --soak 100000

1. Spawn baseline: `/bin/true` fed the same payload on stdin, one fresh process each time.
2. `airlock-hook claude-code` (what the wiring runs: the small hook binary next to `airlock`)
   and `airlock hook claude-code` (the same client inside the full CLI), PASS payloads, one
   fresh process each time, the service warm; the three are measured in interleaved rounds.
3. Soak: `--soak` hook requests straight over the service's socket (the same service code
   path minus the process spawn), then (2) again: the first 1,000 and last 1,000 soak requests
   and the before/after process figures are compared (target: within 10%).
All in one temp HOME with a real store (`airlock setup`). Prints Markdown tables.
"""
import argparse
import json
import os
import socket
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
    "cat README.md",
]


def payload(i):
    return json.dumps({
        "session_id": f"bench-{i % 3}",
        "transcript_path": "/tmp/t.jsonl",
        "cwd": "/home/dev/project",
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": COMMANDS[i % len(COMMANDS)], "description": "bench"},
    })


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(len(xs) * p))]


def row(name, xs):
    return f"| {name} | {pct(xs, .5):.3f} | {pct(xs, .9):.3f} | {pct(xs, .99):.3f} | {statistics.mean(xs):.3f} |"


def spawn_times(argv, env, runs):
    out = []
    for i in range(runs):
        p = payload(i).encode()
        t = time.perf_counter()
        r = subprocess.run(argv, input=p, env=env, capture_output=True, check=False)
        out.append((time.perf_counter() - t) * 1000)
        if argv[0] != "/bin/true" and (r.returncode != 0 or r.stdout.strip() != b"{}"):
            raise SystemExit(f"unexpected answer: {r.returncode} {r.stdout!r} {r.stderr!r}")
    return out


def socket_times(path, n):
    out = []
    for i in range(n):
        req = json.dumps({"type": "hook", "host": "claude-code", "payload": payload(i)}) + "\n"
        t = time.perf_counter()
        s = socket.socket(socket.AF_UNIX)
        s.connect(path)
        s.sendall(req.encode())
        f = s.makefile("rb")
        line = f.readline()
        if b'"need_files"' in line:
            # As the hook client does for paths it cannot show: nothing supplied.
            s.sendall(b'{"type":"files","facts":{}}\n')
            line = f.readline()
        s.sendall(b'{"type":"ack"}\n')
        s.close()
        out.append((time.perf_counter() - t) * 1000)
        if b'"exit_code":0' not in line:
            raise SystemExit(f"unexpected answer: {line!r}")
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--airlock", required=True)
    ap.add_argument("--runs", type=int, default=1000)
    ap.add_argument("--soak", type=int, default=100000)
    ap.add_argument("--plain", action="store_true",
                    help="only the payloads whose judging reads no file (ls, grep, cat): no "
                    "round trip for the files a call runs or reads")
    ap.add_argument("--hook", help="the airlock-hook binary to measure (default: next to "
                    "--airlock; the package ships a statically linked one, see BENCHMARKS.md)")
    ap.add_argument("--unstripped", action="store_true",
                    help="measure the hook binary as built (with debug info) instead of a "
                    "stripped copy, as the package ships it")
    a = ap.parse_args()
    if a.plain:
        global COMMANDS
        COMMANDS = ["ls -la src/", "grep -rn TODO src/ | head -20", "cat README.md"]
    airlock = os.path.abspath(a.airlock)
    hook = os.path.abspath(a.hook) if a.hook else os.path.join(os.path.dirname(airlock), "airlock-hook")
    if not os.path.isfile(hook):
        raise SystemExit(f"no {hook}: cargo build --release --bin airlock-hook")
    if not a.unstripped:
        # Measure the binary as the package ships it: stripped (`install -s` in
        # installers/build.sh). The release profile keeps debug info, and starting a binary
        # that carries ~160 MB of it costs about a tenth of a millisecond more.
        shipped = os.path.join(tempfile.mkdtemp(prefix="airlock-hook-"), "airlock-hook")
        if subprocess.run(["strip", "-o", shipped, hook], check=False).returncode == 0:
            hook = shipped
        else:
            print("note: `strip` unavailable; measuring the unstripped hook")
    home = tempfile.mkdtemp(prefix="airlock-bench-")
    env = dict(os.environ, HOME=home)
    for k in ("XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_RUNTIME_DIR"):
        env.pop(k, None)
    subprocess.run([airlock, "setup", "--password-stdin"], input=b"bench password 1\n", env=env,
                   check=True, capture_output=True)
    sock = os.path.join(home, ".local/share/airlock/run/guard.sock")
    try:
        spawn_times([airlock, "hook", "claude-code"], env, 50)  # start + warm the service
        paths = {"true": ["/bin/true"], "small": [hook, "claude-code"],
                 "cli": [airlock, "hook", "claude-code"]}

        def rounds():
            got = {k: [] for k in paths}
            for _ in range(10):
                for k, argv in paths.items():
                    got[k] += spawn_times(argv, env, max(1, a.runs // 10))
            return got

        first = rounds()
        base, before = first["true"], first["small"]
        t0 = time.time()
        soak = socket_times(sock, a.soak) if a.soak else []
        soak_s = time.time() - t0
        later = rounds()
        after = later["small"]
        db = os.path.join(home, ".local/share/airlock/airlock.db")
        wal = os.path.getsize(db + "-wal") if os.path.exists(db + "-wal") else 0
        print("| path | p50 ms | p90 ms | p99 ms | mean ms |")
        print("|---|---|---|---|---|")
        print(row("`/bin/true` (spawn baseline)", base))
        print(row("`airlock-hook claude-code` via the service, first", before))
        print(row("`airlock hook claude-code` (full CLI), first", first["cli"]))
        print(row(f"`airlock-hook claude-code` after {a.soak} more calls", after))
        print(row(f"`/bin/true` after {a.soak} more calls", later["true"]))
        print()
        print(f"p50 airlock-hook / p50 spawn: first {pct(before, .5) / pct(base, .5):.2f}x, "
              f"after the soak {pct(after, .5) / pct(later['true'], .5):.2f}x; "
              f"full CLI first {pct(first['cli'], .5) / pct(base, .5):.2f}x")
        if soak:
            first, last = soak[:1000], soak[-1000:]
            print(f"soak over the socket: {a.soak} calls in {soak_s:.0f} s; first 1,000 p50 "
                  f"{pct(first, .5):.3f} ms, last 1,000 p50 {pct(last, .5):.3f} ms "
                  f"({(pct(last, .5) / pct(first, .5) - 1) * 100:+.1f}%); WAL after: {wal} bytes; "
                  f"store: {os.path.getsize(db)} bytes")
    finally:
        try:
            s = socket.socket(socket.AF_UNIX)
            s.connect(sock)
            s.sendall(b'{"type":"shutdown"}\n')
            s.recv(64)
        except OSError:
            pass


if __name__ == "__main__":
    main()
