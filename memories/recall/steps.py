"""The steps that gather and lift candidates (memories/recall/__init__.py runs them in order):
meaning from the member's own vectors, neighbours and the conversation's best match, the time
window a query names, the entities it names, one hop through shared entities and through
co-recall links. Each step records what it added in the candidate's ``parts``."""

from __future__ import annotations

import math
import re
from collections import defaultdict
from typing import Any

import numpy as np
from django.conf import settings
from django.db.models.functions import Coalesce

from memories import graph_search, search, vector_search, vectors
from memories.entities import COMMON
from memories.models import Memory, MemoryLink
from memories.named import Named
from talkingrock import embeddings
from talkingrock.language.dates import Window


def config(key: str):
    return settings.TALKINGROCK_RECALL[key]


class Pool:
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


def member_size(owner, pool: Pool) -> int:
    """How many memories the member has, for shares and IDF. The in-memory vectors already know
    (one per indexed memory); counting 40k rows costs 2 ms."""
    if pool.vectors is not None:
        return max(pool.vectors.size, 1)
    return max(Memory.objects.filter(owner=owner).count(), 1)


def meaning_text(query: str, named: dict[int, Named]) -> str:
    """The query as embedded: without the names found on a large share of the member's
    memories (their own, their partner's). Such a name says whose memory it is, not what it is
    about, and pulls the query's vector towards every memory that mentions them; the entity step
    below uses it instead. (On LoCoMo this alone moved Recall@10 from 69.5 to 77.3.)"""
    text = query
    for entity in named.values():
        if entity.share > config("common_name_share"):
            for surface in entity.surfaces:
                text = re.sub(rf"\b{re.escape(surface)}(?:['’]s)?\b", " ", text, flags=re.I)
    text = " ".join(text.split())
    return text if text.strip(" ?!.,") else query


def nearest(pool: Pool, owner, vector: np.ndarray, k: int) -> list[tuple[int, float]]:
    """(memory id, cosine distance) of the member's k nearest: the same exact scan either way,
    through BLAS on this process's copy (memories/vectors.py) or in sqlite-vec."""
    context = pool.config["context_keys"]
    if pool.vectors is not None:
        return vectors.nearest(pool.vectors, vector=vector, k=k, context=context)
    blob = embeddings.to_blob(vector)
    return vector_search.nearest(owner_id=owner.pk, vector=blob, k=k, context=context)


def similarities(pool: Pool, owner, vector: np.ndarray, ids: list[int]) -> dict[int, float]:
    """Each memory's similarity to the query: the better of its own and its contextual key."""
    context = pool.config["context_keys"]
    if pool.vectors is not None:
        found = vectors.distances(pool.vectors, vector=vector, ids=ids, context=context)
    else:
        blob = embeddings.to_blob(vector)
        found = vector_search.distances(owner_id=owner.pk, vector=blob, ids=ids, context=context)
    return {memory_id: 1 - distance for memory_id, distance in found.items()}


def add_meaning(pool: Pool, memory_id: int, similarity: float) -> None:
    gain = pool.config["meaning_weight"] * max(similarity, 0.0)
    pool.base[memory_id] = pool.base.get(memory_id, 0.0) + gain
    pool.parts[memory_id].setdefault("meaning", {})["similarity"] = round(similarity, 4)


def add_from_window(owner, pool: Pool, window: Window, vector, include_archived):
    """The window's memories nearest in meaning join the candidates."""
    in_window = (
        Memory.everything.annotate(when=Coalesce("happened_at", "created_at"))
        .filter(
            owner=owner, status=Memory.Status.CONFIRMED, when__gte=window.start, when__lt=window.end
        )
        .order_by()  # the memory_owner_when index, not a sort
    )
    if not include_archived:
        in_window = in_window.filter(archived_at=None)
    ids = list(in_window.values_list("pk", flat=True)[: config("time_scan") + 1])
    if len(ids) > config("time_scan"):
        return  # a window this full ("last year") is the lists' job; it still lifts (below)
    similarity = similarities(pool, owner, vector, [i for i in ids if i not in pool])
    for memory_id in sorted(similarity, key=lambda i: -similarity[i])[: config("time_k")]:
        add_meaning(pool, memory_id, similarity[memory_id])
        pool.parts[memory_id]["time"] = window.as_dict() | {"joined": True}


def lift_by_conversation(owner, pool: Pool, vector, include_archived) -> None:
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
        n for seed in pool.best(config("neighbour_seeds")) for n in near(seed, 1) if n not in pool
    }
    for memory_id, value in similarities(pool, owner, vector, sorted(joining)).items():
        add_meaning(pool, memory_id, value)
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


