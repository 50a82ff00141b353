"""Questions asked weeks later, answered by recall over what the app remembered of a household.

    .venv/bin/python bench/household_recall.py [--split dev|test|both] [--k 5] [--verbose]
        [--via messages|import]

Each household of tests/data/households/ (dev h1–h4 may be read and tuned on; test h5–h7 is
frozen) is replayed into a fresh database (a temporary TALKINGROCK_DATA_DIR), through the app's
own path: the member's messages and the assistant's replies of the transcript, dated as they
were; close; the offline compression (Ollama off); the review accepted as the member would —
kept in the act the household file says it belongs to, every proposed resolution and
supersession accepted. Every question of questions.json is put to ``recall()`` by the member
who asks it, at the date it is asked, once the conversations had before it are lived and before
any had after it (``--order as-lived``; ``--order all-first`` asks every question after every
conversation, as this script did until 2026-11-27).

Printed per split:
- **found**: questions whose top ``--k`` holds a memory (or a fact) of a conversation the question
  names as evidence (decline questions have none and are counted apart);
- **current first**: knowledge-update questions where the best memory of the evidence
  conversation ranks above every memory of the conversation whose value it replaced;
- **declined**: for questions nothing answers, the best hit's meaning similarity (lower is
  better; issue 13's relevance floor will be calibrated on it).
``--verbose`` lists the dev split's misses only.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HOUSEHOLDS = ROOT / "tests" / "data" / "households"


def setup(data_dir: str) -> None:
    os.environ["TALKINGROCK_DATA_DIR"] = data_dir
    os.environ["TALKINGROCK_LLM"] = "off"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "talkingrock.settings")
    os.environ.setdefault("TALKINGROCK_SECRET_KEY", "bench-not-secret")
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)


def aware(text: str):
    from django.utils import timezone

    moment = datetime.fromisoformat(text)
    return moment if timezone.is_aware(moment) else timezone.make_aware(moment)


def conversations_of(household: Path) -> list[Path]:
    """The household's conversation files, in the order they were had."""
    return sorted((household / "conversations").glob("*.json"))


def started_at(path: Path):
    return aware(json.loads(path.read_text())["started_at"])


def members(household: Path) -> dict[str, object]:
    """The household's members by username, each with the acts the household file gives them."""
    from django.contrib.auth import get_user_model

    from memories.models import Act

    info = json.loads((household / "household.json").read_text())
    users = {}
    for member in info["members"]:
        users[member["username"]] = get_user_model().objects.create_user(
            username=f"{info['id']}-{member['username']}", first_name=member["name"]
        )
    for act in info["acts"]:
        Act.objects.create(
            owner=users[act["member"]], title=act["title"], description=act["description"]
        )
    return users


def live(users: dict, paths: list[Path], via: str = "messages") -> None:
    """These conversations of the household had through the app, then indexed. ``via="import"``:
    each member's conversations brought in as one export of Talking Rock's own format, with each
    message's time (conversations/importing.py), instead of typed message by message."""
    from django.db import transaction

    from conversations import review, services
    from conversations.models import Conversation, Message
    from memories import indexing
    from memories.models import Act, Memory

    if via == "import":
        _import(paths, users)
        return
    for path in paths:
        case = json.loads(path.read_text())
        owner = users[case["member"]]
        started = aware(case["started_at"])
        conversation, _ = services.start(owner=owner)
        for role, content in case["transcript"]:
            content = content.strip()
            if role == "user" and content:
                services.add_message(owner=owner, content=content)
            elif content:
                with transaction.atomic():
                    services.append(conversation, role=Message.Role.ASSISTANT, content=content)
        Conversation.objects.filter(pk=conversation.pk).update(started_at=started)
        # Each message a minute after the one before, and what was said (evidence) as it was.
        for message in Message.objects.filter(conversation=conversation):
            said_at = started + timedelta(minutes=message.position)
            Message.objects.filter(pk=message.pk).update(created_at=said_at)
            Memory.everything.filter(message=message).update(
                created_at=said_at, happened_at=said_at
            )
        conversation.refresh_from_db()
        services.request_close(conversation=conversation)
        services.confirm_close(conversation=conversation)  # compresses inline: no worker
        conversation.refresh_from_db()
        assert conversation.review_ready, conversation.compression_error
        act = Act.objects.filter(owner=owner, title=case["route"]).first()
        review.confirm(conversation=conversation, destination=act)
        # Memories remember when they happened: the conversation's day, not the replay's.
        Memory.objects.filter(conversation=conversation).update(created_at=started)
    for owner in users.values():
        indexing.index_memories(owner_id=owner.pk)


def export_of(paths: list[Path]) -> dict[str, dict]:
    """Each member's conversations as Talking Rock's own export: a message a minute after the
    one before, from the conversation's start."""
    exports: dict[str, dict] = {}
    for path in paths:
        case = json.loads(path.read_text())
        started = datetime.fromisoformat(case["started_at"])
        messages = [
            {
                "role": role,
                "content": content.strip(),
                "at": (started + timedelta(minutes=position)).isoformat(),
            }
            for position, (role, content) in enumerate(case["transcript"])
            if content.strip()
        ]
        export = exports.setdefault(
            case["member"],
            {"format": "talkingrock.conversations", "version": 1, "conversations": []},
        )
        export["conversations"].append({"id": case["id"], "messages": messages})
    return exports


