"""What a conversation changes (seed 003, stage 3): the open items it closes, and the earlier
decisions and facts it replaces. Proposed with the member's own words as evidence; the review
screen lets them accept or decline each.

* A **waiting-on** closes when the person owing it is named (or meant) in a clause saying it came
  ("dave's quote finally arrived", "heard back from the school"), or when such a clause is about
  what was owed.
* A **task** closes on a clause saying it is done ("booked the mot", "paid", "sorted") that is
  about the same thing, or when the person it was about answers ("ask Sam about the pickups" …
  "Sam said he can do the Wednesday pickups").
* A **question** closes on a decision about the same subject.
* A **decision or fact** is replaced by a later decision, change of mind or fact on the same
  subject and relation ("leaning butcher block" … "went with quartz after all"; pickup 3:15 …
  pickup 2:45) — only then: a different subject that shares words is left alone.

"About the same thing" is meaning (cosine of the MiniLM embeddings) with the words they share;
the thresholds were chosen on the development households (bench/extraction_eval.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from talkingrock import embeddings, nlp
from talkingrock.language import values as said_values
from talkingrock.language.offline.pipeline import Extraction
from talkingrock.language.offline.reading import Unit

# Cosine of MiniLM embeddings between an earlier item and a clause of this conversation.
RESOLVES_WITH_PERSON = 0.30  # the person it is about is named or meant
RESOLVES_ALONE = 0.55
SUPERSEDES = 0.5
SUPERSEDES_CHANGE = 0.35  # the clause itself says the mind changed
SURE = 0.6  # said to change, same relation, subject not known on both sides: ticked this close
# Ticked only this close in meaning, whatever else matches: a subject both name ("mom") or a
# choice said to change is not enough when the two say little alike ("mom wants me to ask about
# the panel" / "mom keeps checking the thermostat", 0.37). Set between the dev households' wrong
# ticks (0.38 at most) and the right ones ("go with butcher block for the worktops" / "changed our
# minds, going with quartz worktops instead", 0.48).
TICKED_AT_LEAST = 0.43
ANSWERS_QUESTION = 0.5
_ARRIVAL = re.compile(
    r"\b(?:arrived|came|come|in|through|back|heard|got|received|sent|replied|answered|confirmed|"
    r"rang|called|emailed|texted|said|says|told|approved|done|booked|paid|sorted|fixed|signed|"
    r"finished|collected|delivered|dropped|posted|submitted|ordered|bought|cancelled)\b",
    re.I,
)
_STOP = frozenset(
    """a an the and or but to of in on at for with about from by is are was were be it its this
    that we i you he she they my our your his her their me us them do did does done have has had
    will would can could should still just now then so not no yes get got""".split()
)


@dataclass(frozen=True)
class Earlier:
    """An open item, or a current decision or fact, of the member's earlier conversations."""

    key: Any
    type: str  # waiting_on, task, question_opened, decision, fact
    text: str
    who: str = ""
    subject: str = ""
    relation: str = ""


@dataclass(frozen=True)
class Proposal:
    key: Any  # the earlier item's or fact's key
    type: str
    change: str  # "resolves" or "supersedes"
    evidence: str  # the member's words
    score: float
    why: str
    replacement: str = ""  # supersedes: the new value's text
    by: str = "rules"  # rules or model
    # Sure enough to be ticked on the review: the same subject and relation, close, and said to
    # have changed or with a new value of the same kind. Unsure ones are shown unticked.
    sure: bool = True


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9]+", text.casefold()) if w not in _STOP and len(w) > 2}


def _stemmed(text: str) -> set[str]:
    return {w[:-1] if w.endswith("s") and len(w) > 3 else w for w in _words(text)}


def _about_the_same(old_subject: str, old_text: str, new_subject: str, new_text: str) -> bool:
    """Whether two facts are about the same thing: the same subject, or each names the other's
    ("the gym class is at 7pm" / "changed the gym class to 6pm": "gym" and "class")."""
    if not old_subject or not new_subject:
        return False
    if old_subject == new_subject:
        return True
    return _stemmed(old_subject) <= _stemmed(new_text) and _stemmed(new_subject) <= _stemmed(
        old_text
    )


def _names(unit: Unit) -> set[str]:
    meant = [*unit.people, *unit.referents.values()]
    return {part.casefold() for person in meant for part in person.name.split()}


def _similarities(left: list[str], right: list[str]) -> np.ndarray:
    if not left or not right:
        return np.zeros((len(left), len(right)), dtype=np.float32)
    vectors = embeddings.embed([*left, *right])
    return vectors[: len(left)] @ vectors[len(left) :].T


