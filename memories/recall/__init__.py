"""Hybrid recall: the one function that finds what a member meant (seed 002, "Read Path").

    keywords (FTS5 BM25, the top 200) ─┐
                                       ├─ fused on their scores → neighbours in the same
    meaning (sqlite-vec, the top 100;  │  conversation → the conversation's best hit → the time
      own or contextual key, memories/ ┘  window the query names → entities the query names →
      context.py)                         one hop through shared entities → co-recall links →
                                          optional second round (multi-hop)
      → × reinforcement × (access decay, recency) → what replaced what
      → top k → the relevance floor marks the weak ones

Every hit keeps the parts of its score (``components``) so the interface can say why it matched,
and a recall made for a purpose leaves a trail (``Recall`` + ``RecallHit``) and strengthens the
links between the memories it returned together. Weights live in ``settings.TALKINGROCK_RECALL``;
docs/benchmarks.md has the LoCoMo measurements behind them, with each step's contribution.

The steps live in ``steps`` (gathering and lifting), ``order`` (weighing and what replaced
what), ``results`` (hits and their reasons) and ``trail``; this module runs them in order.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import datetime
from typing import Any, NamedTuple

from django.contrib.auth.models import AbstractBaseUser
from django.db.models.functions import Coalesce
from django.utils import timezone

from memories import named as named_in
from memories import search
from memories.consolidation import context as observation_context
from memories.models import Memory
from memories.recall import floor, order, ranker, steps, trail
from memories.recall.results import Hit, RecallResult, explain, line_of
from memories.recall.trail import strengthen_links
from talkingrock import embeddings
from talkingrock.language import dates
from talkingrock.language import values as said_values
from talkingrock.language.offline.lexicon import normalise

__all__ = [
    "Hit",
    "Query",
    "RecallResult",
    "candidates",
    "explain",
    "find",
    "line_of",
    "recall",
    "strengthen_links",
]


def _empty_message(query: str) -> str:
    if not query.strip():
        return "Nothing to look for: the query is empty."
    return "No memories bear on this."


def _dropped_message(dropped: tuple[str, ...]) -> str:
    if not dropped:
        return ""
    return (
        "Words found in too many memories to tell them apart were not used as keywords: "
        f"{', '.join(dropped)}."
    )


@dataclass(frozen=True)
class Query:
    """What a recall is asked: the member, the words, and how to look.

    ``at`` is the moment the query is asked from (time phrases and recency count from it);
    ``purpose`` names why the recall is made, and makes it leave a trail. What was said
    (``evidence``: the member's messages and, below them, the assistant's replies) is found beside
    the memories; the message being answered (``message``) is never its own evidence."""

    owner: AbstractBaseUser
    text: str
    k: int = 10
    acts: Any = None
    your_story_only: bool = False
    sources: Any = None
    item_type: str | None = None
    at: datetime | None = None
    include_archived: bool = False
    purpose: str | None = None
    conversation: Any = None
    message: Any = None
    observations: bool = True
    evidence: bool = True

    @property
    def filtered(self) -> bool:
        return bool(self.acts is not None or self.your_story_only or self.sources or self.item_type)


class Row(NamedTuple):
    """A candidate as loaded for weighing, by name."""

    pk: int
    valid_to: datetime | None
    superseded_by: int | None
    subject: str
    relation: str
    when: datetime
    kind: str
    conversation_id: int | None
    score: float
    hit_count: int
    hours_since_use: float
    hours_old: float

    @property
    def use(self) -> tuple:
        """What the weigher reads: the memory's own score, its use and its age."""
        return (self.score, self.hit_count, self.hours_since_use, self.hours_old)


@dataclass
class Gathered:
    """The candidates and what the query was read as, before weighing."""

    pool: steps.Pool
    named: dict
    terms: tuple[str, ...]
    dropped: tuple[str, ...]
    vector: Any
    window: Any
    observed: list


def recall(owner: AbstractBaseUser, query: str, **options) -> RecallResult:
    """The member's memories that bear on ``query``, best first, each with why it matched, and
    (unless ``observations`` is off) the observations consolidation made that bear on it. The
    options are ``Query``'s fields."""
    return find(Query(owner, query if isinstance(query, str) else "", **options))