def _import(paths: list[Path], users: dict) -> None:
    from conversations import importing
    from memories import indexing

    for member, export in export_of(paths).items():
        job = importing.queue(owner=users[member], data=export, enqueue=False)
        status = importing.run(job.pk)
        assert status == "done", (member, status)
        indexing.index_memories(owner_id=users[member].pk)


def asked_at(question: dict):
    return aware(question["asked_on"] + "T12:00:00")


def lived(household: Path, via: str, order: str):
    """The household lived through the app, and each question with its members (by username) at
    the moment it is asked: ``order="as-lived"``, each question once the conversations had before
    it and none after; ``"all-first"``, every question after every conversation."""
    users = members(household)
    questions = json.loads((household / "questions.json").read_text())
    paths = conversations_of(household)
    if order == "all-first":
        live(users, paths, via)
        for question in questions:
            yield users, question
        return
    starts = [started_at(path) for path in paths]
    for question in sorted(questions, key=asked_at):  # stable: a day's questions as written
        due = sum(start < asked_at(question) for start in starts)  # a prefix: they are in order
        if due:
            live(users, paths[:due], via)
            paths, starts = paths[due:], starts[due:]
        yield users, question


def labels(users: dict, names: list[str]) -> dict[int, str]:
    """Conversation pk → the household's id for it ("h1-03"), of the household's conversations
    ``names`` in the order they were had."""
    from conversations.models import Conversation

    found = Conversation.objects.filter(owner__in=list(users.values()))
    if all(c.imported_from for c in found):
        return {c.pk: c.imported_from.split(":", 1)[1] for c in found}
    had = sorted(c.pk for c in found)  # the first conversations, while a household is lived
    return dict(zip(had, names[: len(had)], strict=True))


def ask(household: Path, k: int, split: dict, via: str, order: str) -> None:
    from memories.recall import recall

    names = [json.loads(path.read_text())["id"] for path in conversations_of(household)]
    for users, question in lived(household, via, order):
        label = labels(users, names)
        owner = users[question["member"]]
        found = recall(owner, question["question"], k=max(k, 50), at=asked_at(question))
        where = [label.get(hit.memory.conversation_id) for hit in found.hits]
        if question["kind"] == "decline":
            best = (
                found.hits[0].components.get("meaning", {}).get("similarity")
                if found.hits
                else None
            )
            split["declines"].append(best if best is not None else 0.0)
            continue
        split["asked"] += 1
        hit = any(name in question["evidence"] for name in where[:k])
        split["found"] += hit
        split["by_kind"].setdefault(question["kind"], [0, 0])
        split["by_kind"][question["kind"]][0] += hit
        split["by_kind"][question["kind"]][1] += 1
        if not hit:
            split["misses"].append(
                f"{household.name} {question['kind']}: {question['question']} → {where[:k]} (want {question['evidence']})"
            )
        if question["kind"] == "knowledge-update" and question.get("superseded"):
            current = next(
                (i for i, name in enumerate(where) if name in question["evidence"]), None
            )
            old = next((i for i, name in enumerate(where) if name in question["superseded"]), None)
            split["updates"] += 1
            first = current is not None and (old is None or current < old)
            split["current_first"] += first
            if not first:
                split["misses"].append(
                    f"{household.name} older first: {question['question']} → current at "
                    f"{current}, replaced at {old}"
                )


def run(split_name: str, k: int, via: str = "messages", order: str = "as-lived") -> dict:
    split = {
        "asked": 0,
        "found": 0,
        "by_kind": {},
        "misses": [],
        "declines": [],
        "updates": 0,
        "current_first": 0,
    }
    for household in sorted(p for p in (HOUSEHOLDS / split_name).iterdir() if p.is_dir()):
        ask(household, k, split, via, order)
    return split


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--split", choices=("dev", "test", "both"), default="both")
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--verbose", action="store_true", help="the dev split's misses")
    parser.add_argument(
        "--via",
        choices=("messages", "import"),
        default="messages",
        help="typed message by message (send_message's path), or imported with their dates",
    )
    parser.add_argument(
        "--order",
        choices=("as-lived", "all-first"),
        default="as-lived",
        help="each question asked once what was said before it is had, and nothing after it; "
        "or every question after every conversation (as before 2026-11-27)",
    )
    args = parser.parse_args(argv)
    started = time.perf_counter()
    print(
        f"$ {' '.join(sys.argv)}  ({datetime.now():%Y-%m-%d %H:%M}, load {os.getloadavg()[0]:.2f})\n"
    )
    with tempfile.TemporaryDirectory(prefix="talkingrock-households-") as data_dir:
        setup(data_dir)
        for name in ("dev", "test") if args.split == "both" else (args.split,):
            split = run(name, args.k, args.via, args.order)
            print(f"### {name} split")
            print(
                f"found in the top {args.k}: {split['found']} of {split['asked']} "
                f"({split['found'] / max(split['asked'], 1):.0%})"
            )
            print(
                "  by kind: "
                + ", ".join(f"{kind} {a}/{b}" for kind, (a, b) in sorted(split["by_kind"].items()))
            )
            print(
                f"current value above the one it replaced: {split['current_first']} of {split['updates']}"
            )
            declines = ", ".join(f"{value:.2f}" for value in split["declines"])
            print(f"questions nothing answers, best hit's similarity: {declines}\n")
            if args.verbose and name == "dev":
                print("\n".join(f"  miss: {line}" for line in split["misses"]) + "\n")
    print(f"took {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
