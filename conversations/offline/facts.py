"""Facts (seed 002): what is worth knowing later, one self-contained sentence each, in the third
person, with names resolved and capitalised and dates written out — "Maya's kitchen budget is
£40,000.", "Dave measured the kitchen on 14 March 2026."

Each fact keeps a subject and a relation (what it is about, and which property: "worktops" /
"choice", "pickup" / "time"), so that a later fact on the same subject and relation can be
proposed as replacing it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

from conversations.offline import dates, lexicon, phrases
from conversations.offline.reading import Reading, Unit

MAX_FACTS = 12
MIN_WORDS = 3
FACT_LABELS = ("fact", "decision", "change_of_mind", "preference", "resolution", "waiting_on")
_MONEY = re.compile(r"[£$€]\s?\d|\d[\d,]*\s?(?:pounds|quid|dollars|euros)\b", re.I)
_TIME = re.compile(r"\b\d{1,2}[:.]\d{2}\b|\b\d{1,2}\s?(?:am|pm)\b", re.I)
_IRREGULAR_THIRD = {"be": "is", "am": "is", "'m": " is", "have": "has", "'ve": " has",
                    "do": "does", "are": "is", "'re": " is", "go": "goes"}  # fmt: skip


# A contraction after "we" (plural) or "I" (now a name, singular).
_CONTRACTIONS = {
    "'re": ("are", "is"), "'ve": ("have", "has"), "'m": ("are", "is"), "'ll": ("will", "will"),
    "'d": ("would", "would"),
}  # fmt: skip


@dataclass(frozen=True)
class Fact:
    text: str
    subject: str
    relation: str
    unit: int  # the clause it came from
    evidence: str  # the member's words


def _third_person(verb: str) -> str:
    lower = verb.lower()
    if lower in _IRREGULAR_THIRD:
        return _IRREGULAR_THIRD[lower]
    if lower.endswith(("s", "sh", "ch", "x", "z", "o")):
        return verb + "es"
    if lower.endswith("y") and len(lower) > 2 and lower[-2] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


def rewrite(unit: Unit, *, member: str, household: list[str]) -> str:
    """The clause in the third person: "I need" → "Maya needs", "we're" → "Maya and Tom are",
    "my sister" → "Maya's sister", "he" → the person it means."""
    group = " and ".join(household[:2]) if len(household) > 1 else f"{member}'s household"
    singular_subject_heads = {
        t.head.i
        for t in unit.tokens
        if t.lower_ in ("i", "me") and t.dep_ in ("nsubj", "nsubjpass")
    }
    names = {
        t.i for t in unit.tokens if any(t.lower_ in p.name.casefold().split() for p in unit.people)
    }
    out: list[str] = []
    replaced = ""  # "i" or "we" when the token before was that pronoun, now a name
    for token in unit.tokens:
        lower, text = token.lower_.replace("’", "'"), token.text
        person = unit.referents.get(token.i)
        if replaced and lower in _CONTRACTIONS:
            # "we're" → "Maya and Tom are", "I've" → "Maya has": a name takes no contraction.
            text = " " + _CONTRACTIONS[lower][replaced == "i"]
            out.append(text + token.whitespace_)
            replaced = ""
            continue
        replaced = lower if lower in ("i", "we") else ""
        if lower in ("i", "me"):
            text = member
        elif lower in ("my", "mine"):
            text = f"{member}'s"
        elif lower in ("we", "us"):
            text = group
        elif lower in ("our", "ours"):
            text = f"{group}'s"
        elif person is not None:
            text = f"{person.name}'s" if token.dep_ == "poss" else person.name
        elif token.i in names:
            text = phrases.capitalised(text)
        elif (
            token.i in singular_subject_heads or token.head.i in singular_subject_heads
        ) and token.tag_ == "VBP":
            text = _third_person(text)
        out.append(text + token.whitespace_)
    return "".join(out)


def _subject_and_relation(unit: Unit, text: str) -> tuple[str, str]:
    objects = [t for t in unit.tokens if t.dep_ in ("dobj", "pobj", "attr") and t.pos_ == "NOUN"]
    subjects = [t for t in unit.tokens if t.dep_ in ("nsubj", "nsubjpass") and t.pos_ == "NOUN"]
    head = objects if unit.label in ("decision", "change_of_mind") else subjects + objects
    if not head:
        head = subjects + objects
    subject = head[0].lemma_.lower() if head else ""
    # The value says the relation first: a time or a date, an amount; then what kind of clause.
    if _TIME.search(text) or dates.resolve(unit.text, date(2000, 1, 1))[1]:
        relation = "time"
    elif _MONEY.search(text):
        relation = "amount"
    elif unit.label in ("decision", "change_of_mind"):
        relation = "choice"
    elif unit.label == "preference":
        relation = "preference"
    else:
        relation = "state"
    return subject, relation


def _subjectless(unit: Unit) -> bool:
    """ "told him go with the oak", "sending the quote friday": a clause that starts with its
    verb has the member (or whoever was just named) as its subject."""
    first = next((t for t in unit.tokens if not t.is_punct), None)
    has_subject = any(t.dep_ in ("nsubj", "nsubjpass", "expl") for t in unit.tokens)
    return first is not None and first.pos_ in ("VERB", "AUX") and not has_subject


def _decision_fact(unit: Unit, decision: dict, group: str) -> str:
    what = decision["what"]
    verb = "decided to" if what.split()[0].lower() in lexicon.ACTION_VERBS else "chose"
    return f"{group} {verb} {what}"


def facts(reading: Reading, today: date, decisions: dict[int, dict] | None = None) -> list[Fact]:
    """The conversation's facts, each once, in the order they were said. ``decisions``: the
    decision item each decision clause produced (by clause), which its fact restates."""
    found: list[Fact] = []
    seen: set[str] = set()
    group = " and ".join(reading.household[:2]) if len(reading.household) > 1 else reading.member
    for unit in reading.units:
        if unit.label not in FACT_LABELS or "you" in {t.lower_ for t in unit.tokens}:
            continue
        # "Dave said go with the oak" is Dave's, told as said; "changed our minds, going with
        # quartz, butcher block needs oiling" is the household's choice (its first verb says).
        verb = next((t for t in unit.tokens if t.pos_ in ("VERB", "AUX")), None)
        said_by_someone = verb is not None and any(
            t.dep_ in ("nsubj", "nsubjpass") and t.pos_ in ("NOUN", "PROPN") for t in verb.children
        )
        if (
            decisions
            and unit.index in decisions
            and decisions[unit.index].get("what")
            and not said_by_someone
        ):
            text = _decision_fact(unit, decisions[unit.index], group)
        else:
            text = rewrite(unit, member=reading.member, household=reading.household)
            if _subjectless(unit):
                text = f"{reading.member} {text[:1].lower()}{text[1:]}"
        text, _ = dates.resolve(phrases.strip_openers(text), today)
        text = phrases.tidy(text)
        if len(text.split()) < MIN_WORDS or text.endswith("?"):
            continue
        text = phrases.capitalised(text) + "."
        key = " ".join(text.casefold().split())
        if key in seen:
            continue
        seen.add(key)
        subject, relation = _subject_and_relation(unit, text)
        found.append(Fact(text, subject, relation, unit.index, unit.text))
    return found[:MAX_FACTS]