def find(query: Query) -> RecallResult:
    started = time.perf_counter()
    at = query.at or timezone.now()
    found = _gather(query, at)
    if not found.pool:
        return RecallResult(
            query=query.text,
            hits=[],
            window=found.window,
            message=_empty_message(query.text),
            observations=found.observed,
        )
    hits = _rank(query, found, at)
    result = RecallResult(
        query=query.text,
        hits=hits,
        window=found.window,
        terms=found.terms,
        entities=[entity.name for entity in found.named.values()],
        message=_empty_message(query.text) if not hits else _dropped_message(found.dropped),
        observations=found.observed,
    )
    if query.purpose:
        result.recall_id = trail.leave_trail(
            query.owner,
            result,
            purpose=query.purpose,
            conversation=query.conversation,
            message=query.message,
            parameters={"k": query.k, "at": at.isoformat(), "filtered": query.filtered},
            duration_ms=(time.perf_counter() - started) * 1000,
        )
    return result


def candidates(query: Query) -> tuple[list[int], Any]:
    """Every candidate a recall weighs, with the learned ranker's features (ids, matrix): what
    bench/train_ranker.py trains on and bench/locomo.py measures the pool by."""
    at = query.at or timezone.now()
    found = _gather(query, at)
    return ranker.features(found.pool, _rows(query, list(found.pool.score), at), query.text)


def _gather(query: Query, at: datetime) -> Gathered:
    owner, text = query.owner, query.text
    pool = steps.Pool(owner)
    total = steps.member_size(owner, pool)
    named = named_in.query_entities(owner, text, total) if text.strip() else {}

    # 1. Keywords: FTS5 BM25 over content, tags and source, scaled so the best match is 1.
    terms, dropped = search.within_budget(
        search.sanitise(text).terms, owner_id=owner.pk, budget=steps.config("keyword_budget")
    )
    keyword = search.keyword_candidates(
        owner_id=owner.pk,
        match=search.match_expression(terms),
        limit=steps.config("keyword_k"),
        include_archived=query.include_archived,
    )
    best_bm25 = keyword[0][1] if keyword and keyword[0][1] > 0 else 1.0
    for rank, (memory_id, bm25) in enumerate(keyword, start=1):
        pool.base[memory_id] = max(bm25, 0) / best_bm25
        pool.parts[memory_id]["keywords"] = {"rank": rank, "bm25": round(bm25, 4)}

    # 2. Meaning: nearest neighbours in the member's own vector partition, and the similarity of
    #    every keyword candidate too, so both lists are judged on both.
    vector = _by_meaning(query, pool, named) if text.strip() else None
    observed = (
        observation_context.search(owner.pk, vector, at=at)
        if query.observations and vector is not None
        else []
    )

    # 3. What was said around a good match: the neighbours of the best candidates join, and every
    #    candidate gains from its neighbours and from its conversation's best match.
    # The window a question names ("in March", "last week"), read back from its own moment.
    window = dates.window(text, at=timezone.localtime(at)) if text.strip() else None
    if vector is not None and pool:
        if window is not None:
            steps.add_from_window(owner, pool, window, vector, query.include_archived)
        steps.lift_by_conversation(owner, pool, vector, query.include_archived)
    for memory_id in pool.base:
        pool.score.setdefault(memory_id, pool.base[memory_id])

    # 4. Multipliers: inside the time window the query names; mentioning an entity it names.
    if window is not None:
        steps.lift_in_window(owner, pool, window)
    if named:
        steps.lift_named(pool, named)

    # 5. One hop through shared entities (IDF-weighted) and through co-recall links.
    seeds = sorted(pool.score, key=lambda i: -pool.score[i])[: steps.config("seed_count")]
    steps.expand_through_entities(owner, pool, seeds, total)
    steps.expand_through_links(owner, pool, seeds)
    # 6. Multi-hop: what the strongest hits name that the question did not, searched once more.
    if text.strip():
        steps.second_round(owner, pool, text, query.include_archived)
    return Gathered(pool, named, terms, dropped, vector, window, observed)


