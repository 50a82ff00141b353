"""A member's observations and dreams as the pages and the tools read them, and what the member
does with them: confirm, edit (consolidation/store.py keeps the old words in the history),
dismiss and bring back an observation; keep, dismiss and bring back a dream. And the status of
the consolidation passes: when each last ran for the member and what it did.

Every function takes the member's id and reads only their rows; a row of anyone else's is
``DoesNotExist``, as one that never was."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.conf import settings
from django.db.models import Prefetch, QuerySet
from django.db.models.functions import Coalesce
from django.utils import timezone

from memories import search as memory_search
from memories.consolidation import context, runs, sql, store
from memories.entities import normalize
from memories.models import ConsolidationRun, Dream, Entity, Memory, Observation, ObservationChange
from talkingrock import embeddings


class InsightError(Exception):
    """Something the member asked that cannot be done to this row as it stands now."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


def facts_in_time_order(owner_id: int) -> QuerySet[Memory]:
    """The member's memories as sources are listed: as they happened (or were said), oldest
    first; only what a source list shows is read."""
    return (
        Memory.objects.filter(owner_id=owner_id)
        .order_by(Coalesce("happened_at", "created_at"), "id")
        .only("id", "content", "happened_at", "created_at", "archived_at", "owner_id")
    )


def with_sources(observations: QuerySet[Observation], owner_id: int) -> QuerySet[Observation]:
    """Observations with their entity, source facts (``sources``) and history (``history``,
    newest change first, each with the facts that caused it), in a fixed number of queries."""
    facts = facts_in_time_order(owner_id)
    changes = ObservationChange.objects.order_by("-changed_at", "-id").prefetch_related(
        Prefetch("facts", queryset=facts, to_attr="sources")
    )
    return observations.select_related("entity").prefetch_related(
        Prefetch("facts", queryset=facts, to_attr="sources"),
        Prefetch("changes", queryset=changes, to_attr="history"),
    )


def with_previously(rows) -> list[Observation]:
    """``rows`` (loaded by ``with_sources``) as a list, each with ``previously``: its newest
    change of words (what it said before, and when), or None when its words never changed."""
    rows = list(rows)
    for observation in rows:
        observation.previously = next(
            (c for c in observation.history if c.previous_text and c.previous_text != c.new_text),
            None,
        )
    return rows


# --- observations -------------------------------------------------------------------------------


def observations(owner_id: int, *, kind: str = "", entity: Entity | None = None):
    """The member's live observations, newest change first, of one kind or about one entity."""
    rows = store.live(owner_id).order_by("-updated_at", "-id")
    if kind:
        rows = rows.filter(kind=kind)
    if entity is not None:
        rows = rows.filter(entity=entity)
    return with_sources(rows, owner_id)


def recently_dismissed(owner_id: int, limit: int = 10) -> QuerySet[Observation]:
    """What the member dismissed lately (not merged away): each can be brought back."""
    return Observation.objects.filter(owner_id=owner_id, dismissed=True, merged_into=None).order_by(
        "-updated_at", "-id"
    )[:limit]


def entities_observed(owner_id: int) -> QuerySet[Entity]:
    """The member's entities that at least one live observation is about."""
    return Entity.objects.filter(
        owner_id=owner_id, observations__in=store.live(owner_id)
    ).distinct()


def get_observation(owner_id: int, pk: int) -> Observation:
    return Observation.objects.select_related("entity", "merged_into").get(pk=pk, owner_id=owner_id)


def _not_merged(observation: Observation) -> None:
    if observation.merged_into_id is not None:
        raise InsightError(
            f"It was merged into “{observation.merged_into.text}”, which holds its facts and "
            "history now."
        )


def _live(observation: Observation) -> None:
    _not_merged(observation)
    if observation.dismissed:
        raise InsightError("It was dismissed: bring it back first.")


def confirm(observation: Observation) -> Observation:
    """The member says it holds."""
    _live(observation)
    if observation.confirmed_at is None:
        observation.confirmed_at = timezone.now()
        observation.save(update_fields=["confirmed_at"])
    return observation


def edit(observation: Observation, text: str) -> Observation:
    """The member's own words; the old ones stay in the history (store.edit)."""
    _live(observation)
    return store.edit(observation, text)


def dismiss(observation: Observation) -> Observation:
    """Out of the pages, the tools and recall; kept, so that it can be brought back."""
    _not_merged(observation)
    if not observation.dismissed:
        observation.dismissed = True
        observation.save(update_fields=["dismissed"])
    return observation


def bring_back(observation: Observation) -> Observation:
    _not_merged(observation)
    if observation.dismissed:
        observation.dismissed = False
        observation.save(update_fields=["dismissed"])
    return observation


# --- dreams ---------------------------------------------------------------------------------------


