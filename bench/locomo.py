"""Turn-level recall on LoCoMo, through the real write and read paths (issue 3, "Measure").

Usage (from the project root)::

    .venv/bin/python bench/locomo.py [--data ../shared/data/locomo] [--keep DIR | --reuse DIR]
        [--set key=value ...] [--conversations 0-9] [--modes keywords vectors pool tuned hybrid]
        [--path conversation|plain] [--halves 0-4 5-9]

    # our real-human-style chats, in the same format: dev to tune on, test frozen
    .venv/bin/python bench/locomo.py --data tests/data/realchat/dev
    .venv/bin/python bench/locomo.py --data tests/data/realchat/test

``--data`` is any LoCoMo-format folder (``locomo10.json``, or every ``*.json`` in it; the audit's
``errors.json`` when present). ``--path plain`` stores every turn through ``memory_store`` alone,
with ``happened_at`` and the session's name as ``session`` (no conversations), so both ways in
are measured. For LoCoMo the tables are printed for all ten and for each half: 0-4 is what
recall was tuned on, 5-9 is held out.

Each of the ten conversations becomes one member's memories, one memory per turn:
``Speaker: text`` (with the image caption of a shared photo), ``happened_at`` the session's date
and time (a second per turn keeps their order), each session an archived conversation that its
turns' memories come from, stored through ``memory_store`` into a fresh
database under a temporary ``TALKINGROCK_DATA_DIR`` and indexed by ``memories.indexing`` (the
real embedding model and entity rules), which also gives the ingest rate. The dialog id of every
turn is kept by this script, not in the memory. Then every question with evidence is asked:

- ``keywords``: the FTS5 list alone (``search.keyword_candidates``, sanitised as memory_query);
- ``vectors``: the sqlite-vec list alone (``vector_search.nearest``, the query embedded);
- ``hybrid``: ``memories.recall.recall(member, question, k=50, at=<day after the last session>)``,
  as configured (the learned ranker is off as shipped; ``--set ranker=true`` turns it on);
- ``tuned``: the same recall with the learned ranker off: the steps' hand-tuned sum decides
  (issue 26's "before");
- ``pool``: every candidate recall gathers, before any ranking, ordered by that sum; its last
  column is Recall@100 of the pool (issue 26: the pool must be wide enough to rank).

Recall@k is the share of a question's evidence turns among the first k results, averaged over
questions: overall for categories 1-4 (category 5, adversarial, is shown on its own, as are the
audit's corrected evidence ids from ``errors.json``). The data is read where it lies and never
copied into the repository.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from datetime import datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KS = (5, 10, 25, 50)
# The candidate pool before ranking is scored at its first POOL_K (by the steps' hand-tuned
# sum): in the table's last column for the "pool" mode, whose R@50 is the sum's own.
POOL_K = 100
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
HEADLINE = (1, 2, 3, 4)
DRAGON = (56.7, 66.2, 76.7, 82.7)  # LoCoMo paper, Table 3, dialog turns
TARGET = {10: 75.0, 50: 90.0}


def evidence_ids(raw: list[str]) -> list[str]:
    """'D1:3', 'D8:6; D9:17', 'D:1:3' → ['D1:3', …]; malformed ids are dropped."""
    ids = []
    for item in raw:
        for part in re.split(r"[;,\s]+", item):
            if match := re.fullmatch(r"D:?(\d+):0*(\d+)", part):
                normalised = f"D{int(match[1])}:{int(match[2])}"
                if normalised not in ids:
                    ids.append(normalised)
    return ids


def load(data: Path) -> list[dict]:
    """Every conversation of a LoCoMo-format folder: ``locomo10.json`` (with the audit's
    ``errors.json`` when it is there), or else every ``*.json`` in it, in name order."""
    files = [data / "locomo10.json"] if (data / "locomo10.json").exists() else []
    files = files or sorted(p for p in data.glob("*.json") if p.name != "errors.json")
    if not files:
        raise SystemExit(f"no LoCoMo-format JSON in {data}")
    conversations = [sample for path in files for sample in json.loads(path.read_text())]
    audit = data / "errors.json"
    corrections = {
        item["question_id"]: evidence_ids(item["correct_evidence"])
        for item in (json.loads(audit.read_text()) if audit.exists() else [])
        if item.get("correct_evidence")
    }
    loaded = []
    for index, sample in enumerate(conversations):
        dialogue = sample["conversation"]
        sessions = sorted(
            int(key.split("_")[1]) for key in dialogue if re.fullmatch(r"session_\d+", key)
        )
        turns = []
        for number in sessions:
            when = datetime.strptime(
                dialogue[f"session_{number}_date_time"].strip(), "%I:%M %p on %d %B, %Y"
            )
            for position, turn in enumerate(dialogue[f"session_{number}"]):
                text = f"{turn['speaker']}: {turn['text']}"
                if turn.get("blip_caption"):
                    text += f" [shared a photo: {turn['blip_caption']}]"
                turns.append(
                    {
                        "id": turn["dia_id"],
                        "text": text,
                        "at": when + timedelta(seconds=position),
                        "session": number,
                    }
                )
        questions = []
        for number, qa in enumerate(sample["qa"]):
            evidence = evidence_ids(qa.get("evidence", []))
            if evidence:
                questions.append(
                    {
                        "question": qa["question"],
                        "category": qa["category"],
                        "evidence": evidence,
                        "corrected": corrections.get(f"locomo_{index}_qa{number}", evidence),
                    }
                )
        loaded.append({"index": index, "turns": turns, "questions": questions})
    return loaded


def setup_django(data_dir: Path) -> None:
    os.environ["TALKINGROCK_DATA_DIR"] = str(data_dir)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "talkingrock.settings")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()


def ingest(conversations: list[dict], path: str = "conversation") -> dict:
    """Store every turn. ``conversation``: each session an archived conversation its turns come
    from (the app's own path); ``plain``: through ``memory_store`` alone, each turn with its
    ``happened_at`` and the session's name as ``session``, as an agent or importer writes."""
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import transaction
    from django.utils import timezone

    from conversations.models import Conversation
    from memories import indexing, services

    call_command("migrate", verbosity=0)
    started = time.perf_counter()
    for conversation in conversations:
        member = get_user_model().objects.create_user(f"locomo{conversation['index']}")
        sessions: dict[int, Conversation] = {}
        with transaction.atomic():
            for turn in conversation["turns"]:
                when = timezone.make_aware(turn["at"])
                if path == "plain":
                    services.memory_store(
                        owner=member,
                        content=turn["text"],
                        source="agent",
                        happened_at=when,
                        session=f"session {turn['session']}",
                    )
                    continue
                if turn["session"] not in sessions:  # each LoCoMo session is one conversation
                    sessions[turn["session"]] = Conversation.objects.create(
                        owner=member,
                        status=Conversation.Status.ARCHIVED,
                        started_at=when,
                        archived_at=when,
                    )
                services.memory_store(
                    owner=member,
                    content=turn["text"],
                    source="conversation",
                    happened_at=when,
                    conversation=sessions[turn["session"]],
                )
    stored = time.perf_counter() - started
    count = sum(len(c["turns"]) for c in conversations)
    started = time.perf_counter()
    indexed = indexing.index_memories()
    embedding_seconds = time.perf_counter() - started
    return {
        "memories": count,
        "indexed": indexed,
        "store_seconds": stored,
        "index_seconds": embedding_seconds,
        "ingest_rate": count / (stored + embedding_seconds),
    }


def asked_at(conversation: dict):
    """When its questions are asked: the day after its last session (an aware datetime)."""
    from django.utils import timezone

    return timezone.make_aware(
        max(turn["at"] for turn in conversation["turns"]) + timedelta(days=1)
    )


def turn_of(conversation: dict, member) -> dict[int, str]:
    """memory id → the dialog id of the turn it holds."""
    return {pk: conversation["turns"][n]["id"] for n, pk in dialog_ids(member).items()}


def dialog_ids(member) -> dict[int, str]:
    """memory id → dialog id: turns were stored in order, so the n-th memory is the n-th turn."""
    from memories.models import Memory

    return dict(
        enumerate(Memory.objects.filter(owner=member).order_by("pk").values_list("pk", flat=True))
    )


def rank_lists(conversation: dict, modes: list[str], at) -> dict[str, list[list[int]]]:
    from django.conf import settings
    from django.contrib.auth import get_user_model

    from memories import search, vector_search
    from memories.recall import Query, candidates, recall
    from memories.recall.ranker import NAMES
    from talkingrock import embeddings

    member = get_user_model().objects.get(username=f"locomo{conversation['index']}")
    ranked: dict[str, list[list[int]]] = defaultdict(list)
    timings: list[float] = []
    for question in conversation["questions"]:
        text = question["question"]
        if "keywords" in modes:
            terms, _ = search.within_budget(search.sanitise(text).terms, owner_id=member.pk)
            rows = search.keyword_candidates(
                owner_id=member.pk,
                match=search.match_expression(terms),
                limit=max(KS),
                include_archived=False,
            )
            ranked["keywords"].append([memory_id for memory_id, _ in rows])
        if "vectors" in modes:
            vector = embeddings.to_blob(embeddings.embed_one(text))
            rows = vector_search.nearest(owner_id=member.pk, vector=vector, k=max(KS))
            ranked["vectors"].append([memory_id for memory_id, _ in rows])
        if "hybrid" in modes:
            started = time.perf_counter()
            result = recall(member, text, k=max(KS), at=at)
            timings.append(time.perf_counter() - started)
            ranked["hybrid"].append([hit.memory_id for hit in result.hits])
        if "tuned" in modes:  # the steps' hand-tuned sum: recall with the learned ranker off
            config = settings.TALKINGROCK_RECALL
            shipped, config["ranker"] = config["ranker"], False
            try:
                result = recall(member, text, k=max(KS), at=at)
            finally:
                config["ranker"] = shipped
            ranked["tuned"].append([hit.memory_id for hit in result.hits])
        if "pool" in modes:  # every candidate before ranking, by the steps' sum (R@100: POOL_K)
            ids, matrix = candidates(Query(member, text, k=max(KS), at=at))
            lifted = matrix[:, NAMES.index("lifted")] if len(ids) else []
            order = sorted(range(len(ids)), key=lambda n: (-lifted[n], -ids[n]))
            ranked["pool"].append([ids[n] for n in order[:POOL_K]])
    ranked["_timings"] = timings  # type: ignore[assignment]
    ranked["_member"] = member  # type: ignore[assignment]
    return ranked


def recall_at(ranked_ids: list[str], evidence: list[str], k: int) -> float:
    top = set(ranked_ids[:k])
    return sum(e in top for e in evidence) / len(evidence)


def evaluate(conversations, modes, subset) -> tuple[dict, list[float]]:

    scores: dict = defaultdict(lambda: defaultdict(list))  # (mode, evidence) → group → rows
    timings: list[float] = []
    for conversation in conversations:
        if conversation["index"] not in subset:
            continue
        ranked = rank_lists(conversation, modes, asked_at(conversation))
        timings += ranked.pop("_timings")
        to_dialog = turn_of(conversation, ranked.pop("_member"))
        for mode, lists in ranked.items():
            for question, memory_ids in zip(conversation["questions"], lists, strict=True):
                ids = [to_dialog[pk] for pk in memory_ids]
                for evidence_key in ("evidence", "corrected"):
                    ks = (*KS[:-1], POOL_K) if mode == "pool" else KS
                    row = [recall_at(ids, question[evidence_key], k) for k in ks]
                    groups = [question["category"]]
                    if question["category"] in HEADLINE:
                        groups.append("all")
                    for group in groups:
                        scores[(mode, evidence_key)][group].append(row)
    return scores, timings


def table(scores, modes) -> str:
    lines = []
    for evidence_key, title in (
        ("evidence", "original evidence"),
        ("corrected", "audit-corrected"),
    ):
        lines.append(f"\n### Turn-level recall, {title} (categories 1-4 overall)\n")
        lines.append("| mode | group | n | R@5 | R@10 | R@25 | R@50 (pool: R@100) |")
        lines.append("|---|---|---|---|---|---|---|")
        for mode in modes:
            groups = scores[(mode, evidence_key)]
            for group in ["all", *CATEGORIES]:
                rows = groups.get(group)
                if not rows:
                    continue
                means = [100 * statistics.fmean(row[i] for row in rows) for i in range(len(KS))]
                name = "**all 1-4**" if group == "all" else f"{group} {CATEGORIES[group]}"
                lines.append(
                    f"| {mode} | {name} | {len(rows)} | "
                    + " | ".join(f"{value:.1f}" for value in means)
                    + " |"
                )
        lines.append(
            "| DRAGON (paper) | all 1-4 | | " + " | ".join(f"{v:.1f}" for v in DRAGON) + " |"
        )
    return "\n".join(lines)


def parse_subset(text: str) -> set[int]:
    chosen = set()
    for part in text.split(","):
        start, _, end = part.partition("-")
        chosen.update(range(int(start), int(end or start) + 1))
    return chosen


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data" / "locomo")
    parser.add_argument("--keep", type=Path, help="build the database here and keep it")
    parser.add_argument("--reuse", type=Path, help="ask the questions of a kept database")
    parser.add_argument("--conversations", default="0-9", help="e.g. 0-4 or 5-9 or 0,3")
    parser.add_argument(
        "--modes", nargs="+", default=["keywords", "vectors", "pool", "tuned", "hybrid"]
    )
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a TALKINGROCK_RECALL setting for this run (JSON value)",
    )
    parser.add_argument("--json", type=Path, help="also write the scores here")
    parser.add_argument(
        "--path",
        choices=("conversation", "plain"),
        default="conversation",
        help="store each session as a conversation, or through memory_store with session "
        "and happened_at",
    )
    parser.add_argument(
        "--halves",
        nargs="*",
        default=None,
        metavar="SUBSET",
        help="score these subsets apart too (default for LoCoMo: 0-4 tuned on, 5-9 held out)",
    )
    args = parser.parse_args(argv)

    conversations = load(args.data)
    data_dir = args.reuse or args.keep or Path(tempfile.mkdtemp(prefix="talkingrock-locomo-"))
    data_dir.mkdir(parents=True, exist_ok=True)
    setup_django(data_dir)
    from django.conf import settings

    for item in args.set:
        key, _, value = item.partition("=")
        if key not in settings.TALKINGROCK_RECALL:
            parser.error(f"unknown recall setting {key!r}")
        settings.TALKINGROCK_RECALL[key] = json.loads(value)

    if not args.reuse:
        facts = ingest(conversations, args.path)
        print(
            f"ingest: {facts['memories']:,} memories stored, embedded and entity-indexed in "
            f"{facts['store_seconds']:.1f} s (indexing runs inline on commit: no worker here), "
            f"{facts['index_seconds']:.1f} s of sweep left over: "
            f"{facts['ingest_rate']:.0f} memories/s end to end"
        )
    subset = parse_subset(args.conversations)
    halves = args.halves
    if halves is None:  # LoCoMo: 0-4 tuned on, 5-9 held out
        halves = ["0-4", "5-9"] if len(conversations) == 10 else []
    parts = [parse_subset(h) & subset for h in halves] or [subset]
    parts.append(subset - set().union(*parts))
    started = time.perf_counter()
    scores: dict = defaultdict(lambda: defaultdict(list))
    timings: list[float] = []
    by_half = []
    for part in parts:
        part_scores, part_timings = evaluate(conversations, args.modes, part)
        by_half.append(part_scores)
        timings += part_timings
        for key, groups in part_scores.items():
            for group, rows in groups.items():
                scores[key][group] += rows
    print(
        f"stored through the {args.path} path; questions asked in "
        f"{time.perf_counter() - started:.0f} s"
    )
    if timings:
        timings.sort()
        print(
            f"hybrid recall() per question: p50 {1000 * timings[len(timings) // 2]:.1f} ms, "
            f"p95 {1000 * timings[int(len(timings) * 0.95)]:.1f} ms (query embedding included)"
        )
    if args.set:
        print("settings changed for this run:", ", ".join(args.set))
    print(table(scores, args.modes))
    for name, part_scores in zip(halves, by_half, strict=False):
        print(f"\n## conversations {name} only")
        print(table(part_scores, args.modes))
    if args.json:
        args.json.write_text(
            json.dumps({f"{m}|{e}": v for (m, e), v in scores.items()}, default=str)
        )
    if not args.keep and not args.reuse:
        import shutil

        shutil.rmtree(data_dir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
