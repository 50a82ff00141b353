"""The current word on a thing, and the one it replaced (conversations/answers.py tells them):
of the sentences that tell what the best one tells, the one said last (the first, for a question
about the past), and the earlier one whose value differs. A later sentence tells the same thing
when it covers about as much of the question, or names the thing and says it changed, or strikes
out the very value the earlier one gives ("$118 a month now instead of 142"). Thresholds are the
constants below, set on the development households with ``bench/answers.py``."""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import date

from django.utils import timezone

from conversations.beyond_recall import LATER_RANK, said_later, struck_later
from conversations.candidates import (
    SUBJECT_SHARE,
    Candidate,
    coverage_of,
    held_value,
    is_narrative,
    share_of,
    time_only,
    value_of,
)
from conversations.kinds_asked import NAMES
from conversations.questions import Question
from conversations.said_next import continued
from conversations.sentence_values import day_of_month, replaced_in, same_day
from conversations.sums import amounts_in, asked_amounts
from conversations.terms import content_terms, stem, words_of
from talkingrock.language import dates, tense, values
from talkingrock.language.offline.lexicon import normalise
from talkingrock.language.words import zipf

# Sentences that cover at least this share of what the best one covers, and hold a value of the
# same kind, tell the same thing: the one said last is the current one.
SAME_THING = 0.75
# A later word that names less of the thing, and only gives another value without saying it
# changed, must still cover this share of what the best one covers: "she's charging €520" after
# "Maeve is doing it again, €450", not "owe €1,960".
LOOSE_SHARE = 0.5
# A sum and its update are of a size: the new one at most this many times the old, or the old
# this many times the new ("$2,100 instead of the 1850"; "18 months, not 22").
UPDATE_RATIO = 2.5
# An earlier word that names none of the question's words is its "before" only as a bare reply:
# a value and at most this many other words, each a common one (Zipf ``COMMON_WORD``, once in
# ten thousand words): "910", "thursday 25th, needs it for two days"; not a sentence about
# another thing ("the grout samples should be here by the 12th").
BARE_TERMS = 3
_NOW = re.compile(r"\bnow\b", re.I)
COMMON_WORD = 5.0


def _tells_the_same(c: Candidate, best: Candidate, question: Question, subject: set[str]) -> bool:
    """Whether ``c``, which holds a value of the kind asked for, tells what ``best`` tells (so
    that one of them replaced the other). ``subject``: the question's words ``best`` holds."""
    if not _same_measure(best, c, question):
        return False
    if _struck_in_the_same_talk(c, best, question):
        return True
    names_it = share_of(subject, c.terms, question) >= SUBJECT_SHARE and _names_the_thing(
        c, question, subject
    )
    if c.said_on.date() == best.said_on.date():
        # Said the same day, another sentence with a value is about another thing ("a recheck
        # next tues at 4:10" beside "yeast infection in the left ear") unless it names the same
        # thing and says it changed.
        return names_it and values.tells_a_change(best.sentence, c.sentence)
    if coverage_of(c, question) >= SAME_THING * coverage_of(best, question):
        return True
    if question.about_the_past and c.said_on < best.said_on:
        # The earlier word on the same thing: "£25 for a basic service" before "put the basic
        # service up to £30".
        return names_it
    # One is a later word on the same thing that says it changed, though one of them names
    # less of it: "football's moved to wednesdays at 5" after "Fionn has football on
    # thursdays"; "orla's doing my return again, £380" before "shes charging £410 now".
    earlier, later = (best, c) if c.said_on > best.said_on else (c, best)
    struck = struck_in(later, question.wanted)
    if (
        struck
        and same_value(struck, value_of(earlier, question))
        and subject & (c.terms | c.around)
    ):
        # The later one says it replaced the very value the earlier one gives: "$118 a month now
        # instead of 142" after "adding Lena would be $142 a month".
        return True
    if c is earlier and not _names_any(c, question) and not _bare(c):
        # An earlier word that only its conversation ties to the thing: a sentence beside it
        # there ("the shed moved on saturday", before "the defib went up") tells another.
        return False
    if question.happened and _planned_then_done(earlier, later) and subject & later.terms:
        # "when did spectrum install our internet": "install booked for monday the 20th", then
        # "spectrum finally came out last thursday".
        return True
    return (
        names_it
        or (
            c.rank < LATER_RANK  # found for the question: its conversation may name it
            and (
                # it names the thing, and says it changed or covers enough of the question
                (
                    subject & c.terms
                    and (
                        values.says_it_changed(later.sentence)
                        or coverage_of(c, question) >= LOOSE_SHARE * coverage_of(best, question)
                    )
                )
                # or only the words said around it name it (its conversation's other hits, or
                # the turns just before it: "Anything on the formal?" before "now thurs 19
                # nov"), more than by one word of it ("tuesday", beside "Bernie's hours
                # changed", for Eva's swimming), and the later one says it changed: not
                # "fridays r tight if I have a late pt", told beside Sami's swim meet
                # (a narrative's sentence is the compression's, not a bare word of the member's:
                # what its conversation said beside it is no part of it)
                or (
                    not is_narrative(c.hit.memory)
                    and share_of(subject, c.context, question) >= SUBJECT_SHARE
                    and values.says_it_changed(later.sentence)
                )
            )
        )
    ) and values.tells_a_change(earlier.sentence, later.sentence)


