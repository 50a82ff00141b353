"""The daily observation merge (seed 002): recursive pairwise merging of one member's live
observations that have grown too similar.

The most similar pair above ``merge_above`` cosine is judged first; the model (prompts.MERGE_*)
or the offline rule says "merge" or "keep". A merge moves the other's facts and history to the
keeper (the one with more evidence; on a tie the older), re-embeds the keeper, and the keeper's
similarities are computed again from its new vector, so A+B only joins C if the merged
observation is itself that close to C (no transitive chaining). A pair judged "keep" is not
judged again in the same pass unless one of its texts has changed since, so the loop ends: each
merge removes an observation, and between merges every pair is judged at most once.

The offline rule merges two observations only when all of these hold:
- they are of the same kind (a trend and a state about one thing say different things);
- they are about the same entity (or two entities one of whose names is the other's short
  form, "Rose" and "Grandma Rose"), or, when either has no entity, the same non-empty subject;
- they have the same relation ("swimming", "pickup time"…), or one has none (not known);
- their values are compatible (memories/consolidation/values.py): for each kind of value both
  texts state (times, dates, years, months, weekdays, numbers) the values are the same, and
  both or neither is negated. "Tuesdays at 5pm" and "Tuesday at 17:00" agree; "Tuesdays" and
  "Thursdays" do not, however close their embeddings are (one word apart is often above 0.95).
The merged text is the keeper's (the offline engine does not write sentences it cannot check).

With the model, its merged text must not state a value (a number, a time, a date) that neither
observation states; such an answer falls back to the offline rule like any invalid answer."""

from __future__ import annotations

import logging
from dataclasses import dataclass

import numpy as np
from django.conf import settings

from memories.consolidation import prompts, sql, store
from memories.consolidation.runs import Run
from memories.entities import normalize
from memories.models import Observation
from talkingrock import llm
from talkingrock.language.values import conflicts, invented

log = logging.getLogger(__name__)

OFFLINE = "offline"
# Source facts shown to the model per observation (the newest): enough to see what it rests on.
FACTS_SHOWN = 5


def _config(name: str):
    return settings.TALKINGROCK_CONSOLIDATION[name]


@dataclass(frozen=True)
class Verdict:
    action: str  # "merge" or "keep"
    reason: str
    text: str = ""  # the merged text (empty: the keeper's)
    engine: str = OFFLINE


def keeper_and_other(a: Observation, b: Observation) -> tuple[Observation, Observation]:
    """The keeper has more evidence; on a tie the older one keeps (its history is longer)."""
    first, second = sorted([a, b], key=lambda o: (-o.evidence_count, o.created_at, o.pk))
    return first, second


def _about(observation: Observation) -> str:
    if observation.entity_id is not None and observation.entity is not None:
        return observation.entity.name
    return observation.subject


def same_name(first: str, second: str) -> bool:
    """One name is the other's short form: every word of the shorter is a word of the longer
    ("Rose" and "Grandma Rose", "Dr Patel" and "Patel"); households call people both ways."""
    a, b = set(normalize(first).split()), set(normalize(second).split())
    return bool(a and b) and (a <= b or b <= a)


def decide_offline(a: Observation, b: Observation, similarity: float) -> Verdict:
    """The rule in the module's docstring, with the reason it gives."""
    if a.kind != b.kind:
        return Verdict("keep", f"Different kinds ({a.kind} and {b.kind}).")
    if a.entity_id is not None and b.entity_id is not None:
        if a.entity_id != b.entity_id and not same_name(_about(a), _about(b)):
            return Verdict("keep", f"About different people or things ({_about(a)}, {_about(b)}).")
    elif not a.subject or a.subject.casefold() != b.subject.casefold():
        return Verdict("keep", "Not about the same subject.")
    if a.relation and b.relation and a.relation.casefold() != b.relation.casefold():
        return Verdict(
            "keep", f"Different relations ({a.relation or 'none'}, {b.relation or 'none'})."
        )
    found = conflicts(a.text, b.text)
    if found:
        return Verdict("keep", f"Conflicting values: {'; '.join(found)}.")
    label = f"{_about(a)} / {a.relation}" if a.relation else _about(a)
    return Verdict(
        "merge", f"Same {label}, no conflicting value (cosine {similarity:.2f}); merged offline."
    )


def _shown(observation: Observation) -> str:
    facts = store.newest_facts(observation, FACTS_SHOWN)
    about = " / ".join(x for x in (_about(observation), observation.relation) if x) or "—"
    lines = [
        f"“{observation.text}” (kind {observation.kind}, about {about}, "
        f"{observation.evidence_count} facts)",
        *(f"  fact {store.when(f):%Y-%m-%d}: {f.content[:300]}" for f in facts),
    ]
    return "\n".join(lines)


