"""Template filters that say a stored recall hit in household words (issue 24): the why on the
page, the numbers behind it in the details fold."""

from __future__ import annotations

import re

from django import template

from memories import search
from memories.recall.results import explain, found_because, words_in

register = template.Library()


@register.filter
def found_because_of(hit, query: str = "") -> str:
    """A stored hit (``RecallHit``) of a recall for ``query``: why it was found, in words."""
    if hit.memory is None:
        return ""
    words = words_in(hit.memory, search.sanitise(query or "").terms)
    return found_because(hit.components or {}, words)


@register.filter
def details_of(components) -> list[str]:
    """A hit's components with their numbers, for the details fold."""
    return explain(components or {})


@register.filter
def without_reading(explanation: str, reading) -> str:
    """A reply's explanation without its opening "Read as stream × human × read (confidence
    0.75): …" (the reading has its own page): what is left says why in words."""
    text = explanation or ""
    if not text.startswith("Read as "):
        return text
    said = getattr(reading, "reasoning", "") or ""
    cut = text.find(said, len("Read as ")) if said else -1
    if cut < 0:
        return ""
    return text[cut + len(said) :].strip()


_ID = re.compile(r"\s*\(?\[id:\d+\]\)?")


@register.filter
def without_ids(text: str) -> str:
    """Words written for a model keep "[id:7]" beside what they name: on a page the words are
    enough (the ids stay in the details fold)."""
    return _ID.sub("", text or "").strip()
