"""The draft a compression leaves for review: the conversation's memory (its narrative), its
items, its facts (memories of kind "fact", each linked to the conversation and to the memory) and
what it changes (state deltas: new threads, resolutions, supersessions). Plus the small lookups
the stages share: who the member is, who else is in the household, whom they know.
"""

from __future__ import annotations

import re
from datetime import date, datetime, time
from typing import TYPE_CHECKING, Any

from django.contrib.auth import get_user_model
from django.utils import timezone

from conversations.models import Conversation
from memories import indexing
from memories.acts import ensure_your_story
from memories.models import Act, Entity, Memory, MemoryItem, StateDelta
from narratives import services as narratives
from talkingrock.language import parsed
from talkingrock.language.names import Known, display_name
from talkingrock.language.offline import facts as offline_facts
from talkingrock.language.offline import items as offline_items
from talkingrock.text import clean_text

if TYPE_CHECKING:
    from conversations.changes import Found

# extract()'s keys → MemoryItem types
KIND_TO_TYPE = {
    "people": "person",
    "tasks": "task",
    "decisions": "decision",
    "waiting_on": "waiting_on",
    "questions_resolved": "question_resolved",
    "questions_opened": "question_opened",
    "blockers_cleared": "blocker_cleared",
    "insights": "insight",
}
TYPE_TO_KIND = {value: key for key, value in KIND_TO_TYPE.items()}
# Items whose words may name a day: it is kept beside them ("due", "on", "at").
DATED_KINDS = ("tasks", "decisions", "waiting_on")
MAX_FACT = 300


def household_names(owner) -> list[str]:
    """The member first, then everyone else in the household: "we" means them."""
    others = get_user_model().objects.filter(is_active=True).exclude(pk=owner.pk).order_by("pk")
    return [display_name(owner), *(display_name(user) for user in others)]


def known_people(owner) -> list[Known]:
    """The people the member's memories already name, for the gazetteer."""
    rows = Entity.objects.filter(owner=owner, kind=Entity.Kind.PERSON).values_list(
        "name", flat=True
    )
    return [Known(name) for name in rows[:2000]]


def people_named(owner, text: str) -> list[str]:
    """The known people a text names, in any case (cheap: no parse)."""
    lowered = f" {text.casefold()} "
    return [
        person.name
        for person in known_people(owner)
        if re.search(rf"(?<![\w]){re.escape(person.name.casefold())}(?![\w])", lowered)
    ][:10]


def _normalised(entities: Any) -> dict[str, list[dict[str, str]]]:
    """Every key present, every field a string: what the review screen and items expect."""
    clean: dict[str, list[dict[str, str]]] = {}
    for kind, item_type in KIND_TO_TYPE.items():
        rows = entities.get(kind) if isinstance(entities, dict) else None
        fields = [*MemoryItem.FIELDS[item_type], "relation", "priority", "since", "why", "by"]
        kept = []
        for row in rows if isinstance(rows, list) else []:
            if isinstance(row, dict):
                kept.append({k: str(v)[:300] for k, v in row.items() if k in fields and v})
        clean[kind] = kept
    return clean


def _key(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.casefold()))


def merge_entities(passes: list[dict]) -> dict[str, list[dict[str, str]]]:
    """Several extraction passes into one: an item is kept once, by its main text."""
    merged: dict[str, list[dict[str, str]]] = {kind: [] for kind in KIND_TO_TYPE}
    for entities in passes:
        for kind, rows in _normalised(entities).items():
            main = MemoryItem.FIELDS[KIND_TO_TYPE[kind]][0]
            seen = {_key(row.get(main, "")) for row in merged[kind]}
            for row in rows:
                if (key := _key(row.get(main, ""))) and key not in seen:
                    merged[kind].append(row)
                    seen.add(key)
    return merged


def fact_row(fact: offline_facts.Fact, said_on: date | None = None) -> dict[str, str]:
    row = {"text": fact.text, "subject": fact.subject, "relation": fact.relation}
    if said_on is not None:
        row["said_on"] = said_on.isoformat()
    return row


def clean_facts(rows: Any) -> list[dict[str, str]]:
    """Facts as the draft stores them: one sentence each, at most 300 characters, each once."""
    kept, seen = [], set()
    for row in rows if isinstance(rows, list) else []:
        if not isinstance(row, dict) or not isinstance(row.get("text"), str):
            continue
        text = " ".join(clean_text(row["text"]).split())[:MAX_FACT].strip()
        if not text or _key(text) in seen:
            continue
        seen.add(_key(text))
        kept.append(
            {
                "text": text,
                "subject": " ".join(str(row.get("subject", "")).split())[:200],
                "relation": " ".join(str(row.get("relation", "")).split())[:100],
            }
            | ({"said_on": row["said_on"]} if _is_day(row.get("said_on")) else {})
        )
    return kept[: offline_facts.MAX_FACTS]


