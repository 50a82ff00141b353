"""Find anything (issue 24): the header's one search box, across the member's own memories, what
was said in their conversations, the people and places their memories name, and the
observations consolidation made.

Memories and messages come from recall (memories/recall), which reads the words and their
meaning together, so a member never chooses between keywords and meaning; it is asked without a
purpose, so a search leaves no recall trail and strengthens no links. A hit is shown when it
clears recall's relevance floor or shares the query's words. Names and observations are matched
by their words. Every query here is the member's own (``owner``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from django.db.models import Count, Q

from conversations import titles
from conversations.models import Conversation
from memories.entities import COMMON, listed
from memories.models import Entity, Memory, Observation
from memories.recall import Hit, recall
from talkingrock.text import search_text

# Recall's k: kept memories rank before what was said, so it asks for enough of both.
RECALL_K = 30
MEMORY_LIMIT = 10
SAID_LIMIT = 10
ENTITY_LIMIT = 12
OBSERVATION_LIMIT = 10
# A word of the query that can match inside a name or an observation: "an" would match all.
MIN_WORD = 3
MAX_WORDS = 8


@dataclass(frozen=True)
class Said:
    """One message that matched, with the conversation it was said in."""

    words: str
    by_member: bool
    when: datetime
    conversation: Conversation
    conversation_title: str
    message_id: int | None


@dataclass
class Found:
    query: str = ""
    cut: bool = False
    memories: list[Memory] = field(default_factory=list)
    said: list[Said] = field(default_factory=list)
    entities: list[Entity] = field(default_factory=list)
    observations: list[Observation] = field(default_factory=list)

    @property
    def nothing(self) -> bool:
        return not (self.memories or self.said or self.entities or self.observations)


def find(owner, text: str) -> Found:
    """What the member's own data holds that matches ``text`` (cleaned and cut first)."""
    query, cut = search_text(text if isinstance(text, str) else "")
    found = Found(query=query, cut=cut)
    if not query:
        return found
    hits = [hit for hit in recall(owner, query, k=RECALL_K, observations=False).hits if _shown(hit)]
    kept = [hit.memory for hit in hits if hit.memory.kind not in Memory.EVIDENCE]
    found.memories = kept[:MEMORY_LIMIT]
    found.said = _said(owner, [hit.memory for hit in hits if hit.memory.kind in Memory.EVIDENCE])
    words = _words(query)
    found.entities = _entities(owner, query, words)
    found.observations = _observations(owner, query, words)
    return found


def _shown(hit: Hit) -> bool:
    """Above the relevance floor, or with the query's own words in it."""
    return not hit.weak or "keywords" in hit.components


def _words(query: str) -> list[str]:
    """The query's words that can stand for it inside a longer text: not common, not tiny."""
    words = "".join(c if c.isalnum() or c in "'’-" else " " for c in query).split()
    kept = [w for w in words if len(w) >= MIN_WORD and w.casefold() not in COMMON]
    return list(dict.fromkeys(kept))[:MAX_WORDS]


def _said(owner, evidence: list[Memory]) -> list[Said]:
    evidence = evidence[:SAID_LIMIT]
    conversations = titles.with_first_said(
        Conversation.objects.filter(owner=owner, pk__in={m.conversation_id for m in evidence})
    ).in_bulk()
    return [
        Said(
            words=memory.content,
            by_member=memory.kind == Memory.Kind.SAID,
            when=memory.happened_at or memory.created_at,
            conversation=conversation,
            conversation_title=titles.shown(conversation),
            message_id=memory.message_id,
        )
        for memory in evidence
        if (conversation := conversations.get(memory.conversation_id)) is not None
    ]


def _entities(owner, query: str, words: list[str]) -> list[Entity]:
    """The member's entities whose name holds the query or one of its words."""
    named = Q(name__icontains=query)
    for word in words:
        named |= Q(name__icontains=word)
    rows = (
        Entity.objects.filter(named, owner=owner)
        .annotate(mention_count=Count("mentions"))
        .order_by("-mention_count", "name")[: ENTITY_LIMIT * 2]
    )
    return listed(rows)[:ENTITY_LIMIT]


def _observations(owner, query: str, words: list[str]) -> list[Observation]:
    """The member's live observations that say the query, or every one of its words."""
    every_word = Q()
    for word in words:
        every_word &= Q(text__icontains=word)
    said = Q(text__icontains=query) | every_word if words else Q(text__icontains=query)
    return list(
        Observation.objects.filter(said, owner=owner, dismissed=False, merged_into=None)
        .select_related("entity")
        .order_by("-updated_at", "-id")[:OBSERVATION_LIMIT]
    )