def _struck_in_the_same_talk(c: Candidate, best: Candidate, question: Question) -> bool:
    """Whether ``c``, said after ``best`` in the same conversation, strikes out the very value
    ``best`` gives: "6300", then "sorry 6350 not 6300". The figure said and struck ties them,
    though neither names the thing."""
    conversation = best.hit.memory.conversation_id
    if conversation is None or c.hit.memory.conversation_id != conversation:
        return False
    if c.said_on <= best.said_on:
        return False
    struck = struck_in(c, question.wanted)
    return bool(struck) and same_value(struck, value_of(best, question))


def _names_the_thing(c: Candidate, question: Question, subject: set[str]) -> bool:
    """Whether ``c`` names what ``subject`` is about, not only whom: "the garlic went in last
    Sunday, Sanjay and Arjun did it" names Arjun, not his mock."""
    thing = subject - question.persons
    return not thing or any(question.covers(term, c.terms) for term in thing)


def _names_any(candidate: Candidate, question: Question) -> bool:
    """Whether ``candidate`` itself says any of the question's words."""
    return any(question.covers(term, candidate.terms) for term in question.weights)


def _bare(candidate: Candidate) -> bool:
    """Whether ``candidate`` says little beside the days and times it names."""
    text = candidate.sentence
    said_on = timezone.localtime(candidate.said_on).date()
    for mention in reversed(dates.find(text, today=said_on)):
        text = f"{text[: mention.start]} {text[mention.end :]}"
    terms = content_terms(text)
    said = [word for word in words_of(normalise(text)) if stem(word) in terms]
    return len(terms) <= BARE_TERMS and all(zipf(word) >= COMMON_WORD for word in said)


def _planned_then_done(earlier: Candidate, later: Candidate) -> bool:
    """Whether ``earlier`` tells something ahead and ``later`` tells it done."""
    return tense.lean_of(earlier.sentence) != "past" and tense.lean_of(later.sentence) == "past"


def _same_measure(one: Candidate, other: Candidate, question: Question) -> bool:
    """Whether two sums can be one value and its update: not a price each and a fee a week,
    nor a fee of £410 and the £2,240 of tax owed (an update is within ``UPDATE_RATIO`` of the
    value it replaces)."""
    if question.wanted != "amount":
        return True
    pers = [{a.per for a in amounts_in(c)} - {""} for c in (one, other)]
    if pers[0] and pers[1] and not pers[0] & pers[1]:
        return False
    sums = [asked_amounts(c, question)[:1] for c in (one, other)]
    if not (sums[0] and sums[1]):
        return True
    low, high = sorted(abs(float(found[0].value)) for found in sums)
    return high <= UPDATE_RATIO * low


