"""The reasoning tools (issue 13; seed 003's MCP tool definitions): read a request with memory,
explain a reading, the context a request would be read with, a memory's influence chain, an
outcome or a correction of a reading, and the themes of Your Story. Registered in the one
registry (talkingrock/tools.py) when the app is ready."""

from __future__ import annotations

from typing import Any

from django.conf import settings

from conversations import reasoning
from conversations.models import Classification
from talkingrock.tools import ToolError, id_schema, tool

_ID = id_schema()
_REQUEST = {"type": "string", "minLength": 1, "maxLength": 2000}


def _budget() -> float:
    return settings.TALKINGROCK_CONVERSATIONS["reply_timeout"] / 3


def _reading(user, classification_id: int) -> Classification:
    try:
        return reasoning.get_classification(user, classification_id)
    except Classification.DoesNotExist:
        raise ToolError(404, f"Classification {classification_id} not found.") from None


@tool(
    "classify_request",
    "Read a request with the member's memories (seed 003): destination (stream/file/process) × "
    "consumer (human/machine) × semantics (read/interpret/execute), confidence, a clarifying "
    "question when it is ambiguous, then the ordered steps and the check against memory. Every "
    "memory that shaped a stage is recorded; explain_classification reads it back.",
    {"request": _REQUEST},
    required=("request",),
)
def _classify_request(user, *, request: str) -> dict[str, Any]:
    reading = reasoning.classify_with_memory(user, request, timeout=_budget())
    reasoning.decompose_with_memory(reading)
    reasoning.verify_intent_with_memory(reading)
    return reasoning.explain_classification(user, reading.pk)


@tool(
    "explain_classification",
    "Which memories influenced a classification, in which stage, how (disambiguation, "
    "pattern_match, entity_reference, intent_verification) and why; with the reading itself.",
    {"classification_id": _ID},
    required=("classification_id",),
)
def _explain_classification(user, *, classification_id: int) -> dict[str, Any]:
    return reasoning.explain_classification(user, _reading(user, classification_id).pk)


@tool(
    "get_reasoning_context",
    "The memory-augmented context a request would be read with: the memories that clear the "
    "relevance floor (corrections marked) and, on request, the open threads that bear on it.",
    {
        "query": _REQUEST,
        "context_type": {
            "type": "string",
            "enum": ["classification", "decomposition", "verification"],
        },
        "include_active_entities": {"type": "boolean"},
        "top_k": {"type": "integer", "minimum": 1, "maximum": 50},
    },
    required=("query",),
)
def _get_reasoning_context(
    user, *, query, context_type="classification", include_active_entities=True, top_k=5
) -> dict[str, Any]:
    return reasoning.reasoning_context(
        user,
        query,
        context_type=context_type,
        include_active=include_active_entities,
        top_k=top_k,
    )


@tool(
    "get_memory_influence_chain",
    "Everything one memory shaped, newest first: the replies that rest on it and the readings "
    "it influenced, each with how.",
    {"memory_id": _ID, "limit": {"type": "integer", "minimum": 1, "maximum": 200}},
    required=("memory_id",),
)
def _get_memory_influence_chain(user, *, memory_id: int, limit: int = 20) -> dict[str, Any]:
    return {
        "memory_id": memory_id,
        "chain": reasoning.influence_chain(user, memory_id, limit=limit),
    }


@tool(
    "learn_from_outcome",
    "Record that a reading was approved or rejected (with a note): the memories behind it are "
    "reinforced or the one that misled demoted, and a system message in the open conversation "
    "keeps it for the compression.",
    {
        "classification_id": _ID,
        "outcome": {"type": "string", "enum": list(reasoning.learning.OUTCOMES)},
        "note": {"type": "string", "maxLength": 2000},
    },
    required=("classification_id", "outcome"),
)
def _learn_from_outcome(user, *, classification_id, outcome, note="") -> dict[str, Any]:
    reading = _reading(user, classification_id)
    return reasoning.learn_from_outcome(user, reading, outcome=outcome, note=note)


@tool(
    "store_immediate_correction",
    "Correct how a request was read, now: 'by the calendar thing I meant the kitchen calendar, "
    "not the school one'. Kept as a memory at once, the memory that misled demoted and the one "
    "meant reinforced, so the next request like it is read this way.",
    {
        "classification_id": _ID,
        "meant": {"type": "string", "minLength": 1, "maxLength": 300},
        "not_meant": {"type": "string", "maxLength": 300},
    },
    required=("classification_id", "meant"),
)
def _store_immediate_correction(user, *, classification_id, meant, not_meant="") -> dict:
    reading = _reading(user, classification_id)
    return reasoning.store_immediate_correction(
        user, reading, meant=meant.strip(), not_meant=not_meant.strip()
    )


@tool(
    "get_identity_context",
    "The recurring themes of the member's Your Story, each with the memories that show it.",
    {},
)
def _get_identity_context(user) -> dict[str, Any]:
    return reasoning.identity_context(user)
