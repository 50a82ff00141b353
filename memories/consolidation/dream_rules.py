"""The dream pass's offline rule: bridges between distant clusters that can be measured.

Two clusters of a member's facts are far apart when their centroids are (cosine distance). A
bridge is something the two share that a person could check:
- a day: a fact in each cluster happened on the same day (strength 1.0);
- an entity: a fact in each cluster names the same person, place or thing (strength 0.8; a
  name only spoken to, "Thanks, Mel!", does not count);
- a week: a fact in each cluster happened in the same ISO week (strength 0.5).
Only when the facts say when they happened (``happened_at``): the day a fact was written down is
not the day it happened, and a batch typed in one evening would otherwise "share a day".

Only the more distant half of the cluster pairs is looked at (two neighbouring clusters sharing
a week is no surprise). Each pair offers its strongest bridge; its score is the centroid
distance × the bridge's strength, and the best ones are kept, at most ``limit``, no fact in
two of them. The text is a template naming the evidence, and the reason shows the arithmetic."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from datetime import date, timedelta

from django.utils import timezone

from memories.consolidation.clusters import Clusters
from memories.models import Memory

OFFLINE = "offline"
STRENGTH = {"day": 1.0, "entity": 0.8, "week": 0.5}
EVIDENCE_PER_SIDE = 3  # the facts of each side kept with a dream (nearest their centroid)
QUOTE_CHARS = 100

_WORD = re.compile(r"[a-z][a-z'-]{3,}")
_STOP = frozenset(
    """about after again also always been before being both came come could does done down
    each even ever from going gone good have having here into just know like made make many
    more most much must never only other over really said same should some still such than
    that their them then there these they thing things this those through time today told
    very want week went were what when where which while will with would year your yours""".split()
    # Units and spans of time say how much, not what about: never a cluster's name.
    + "mins minutes hours hrs secs seconds days weeks months years quarter times".split()
)


@dataclass
class Candidate:
    """A dream before it is stored: its text, the facts of each side, why, and its score."""

    text: str
    facts_a: list[Memory]
    facts_b: list[Memory]
    reason: str = ""
    score: float = 0.0
    engine: str = OFFLINE


def day_of(fact: Memory) -> date | None:
    return timezone.localtime(fact.happened_at).date() if fact.happened_at else None


def _monday(day: date) -> date:
    return day - timedelta(days=day.weekday())


def _days(fact: Memory) -> list[date]:
    day = day_of(fact)
    return [day] if day else []


def _weeks(fact: Memory) -> list[date]:
    day = day_of(fact)
    return [_monday(day)] if day else []


def _entities(fact: Memory) -> list[int]:
    return sorted({m.entity_id for m in fact.mentions.all() if not m.addressed})


def _grouped(facts: list[Memory], keys: Callable[[Memory], list]) -> dict[Hashable, list[Memory]]:
    found: dict[Hashable, list[Memory]] = {}
    for fact in facts:  # nearest the centroid first, and so within each group
        for key in keys(fact):
            found.setdefault(key, []).append(fact)
    return found


def labels(clusters: Clusters) -> list[str]:
    """A name for each cluster: the subject two or more of its facts share (the extraction's
    "kitchen remodel"), else its most distinctive word (share of its facts that use it minus the
    share of the other facts that do)."""
    words = [set(_WORD.findall(f.content.casefold())) - _STOP for f in clusters.facts]
    named = []
    for c in range(clusters.k):
        inside = clusters.members[c]
        subjects = Counter(
            clusters.facts[i].subject.casefold() for i in inside if clusters.facts[i].subject
        )
        if subjects and (top := subjects.most_common(1)[0])[1] >= 2:
            named.append(top[0])
            continue
        outside = len(clusters.facts) - len(inside)
        in_count = Counter(w for i in inside for w in words[i])
        all_count = Counter(w for found in words for w in found)
        scored = sorted(
            (
                -(in_count[w] / len(inside) - (all_count[w] - in_count[w]) / max(outside, 1)),
                w,
            )
            for w in in_count
        )
        word = scored[0][1] if scored else ""
        spelled = {  # a word that is a name keeps its capitals ("Biscuit", not "biscuit")
            m.entity.normalized: m.entity.name
            for i in inside
            for m in clusters.facts[i].mentions.all()
        }
        named.append(spelled.get(word, word))
    return named


def _quote(fact: Memory) -> str:
    text = " ".join(fact.content.split()).rstrip(".!;: ")
    if len(text) > QUOTE_CHARS:
        text = text[:QUOTE_CHARS].rsplit(" ", 1)[0] + "…"
    return f"“{text}”"


def _date(day: date, now) -> str:
    shown = f"{day.day} {day:%b}"
    return shown if day.year == timezone.localtime(now).year else f"{shown} {day.year}"


def _areas(label_a: str, label_b: str) -> str:
    if label_a and label_b and label_a != label_b:
        return f"Your {label_a} and your {label_b}"
    return "Two separate parts of your life"


def _text(kind, key, side_a, side_b, names, label_a, label_b, now) -> tuple[str, str]:
    """The dream's sentence and what the bridge is, for the reason."""
    a, b = side_a[0], side_b[0]
    if kind == "day":
        on = _date(key, now)
        return (
            f"{_areas(label_a, label_b)} share a day: {_quote(a)} and {_quote(b)}, both on {on}.",
            f"the same day, {on}",
        )
    if kind == "week":
        week = _date(key, now)
        return (
            f"{_areas(label_a, label_b)} share a week: {_quote(a)} ({_date(day_of(a), now)}) "
            f"and {_quote(b)} ({_date(day_of(b), now)}), both in the week of {week}.",
            f"the same week, of {week}",
        )
    name = names.get(key, "The same name")
    where = (
        f"both your {label_a} and your {label_b}"
        if label_a and label_b and label_a != label_b
        else "two separate parts of your life"
    )
    return (f"{name} turns up in {where}: {_quote(a)} and {_quote(b)}.", f"a shared name, {name}")


