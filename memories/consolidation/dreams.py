"""The daily dream pass (seed 002): cross-domain insights from a member's facts.

1. k-means over the member's fact embeddings (memories/consolidation/clusters.py: fixed seed,
   k = round(sqrt(n / 2)) between 2 and 12; a member with fewer than 12 facts is skipped);
2. for the cluster pairs, most distant centroids first, each cluster's core facts (nearest its
   centroid) and supporters;
3. with Ollama, the model looks for patterns, dependencies or ironic contradictions between the
   two areas (prompts.DREAM_*) for the few most distant pairs, and then ONE evaluator call
   (prompts.EVALUATE_*) over all the candidates keeps the one to three that would surprise.
   Nothing it says is trusted: a candidate stating a number or a date its facts do not state is
   dropped before the evaluator sees it, and the evaluator's numbers must name a candidate, once,
   with a finite score. Offline (or when the model fails): measurable bridges between distant
   clusters (memories/consolidation/dream_rules.py);
4. the survivors, at most ``dreams_max``, are stored as dreams with both sides' facts, the
   reason, the score and the engine, and their embedding in ``dream_vec``.

A dream with the same two fact sets as one the member already has (kept, dismissed or neither)
is not stored again. Dreams never feed recall: nothing in memories/recall reads them."""

from __future__ import annotations

import logging
import math

import numpy as np
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from memories.consolidation import prompts, sql, store
from memories.consolidation.clusters import Clusters, cluster, facts_with_vectors, min_facts
from memories.consolidation.dream_rules import OFFLINE, Candidate, offline_dreams
from memories.consolidation.runs import Run
from memories.models import Dream, Memory
from talkingrock import embeddings, llm
from talkingrock.language.values import invented

log = logging.getLogger(__name__)

MODEL_PAIRS = 3  # cluster pairs shown to the model, the most distant first (one call each)
GROUNDING = 2  # facts of each side a model's insight is stored with: the nearest to its text
EVALUATOR_MAX = 3  # the evaluator keeps one to three, whatever dreams_max says


def _config(name: str):
    return settings.TALKINGROCK_CONSOLIDATION[name]


def _line(fact: Memory) -> str:
    return f"- {store.when(fact):%Y-%m-%d}: {' '.join(fact.content.split())[:300]}"


def _area(clusters: Clusters, cluster: int, name: str) -> tuple[str, list[Memory]]:
    core, supporters = clusters.core(cluster), clusters.supporters(cluster)
    lines = [f"Area {name}, core facts:", *map(_line, core)]
    if supporters:
        lines += [f"Area {name}, supporters:", *map(_line, supporters)]
    return "\n".join(lines), [*core, *supporters]


def _nearest(vector: np.ndarray, facts: list[Memory], clusters: Clusters) -> list[Memory]:
    index = {f.pk: i for i, f in enumerate(clusters.facts)}
    ranked = sorted(facts, key=lambda f: (-float(clusters.vectors[index[f.pk]] @ vector), f.pk))
    return ranked[:GROUNDING]


def model_candidates(clusters: Clusters, run: Run) -> list[Candidate]:
    """The model's insights for the most distant pairs; an insight is stored with the facts of
    each side nearest to it, and dropped if it states a value its facts do not."""
    found: list[Candidate] = []
    for distance, a, b in clusters.pairs()[:MODEL_PAIRS]:
        text_a, shown_a = _area(clusters, a, "A")
        text_b, shown_b = _area(clusters, b, "B")
        try:
            answer = llm.structured(
                system=prompts.DREAM_SYSTEM,
                prompt=f"{text_a}\n\n{text_b}",
                schema=prompts.DREAM_SCHEMA,
                read_timeout=_config("model_timeout"),
            ).value
        except llm.LLMError as error:
            log.info("No dream from clusters %s and %s: %s", a, b, error)
            run.count("model_failures")
            continue
        sources = [_line(f) for f in (*shown_a, *shown_b)]
        texts = [" ".join(str(i.get("text", "")).split()) for i in answer["insights"][:3]]
        texts = [t for t in texts if t]
        vectors = embeddings.embed(texts)
        for text, vector in zip(texts, vectors, strict=True):
            if invented(text, sources) or any(text == c.text for c in found):
                run.count("candidates_dropped")
                continue
            found.append(
                Candidate(
                    text,
                    _nearest(vector, shown_a, clusters),
                    _nearest(vector, shown_b, clusters),
                    reason=f"Clusters {distance:.2f} apart (cosine distance of centroids).",
                )
            )
    return found


