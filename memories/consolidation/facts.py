"""Per-fact consolidation (seed 002), every 30 seconds: each fact not yet consolidated is set
beside the member's five observations most like it, with their source facts in time order, and
the observations are updated, one is created, or the fact is skipped.

With Ollama the model decides (prompts.DECIDE_*), seeing the change history and the facts'
dates. Offline the rule is deterministic and says why: a fact has a key (the entity it is about
and its relation, from the extraction), and
- an observation with the same key that the fact agrees with (cosine ≥ ``agree``) gains it as
  evidence; one it does not agree with is updated to the later value, the earlier text kept in
  its history ("previously …");
- with no such observation, the facts of the same key (two or more) become one, oldest first,
  so that its history shows each change; a lone fact is skipped until a second one joins it.
Every fact looked at is stamped ``consolidated_at``, whatever was decided."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

import numpy as np
from django.conf import settings
from django.db import transaction
from django.db.models import Max, Q
from django.db.models.functions import Coalesce
from django.utils import timezone

from memories import search
from memories.consolidation import prompts, store
from memories.consolidation.runs import Run
from memories.models import Entity, Memory, Mention, Observation
from memories.named import query_entities
from memories.vector_search import own_vectors
from talkingrock import llm
from talkingrock.language.values import values_of

log = logging.getLogger(__name__)

# Entities a fact is "about", most telling first (a named person over a place or a thing).
_KIND_ORDER = {"person": 0, "organisation": 1, "project": 2, "place": 3, "other": 4}


def _config(name: str):
    return settings.TALKINGROCK_CONSOLIDATION[name]


@dataclass(frozen=True)
class Key:
    """What a fact is about: the entity (or the extraction's subject) and the relation, and,
    for a fact about an entity that names its own subject, that subject (``topic``): Maya's
    dentist appointment and Maya's school pickup are two things about Maya, and a fact joins an
    observation's history only when it is about the same thing and the same relation."""

    subject: str
    relation: str
    entity_id: int | None = None
    topic: str = ""

    @property
    def label(self) -> str:
        about = f"{self.subject} ({self.topic})" if self.topic else self.subject
        return f"{about} / {self.relation}" if self.relation else about

    @property
    def stored_subject(self) -> str:
        """What the observation's ``subject`` holds: the topic when there is one."""
        return self.topic or self.subject


def _entities_of(fact: Memory) -> list[Entity]:
    """The entities a fact is about, the first named first (a sentence names what it is about
    before what it says of it): its mentions (not the names it only speaks to), and the
    member's known entities it names however it spells them ("priya" for Priya: chat is often
    lowercase, and the entity rules see only capitalised names)."""
    surfaces = {m.entity.pk: m.surface for m in fact.mentions.all() if not m.addressed}
    entities = {m.entity.pk: m.entity for m in fact.mentions.all() if not m.addressed}
    for entity_id, named in query_entities(fact.owner, fact.content, 1).items():
        surfaces.setdefault(entity_id, named.surfaces[0])
    entities |= Entity.objects.in_bulk([pk for pk in surfaces if pk not in entities])
    text = fact.content.casefold()

    def place(entity: Entity) -> tuple[int, int, int]:
        at = text.find(surfaces[entity.pk].casefold())
        return (at if at >= 0 else len(text), _KIND_ORDER.get(entity.kind, 9), entity.pk)

    return sorted(entities.values(), key=place)


def key_of(fact: Memory) -> Key | None:
    relation = fact.relation or ""
    if entities := _entities_of(fact):
        topic = (fact.subject or "").lower()
        topic = "" if topic == entities[0].normalized else topic
        return Key(entities[0].normalized, relation, entities[0].pk, topic)
    if fact.subject:
        return Key(fact.subject.lower(), relation)
    return None


def same_key_facts(owner_id: int, key: Key) -> list[Memory]:
    """The key's newest ``key_facts`` facts: enough to start an observation with its history,
    bounded however often a name comes up (a partner named in thousands of facts)."""
    facts = store.facts_of(owner_id).filter(relation=key.relation)
    if key.topic:
        facts = facts.filter(subject__iexact=key.topic)
    if key.entity_id is not None:
        entity = Entity.objects.get(pk=key.entity_id)
        mentioned = Mention.objects.filter(entity=entity, addressed=False).values("memory_id")
        named = search.ids_naming(owner_id=owner_id, name=entity.name, limit=_config("key_scan"))
        facts = facts.filter(Q(pk__in=mentioned) | Q(pk__in=named))
    else:
        facts = facts.filter(subject__iexact=key.subject)
    newest = facts.order_by(Coalesce("happened_at", "created_at").desc(), "-id")
    return list(newest[: _config("key_facts")])


def observation_for(owner_id: int, key: Key, vector=None) -> Observation | None:
    """The observation of the key. With a relation it is the one (the relation names the
    property); without one, a key holds one observation per topic, and the fact's is the one
    nearest in meaning, if any is as near as ``same_topic``."""
    found = store.live(owner_id).filter(kind=Observation.Kind.STATE, relation=key.relation)
    if key.entity_id is not None:
        found = found.filter(entity_id=key.entity_id)
        if key.topic:
            found = found.filter(subject=key.topic)
    else:
        found = found.filter(entity=None, subject=key.subject)
    found = list(found.order_by("-updated_at", "-id"))
    if key.relation or not found:
        return found[0] if found else None
    if vector is None:
        return None
    similarity = store.vectors_of(owner_id, found) @ vector
    best = int(np.argmax(similarity))
    return found[best] if similarity[best] >= _config("same_topic") else None


def same_topic_facts(owner_id: int, key: Key, fact: Memory, vector) -> list[Memory]:
    """The other facts of the key, and without a relation only those on the fact's topic."""
    others = [f for f in same_key_facts(owner_id, key) if f.pk != fact.pk]
    if key.relation or not others:
        return others
    if vector is None:
        return []
    stored = own_vectors([f.pk for f in others])
    return [
        f
        for f in others
        if f.pk in stored
        and float(np.frombuffer(stored[f.pk][1], dtype=np.float32) @ vector)
        >= _config("same_topic")
    ]


@dataclass
class Decision:
    action: str  # "create", "update", "enrich" or "skip"
    reason: str
    observation: Observation | None = None
    text: str = ""
    facts: list[Memory] = field(default_factory=list)


def _vector(fact: Memory) -> np.ndarray | None:
    found = own_vectors([fact.pk]).get(fact.pk)
    return np.frombuffer(found[1], dtype=np.float32) if found else None


def _agrees(observation: Observation, vector: np.ndarray | None) -> float:
    if vector is None:
        return 0.0
    stored = store.vectors_of(observation.owner_id, [observation])
    return float(stored[0] @ vector) if len(stored) else 0.0


def _newest_source(observation: Observation):
    """When the newest of its facts happened (one query, however much evidence it has)."""
    return observation.facts.aggregate(newest=Max(Coalesce("happened_at", "created_at")))["newest"]


def _against(existing: Observation, fact: Memory, vector, label: str) -> Decision:
    """A fact beside the observation of its key: more evidence, history, or the new value.

    When both state values (a time, an amount), the values decide: the same values agree,
    others are a new value. Otherwise meaning decides: cosine ≥ ``agree`` agrees."""
    similarity = _agrees(existing, vector)
    newest = _newest_source(existing)
    mine, theirs = values_of(fact.content).all(), values_of(existing.text).all()
    if mine and theirs:
        agrees, why = mine <= theirs, f"values {', '.join(sorted(v for _, v in mine))}"
    else:
        agrees, why = similarity >= _config("agree"), f"cosine {similarity:.2f}"
    if agrees:
        return Decision("enrich", f"Agrees with it ({why}).", existing)
    if newest is not None and store.when(fact) < newest:
        return Decision("enrich", f"An earlier value of {label}; kept as history.", existing)
    reason = f"A later value of {label} replaces the earlier one ({why})."
    return Decision("update", reason, existing, text=fact.content)


def decide_offline(fact: Memory, vector: np.ndarray | None) -> Decision:
    key = key_of(fact)
    if key is None:
        return Decision("skip", "No entity or subject to hang it on.")
    if (existing := observation_for(fact.owner_id, key, vector)) is not None:
        return _against(existing, fact, vector, key.label)
    others = same_topic_facts(fact.owner_id, key, fact, vector)
    if not others:
        return Decision("skip", f"The only fact on {key.label} so far; waiting for a second.")
    facts = sorted([*others, fact], key=lambda f: (store.when(f), f.pk))
    return Decision("create", f"{len(facts)} facts on {key.label}.", facts=facts)


def _candidates_text(candidates: list[tuple[Observation, float]]) -> str:
    blocks = []
    for observation, similarity in candidates:
        facts = store.newest_facts(observation, 8)
        lines = [f"[observation {observation.pk}] {observation.text} (cosine {similarity:.2f})"]
        lines += [f"  fact {store.when(f):%Y-%m-%d}: {f.content[:300]}" for f in facts]
        lines += [
            f"  changed {c.changed_at:%Y-%m-%d}: was “{c.previous_text[:200]}”"
            for c in observation.changes.filter(kind="updated").order_by("-changed_at")[:3]
        ]
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks) or "(no observations yet)"


