"""The passes in the seed's order, one member at a time:

    every 30 s:  consolidate pending facts                  (facts.consolidate_member)
    daily:       temporal pass → observation merge → dreams  (temporal, merge, dreams)

Each pass is also a management command (consolidate, temporal, merge_observations, dream). A
member's failure is logged and recorded on their run; the next member still gets their turn."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable

from django.conf import settings
from django.contrib.auth import get_user_model

from memories.consolidation import dreams, facts, merge, store, temporal

log = logging.getLogger(__name__)

PASSES: dict[str, Callable[..., dict]] = {
    "consolidate": facts.consolidate_member,
    "temporal": temporal.temporal_member,
    "merge": merge.merge_member,
    "dream": dreams.dream_member,
}
DAILY = ("temporal", "merge", "dream")


def members(owner_ids: Iterable[int] | None = None) -> list[int]:
    people = get_user_model().objects.filter(is_active=True)
    if owner_ids is not None:
        people = people.filter(pk__in=list(owner_ids))
    return list(people.order_by("pk").values_list("pk", flat=True))


def members_with_pending() -> list[int]:
    """The members who have facts waiting (the 30-second pass looks at no one else)."""
    waiting = store.pending_owner_ids()
    return [owner_id for owner_id in members() if owner_id in waiting]


def run(name: str, owner_ids: Iterable[int] | None = None, *, progress=None, **options) -> dict:
    """Run one pass for each member in turn; returns {member id: summary}."""
    if not settings.TALKINGROCK_CONSOLIDATION["enabled"]:
        return {}
    chosen = members_with_pending() if name == "consolidate" and owner_ids is None else None
    done: dict[int, dict] = {}
    for owner_id in chosen if chosen is not None else members(owner_ids):
        try:
            done[owner_id] = PASSES[name](owner_id, progress=progress, **options)
        except Exception as error:  # one member's bad row must not stop the household's pass
            log.exception("%s failed for member %s", name, owner_id)
            done[owner_id] = {"error": f"{type(error).__name__}: {error}"}
    return done


def daily(owner_ids: Iterable[int] | None = None, *, progress=None) -> dict:
    """temporal → merge → dreams, each over every member before the next begins."""
    return {name: run(name, owner_ids, progress=progress) for name in DAILY}
