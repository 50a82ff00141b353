"""Observations in recall (seed 002's read path, step 5): searched by vector in the member's own
partition, weighted by access decay 0.99^(hours since use / strength) and recency
exp(-hours since it last changed / 72), and written into the context with their latest
transitions:

    - Alice leads the backend rewrite (previously: "Alice is the mobile app lead", changed Feb 2026)

Dreams are never searched here (seed 002: they do not feed recall)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime

import numpy as np
from django.conf import settings
from django.db.models import F
from django.utils import timezone

from memories.consolidation import store
from memories.models import Observation, ObservationChange

# An observation below this cosine with the query is not about it, however fresh.
MIN_SIMILARITY = 0.3


@dataclass
class ObservedHit:
    observation: Observation
    similarity: float
    score: float
    transitions: list[ObservationChange]

    @property
    def line(self) -> str:
        return line_of(self.observation, self.transitions)


def _hours(since: datetime | None, now: datetime) -> float:
    return max((now - since).total_seconds() / 3600, 0.0) if since else 0.0


def weight(observation: Observation, similarity: float, now: datetime) -> float:
    config = settings.TALKINGROCK_RECALL
    strength = 1 + observation.hit_count
    decay = 0.99 ** (_hours(observation.last_hit_at or observation.created_at, now) / strength)
    recency = math.exp(-_hours(observation.updated_at, now) / 72)
    freshness = 1 + config["decay_weight"] * decay + config["recency_weight"] * recency
    return similarity * freshness


def latest_transitions(observation_ids: list[int], per: int = 2) -> dict[int, list]:
    """Each observation's latest changes of value (newest first), ``per`` at most."""
    found: dict[int, list[ObservationChange]] = {}
    changes = ObservationChange.objects.filter(
        observation_id__in=observation_ids, kind=ObservationChange.Kind.UPDATED
    ).exclude(previous_text="")
    for change in changes.order_by("-changed_at", "-id"):
        kept = found.setdefault(change.observation_id, [])
        if len(kept) < per:
            kept.append(change)
    return found


def _month(change: ObservationChange) -> str:
    return f"{change.happened_at or change.changed_at:%b %Y}"


def line_of(observation: Observation, transitions: list[ObservationChange]) -> str:
    """'- text (previously: "…", changed Feb 2026; before that "…", changed Jan 2026)'."""
    line = f"- {observation.text}"
    if transitions:
        steps = [f'previously: "{transitions[0].previous_text}", changed {_month(transitions[0])}']
        steps += [f'before that "{c.previous_text}", changed {_month(c)}' for c in transitions[1:]]
        line += f" ({'; '.join(steps)})"
    return line


def search(
    owner_id: int, vector: np.ndarray, *, k: int | None = None, at=None
) -> list[ObservedHit]:
    """The member's observations that bear on ``vector``, best first."""
    k = k or settings.TALKINGROCK_CONSOLIDATION["context_observations"]
    now = at or timezone.now()
    pairs = [(o, s) for o, s in store.nearest(owner_id, vector, k=k * 3) if s >= MIN_SIMILARITY]
    if not pairs:
        return []
    scored = sorted(pairs, key=lambda pair: (-weight(pair[0], pair[1], now), -pair[0].pk))[:k]
    transitions = latest_transitions([o.pk for o, _ in scored])
    return [
        ObservedHit(o, round(s, 4), round(weight(o, s, now), 4), transitions.get(o.pk, []))
        for o, s in scored
    ]


def mark_used(hits: list[ObservedHit]) -> None:
    """Observations that went into an answer were useful: their decay restarts."""
    if hits:
        Observation.objects.filter(pk__in=[hit.observation.pk for hit in hits]).update(
            hit_count=F("hit_count") + 1, last_hit_at=timezone.now()
        )


def block(hits: list[ObservedHit]) -> str:
    """The observations as a context block ('' when there are none)."""
    if not hits:
        return ""
    return "What the memories add up to (observations):\n" + "\n".join(h.line for h in hits)
