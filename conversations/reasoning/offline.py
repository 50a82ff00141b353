"""The reasoning stages without a model: deterministic, from the request's wording, the recalled
memories, the open threads and the member's corrections. Each says why in a sentence and notes
the memories that shaped it (``Context.influence``)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from conversations.kinds_asked import is_question
from conversations.reasoning.context import ITEM_OVERLAP, VAGUE, Context, overlap
from conversations.terms import words_of
from memories.models import InfluenceType, Memory, MemoryItem
from talkingrock.language.offline.lexicon import normalise

# Imperatives that ask for something to be done, and those whose result is kept (a file).
DO = frozenset(
    """
    fix send book buy pay call ring text email schedule cancel order add set move delete archive
    sort make write create draft update change clean organise organize file save note remember put
    start stop renew arrange chase return post print download upload install run sync export
    import backup check ask tell remind plan pick collect drop get clear tidy reply answer
    """.split()
)
KEEP = frozenset("write draft save note remember file record log document export keep jot".split())
THINK = frozenset(
    """
    why should shall could compare summarise summarize explain think plan suggest recommend decide
    worth better best ideas idea advice analyse analyze review
    """.split()
)
MACHINE = frozenset("json csv api script sync webhook cron spreadsheet database export".split())
POLITE = ("please ", "can you ", "could you ", "would you ", "pls ", "plz ")
NEGATION = re.compile(r"\b(?:not|never|no longer|don't|doesn't|won't|instead|rather than)\b", re.I)
# How a correction memory is written (learning.py), and read back here.
CORRECTION = re.compile(r"By “(?P<said>[^”]+)”, .+? means (?P<meant>.+?)(?:, not (?P<not>.+?))?\.$")
CLEAR_LEAD = 0.15  # the best reading must lead the next by this much to need no question


@dataclass
class Reading:
    destination: str
    consumer: str
    semantics: str
    confidence: float
    reasoning: str
    needs_clarification: bool = False
    clarification: str = ""
    steps: list[dict[str, Any]] = field(default_factory=list)
    verification: dict[str, Any] = field(default_factory=dict)


def _words(request: str) -> list[str]:
    text = normalise(request).lower()
    for polite in POLITE:
        text = text.removeprefix(polite)
    return words_of(text)


def _kind(request: str) -> tuple[str, str, str, str]:
    """(destination, consumer, semantics, the cue that decided) from the wording."""
    words = _words(request)
    consumer = "machine" if MACHINE & set(words) else "human"
    first = words[0] if words else ""
    if first in DO and not is_question(request.replace(first, "", 1)):
        destination = "file" if first in KEEP else "process"
        return destination, consumer, "execute", first
    if is_question(request):
        thinking = next((w for w in words if w in THINK), "")
        if thinking or words[:2] == ["how", "do"]:
            return "stream", consumer, "interpret", thinking or "how do"
        return "stream", consumer, "read", first
    return "file", consumer, "interpret", ""  # a statement: something to understand and keep


def vague_phrase(request: str) -> str:
    words = normalise(request).split()
    for index, word in enumerate(words):
        if word.lower().strip(".,!?") in VAGUE:
            return " ".join(words[max(0, index - 2) : index + 1]).strip(".,!?")
    return request.strip()[:60]


def _corrections(context: Context) -> list[tuple[str, str]]:
    """(what was meant, what was not) of the member's corrections that bear on the request."""
    found = []
    for hit in context.corrections:
        match = CORRECTION.match(" ".join(hit.memory.content.split()))
        if match and overlap(context.terms, match["said"]) > 0:
            found.append((match["meant"], match["not"] or ""))
            context.influence(
                hit.memory_id,
                InfluenceType.DISAMBIGUATION,
                1.0,
                f"your correction: “{match['said']}” means {match['meant']}",
            )
    return found


def _candidates(context: Context) -> list[tuple[float, int, str]]:
    """(score, memory id, text) of what a vague request may mean: open threads and memories that
    share its words, moved by the member's corrections."""
    corrections = _corrections(context)
    found: dict[int, tuple[float, str]] = {}
    for item, share in context.items:
        if share >= ITEM_OVERLAP:
            found[item.memory_id] = max(
                found.get(item.memory_id, (0.0, "")), (share + 0.1, item.text)
            )
    for hit in context.hits:
        if hit.memory.source == Memory.Source.CORRECTION:
            continue
        share = overlap(context.terms, hit.memory.content)
        if share >= ITEM_OVERLAP and hit.memory_id not in found:
            found[hit.memory_id] = (share, " ".join(hit.memory.content.split())[:120])
    scored = []
    for memory_id, (score, text) in found.items():
        for meant, not_meant in corrections:
            if overlap(frozenset(words_of(meant.lower())), text) >= 0.5:
                score += 0.5
            if not_meant and overlap(frozenset(words_of(not_meant.lower())), text) >= 0.5:
                score -= 0.5
        scored.append((score, memory_id, text))
    return sorted(scored, reverse=True)