def decide_with_model(fact: Memory, vector: np.ndarray | None) -> Decision:
    candidates = store.nearest(fact.owner_id, vector, k=5) if vector is not None else []
    prompt = (
        f"New fact ({store.when(fact):%Y-%m-%d}): {fact.content[:1000]}\n\n"
        f"Observations most like it:\n{_candidates_text(candidates)}"
    )
    answer = llm.structured(
        system=prompts.DECIDE_SYSTEM,
        prompt=prompt,
        schema=prompts.DECIDE_SCHEMA,
        read_timeout=_config("model_timeout"),
    ).value
    action, text = answer["action"], " ".join(answer["text"].split())
    by_id = {observation.pk: observation for observation, _ in candidates}
    if action == "update" and (answer["observation_id"] not in by_id or not text):
        raise llm.LLMError("invalid", "an update must name one of the offered observations")
    if action == "create" and not text:
        raise llm.LLMError("invalid", "a new observation needs its text")
    observation = by_id.get(answer["observation_id"]) if action == "update" else None
    if observation is not None and not same_thing(observation, fact):
        # A history holds one thing's changes: the model may not chain another subject or
        # relation into it ("the dentist … previously: who does the school pickup").
        raise llm.LLMError("invalid", "an update must be about the observation's subject")
    return Decision(action, answer["reason"], observation, text=text)


