"""Hybrid recall: the one function that finds what a member meant (seed 002, "Read Path").

    keywords (FTS5 BM25, the top 200) ─┐
                                       ├─ fused on their scores → neighbours in the same
    meaning (sqlite-vec, the top 100) ─┘  conversation → the conversation's best hit → the time
                                          window the query names → entities the query names →
                                          one hop through shared entities → co-recall links
      → × reinforcement × (access decay, recency) → optional reranker → top k

Every hit keeps the parts of its score (``components``) so the interface can say why it matched,
and a recall made for a purpose leaves a trail (``Recall`` + ``RecallHit``) and strengthens the
links between the memories it returned together. Weights live in ``settings.TALKINGROCK_RECALL``;
docs/benchmarks.md has the LoCoMo measurements behind them, with each step's contribution.
"""

from __future__ import annotations

import math
import re
import time
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import numpy as np
from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import F, Q
from django.db.models.expressions import RawSQL
from django.db.models.functions import Coalesce
from django.utils import timezone
from django.utils.module_loading import import_string

from conversations.models import Act
from memories import search, vectors
from memories.entities import COMMON, normalize
from memories.models import Memory, MemoryLink, Recall, RecallHit
from memories.timephrases import Window, find_window
from talkingrock import embeddings


def _config(key: str):
    return settings.TALKINGROCK_RECALL[key]


# A replaced decision or fact keeps this share of its score: still found, below the current one.
SUPERSEDED_WEIGHT = 0.5


@dataclass
class Hit:
    memory_id: int
    memory: Memory
    score: float
    components: dict[str, Any]

    @property
    def why(self) -> list[str]:
        """The components as short sentences, for people."""
        return explain(self.components)


@dataclass
class RecallResult:
    query: str
    hits: list[Hit]
    window: Window | None = None
    message: str = ""
    recall_id: int | None = None
    terms: tuple[str, ...] = ()
    entities: list[str] = field(default_factory=list)

    @property
    def context(self) -> str:
        """The hits as a context block for a language model, each with its [id:N]."""
        if not self.hits:
            return "No memories bear on this."
        lines = ["Memories that may bear on this (most relevant first):"]
        for hit in self.hits:
            memory = hit.memory
            when = (memory.happened_at or memory.created_at).date().isoformat()
            lines.append(f"- [id:{memory.pk}] ({when}) {line_of(hit)}")
        return "\n".join(lines)


def line_of(hit: Hit) -> str:
    """A hit's text for a model's context, with what it replaced or what replaced it:
    "Quartz worktops (previously: “butcher block”, changed 2026-11-12)"."""
    text = " ".join(hit.memory.content.split())
    for earlier in hit.components.get("replaces", [])[:1]:
        text += f" (previously: “{earlier['previously']}”, changed {earlier['changed']})"
    if replaced := hit.components.get("replaced"):
        text += f" (no longer current: replaced on {replaced['on']} by [id:{replaced['by']}])"
    return text


@dataclass(frozen=True)
class _Named:
    name: str
    share: float  # of the member's memories that mention it
    surfaces: tuple[str, ...]  # how the query wrote it


class _Pool:
    """The candidates: each one's base relevance, then what lifted it, part by part."""

    def __init__(self, owner):
        # The settings, read once: this is looked up per candidate in the loops below.
        self.config = settings.TALKINGROCK_RECALL
        # The member's vectors in this process, brought up to date once per recall.
        in_memory = self.config["vector_search"] == "memory"
        self.vectors = vectors.partition(owner.pk) if in_memory else None
        self.base: dict[int, float] = {}
        self.parts: dict[int, dict[str, Any]] = defaultdict(dict)
        self.score: dict[int, float] = {}

    def __contains__(self, memory_id: int) -> bool:
        return memory_id in self.base

    def __len__(self) -> int:
        return len(self.base)

    def best(self, n: int) -> list[int]:
        return sorted(self.base, key=lambda i: (-self.base[i], -i))[:n]


def _member_size(owner, pool: _Pool) -> int:
    """How many memories the member has, for shares and IDF. The in-memory vectors already know
    (one per indexed memory); counting 40k rows costs 2 ms."""
    if pool.vectors is not None:
        return max(pool.vectors.size, 1)
    return max(Memory.objects.filter(owner=owner).count(), 1)


