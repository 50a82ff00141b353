"""What consolidation asks the model (seed 002), each answer a JSON object fitting its schema
(talkingrock/llm: validated, one retry, then the offline rules)."""

from __future__ import annotations

from talkingrock.validation import MAX_INT

_TEXT = {"type": "string", "minLength": 1, "maxLength": 400}
_REASON = {"type": "string", "maxLength": 400}

DECIDE_SYSTEM = """You consolidate a person's memory. You get one new fact and the observations
most like it, each with its source facts in time order (with the dates they happened) and its
history of changes. Decide one of:
- "update": the fact changes or extends an existing observation; give its observation_id and the
  observation's new text. When the fact replaces an earlier value (a new role, a new time, a
  changed plan), the new text states the current state; the old one is kept in the history.
- "create": the fact and what you know start a new observation; give its text.
- "skip": the fact adds nothing an observation should say (small talk, a one-off detail).
Write observations at a higher level of abstraction than the facts: patterns, trajectories,
inferences ("Alice has moved from mobile to backend engineering"), not rephrasings of one fact.
Mind the dates: a later fact wins over an earlier one. One sentence, at most 30 words."""

DECIDE_SCHEMA = {
    "type": "object",
    "properties": {
        "action": {"type": "string", "enum": ["update", "create", "skip"]},
        "observation_id": {"type": ["integer", "null"], "minimum": 1, "maximum": MAX_INT},
        "text": {"type": "string", "maxLength": 400},
        "reason": _REASON,
    },
    "required": ["action", "observation_id", "text", "reason"],
    "additionalProperties": False,
}

MERGE_SYSTEM = """Two observations about a person's life are very similar. Decide whether they
say the same thing ("merge", with one text that keeps everything either says) or are genuinely
distinct ("keep": different people, times, values or subjects). One sentence, at most 30 words."""

MERGE_SCHEMA = {
    "type": "object",
    "properties": {
        "action": {"type": "string", "enum": ["merge", "keep"]},
        "text": {"type": "string", "maxLength": 400},
        "reason": _REASON,
    },
    "required": ["action", "text", "reason"],
    "additionalProperties": False,
}

TEMPORAL_SYSTEM = """You read one subject's facts in time order and name the temporal patterns no
single fact states: trends (a value moving one way), transitions (a role or state changing),
cycles (something recurring on a weekday or date) and correlations (two things changing
together). Each pattern is one sentence, at most 30 words, grounded in the facts; none when
there is none."""

TEMPORAL_SCHEMA = {
    "type": "object",
    "properties": {
        "patterns": {
            "type": "array",
            "maxItems": 4,
            "items": {
                "type": "object",
                "properties": {
                    "kind": {
                        "type": "string",
                        "enum": ["trend", "transition", "cycle", "correlation"],
                    },
                    "text": _TEXT,
                },
                "required": ["kind", "text"],
                "additionalProperties": False,
            },
        }
    },
    "required": ["patterns"],
    "additionalProperties": False,
}

DREAM_SYSTEM = """You get two clusters of facts from unrelated areas of one person's life: each
cluster's core facts and supporters. Find structural patterns, hidden dependencies or ironic
contradictions that connect the two areas. Propose up to three insights, one sentence each,
each naming the facts it rests on from both sides."""

DREAM_SCHEMA = {
    "type": "object",
    "properties": {
        "insights": {
            "type": "array",
            "maxItems": 3,
            "items": {"type": "object", "properties": {"text": _TEXT}, "required": ["text"]},
        }
    },
    "required": ["insights"],
}

EVALUATE_SYSTEM = """You judge candidate insights about a person's life. Keep only the one to three
that would genuinely surprise them and that their facts support; drop the obvious, the vague and
the unsupported. Give the numbers of the kept candidates, each with a reason and a score from 0
to 1."""

EVALUATE_SCHEMA = {
    "type": "object",
    "properties": {
        "kept": {
            "type": "array",
            "maxItems": 3,
            "items": {
                "type": "object",
                "properties": {
                    "number": {"type": "integer", "minimum": 1, "maximum": 1000},
                    "reason": _REASON,
                    "score": {"type": "number", "minimum": 0, "maximum": 1},
                },
                "required": ["number", "reason", "score"],
                "additionalProperties": False,
            },
        }
    },
    "required": ["kept"],
    "additionalProperties": False,
}