def dreams(owner_id: int, *, dismissed: bool | None = False) -> QuerySet[Dream]:
    """The member's dreams (dismissed or not; None: both), newest first, with both clusters'
    facts in time order."""
    facts = facts_in_time_order(owner_id)
    rows = Dream.objects.filter(owner_id=owner_id)
    if dismissed is not None:
        rows = rows.filter(dismissed=dismissed)
    return rows.order_by("-created_at", "-id").prefetch_related(
        Prefetch("facts_a", queryset=facts, to_attr="sources_a"),
        Prefetch("facts_b", queryset=facts, to_attr="sources_b"),
    )


def dismissed_dreams(owner_id: int, limit: int = 10) -> QuerySet[Dream]:
    return Dream.objects.filter(owner_id=owner_id, dismissed=True).order_by("-created_at", "-id")[
        :limit
    ]


def get_dream(owner_id: int, pk: int) -> Dream:
    return Dream.objects.get(pk=pk, owner_id=owner_id)


def keep_dream(dream: Dream) -> Dream:
    dream.kept_at, dream.dismissed = dream.kept_at or timezone.now(), False
    dream.save(update_fields=["kept_at", "dismissed"])
    return dream


def dismiss_dream(dream: Dream) -> Dream:
    dream.kept_at, dream.dismissed = None, True
    dream.save(update_fields=["kept_at", "dismissed"])
    return dream


def bring_back_dream(dream: Dream) -> Dream:
    dream.dismissed = False
    dream.save(update_fields=["dismissed"])
    return dream


# --- the passes' status -----------------------------------------------------------------------

PASS_NAMES = {
    ConsolidationRun.Pass.CONSOLIDATE: "Consolidation",
    ConsolidationRun.Pass.TEMPORAL: "Patterns over time",
    ConsolidationRun.Pass.MERGE: "Merging duplicates",
    ConsolidationRun.Pass.DREAM: "Dreams",
}
PASS_SCHEDULES = {
    ConsolidationRun.Pass.CONSOLIDATE: "every 30 seconds, when there are new facts",
    ConsolidationRun.Pass.TEMPORAL: "daily",
    ConsolidationRun.Pass.MERGE: "daily",
    ConsolidationRun.Pass.DREAM: "daily",
}


@dataclass(frozen=True)
class PassStatus:
    kind: str
    name: str
    schedule: str
    run: ConsolidationRun | None
    state: str  # never | running | stalled | failed | done

    @property
    def counts(self) -> list[tuple[str, object]]:
        """What the run did, in words: ("created", 3), ("updated", 1)…"""
        summary = self.run.summary if self.run and isinstance(self.run.summary, dict) else {}
        return [(str(key).replace("_", " "), value) for key, value in summary.items()]


def _state(run: ConsolidationRun | None, now: datetime) -> str:
    if run is None:
        return "never"
    if run.error:
        return "failed"
    if run.finished_at is None:
        stale = settings.TALKINGROCK_CONSOLIDATION["stale_minutes"]
        if runs.is_dead(run) or (now - run.started_at).total_seconds() > stale * 60:
            return "stalled"
        return "running"
    return "done"


def pass_status(owner_id: int) -> list[PassStatus]:
    """Each pass's latest run for the member, in the order the passes run."""
    now = timezone.now()
    return [
        PassStatus(kind, PASS_NAMES[kind], PASS_SCHEDULES[kind], run, _state(run, now))
        for kind, run in runs.last_runs(owner_id).items()
    ]


# --- what an agent reads ------------------------------------------------------------------------


class NoSuchEntity(Exception):
    def __init__(self, name: str):
        super().__init__(name)
        self.message = f"Nothing named “{name}” is in your memories."


def entity_named(owner_id: int, name: str) -> Entity:
    """The member's entity by name, matched as entities are merged (memories/entities.py)."""
    found = Entity.objects.filter(owner_id=owner_id, normalized=normalize(name)).first()
    if found is None:
        raise NoSuchEntity(name)
    return found


@dataclass(frozen=True)
class Found:
    observation: Observation
    matched: str  # "meaning", "keywords", or "" when listed rather than searched
    similarity: float | None = None


def find(owner_id: int, *, query: str = "", entity: Entity | None = None, limit: int = 10):
    """Live observations for an agent: with a query, by meaning (nearest first, as recall
    weighs them) and then the keyword matches the vectors missed; without one, newest first.
    About ``entity`` when one is given. Sources and history are loaded."""
    live = store.live(owner_id)
    if entity is not None:
        live = live.filter(entity=entity)
    if not query:
        newest = with_sources(live.order_by("-updated_at", "-id"), owner_id)[:limit]
        return [Found(observation, "") for observation in newest]
    # With an entity, look wider: the vector list is cut to k before the entity filter.
    wide = limit if entity is None else 50
    hits = context.search(owner_id, embeddings.embed_one(query), k=wide)
    order = {hit.observation.pk: ("meaning", hit.similarity) for hit in hits}
    if match := memory_search.sanitise(query).match:
        for pk in sql.matching_observations(owner_id=owner_id, match=match, limit=wide):
            order.setdefault(pk, ("keywords", None))
    rows = with_sources(live.filter(pk__in=list(order)), owner_id).in_bulk()
    found = [Found(rows[pk], how, score) for pk, (how, score) in order.items() if pk in rows]
    return found[:limit]