def resolutions(extraction: Extraction, open_items: list[Earlier]) -> list[Proposal]:
    """The open items this conversation closes, best evidence for each."""
    units = [
        u
        for u in extraction.reading.units
        if (
            u.label in ("resolution", "decision", "change_of_mind", "fact")
            and _ARRIVAL.search(u.text)
        )
        or u.label in ("resolution", "decision", "change_of_mind")
    ]
    if not units or not open_items:
        return []
    scores = _similarities([item.text for item in open_items], [u.text for u in units])
    proposals = []
    for row, item in enumerate(open_items):
        best: tuple[float, Unit, str] | None = None
        for column, unit in enumerate(units):
            score = float(scores[row, column])
            shared = _stemmed(item.text) & _stemmed(unit.text)
            named = bool(item.who) and bool(
                {part.casefold() for part in item.who.split()} & _names(unit)
            )
            why = ""
            if item.type == "waiting_on" and unit.label in ("resolution", "fact"):
                if named and (score >= RESOLVES_WITH_PERSON or shared):
                    why = f"{item.who} is named where it came"
                elif score >= RESOLVES_ALONE and shared:
                    why = "it says what was owed came"
            elif item.type == "task" and unit.label in ("resolution", "fact"):
                if score >= RESOLVES_ALONE and shared:
                    why = "it says this was done"
                elif named and shared and score >= RESOLVES_WITH_PERSON:
                    why = f"{item.who} answered"
            elif item.type == "question_opened" and unit.label in ("decision", "change_of_mind"):
                if score >= ANSWERS_QUESTION and shared:
                    why = "a decision on the same subject"
            if why and (best is None or score > best[0]):
                best = (score, unit, why)
        if best is not None:
            score, unit, why = best
            proposals.append(Proposal(item.key, item.type, "resolves", unit.text, score, why))
    return proposals


# What a replacement says besides its new value: the clause says the mind or the plan changed.
_CHANGE_CUE = re.compile(
    r"\b(?:moved|moving|changed|change|switch\w*|swapp?\w*|instead|after all|in the end|now|"
    r"no longer|not any ?more|anymore|cancel\w*|final(?:ly)?|actually|rather than|not)\b",
    re.I,
)
# Entities that are a value of something (when, where, how much), never what it is about, by
# the kind of value they are: a date replaces a date, an amount an amount.
_VALUE_KINDS = {
    "DATE": "when", "TIME": "when", "MONEY": "amount", "CARDINAL": "amount",
    "QUANTITY": "amount", "PERCENT": "amount", "ORDINAL": "when", "GPE": "where",
    "LOC": "where", "FAC": "where", "ORG": "who", "PRODUCT": "what",
}  # fmt: skip
# A time of day however the parser tags it: "3:15", "2.45", "5pm".
_CLOCK = re.compile(r"\d{1,2}[:.]\d{2}(?:am|pm)?|\d{1,2}(?:am|pm)")
_GENERIC_NOUNS = frozenset(
    "thing things time times day days week weeks bit lot way place kind sort stuff one".split()
)


@dataclass(frozen=True)
class _Described:
    topic: frozenset[str]  # what it is about: common nouns, people who are not the household
    values: frozenset[str]  # its values: numbers, dates, times, places, amounts
    kinds: frozenset[tuple[str, str]]  # (kind, value): ("when", "19"), ("amount", "465")
    people: frozenset[str]  # the people among the topic


# The kinds of value the one parser reads (talkingrock/language/values.py), as this stage weighs
# them: a time replaces a time, a day a day, a weekday (or a schedule's days) a weekday, money
# money. "Pickup moved to 3:30 now" replaces "pickup is at 3pm", not "Maya does pickup mon tue
# thu" (days, not a time) nor "Fridays are grandma's day".
_PARSED_KINDS = {
    "time": "time", "date": "day", "month": "day", "year": "day", "weekday": "weekday",
    "amount": "amount", "number": "amount",
}  # fmt: skip


def _describe(texts: list[str], household: set[str]) -> list[_Described]:
    described = []
    for text, doc in zip(texts, nlp.parse(texts), strict=True):
        topic, values, people, kinds = set(), set(), set(), set()
        # Values as the one parser reads them ("sat 19 sept", "3:30 now, not 3pm"): the words
        # spaCy reads them by are left to the topic.
        for kind, value in said_values.values_of(text).all():
            values.add(value)
            kinds.add((_PARSED_KINDS[kind], value))
        for token in doc:
            lemma = token.lemma_.casefold()
            if token.is_punct or token.is_stop or len(lemma) < 2:
                continue
            if token.like_num or token.ent_type_ in _VALUE_KINDS or _CLOCK.fullmatch(lemma):
                values.add(lemma)
                if token.ent_type_ in ("GPE", "LOC", "FAC", "ORG", "PRODUCT"):
                    kinds.add((_VALUE_KINDS[token.ent_type_], lemma))
            elif token.ent_type_ == "PERSON" or token.pos_ == "PROPN":
                if lemma not in household:
                    topic.add(lemma)
                    people.add(lemma)
            elif token.pos_ == "NOUN" and lemma not in _GENERIC_NOUNS:
                topic.add(lemma)
        described.append(
            _Described(frozenset(topic), frozenset(values), frozenset(kinds), frozenset(people))
        )
    return described


