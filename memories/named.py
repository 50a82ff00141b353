"""The member's entities a text names, however it spells them: recall reads a query with it,
and consolidation a fact."""

from __future__ import annotations

from dataclasses import dataclass

from memories import graph_search
from memories.entities import COMMON, normalize


@dataclass(frozen=True)
class Named:
    name: str
    share: float  # of the member's memories that mention it
    surfaces: tuple[str, ...]  # how the query wrote it


def query_entities(owner, query: str, total: int) -> dict[int, Named]:
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
        entity_id: Named(name=name, share=df / total, surfaces=(surfaces[key],))
        for entity_id, name, key, df in graph_search.entities_named(
            owner_id=owner.pk, keys=list(surfaces)
        )
    }
