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

from conversations.offline.pipeline import Extraction
from conversations.offline.reading import Unit
from talkingrock import embeddings

# Cosine of MiniLM embeddings between an earlier item and a clause of this conversation.
RESOLVES_WITH_PERSON = 0.30  # the person it is about is named or meant
RESOLVES_ALONE = 0.55
SUPERSEDES = 0.55
SUPERSEDES_CHANGE = 0.45  # the clause itself says the mind changed
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


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9]+", text.casefold()) if w not in _STOP and len(w) > 2}


def _stemmed(text: str) -> set[str]:
    return {w[:-1] if w.endswith("s") and len(w) > 3 else w for w in _words(text)}


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


def supersessions(extraction: Extraction, current: list[Earlier]) -> list[Proposal]:
    """Earlier decisions and facts a new decision, change of mind or fact replaces."""
    new = [
        (fact.text, fact.subject, fact.relation, extraction.reading.units[fact.unit])
        for fact in extraction.facts
        if extraction.reading.units[fact.unit].label in ("decision", "change_of_mind", "fact")
    ]
    if not new or not current:
        return []
    scores = _similarities([item.text for item in current], [text for text, *_ in new])
    proposals = []
    for row, item in enumerate(current):
        best = None
        for column, (text, subject, relation, unit) in enumerate(new):
            score = float(scores[row, column])
            same_subject = bool(subject) and (
                subject == item.subject or subject in _stemmed(item.text)
            )
            same_relation = relation == item.relation or (
                {relation, item.relation} <= {"choice", "state"}
            )
            threshold = SUPERSEDES_CHANGE if unit.label == "change_of_mind" else SUPERSEDES
            if same_subject and same_relation and score >= threshold and text != item.text:
                if best is None or score > best[0]:
                    best = (score, unit, text)
        if best is not None:
            score, unit, text = best
            proposals.append(
                Proposal(
                    item.key,
                    item.type,
                    "supersedes",
                    unit.text,
                    score,
                    "the same subject, a new value",
                    replacement=text,
                )
            )
    return proposals
