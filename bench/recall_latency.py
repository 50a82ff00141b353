"""Latency of hybrid ``recall()`` at 10k and 100k memories, and the ingest rate with embeddings
(issue 3, "Measure").

Usage (from the project root)::

    .venv/bin/python bench/recall_latency.py [--sizes 10000 100000] [--queries 200] [--seed 1]
        [--messages-per-memory 3] [--keep DIR] [--reuse DIR] [--no-ranker]

For each size a fresh database under a temporary ``TALKINGROCK_DATA_DIR`` (the real settings,
backend and migrations) receives the synthetic household of ``bench/memory_query.py``: four
members holding 40/30/20/10 % of the memories; a quarter of them come from conversations (five
memories each, so recall's neighbour and conversation steps have work to do). Every memory goes
through ``memories.services.memory_store`` in batches of 1,000 and is then embedded and indexed
by ``memories.indexing`` (the real all-MiniLM-L6-v2 and the entity rules): the ingest rate is
memories per second over both.

With ``--messages-per-memory M`` (issue 22) the members then say ``M`` messages for every memory
(300k beside 100k memories at 3), shared out as the memories are, through the path a message
takes when a member sends it: ``conversations.services.append`` writes the message and its
evidence row, and indexing embeds it when the batch commits. Two of every three are the member's,
lower-cased as people type; the third is the assistant's reply. The ingest rate of messages is
printed beside that of memories, and recall then searches memories and messages together.

With ``--worker`` the memories are indexed as ``make run`` indexes them: a real django-q2 worker
(``manage.py qcluster``, with the worker processes ``Q_CLUSTER["workers"]`` gives: two, or
``TALKINGROCK_TASK_WORKERS``) runs beside this process, which stores the memories while the
worker embeds and indexes what has been stored, each process one part of each member's
(``memories.indexing.parts``); the rate counts from the first store to the last memory indexed
(after one warm-up memory, each process having loaded its model as it started).
Without it, this process stores a batch and then indexes it itself, one after the other.

Then ``--queries`` questions in the household's own words (appointments, people, decisions,
places, with and without a time phrase) are asked of the largest member (40 % of all memories)
through ``recall(member, question, k=10)`` (``--k``: the chat asks 60), the query embedding
included, after the warm-up a web worker does when it starts (``talkingrock/warmup.py``) and 20
questions more. It prints p50/p95/p99/max, and the share of time of each step
for the median query. It opens with the machine: its cores, the processor flags the model's
speed depends on, and the model's own rate on one thread (``bench/timing.py``), so that figures
taken on different days can be told apart from a change of machine.
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager, nullcontext
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

from synthetic_household import (  # noqa: E402 - the shared synthetic household
    APPOINTMENTS,
    MEMBER_SHARE,
    MEMBERS,
    PEOPLE,
    PLACES,
    Corpus,
)
from timing import model_rate, processor_features  # noqa: E402 - bench's measurement helpers

BATCH = 1000
WORKER_START = 120  # seconds a worker may take to report itself alive
CONVERSATION_SHARE = 0.25
CONVERSATION_LENGTH = 5
MESSAGES_PER_CONVERSATION = 12
TIME_PHRASES = ("yesterday", "last week", "in March", "two months ago", "last year", "")


def setup_django(data_dir: Path) -> None:
    os.environ["TALKINGROCK_DATA_DIR"] = str(data_dir)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "talkingrock.settings")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()


@contextmanager
def worker(data_dir: Path, members: dict):
    """A django-q2 worker for this data directory, warm (it has indexed one memory), then
    stopped."""
    from memories import services
    from talkingrock import jobs

    cluster = subprocess.Popen(
        [sys.executable, "manage.py", "qcluster"],
        cwd=ROOT,
        env={**os.environ, "TALKINGROCK_DATA_DIR": str(data_dir)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        started = time.monotonic()
        while not jobs.worker_running():
            if cluster.poll() is not None or time.monotonic() - started > WORKER_START:
                raise RuntimeError("the django-q2 worker did not start")
            time.sleep(0.2)
        warm = next(iter(members.values()))
        services.memory_store(owner=warm, content="warm up the worker's model")
        wait_until_indexed()
        yield
    finally:
        cluster.send_signal(signal.SIGTERM)
        cluster.wait(timeout=60)


def worker_processes() -> str:
    from django.conf import settings

    count = settings.Q_CLUSTER["workers"]
    return f" (a django-q2 worker of {count} process{'es' if count > 1 else ''} indexing)"


def wait_until_indexed() -> None:
    from memories import indexing

    while indexing.pending_count():
        time.sleep(0.1)


def ingest(size: int, seed: int, *, with_worker: bool = False) -> dict:
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    from memories import indexing

    call_command("migrate", verbosity=0)
    members = {name: get_user_model().objects.create_user(name) for name in MEMBERS}
    data_dir = Path(os.environ["TALKINGROCK_DATA_DIR"])
    with worker(data_dir, members) if with_worker else nullcontext():
        started = time.perf_counter()
        stored = _store(size, seed, members)
        if with_worker:  # the worker indexes while this process stores: wait for its last one
            wait_until_indexed()
        store_and_index = time.perf_counter() - started
    started = time.perf_counter()
    leftover = indexing.index_memories()  # anything the inline runs left (none expected)
    return {
        "memories": stored,
        "seconds": store_and_index + time.perf_counter() - started,
        "leftover": leftover,
    }


def _store(size: int, seed: int, members: dict) -> int:
    """Store ``size`` memories through ``memory_store`` in transactions of ``BATCH``."""
    from django.db import transaction

    from conversations.models import Conversation
    from memories import services

    rng = random.Random(seed)
    corpus = Corpus(seed)
    now = datetime.now(UTC)
    open_talk: dict[str, tuple[Conversation, int]] = {}
    stored = 0
    items = corpus.memories(size, now)
    while batch := [item for _, item in zip(range(BATCH), items, strict=False)]:
        with transaction.atomic():
            for member_name, fields in batch:
                member = members[member_name]
                talk, left = open_talk.get(member_name, (None, 0))
                if left or rng.random() < CONVERSATION_SHARE / CONVERSATION_LENGTH:
                    if not left:
                        talk = Conversation.objects.create(
                            owner=member,
                            status=Conversation.Status.ARCHIVED,
                            started_at=fields["created_at"],
                            archived_at=fields["created_at"],
                        )
                        left = CONVERSATION_LENGTH
                    fields = {**fields, "conversation": talk, "source": "conversation"}
                    open_talk[member_name] = (talk, left - 1)
                services.memory_store(owner=member, **fields)
                stored += 1
        # Leaving the transaction ran the indexing inline, or queued it for the worker.
    return stored


def add_messages(count: int, seed: int) -> dict:
    from django.contrib.auth import get_user_model
    from django.db import transaction

    from conversations import services
    from conversations.models import Conversation, Message
    from memories import indexing

    members = {m.username: m for m in get_user_model().objects.filter(username__in=MEMBERS)}
    rng = random.Random(seed + 11)
    corpus = Corpus(seed + 11)
    now = datetime.now(UTC)
    open_talk: dict[str, tuple[Conversation, int]] = {}
    written = 0
    started = time.perf_counter()
    while written < count:
        with transaction.atomic():
            for _ in range(min(BATCH, count - written)):
                name = rng.choices(MEMBERS, weights=MEMBER_SHARE)[0]
                talk, left = open_talk.get(name, (None, 0))
                if not left:
                    talk = Conversation.objects.create(
                        owner=members[name],
                        status=Conversation.Status.ARCHIVED,
                        started_at=now,
                        archived_at=now,
                    )
                    left = MESSAGES_PER_CONVERSATION
                text, _ = corpus.text(name)
                if left % 3:
                    services.append(talk, role=Message.Role.USER, content=text.lower())
                else:
                    services.append(talk, role=Message.Role.ASSISTANT, content=text)
                open_talk[name] = (talk, left - 1)
                written += 1
        # As for memories: leaving the transaction ran the indexing inline.
    seconds = time.perf_counter() - started
    started = time.perf_counter()
    leftover = indexing.index_memories()
    return {
        "messages": written,
        "seconds": seconds + time.perf_counter() - started,
        "leftover": leftover,
    }


def questions(count: int, seed: int) -> list[str]:
    rng = random.Random(seed + 7)
    templates = (
        "when is {m}'s {appt} appointment {t}",
        "what did we decide about the {w} {t}",
        "who is {p}",
        "what is {p}'s phone number",
        "where did {m} meet {p} {t}",
        "which café in {place} does {m} like",
        "what does {m} prefer to eat",
        "where are the spare keys",
        "how much is the budget for the {w}",
        "what needs servicing {t}",
        "is anyone allergic to {w}",
        "what did {p} recommend for the project",
    )
    words = ("garden", "car", "boiler", "kitchen", "holiday", "school", "bike", "roof", "laptop")
    return [
        " ".join(
            rng.choice(templates)
            .format(
                m=MEMBERS[0].title(),
                appt=rng.choice(APPOINTMENTS),
                p=rng.choice(PEOPLE),
                w=rng.choice(words),
                place=rng.choice(PLACES),
                t=rng.choice(TIME_PHRASES),
            )
            .split()
        )
        + "?"
        for _ in range(count)
    ]


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def measure(count: int, seed: int, k: int = 10) -> dict:
    from django.contrib.auth import get_user_model

    from memories import named as named_module
    from memories import recall as recall_module
    from memories import search, vectors
    from memories.consolidation import context as observation_context
    from memories.models import Memory
    from memories.recall import floor as floor_module
    from memories.recall import order as order_module
    from memories.recall import ranker as ranker_module
    from memories.recall import steps as step_module
    from talkingrock import embeddings, warmup
    from talkingrock.language import dates

    member = get_user_model().objects.get(username=MEMBERS[0])
    asked = questions(count + 20, seed)
    warmup.warm()  # as each web worker starts: the models, then what is loaded frozen
    for question in asked[:20]:
        recall_module.recall(member, question, k=k)

    steps = (
        "member_size",
        "nearest",
        "similarities",
        "add_from_window",
        "lift_by_conversation",
        "lift_in_window",
        "lift_named",
        "expand_through_entities",
        "expand_through_links",
        "second_round",
    )
    # The ranking steps after the pool is gathered (memories/recall/order.py and floor.py).
    ordering = (
        "weigh_what_was_said",
        "kept_before_said",
        "newest_value_first",
        "current_before_replaced",
        "newer_on_the_same_topic",
        "note_what_they_replace",
    )
    spent: dict[str, float] = dict.fromkeys((*steps, *ordering, "query_entities"), 0.0)
    spent |= dict.fromkeys(
        ("embed_one", "keyword_candidates", "within_budget", "window", "_rows", "mark"), 0.0
    )
    spent |= {"observations": 0.0, "relevance": 0.0}

    def timed(module, name):
        function = getattr(module, name)

        def wrapper(*args, **kwargs):
            started = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                spent[name] += time.perf_counter() - started

        setattr(module, name, wrapper)
        return function

    originals = [(step_module, name, timed(step_module, name)) for name in steps]
    originals += [(order_module, name, timed(order_module, name)) for name in ordering]
    originals += [(recall_module, "_rows", timed(recall_module, "_rows"))]
    originals += [(ranker_module, "relevance", timed(ranker_module, "relevance"))]
    originals += [(floor_module, "mark", timed(floor_module, "mark"))]
    originals += [(search, "within_budget", timed(search, "within_budget"))]
    observing = observation_context.search
    originals += [(observation_context, "search", observing)]

    def observations(*args, **kwargs):
        started = time.perf_counter()
        try:
            return observing(*args, **kwargs)
        finally:
            spent["observations"] += time.perf_counter() - started

    observation_context.search = observations
    originals += [(named_module, "query_entities", timed(named_module, "query_entities"))]
    originals += [
        (embeddings, "embed_one", timed(embeddings, "embed_one")),
        (search, "keyword_candidates", timed(search, "keyword_candidates")),
        (dates, "window", timed(dates, "window")),
    ]
    durations, hits, results = [], [], []
    load = os.getloadavg()
    for question in asked[20:]:
        started = time.perf_counter()
        result = recall_module.recall(member, question, k=k)
        durations.append(time.perf_counter() - started)
        hits.append(len(result.hits))
        results.append(result)
    for module, name, function in originals:
        setattr(module, name, function)
    # The same questions with every vector read whole (memories/vectors.py's single exact scan):
    # how often the two-pass scan of a large partition changes what recall returns.
    two_pass = [[hit.memory_id for hit in r.hits] for r in results]
    saved = vectors.TWO_PASS_ROWS
    vectors.TWO_PASS_ROWS = 10**12
    vectors.forget()
    try:
        exact = [
            [h.memory_id for h in recall_module.recall(member, q, k=k).hits] for q in asked[20:]
        ]
    finally:
        vectors.TWO_PASS_ROWS = saved
        vectors.forget()
    return {
        "same_as_exact": sum(a == b for a, b in zip(two_pass, exact, strict=True)),
        "same_set_as_exact": sum(set(a) == set(b) for a, b in zip(two_pass, exact, strict=True)),
        "member_memories": Memory.objects.filter(owner=member).count(),
        "member_messages": Memory.everything.filter(owner=member, kind__in=Memory.EVIDENCE).count(),
        "ms": [1000 * d for d in durations],
        "steps_ms": {name: 1000 * total / count for name, total in spent.items()},
        "mean_hits": statistics.fmean(hits),
        "load": load,
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--messages-per-memory", type=int, default=0, help="messages said per memory (issue 22)"
    )
    parser.add_argument("--keep", type=Path, help="build the database in this folder, keep it")
    parser.add_argument("--reuse", type=Path, help="measure a database kept with --keep")
    parser.add_argument(
        "--no-ranker", action="store_true", help="the steps' hand-tuned sum (issue 26's before)"
    )
    parser.add_argument(
        "--worker", action="store_true", help="index in a django-q2 worker, as make run does"
    )
    parser.add_argument(
        "--k", type=int, default=10, help="hits asked for (10 as the tools ask; the chat asks 60)"
    )
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.child is not None:  # one size, in its own process and data directory
        setup_django(Path(os.environ["TALKINGROCK_DATA_DIR"]))
        if args.no_ranker:
            from django.conf import settings

            settings.TALKINGROCK_RECALL["ranker"] = False
        # The machine first: the same code measured twice as fast on a newer processor.
        print(
            f"machine: {os.cpu_count()} cores, {processor_features()}; the embedding model "
            f"encodes {model_rate():,.0f} texts/s on one thread (load average "
            f"{os.getloadavg()[0]:.2f})",
            flush=True,
        )
        if not args.reuse:
            facts = ingest(args.child, args.seed, with_worker=args.worker)
            print(
                f"ingest{worker_processes() if args.worker else ''}: "
                f"{facts['memories']:,} memories stored, embedded and indexed in "
                f"{facts['seconds']:,.0f} s: {facts['memories'] / facts['seconds']:,.0f} "
                f"memories/s (left over for the sweep: {facts['leftover']})",
                flush=True,
            )
            if args.messages_per_memory:
                said = add_messages(args.messages_per_memory * args.child, args.seed)
                print(
                    f"ingest: {said['messages']:,} messages stored as evidence, embedded and "
                    f"indexed in {said['seconds']:,.0f} s: "
                    f"{said['messages'] / said['seconds']:,.0f} messages/s "
                    f"(left over for the sweep: {said['leftover']})",
                    flush=True,
                )
        result = measure(args.queries, args.seed, args.k)
        ms = result["ms"]
        print(
            f"recall() of the largest member ({result['member_memories']:,} memories, "
            f"{result['member_messages']:,} messages), "
            f"{len(ms)} questions, k={args.k}, load average {result['load'][0]:.2f}: "
            f"p50 {percentile(ms, 0.5):.1f} ms, p95 {percentile(ms, 0.95):.1f} ms, "
            f"p99 {percentile(ms, 0.99):.1f} ms, max {max(ms):.1f} ms; "
            f"{result['mean_hits']:.1f} hits on average"
        )
        print("mean time per step (ms): " + ", ".join(
            f"{name} {value:.1f}" for name, value in sorted(
                result["steps_ms"].items(), key=lambda item: -item[1]
            )
        ))  # fmt: skip
        # _rows runs inside nothing else timed; every other step is disjoint from the rest.
        print(
            f"top {args.k} the same as the single exact vector scan's: {result['same_as_exact']} of "
            f"{len(ms)} questions in order, {result['same_set_as_exact']} as a set"
        )
        rest = statistics.fmean(ms) - sum(result["steps_ms"].values())
        print(f"mean recall {statistics.fmean(ms):.1f} ms, of which outside those steps {rest:.1f}")
        return 0

    for size in args.sizes:
        data_dir = args.reuse or args.keep or Path(tempfile.mkdtemp(prefix="talkingrock-recall-"))
        data_dir.mkdir(parents=True, exist_ok=True)
        print(f"\n## {size:,} memories ({', '.join(f'{s:.0%}' for s in MEMBER_SHARE)} by member)")
        command = [sys.executable, __file__, "--child", str(size), "--queries", str(args.queries)]
        command += [
            "--seed",
            str(args.seed),
            "--messages-per-memory",
            str(args.messages_per_memory),
        ]
        command += ["--reuse", str(args.reuse)] if args.reuse else []
        command += ["--k", str(args.k)]
        command += ["--no-ranker"] if args.no_ranker else []
        command += ["--worker"] if args.worker else []
        env = {**os.environ, "TALKINGROCK_DATA_DIR": str(data_dir)}
        subprocess.run(command, env=env, check=True, cwd=ROOT)
        if not args.keep and not args.reuse:
            import shutil

            shutil.rmtree(data_dir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
