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
from datetime import datetime

from django.contrib.auth.models import AbstractBaseUser
from django.db.models.functions import Coalesce
from django.utils import timezone

from memories import named as named_in
from memories import search
from memories.consolidation import context as observation_context
from memories.models import Memory
from memories.recall import floor, order, steps, trail
from memories.recall.results import Hit, RecallResult, explain, line_of
from memories.recall.trail import strengthen_links
from talkingrock import embeddings
from talkingrock.language import dates
from talkingrock.language import values as said_values

__all__ = ["Hit", "RecallResult", "explain", "line_of", "recall", "strengthen_links"]


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


def _filtered(
    owner, ids, *, acts, your_story_only, sources, item_type, include_archived, evidence, message
):
    rows = Memory.everything.filter(pk__in=ids, owner=owner, status=Memory.Status.CONFIRMED)
    if not evidence:
        rows = rows.exclude(kind__in=Memory.EVIDENCE)
    if message is not None:  # the message being answered is no evidence of its own answer
        rows = rows.exclude(message=message)
    if not include_archived:
        rows = rows.filter(archived_at=None)
    if your_story_only:
        rows = rows.filter(act__is_your_story=True)
    if acts is not None:
        rows = rows.filter(act__in=[getattr(a, "pk", a) for a in acts])
    if sources:
        rows = rows.filter(source__in=sources)
    if item_type:
        rows = rows.filter(items__type=item_type).distinct()
    return rows


