"""The temporal pass (seed 002), once a day per member: for each entity with ``min_entity_facts``
or more facts in the last ``window_days``, the patterns no single fact states — trends,
transitions, cycles — and, across entities, correlations.

A fact belongs to what it is about, as the per-fact pass decides (facts.key_of: the entity it
names first, or the extraction's subject). Offline the rules of temporal_rules.py find the
patterns. With Ollama the model reads each entity's facts in time order (prompts.TEMPORAL_*) and
names them; when it fails, that entity falls back to the rules. Correlations are always the
rules': the model sees one entity at a time.

Each pattern is written once. A re-run finds the observation it wrote before (same kind, same
entity, same unit, relation or counterpart) and adds the new facts to it, or rewrites it when the
pattern moved on (the earlier text kept in its history); one the member dismissed stays
dismissed. A new pattern within ``enrich_above``
cosine of a live observation enriches that one instead of repeating it."""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Sequence
from datetime import datetime, timedelta

import numpy as np
from django.conf import settings
from django.db.models import F
from django.db.models.functions import Coalesce
from django.utils import timezone

from memories.consolidation import prompts, store
from memories.consolidation import temporal_rules as rules
from memories.consolidation.facts import key_of
from memories.consolidation.runs import Run
from memories.models import Entity, Memory, Observation
from memories.vector_search import own_vectors
from talkingrock import embeddings, llm

log = logging.getLogger(__name__)

# The model sees an entity's newest facts, each cut short: a prompt a small model reads whole.
MODEL_FACTS = 60
MODEL_FACT_CHARS = 300
MODEL_REASON = "Named by the model from the facts in time order."


def _config(name: str):
    return settings.TALKINGROCK_CONSOLIDATION[name]


def recent_facts(owner_id: int, now: datetime) -> list[Memory]:
    """The member's indexed facts (their vectors and entities written) that happened in the
    window, oldest first."""
    cutoff = now - timedelta(days=_config("window_days"))
    window = (
        store.facts_of(owner_id)
        .filter(indexed_hash=F("content_hash"))
        .annotate(moment=Coalesce("happened_at", "created_at"))
        .filter(moment__gte=cutoff, moment__lte=now)
        .select_related("owner")
        .order_by("moment", "pk")
    )
    return list(store.with_mentions(window))


def entity_series(facts: Sequence[Memory]) -> list[rules.Series]:
    """The facts by what they are about; only those with enough facts, by label."""
    grouped: dict[tuple[int | None, str], list[Memory]] = defaultdict(list)
    for fact in facts:
        if (key := key_of(fact)) is not None:
            grouped[(key.entity_id, key.subject)].append(fact)
    names = Entity.objects.in_bulk([entity_id for entity_id, _ in grouped if entity_id])
    series = [
        rules.Series(
            names[entity_id].name if entity_id in names else subject,
            subject,
            entity_id,
            tuple(found),
        )
        for (entity_id, subject), found in grouped.items()
        if len(found) >= _config("min_entity_facts")
    ]
    return sorted(series, key=lambda s: (s.label.casefold(), s.key))


def _vectors(facts: Sequence[Memory]) -> dict[int, np.ndarray]:
    found = own_vectors([fact.pk for fact in facts])
    return {pk: np.frombuffer(blob, dtype=np.float32) for pk, (_, blob) in found.items()}


def model_patterns(series: rules.Series) -> list[rules.Pattern]:
    """One question per entity: its newest facts with their dates, the patterns in them. Raises
    llm.LLMError when the model gives no usable answer."""
    shown = series.facts[-MODEL_FACTS:]
    lines = [
        f"{rules.local(fact):%Y-%m-%d %a}: {' '.join(fact.content.split())[:MODEL_FACT_CHARS]}"
        for fact in shown
    ]
    answer = llm.structured(
        system=prompts.TEMPORAL_SYSTEM,
        prompt=f"Subject: {series.label}\nFacts, oldest first:\n" + "\n".join(lines),
        schema=prompts.TEMPORAL_SCHEMA,
        read_timeout=_config("model_timeout"),
    ).value
    found = []
    for item in answer["patterns"]:
        if text := " ".join(item["text"].split()):
            found.append(
                rules.Pattern(
                    item["kind"], text, shown, series.subject, series.entity_id, "", MODEL_REASON
                )
            )
    return found


