"""narrative_search at scale (issue 5, "Measure"): latest, keyword and by id, and a chain walk.

Usage (from the project root)::

    .venv/bin/python bench/narratives.py [--size 10000] [--repeats 200] [--seed 1]

A fresh ``TALKINGROCK_DATA_DIR`` with two members: the one measured has ``--size`` narratives,
the other as many (so every query must keep to its owner). Chains as the running narrative
writes them: most links continue the one before, one in twelve starts a new topic, one in forty
a new thread; each links up to three of 300 memories. Summaries are one generated sentence each
from a vocabulary where some words are common (in thousands of summaries) and others rare.
Rows are written with ``bulk_create`` (the FTS triggers fire as for any insert). Then, for the
measured member, ``--repeats`` timed calls per case after a warm-up; p50 and p95 in ms.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import shutil
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from lifecycle import percentile
from recall_latency import setup_django

PEOPLE = ["Marta", "Omar", "Ana", "Leo", "Maya", "Jon", "Priya", "Tom", "Granny", "Dr Novak"]
TOPICS = ["kitchen", "boiler", "school trip", "car insurance", "Portugal holiday", "garden",
          "birthday party", "dentist", "tax return", "bathroom tiles", "job search", "dog"]  # fmt: skip
VERBS = ["decided to", "is waiting for", "asked about", "agreed to", "put off", "looked into",
         "compared", "booked", "cancelled", "paid for"]  # fmt: skip
OBJECTS = ["the quote", "the appointment", "the deposit", "a second opinion", "the plan",
           "the forms", "the tickets", "the delivery", "the new schedule", "the repairs"]  # fmt: skip
REASONS = ["because it was cheaper", "so the week stays calm", "after the call", "before winter",
           "since the budget is tight", "to keep the promise", "as the school asked"]  # fmt: skip
RARE = [f"{word}{n}" for n in range(400) for word in ("zephyr", "quokka")]


def sentence(rng: random.Random, topic: str) -> str:
    words = [
        rng.choice(PEOPLE),
        rng.choice(VERBS),
        rng.choice(OBJECTS),
        f"for the {topic}",
        rng.choice(REASONS),
    ]
    if rng.random() < 0.1:
        words.insert(3, rng.choice(RARE))
    return " ".join(words) + "."


def seed_narratives(owner, size: int, rng: random.Random, memory_ids: list[int], first_id: int):
    from django.utils import timezone

    from narratives.models import Narrative, NarrativeMemory

    start = timezone.now() - timedelta(days=size // 20)
    rows, links = [], []
    topic = rng.choice(TOPICS)
    for n in range(size):
        pk = first_id + n
        new_thread = n == 0 or rng.random() < 1 / 40
        new_topic = new_thread or rng.random() < 1 / 12
        if new_topic:
            topic = rng.choice(TOPICS)
        rows.append(
            Narrative(
                pk=pk,
                owner=owner,
                summary=sentence(rng, topic),
                topic=topic,
                previous_id=None if new_thread else pk - 1,
                starts_topic=new_topic,
                engine="offline",
                created_at=start + timedelta(minutes=3 * n),
            )
        )
        for position, memory_id in enumerate(rng.sample(memory_ids, rng.randint(0, 3))):
            links.append(NarrativeMemory(narrative_id=pk, memory_id=memory_id, position=position))
    Narrative.objects.bulk_create(rows, batch_size=2000)
    NarrativeMemory.objects.bulk_create(links, batch_size=5000)
    return rows


def timed(function, repeats: int) -> tuple[float, float, object]:
    for _ in range(5):
        result = function()
    took = []
    for _ in range(repeats):
        started = time.perf_counter()
        result = function()
        took.append((time.perf_counter() - started) * 1000)
    return statistics.median(took), percentile(took, 0.95), result


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)

    data_dir = Path(tempfile.mkdtemp(prefix="talkingrock-narratives-"))
    try:
        return run(args, data_dir)
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)


def run(args, data_dir: Path) -> int:
    setup_django(data_dir)
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import transaction

    from conversations.services import ensure_your_story
    from memories.models import Memory
    from narratives import services

    call_command("migrate", verbosity=0)
    rng = random.Random(args.seed)
    member, other = (get_user_model().objects.create_user(name) for name in ("maya", "omar"))
    started = time.perf_counter()
    with transaction.atomic():
        ids = {}
        for owner in (member, other):
            story = ensure_your_story(owner=owner)
            made = Memory.objects.bulk_create(
                Memory(owner=owner, act=story, content=f"Memory {n} of {owner.username}.")
                for n in range(300)
            )
            ids[owner.pk] = [memory.pk for memory in made]
        rows = seed_narratives(member, args.size, rng, ids[member.pk], 1)
        seed_narratives(other, args.size, rng, ids[other.pk], args.size + 1)
    print(
        f"seeded {2 * args.size:,} narratives for two members in "
        f"{time.perf_counter() - started:.1f} s"
    )

    middle = rows[len(rows) // 2]
    chain_start = next(r for r in reversed(rows[: len(rows) // 2]) if r.previous_id is None)
    cases = [
        ("latest (session recovery): `narrative_search()`", lambda: services.search_narratives(member)),
        ("by id: `narrative_search(id=…)`", lambda: services.search_narratives(member, id=middle.pk)),
        ("keyword, rare word", lambda: services.search_narratives(member, query="quokka17")),
        ("keyword, common word (in ~1/10 of summaries)", lambda: services.search_narratives(member, query="deposit")),
        ("keyword, very common word (in every summary)", lambda: services.search_narratives(member, query="for")),
        ("keyword, two words", lambda: services.search_narratives(member, query="boiler quote")),
        ("keyword, no match", lambda: services.search_narratives(member, query="xylophone")),
        ("keyword, malformed `\"((deposit*`", lambda: services.search_narratives(member, query='"((deposit*')),
        ("chain around a link (20 back, 20 forward)", lambda: services.chain(services.get(member, middle.pk))),
    ]  # fmt: skip
    print(f"\n{args.size:,} narratives of the measured member (as many of another); "
          f"{args.repeats} calls per case; chain thread starts at {chain_start.pk}\n")  # fmt: skip
    print(f"`{' '.join(['.venv/bin/python', 'bench/narratives.py', *sys.argv[1:]])}`, "
          f"run {datetime.now(UTC):%Y-%m-%d %H:%M} UTC, {platform.python_version()}, "
          f"load average {os.getloadavg()[0]:.2f}\n")  # fmt: skip
    print("| call | found | p50 ms | p95 ms |")
    print("|---|---|---|---|")
    for title, call in cases:
        p50, p95, result = timed(call, args.repeats)
        found = len(result.narratives) if hasattr(result, "narratives") else len(result)
        print(f"| {title} | {found} | {p50:.2f} | {p95:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
