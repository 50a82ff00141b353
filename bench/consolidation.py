"""Consolidation offline (issue 15, "Measure"): the per-fact pass's throughput, the daily passes'
wall time, and what observations add to recall's latency.

Usage (from the project root)::

    .venv/bin/python bench/consolidation.py [--facts 10000] [--recall-sizes 100000]
        [--queries 200] [--consolidate 10000] [--seed 1] [--keep DIR] [--reuse DIR]
        [--profile] [--tuple-lookups] [--json PATH]

Each part runs in its own process and throwaway ``TALKINGROCK_DATA_DIR`` (the real settings,
backend and migrations; the language model off, every pass with ``use_model=False``):

1. ``--facts`` N: one member's facts from bench/household_facts.py (a household's recurring
   subjects over six months in several voices, a quarter noise) go through
   ``memories.services.memory_store`` in transactions of 1,000, embedded and entity-indexed on
   commit as in the app. Then ``facts.consolidate_member`` is called (``batch`` = 200 facts per
   call, as the 30-second schedule does) until nothing is pending: facts consolidated per second
   overall, the time per fact looked at (p50/p95; a "create" also takes in the other facts of
   its key, which are then not looked at on their own), the decisions and the observations and
   history rows written. ``--profile`` runs the per-fact pass (in either part) under cProfile
   and prints where the time goes (its timings are then not the figures to quote).
2. The daily passes on that member, once each, in the schedule's order: temporal, merge, dream.
3. ``--recall-sizes``: the household of bench/recall_latency.py (its own builder; four members,
   the largest holding 40 %), then the largest member's ``--consolidate`` oldest pending facts
   consolidated by the real pass, then the three daily passes. ``--queries``
   questions of bench/recall_latency.py are asked of that member through ``recall(k=10)`` with
   ``observations=True`` and ``observations=False``, alternating which goes first, after 20
   warm-up questions each way: p50/p95 of both and the added p95. ``--keep DIR`` keeps that
   database (with its observations); ``--reuse DIR`` measures it again without rebuilding.

``--facts 0`` or ``--recall-sizes 0`` skips a part. Every part prints the machine's facts and
the commit measured. A daily pass that fails is reported and the next one runs: at 100k the
temporal and dream passes fail on Django 5.2's SQLite backend unless ``--tuple-lookups`` lets it
send row-value ``IN`` lists (see ``child``).
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import math
import os
import pstats
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from household_facts import END  # the bench helpers, beside this script
from household_facts import facts as household_facts
from recall_latency import ingest, questions, setup_django
from synthetic_household import MEMBERS
from timing import log, machine_facts, percentile, summary, timed

BATCH = 1000
MEMBER = MEMBERS[0]
WARM_UP = 20


def store_facts(count: int, seed: int) -> dict:
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import transaction

    from memories import indexing, services

    call_command("migrate", verbosity=0)
    member = get_user_model().objects.create_user(MEMBER)
    rows = household_facts(count, seed)
    started = time.perf_counter()
    for start in range(0, len(rows), BATCH):
        with transaction.atomic():
            for fields in rows[start : start + BATCH]:
                services.memory_store(owner=member, **fields)
        # Leaving the transaction ran the indexing inline (no worker in this process).
        log(f"stored and indexed {min(start + BATCH, len(rows)):,} facts")
    leftover = indexing.index_memories()
    return {"facts": len(rows), "seconds": time.perf_counter() - started, "leftover": leftover}


def observation_counts(owner_id: int) -> dict:
    from memories.models import Observation, ObservationChange

    rows = Observation.objects.filter(owner_id=owner_id)
    changes = ObservationChange.objects.filter(observation__owner_id=owner_id)
    return {
        "observations": rows.count(),
        "live": rows.filter(merged_into=None, dismissed=False).count(),
        "by_kind": dict(Counter(rows.values_list("kind", flat=True))),
        "changes": dict(Counter(changes.values_list("kind", flat=True))),
    }


def consolidate_all(owner_id: int, limit: int | None = None, profile: bool = False) -> dict:
    """The per-fact pass, call after call, until nothing is pending (or ``limit`` facts)."""
    from django.conf import settings

    from memories.consolidation import facts, store

    batch = settings.TALKINGROCK_CONSOLIDATION["batch"]
    pending = store.pending(owner_id)
    before = pending.count()
    per_fact: list[float] = []
    by_decision: dict[str, list[float]] = {}
    decisions: Counter[str] = Counter()
    clock = [0.0]

    def progress(message: str) -> None:  # "fact 12: enrich — why", after each fact
        now = time.perf_counter()
        per_fact.append(1000 * (now - clock[0]))
        by_decision.setdefault(message.split(": ", 1)[1].split(" — ")[0], []).append(per_fact[-1])
        clock[0] = now
        if len(per_fact) % 1000 == 0:
            log(f"{len(per_fact):,} facts looked at, {len(per_fact) / (now - started):.1f}/s")

    profiler = cProfile.Profile() if profile else None
    calls, started = 0, time.perf_counter()
    while limit is None or len(per_fact) < limit:
        left = batch if limit is None else min(batch, limit - len(per_fact))
        clock[0] = time.perf_counter()  # the first fact of a call carries the call's set-up
        if profiler:
            profiler.enable()
        done = facts.consolidate_member(owner_id, limit=left, use_model=False, progress=progress)
        if profiler:
            profiler.disable()
        calls += 1
        decisions.update(done)
        if not done:
            break
    seconds = time.perf_counter() - started
    consolidated = before - pending.count()
    result = {
        "pending_before": before,
        "consolidated": consolidated,
        "looked_at": len(per_fact),
        "calls": calls,
        "seconds": seconds,
        "facts_per_s": consolidated / seconds if seconds else 0.0,
        "per_fact_ms": summary(per_fact),
        "per_decision_ms": {name: summary(found) for name, found in sorted(by_decision.items())},
        "decisions": dict(decisions),
    }
    if profiler:
        for key in ("cumulative", "tottime"):
            text = io.StringIO()
            pstats.Stats(profiler, stream=text).strip_dirs().sort_stats(key).print_stats(30)
            result[f"profile_{key}"] = text.getvalue()
    return result


def daily_passes(owner_id: int, now) -> dict:
    from django.db import OperationalError

    from memories.consolidation import dreams, merge, temporal

    calls = {
        "temporal": lambda: temporal.temporal_member(owner_id, use_model=False, now=now),
        "merge": lambda: merge.merge_member(owner_id, use_model=False),
        "dream": lambda: dreams.dream_member(owner_id, use_model=False, now=now),
    }
    found = {}
    for name in calls:
        try:
            ms, counts = timed(calls[name])
        except OperationalError as error:  # recorded on the pass's run too; the next pass runs
            ms, counts = math.nan, {"error": str(error)}
        found[name] = {"seconds": ms / 1000, "summary": counts}
    return found


def header(title: str) -> dict:
    facts = machine_facts()
    load = os.getloadavg()
    git = ["git", "-C", str(Path(__file__).parent), "log", "-1", "--format=%h %ci"]
    facts["commit"] = subprocess.run(git, capture_output=True, text=True).stdout.strip()
    print(f"\n## {title} (commit {facts['commit']})")
    print(
        f"machine: {facts['cpu_count']} × {facts['cpu_model']}, Python {facts['python']}, "
        f"Django {facts['django']}, {facts['driver']} (SQLite {facts['sqlite']}), "
        f"sqlite-vec {facts['sqlite_vec']}; load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}"
    )
    return facts | {"load_at_start": load}


def print_consolidation(done: dict, counts: dict) -> None:
    ms = done["per_fact_ms"]
    print(
        f"per-fact pass: {done['consolidated']:,} of {done['pending_before']:,} pending facts "
        f"consolidated in {done['seconds']:.1f} s ({done['calls']} calls): "
        f"{done['facts_per_s']:.1f} facts/s; {done['looked_at']:,} looked at one by one, "
        f"p50 {ms['p50']:.1f} ms, p95 {ms['p95']:.1f} ms, max {ms['max']:.0f} ms per fact"
    )
    print(
        "per decision, n / p50 / p95 / max ms: "
        + "; ".join(
            f"{name} {ms['n']} / {ms['p50']:.1f} / {ms['p95']:.1f} / {ms['max']:.0f}"
            for name, ms in done["per_decision_ms"].items()
        )
    )
    print(
        f"observations: {counts['observations']:,} ({counts['live']:,} live) by kind "
        f"{counts['by_kind']}; history rows {counts['changes']}"
    )
    for key in ("profile_cumulative", "profile_tottime"):
        if key in done:
            print(f"\ncProfile of the per-fact pass, by {key[8:]}:\n{done[key]}")


def facts_part(args) -> dict:
    from django.contrib.auth import get_user_model

    result = {"machine": header(f"{args.facts:,} facts of one member, offline")}
    built = store_facts(args.facts, args.seed)
    print(
        f"stored and indexed {built['facts']:,} facts through memory_store in "
        f"{built['seconds']:.0f} s ({built['facts'] / built['seconds']:.0f}/s; "
        f"left for the sweep: {built['leftover']})"
    )
    owner_id = get_user_model().objects.get(username=MEMBER).pk
    done = consolidate_all(owner_id, profile=args.profile)
    counts = observation_counts(owner_id)
    print_consolidation(done, counts)
    passes = daily_passes(owner_id, END)
    for name, found in passes.items():
        print(f"daily {name}: {found['seconds']:.1f} s {found['summary']}")
    after = observation_counts(owner_id)
    print(
        f"after the daily passes: {after['observations']:,} observations ({after['live']:,} live)"
    )
    return result | {
        "build": built,
        "consolidation": done,
        "observations": counts,
        "daily": passes,
        "after_daily": after,
        "load_at_end": os.getloadavg(),
    }


def recall_part(args, size: int) -> dict:
    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from memories import recall as recall_module
    from memories.consolidation import context
    from memories.models import Memory
    from talkingrock import embeddings

    result = {"machine": header(f"recall at {size:,} memories, with and without observations")}
    if not args.reuse:
        built = ingest(size, args.seed)
        result["build"] = built
        print(f"built: {built['memories']:,} memories in {built['seconds']:.0f} s")
    member = get_user_model().objects.get(username=MEMBER)
    if observation_counts(member.pk)["observations"] == 0:
        done = consolidate_all(member.pk, limit=args.consolidate, profile=args.profile)
        result["consolidation"] = done
        result["observations"] = observation_counts(member.pk)
        print_consolidation(done, result["observations"])
        result["daily"] = daily_passes(member.pk, timezone.now())
        for name, found in result["daily"].items():
            print(f"daily {name}: {found['seconds']:.1f} s {found['summary']}")
    counts = result["after"] = observation_counts(member.pk)
    print(
        f"the member holds {Memory.objects.filter(owner=member).count():,} memories and "
        f"{counts['live']:,} live observations {counts['by_kind']}"
    )

    spent: list[float] = []
    search = context.search

    def timed_search(*a, **kw):
        ms, found = timed(search, *a, **kw)
        spent.append(ms)
        return found

    asked = questions(args.queries + WARM_UP, args.seed)
    embeddings.embed(["warm up the model"])
    for question in asked[:WARM_UP]:
        for observations in (True, False):
            recall_module.recall(member, question, k=10, observations=observations)
    context.search = timed_search
    on, off, shown = [], [], []
    load = os.getloadavg()
    try:
        for n, question in enumerate(asked[WARM_UP:]):
            for observations in (True, False) if n % 2 == 0 else (False, True):
                ms, found = timed(
                    recall_module.recall, member, question, k=10, observations=observations
                )
                (on if observations else off).append(ms)
                if observations:
                    shown.append(len(found.observations))
    finally:
        context.search = search
    added = percentile(on, 95) - percentile(off, 95)
    paired = [a - b for a, b in zip(on, off, strict=True)]
    print(
        f"recall(k=10) of {MEMBER} ({args.queries} questions, load average {load[0]:.2f}): "
        f"observations on p50 {percentile(on, 50):.1f} / p95 {percentile(on, 95):.1f} ms, "
        f"off p50 {percentile(off, 50):.1f} / p95 {percentile(off, 95):.1f} ms; "
        f"added p95 {added:+.1f} ms; per question on − off p50 "
        f"{percentile(paired, 50):+.1f} ms; the observation search itself p50 "
        f"{percentile(spent, 50):.1f} / p95 {percentile(spent, 95):.1f} ms; "
        f"{sum(1 for n in shown if n)} of {len(shown)} questions got observations "
        f"({sum(shown) / max(len(shown), 1):.1f} on average)"
    )
    return result | {
        "member_observations": counts,
        "queries": args.queries,
        "load": load,
        "on_ms": summary(on),
        "off_ms": summary(off),
        "added_p95_ms": added,
        "paired_ms": summary(paired),
        "search_ms": summary(spent),
        "questions_with_observations": sum(1 for n in shown if n),
        "mean_observations_shown": sum(shown) / max(len(shown), 1),
    }


def child(args) -> int:
    setup_django(Path(os.environ["TALKINGROCK_DATA_DIR"]))
    if args.tuple_lookups:
        from django.db import connection

        # Django 5.2's SQLite backend says it has no row-value IN, so a foreign-key prefetch
        # (mentions__entity) over more than ~1,000 entities becomes an OR chain that SQLite
        # refuses ("Expression tree is too large"); SQLite 3.51 has row values.
        connection.features.supports_tuple_lookups = True
    part, size = args.child.split(":")
    result = facts_part(args) if part == "facts" else recall_part(args, int(size))
    if args.child_json:
        Path(args.child_json).write_text(json.dumps(result, indent=1, default=str))
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--facts", type=int, default=10_000, help="facts of one member (0: skip)")
    parser.add_argument("--recall-sizes", type=int, nargs="+", default=[100_000])
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument(
        "--consolidate", type=int, default=10_000, help="facts consolidated before recall"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--keep", type=Path, help="build the recall database here, keep it")
    parser.add_argument("--reuse", type=Path, help="measure a recall database kept with --keep")
    parser.add_argument("--profile", action="store_true", help="cProfile the per-fact pass")
    parser.add_argument(
        "--tuple-lookups",
        action="store_true",
        help="let Django send row-value IN lists to SQLite (the daily passes need it at 100k)",
    )
    parser.add_argument("--json", type=Path, help="write every figure to this file")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--child-json", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        return child(args)
    sizes = [size for size in args.recall_sizes if size > 0]
    if (args.keep or args.reuse) and len(sizes) != 1:
        parser.error("--keep and --reuse need exactly one recall size")

    parts = ([("facts:0", None)] if args.facts > 0 else []) + [
        (f"recall:{size}", args.reuse or args.keep) for size in sizes
    ]
    results = {}
    for part, kept in parts:
        data_dir = kept or Path(tempfile.mkdtemp(prefix="talkingrock-consolidation-"))
        data_dir.mkdir(parents=True, exist_ok=True)
        out = Path(tempfile.mkstemp(suffix=".json")[1])
        command = [sys.executable, __file__, *(argv or sys.argv[1:]), "--child", part]
        command += ["--child-json", str(out)]
        env = {**os.environ, "TALKINGROCK_DATA_DIR": str(data_dir), "TALKINGROCK_LLM": "off"}
        try:
            subprocess.run(command, env=env, check=True, cwd=Path(__file__).parent.parent)
            results[part] = json.loads(out.read_text())
        finally:
            out.unlink(missing_ok=True)
            if kept is None:
                shutil.rmtree(data_dir, ignore_errors=True)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
