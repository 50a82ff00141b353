"""Narratives (seed 000): write a link, find links, walk the chain. Every query is the owner's.

A narrative is never changed: ``update`` in the seed's tool name means "the narrative moves on",
and does so by adding a link. ``previous`` set: a continuation; ``None``: a new thread.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import Prefetch

from memories import search
from memories.models import Memory
from narratives import sql
from narratives.models import Narrative, NarrativeMemory
from talkingrock.text import clean_text, sentences

MAX_SUMMARY = 300
MAX_TOPIC = 200
MAX_MEMORIES = 50
SEARCH_LIMIT = 10


class NarrativeError(ValueError):
    """Refused, with a message the caller can act on."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class NarrativeNotFound(NarrativeError):
    """An id that is not the caller's: answered exactly as one that does not exist."""


def clean_summary(summary) -> str:
    text = " ".join(clean_text(str(summary or ""), multiline=False).split())
    if not text:
        raise NarrativeError("A narrative needs a summary: one sentence.")
    if len(text) > MAX_SUMMARY:
        raise NarrativeError(
            f"A narrative's summary is one sentence of at most {MAX_SUMMARY} characters; "
            f"this one has {len(text)}."
        )
    if len(sentences(text)) > 1:
        raise NarrativeError("A narrative's summary is one sentence; this one has more.")
    return text


def clean_topic(topic) -> str:
    text = " ".join(clean_text(str(topic or ""), multiline=False).split())
    if len(text) > MAX_TOPIC:
        raise NarrativeError(f"A topic is at most {MAX_TOPIC} characters.")
    return text


def owned_memory_ids(owner: AbstractBaseUser, memory_ids: Iterable) -> list[int]:
    """The ids in the order given, once each; any that is not the owner's refuses them all."""
    ids: list[int] = []
    for value in memory_ids or ():
        if isinstance(value, bool) or not isinstance(value, int):
            raise NarrativeError(f"Memory ids are whole numbers, not {value!r}.")
        if value not in ids:
            ids.append(value)
    if len(ids) > MAX_MEMORIES:
        raise NarrativeError(f"A narrative links at most {MAX_MEMORIES} memories.")
    found = set(Memory.objects.filter(owner=owner, pk__in=ids).values_list("pk", flat=True))
    if missing := [value for value in ids if value not in found]:
        raise NarrativeNotFound(f"No memory with id {', '.join(map(str, missing))}.")
    return ids


def get(owner: AbstractBaseUser, narrative_id) -> Narrative:
    if isinstance(narrative_id, bool) or not isinstance(narrative_id, int):
        raise NarrativeError(f"A narrative id is a whole number, not {narrative_id!r}.")
    narrative = with_links(Narrative.objects.filter(owner=owner, pk=narrative_id)).first()
    if narrative is None:
        raise NarrativeNotFound(f"No narrative with id {narrative_id}.")
    return narrative


def _newest(owner: AbstractBaseUser):
    return Narrative.objects.filter(owner=owner).order_by("-created_at", "-id")


def latest(owner: AbstractBaseUser) -> Narrative | None:
    """The active narrative: the member's newest link, whichever conversation wrote it."""
    return _newest(owner).first()


def latest_id(owner: AbstractBaseUser) -> int | None:
    """The active narrative's id (what a stored memory is stamped with; no row is loaded)."""
    return _newest(owner).values_list("pk", flat=True).first()


def create(
    *,
    owner: AbstractBaseUser,
    summary: str,
    memory_ids: Iterable[int] = (),
    previous: int | Narrative | None = None,
    topic: str = "",
    starts_topic: bool | None = None,
    conversation=None,
    engine: str = "tool",
) -> Narrative:
    """Add one link. ``starts_topic`` defaults to "no previous" (a new thread)."""
    summary = clean_summary(summary)
    topic = clean_topic(topic)
    if previous is not None and not isinstance(previous, Narrative):
        previous = get(owner, previous)
    elif previous is not None and previous.owner_id != owner.pk:
        raise NarrativeNotFound(f"No narrative with id {previous.pk}.")
    with transaction.atomic():
        ids = owned_memory_ids(owner, memory_ids)
        narrative = Narrative.objects.create(
            owner=owner,
            summary=summary,
            topic=topic,
            previous=previous,
            starts_topic=previous is None if starts_topic is None else starts_topic,
            conversation=conversation,
            engine=engine,
        )
        NarrativeMemory.objects.bulk_create(
            NarrativeMemory(narrative=narrative, memory_id=memory_id, position=position)
            for position, memory_id in enumerate(ids)
        )
    return narrative


def with_links(narratives):
    """Each narrative with its memory ids and the ids of the links that continue it."""
    return narratives.prefetch_related(
        Prefetch("links", queryset=NarrativeMemory.objects.order_by("position")),
        Prefetch("continuations", queryset=Narrative.objects.order_by("created_at", "id")),
    )


@dataclass
class Found:
    narratives: list[Narrative]
    mode: str  # "id", "keyword" or "latest"
    message: str = ""


def search_narratives(
    owner: AbstractBaseUser, *, id=None, query: str | None = None, limit: int = SEARCH_LIMIT
) -> Found:
    """By id (chain walking), by keyword (FTS5), or with neither the latest (session recovery).
    Newest first in every mode."""
    if id is not None:
        return Found([get(owner, id)], "id")
    if query is not None and str(query).strip():
        cleaned = search.sanitise(str(query))
        if not cleaned.match:
            return Found([], "keyword", "Nothing left to search for in that query.")
        ids = sql.keyword_ids(match=cleaned.match, owner_id=owner.pk, limit=limit)
        found = with_links(Narrative.objects.filter(pk__in=ids)).in_bulk()
        return Found([found[pk] for pk in ids if pk in found], "keyword")
    newest = with_links(Narrative.objects.filter(owner=owner).order_by("-created_at", "-id"))
    return Found(list(newest[:1]), "latest")


def as_result(narrative: Narrative) -> dict:
    """What the tools answer for one narrative."""
    return {
        "id": narrative.pk,
        "summary": narrative.summary,
        "topic": narrative.topic,
        "memory_ids": [link.memory_id for link in narrative.links.all()],
        "previous_narrative_id": narrative.previous_id,
        "continued_by": [later.pk for later in narrative.continuations.all()],
        "starts_topic": narrative.starts_topic,
        "conversation_id": narrative.conversation_id,
        "created_at": narrative.created_at.isoformat(),
    }


def chain(narrative: Narrative, *, back: int = 20, forward: int = 20) -> list[Narrative]:
    """The links around ``narrative``, oldest first: up to ``back`` before it through
    ``previous``, and after it the first continuation of each link, up to ``forward``."""
    before: list[Narrative] = []
    cursor = narrative
    while cursor.previous_id and len(before) < back:
        cursor = Narrative.objects.get(pk=cursor.previous_id)
        before.append(cursor)
    after: list[Narrative] = []
    cursor = narrative
    while len(after) < forward:
        cursor = cursor.continuations.order_by("created_at", "id").first()
        if cursor is None:
            break
        after.append(cursor)
    ids = [link.pk for link in (*before[::-1], narrative, *after)]
    loaded = with_links(Narrative.objects.filter(pk__in=ids).select_related("conversation"))
    by_id = loaded.in_bulk()
    return [by_id[pk] for pk in ids]
