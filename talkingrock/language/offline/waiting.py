"""Waiting-ons: who owes the member what, and by when — read from the parse of the clause that
says it ("hes sending the quote by friday", "still waiting on the council for the permit",
"han said shell tell us what the villa is per couple", "the school said they'd let us know if
there's a place").

*Who* is the person (or the organisation: "the school", "the agency") who does the owing: the
subject of the promise, whoever one waits on or hears from, or else the one person the clause
names. *What* is the thing owed: what one waits for, the object of the verb of delivering
("sending the quote"), what they will tell ("what the villa is per couple", "whether there's a
place"), or what the member asked them about in the clause before. A clause that names no one
who owes anything is not a waiting-on.
"""

from __future__ import annotations

from datetime import date

from talkingrock.language import dates, spoken
from talkingrock.language.offline import phrases
from talkingrock.language.offline.reading import Unit

# Verbs of delivering or answering: their object is what is owed.
OWED_VERBS = frozenset(
    """send give get quote confirm tell call ring email text reply answer come bring pay fix
    drop deliver sort post book check let know find return refund arrange forward share""".split()
)
_WAITING = frozenset({"wait", "waiting", "chase", "chasing", "await", "awaiting"})
_FROM = frozenset({"on", "for", "from"})
_ABOUT = frozenset({"about", "on", "for", "re", "regarding"})
_PERSON_PRONOUNS = frozenset({"me", "us", "him", "her", "them", "you", "it", "that", "this"})
# Nouns for the bodies that owe households things: "the school said they'd let us know".
ORGANISATIONS = frozenset(
    """school nursery college university council agency garage bank hospital surgery practice
    clinic office company firm insurer insurers shop store bakery caterer caterers landlord
    landlady letting agent agents solicitor solicitors builders builder plumber electrician
    club pub venue hotel airline nhs gp dentist vet pharmacy library church hr team employer
    recruiter lender mortgage broker estate""".split()
)


def _person_at(unit: Unit, token) -> str:
    """The person a token names or means, or ""."""
    if token.i in unit.referents:
        return unit.referents[token.i].name
    if token.i in unit.likely:
        return unit.likely[token.i].name
    for person in unit.people:
        if token.lower_ in {part.casefold() for part in person.name.split()}:
            return person.name
    return ""


def _phrase(unit: Unit, token) -> str:
    """The token's subtree as words, names capitalised and pronouns resolved."""
    return phrases.words_of(sorted(token.subtree, key=lambda t: t.i), unit.referents)


def _organisation(token) -> str:
    """ "the school", "the agency", "the garage": a definite noun that acts like a person."""
    if token.lower_ not in ORGANISATIONS or token.pos_ not in ("NOUN", "PROPN"):
        return ""
    return f"the {token.text}"


def who_owes(unit: Unit) -> str:
    tokens = unit.tokens
    # Whoever one waits on, hears from or chases.
    for token in tokens:
        if token.lemma_.lower() in _WAITING | {"hear", "heard"}:
            for child in token.children:
                if child.dep_ == "dobj" and (person := _person_at(unit, child)):
                    return person
                if child.dep_ == "prep" and child.lower_ in _FROM:
                    for obj in (c for c in child.children if c.dep_ == "pobj"):
                        if person := _person_at(unit, obj) or _organisation(obj):
                            return person
    # The subject of the promise or the delivery.
    for token in tokens:
        if token.dep_ in ("nsubj", "nsubjpass") and (person := _person_at(unit, token)):
            return person
    for token in tokens:
        if token.dep_ == "nsubj" and (organisation := _organisation(token)):
            return organisation
    if unit.people:
        return unit.people[0].name
    if unit.referents:
        return next(iter(unit.referents.values())).name
    # "he'll ring me", "sending a proper quote by the 30th": the pronoun's likeliest person, or
    # whoever was named last when the clause has no subject.
    for token in tokens:
        if token.dep_ in ("nsubj", "nsubjpass") and token.i in unit.likely:
            return unit.likely[token.i].name
    has_subject = any(t.dep_ in ("nsubj", "nsubjpass", "expl") for t in tokens)
    if not has_subject and unit.likely_subject is not None:
        return unit.likely_subject.name
    return ""


