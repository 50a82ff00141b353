"""The narrative of a conversation, as a colleague would remember it (seed 003, stage 2):
2–4 sentences — what was decided and why, what changed, who is being waited on, what is still
open — with names capitalised. The act it belongs to is shown beside it, never written into it.
Whole sentences only: nothing is cut in the middle of a word or of "incl.".
"""

from __future__ import annotations

import re
from datetime import date

from talkingrock import nlp
from talkingrock.language.offline import lexicon, phrases
from talkingrock.language.offline.pipeline import Extraction

MAX_CHARS = 800
_VERBAL = re.compile(
    r"^(?:go|get|keep|take|use|do|have|put|move|book|buy|pay|order|pick|choose|stay|stick|"
    r"switch|cancel|accept|decline|hire|leave|let|make|paint|reface|replace|send|ask|ring|call|"
    r"email|text|tell|check|sort|fix|clear|try|start|stop|give|skip|wait)\b",
    re.I,
)


def _joined(parts: list[str]) -> str:
    parts = [p for p in parts if p]
    if len(parts) <= 1:
        return "".join(parts)
    return ", ".join(parts[:-1]) + " and " + parts[-1]


def _lower_first(text: str) -> str:
    if len(text) > 1 and text[0].isupper() and not text[1].isupper() and " " in text:
        first = text.split()[0]
        if first.lower() in {"the", "a", "an", "go", "get", "to", "we", "it"} or _VERBAL.match(
            text
        ):
            return text[0].lower() + text[1:]
    return text


def _decided(person: str, decisions: list[dict]) -> list[str]:
    """The first two decisions, each a sentence of its own in the form its words take (a second
    one joined to the first as "…, and on move stuff" read as nonsense)."""
    return [_decision(person, row) for row in decisions[:2]]


def _decision(person: str, row: dict) -> str:
    what = _lower_first(phrases.tidy(row["what"]))
    if _is_clause(what):  # "pickup is at 3pm": said whole, not after "settled on"
        sentence = f"{person} decided: {what}"
    else:
        sentence = f"{person} {'decided to' if _VERBAL.match(what) else 'settled on'} {what}"
    if row.get("why"):
        sentence += f" ({_lower_first(phrases.tidy(row['why']))})"
    return sentence.rstrip(".") + "."


def _is_clause(text: str) -> bool:
    """Whether ``text`` has a subject of its own ("pickup is at 3pm", "we'll go with oak"), so
    that it reads whole rather than as the object of "settled on"."""
    return any(token.dep_ in ("nsubj", "nsubjpass", "expl") for token in nlp.parse_one(text))


def _waiting(person: str, waits: list[dict]) -> str:
    parts = []
    for row in waits[:2]:
        who, what = row.get("who", ""), _lower_first(phrases.tidy(row.get("what", "")))
        due = f" by {row['by']}" if row.get("by") else ""
        if who and what:
            parts.append(f"{who} for {what}{due}")
        elif who or what:
            parts.append(f"{who or what}{due}")
    return f"{person} is waiting on {_joined(parts)}." if parts else ""


def _open(questions: list[dict], tasks: list[dict]) -> str:
    asked = [phrases.tidy(q["question"]).rstrip("?") for q in questions[:2]]
    todo = [_lower_first(phrases.tidy(t["description"])) for t in tasks[:2]]
    if asked and todo:
        return f"Still open: {'; '.join(asked)}; next: {_joined(todo)}."
    if asked:
        return f"Still open: {'; '.join(asked)}?"
    if todo:
        return f"Next: {_joined(todo)}."
    return ""


def narrative(
    extraction: Extraction,
    *,
    person: str,
    day: date,
    changed: list[str] = (),
) -> str:
    """2–4 sentences: decisions, what changed, waiting-ons, what is open.
    ``changed`` are sentences about earlier threads this conversation closed or replaced."""
    items = extraction.items
    sentences = [
        *_decided(person, items.get("decisions", [])),
        *changed[:1],
        _waiting(person, items.get("waiting_on", [])),
        _open(items.get("questions_opened", []), items.get("tasks", [])),
    ]
    sentences = [s for s in sentences if s]
    for fact in extraction.facts:
        if len(sentences) >= 2:
            break
        if not any(_overlap(fact.text, said) > 0.5 for said in sentences):
            sentences.append(fact.text)
    held = items.get("questions_opened") or items.get("waiting_on") or items.get("tasks")
    if len(sentences) == 1 and not held:
        sentences.append("Nothing was left open.")
    if not sentences:
        people = [p["name"] for p in items.get("people", [])][:3]
        about = f" with {_joined(people)}" if people else ""
        talk = [u for u in extraction.reading.units if u.label != "small_talk"]
        first = (talk or extraction.reading.units or [None])[0]
        first = first.text if first is not None else ""
        topic = topic_of(first)
        said = f" about “{topic}”" if topic else ""
        sentences = [
            f"{person} talked{said}{about} on {day:%-d %B %Y}.",
            "Nothing was decided or left open.",
        ]
    kept: list[str] = []
    for sentence in sentences[:4]:
        sentence = phrases.capitalised(" ".join(sentence.split()))
        if len(" ".join([*kept, sentence])) > MAX_CHARS - 40:
            break  # whole sentences only
        kept.append(sentence)
    return " ".join(kept)


def _overlap(a: str, b: str) -> float:
    left = {w for w in re.findall(r"[a-z0-9]{3,}", a.casefold())}
    right = {w for w in re.findall(r"[a-z0-9]{3,}", b.casefold())}
    return len(left & right) / max(1, min(len(left), len(right)))


def topic_of(message: str) -> str:
    """A short topic for a conversation's first message: its first clause without the frame,
    at most eight words ("Hi! Can you help me plan Leo's party?" → "help me plan Leo's party")."""
    text = phrases.tidy(phrases.strip_frame(lexicon.normalise(message or "")))
    first = re.split(r"(?<=[.!?])\s+", text)[0] if text else ""
    first = re.sub(r"^(?:hi|hello|hey|morning|evening)\b[\s,!.]*", "", first, flags=re.I)
    return " ".join(first.rstrip("?.!").split()[:8])
