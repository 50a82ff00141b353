"""One size of bench/memory_query.py, in its own process (``memory_query.py --child``).

The parent starts this with a fresh ``TALKINGROCK_DATA_DIR`` (or the one given to ``--reuse``),
so the real settings, backend and migrations are used. ``child(args)`` migrates, stores the
synthetic household through ``memory_store`` (unless the database already holds its members),
times the keyword queries through the tool API, with ``--profile`` times the phases of
``memories.services.memory_query`` one by one, and writes everything to ``--result-file`` as
JSON for the parent's report.

Django is set up inside the process, so the app's modules are imported inside the functions that
run after ``setup_django()``.
"""

from __future__ import annotations

import json
import math
import os
import random
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

from keyword_queries import document_frequencies, make_queries
from synthetic_household import MEMBERS, Corpus
from timing import log, machine_facts, summary, timed

ROOT = Path(__file__).resolve().parent.parent
# Timestamps are relative to the day of the run, so recency factors look like a live household's.
NOW = datetime.now(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
PHASES = ("sanitise", "budget probe", "ranking SQL", "ORM fetch", "tool end to end")


def setup_django() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "talkingrock.settings")
    os.environ.setdefault("TALKINGROCK_SECRET_KEY", "bench-not-secret")
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)


def build(size: int, corpus: Corpus, items, args) -> dict:
    from django.contrib.auth import get_user_model
    from django.db import transaction

    from memories import indexing
    from memories.services import memory_store

    # This measures the keyword path; embedding each memory (which would run inline at every
    # commit, with no worker in this process) is measured by bench/recall_latency.py.
    indexing.request_indexing = lambda **kwargs: None
    User = get_user_model()
    users = {name: User.objects.create_user(username=name) for name in MEMBERS}
    sample = min(args.autocommit_sample, size)
    batched_items, autocommit_items = items[: size - sample], items[size - sample :]
    log(f"[{size}] storing {len(batched_items)} in atomic batches of {args.batch} …")
    start = time.perf_counter()
    for offset in range(0, len(batched_items), args.batch):
        with transaction.atomic():
            for member, fields in batched_items[offset : offset + args.batch]:
                memory_store(owner=users[member], **fields)
        if (offset // args.batch) % 20 == 0:
            log(f"[{size}]   {offset + args.batch} stored")
    batched_seconds = time.perf_counter() - start
    log(f"[{size}] storing the last {len(autocommit_items)} in autocommit …")
    start = time.perf_counter()
    for member, fields in autocommit_items:
        memory_store(owner=users[member], **fields)
    autocommit_seconds = time.perf_counter() - start
    return {
        "batched_count": len(batched_items),
        "batched_seconds": batched_seconds,
        "batched_rate": len(batched_items) / batched_seconds if batched_items else math.nan,
        "autocommit_count": len(autocommit_items),
        "autocommit_seconds": autocommit_seconds,
        "autocommit_rate": len(autocommit_items) / autocommit_seconds
        if autocommit_items
        else math.nan,
    }


def fts_counts(cursor, terms: tuple[str, ...], owner_id: int) -> tuple[int, int]:
    """Rows of the member's own index that match all the query's words, and the words kept within
    the match budget: the rows the ranking SQL walks (drafts and archived rows included)."""
    from memories import search, sql

    table = sql.member_fts(owner_id)
    counts = []
    for words in (terms, search.within_budget(terms, owner_id=owner_id)[0]):
        if not words:
            counts.append(0)
            continue
        match = search.match_expression(words)
        cursor.execute(f"SELECT count(*) FROM {table} WHERE {table} MATCH %s", [match])
        counts.append(cursor.fetchone()[0])
    return counts[0], counts[1]


def run_queries(queries, users) -> list[dict]:
    from django.db import connection

    from memories import search
    from talkingrock.tools import call_tool

    results = []
    for kind, query, member_index in queries:
        user = users[member_index]
        ms, answer = timed(call_tool, user, "memory_query", query=query, limit=5)
        hits = len(answer["results"])
        results.append({"kind": kind, "query": query, "ms": ms, "hits": hits, "user": user.pk})
    # Counted after the timed pass, so that counting warms nothing for a query still to come.
    with connection.cursor() as cursor:
        for row in results:
            terms = search.sanitise(row["query"]).terms
            row["fts_member"], row["fts_kept"] = fts_counts(cursor, terms, row["user"])
    return results


def profile(queries, users) -> dict:
    """The phases of ``memories.services.memory_query`` timed one by one, on the same queries."""
    from django.utils import timezone

    from memories import search
    from memories.models import Memory
    from talkingrock.tools import call_tool

    by_kind: dict[str, dict[str, list[float]]] = {}
    for kind, query, member_index in queries:
        owner_id = users[member_index].pk
        spent = by_kind.setdefault(kind, {phase: [] for phase in PHASES})
        ms, sanitised = timed(search.sanitise, query)
        spent["sanitise"].append(ms)
        if sanitised.terms:
            ms, (kept, _) = timed(search.within_budget, sanitised.terms, owner_id=owner_id)
            spent["budget probe"].append(ms)
            match, now = search.match_expression(kept), timezone.now()
            ms, rows = timed(
                search.keyword_search,
                owner_id=owner_id,
                match=match,
                limit=5,
                include_archived=False,
                now=now,
            )
            spent["ranking SQL"].append(ms)
            ids = [row.memory_id for row in rows]
            ms, _ = timed(Memory.objects.select_related("act").in_bulk, ids)
            spent["ORM fetch"].append(ms)
        ms, _ = timed(call_tool, users[member_index], "memory_query", query=query, limit=5)
        spent["tool end to end"].append(ms)

    plans = {}
    for kind in ("mid 3-5", "common words"):
        for _, query, member_index in [q for q in queries if q[0] == kind][:1]:
            owner_id = users[member_index].pk
            kept, _ = search.within_budget(search.sanitise(query).terms, owner_id=owner_id)
            match = search.match_expression(kept)
            plans[match] = search.explain_keyword_search(owner_id=owner_id, match=match)
    return {
        "phases": {p: summary([ms for s in by_kind.values() for ms in s[p]]) for p in PHASES},
        "by_kind": {k: {p: summary(v) for p, v in s.items()} for k, s in by_kind.items()},
        "plans": plans,
    }


def child(args) -> None:
    """Build (or reuse) the database of ``args.sizes[0]`` memories, time the queries, and write
    the result to ``args.result_file``."""
    size = args.sizes[0]
    setup_django()
    from django.contrib.auth import get_user_model
    from django.db import connection

    corpus = Corpus(args.seed)
    log(f"[{size}] generating {size} memories (seed {args.seed}) …")
    items = list(corpus.memories(size, NOW))
    df = document_frequencies(items)
    result: dict = {"size": size, "seed": args.seed, "machine": machine_facts()}
    result["load_before"] = os.getloadavg()
    User = get_user_model()
    if User.objects.filter(username__in=MEMBERS).count() == len(MEMBERS):
        log(f"[{size}] reusing the database in {os.environ['TALKINGROCK_DATA_DIR']}")
        result["store"] = None
    else:
        result["store"] = build(size, corpus, items, args)
    users = [User.objects.get(username=name) for name in MEMBERS]
    with connection.cursor() as cursor:
        cursor.execute("SELECT owner_id, count(*) FROM memories_memory GROUP BY owner_id")
        result["per_member"] = dict(cursor.fetchall())
    db_file = Path(os.environ["TALKINGROCK_DATA_DIR"]) / "talkingrock.sqlite3"
    result["db_bytes"] = db_file.stat().st_size

    warmup = make_queries(random.Random(args.seed - 1), 40, df, size)
    queries = make_queries(random.Random(args.seed + size), args.queries, df, size)
    log(f"[{size}] warming up ({len(warmup)} queries) …")
    run_queries(warmup, users)
    result["load_queries"] = os.getloadavg()
    log(f"[{size}] running {len(queries)} queries …")
    result["queries"] = run_queries(queries, users)
    result["load_after"] = os.getloadavg()
    if args.profile:
        log(f"[{size}] profiling …")
        result["profile"] = profile(queries, users)
    Path(args.result_file).write_text(json.dumps(result, default=str))