def evaluate(candidates: list[Candidate], *, limit: int, run: Run) -> list[Candidate]:
    """ONE evaluator call over every candidate; the kept ones, best first, at most ``limit``.
    A number that names no candidate, or one already kept, is ignored; so is a score that is
    not a number between 0 and 1."""
    blocks = []
    for number, candidate in enumerate(candidates, start=1):
        lines = [f"Candidate {number}: {candidate.text}"]
        lines += [f"  {_line(f)[2:]}" for f in (*candidate.facts_a, *candidate.facts_b)]
        blocks.append("\n".join(lines))
    answer = llm.structured(
        system=prompts.EVALUATE_SYSTEM,
        prompt="\n\n".join(blocks),
        schema=prompts.EVALUATE_SCHEMA,
        read_timeout=_config("model_timeout"),
    ).value
    chosen: dict[int, Candidate] = {}
    for item in answer["kept"]:
        number, score = item.get("number"), item.get("score")
        valid = (
            isinstance(number, int)
            and not isinstance(number, bool)
            and 1 <= number <= len(candidates)
            and number not in chosen
            and isinstance(score, int | float)
            and math.isfinite(score)
            and 0.0 <= score <= 1.0
        )
        if not valid:
            run.count("evaluator_invalid")
            continue
        candidate = candidates[number - 1]
        reason = " ".join(str(item.get("reason", "")).split()) or "Kept by the evaluator."
        candidate.reason = (
            f"{reason} (Evaluator's score {float(score):.2f}; "
            f"candidate {number} of {len(candidates)}.)"
        )
        candidate.score = float(score)
        candidate.engine = f"ollama:{llm.model_name()}"
        chosen[number] = candidate
    kept = sorted(chosen.items(), key=lambda item: (-item[1].score, item[0]))
    return [candidate for _, candidate in kept[: min(limit, EVALUATOR_MAX)]]


def _known(owner_id: int) -> set[frozenset]:
    """The fact sets of the member's dreams, each as {side a, side b} (either way round)."""
    return {
        frozenset(
            {
                frozenset(f.pk for f in dream.facts_a.all()),
                frozenset(f.pk for f in dream.facts_b.all()),
            }
        )
        for dream in Dream.objects.filter(owner_id=owner_id).prefetch_related("facts_a", "facts_b")
    }


def _sides(candidate: Candidate) -> frozenset:
    return frozenset(
        {frozenset(f.pk for f in candidate.facts_a), frozenset(f.pk for f in candidate.facts_b)}
    )


def save(owner_id: int, candidates: list[Candidate], *, now, run: Run) -> list[Dream]:
    """Store the candidates not already dreamt; their vectors are computed before the write."""
    known = _known(owner_id)
    fresh = [c for c in candidates if _sides(c) not in known]
    run.count("already_dreamt", len(candidates) - len(fresh))
    vectors = embeddings.embed([c.text for c in fresh])
    saved = []
    for candidate, vector in zip(fresh, vectors, strict=True):
        with transaction.atomic():
            dream = Dream.objects.create(
                owner_id=owner_id,
                text=candidate.text,
                reason=candidate.reason[:2000],
                score=candidate.score,
                engine=candidate.engine,
                created_at=now,
            )
            dream.facts_a.set(candidate.facts_a)
            dream.facts_b.set(candidate.facts_b)
            sql.replace_vectors("dream", [(dream.pk, owner_id, embeddings.to_blob(vector))])
        saved.append(dream)
    return saved


def keep_the_best(owner_id: int, limit: int) -> int:
    """At most ``limit`` dreams wait for the member at a time: the best by score (the newer on a
    tie). Those that fall out were never looked at and are removed; kept and dismissed ones are
    the member's and stay. Returns how many went."""
    waiting = Dream.objects.filter(owner_id=owner_id, kept_at=None, dismissed=False)
    beyond = list(waiting.order_by("-score", "-created_at", "-id").values_list("pk", flat=True))
    if len(beyond) <= limit:
        return 0
    return Dream.objects.filter(pk__in=beyond[limit:]).delete()[1].get("memories.Dream", 0)


def dream_member(owner_id: int, *, use_model=None, progress=None, now=None) -> dict:
    """Dream for one member; returns the counts (facts, clusters, candidates, dreams…)."""
    use_model = llm.status().engine == "ollama" if use_model is None else use_model
    now = now or timezone.now()
    limit = max(0, int(_config("dreams_max")))
    with Run.start(owner_id, Run.DREAM, engine="ollama" if use_model else OFFLINE) as run:
        if run is None:
            return {"busy": 1}
        facts, vectors = facts_with_vectors(owner_id)
        run.count("facts", len(facts))
        if len(facts) < min_facts():
            run.count("min_facts", min_facts())
            run.count("too_few_facts")
            if progress:
                progress(f"{len(facts)} embedded facts, fewer than {min_facts()}: no dreams yet")
            return run.summary
        clusters = cluster(facts, vectors)
        run.count("clusters", clusters.k)
        kept: list[Candidate] | None = None
        if use_model and limit:
            candidates = model_candidates(clusters, run)
            run.count("candidates", len(candidates))
            if candidates:
                try:
                    kept = evaluate(candidates, limit=limit, run=run)
                except llm.LLMError as error:
                    log.info("The dream evaluator falls back to the offline rule: %s", error)
                    run.count("model_failures")
        if kept is None:
            kept = offline_dreams(clusters, limit=limit, now=now)
            run.count("candidates", len(kept))
        saved = save(owner_id, kept, now=now, run=run)
        run.count("dreams", len(saved))
        run.count("replaced", keep_the_best(owner_id, limit))
        if progress:
            for dream in saved:
                progress(
                    f"dream {dream.pk} ({dream.engine}, score {dream.score:.2f}): {dream.text}"
                )
        return run.summary
