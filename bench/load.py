"""Throughput and latency of the running app under concurrent clients ("household trust",
point 4: threads).

Usage (from the project root)::

    .venv/bin/python bench/load.py [--clients 8] [--duration 30] [--warmup 10] [--threads 1]
        [--memories 25000] [--seed 1] [--reuse] [--keep] [--no-worker] [--workers 2]
    .venv/bin/python bench/load.py --url http://127.0.0.1:8000 --token tr_...
        [--user NAME --password PASSWORD]

By default the script serves the app itself, as ``make run`` does (scripts/serve.sh):

1. a data directory (``TALKINGROCK_DATA_DIR``) with the household of bench/recall_latency.py:
   ``--memories`` memories for four members holding 40/30/20/10 %, so the measured member
   (maya) has about 10,000 of the default 25,000; a quarter come from five-memory
   conversations; every one stored through ``memory_store`` and embedded and entity-indexed by
   the real write path (all-MiniLM-L6-v2), so ``search_memories`` does real vector recall. A
   fresh temporary directory, removed at the end unless ``--keep``. With ``--reuse`` the seeded
   database is built once in var/bench-load/household-<memories>-seed<seed>/ and each run works
   on a copy of it (the runs write recall trails and links, the cache stays as built);
2. in a child process: ``migrate``, a password for the member and an API token;
3. ``gunicorn household.asgi:application`` (gunicorn.conf.py: two ASGI workers, as ``make run``) on
   127.0.0.1 and a free port, with ``TALKINGROCK_THREADS=--threads`` (talkingrock/threads.py:
   every numeric library's thread count in every process), and ``manage.py qcluster`` beside it
   unless ``--no-worker``; their output goes to server.log and worker.log in the data directory.
   The script waits until the login page answers (exit code 2 if it never does), then signs in
   through the real login form for a session cookie.

``--url URL --token T`` measures an already running server instead; page loads need
``--user``/``--password`` (without them the mix is the two tools only).

``--clients`` threads of this one process each send one request at a time, with ``http.client``
on loopback, a new connection per request (gunicorn's sync workers close it after each
response). Threads, not processes: the clients spend their time blocked on sockets, which
releases the GIL, so one light process (its CPU time is printed) leaves the two cores to the
server. Each request is drawn from the mix below, with queries from bench/memory_query.py (the
keyword mix: rare and mid-frequency words, agent phrasing, names, punctuation and FTS syntax,
no match) for ``memory_query`` and the keyword search page, and the household questions of
bench/recall_latency.py for ``search_memories`` and the search page by meaning.

Pages are fetched without their static files (a browser loads those once and caches them).

First, rounds of simultaneous ``search_memories`` calls until every gunicorn worker has loaded
torch, the model and the member's vectors (several seconds, once per worker); then ``--warmup``
seconds of the mix, left out of the figures; then ``--duration`` seconds measured. The figures
are the requests completed inside that window: count, requests/s, p50/p95/max latency and
errors (an exception or a status of 400 or more), per kind and overall, with every status seen.
Also printed: the command, date, machine, load average before and after, the server's settings,
each server process's thread count and CPU time in the window, the CPU time everything else on
the machine took meanwhile (with a warning when it is more than 5 %: the figures are then not
the app's alone), and what the server logged (tracebacks, "database is locked", worker timeouts).

This file holds the arguments, the measured window and the report; the data directory and the
server's processes are in ``bench/load_server.py``, the mix and the clients in
``bench/load_clients.py``.
"""

from __future__ import annotations

import argparse
import os
import platform
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from load_clients import (
    MIX,
    PAGES,
    Run,
    Sample,
    Target,
    client,
    find_act_path,
    household_queries,
    prime,
    sign_in,
    wait_until_up,
)
from load_server import (
    CACHE_ROOT,
    ROOT,
    STARTUP_SECONDS,
    busy_cpu_seconds,
    child_prepare,
    free_port,
    log_findings,
    prepare_data,
    process_facts,
    start_servers,
    stop,
)
from timing import log, percentile

# Share of the machine's CPU in the window that other processes may take before the report
# says the figures are not the app's alone (a test suite in another shell takes 25-50 %).
OTHERS_WARNING = 0.05


# --- the report ------------------------------------------------------------------------------------


def fmt_ms(seconds: list[float], pct: float) -> str:
    return f"{1000 * percentile(seconds, pct):.0f}" if seconds else "–"