def classify(context: Context) -> Reading:
    destination, consumer, semantics, cue = _kind(context.request)
    confidence = 0.75 if cue else 0.55
    why = [f"“{cue}” reads as {semantics}" if cue else f"a statement: {semantics}, to keep"]
    for hit in context.hits:
        named = hit.components.get("named")
        if named:
            context.influence(
                hit.memory_id,
                InfluenceType.ENTITY_REFERENCE,
                hit.components.get("meaning", {}).get("similarity", 0.0),
                f"it names {', '.join(named)}, as the request does",
            )
    for item, share in context.items:
        if item.type == MemoryItem.Type.TASK and share >= ITEM_OVERLAP:
            context.influence(
                item.memory_id, InfluenceType.PATTERN_MATCH, share, f"a task like it: {item.text}"
            )
    needs, question = False, ""
    if context.vague:
        phrase = vague_phrase(context.request)
        options = _candidates(context)
        best = options[0] if options else None
        runner = options[1] if len(options) > 1 else None
        if (
            best
            and best[0] >= ITEM_OVERLAP
            and (runner is None or best[0] - runner[0] >= CLEAR_LEAD)
        ):
            context.influence(
                best[1], InfluenceType.DISAMBIGUATION, min(best[0], 1.0), f"“{phrase}” is {best[2]}"
            )
            why.append(f"“{phrase}” is {best[2]} ([id:{best[1]}])")
            confidence = min(confidence + 0.1, 0.95)
        elif best and runner:
            needs, confidence = True, 0.35
            question = f"Which do you mean by “{phrase}”: {best[2]}, or {runner[2]}?"
            why.append(f"“{phrase}” could be either of two things you mentioned")
        else:
            needs, confidence = True, 0.3
            question = f"What do you mean by “{phrase}”?"
            why.append(f"nothing you remember says what “{phrase}” is")
    return Reading(
        destination,
        consumer,
        semantics,
        round(confidence, 2),
        "; ".join(why) + ".",
        needs,
        question,
    )


def _clauses(request: str) -> list[str]:
    parts = re.split(
        r"\s*(?:;|\band then\b|\bthen\b|, and\b|\band\b(?= (?:" + "|".join(DO) + r")\b))\s*",
        request,
    )
    return [part.strip(" .,") for part in parts if part and part.strip(" .,")]


def decompose(context: Context, reading: Reading) -> list[dict[str, Any]]:
    """Ordered steps: what is awaited first, the request's own actions, each decision that
    constrains it, and what a similar past task did."""
    steps: list[dict[str, Any]] = []
    for item, share in context.items:
        if item.type == MemoryItem.Type.WAITING_ON:
            steps.append(
                {"action": f"Check on the open thread first: {item.text}", "why": "it is still open",
                 "memory_ids": [item.memory_id]}
            )  # fmt: skip
            context.influence(
                item.memory_id, InfluenceType.PATTERN_MATCH, share, f"still waiting: {item.text}"
            )
    for clause in _clauses(context.request):
        steps.append(
            {"action": clause[:1].upper() + clause[1:], "why": "asked for", "memory_ids": []}
        )
    decisions = MemoryItem.objects.filter(
        memory_id__in=[hit.memory_id for hit in context.hits], type=MemoryItem.Type.DECISION
    )
    for item in decisions:
        if overlap(context.terms, item.text) > 0 and item.valid_to is None:
            steps.append(
                {"action": f"Keep to what was decided: {item.text}", "why": "a decision on it",
                 "memory_ids": [item.memory_id]}
            )  # fmt: skip
            context.influence(
                item.memory_id, InfluenceType.PATTERN_MATCH, 0.8, f"a decision: {item.text}"
            )
    done = MemoryItem.objects.filter(
        memory_id__in=[hit.memory_id for hit in context.hits],
        type=MemoryItem.Type.TASK,
        is_active=False,
    )
    for item in done[:1]:
        if steps:
            steps[0]["why"] += f"; last time: {item.text}"
            steps[0]["memory_ids"].append(item.memory_id)
            context.influence(item.memory_id, InfluenceType.PATTERN_MATCH, 0.6, "a similar task")
    return steps[:8]


def verify(context: Context, reading: Reading, action: str) -> dict[str, Any]:
    """Does the reading match what the member's memories say they mean? Memories close to the
    request support it; a decision or preference on the same thing that says otherwise, or a
    correction of the same words, conflicts."""
    supporting, conflicting = [], []
    for hit in context.hits:
        similarity = hit.components.get("meaning", {}).get("similarity", 0.0)
        share = overlap(context.terms, hit.memory.content)
        if share < ITEM_OVERLAP and similarity < 0.45:
            continue
        if hit.memory.valid_to is None and NEGATION.search(hit.memory.content) and share > 0:
            conflicting.append(hit.memory_id)
            reason = "says otherwise about the same thing"
        else:
            supporting.append(hit.memory_id)
            reason = "bears it out"
        context.influence(
            hit.memory_id, InfluenceType.INTENT_VERIFICATION, max(similarity, share), reason
        )
    confidence = 0.5 + 0.1 * min(len(supporting), 3) - 0.2 * len(conflicting)
    confidence += 0.1 if reading.confidence >= 0.7 else -0.1 if reading.needs_clarification else 0
    confidence = round(min(max(confidence, 0.0), 1.0), 2)
    result = {
        "matches_intent": confidence >= 0.5,
        "confidence": confidence,
        "supporting_memories": supporting[:5],
        "conflicting_memories": conflicting[:5],
        "reasoning": f"{len(supporting)} memories bear the reading out, {len(conflicting)} say "
        f"otherwise.",
        "alternative_interpretation": "",
    }
    if confidence < 0.7:
        by_id = {hit.memory_id: hit for hit in context.hits}
        if conflicting:
            text = " ".join(by_id[conflicting[0]].memory.content.split())[:200]
            result["alternative_interpretation"] = f"Perhaps not: you said “{text}”"
        elif reading.clarification:
            result["alternative_interpretation"] = reading.clarification
        else:
            result["alternative_interpretation"] = f"Perhaps you only want to note: {action}"
    return result