def _query_entities(owner, query: str, total: int) -> dict[int, _Named]:
    """The member's entities the query names, however it spells them: every run of one to three
    words is looked up by its normalised form."""
    words = "".join(c if c.isalnum() or c in "'’-" else " " for c in query).split()
    surfaces: dict[str, str] = {}
    for size in (1, 2, 3):
        for i in range(len(words) - size + 1):
            surface = " ".join(words[i : i + size])
            key = normalize(surface)
            if key and not (size == 1 and (key in COMMON or len(key) < 2)):
                surfaces.setdefault(key, surface)
    return {
        entity_id: _Named(name=name, share=df / total, surfaces=(surfaces[key],))
        for entity_id, name, key, df in search.entities_named(
            owner_id=owner.pk, keys=list(surfaces)
        )
    }


def _meaning_text(query: str, named: dict[int, _Named]) -> str:
    """The query as embedded: without the names found on a large share of the member's
    memories (their own, their partner's). Such a name says whose memory it is, not what it is
    about, and pulls the query's vector towards every memory that mentions them; the entity step
    below uses it instead. (On LoCoMo this alone moved Recall@10 from 69.5 to 77.3.)"""
    text = query
    for entity in named.values():
        if entity.share > _config("common_name_share"):
            for surface in entity.surfaces:
                text = re.sub(rf"\b{re.escape(surface)}(?:['’]s)?\b", " ", text, flags=re.I)
    text = " ".join(text.split())
    return text if text.strip(" ?!.,") else query


