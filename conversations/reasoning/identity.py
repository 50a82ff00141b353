"""Who the member is (seed 003, "Your Story as Identity Context"): the recurring themes of Your
Story. Offline, its memories are grouped by meaning (each joins the first group whose centre is
within ``JOIN_SIMILARITY``, newest first, so the grouping is the same every time) and each group
of two or more is named by its salient words (frequent in the group, rare in Your Story as a
whole, never the member's own name). With Ollama, a task asks the model to name the themes
after a conversation is filed and keeps its answer for a day (``refresh_themes``); nothing in a
web request waits on it."""

from __future__ import annotations

import logging
import math
from collections import Counter
from typing import Any

import numpy as np
from django.core.cache import cache
from django.utils import timezone

from conversations.reasoning import prompts
from conversations.terms import content_terms, is_filler, stem, words_of
from memories import vector_search
from memories.models import Memory
from talkingrock import llm
from talkingrock.language import dates
from talkingrock.language.names import display_name

log = logging.getLogger(__name__)

JOIN_SIMILARITY = 0.45
MEMORIES = 60  # the newest Your Story memories read
THEMES = 5
_CACHE = "identity-themes:{owner_id}"


def _story(owner) -> list[Memory]:
    rows = Memory.objects.filter(
        owner=owner,
        act__is_your_story=True,
        status=Memory.Status.CONFIRMED,
        archived_at=None,
    ).exclude(source=Memory.Source.CORRECTION)
    return list(rows.order_by("-created_at", "-pk")[:MEMORIES])


def offline_themes(owner) -> list[dict[str, Any]]:
    memories = _story(owner)
    vectors = vector_search.own_vectors([m.pk for m in memories])
    groups: list[tuple[np.ndarray, list[Memory]]] = []
    for memory in memories:
        if memory.pk not in vectors:
            continue  # not embedded yet
        vector = np.frombuffer(vectors[memory.pk][1], dtype=np.float32)
        for index, (centre, members) in enumerate(groups):
            if float(centre @ vector) / max(float(np.linalg.norm(centre)), 1e-9) >= JOIN_SIMILARITY:
                groups[index] = (centre + vector, [*members, memory])
                break
        else:
            groups.append((vector.copy(), [memory]))
    # Your Story is about its owner: their own name names no theme ("Alice ran …").
    own_name = content_terms(f"{display_name(owner)} {owner.get_username()}")
    said = {m.pk: _words(m) for m in memories}
    everywhere = Counter(term for m in memories for term in said[m.pk])
    themes = []
    for _, members in sorted(groups, key=lambda g: -len(g[1])):
        if len(members) < 2:
            continue
        here = Counter(term for m in members for term in said[m.pk])
        salient = sorted(
            (term for term, count in here.items() if count >= 2 and term not in own_name),
            key=lambda t: (-here[t] * math.log((len(memories) + 1) / everywhere[t]), t),
        )[:3]
        if salient:
            # Each in the member's own spelling, the one written most often ("moved", not
            # the stem "mov").
            written = Counter(w for m in members for term, w in said[m.pk].items())
            named = [
                max(
                    (w for m in members if (w := said[m.pk].get(term))),
                    key=lambda w: (written[w], w),
                )
                for term in salient
            ]
            themes.append({"theme": ", ".join(named), "memory_ids": [m.pk for m in members][:8]})
        if len(themes) >= THEMES:
            break
    return themes


def _words(memory: Memory) -> dict[str, str]:
    """The content words of ``memory`` by their stem, each as written, leaving out the dates and
    times it says ("mon tue thu", "3pm") and anything with a figure in it: a theme is a thing
    the member keeps coming back to, not a day."""
    text = memory.content
    for mention in reversed(dates.find(text, today=timezone.localtime(memory.created_at).date())):
        text = text[: mention.start] + " " + text[mention.end :]
    found: dict[str, str] = {}
    for word in words_of(text):
        if len(word) > 1 and word.isalpha() and not is_filler(word):
            term = stem(word)
            if term in content_terms(word):
                found.setdefault(term, word)
    return found


def refresh_themes(owner) -> list[dict[str, Any]] | None:
    """The model's themes, kept for a day (a task runs this; never a web request)."""
    memories = _story(owner)
    if len(memories) < 2 or llm.status().engine != "ollama":
        return None
    lines = "\n".join(f"- [id:{m.pk}] {' '.join(m.content.split())[:300]}" for m in memories)
    try:
        answer = llm.structured(
            system=prompts.THEMES_SYSTEM,
            prompt=f"Your Story:\n{lines}",
            schema=prompts.THEMES_SCHEMA,
        ).value
    except llm.LLMError as error:
        log.info("Themes stay offline: %s", error.message)
        return None
    known = {m.pk for m in memories}
    themes = [
        {"theme": t["theme"], "memory_ids": [i for i in t["memory_ids"] if i in known]}
        for t in answer["themes"]
    ]
    cache.set(_CACHE.format(owner_id=owner.pk), themes, timeout=24 * 3600)
    return themes


def identity_context(owner) -> dict[str, Any]:
    """The recurring themes of Your Story: the model's when a task has asked it, else the
    offline grouping; with the text added to a model's context."""
    themes = cache.get(_CACHE.format(owner_id=owner.pk))
    engine = "ollama"
    if themes is None:
        themes, engine = offline_themes(owner), "offline"
    text = "; ".join(theme["theme"] for theme in themes)
    return {"themes": themes, "engine": engine, "text": text}