def recall(
    owner: AbstractBaseUser,
    query: str,
    *,
    k: int = 10,
    acts=None,
    your_story_only: bool = False,
    sources=None,
    item_type: str | None = None,
    at: datetime | None = None,
    include_archived: bool = False,
    purpose: str | None = None,
    conversation=None,
    message=None,
    observations: bool = True,
    evidence: bool = True,
) -> RecallResult:
    """The member's memories that bear on ``query``, best first, each with why it matched,
    and (unless ``observations`` is off) the observations consolidation made that bear on it.

    What was said (``evidence``: the member's messages and, below them, the assistant's replies)
    is found beside the memories, each saying where and when it was said; a memory kept at review
    outranks a message that answers equally well (``said_weight``, ``reply_weight``). The
    message being answered (``message``) is never its own evidence.

    ``at`` is the moment the query is asked from (time phrases and recency count from it);
    ``purpose`` names why the recall is made, and makes it leave a trail.
    """
    started = time.perf_counter()
    at = at or timezone.now()
    query = query if isinstance(query, str) else ""
    filtered = bool(acts is not None or your_story_only or sources or item_type)
    pool = steps.Pool(owner)

    total = steps.member_size(owner, pool)
    named = named_in.query_entities(owner, query, total) if query.strip() else {}

    # 1. Keywords: FTS5 BM25 over content, tags and source, scaled so the best match is 1.
    sanitised = search.sanitise(query)
    terms, dropped = search.within_budget(
        sanitised.terms, owner_id=owner.pk, budget=steps.config("keyword_budget")
    )
    keyword = search.keyword_candidates(
        owner_id=owner.pk,
        match=search.match_expression(terms),
        limit=steps.config("keyword_k"),
        include_archived=include_archived,
    )
    best_bm25 = keyword[0][1] if keyword and keyword[0][1] > 0 else 1.0
    for rank, (memory_id, bm25) in enumerate(keyword, start=1):
        pool.base[memory_id] = max(bm25, 0) / best_bm25
        pool.parts[memory_id]["keywords"] = {"rank": rank, "bm25": round(bm25, 4)}

    # 2. Meaning: nearest neighbours in the member's own vector partition, and the similarity of
    #    every keyword candidate too, so both lists are judged on both. A filter applied after
    #    the top-k can only shrink it, so a filtered recall asks for more neighbours.
    vector = None
    similarity: dict[int, float] = {}
    if query.strip():
        vector = embeddings.embed_one(steps.meaning_text(query, named))
        embeddings.to_blob(vector)  # refuses a wrong size or NaN before any search sees it
        k_vec = steps.config("filtered_vector_k" if filtered else "vector_k")
        nearest = steps.nearest(pool, owner, vector, k_vec)
        for rank, (memory_id, distance) in enumerate(nearest, start=1):
            similarity[memory_id] = 1 - distance
            pool.parts[memory_id]["meaning"] = {"rank": rank}
        missing = [i for i in pool.base if i not in similarity]
        similarity |= steps.similarities(pool, owner, vector, missing)
        for memory_id, value in similarity.items():
            steps.add_meaning(pool, memory_id, value)
    observed = (
        observation_context.search(owner.pk, vector, at=at)
        if observations and vector is not None
        else []
    )

    # 3. What was said around a good match: the neighbours of the best candidates join, and every
    #    candidate gains from its neighbours and from its conversation's best match.
    # The window a question names ("in March", "last week"), read back from its own moment.
    window = dates.window(query, at=timezone.localtime(at)) if query.strip() else None
    if vector is not None and pool:
        if window is not None:
            steps.add_from_window(owner, pool, window, vector, include_archived)
        steps.lift_by_conversation(owner, pool, vector, include_archived)
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
    if query.strip():
        steps.second_round(owner, pool, query, include_archived)

    if not pool:
        return RecallResult(
            query=query,
            hits=[],
            window=window,
            message=_empty_message(query),
            observations=observed,
        )

    # 7. Weigh what survives the filters by reinforcement, use and age; only the top k are
    #    loaded as objects (a recall scores a few hundred candidates).
    rows = _filtered(
        owner,
        list(pool.score),
        acts=acts,
        your_story_only=your_story_only,
        sources=sources,
        item_type=item_type,
        include_archived=include_archived,
        evidence=evidence,
        message=message,
    )
    hours = search.hours_since(at)
    rows = rows.annotate(**hours, when=Coalesce("happened_at", "created_at")).values_list(
        "pk",
        "valid_to",
        "superseded_by",
        "subject",
        "relation",
        "when",
        "kind",
        "conversation_id",
        "score",
        "hit_count",
        *hours,
    )
    rows_by_id = {row[0]: row for row in rows}
    facts = {row[0]: row[8:] for row in rows}
    replaced = {row[0]: (row[1], row[2]) for row in rows if row[1] is not None}
    keyed = {row[0]: (row[3], row[4], row[5]) for row in rows if row[3] and row[4]}
    top_score = max((pool.score[i] for i in facts), default=0.0)
    weigh = order.Weigher(top_score)
    final = {memory_id: weigh(pool.score[memory_id], *row) for memory_id, row in facts.items()}
    order.weigh_what_was_said(
        final, pool, {i: (row[6], row[7], row[5]) for i, row in rows_by_id.items()}
    )
    order.kept_before_said(final, pool, {i: row[6] for i, row in rows_by_id.items()})
    # A decision or fact a later one replaced ranks below the current one and says so.
    for memory_id, (until, by) in replaced.items():
        final[memory_id] *= order.SUPERSEDED_WEIGHT
        pool.parts[memory_id]["replaced"] = {"on": until.date().isoformat(), "by": by}
    order.newest_value_first(final, keyed, pool)
    order.current_before_replaced(final, pool, {i: row[7] for i, row in rows_by_id.items()})
    if not said_values.asks_about_the_past(query) and window is None:
        order.newer_on_the_same_topic(
            final, pool, owner, when={i: row[5] for i, row in rows_by_id.items()}
        )
    ranked = sorted(final, key=lambda i: (-final[i], -i))[:k]
    memories = Memory.everything.select_related("act").in_bulk(ranked)
    hits = [
        Hit(
            memory_id=memory_id,
            memory=memories[memory_id],
            score=final[memory_id],
            components=order.rounded(pool.parts[memory_id])
            | weigh.factors(pool.score[memory_id], *facts[memory_id]),
        )
        for memory_id in ranked
        if memory_id in memories  # deleted this very moment
    ]
    order.note_what_they_replace(hits)
    floor.mark(hits, pool.parts)
    for position, hit in enumerate(hits, start=1):
        hit.components["position"] = position

    result = RecallResult(
        query=query,
        hits=hits,
        window=window,
        terms=terms,
        entities=[entity.name for entity in named.values()],
        message=_empty_message(query) if not hits else _dropped_message(dropped),
        observations=observed,
    )
    if purpose:
        result.recall_id = trail.leave_trail(
            owner,
            result,
            purpose=purpose,
            conversation=conversation,
            message=message,
            parameters={"k": k, "at": at.isoformat(), "filtered": filtered},
            duration_ms=(time.perf_counter() - started) * 1000,
        )
    return result