def _replaces(old: _Described, new: _Described, *, choice: bool) -> bool:
    """The same thing with another value: they share what it is about (a thing, not only a
    person, when either names a thing), and the new one has a value of a kind the old one has
    but not the old value ("3:15" / "2:45"); for a choice, the thing chosen is the value ("oak
    butcher block worktops" / "quartz worktops")."""
    shared = old.topic & new.topic
    things = (old.topic - old.people) & (new.topic - new.people)
    if not shared or (not things and old.topic - old.people and new.topic - new.people):
        return False
    if choice:
        return bool((old.topic | old.values) - shared - new.values) and bool(
            (new.topic | new.values) - shared - old.values
        )
    # A new value of a kind the old one has ("2:45 now, not 3:15" repeats the old value).
    came = new.kinds - old.kinds
    return bool({kind for kind, _ in old.kinds} & {kind for kind, _ in came})


def _context(reading, unit: Unit) -> str:
    """What a terse clause answers or follows ("sat 19 sept" after "Han has moved the
    wedding"): the assistant's question before it and the member's clause before it."""
    before = reading.units[unit.index - 1].text if unit.index > 0 else ""
    return " ".join(part for part in (unit.answers, before) if part)


def supersessions(extraction: Extraction, current: list[Earlier]) -> list[Proposal]:
    """Earlier decisions and facts a new decision, change of mind or fact replaces: the same
    thing, another value, close in meaning — closer still when the clause does not say it
    changed. A terse clause ("sat 19 sept now") is read with what it follows."""
    reading = extraction.reading
    new = [
        (fact.text, fact.relation, reading.units[fact.unit])
        for fact in extraction.facts
        if reading.units[fact.unit].label in ("decision", "change_of_mind", "fact")
    ]
    subjects = [
        fact.subject
        for fact in extraction.facts
        if reading.units[fact.unit].label in ("decision", "change_of_mind", "fact")
    ]
    if not new or not current:
        return []
    household = {part.casefold() for name in reading.household for part in name.split()}
    household |= {part.casefold() for part in reading.member.split()}
    contexts = [_context(reading, unit) for _, _, unit in new]
    texts = [text for text, *_ in new]
    described = _describe(
        [item.text for item in current]
        + texts
        + [f"{c} {t}" for c, t in zip(contexts, texts, strict=True)],
        household,
    )
    olds = described[: len(current)]
    alone, around = described[len(current) : len(current) + len(new)], described[-len(new) :]
    scores = _similarities([item.text for item in current], texts)
    in_context = _similarities([item.text for item in current], [f"{c} {t}" for c, t in zip(contexts, texts, strict=True)])  # fmt: skip
    proposals = []
    for row, item in enumerate(current):
        best = None
        for column, (text, relation, unit) in enumerate(new):
            if text == item.text:
                continue
            if item.relation and relation and item.relation != relation:
                if {item.relation, relation} - {"choice", "state"}:
                    continue
            choice = item.type == "decision" and unit.label in ("decision", "change_of_mind")
            terse = not (alone[column].topic - alone[column].people)
            seen = around[column] if terse else alone[column]
            if not _replaces(olds[row], seen, choice=choice):
                continue
            said_so = unit.label == "change_of_mind" or bool(_CHANGE_CUE.search(unit.text))
            score = float(max(scores[row, column], in_context[row, column] if terse else 0.0))
            if score >= (SUPERSEDES_CHANGE if said_so else SUPERSEDES):
                same_relation = bool(item.relation) and item.relation == relation
                same_subject = _about_the_same(item.subject, item.text, subjects[column], text)
                # Ticked when the relation matches and it says it changed (or it is a choice made
                # again), and it is about the same subject: the facts' subjects match, or it is a
                # choice said to change about the same thing (``_replaces`` found the thing both
                # name: "quartz worktops instead" / "butcher block for the worktops"), or, when
                # the two subjects are not both known, they are closer still in meaning.
                both_known = bool(item.subject) and bool(subjects[column])
                sure = (
                    same_relation
                    and score >= TICKED_AT_LEAST
                    and (said_so or choice)
                    and (same_subject or (choice and said_so) or (not both_known and score >= SURE))
                )
                if best is None or score > best[0]:
                    best = (score, unit, text, sure)
        if best is not None:
            score, unit, text, sure = best
            proposals.append(
                Proposal(
                    item.key,
                    item.type,
                    "supersedes",
                    unit.text,
                    score,
                    "the same subject, a new value"
                    if sure
                    else "perhaps the same thing; check before accepting",
                    replacement=text,
                    sure=sure,
                )
            )
    return proposals