def table(samples: list[Sample], duration: float, mix) -> list[str]:
    lines = [
        "| requests | n | req/s | p50 ms | p95 ms | max ms | errors | statuses | mean results |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    groups = [("**all**", samples)] + [
        (kind, [s for s in samples if s.kind == kind]) for kind, _ in mix
    ]
    for name, group in groups:
        took = [s.ended - s.started for s in group]
        statuses = Counter(s.outcome for s in group)
        counted = [s.results for s in group if s.results is not None]
        lines.append(
            f"| {name} | {len(group)} | {len(group) / duration:.1f} | {fmt_ms(took, 50)} | "
            f"{fmt_ms(took, 95)} | {f'{1000 * max(took):.0f}' if took else '–'} | "
            f"{sum(s.error for s in group)} | "
            + (", ".join(f"{k}×{v}" for k, v in sorted(statuses.items())) or "–")
            + f" | {f'{sum(counted) / len(counted):.1f}' if counted else '–'} |"
        )
    return lines


def machine() -> str:
    model = ""
    try:
        model = next(
            line.split(":", 1)[1].strip()
            for line in Path("/proc/cpuinfo").read_text().splitlines()
            if line.startswith("model name")
        )
    except (OSError, StopIteration):
        pass
    return (
        f"{os.cpu_count()} cores ({model}), Python {platform.python_version()}, "
        f"{platform.platform()}"
    )


def load_average() -> str:
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())