def _filtered(owner, ids, *, acts, your_story_only, sources, item_type, include_archived):
    rows = Memory.objects.filter(pk__in=ids, owner=owner, status=Memory.Status.CONFIRMED)
    if not include_archived:
        rows = rows.filter(archived_at=None)
    if your_story_only:
        rows = rows.filter(act__is_your_story=True)
    if acts is not None:
        rows = rows.filter(act__in=[a.pk if isinstance(a, Act) else a for a in acts])
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
) -> RecallResult:
    """The member's memories that bear on ``query``, best first, each with why it matched.

    ``at`` is the moment the query is asked from (time phrases and recency count from it);
    ``purpose`` names why the recall is made, and makes it leave a trail.
    """
    started = time.perf_counter()
    at = at or timezone.now()
    query = query if isinstance(query, str) else ""
    filtered = bool(acts is not None or your_story_only or sources or item_type)
    pool = _Pool(owner)

    total = _member_size(owner, pool)
    named = _query_entities(owner, query, total) if query.strip() else {}

    # 1. Keywords: FTS5 BM25 over content, tags and source, scaled so the best match is 1.
    sanitised = search.sanitise(query)
    terms, dropped = search.within_budget(
        sanitised.terms, owner_id=owner.pk, budget=_config("keyword_budget")
    )
    keyword = search.keyword_candidates(
        owner_id=owner.pk,
        match=search.match_expression(terms),
        limit=_config("keyword_k"),
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
        vector = embeddings.embed_one(_meaning_text(query, named))
        embeddings.to_blob(vector)  # refuses a wrong size or NaN before any search sees it
        k_vec = _config("filtered_vector_k" if filtered else "vector_k")
        nearest = _nearest(pool, owner, vector, k_vec)
        for rank, (memory_id, distance) in enumerate(nearest, start=1):
            similarity[memory_id] = 1 - distance
            pool.parts[memory_id]["meaning"] = {"rank": rank}
        missing = [i for i in pool.base if i not in similarity]
        similarity |= _similarities(pool, owner, vector, missing)
        for memory_id, value in similarity.items():
            _add_meaning(pool, memory_id, value)

    # 3. What was said around a good match: the neighbours of the best candidates join, and every
    #    candidate gains from its neighbours and from its conversation's best match.
    window = find_window(query, at=at) if query.strip() else None
    if vector is not None and pool:
        if window is not None:
            _add_from_window(owner, pool, window, vector, include_archived)
        _lift_by_conversation(owner, pool, vector, include_archived)
    for memory_id in pool.base:
        pool.score.setdefault(memory_id, pool.base[memory_id])

    # 4. Multipliers: inside the time window the query names; mentioning an entity it names.
    if window is not None:
        _lift_in_window(owner, pool, window)
    if named:
        _lift_named(pool, named)

    # 5. One hop through shared entities (IDF-weighted) and through co-recall links.
    seeds = sorted(pool.score, key=lambda i: -pool.score[i])[: _config("seed_count")]
    _expand_through_entities(owner, pool, seeds, total)
    _expand_through_links(owner, pool, seeds)

    if not pool:
        return RecallResult(query=query, hits=[], window=window, message=_empty_message(query))

    # 6. Weigh what survives the filters by reinforcement, use and age; only the top k are
    #    loaded as objects (a recall scores a few hundred candidates).
    rows = _filtered(
        owner,
        list(pool.score),
        acts=acts,
        your_story_only=your_story_only,
        sources=sources,
        item_type=item_type,
        include_archived=include_archived,
    )
    hours = _hours_since(at)
    rows = rows.annotate(**hours).values_list(
        "pk", "valid_to", "superseded_by", "score", "hit_count", *hours
    )
    facts = {row[0]: row[3:] for row in rows}
    replaced = {row[0]: (row[1], row[2]) for row in rows if row[1] is not None}
    top_score = max((pool.score[i] for i in facts), default=0.0)
    weigh = _Weigher(top_score)
    final = {memory_id: weigh(pool.score[memory_id], *row) for memory_id, row in facts.items()}
    # A decision or fact a later one replaced ranks below the current one and says so.
    for memory_id, (until, by) in replaced.items():
        final[memory_id] *= SUPERSEDED_WEIGHT
        pool.parts[memory_id]["replaced"] = {"on": until.date().isoformat(), "by": by}
    ranked = sorted(final, key=lambda i: (-final[i], -i))[:k]
    memories = Memory.objects.select_related("act").in_bulk(ranked)
    hits = [
        Hit(
            memory_id=memory_id,
            memory=memories[memory_id],
            score=final[memory_id],
            components=_rounded(pool.parts[memory_id])
            | weigh.factors(pool.score[memory_id], *facts[memory_id]),
        )
        for memory_id in ranked
        if memory_id in memories  # deleted this very moment
    ]
    _note_what_they_replace(hits)
    if reranker := _config("reranker"):
        hits = import_string(reranker)(query, hits)
    for position, hit in enumerate(hits, start=1):
        hit.components["position"] = position

    result = RecallResult(
        query=query,
        hits=hits,
        window=window,
        terms=terms,
        entities=[entity.name for entity in named.values()],
        message=_empty_message(query) if not hits else _dropped_message(dropped),
    )
    if purpose:
        result.recall_id = _leave_trail(
            owner,
            result,
            purpose=purpose,
            conversation=conversation,
            message=message,
            parameters={"k": k, "at": at.isoformat(), "filtered": filtered},
            duration_ms=(time.perf_counter() - started) * 1000,
        )
    return result


def _nearest(pool: _Pool, owner, vector: np.ndarray, k: int) -> list[tuple[int, float]]:
    """(memory id, cosine distance) of the member's k nearest: the same exact scan either way,
    through BLAS on this process's copy (memories/vectors.py) or in sqlite-vec."""
    if pool.vectors is not None:
        return vectors.nearest(pool.vectors, vector=vector, k=k)
    return search.nearest(owner_id=owner.pk, vector=embeddings.to_blob(vector), k=k)


def _similarities(pool: _Pool, owner, vector: np.ndarray, ids: list[int]) -> dict[int, float]:
    if pool.vectors is not None:
        found = vectors.distances(pool.vectors, vector=vector, ids=ids)
    else:
        found = search.distances(owner_id=owner.pk, vector=embeddings.to_blob(vector), ids=ids)
    return {memory_id: 1 - distance for memory_id, distance in found.items()}


def _add_meaning(pool: _Pool, memory_id: int, similarity: float) -> None:
    gain = pool.config["meaning_weight"] * max(similarity, 0.0)
    pool.base[memory_id] = pool.base.get(memory_id, 0.0) + gain
    pool.parts[memory_id].setdefault("meaning", {})["similarity"] = round(similarity, 4)


def _add_from_window(owner, pool: _Pool, window: Window, vector, include_archived):
    """The window's memories nearest in meaning join the candidates."""
    in_window = (
        Memory.objects.annotate(when=Coalesce("happened_at", "created_at"))
        .filter(
            owner=owner, status=Memory.Status.CONFIRMED, when__gte=window.start, when__lt=window.end
        )
        .order_by()  # the memory_owner_when index, not a sort
    )
    if not include_archived:
        in_window = in_window.filter(archived_at=None)
    ids = list(in_window.values_list("pk", flat=True)[: _config("time_scan") + 1])
    if len(ids) > _config("time_scan"):
        return  # a window this full ("last year") is the lists' job; it still lifts (below)
    similarity = _similarities(pool, owner, vector, [i for i in ids if i not in pool])
    for memory_id in sorted(similarity, key=lambda i: -similarity[i])[: _config("time_k")]:
        _add_meaning(pool, memory_id, similarity[memory_id])
        pool.parts[memory_id]["time"] = window.as_dict() | {"joined": True}


def _lift_by_conversation(owner, pool: _Pool, vector, include_archived) -> None:
    order = search.conversation_order(
        owner_id=owner.pk, ids=list(pool.base), include_archived=include_archived
    )
    place = {m: (c, i) for c, members in order.items() for i, m in enumerate(members)}

    def near(memory_id: int, distance: int) -> list[int]:
        if memory_id not in place:
            return []
        conversation_id, index = place[memory_id]
        members = order[conversation_id]
        return [members[j] for j in (index - distance, index + distance) if 0 <= j < len(members)]

    # The neighbours of the best few join, judged on meaning alone.
    joining = {
        n for seed in pool.best(_config("neighbour_seeds")) for n in near(seed, 1) if n not in pool
    }
    for memory_id, value in _similarities(pool, owner, vector, sorted(joining)).items():
        _add_meaning(pool, memory_id, value)
        pool.parts[memory_id]["neighbours"] = {"joined": True}

    best_overall = max(pool.base.values(), default=0.0)
    conversation_best: dict[int, tuple[float, int]] = {}
    for memory_id, base in pool.base.items():
        if memory_id in place:
            conversation_id = place[memory_id][0]
            if base > conversation_best.get(conversation_id, (-1.0, 0))[0]:
                conversation_best[conversation_id] = (base, memory_id)
    for memory_id, base in pool.base.items():
        score = base
        for distance, weight in (
            (1, pool.config["neighbour_weight"]),
            (2, pool.config["neighbour2_weight"]),
        ):
            around = [(pool.base[n], n) for n in near(memory_id, distance) if n in pool.base]
            if around and weight:
                gain, source = max(around)
                score += weight * gain
                if gain > 0:
                    pool.parts[memory_id].setdefault("neighbours", {})[f"from_{distance}"] = source
        if memory_id in place and best_overall > 0:
            best, source = conversation_best[place[memory_id][0]]
            gain = pool.config["conversation_weight"] * best
            score += gain
            if source != memory_id:
                pool.parts[memory_id]["conversation"] = {
                    "id": place[memory_id][0],
                    "best": source,
                }
        pool.score[memory_id] = score


def _lift_in_window(owner, pool: _Pool, window: Window) -> None:
    inside = set(
        Memory.objects.annotate(when=Coalesce("happened_at", "created_at"))
        .filter(pk__in=list(pool.score), when__gte=window.start, when__lt=window.end)
        .values_list("pk", flat=True)
    )
    for memory_id in inside:
        pool.score[memory_id] *= 1 + pool.config["time_boost"]
        pool.parts[memory_id].setdefault("time", window.as_dict())


def _lift_named(pool: _Pool, named: dict[int, _Named]) -> None:
    lifted = defaultdict(list)
    for memory_id, entity_id in search.mentions_among(
        memory_ids=list(pool.score), entity_ids=list(named)
    ):
        lifted[memory_id].append(named[entity_id].name)
    for memory_id, names in lifted.items():
        pool.score[memory_id] *= 1 + pool.config["named_entity_boost"]
        pool.parts[memory_id]["named"] = sorted(names)


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


def _expand_through_entities(owner, pool: _Pool, seeds: list[int], total: int) -> None:
    """Memories that share a name with the best few, weighted by how rare the name is (IDF):
    two memories that both name Dr Novak are related; two that name the member's partner, much
    less. Names on more than entity_max_share of the memories (and more than entity_min_df of
    them, so that a small household's names still connect) connect nothing."""
    weight = _config("entity_weight")
    if not weight or not seeds:
        return
    total = max(total, 2)
    too_common = max(_config("entity_max_share") * total, _config("entity_min_df"))
    names, sources = {}, defaultdict(set)  # entity → name; entity → the seeds naming it
    for entity_id, name, df, memory_id in search.entities_of(owner_id=owner.pk, memory_ids=seeds):
        if 2 <= df <= too_common:
            # IDF scaled to [0, 1]: 1 for a name on one memory, 0 for a name on all of them.
            names[entity_id] = (name, math.log(total / df) / math.log(total))
            sources[entity_id].add(memory_id)
    for entity_id, memory_id in search.mentioning(
        entity_ids=list(names), per_entity=_config("entity_fanout")
    ):
        name, idf = names[entity_id]
        # The strongest seed naming it, other than the memory itself.
        source = max(sources[entity_id] - {memory_id}, key=lambda s: pool.score[s], default=None)
        if source is None:
            continue
        gain = weight * idf * pool.score[source]
        previous = pool.parts[memory_id].get("entity", {}).get("gain", 0.0)
        if gain > previous:
            pool.score[memory_id] = pool.score.get(memory_id, 0.0) + gain - previous
            pool.base.setdefault(memory_id, 0.0)
            pool.parts[memory_id]["entity"] = {
                "via": name,
                "from": [source],
                "idf": round(idf, 3),
                "gain": gain,
            }


def _expand_through_links(owner, pool: _Pool, seeds: list[int]) -> None:
    """Memories recalled together with the best few before (seed 001's co-recall links)."""
    weight = _config("link_weight")
    links = MemoryLink.objects.filter(owner=owner, memory_id__in=seeds).order_by("-strength")
    rows = list(links.values_list("memory_id", "related_id", "strength")[: _config("link_fanout")])
    if not weight or not rows:
        return
    strongest = max(strength for _, _, strength in rows)
    for memory_id, related_id, strength in rows:
        gain = weight * (strength / strongest) * pool.score[memory_id]
        previous = pool.parts[related_id].get("link", {}).get("gain", 0.0)
        if gain > previous:
            pool.score[related_id] = pool.score.get(related_id, 0.0) + gain - previous
            pool.base.setdefault(related_id, 0.0)
            pool.parts[related_id]["link"] = {"from": memory_id, "strength": strength, "gain": gain}


def _hours_since(at: datetime) -> dict[str, RawSQL]:
    """Hours since each memory was last useful and since it happened, computed by SQLite: a few
    hundred candidates' dates as Python datetimes cost more than the rest of the weighing."""
    now = search.utc_text(at)
    return {
        "hours_since_use": RawSQL(
            "(julianday(%s) - julianday(coalesce(last_hit_at, memories_memory.created_at))) * 24",
            [now],
        ),
        "hours_old": RawSQL(
            "(julianday(%s) - julianday(coalesce(happened_at, memories_memory.created_at))) * 24",
            [now],
        ),
    }


class _Weigher:
    """final = relevance × reinforcement × freshness, where relevance is the candidate's score
    over the best one, reinforcement exp(0.2 × score) as in memory_query, and freshness
    1 + decay_weight × 0.99^(hours since use / strength) + recency_weight × exp(-hours old / 72)."""

    def __init__(self, top_score: float):
        self.top_score = top_score
        config = settings.TALKINGROCK_RECALL
        self.decay_weight, self.recency_weight = config["decay_weight"], config["recency_weight"]

    def parts(self, score, memory_score, hit_count, hours_since_use, hours_old):
        relevance = score / self.top_score if self.top_score else 0.0
        reinforcement = math.exp(search.SCORE_FACTOR * memory_score)
        decay = 0.99 ** (max(hours_since_use, 0.0) / (1 + hit_count))
        recency = math.exp(-max(hours_old, 0.0) / 72)
        freshness = 1 + self.decay_weight * decay + self.recency_weight * recency
        return relevance, reinforcement, decay, recency, relevance * reinforcement * freshness

    def __call__(self, *row) -> float:
        return self.parts(*row)[-1]

    def factors(self, *row) -> dict[str, float]:
        names = ("relevance", "reinforcement", "decay", "recency", "score")
        return {name: round(value, 4) for name, value in zip(names, self.parts(*row), strict=True)}


def _rounded(value):
    if isinstance(value, float):
        return round(value, 4)
    if isinstance(value, dict):
        return {key: _rounded(item) for key, item in value.items()}
    return value


def _note_what_they_replace(hits: list[Hit]) -> None:
    """A current decision or fact says what it replaced ("previously: butcher block")."""
    earlier = Memory.objects.filter(superseded_by__in=[hit.memory_id for hit in hits]).values_list(
        "superseded_by", "content", "valid_to"
    )
    by_id = {hit.memory_id: hit for hit in hits}
    for current, content, until in earlier:
        replaces = by_id[current].components.setdefault("replaces", [])
        replaces.append({"previously": content[:200], "changed": until.date().isoformat()})


def explain(components: dict[str, Any]) -> list[str]:
    """Why a hit matched, as short phrases: which lists and ranks, the entity path, the time."""
    reasons = []
    if keywords := components.get("keywords"):
        reasons.append(f"keywords #{keywords['rank']} (BM25 {keywords['bm25']:.2f})")
    if meaning := components.get("meaning"):
        similarity = meaning.get("similarity")
        rank = f" #{meaning['rank']}" if "rank" in meaning else ""
        if similarity is not None:
            reasons.append(f"meaning{rank} (similarity {similarity:.2f})")
    if neighbours := components.get("neighbours"):
        if neighbours.get("joined"):
            reasons.append("said right before or after a match")
        elif source := neighbours.get("from_1"):
            reasons.append(f"next to [id:{source}]")
    if conversation := components.get("conversation"):
        reasons.append(f"same conversation as [id:{conversation['best']}]")
    if window := components.get("time"):
        reasons.append(f"in the time asked about ({window['phrase']})")
    if named := components.get("named"):
        reasons.append(f"mentions {', '.join(named)}")
    if entity := components.get("entity"):
        reasons.append(f"shares {entity['via']} with [id:{entity['from'][0]}]")
    if link := components.get("link"):
        reasons.append(f"recalled together with [id:{link['from']}] before")
    for earlier in components.get("replaces", []):
        reasons.append(f"previously: “{earlier['previously']}”, changed {earlier['changed']}")
    if replaced := components.get("replaced"):
        reasons.append(f"replaced on {replaced['on']} by [id:{replaced['by']}]")
    return reasons


@transaction.atomic
def _leave_trail(
    owner, result: RecallResult, *, purpose, conversation, message, parameters, duration_ms
) -> int:
    trail = Recall.objects.create(
        owner=owner,
        query=result.query,
        purpose=purpose,
        conversation=conversation,
        message=message,
        parameters=parameters | ({"window": result.window.as_dict()} if result.window else {}),
        duration_ms=duration_ms,
    )
    RecallHit.objects.bulk_create(
        RecallHit(
            recall=trail,
            memory_id=hit.memory_id,
            rank=position,
            score=hit.score,
            components=hit.components,
            influence="; ".join(hit.why)[:200],
        )
        for position, hit in enumerate(result.hits, start=1)
    )
    strengthen_links(owner, [hit.memory_id for hit in result.hits[: _config("link_top")]])
    return trail.pk


def strengthen_links(owner, memory_ids: list[int]) -> None:
    """Memories returned together grow a link (both directions), +1 each time (seed 001, v2)."""
    pairs = [(a, b) for a in memory_ids for b in memory_ids if a != b]
    if not pairs:
        return
    now = timezone.now()
    existing = MemoryLink.objects.filter(Q(memory_id__in=memory_ids) & Q(related_id__in=memory_ids))
    known = set(existing.values_list("memory_id", "related_id"))
    existing.update(strength=F("strength") + 1, updated_at=now)
    MemoryLink.objects.bulk_create(
        MemoryLink(owner=owner, memory_id=a, related_id=b, updated_at=now)
        for a, b in pairs
        if (a, b) not in known
    )
