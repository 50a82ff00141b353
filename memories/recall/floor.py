"""The relevance floor: which hits bear on the query and which are only the least bad of what
the member has (issue 12). Ranking never looks at it (recall still returns its k best, and the
benchmarks score the whole list); the surfaces people and models read — the search page, the
tools, the chat's context — show what clears it, and at most say how many weaker matches they
left out.

A hit clears the floor on its own evidence, not on its rank:

* its meaning: cosine similarity to the query of at least ``floor_similarity``;
* its words: a BM25 of at least ``floor_bm25`` in the member's own index, where a word's weight
  is its rarity among *this member's* memories, so a filler word ("for") found everywhere
  weighs next to nothing and cannot carry a memory over on its own (a rare name the query
  shares with the memory weighs a lot: that is how a name clears it);
* or its place: said right next to a hit that clears on its own ("the blue one!!" after "which
  bike did you get?"), when the neighbour lifted it.

Both thresholds are calibrated on the development data by ``bench/floor.py`` (docs/benchmarks.md
has the run): the strictest floor that keeps 95 % of the evidence a question's top 10 found.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings


def _config(key: str) -> float:
    return settings.TALKINGROCK_RECALL[key]


def clears_alone(
    components: dict[str, Any], *, similarity: float | None = None, bm25: float | None = None
) -> bool:
    """Whether a candidate clears the floor on its own; the thresholds default to the settings
    (bench/floor.py passes others to calibrate them)."""
    similarity = _config("floor_similarity") if similarity is None else similarity
    bm25 = _config("floor_bm25") if bm25 is None else bm25
    if components.get("meaning", {}).get("similarity", 0.0) >= similarity:
        return True
    keywords = components.get("keywords")
    return bool(keywords) and keywords.get("bm25", 0.0) >= bm25


def mark(hits: list, parts: dict[int, dict[str, Any]]) -> None:
    """Set ``weak`` on every hit: True when it clears the floor neither on its own nor by a
    neighbour that does. ``parts`` holds every candidate's components (a neighbour that lifted a
    hit need not be among the hits)."""
    for hit in hits:
        if clears_alone(hit.components):
            hit.weak = False
            continue
        neighbours = hit.components.get("neighbours", {})
        source = neighbours.get("from_1")
        if source is None:
            hit.weak = True
            continue
        lifting = parts.get(source, {})
        # What the neighbour brought, so the floor can be calibrated from the hits alone.
        neighbours["source_similarity"] = lifting.get("meaning", {}).get("similarity", 0.0)
        neighbours["source_bm25"] = lifting.get("keywords", {}).get("bm25", 0.0)
        hit.weak = not clears_alone(lifting)
