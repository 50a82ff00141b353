"""What the compression asks a model (seed 003's prompt templates, and seed 002's facts), and the
JSON schemas its answers must fit (checked by talkingrock/validation.py; one retry, then the
offline engine). Bounded on purpose: a small model given no ``maxItems`` or ``maxLength`` loops
until it runs out of tokens (TECH_NOTES §5.2).
"""

from __future__ import annotations


def text(limit: int = 300) -> dict:
    return {"type": "string", "maxLength": limit}


def list_of(*, max_items: int = 20, **fields: dict) -> dict:
    return {
        "type": "array",
        "maxItems": max_items,
        "items": {"type": "object", "properties": fields, "required": list(fields)},
    }


ENTITY_SYSTEM = (
    "You are an entity extractor for a personal knowledge system. Given a conversation "
    "transcript, extract structured entities. Be precise. Only extract what is explicitly stated "
    "or strongly implied. Do not invent or assume. People are proper nouns only: named people, "
    "never pronouns or roles. A question the person asks the assistant to answer now is not an "
    "open question; an open question is one the person is still holding. Output valid JSON "
    "only. No preamble. No explanation."
)
ENTITY_SCHEMA = {
    "type": "object",
    "properties": {
        "people": list_of(name=text(100), context=text(), relation=text(100)),
        "tasks": list_of(
            description=text(),
            status={"type": "string", "enum": ["decided", "in_progress", "blocked", "completed"]},
            priority=text(50),
        ),
        "decisions": list_of(what=text(), why=text()),
        "waiting_on": list_of(who=text(100), what=text(), since=text(40)),
        "questions_resolved": list_of(question=text(), answer=text()),
        "questions_opened": list_of(question=text()),
        "blockers_cleared": list_of(what=text(), unblocks=text()),
        "insights": list_of(insight=text(), context=text()),
    },
}

FACTS_SYSTEM = (
    "You are a fact extractor for a personal knowledge system. Given what a person said in a "
    "conversation, list the facts worth knowing later. Each fact is the person's own clause for "
    "it, copied from what they said and only cleaned: names capitalised, obvious typos fixed, "
    "filler dropped. Never rewrite it into the third person or a template, and never change a "
    "date, time or amount into other words: keep 'on the 8th', 'mon tue thu', '6k' as said (the "
    "system reads them itself, against the conversation's date). Give each fact its subject "
    "(what it is about, a few words) and relation (which property of it: time, place, cost, "
    "choice, state, preference). Decisions are facts too. Do not include small talk, feelings of "
    "the moment or the assistant's words. Output valid JSON only."
)
FACTS_SCHEMA = {
    "type": "object",
    "properties": {
        "facts": list_of(max_items=12, text=text(300), subject=text(100), relation=text(40)),
    },
    "required": ["facts"],
}

NARRATIVE_SYSTEM = (
    "You are a memory synthesizer. Given extracted entities from a conversation, write a brief "
    "narrative that captures the MEANING of the conversation: not what was said, but what it "
    "signified, as a thoughtful colleague would remember it. 2-4 sentences. Focus on decisions, "
    "shifts in understanding, and what changed; say what is still open. Capitalise names. Do not "
    "summarize the transcript."
)
# 2–4 sentences fit in 800 characters. A longer maxLength is also more than llama.cpp's grammar
# parser accepts once the limit is spelt out character by character (it refuses between 900 and
# 1,100: measured with `make smoke-llm`, see smoke/README.md).
NARRATIVE_MAX_CHARS = 800
NARRATIVE_SCHEMA = {
    "type": "object",
    "properties": {"narrative": text(NARRATIVE_MAX_CHARS)},
    "required": ["narrative"],
}

DELTA_SYSTEM = (
    "You are a state change detector. Given the person's open items and current decisions and "
    "facts (each with an id) and what was just extracted from a conversation, list (1) the open "
    "items this conversation resolves: a waiting-on that arrived or was answered, a task that "
    "was done, a question that was decided; and (2) the current decisions or facts it replaces "
    "with a new value on the same subject and the same property. Be conservative: only mark "
    "something resolved or replaced if the conversation explicitly says so; a different subject "
    "that shares words is not a replacement. Output valid JSON only."
)
DELTA_SCHEMA = {
    "type": "object",
    "properties": {
        "resolved": {
            "type": "array",
            "maxItems": 20,
            "items": {
                "type": "object",
                "properties": {"item_id": {"type": "integer"}, "why": text()},
                "required": ["item_id", "why"],
            },
        },
        "superseded": {
            "type": "array",
            "maxItems": 20,
            "items": {
                "type": "object",
                "properties": {"id": {"type": "integer"}, "new": text(), "why": text()},
                "required": ["id", "new", "why"],
            },
        },
        "priority_changes": list_of(item=text(), old=text(50), new=text(50)),
    },
    "required": ["resolved"],
}

ROUTE_SYSTEM = (
    "You are a routing advisor. Given a memory and the person's active Acts (projects or "
    "chapters of life), suggest which Act the memory belongs to. If it does not clearly belong "
    'to one, suggest "Your Story". Output JSON only.'
)
ROUTE_SCHEMA = {
    "type": "object",
    "properties": {
        "suggested_destination": text(200),
        "confidence": {"type": "number", "minimum": 0, "maximum": 1},
        "reasoning": text(),
    },
    "required": ["suggested_destination", "confidence", "reasoning"],
}
