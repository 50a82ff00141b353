"""Facts (seed 002): what is worth knowing later, each the member's own clause, cleaned ("Dave's
quote finally arrived, $38,000 all in.", "Pickup is at 3:30 now, not 3pm.", "Maya does pickup mon
tue thu."): openers dropped, known names capitalised, "i" written "I", shorthand read as English
(talkingrock's lexicon) — never rewritten into the third person or a template, and no date is
written into it. What its words hold (the day "the 8th" means, the amount "6k" is, a schedule)
is parsed into fields beside it (talkingrock/language/parsed.py) when the draft is written.

Each fact keeps a subject and a relation (what it is about, and which property: "worktops" /
"choice", "pickup" / "time"), so that a later fact on the same subject and relation can be
proposed as replacing it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from talkingrock.language import amounts, dates, values
from talkingrock.language.offline import phrases
from talkingrock.language.offline.reading import Reading, Unit

MAX_FACTS = 12
MIN_WORDS = 3
FACT_LABELS = ("fact", "decision", "change_of_mind", "preference", "resolution", "waiting_on")


@dataclass(frozen=True)
class Fact:
    text: str
    subject: str
    relation: str
    unit: int  # the clause it came from
    evidence: str  # the member's words


def _names(unit: Unit, household: list[str] = ()) -> set[int]:
    """The tokens that spell a name: of the people the clause names, or of the household."""
    named = [person.name for person in unit.people] + list(household)
    spelled = {word for name in named for word in name.casefold().split()}
    return {t.i for t in unit.tokens if t.lower_ in spelled and not t.is_stop}


def cleaned(unit: Unit, household: list[str] = ()) -> str:
    """The clause as the member said it: names capitalised (those it names, and the
    household's), "i" as "I", the openers that carry nothing ("so um", "oh and") and trailing
    filler taken off, a capital and a full stop."""
    names = _names(unit, household)
    out = []
    for token in unit.tokens:
        text = token.text
        if token.i in names:
            text = phrases.capitalised(text)
        elif token.lower_ == "i":
            text = "I"
        out.append(text + token.whitespace_)
    text = phrases.tidy(phrases.strip_openers("".join(out).strip()))
    if not text:
        return ""
    return phrases.capitalised(text) + ("" if text[-1] in ".!?" else ".")


# Which day it was said does not change which words are a value.
_REFERENCE = date(2000, 1, 3)


def _outside_values(tokens) -> list:
    """The tokens that are not inside a date, time, schedule or amount the clause states."""
    text, starts = "", []
    for token in tokens:
        starts.append(len(text))
        text += token.text_with_ws
    spans = [(m.start, m.end) for m in dates.find(text, today=_REFERENCE)]
    spans += [(a.start, a.end) for a in amounts.find(text, skip=spans)]
    return [
        token
        for token, start in zip(tokens, starts, strict=True)
        if not any(begin <= start < end for begin, end in spans)
    ]


def _subject_and_relation(unit: Unit, text: str) -> tuple[str, str]:
    """What the fact is about (its object for a choice, its subject otherwise) and which property
    of it the fact states: a time or a date, an amount, a choice, a preference, a state. A word
    that is part of a value ("pm" of "3pm", "k" of "6k", "mon") is never what a fact is about."""
    nouns = [t for t in _outside_values(unit.tokens) if t.pos_ == "NOUN"]
    objects = [t for t in nouns if t.dep_ in ("dobj", "pobj", "attr")]
    subjects = [t for t in nouns if t.dep_ in ("nsubj", "nsubjpass")]
    head = objects if unit.label in ("decision", "change_of_mind") else subjects + objects
    if not head:
        head = subjects + objects
    subject = head[0].lemma_.lower() if head else ""
    stated = values.values_of(text)
    if stated.has("time") or stated.has("date") or stated.has("weekday"):
        relation = "time"
    elif stated.has("amount"):
        relation = "amount"
    elif unit.label in ("decision", "change_of_mind"):
        relation = "choice"
    elif unit.label == "preference":
        relation = "preference"
    else:
        relation = "state"
    return subject, relation


# What a word that says something is, beside the words any sentence has: a thing, a name, a
# figure, a quality or an action ("ok thats it for now, i'm done" has none).
_SAYING = frozenset({"NOUN", "PROPN", "NUM", "ADJ", "VERB"})


def _says_something(unit: Unit) -> bool:
    """Whether ``unit`` has a word of its own, or a day, a time or an amount: not a sign-off
    ("ok thats it for now, i'm done"), while a terse new value ("mon 4 may", "6.30 now") is."""
    return any(
        t.pos_ in _SAYING and not t.is_stop and len(t.text) > 1 and t.lower_ not in phrases.OPENERS
        for t in unit.tokens
    ) or bool(dates.find(unit.text, today=_REFERENCE) or amounts.find(unit.text))


def facts(reading: Reading, today: date, decisions: dict[int, dict] | None = None) -> list[Fact]:
    """The conversation's facts, each once, in the order they were said. (``today`` and
    ``decisions`` are the other stages' context; a fact is the clause itself.)"""
    found: list[Fact] = []
    seen: set[str] = set()
    for unit in reading.units:
        if unit.label not in FACT_LABELS or "you" in {t.lower_ for t in unit.tokens}:
            continue
        text = cleaned(unit, reading.household)
        if len(text.split()) < MIN_WORDS or text.endswith("?") or not _says_something(unit):
            continue
        key = " ".join(text.casefold().split())
        if key in seen:
            continue
        seen.add(key)
        subject, relation = _subject_and_relation(unit, text)
        found.append(Fact(text, subject, relation, unit.index, unit.text))
    return found[:MAX_FACTS]
