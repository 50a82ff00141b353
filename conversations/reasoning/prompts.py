"""What the reasoning stages ask a model (seed 003's memory-augmented prompts) and the JSON
schemas its answers must fit (talkingrock/validation.py; one retry, then the offline engine).
Every list and string is bounded: a small model given no bound loops (TECH_NOTES §5.2)."""

from __future__ import annotations

from conversations.prompts import list_of, text

CLASSIFY_SYSTEM = (
    "You are classifying a user request into an atomic operation. You have access to the "
    "user's relevant memories from past conversations. Use these memories to disambiguate "
    "intent, resolve references, and understand context. If a memory directly relates to the "
    "request, reference it in your reasoning. If the request is ambiguous even with memory "
    "context, flag it for clarification. Output valid JSON only."
)
CLASSIFY_PROMPT = """User request: "{request}"

Relevant memories:
{memories}

Active open threads:
{threads}

Classify this request:
- destination_type: stream (realtime output) | file (persistent storage) | process (system execution)
- consumer_type: human (user will read) | machine (system will process)
- execution_semantics: read (retrieve info) | interpret (analyze/synthesize) | execute (take action)
- confidence: 0.0-1.0
- memory_used: which memories (by id) informed this classification and how
- needs_clarification: true/false
- clarification_question: if ambiguous, what to ask"""

INFLUENCE = list_of(
    max_items=5,
    id={"type": "integer", "minimum": 1},
    influence_type={
        "type": "string",
        "enum": ["disambiguation", "pattern_match", "entity_reference", "intent_verification"],
    },
    score={"type": "number", "minimum": 0, "maximum": 1},
    reason=text(200),
)
CLASSIFY_SCHEMA = {
    "type": "object",
    "properties": {
        "destination_type": {"type": "string", "enum": ["stream", "file", "process"]},
        "consumer_type": {"type": "string", "enum": ["human", "machine"]},
        "execution_semantics": {"type": "string", "enum": ["read", "interpret", "execute"]},
        "confidence": {"type": "number", "minimum": 0, "maximum": 1},
        "reasoning": text(400),
        "memory_used": INFLUENCE,
        "needs_clarification": {"type": "boolean"},
        "clarification_question": text(300),
    },
    "required": [
        "destination_type",
        "consumer_type",
        "execution_semantics",
        "confidence",
        "needs_clarification",
    ],
}

DECOMPOSE_SYSTEM = (
    "You break a user request into ordered atomic steps. You have the user's memories of "
    "similar past tasks, the decisions that constrain this one and the open blockers. Keep to "
    "the decisions, put what is blocked after what unblocks it, and reuse what worked before. "
    "Output valid JSON only."
)
DECOMPOSE_PROMPT = """Request: "{request}"
Classification: {label}

Similar past tasks:
{tasks}

Relevant decisions:
{decisions}

Open blockers and waiting-ons:
{blockers}

List the ordered atomic steps, each with the memory ids that informed it."""
DECOMPOSE_SCHEMA = {
    "type": "object",
    "properties": {
        "steps": list_of(
            max_items=8,
            action=text(200),
            why=text(200),
            memory_ids={"type": "array", "maxItems": 5, "items": {"type": "integer"}},
        ),
    },
    "required": ["steps"],
}

VERIFY_SYSTEM = (
    "You are verifying that a proposed operation matches the user's actual intent. You have "
    "access to memories from past conversations where the user expressed similar requests or "
    "referenced similar entities. Use these to assess whether the proposed operation is what "
    "the user likely means. If memories suggest a different interpretation, flag the "
    "discrepancy. If memories confirm the interpretation, note which ones and why. Output valid "
    "JSON only."
)
VERIFY_PROMPT = """Proposed operation:
  Request: "{request}"
  Classification: {label}
  Proposed action: "{action}"

Relevant memories (past conversations where user expressed similar intent):
{memories}

Related entity memories (past conversations referencing same people/tasks/projects):
{entity_memories}"""
VERIFY_SCHEMA = {
    "type": "object",
    "properties": {
        "matches_intent": {"type": "boolean"},
        "confidence": {"type": "number", "minimum": 0, "maximum": 1},
        "supporting_memories": {"type": "array", "maxItems": 5, "items": {"type": "integer"}},
        "conflicting_memories": {"type": "array", "maxItems": 5, "items": {"type": "integer"}},
        "reasoning": text(400),
        "alternative_interpretation": text(300),
    },
    "required": ["matches_intent", "confidence", "supporting_memories", "conflicting_memories"],
}

THEMES_SYSTEM = (
    "You read the memories of one person's Your Story and name the recurring themes of their "
    "life: what they keep coming back to, in a few words each, with the memories that show it. "
    "Output valid JSON only."
)
THEMES_SCHEMA = {
    "type": "object",
    "properties": {
        "themes": list_of(
            max_items=5,
            theme=text(80),
            memory_ids={"type": "array", "maxItems": 8, "items": {"type": "integer"}},
        ),
    },
    "required": ["themes"],
}
