"""The three reasoning stages with memory (seed 003, phase 4): classify, decompose, verify. Each
gathers its context (its own recall, with a trail), asks the model when Ollama answers (the
seed's prompts, JSON-schema answers) and falls back to the offline rules when it does not, then
records which memories shaped it and how, on its recall trail."""

from __future__ import annotations

import logging
import time
from typing import Any

from conversations.models import Classification
from conversations.reasoning import offline, prompts
from conversations.reasoning.context import Context, gather, record_influence
from memories.models import InfluenceType
from talkingrock import llm

log = logging.getLogger(__name__)


def _lines(hits) -> str:
    rows = [f"- [id:{hit.memory_id}] {' '.join(hit.memory.content.split())[:300]}" for hit in hits]
    return "\n".join(rows) or "(none)"


def _threads(context: Context, types: tuple[str, ...] = ()) -> str:
    rows = [
        f"- [id:{item.memory_id}] {item.get_type_display()}: {item.text}"
        for item, _ in context.items
        if not types or item.type in types
    ]
    return "\n".join(rows[:8]) or "(none)"


def _reading_of(classification: Classification) -> offline.Reading:
    """A stored classification as the offline stages read it."""
    return offline.Reading(
        classification.destination,
        classification.consumer,
        classification.semantics,
        classification.confidence,
        classification.reasoning,
        classification.needs_clarification,
        classification.clarification,
    )


def _use_model() -> bool:
    return llm.status().engine == "ollama"


def _model_influence(context: Context, used: list[dict[str, Any]]) -> None:
    """What the model says it used, kept only for memories it was shown."""
    shown = {hit.memory_id for hit in context.hits} | {item.memory_id for item, _ in context.items}
    for entry in used:
        if entry["id"] in shown:
            context.influence(
                entry["id"], InfluenceType(entry["influence_type"]), entry["score"], entry["reason"]
            )


def _model_classify(context: Context, timeout: float | None) -> offline.Reading:
    answer = llm.structured(
        system=prompts.CLASSIFY_SYSTEM,
        prompt=prompts.CLASSIFY_PROMPT.format(
            request=context.request, memories=_lines(context.hits), threads=_threads(context)
        ),
        schema=prompts.CLASSIFY_SCHEMA,
        read_timeout=timeout,
    ).value
    _model_influence(context, answer.get("memory_used", []))
    return offline.Reading(
        destination=answer["destination_type"],
        consumer=answer["consumer_type"],
        semantics=answer["execution_semantics"],
        confidence=round(float(answer["confidence"]), 2),
        reasoning=answer.get("reasoning", ""),
        needs_clarification=answer["needs_clarification"],
        clarification=answer.get("clarification_question", "")
        if answer["needs_clarification"]
        else "",
    )


def classify_with_memory(
    owner,
    request: str,
    *,
    message=None,
    top_k: int = 5,
    use_model: bool | None = None,
    timeout: float | None = None,
    found=None,
) -> Classification:
    """Read ``request`` with the member's memories: destination × consumer × semantics, how
    sure, whether to ask first. Stored, with its trail (``explain_classification`` reads it).
    ``timeout`` bounds the model's answer (a chat reply has a budget); ``found`` is the recall a
    chat turn already made for the message (its influences are marked on that trail)."""
    started = time.perf_counter()
    context = gather(owner, request, purpose="classify", message=message, top_k=top_k, found=found)
    engine = "offline"
    reading = None
    if _use_model() if use_model is None else use_model:
        try:
            reading = _model_classify(context, timeout)
            engine = f"ollama:{llm.model_name()}"
        except llm.LLMError as error:
            log.info("Classification falls back to the offline rules: %s", error.message)
    if reading is None:
        reading = offline.classify(context)
    record_influence(context)
    classification = Classification.objects.create(
        owner=owner,
        message=message,
        request=request,
        destination=reading.destination,
        consumer=reading.consumer,
        semantics=reading.semantics,
        confidence=min(max(reading.confidence, 0.0), 1.0),
        needs_clarification=reading.needs_clarification,
        clarification=reading.clarification,
        reasoning=reading.reasoning,
        engine=engine,
        recall_id=context.found.recall_id,
    )
    log.debug("classified in %.1f ms", (time.perf_counter() - started) * 1000)
    return classification


def decompose_with_memory(classification: Classification, *, use_model=None) -> list[dict]:
    """Ordered atomic steps for the classified request, informed by similar past tasks, the
    decisions that constrain it and the open blockers; stored on the classification."""
    owner, request = classification.owner, classification.request
    context = gather(owner, request, purpose="decompose", message=classification.message)
    steps = None
    if _use_model() if use_model is None else use_model:
        try:
            answer = llm.structured(
                system=prompts.DECOMPOSE_SYSTEM,
                prompt=prompts.DECOMPOSE_PROMPT.format(
                    request=request,
                    label=classification.label,
                    tasks=_threads(context, ("task",)),
                    decisions=_lines(context.hits),
                    blockers=_threads(context, ("waiting_on", "question_opened")),
                ),
                schema=prompts.DECOMPOSE_SCHEMA,
            ).value
            shown = {hit.memory_id for hit in context.hits}
            steps = answer["steps"]
            for step in steps:
                step["memory_ids"] = [i for i in step.get("memory_ids", []) if i in shown]
                for memory_id in step["memory_ids"]:
                    context.influence(
                        memory_id, InfluenceType.PATTERN_MATCH, 0.5, f"informed: {step['action']}"
                    )
        except llm.LLMError as error:
            log.info("Decomposition falls back to the offline rules: %s", error.message)
    if steps is None:
        steps = offline.decompose(context, _reading_of(classification))
    record_influence(context)
    classification.steps = steps
    classification.trails = {**classification.trails, "decompose": context.found.recall_id}
    classification.save(update_fields=["steps", "trails"])
    return steps


def verify_intent_with_memory(
    classification: Classification, *, action: str = "", use_model=None
) -> dict[str, Any]:
    """Whether the reading matches what the member's memories say they mean: confidence, the
    memories that support and that conflict, and another reading when it is below 0.7."""
    owner, request = classification.owner, classification.request
    action = action or f"{classification.semantics} “{request}”"
    context = gather(owner, request, purpose="verify", message=classification.message)
    result = None
    if _use_model() if use_model is None else use_model:
        try:
            result = llm.structured(
                system=prompts.VERIFY_SYSTEM,
                prompt=prompts.VERIFY_PROMPT.format(
                    request=request,
                    label=classification.label,
                    action=action,
                    memories=_lines(context.hits),
                    entity_memories=_threads(context),
                ),
                schema=prompts.VERIFY_SCHEMA,
            ).value
            shown = {hit.memory_id for hit in context.hits}
            for key, reason in (("supporting_memories", "bears it out"),
                                ("conflicting_memories", "says otherwise")):  # fmt: skip
                result[key] = [i for i in result[key] if i in shown]
                for memory_id in result[key]:
                    context.influence(memory_id, InfluenceType.INTENT_VERIFICATION, 0.5, reason)
        except llm.LLMError as error:
            log.info("Verification falls back to the offline rules: %s", error.message)
    if result is None:
        result = offline.verify(context, _reading_of(classification), action)
    if result["confidence"] >= 0.7:
        result["alternative_interpretation"] = ""
    record_influence(context)
    classification.verification = result
    classification.trails = {**classification.trails, "verify": context.found.recall_id}
    classification.save(update_fields=["verification", "trails"])
    return result