def lift_in_window(owner, pool: Pool, window: Window) -> None:
    inside = set(
        Memory.everything.annotate(when=Coalesce("happened_at", "created_at"))
        .filter(pk__in=list(pool.score), when__gte=window.start, when__lt=window.end)
        .values_list("pk", flat=True)
    )
    for memory_id in inside:
        pool.score[memory_id] *= 1 + pool.config["time_boost"]
        pool.parts[memory_id].setdefault("time", window.as_dict())


def lift_named(pool: Pool, named: dict[int, Named]) -> None:
    lifted = defaultdict(list)
    for memory_id, entity_id in graph_search.mentions_among(
        memory_ids=list(pool.score), entity_ids=list(named)
    ):
        lifted[memory_id].append(named[entity_id].name)
    for memory_id, names in lifted.items():
        pool.score[memory_id] *= 1 + pool.config["named_entity_boost"]
        pool.parts[memory_id]["named"] = sorted(names)


def expand_through_entities(owner, pool: Pool, seeds: list[int], total: int) -> None:
    """Memories that share a name with the best few, weighted by how rare the name is (IDF):
    two memories that both name Dr Novak are related; two that name the member's partner, much
    less. Names on more than entity_max_share of the memories (and more than entity_min_df of
    them, so that a small household's names still connect) connect nothing."""
    weight = config("entity_weight")
    if not weight or not seeds:
        return
    total = max(total, 2)
    too_common = max(config("entity_max_share") * total, config("entity_min_df"))
    names, sources = {}, defaultdict(set)  # entity → name; entity → the seeds naming it
    for entity_id, name, df, memory_id in graph_search.entities_of(
        owner_id=owner.pk, memory_ids=seeds
    ):
        if 2 <= df <= too_common:
            # IDF scaled to [0, 1]: 1 for a name on one memory, 0 for a name on all of them.
            names[entity_id] = (name, math.log(total / df) / math.log(total))
            sources[entity_id].add(memory_id)
    for entity_id, memory_id in graph_search.mentioning(
        entity_ids=list(names), per_entity=config("entity_fanout")
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


def expand_through_links(owner, pool: Pool, seeds: list[int]) -> None:
    """Memories recalled together with the best few before (seed 001's co-recall links)."""
    weight = config("link_weight")
    links = MemoryLink.objects.filter(owner=owner, memory_id__in=seeds).order_by("-strength")
    rows = list(links.values_list("memory_id", "related_id", "strength")[: config("link_fanout")])
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


_WORD = re.compile(r"[^\W\d_]{4,}")


def second_round(owner, pool: Pool, query: str, include_archived: bool) -> None:
    """Multi-hop, one bounded round (seed 001's agent loop, done offline): the strongest hits of
    the first round name what the question did not. Their words rarest among the member's own
    memories (at least twice, so that they lead somewhere; no query word, no common word) are
    searched for once more, and what that finds gains a share of the strongest hit's score."""
    weight = config("second_round_weight")
    seeds = sorted(pool.score, key=lambda i: (-pool.score[i], -i))[: config("second_round_seeds")]
    if not weight or not seeds:
        return
    asked = {word.casefold() for word in _WORD.findall(query)}
    words: list[str] = []
    for text in Memory.everything.filter(pk__in=seeds).values_list("content", flat=True):
        for word in _WORD.findall(text):
            folded = word.casefold()
            if folded not in asked and folded not in COMMON and folded not in words:
                words.append(folded)
    words = words[: config("second_round_probe")]
    if not words:
        return
    cap = config("second_round_max_df")
    counts = search.term_match_counts(owner_id=owner.pk, terms=tuple(words), cap=cap + 1)
    rare = sorted((c, w) for w, c in zip(words, counts, strict=True) if 2 <= c <= cap)
    chosen = tuple(w for _, w in rare[: config("second_round_words")])
    if not chosen:
        return
    rows = search.keyword_candidates(
        owner_id=owner.pk,
        match=search.match_expression(chosen),
        limit=config("second_round_k"),
        include_archived=include_archived,
    )
    best = rows[0][1] if rows and rows[0][1] > 0 else 1.0
    top = pool.score[seeds[0]]
    for memory_id, bm25 in rows:
        if memory_id in seeds:
            continue
        gain = weight * max(bm25, 0.0) / best * top
        pool.score[memory_id] = pool.score.get(memory_id, 0.0) + gain
        pool.base.setdefault(memory_id, 0.0)
        pool.parts[memory_id]["second_round"] = {"words": list(chosen), "gain": gain}