# --- main --------------------------------------------------------------------------------------------


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=8, help="concurrent clients (threads)")
    parser.add_argument(
        "--duration", type=float, default=30, help="measured seconds, after the warm-up"
    )
    parser.add_argument(
        "--warmup", type=float, default=10, help="seconds of load left out of the figures"
    )
    parser.add_argument(
        "--threads",
        type=int,
        default=1,
        help="TALKINGROCK_THREADS for the server's processes: threads per numeric library",
    )
    parser.add_argument(
        "--workers", type=int, default=2, help="gunicorn workers (scripts/serve.sh runs 2)"
    )
    parser.add_argument(
        "--no-worker",
        action="store_true",
        help="do not run the django-q2 worker (manage.py qcluster) beside the web server",
    )
    parser.add_argument(
        "--memories",
        type=int,
        default=25_000,
        help="memories in the seeded household; the measured member holds about 40 %%",
    )
    parser.add_argument("--seed", type=int, default=1, help="seed of the household and the mix")
    parser.add_argument(
        "--reuse",
        action="store_true",
        help=f"seed once into {CACHE_ROOT.relative_to(ROOT)}/ and run on a copy of it",
    )
    parser.add_argument("--keep", action="store_true", help="keep this run's data directory")
    parser.add_argument("--url", help="measure the server at this URL instead of starting one")
    parser.add_argument("--token", help="with --url: a member's API token")
    parser.add_argument("--user", help="with --url: the member's username, for page loads")
    parser.add_argument("--password", help="with --url: the member's password, for page loads")
    parser.add_argument("--child-prepare", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--account-file", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.url and not args.token:
        parser.error("--url needs --token")
    if args.clients < 1 or args.duration <= 0 or args.warmup < 0 or args.threads < 1:
        parser.error("--clients and --threads must be at least 1, --duration positive")
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    if args.child_prepare:
        return child_prepare(args)
    sys.stdout.reconfigure(line_buffering=True)  # in order with the children's output
    command = shlex.join([".venv/bin/python", "bench/load.py", *sys.argv[1:]])
    print(f"`{command}`")
    print(f"run {datetime.now(UTC):%Y-%m-%d %H:%M} UTC; machine: {machine()}")
    print(f"load average at the start: {load_average()}")

    queries = household_queries(args.seed, args.memories)

    run_dir: Path | None = None
    servers: dict[str, subprocess.Popen] = {}
    try:
        if args.url:
            parsed = urllib.parse.urlsplit(args.url)
            target = Target(parsed.hostname, parsed.port or 80, args.token)
            username, password = args.user, args.password
            print(f"server: {args.url} (already running; its settings are its own)")
            if not wait_until_up(target, [], 10):
                print(f"{args.url} did not answer GET /accounts/login/ with 200 within 10 s")
                return 2
        else:
            run_dir = Path(tempfile.mkdtemp(prefix="talkingrock-load-"))
            account = prepare_data(args, run_dir)
            username, password = account["username"], account["password"]
            port = free_port()
            target = Target("127.0.0.1", port, account["token"])
            print(start_servers(servers, run_dir, port, args))
            print(
                f"household: {account['household_memories']:,} memories; the measured member "
                f"({username}) holds {account['member_memories']:,}, "
                f"{account['member_indexed']:,} of them embedded"
            )
            if not wait_until_up(target, list(servers.values()), STARTUP_SECONDS):
                print(f"the server did not answer within {STARTUP_SECONDS} s; its log:")
                for line in log_findings([run_dir / "server.log", run_dir / "worker.log"]):
                    print(line)
                tail = (run_dir / "server.log").read_text(errors="replace").splitlines()[-30:]
                print("\n".join(f"    {line}" for line in tail))
                return 2

        mix = MIX
        if username and password:
            target.cookie = sign_in(target, username, password)
            target.act_path = find_act_path(target)
        else:
            mix = tuple((kind, share) for kind, share in MIX if kind not in PAGES)
            print("no --user/--password: page loads are left out of the mix")
        total = sum(share for _, share in mix)
        print(
            f"clients: {args.clients} threads of one process (http.client, a new loopback "
            f"connection per request); warm-up {args.warmup:g} s, then {args.duration:g} s "
            "measured; mix: " + ", ".join(f"{kind} {share / total:.0%}" for kind, share in mix)
        )

        rounds, seconds = prime(target, queries, args.workers)
        print(f"primed the server's workers in {seconds:.1f} s ({rounds} rounds)")
        load_before = load_average()
        sessions = {name: process.pid for name, process in servers.items()}
        run = Run()
        begin = time.monotonic()
        window_start = begin + args.warmup
        window_end = window_start + args.duration
        clients = [
            threading.Thread(
                target=client,
                args=(index, args.seed, mix, queries, target, window_end, run),
                daemon=True,
            )
            for index in range(args.clients)
        ]
        for thread in clients:
            thread.start()
        time.sleep(max(0.0, window_start - time.monotonic()))
        before = process_facts(sessions)
        client_cpu, machine_cpu = time.process_time(), busy_cpu_seconds()
        time.sleep(max(0.0, window_end - time.monotonic()))
        after = process_facts(sessions)
        client_cpu = time.process_time() - client_cpu
        machine_cpu = busy_cpu_seconds() - machine_cpu
        for thread in clients:
            thread.join()
        load_after = load_average()

        measured = [s for s in run.samples if window_start <= s.ended <= window_end]
        warmup = [s for s in run.samples if s.ended < window_start]
        print(
            f"\nload average before the warm-up: {load_before}; after the window: {load_after}; "
            f"{len(warmup)} requests in the warm-up ({sum(s.error for s in warmup)} errors), "
            f"{len(run.samples) - len(measured) - len(warmup)} finished after the window\n"
        )
        print("\n".join(table(measured, args.duration, mix)))
        if run.first_errors:
            print("\nfirst answer of each kind of error (warm-up included):")
            for key, detail in sorted(run.first_errors.items()):
                print(f"  {key}: {detail}")
        available = (os.cpu_count() or 1) * args.duration
        print(
            f"\nCPU time in the {args.duration:g} s window ({os.cpu_count()} cores: "
            f"{available:g} s available): the machine was busy {machine_cpu:.1f} s"
        )
        server_cpu = 0.0
        for pid, facts in sorted(after.items()):
            spent = facts.cpu_seconds - (before[pid].cpu_seconds if pid in before else 0.0)
            server_cpu += spent
            print(f"  {facts.name} (pid {pid}): {facts.threads} threads, {spent:.1f} s")
        print(f"  the clients (this process): {client_cpu:.1f} s")
        others = machine_cpu - server_cpu - client_cpu
        print(
            f"  everything else on the machine: {others:.1f} s"
            + ("" if after else " (the server's share included: it is not ours to see)")
        )
        if after and others > OTHERS_WARNING * available:
            print(
                f"WARNING: other processes took {others / available:.0%} of the machine in the "
                "window: these figures are not the app's alone; run again on a quiet machine"
            )
        if run_dir:
            for name in ("gunicorn", "qcluster"):  # first, so that their logs are complete
                if name in servers:
                    stop(servers[name])
            print("server logs:")
            for line in log_findings([run_dir / "server.log", run_dir / "worker.log"]):
                print(line)
        return 0
    finally:
        for name in ("gunicorn", "qcluster"):
            if name in servers:
                stop(servers[name])
        if run_dir and args.keep:
            log(f"kept {run_dir} (account.json holds the member's token and password)")
        elif run_dir:
            shutil.rmtree(run_dir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