def same_thing(observation: Observation, fact: Memory) -> bool:
    """Whether a fact is about what the observation is about: the same relation, when both
    have one, and the same subject or entity (what ``key_of`` keys the fact by)."""
    key = key_of(fact)
    if key is None:
        return False
    if observation.relation and key.relation and observation.relation != key.relation:
        return False
    if key.entity_id is not None and observation.entity_id not in (None, key.entity_id):
        return False
    if key.topic and observation.subject and observation.subject != key.topic:
        return observation.subject == key.subject
    return True


def _claim(fact: Memory) -> bool:
    """Stamp the fact consolidated, unless another run already did (repeat-safe)."""
    stamped = Memory.objects.filter(pk=fact.pk, consolidated_at=None)
    return bool(stamped.update(consolidated_at=timezone.now()))


def apply(fact: Memory, decision: Decision, engine: str) -> str:
    """Write the decision; returns what was done. Embedding happens before each short write."""
    with transaction.atomic():
        if not _claim(fact):
            return "taken"
    if decision.action == "enrich":
        store.enrich(decision.observation, [fact], reason=decision.reason)
    elif decision.action == "update":
        own = _vector(fact) if decision.text == fact.content else None  # its words: its vector
        store.update(
            decision.observation,
            decision.text,
            [fact],
            engine=engine,
            reason=decision.reason,
            vector=own,
        )
    elif decision.action == "create" and decision.facts:  # offline: oldest first, as it changed
        Memory.objects.filter(  # the others join now; they need no pass of their own
            pk__in=[f.pk for f in decision.facts], consolidated_at=None
        ).update(consolidated_at=timezone.now())
        first, *rest = decision.facts
        key = key_of(fact)
        draft = store.Draft(
            first.content,
            subject=key.stored_subject,
            relation=key.relation,
            entity_id=key.entity_id,
        )
        observation = store.create(
            fact.owner_id,
            draft,
            [first],
            engine=engine,
            reason=decision.reason,
            vector=_vector(first),
        )
        for later in rest:
            vector = _vector(later)
            follow = _against(observation, later, vector, key.label)
            if follow.action == "update":
                store.update(
                    observation,
                    later.content,
                    [later],
                    engine=engine,
                    reason=follow.reason,
                    vector=vector,
                )
            else:
                store.enrich(observation, [later], reason=follow.reason)
    elif decision.action == "create":
        key = key_of(fact) or Key("", "")
        draft = store.Draft(
            decision.text,
            kind=Observation.Kind.PATTERN,
            subject=key.stored_subject,
            relation=key.relation,
            entity_id=key.entity_id,
        )
        store.create(fact.owner_id, draft, [fact], engine=engine, reason=decision.reason)
    return decision.action


def consolidate_member(
    owner_id: int, *, limit: int | None = None, use_model=None, progress=None
) -> dict:
    """Consolidate up to ``limit`` of the member's pending facts, one at a time, oldest first."""
    if not store.pending(owner_id).exists():
        return {}  # nothing waits: no run is recorded (the schedule asks every 30 seconds)
    use_model = llm.status().engine == "ollama" if use_model is None else use_model
    with Run.start(owner_id, Run.CONSOLIDATE, engine="ollama" if use_model else "offline") as run:
        if run is None:
            return {"busy": 1}
        pending = store.with_mentions(store.pending(owner_id).select_related("owner"))
        for fact in pending[: limit or _config("batch")]:
            vector = _vector(fact)
            engine = "offline"
            decision = None
            if use_model:
                try:
                    decision = decide_with_model(fact, vector)
                    engine = f"ollama:{llm.model_name()}"
                except llm.LLMError as error:
                    log.info("Consolidation falls back to the offline rule: %s", error)
            decision = decision or decide_offline(fact, vector)
            done = apply(fact, decision, engine)
            run.count(done)
            if progress:
                progress(f"fact {fact.pk}: {done} — {decision.reason}")
        return run.summary