def _is_day(value: Any) -> bool:
    try:
        date.fromisoformat(value)
    except (TypeError, ValueError):
        return False
    return True


def _fact_fields(row: dict, conversation: Conversation) -> dict[str, Any]:
    """What a fact's words hold, beside them (talkingrock/language/parsed.py), read against the
    day it was said; its ``happened_at`` is the day it names, else that day."""
    said_at = conversation.last_message_at or conversation.started_at or timezone.now()
    said_on = (
        date.fromisoformat(row["said_on"])
        if _is_day(row.get("said_on"))
        else timezone.localtime(said_at).date()
    )
    found = parsed.parse(row["text"], said_on=said_on)
    tz = timezone.get_current_timezone()
    happened = found.moment(tz) or datetime.combine(said_on, time(12, 0), tzinfo=tz)
    return {"details": found.as_dict(), "happened_at": happened}


# An item's fields that are not the member's words: a waiting-on's "since" is the day it was
# said, not a day it names.
NOT_SAID = frozenset({"since"})


def _item_fields(row: dict, conversation: Conversation) -> dict[str, Any]:
    """An item without a day beside its words (a model's) gets the one they name."""
    if row.get("due") or row.get("on"):
        return row
    said_at = conversation.last_message_at or conversation.started_at or timezone.now()
    main = " ".join(
        str(value) for key, value in row.items() if isinstance(value, str) and key not in NOT_SAID
    )
    return row | offline_items.when_fields(main, timezone.localtime(said_at).date())


def without_act_name(text: str, act: Act) -> str:
    """The narrative without its act's name in brackets ("… the contract (Kitchen remodel).",
    the offline builder's way of saying it, or a model's): the act is shown beside the memory,
    and a memory moved to another act on the review would still name the first."""
    if act.is_your_story:
        return text
    return " ".join(text.replace(f" ({act.title})", "").split()) or text


def write(conversation: Conversation, *, narrative, entities, facts, found: Found, route) -> Memory:
    """The draft memory, its items, facts and deltas (inside the caller's transaction).
    ``narrative``, ``entities`` and ``facts`` are the stages' answers (Produced)."""
    owner = conversation.owner
    Memory.objects.filter(conversation=conversation, status=Memory.Status.DRAFT).delete()
    destination = None
    if route.get("act_id"):
        destination = Act.objects.filter(pk=route["act_id"], owner=owner).first()
    act = destination or ensure_your_story(owner=owner)
    engine = f"ollama:{narrative.model}" if narrative.engine == "ollama" else "offline"
    stamp = narratives.latest(owner)
    # An imported conversation's memory is as old as the conversation (what came later wins).
    written_at = (conversation.last_message_at if conversation.imported_from else None) or (
        timezone.now()
    )
    memory = Memory.objects.create(
        owner=owner,
        content=without_act_name(narrative.value, act),
        source=Memory.Source.CONVERSATION,
        act=act,
        conversation=conversation,
        status=Memory.Status.DRAFT,
        extraction_engine=engine,
        confidence=route.get("confidence"),
        happened_at=conversation.started_at,
        narrative=stamp,
        created_at=written_at,
    )
    items = MemoryItem.objects.bulk_create(
        MemoryItem(
            memory=memory,
            type=KIND_TO_TYPE[kind],
            data=_item_fields(row, conversation) if kind in DATED_KINDS else row,
            is_active=not (kind == "tasks" and row.get("status") == "completed"),
            created_at=written_at,
        )
        for kind, rows in entities.value.items()
        for row in rows
    )
    fact_engine = f"ollama:{facts.model}" if facts.engine == "ollama" else "offline"
    written_facts = [
        Memory.objects.create(
            owner=owner,
            content=row["text"],
            kind=Memory.Kind.FACT,
            subject=row.get("subject", ""),
            relation=row.get("relation", ""),
            source=Memory.Source.EXTRACTION,
            act=act,
            conversation=conversation,
            derived_from=memory,
            status=Memory.Status.DRAFT,
            extraction_engine=fact_engine,
            narrative=stamp,
            created_at=written_at,
            **_fact_fields(row, conversation),
        )
        for row in facts.value
    ]
    indexing.request_indexing(owner_id=owner.pk)
    StateDelta.objects.bulk_create(found.deltas(memory, items, written_facts))
    return memory
