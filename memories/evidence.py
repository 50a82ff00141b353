"""What was said, kept as evidence (issue 22): every message of a conversation is a row of the
member's memory table (kind ``said`` for their words, ``reply`` for the assistant's), so it is in
their own keyword index at once and in their vector index as soon as the indexing task runs.
Recall, search, the tools and the answers find it beside the memories; nothing else does (the
default manager leaves it out: ``Memory.objects`` are the memories a member keeps).

The conversations layer records each message as it stores it (``record``), and a restored or
imported transcript in one go (``record_many``). A message's evidence goes with it: the row
points at the message with ``on_delete=CASCADE``, and the index triggers take its words and its
vector out.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.utils import timezone

from memories import search
from memories.acts import ensure_your_story
from memories.indexing import request_indexing
from memories.models import Memory, content_hash

KINDS = {"user": Memory.Kind.SAID, "assistant": Memory.Kind.REPLY}


@dataclass(frozen=True)
class Said:
    """One message, as the conversations layer hands it over."""

    message_id: int
    conversation_id: int
    role: str  # "user" or "assistant"; anything else is not evidence
    content: str
    said_at: datetime


def _row(owner_id: int, act_id: int, said: Said) -> Memory | None:
    kind = KINDS.get(said.role)
    content = said.content.strip()
    if kind is None or not content:
        return None
    return Memory(
        owner_id=owner_id,
        act_id=act_id,
        conversation_id=said.conversation_id,
        message_id=said.message_id,
        kind=kind,
        source=Memory.Source.CONVERSATION,
        content=content,
        content_hash=content_hash(content),
        happened_at=said.said_at,
        created_at=said.said_at,
    )


def record(*, owner, said: Said) -> Memory | None:
    """Keep one message as evidence (inside the caller's transaction); indexing follows once
    it commits."""
    row = _row(owner.pk, ensure_your_story(owner=owner).pk, said)
    if row is None:
        return None
    row.save()
    request_indexing(owner_id=owner.pk)
    return row


def record_many(*, owner, said: list[Said]) -> int:
    """Keep many messages as evidence at once (a restored or imported transcript); those that
    already are evidence are left as they are."""
    known = set(
        Memory.everything.filter(message_id__in=[s.message_id for s in said]).values_list(
            "message_id", flat=True
        )
    )
    act_id = ensure_your_story(owner=owner).pk
    rows = [row for s in said if s.message_id not in known if (row := _row(owner.pk, act_id, s))]
    Memory.everything.bulk_create(rows, batch_size=500)
    if rows:
        request_indexing(owner_id=owner.pk)
    return len(rows)


def move_to_act(*, conversation_id: int, act_id: int) -> int:
    """A conversation's evidence follows it into the act its memory was kept in."""
    return Memory.everything.filter(
        conversation_id=conversation_id, kind__in=Memory.EVIDENCE
    ).update(act_id=act_id)


def of_conversation(conversation_id: int):
    return Memory.everything.filter(conversation_id=conversation_id, kind__in=Memory.EVIDENCE)


def find(*, owner, query: str, limit: int = 10) -> list[Memory]:
    """What the member said or was told in conversations that matches ``query``'s words, best
    first (the search page's "what was said"; recall weighs it beside memories itself)."""
    terms = search.sanitise(query if isinstance(query, str) else "").terms
    terms, _ = search.within_budget(terms, owner_id=owner.pk)
    rows = search.keyword_search(
        owner_id=owner.pk,
        match=search.match_expression(terms),
        limit=limit,
        include_archived=True,
        now=timezone.now(),
        said=True,
    )
    found = Memory.everything.select_related("conversation").in_bulk([r.memory_id for r in rows])
    return [found[row.memory_id] for row in rows if row.memory_id in found]
