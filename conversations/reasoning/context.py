"""What the reasoning stages read before they decide (seed 003, "Memories as Active Reasoning
Context"): the recall for the request, the member's open threads that bear on it, the names it
uses, and the member's corrections of earlier readings. Each stage records the memories that
shaped it on its own recall trail (``record_influence``)."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

from django.db import transaction

from conversations.terms import content_terms, stem
from memories.models import InfluenceType, Memory, MemoryItem, RecallHit
from memories.recall import Hit, RecallResult, recall
from talkingrock.language.offline.lexicon import normalise

# Words that point at something without naming it: "the calendar thing", "sort that out".
VAGUE = frozenset(
    "thing things stuff bit bits one ones issue issues problem problems matter whatsit usual".split()
)
POINTING = frozenset("it that this them those these".split())
# An open thread bears on a request when they share this share of the request's words.
ITEM_OVERLAP = 0.34
PRIORITY = ("disambiguation", "intent_verification", "entity_reference", "pattern_match")


@functools.cache
def _vague_stems() -> frozenset[str]:
    """The vague words' stems, on first use: a stem reads the language pipeline's tables, which
    are not loaded when Django starts."""
    return frozenset(stem(word) for word in VAGUE)


@dataclass(frozen=True)
class Influence:
    memory_id: int
    kind: str  # an InfluenceType value
    score: float
    reason: str


@dataclass
class Context:
    request: str
    found: RecallResult
    items: list[tuple[MemoryItem, float]]  # open threads that bear on it, best first
    corrections: list[Hit]  # the member's corrections among the hits
    terms: frozenset[str] = frozenset()
    influences: list[Influence] = field(default_factory=list)

    @property
    def hits(self) -> list[Hit]:
        """The memories kept that bear on the request. What was said (evidence) answers
        questions; it is not a thread or a memory a request can mean."""
        return [hit for hit in self.found.strong if not hit.memory.is_evidence]

    @property
    def vague(self) -> bool:
        """The request points at something it does not name: a vague noun, or a pronoun with
        little else ("fix the calendar thing", "did that get sorted")."""
        words = set(re.findall(r"[a-z']+", normalise(self.request).lower()))
        return bool(words & VAGUE) or (bool(words & POINTING) and len(self.terms) <= 2)

    def influence(self, memory_id: int, kind: InfluenceType, score: float, reason: str) -> None:
        """Note how a memory shaped the stage; a memory keeps its strongest kind of influence
        (one that said what a request meant outranks one that only looked like it)."""
        new = Influence(memory_id, kind.value, round(score, 3), reason[:200])
        for index, old in enumerate(self.influences):
            if old.memory_id == memory_id:
                if PRIORITY.index(new.kind) < PRIORITY.index(old.kind):
                    self.influences[index] = new
                return
        self.influences.append(new)


def overlap(request_terms: frozenset[str], text: str) -> float:
    """The share of the request's words a text holds (by stem)."""
    if not request_terms:
        return 0.0
    return len(request_terms & content_terms(text)) / len(request_terms)


def gather(
    owner,
    request: str,
    *,
    purpose: str,
    message=None,
    top_k: int = 5,
    include_active=True,
    found: RecallResult | None = None,
) -> Context:
    """Recall for ``request`` (leaving a trail for ``purpose``; or ``found``, a recall already
    made for it with its trail, as a chat turn's), and the open threads that bear on it."""
    if found is None:
        conversation = message.conversation if message is not None else None
        found = recall(
            owner,
            request,
            k=top_k,
            purpose=purpose,
            conversation=conversation,
            message=message,
            evidence=False,
        )
    terms = content_terms(normalise(request)) - _vague_stems()  # "thing" names nothing
    items = []
    if include_active:
        open_items = MemoryItem.objects.filter(
            memory__owner=owner,
            memory__status=Memory.Status.CONFIRMED,
            is_active=True,
            type__in=MemoryItem.OPEN_TYPES,
        ).select_related("memory")
        for item in open_items.order_by("-memory__created_at")[:200]:
            share = overlap(terms, item.text)
            if share > 0:  # the stages decide how much is enough
                items.append((item, share))
        items.sort(key=lambda pair: -pair[1])
    corrections = [h for h in found.hits if h.memory.source == Memory.Source.CORRECTION]
    return Context(request, found, items, corrections, terms)


@transaction.atomic
def record_influence(context: Context) -> None:
    """Mark on the stage's recall trail how each memory shaped it; a memory that shaped it but
    was not among the hits (an open thread's memory) joins the trail at the end."""
    if context.found.recall_id is None:
        return
    hits = {
        hit.memory_id: hit for hit in RecallHit.objects.filter(recall_id=context.found.recall_id)
    }
    rank = max((hit.rank for hit in hits.values()), default=0)
    for influence in context.influences:
        hit = hits.get(influence.memory_id)
        if hit is None:
            rank += 1
            hit = hits[influence.memory_id] = RecallHit(
                recall_id=context.found.recall_id,
                memory_id=influence.memory_id,
                rank=rank,
                score=0.0,
                components={},
            )
        elif hit.influence_type:
            continue  # the first influence found is the one kept
        hit.influence_type = influence.kind
        hit.influence_score = influence.score
        hit.influence = influence.reason
        hit.save()