def _said_now_after(
    best: Candidate, alike: list[Candidate], scored: list[Candidate], question: Question
) -> list[Candidate]:
    """The clauses a long message goes on to with a value said "now", after a clause of it that
    tells the same thing: "the party moved … a home game October third …", then "… so it's
    Saturday October tenth now"; after ``best`` itself, one that covers the question as well
    ("The vote was set for the 14th. It is now on the 21st": "it" is the vote)."""
    taken = {id(c) for c in [best, *alike]}
    found = []
    for c in scored:
        if id(c) in taken or not _NOW.search(c.sentence):
            continue
        if not held_value(c, question.wanted, about=question.about):
            continue
        told = [*alike]
        if coverage_of(c, question) >= SAME_THING * coverage_of(best, question):
            told.append(best)
        content = c.hit.memory.content
        at = content.find(c.sentence[:40])
        if at > 0 and any(
            other.hit.memory_id == c.hit.memory_id and 0 <= content.find(other.sentence[:40]) < at
            for other in told
        ):
            found.append(c)
            taken.add(id(c))
    return found


def current_and_before(
    best: Candidate,
    scored: list[Candidate],
    question: Question,
    owner=None,
    *,
    today: date | None = None,
) -> tuple:
    """Of the sentences that tell what ``best`` tells, the current one (the last said; the first
    for a question about the past) and the one it replaced, if their values differ. ``today``:
    the day asked, after which no day is one something happened on."""
    if question.options and not question.wanted:
        return _choice_now(best, scored, question)
    if question.wanted not in NAMES and not value_of(best, question):
        return best, None  # no value, so none that a later one replaced
    subject = {t for t in question.weights if question.covers(t, best.terms)}
    striking: list[Candidate] = []
    if owner is not None and not question.about_the_past and subject:
        later = said_later(owner, best, question, subject)
        # A later word that says the thing changed may give the new value a message on: "hen
        # moved", then "23rd".
        changes = [c for c in later if values.says_it_changed(c.sentence)]
        # A later word that strikes out the very value the best one gives tells the same thing,
        # though it names none of it: "our akl-raro on the 8th got cancelled … put us on thurs
        # 9th".
        striking = struck_later(owner, best, question)
        if question.happened and (day := day_of(best, question)) is not None:
            # What happened was called off, if at all, before it came: "hes not starting the
            # 8th", said in June, is no word on drawings that came in on Friday 8 May.
            striking = [c for c in striking if day >= timezone.localtime(c.said_on).date()]
        scored = [*scored, *later, *continued(changes, question, named=True), *striking]
    elif owner is not None and question.about_the_past and subject:
        scored = [*scored, *said_later(owner, best, question, subject, earlier=True)]
    struck_ids = {id(c) for c in striking}
    alike = [
        c
        for c in scored
        if c.hit.memory_id != best.hit.memory_id
        # a value it states, not only the day it was told on ("her teeth moved faster")
        and (
            held_value(c, question.wanted, about=question.about)
            if question.wanted
            else value_of(c, question)
        )
        # and for what happened, a day it happened on: not a schedule ("mondays and thursdays"),
        # nor a day still to come when asked
        and (
            not question.happened
            or (
                held_value(c, question.wanted, happened=True, about=question.about)
                and not (today and (day := day_of(c, question)) and day > today)
            )
        )
        and (id(c) in struck_ids or _tells_the_same(c, best, question, subject))
    ]
    if question.happened and tense.lean_of(best.sentence) == "past":
        # What happened was told as done: a day told later is of another time ("this morning",
        # of a second visit), unless it says the first was wrong.
        alike = [
            c
            for c in alike
            if c.said_on <= best.said_on
            or values.says_it_changed(c.sentence)
            or values.corrected_from(c.sentence) is not None
        ]
    found_now = _said_now_after(best, alike, scored, question)
    said_now = {id(c) for c in found_now}
    alike += found_now
    told = [best, *alike]  # in the order they answer the question best
    order = {id(c): at for at, c in enumerate(told)}
    # The last said (the first for a question about the past); of two said together (two
    # clauses of one message), the one that answers better.
    if question.about_the_past:
        current = min(told, key=lambda c: (c.said_on, c.rank, order[id(c)]))
    else:
        # Of the clauses of one message, the one it goes on to with the value "now" comes
        # first: "… a home game October third …", then "… so it's Saturday October tenth now".
        current = max(told, key=lambda c: (c.said_on, -c.rank, id(c) in said_now, -order[id(c)]))
    # Nearest in time first; of those said together, the one that answers best ("eva has
    # swimming on tuesdays at five fifteen", not "… and Eva at two fifty" beside it).
    if question.about_the_past:
        told.sort(key=lambda c: (c.said_on, order[id(c)]))
    else:
        told.sort(key=lambda c: (c.said_on, -order[id(c)]), reverse=True)
    if current.hit.components.get("replaces") and not question.about_the_past:
        return current, None  # what it replaced is recorded: that is the "before"
    value = value_of(current, question)
    kind = value_kind(current, question)
    # "its tues may 12 now, not may 5": the sentence says what it replaced, so an earlier one
    # is its "before" only when it gives that value.
    struck = "" if question.about_the_past else struck_in(current, kind)
    for earlier in told:
        if earlier.hit.memory_id == current.hit.memory_id:
            continue
        # The earlier value of the same kind: a time before a time, not a schedule.
        other = (
            held_value(earlier, kind, happened=question.happened, about=question.about)
            if kind
            else value_of(earlier, question)
        )
        if other and other != value and earlier.said_on.date() != current.said_on.date():
            if struck and not same_value(struck, other):
                continue
            return _in_plan(current, earlier, question), earlier
    return current, None


