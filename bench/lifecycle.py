"""The conversation lifecycle's own costs (issue 4, "Measure"), on the offline engine.

Usage (from the project root)::

    .venv/bin/python bench/lifecycle.py [--size 10000] [--turns 100] [--runs 10]
        [--keep DIR | --reuse DIR]

A household of ``--size`` memories (bench/recall_latency.py's, embedded and indexed by the real
write path) in a fresh ``TALKINGROCK_DATA_DIR``, or a database kept by either script. Then, for
the largest member, with Ollama switched off so only Talking Rock's own work is timed:

- **chat turn**: ``services.add_message`` + ``chat.respond`` (recall with its trail, the reply,
  the write), ``--turns`` times; p50/p95;
- **compression**: ``compression.compress`` of a 20-message conversation (10 from the member,
  10 replies), all four stages including the draft's embedding, ``--runs`` times; p50/p95;
- **running narrative** (issue 5): ``conversations.running.advance`` on the offline engine after each
  of ``--turns`` replies (extraction, the topic-shift embedding, the new link); p50/p95;
- **classification with memory** (issue 13): ``reasoning.classify_with_memory`` of each member
  line and of vague requests ("fix the boiler thing"), offline, ``--turns`` times: the whole
  stage and its retrieval alone (the recall with its trail and the open threads), p50/p95.

The chat turn queues the running-narrative task as it does with ``make run`` (a worker is
alive), so the turn pays for queueing it and the task is timed on its own.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from recall_latency import ingest, setup_django

MEMBER_LINES = [
    "We decided to repaint the hallway before Christmas because the scuffs are awful.",
    "I'm waiting on Omar to send the quote for the boiler service.",
    "I need to book Maya's dentist appointment for next week.",
    "Should we switch the car insurance to the cheaper provider?",
    "My sister Ana is visiting on Saturday with the kids.",
    "I finished the tax return this morning.",
    "Let's go with the green tiles for the bathroom.",
    "I wonder whether the school trip needs a signed form.",
    "The plumber Jon is sorted so we can start the kitchen.",
    "I realised the bins go out on Tuesdays now, not Wednesdays.",
]


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--turns", type=int, default=100)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--keep", type=Path)
    parser.add_argument("--reuse", type=Path)
    args = parser.parse_args(argv)

    os.environ["TALKINGROCK_LLM"] = "off"
    data_dir = args.reuse or args.keep or Path(tempfile.mkdtemp(prefix="talkingrock-lifecycle-"))
    data_dir.mkdir(parents=True, exist_ok=True)
    setup_django(data_dir)
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db.models import Count
    from django_q.models import OrmQ

    from conversations import chat, compression, running, services
    from conversations.models import Conversation, Message
    from talkingrock import embeddings, jobs

    if args.reuse:
        call_command("migrate", verbosity=0)
    else:
        facts = ingest(args.size, args.seed)
        print(f"built {facts['memories']:,} memories")
    member = get_user_model().objects.annotate(n=Count("memories")).order_by("-n").first()
    embeddings.embed_one("warm up")
    Conversation.objects.filter(owner=member).exclude(status="archived").update(status="archived")

    jobs.worker_running = lambda: True  # as under `make run`: the task is queued, not run inline
    turns, advances = [], []
    for n in range(args.turns + 10):
        started = time.perf_counter()
        conversation, message = services.add_message(
            owner=member, content=MEMBER_LINES[n % len(MEMBER_LINES)]
        )
        reply = chat.respond(conversation=conversation, message=message)
        took = (time.perf_counter() - started) * 1000
        started = time.perf_counter()
        running.advance(reply.pk)
        if n >= 10:  # warm-up
            turns.append(took)
            advances.append((time.perf_counter() - started) * 1000)
    OrmQ.objects.all().delete()  # the queued copies of the tasks timed above
    Conversation.objects.filter(pk=conversation.pk).update(status="archived")

    runs = []
    for _ in range(args.runs):
        conversation, _ = services.start(owner=member)
        for line in MEMBER_LINES:
            services.append(conversation, role=Message.Role.USER, content=line)
            services.append(conversation, role=Message.Role.ASSISTANT, content="Noted.")
        services.request_close(conversation=conversation)
        Conversation.objects.filter(pk=conversation.pk).update(
            status="compressing", compression_stage="queued"
        )
        started = time.perf_counter()
        outcome = compression.compress(conversation.pk)
        runs.append((time.perf_counter() - started) * 1000)
        assert outcome.startswith("draft memory"), outcome
        services.resume(conversation=conversation)
        Conversation.objects.filter(pk=conversation.pk).update(status="archived")

    from conversations import reasoning
    from conversations.reasoning import context as reasoning_context

    requests = [*MEMBER_LINES, "fix the boiler thing", "did that dentist stuff get sorted"]
    classified, retrieved = [], []
    gather = reasoning_context.gather

    def timed_gather(*a, **k):
        began = time.perf_counter()
        try:
            return gather(*a, **k)
        finally:
            retrieved.append((time.perf_counter() - began) * 1000)

    reasoning.stages.gather = timed_gather
    for n in range(args.turns + 10):
        started = time.perf_counter()
        reasoning.classify_with_memory(member, requests[n % len(requests)], use_model=False)
        if n >= 10:
            classified.append((time.perf_counter() - started) * 1000)
    retrieved = retrieved[10:]
    reasoning.stages.gather = gather

    load = os.getloadavg()
    print(f"member: {member.username} ({member.n:,} memories); load average {load[0]:.2f}")
    print(
        f"chat turn without the LLM, {len(turns)} turns: p50 {statistics.median(turns):.1f} ms, "
        f"p95 {percentile(turns, 0.95):.1f} ms, max {max(turns):.1f} ms"
    )
    print(
        f"offline compression of a 20-message conversation, {len(runs)} runs: "
        f"p50 {statistics.median(runs):.1f} ms, p95 {percentile(runs, 0.95):.1f} ms"
    )
    print(
        f"classification with memory, offline, {len(classified)} requests: "
        f"p50 {statistics.median(classified):.1f} ms, p95 {percentile(classified, 0.95):.1f} ms; "
        f"of which retrieval p50 {statistics.median(retrieved):.1f} ms, "
        f"p95 {percentile(retrieved, 0.95):.1f} ms"
    )
    print(
        f"running narrative per turn, offline, {len(advances)} turns: "
        f"p50 {statistics.median(advances):.1f} ms, p95 {percentile(advances, 0.95):.1f} ms"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