def decide_with_model(a: Observation, b: Observation, similarity: float) -> Verdict:
    prompt = (
        f"Observation A:\n{_shown(a)}\n\nObservation B:\n{_shown(b)}\n\n"
        f"Their cosine similarity is {similarity:.2f}."
    )
    answer = llm.structured(
        system=prompts.MERGE_SYSTEM,
        prompt=prompt,
        schema=prompts.MERGE_SCHEMA,
        read_timeout=_config("model_timeout"),
    ).value
    engine = f"ollama:{llm.model_name()}"
    reason = " ".join(answer["reason"].split()) or "The model's decision."
    if answer["action"] == "keep":
        return Verdict("keep", reason, engine=engine)
    text = " ".join(answer["text"].split())
    if not text:
        raise llm.LLMError("invalid", "a merge needs the merged text")
    made_up = invented(text, [a.text, b.text])
    if made_up:
        shown = ", ".join(value for _, value in sorted(made_up))
        raise llm.LLMError("invalid", f"the merged text states values neither does: {shown}")
    return Verdict("merge", reason, text=text, engine=engine)


def decide(a: Observation, b: Observation, similarity: float, *, use_model: bool) -> Verdict:
    if use_model:
        try:
            return decide_with_model(a, b, similarity)
        except llm.LLMError as error:
            log.info("The merge falls back to the offline rule: %s", error)
    return decide_offline(a, b, similarity)


class Similarities:
    """The live observations' cosine similarities, kept current as they merge. A pair that
    cannot be chosen (itself, a merged observation, a pair already kept) is at minus infinity."""

    def __init__(self, observations: list[Observation], vectors: np.ndarray):
        self.observations = observations
        self.vectors = vectors.astype(np.float32, copy=True)
        self.alive = np.ones(len(observations), dtype=bool)
        self.matrix = self.vectors @ self.vectors.T
        np.fill_diagonal(self.matrix, -np.inf)
        # (lower id, higher id) → the two texts when the pair was judged "keep"
        self.kept: dict[tuple[int, int], tuple[str, str]] = {}

    @staticmethod
    def _key(a: Observation, b: Observation) -> tuple[tuple[int, int], tuple[str, str]]:
        first, second = sorted([a, b], key=lambda o: o.pk)
        return (first.pk, second.pk), (first.text, second.text)

    def best(self) -> tuple[int, int, float] | None:
        if len(self.observations) < 2:
            return None
        flat = int(np.argmax(self.matrix))
        i, j = divmod(flat, len(self.observations))
        similarity = float(self.matrix[i, j])
        return (i, j, similarity) if np.isfinite(similarity) else None

    def keep_apart(self, i: int, j: int) -> None:
        key, texts = self._key(self.observations[i], self.observations[j])
        self.kept[key] = texts
        self.matrix[i, j] = self.matrix[j, i] = -np.inf

    def merged(self, keeper: int, other: int, vector: np.ndarray) -> None:
        """``other`` is gone; ``keeper`` has a new vector (and perhaps a new text)."""
        self.alive[other] = False
        self.matrix[other, :] = self.matrix[:, other] = -np.inf
        self.vectors[keeper] = vector
        row = self.vectors @ vector
        row[~self.alive] = -np.inf
        row[keeper] = -np.inf
        for j, observation in enumerate(self.observations):
            if self.alive[j] and j != keeper:
                key, texts = self._key(self.observations[keeper], observation)
                if self.kept.get(key) == texts:  # judged with these very texts: stays kept
                    row[j] = -np.inf
        self.matrix[keeper, :] = self.matrix[:, keeper] = row


def _load(owner_id: int) -> tuple[list[Observation], np.ndarray]:
    """The member's live observations that have a vector, oldest first, and their vectors."""
    observations = list(
        store.live(owner_id).select_related("entity").prefetch_related("facts").order_by("pk")
    )
    have = sql.vectors("observation", owner_id=owner_id, ids=[o.pk for o in observations])
    observations = [o for o in observations if o.pk in have]
    return observations, store.vectors_of(owner_id, observations)


def merge_member(owner_id: int, *, use_model=None, progress=None) -> dict:
    """Merge the member's observations that say the same thing; returns the counts: merged,
    kept_apart, pairs_considered (and observations, how many were live at the start)."""
    use_model = llm.status().engine == "ollama" if use_model is None else use_model
    with Run.start(owner_id, Run.MERGE, engine="ollama" if use_model else OFFLINE) as run:
        if run is None:
            return {"busy": 1}
        for name in ("merged", "kept_apart", "pairs_considered"):
            run.count(name, 0)
        observations, vectors = _load(owner_id)
        run.count("observations", len(observations))
        similarities = Similarities(observations, vectors)
        threshold = _config("merge_above")
        while (best := similarities.best()) is not None and best[2] > threshold:
            i, j, similarity = best
            a, b = observations[i], observations[j]
            run.count("pairs_considered")
            verdict = decide(a, b, similarity, use_model=use_model)
            if verdict.action == "keep":
                similarities.keep_apart(i, j)
                run.count("kept_apart")
                if progress:
                    progress(f"kept {a.pk} and {b.pk} apart — {verdict.reason}")
                continue
            keeper, other = keeper_and_other(a, b)
            store.merge(
                keeper,
                other,
                text=verdict.text or keeper.text,
                engine=verdict.engine,
                reason=f"Merged with “{other.text}”: {verdict.reason}",
            )
            run.count("merged")
            k, o = (i, j) if keeper is a else (j, i)
            similarities.merged(k, o, store.vectors_of(owner_id, [keeper])[0])
            if progress:
                progress(f"merged {other.pk} into {keeper.pk} — {verdict.reason}")
        return run.summary
