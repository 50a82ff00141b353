"""Benchmark of ``memory_query`` end to end, and of the store rate (issue 2, "Measure").

Usage (from the project root; ``make bench`` runs the defaults)::

    .venv/bin/python bench/memory_query.py [--sizes 10000 100000] [--queries 200] [--seed N]
        [--batch 1000] [--autocommit-sample 2000] [--keep] [--reuse DIR] [--profile]
        [--json FILE]

For every size the script starts a child process with a fresh temporary ``TALKINGROCK_DATA_DIR``
(removed afterwards unless ``--keep``), so the real settings, backend (pysqlite3 + sqlite-vec, WAL,
IMMEDIATE transactions) and migrations are used, and nothing touches ``var/``. The child:

1. runs ``migrate`` quietly and creates four members, each with their own keyword index
   (``memory_fts_<owner id>``, see ``memories/sql.py``);
2. generates N household-like memories from the seed (no data files): people, appointments,
   places, projects, preferences, decisions and household facts, with detail clauses drawn from a
   Zipf–Mandelbrot vocabulary of 6,000 words (real function and household words at the head,
   generated pseudo-words in the tail), tags, sources, ``created_at`` spread over two years
   before the day of the run, some reinforced/demoted scores, a few archived and draft rows.
   Members hold 40/30/20/10 % of the memories;
3. stores them one ``memories.services.memory_store`` call each (the owner's FTS5 trigger fires
   on every insert): all but the last ``--autocommit-sample`` in ``transaction.atomic()`` batches
   of ``--batch``, the rest in autocommit (one transaction per memory, as the tool API does);
4. warms up (40 queries), then runs ``--queries`` mixed queries (rare words, mid-frequency words,
   agent phrasing with common words, names, punctuation/hyphens/URLs/FTS operators, nothing to
   match), each for a random member, through
   ``talkingrock.tools.call_tool(user, "memory_query", query=..., limit=5)`` and prints
   p50/p95/p99/max overall and per kind of query, with the mean number of rows the member's own
   index matches for all the query's words and for the words kept within the match budget
   (``search.within_budget``: the rows the ranking SQL walks);
5. with ``--profile``: runs the same queries again, timing the phases of
   ``memories.services.memory_query`` separately (sanitise, the budget probe, the ranking SQL,
   the ORM fetch), and prints the ``EXPLAIN QUERY PLAN`` of ``search.explain_keyword_search``.

``--reuse DIR`` runs the query phase again on a database kept with ``--keep`` (one size only).
The report starts with the command, the date and the load average. Timestamps follow the day of
the run; texts and queries depend only on ``--seed``.

This file is the parent: the arguments, a child process per size and the report. The child's
side is ``bench/memory_query_child.py``; the household is ``bench/synthetic_household.py`` and
the query mix ``bench/keyword_queries.py`` (both shared with bench/recall_latency.py and
bench/load.py).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from keyword_queries import QUERY_MIX
from memory_query_child import PHASES, child
from timing import log, summary

ROOT = Path(__file__).resolve().parent.parent


# --- the report ---------------------------------------------------------------------------------


def fmt(value: float | None) -> str:
    return "–" if value is None or math.isnan(value) else f"{value:.2f}"


def loads(values) -> str:
    return "(" + ", ".join(f"{x:.2f}" for x in values) + ")"


def table(header: str, rows: list[list]) -> list[str]:
    columns = header.split(" | ")
    return [
        f"| {header} |",
        "|---" * len(columns) + "|",
        *("| " + " | ".join(str(cell) for cell in row) + " |" for row in rows),
    ]


def report(result: dict) -> str:
    size, rows, store = result["size"], result["queries"], result["store"]
    lines = [
        f"\n## {size:,} memories  (db {result['db_bytes'] / 1e6:.0f} MB, per member "
        f"{sorted(result['per_member'].values(), reverse=True)})",
        "load average (1, 5, 15 min) before / at the query phase / after: "
        + " / ".join(loads(result[k]) for k in ("load_before", "load_queries", "load_after")),
        f"store rate: {store['batched_rate']:,.0f} memories/s in transaction.atomic() batches "
        f"({store['batched_count']:,} in {store['batched_seconds']:.1f} s); "
        f"{store['autocommit_rate']:,.0f} memories/s autocommit, one transaction each "
        f"({store['autocommit_count']:,} in {store['autocommit_seconds']:.1f} s, last ones stored)"
        if store
        else "store rate: – (database reused)",
    ]
    groups = [("all", rows)] + [(k, [r for r in rows if r["kind"] == k]) for k, _ in QUERY_MIX]
    stats = []
    for name, group in groups:
        if group:
            s = summary([r["ms"] for r in group])
            stats.append(
                [name, s["n"], *(fmt(s[p]) for p in ("p50", "p95", "p99", "max"))]
                + [
                    f"{statistics.fmean(r[k] for r in group):,.0f}"
                    for k in ("fts_member", "fts_kept")
                ]
                + [f"{statistics.fmean(r['fts_kept'] < r['fts_member'] for r in group):.0%}"]
                + [f"{statistics.fmean(r['hits'] for r in group):.1f}"]
            )
    lines += table(
        "queries | n | p50 ms | p95 ms | p99 ms | max ms | member's FTS matches, all words"
        " | within budget | narrowed | mean hits",
        stats,
    )
    slow = sorted(rows, key=lambda r: -r["ms"])[:5]
    lines.append(
        "slowest: "
        + "; ".join(
            f"{r['ms']:.1f} ms {r['query']!r} ({r['fts_member']:,} → {r['fts_kept']:,} matches)"
            for r in slow
        )
    )
    if "profile" in result:
        prof = result["profile"]
        lines.append("\nphases of memory_query (each query again, phase by phase):")
        lines += table(
            "phase | n | p50 ms | p95 ms | p99 ms | max ms",
            [
                [p, s["n"], *(fmt(s[q]) for q in ("p50", "p95", "p99", "max"))]
                for p, s in prof["phases"].items()
            ],
        )
        lines.append("\np50 / p95 ms per kind of query:")
        lines += table(
            "queries | " + " | ".join(PHASES),
            [
                [k] + [f"{fmt(s[p]['p50'])} / {fmt(s[p]['p95'])}" for p in PHASES]
                for k, s in ((k, prof["by_kind"].get(k)) for k, _ in QUERY_MIX)
                if s
            ],
        )
        for match, plan in prof["plans"].items():
            lines.append(f"\nEXPLAIN QUERY PLAN of keyword_search for {match!r}:")
            lines += [f"    {step}" for step in plan]
    return "\n".join(lines)


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--batch", type=int, default=1000, help="memories per atomic batch")
    parser.add_argument(
        "--autocommit-sample",
        type=int,
        default=2000,
        help="the last N memories are stored in autocommit, to report that rate too",
    )
    parser.add_argument("--profile", action="store_true", help="time the phases of the query")
    parser.add_argument("--keep", action="store_true", help="keep the temporary data directories")
    parser.add_argument("--reuse", type=Path, help="query a database kept with --keep (one size)")
    parser.add_argument("--json", type=Path, help="also write all results to this JSON file")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--result-file", help=argparse.SUPPRESS)
    return parser.parse_args(argv)


def command_line(argv: list[str]) -> str:
    """The command as typed from the project root, for the report."""
    python = os.path.relpath(sys.executable, ROOT)
    python = sys.executable if python.startswith("..") else python
    return shlex.join([python, os.path.relpath(Path(__file__).resolve(), ROOT), *argv])


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = parse_args(argv)
    if args.child:
        child(args)
        return 0
    if args.reuse and len(args.sizes) != 1:
        sys.exit("--reuse takes exactly one --sizes value")
    started = datetime.now(UTC)
    print(f"command: {command_line(argv)}")
    print(
        f"date: {started:%Y-%m-%d %H:%M} UTC; load average at the start: {loads(os.getloadavg())}"
    )
    results = []
    for size in args.sizes:
        data_dir = args.reuse or Path(tempfile.mkdtemp(prefix=f"talkingrock-bench-{size}-"))
        result_file = Path(tempfile.mkstemp(prefix="talkingrock-bench-", suffix=".json")[1])
        command = [sys.executable, str(Path(__file__).resolve()), "--child", "--sizes", str(size)]
        command += ["--result-file", str(result_file)] + (["--profile"] if args.profile else [])
        for option in ("queries", "seed", "batch", "autocommit_sample"):
            command += [f"--{option.replace('_', '-')}", str(getattr(args, option))]
        env = {**os.environ, "TALKINGROCK_DATA_DIR": str(data_dir)}
        env.pop("DJANGO_SETTINGS_MODULE", None)
        try:
            subprocess.run(command, env=env, check=True, cwd=ROOT)
            result = json.loads(result_file.read_text())
        finally:
            result_file.unlink(missing_ok=True)
            if not args.keep and not args.reuse:
                shutil.rmtree(data_dir, ignore_errors=True)
            elif not args.reuse:
                log(f"[{size}] kept {data_dir}")
        results.append(result)
        print(report(result), flush=True)
    m = results[0]["machine"]
    print(
        f"\nmachine: {m['cpu_count']} CPUs ({m['cpu_model']}), Python {m['python']}, Django "
        f"{m['django']}, {m['driver']} with SQLite {m['sqlite']}, sqlite-vec {m['sqlite_vec']}, "
        f"{m['platform']}; finished {datetime.now(UTC):%Y-%m-%d %H:%M} UTC, load average "
        f"{loads(os.getloadavg())}"
    )
    if args.json:
        meta = {"command": command_line(argv), "started": started.isoformat()}
        args.json.write_text(json.dumps([{**meta, **r} for r in results], indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