def _owed_thing(unit: Unit, owner: str) -> str:
    tokens = unit.tokens
    who = {part.casefold() for part in owner.split()}

    def fits(token) -> bool:
        return (
            token.lower_ not in _PERSON_PRONOUNS
            and token.lower_ not in who
            and not _person_at(unit, token)
            and token.pos_ not in ("PRON", "PROPN")
            and token.ent_type_ not in ("DATE", "TIME")
        )

    # "waiting on the council for the permit", "chasing gerry about the part": a preposition of
    # the waiting itself, or of whoever is waited on — not one deeper in ("waiting on Alex to
    # send the contract for the kitchen" waits for the contract, not the kitchen).
    for token in tokens:
        if token.lemma_.lower() in _WAITING:
            waited_on = [
                obj
                for prep in token.children
                if prep.dep_ == "prep" and prep.lower_ in _FROM
                for obj in prep.children
                if obj.dep_ == "pobj"
            ]
            for head in (token, *waited_on):
                for prep in (c for c in head.children if c.dep_ == "prep" and c.lower_ in _ABOUT):
                    for obj in (c for c in prep.children if c.dep_ == "pobj"):
                        if fits(obj):
                            return _phrase(unit, obj)
    # "sending the quote", "get back to me with a date", "tell us what the villa is"
    for token in tokens:
        if token.lemma_.lower() not in OWED_VERBS:
            continue
        for child in token.children:
            if child.dep_ in ("dobj", "attr") and fits(child):
                return _phrase(unit, child)
            if child.dep_ in ("ccomp", "advcl") and any(
                c.dep_ == "mark" and c.lower_ in ("if", "whether") for c in child.children
            ):
                words = [t for t in child.subtree if t.lower_ not in ("if", "whether")]
                return "whether " + phrases.words_of(words, unit.referents)
            if child.dep_ == "ccomp" and any(t.tag_ in ("WP", "WRB") for t in child.subtree):
                return _phrase(unit, child)
            if child.dep_ == "prep" and child.lower_ in ("with", "about"):
                for obj in (c for c in child.children if c.dep_ in ("pobj", "pcomp")):
                    if fits(obj) or obj.dep_ == "pcomp":
                        return _phrase(unit, obj)
    # "landlord says decorator in aug": what they say is coming.
    for token in tokens:
        if token.lemma_.lower() in ("say", "promise") and token.pos_ == "VERB":
            for child in (c for c in token.children if c.dep_ in ("ccomp", "dobj")):
                if child.lemma_.lower() not in OWED_VERBS and fits(child):
                    words = [t for t in child.subtree if t.dep_ not in ("nsubj",) or fits(t)]
                    return phrases.words_of(words, unit.referents)
    for token in tokens:
        if token.lower_ in _ABOUT and token.dep_ == "prep":
            for obj in (c for c in token.children if c.dep_ == "pobj"):
                if fits(obj):
                    return _phrase(unit, obj)
    return ""


def _asked_about(previous: Unit | None, owner: str) -> str:
    """ "asked gemma about the salary band and she … said she'd get back to me": what the member
    asked the same person about, in the clause before."""
    if previous is None or not owner:
        return ""
    named = {p.name for p in previous.people} | {p.name for p in previous.referents.values()}
    if owner not in named:
        return ""
    return _owed_thing(previous, owner)


def _promised(unit: Unit, owner: str) -> str:
    """What they said they would do, when nothing names the thing: "he'd text when they
    arrive" → "text when they arrive"."""
    who = {part.casefold() for part in owner.split()}
    for token in unit.tokens:
        if token.lemma_.lower() not in OWED_VERBS or token.pos_ != "VERB":
            continue
        subject = next((c for c in token.children if c.dep_ == "nsubj"), None)
        if subject is None or not (subject.lower_ in who or _person_at(unit, subject) == owner):
            continue
        skip = {t.i for t in subject.subtree} | {
            c.i for c in token.children if c.dep_ in ("aux", "neg", "advmod")
        }
        words = [t for t in token.subtree if t.i not in skip]
        return phrases.words_of(words, unit.referents)
    return ""


def waiting(unit: Unit, today: date, previous: Unit | None = None) -> dict[str, str] | None:
    """The waiting-on a clause states, or None when it names no one who owes anything."""
    who = who_owes(unit)
    if not who:
        return None
    what = _owed_thing(unit, who) or _asked_about(previous, who) or _promised(unit, who)
    if not what:
        return None
    row = {"who": phrases.tidy(who), "what": phrases.tidy(what), "since": today.isoformat()}
    # The day it is owed by, beside the words ("by friday" → 27 November 2026).
    days = [m for m in dates.find(unit.text, today=today) if m.day is not None]
    if days:
        row["by"] = spoken.spoken(days[-1].day)
        row["due"] = days[-1].day.isoformat()
    return row