def bridge(clusters: Clusters, a: int, b: int, names: list[str], now) -> Candidate | None:
    """The strongest bridge between clusters ``a`` and ``b``, or None."""
    facts_a, facts_b = clusters.facts_in(a), clusters.facts_in(b)
    options = []
    for kind, keys in (("day", _days), ("entity", _entities), ("week", _weeks)):
        by_a, by_b = _grouped(facts_a, keys), _grouped(facts_b, keys)
        for key in by_a.keys() & by_b.keys():
            side_a, side_b = by_a[key][:EVIDENCE_PER_SIDE], by_b[key][:EVIDENCE_PER_SIDE]
            recency = key.toordinal() if isinstance(key, date) else 0
            rank = (-STRENGTH[kind], -(len(side_a) + len(side_b)), -recency, str(key))
            options.append((rank, kind, key, side_a, side_b))
    if not options:
        return None
    _, kind, key, side_a, side_b = min(options, key=lambda option: option[0])
    entity_names = {
        m.entity_id: m.entity.name
        for fact in (*side_a, *side_b)
        for m in fact.mentions.all()
        if not m.addressed
    }
    text, what = _text(kind, key, side_a, side_b, entity_names, names[a], names[b], now)
    distance, strength = clusters.distance(a, b), STRENGTH[kind]
    score = distance * strength
    reason = (
        f"The clusters' centroids are {distance:.2f} apart (cosine distance) × co-occurrence "
        f"{strength:.1f} ({what}) = score {score:.2f}; {len(side_a)} fact(s) from one cluster "
        f"and {len(side_b)} from the other."
    )
    return Candidate(text, side_a, side_b, reason, score)


def offline_dreams(clusters: Clusters, *, limit: int, now) -> list[Candidate]:
    """The best ``limit`` bridges over the more distant half of the cluster pairs."""
    pairs = clusters.pairs()
    pairs = pairs[: max(1, math.ceil(len(pairs) / 2))]
    names = labels(clusters)
    found = [c for _, a, b in pairs if (c := bridge(clusters, a, b, names, now)) is not None]
    found.sort(key=lambda c: (-c.score, -(len(c.facts_a) + len(c.facts_b))))
    kept: list[Candidate] = []
    used: set[int] = set()
    for candidate in found:
        ids = {f.pk for f in (*candidate.facts_a, *candidate.facts_b)}
        if len(kept) >= limit:
            break
        if ids & used:  # one day or one name behind two dreams: keep the better one
            continue
        kept.append(candidate)
        used |= ids
    return kept