def _by_meaning(query: Query, pool: steps.Pool, named: dict):
    """The query's vector, with the nearest memories and every keyword candidate's similarity
    added to ``pool``. A filter applied after the top-k can only shrink it, so a filtered
    recall asks for more neighbours."""
    vector = embeddings.embed_one(steps.meaning_text(query.text, named))
    embeddings.to_blob(vector)  # refuses a wrong size or NaN before any search sees it
    k_vec = steps.config("filtered_vector_k" if query.filtered else "vector_k")
    similarity: dict[int, float] = {}
    for rank, (memory_id, distance) in enumerate(
        steps.nearest(pool, query.owner, vector, k_vec), start=1
    ):
        similarity[memory_id] = 1 - distance
        pool.parts[memory_id]["meaning"] = {"rank": rank}
    missing = [i for i in pool.base if i not in similarity]
    similarity |= steps.similarities(pool, query.owner, vector, missing)
    for memory_id, value in similarity.items():
        steps.add_meaning(pool, memory_id, value)
    return vector


def _rows(query: Query, ids: list[int], at: datetime) -> dict[int, Row]:
    """The candidates that pass the query's filters, loaded by name (a recall scores a few
    hundred: only the top k are loaded as objects afterwards)."""
    rows = Memory.everything.filter(pk__in=ids, owner=query.owner, status=Memory.Status.CONFIRMED)
    if not query.evidence:
        rows = rows.exclude(kind__in=Memory.EVIDENCE)
    if query.message is not None:  # the message being answered is no evidence of its own answer
        rows = rows.exclude(message=query.message)
    if not query.include_archived:
        rows = rows.filter(archived_at=None)
    if query.your_story_only:
        rows = rows.filter(act__is_your_story=True)
    if query.acts is not None:
        rows = rows.filter(act__in=[getattr(a, "pk", a) for a in query.acts])
    if query.sources:
        rows = rows.filter(source__in=query.sources)
    if query.item_type:
        rows = rows.filter(items__type=query.item_type).distinct()
    hours = search.hours_since(at)
    values = rows.annotate(**hours, when=Coalesce("happened_at", "created_at")).values_list(
        *(name for name in Row._fields if name not in hours), *hours
    )
    return {row[0]: Row(*row) for row in values}


def _rank(query: Query, found: Gathered, at: datetime) -> list[Hit]:
    """7. Weigh what survives the filters by reinforcement, use and age; put current values and
    kept memories first; the top k, each with the parts of its score."""
    pool = found.pool
    rows = _rows(query, list(pool.score), at)
    # The learned ranker's relevance (memories/recall/ranker.py), or the steps' hand-tuned sum.
    relevance = ranker.relevance(pool, rows, query.text) if pool.config["ranker"] else pool.score
    top_score = max((relevance[i] for i in rows), default=0.0)
    weigh = order.Weigher(top_score)
    final = {memory_id: weigh(relevance[memory_id], *row.use) for memory_id, row in rows.items()}
    order.weigh_what_was_said(
        final, pool, {i: (row.kind, row.conversation_id, row.when) for i, row in rows.items()}
    )
    order.kept_before_said(final, pool, {i: row.kind for i, row in rows.items()})
    # A decision or fact a later one replaced ranks below the current one and says so.
    for memory_id, row in rows.items():
        if row.valid_to is not None:
            final[memory_id] *= order.SUPERSEDED_WEIGHT
            pool.parts[memory_id]["replaced"] = {
                "on": row.valid_to.date().isoformat(),
                "by": row.superseded_by,
            }
    keyed = {
        i: (row.subject, row.relation, row.when)
        for i, row in rows.items()
        if row.subject and row.relation
    }
    order.newest_value_first(final, keyed, pool)
    order.current_before_replaced(final, pool, {i: row.conversation_id for i, row in rows.items()})
    if not said_values.asks_about_the_past(normalise(query.text)) and found.window is None:
        order.newer_on_the_same_topic(
            final, pool, query.owner, when={i: row.when for i, row in rows.items()}
        )
    ranked = sorted(final, key=lambda i: (-final[i], -i))[: query.k]
    memories = Memory.everything.select_related("act").in_bulk(ranked)
    hits = [
        Hit(
            memory_id=memory_id,
            memory=memories[memory_id],
            score=final[memory_id],
            components=order.rounded(pool.parts[memory_id])
            | weigh.factors(relevance[memory_id], *rows[memory_id].use),
        )
        for memory_id in ranked
        if memory_id in memories  # deleted this very moment
    ]
    order.note_what_they_replace(hits)
    floor.mark(hits, pool.parts)
    for position, hit in enumerate(hits, start=1):
        hit.components["position"] = position
    return hits