class _Writer:
    """Writes a run's patterns: each to its own observation from an earlier run, to a near
    duplicate, or to a new one. Answers what it did, for the run's counts."""

    def __init__(self, owner_id: int):
        self.owner_id = owner_id
        self.matched: set[int] = set()  # observations a pattern of this run already took

    def write(self, pattern: rules.Pattern, engine: str) -> str:
        vector = embeddings.embed_one(pattern.text)
        own = self._own(pattern, vector)
        if own is not None:
            self.matched.add(own.pk)
            if own.dismissed:  # the member said no to this pattern: it does not come back
                return "dismissed"
            if own.text == pattern.text or own.user_edited:  # the member's words stay
                return self._more_evidence(own, pattern.facts, pattern.reason)
            store.update(
                own, pattern.text, self._new(own, pattern.facts), engine=engine,
                reason=f"The pattern moved on. {pattern.reason}",
            )  # fmt: skip
            return "updated"
        for observation, similarity in store.nearest(self.owner_id, vector, k=5):
            if similarity <= _config("enrich_above"):
                break
            if not self._sibling(observation, pattern):
                reason = f"{pattern.text} (cosine {similarity:.2f}: the same pattern)"
                return self._more_evidence(observation, pattern.facts, reason)
        store.create(
            self.owner_id, pattern.draft(), pattern.facts, engine=engine, reason=pattern.reason
        )
        return str(pattern.kind)  # the run's counts are plain JSON

    def _same_about(self, pattern: rules.Pattern):
        # Dismissed ones too (they hold their pattern's place); merged ones live on in another.
        found = Observation.objects.filter(
            owner_id=self.owner_id, kind=pattern.kind, merged_into=None
        )
        if pattern.entity_id is not None:
            return found.filter(entity_id=pattern.entity_id)
        return found.filter(entity=None, subject=pattern.subject[:200])

    def _own(self, pattern: rules.Pattern, vector: np.ndarray) -> Observation | None:
        """The observation an earlier run wrote for this pattern: same kind, entity and
        relation (its unit, relation or counterpart); if several, the one sharing most facts
        with it, then the closest in meaning (the model's patterns have no relation)."""
        candidates = list(
            self._same_about(pattern)
            .filter(relation=pattern.relation[:100])
            .exclude(pk__in=self.matched)
            .order_by("pk")
        )
        if len(candidates) <= 1:
            return candidates[0] if candidates else None
        ids = [fact.pk for fact in pattern.facts]
        overlap = {o.pk: o.facts.filter(pk__in=ids).count() for o in candidates}
        similarity = store.vectors_of(self.owner_id, candidates) @ vector
        ranked = zip(candidates, similarity.tolist(), strict=True)
        return max(ranked, key=lambda pair: (overlap[pair[0].pk], pair[1]))[0]

    def _sibling(self, observation: Observation, pattern: rules.Pattern) -> bool:
        """Another pattern of the same kind about the same entity (another unit, relation or
        counterpart): similar wording, a different pattern."""
        return (
            observation.kind == pattern.kind
            and observation.relation != pattern.relation[:100]
            and self._same_about(pattern).filter(pk=observation.pk).exists()
        )

    @staticmethod
    def _new(observation: Observation, facts: Sequence[Memory]) -> list[Memory]:
        known = set(observation.facts.values_list("pk", flat=True))
        return [fact for fact in facts if fact.pk not in known]

    def _more_evidence(self, observation: Observation, facts, reason: str) -> str:
        new = self._new(observation, facts)
        if not new:
            return "unchanged"
        store.enrich(observation, new, reason=reason)
        return "enriched"


def temporal_member(
    owner_id: int, *, use_model: bool | None = None, progress=None, now: datetime | None = None
) -> dict:
    """The temporal pass over one member's recent facts; answers the run's counts."""
    use_model = llm.status().engine == "ollama" if use_model is None else use_model
    now = now or timezone.now()
    with Run.start(owner_id, Run.TEMPORAL, engine="ollama" if use_model else "offline") as run:
        if run is None:
            return {"busy": 1}
        facts = recent_facts(owner_id, now)
        groups = entity_series(facts)
        vectors = _vectors(facts)
        writer = _Writer(owner_id)
        for series in groups:
            run.count("entities")
            patterns, engine = None, "offline"
            if use_model:
                try:
                    patterns, engine = model_patterns(series), f"ollama:{llm.model_name()}"
                except llm.LLMError as error:
                    log.info("The temporal pass falls back to the offline rules: %s", error)
                    run.count("fallback")
            if patterns is None:
                patterns = rules.patterns_of(series, vectors)
            for pattern in patterns:
                run.count(writer.write(pattern, engine))
            if progress:
                progress(f"{series.label}: {len(patterns)} pattern(s) ({engine})")
        active_weeks = len({rules.week(rules.local(fact)) for fact in facts})
        for pattern in rules.correlations(groups, active_weeks):
            run.count(writer.write(pattern, "offline"))
        return run.summary