def _choice_now(best: Candidate, scored: list[Candidate], question: Question) -> tuple:
    """For "wood or vinyl??": the last sentence that chose one of the two, and the one before
    it that chose the other ("going vinyl", then "wood or nothing" as what it replaced)."""
    chose = [c for c in scored if value_of(c, question)]
    if not chose:
        return best, None
    current = max(chose, key=lambda c: (c.said_on, -c.rank))
    earlier = [
        c
        for c in chose
        if c.said_on.date() < current.said_on.date()
        and value_of(c, question) != value_of(current, question)
    ]
    return current, max(earlier, key=lambda c: (c.said_on, -c.rank), default=None)


def _in_plan(current: Candidate, earlier: Candidate, question: Question) -> Candidate:
    """``current`` read as a change of the plan ``earlier`` gave, when that plan was still
    ahead: a day it names without a month is in the month nearest the plan's day ("hen moved",
    "23rd", of a hen do on Saturday 16 May: 23 May, not the 23rd after the day it was said)."""
    if question.wanted != "date" or earlier.said_on >= current.said_on:
        return current
    plan = day_of(earlier, question)
    if plan is None or plan < timezone.localtime(current.said_on).date():
        return current
    return replace(current, plan=plan)


def day_of(candidate: Candidate, question: Question) -> date | None:
    """The day the value ``candidate`` gives names, if it names one ("Saturday 16 May 2026")."""
    said = dates.first_day(
        value_of(candidate, question), today=timezone.localtime(candidate.said_on).date()
    )
    return said.day if said is not None else None


def struck_in(candidate: Candidate, kind: str | None) -> str:
    return replaced_in(
        candidate.sentence, kind, said_on=timezone.localtime(candidate.said_on).date()
    )


def same_value(one: str, other: str) -> bool:
    """Whether ``one`` gives the value ``other`` gives: its figures are all among the other's
    ("may 5" and "Tuesday 5 May 2026"), or, with none, its words ("Hession" and "Hession's
    bar"); of two days, the day of the month ("not the 4th", of 4 January)."""
    if day_of_month(one) is not None and day_of_month(other) is not None:
        return same_day(one, other)
    figures = [set(re.findall(r"\d+(?:[:.]\d+)?", text.replace(",", ""))) for text in (one, other)]
    if figures[0]:
        return figures[0] <= figures[1]
    said = content_terms(one)
    return bool(said) and said <= content_terms(other)


def value_kind(candidate: Candidate, question: Question) -> str | None:
    """The kind of value ``candidate`` answers with: for "when", a time when what it names is a
    time of day ("pickup moved to 3:30": a time, to set against a time), a schedule when it
    names one."""
    if time_only(candidate, question):
        return "time"
    if question.wanted == "date":
        # "shopping is wednesdays instead": a schedule, to set against a schedule
        value = value_of(candidate, question)
        if value and value == held_value(candidate, "schedule", about=frozenset(question.weights)):
            return "schedule"
    return question.wanted
