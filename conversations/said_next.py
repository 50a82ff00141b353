"""A message read with what the member said next: the rest of the message or the next few
messages, when what was found names the thing asked about but not its value ("mareks quote
finally came thru", then "24.6k all in"); and a message read with the next one that corrects it
("on the 2nd at 9:15", then "wait no, 9:45"), the corrected sentence left out."""

from __future__ import annotations

from dataclasses import replace

from django.db.models import Q
from django.utils import timezone

from conversations.candidates import (
    MIN_COVERAGE,
    NEW_SUBJECT,
    VALUE_KINDS,
    Candidate,
    by_subject,
    same_sentence,
    time_only,
    told_only,
    value_of,
)
from conversations.models import Message
from conversations.questions import Question
from conversations.sentence_values import value_in
from conversations.terms import said_terms
from memories.models import Memory
from talkingrock.language import values

FOLLOWING = 2  # positions: the member's next message (the assistant's reply comes between)
CHANGE_BURST = 2  # positions further, for the message that tells what a change told is
BURST_VALUE = 3  # messages of a burst read on to the first that gives a value


def continued(
    candidates: list[Candidate], question: Question, *, named: bool = False
) -> list[Candidate]:
    """What was said and what the member said next, read as one: "mareks quote finally came
    thru" then "24.6k all in, fitting cabinets tiling". For each message that covers the
    question but holds no value of the kind asked for (for "when did …", no day but the one it
    was told on; for "when …", a time and no day), once: the rest of the message when the
    sentence is not its last ("Sal's said brakes. Front pads and rotors, $260."), else what the
    member said next (``_told_next``). ``named``: the candidates are known to name what is asked
    of (a later word found by its words), however little of the question they cover."""
    preference = question.wanted == "preference"
    if (
        question.wanted not in VALUE_KINDS
        and question.wanted not in ("date", "place")
        and not preference
    ):
        return []
    lacking = [
        c
        for c in candidates
        if c.hit.memory.kind == Memory.Kind.SAID
        and c.hit.memory.message_id is not None
        and (
            # what someone would rather, and why: the reason is often the next thought
            # ("rather petrol than diesel", then "dpf clogs on short runs")
            value_of(c, question)
            if preference
            else (named or question.coverage(c.terms, c.context) >= MIN_COVERAGE)
            and (not value_of(c, question) or told_only(c, question) or time_only(c, question))
        )
    ]
    # Once per message: the sentence that covers most of the question in its own words (not
    # one that covers it only by what was said around it, read last).
    lacking.sort(key=lambda c: question.coverage(c.terms))
    following = {c.hit.memory.message_id: (c, _rest_of_message(c)) for c in lacking}
    # The rest of the message; for a change told of what is asked (``named``), only when it
    # gives the value, else what the member said next too ("Lagoon Pearl can only take 350
    # seated so we have to move. Mummy nearly fainted.", then "We've moved it to Royal Palm").
    asked = list(
        Message.objects.filter(
            pk__in=[
                pk
                for pk, (c, rest) in following.items()
                if not rest or (named and not _gives(rest, c, question))
            ]
        ).values_list("pk", "conversation_id", "position")
    )
    # A reason is the member's very next message, with no reply of the assistant between; a
    # change told ("cabin dates changed") is told in the few messages that follow it.
    reach = {
        pk: 1
        if preference
        else FOLLOWING + (CHANGE_BURST if values.says_it_changed(following[pk][0].sentence) else 0)
        for pk, _, _ in asked
    }
    windows = Q(pk__in=[])
    for pk, conversation_id, position in asked:
        windows |= Q(
            conversation_id=conversation_id,
            position__gt=position,
            position__lte=position + reach[pk],
        )
    said_after: dict[int, list[tuple[int, str, str]]] = {}
    turns = Message.objects.filter(windows).order_by("position")
    for conversation_id, position, role, content in turns.values_list(
        "conversation_id", "position", "role", "content"
    ):
        said_after.setdefault(conversation_id, []).append((position, role, content))
    for pk, conversation_id, position in asked:
        first = following[pk][0]
        after = [
            (role, content)
            for at, role, content in said_after.get(conversation_id, [])
            if position < at <= position + reach[pk]
        ]
        rest, then = following[pk][1], _told_next(first, after, question)
        following[pk] = (first, f"{rest} … {then}" if rest and then else rest or then)
    found = []
    for first, told in following.values():
        # up to where it opens another subject ("… ten weeks for the cheque), and, fyi, our
        # first month of hydro was $186")
        then = by_subject(told)[0] if told.strip() else ""
        if then and not NEW_SUBJECT.match(then):
            text = f"{first.sentence} … {then[:300]}"
            terms = said_terms(text)
            found.append(
                replace(
                    first,
                    sentence=text,
                    terms=terms,
                    around=first.around - terms,
                    before=first.before - terms,
                )
            )
    return found


def _gives(rest: str, first: Candidate, question: Question) -> bool:
    """Whether the rest of ``first``'s message says what was asked: any rest, for what someone
    would rather (its reason), else one that gives a value of the kind asked for."""
    if not rest or question.wanted == "preference":
        return bool(rest)
    return bool(value_in(rest, question.wanted, said_on=timezone.localtime(first.said_on).date()))


def _told_next(first: Candidate, turns: list[tuple[str, str]], question: Question) -> str:
    """What the member said next after ``first``, from the ``turns`` that follow it: their
    messages up to the assistant's next turn (the burst), read up to the one that says a change
    ``first`` tells holds now ("cabin dates changed", "its aug 8 + 9 in truro", "so were doing
    the 15th to 22nd now not 8th-15th": the days are read in the month said before them), else
    to the first that gives a value of the kind asked for ("gems hen do", "finally a date lol",
    "sat 16th may"), else the first."""
    burst = []
    for role, content in turns:
        if role == Message.Role.USER:
            burst.append(" ".join(content.split()))
        elif burst:
            break  # the assistant answered the burst
    if question.wanted == "preference" or not burst:
        return burst[0] if burst else ""
    said_on = timezone.localtime(first.said_on).date()
    upto = [
        n
        for n, said in enumerate(burst)
        if values.says_it_changed(first.sentence) and values.says_it_changed(said)
    ] or [
        n
        for n, said in enumerate(burst[:BURST_VALUE])
        if value_in(said, question.wanted, said_on=said_on)
    ]
    return " … ".join(burst[: upto[0] + 1] if upto else burst[:1])


def corrected(candidates: list[Candidate], question: Question) -> list[tuple[Candidate, Candidate]]:
    """A message read with the member's next one when that corrects it ("I'm taking her on the
    2nd at 9:15" then "wait no, 9:45. I wrote it down wrong"): each sentence so corrected, and
    the two read as one, where the value after the correction is the one that holds."""
    if question.wanted not in VALUE_KINDS and question.wanted not in ("date", "place"):
        return []
    # Of each message, the sentence the correction is of: one that gives a value of the kind
    # asked for, the one that covers the question most ("Tuesdays and Thursdays at 10:30 in the
    # morning. The copay is $40 per visit.", asked which days).
    said: dict[int, Candidate] = {}
    for c in candidates:
        if c.hit.memory.kind != Memory.Kind.SAID or c.hit.memory.message_id is None:
            continue
        mine = c.hit.memory.message_id
        if mine not in said or _correctable(c, question) > _correctable(said[mine], question):
            said[mine] = c
    said_at = Message.objects.filter(pk__in=said).values_list("pk", "conversation_id", "position")
    said_at = list(said_at)
    # The member's next message: right after, or after the assistant's reply (a message right
    # after another is that one's next, not the one before's).
    wanted = {(conversation_id, position + 2): pk for pk, conversation_id, position in said_at}
    wanted |= {(conversation_id, position + 1): pk for pk, conversation_id, position in said_at}
    if not wanted:
        return []
    following = Message.objects.filter(
        role=Message.Role.USER,
        conversation_id__in={conversation_id for conversation_id, _ in wanted},
        position__in={position for _, position in wanted},
    ).values_list("conversation_id", "position", "content")
    found = []
    for conversation_id, position, content in sorted(following, key=lambda row: row[1]):
        first = said.pop(wanted.get((conversation_id, position)), None)
        text = " ".join(content.split())
        if first is None or values.corrected_from(text) is None:
            continue
        joined = f"{first.sentence} … {text[:300]}"
        terms = said_terms(joined) | first.terms  # with the question it replies to
        read = replace(
            first,
            sentence=joined,
            terms=terms,
            around=first.around - terms,
            before=first.before - terms,
        )
        found.append((first, read))
    return found


def _correctable(c: Candidate, question: Question) -> tuple[bool, float]:
    return bool(value_of(c, question)), question.coverage(c.terms)


def without_corrected(
    candidates: list[Candidate], corrections: list[tuple[Candidate, Candidate]]
) -> list[Candidate]:
    """``candidates`` less each sentence a correction replaced, and less the facts kept of
    such a sentence in the same conversation: "Tuesdays and Thursdays at 10:30", kept before the
    next message said "I must correct what I just wrote … Tuesdays and FRIDAYS"."""
    gone = {(said.hit.memory_id, said.sentence) for said, _ in corrections}
    kept_of = {
        (said.hit.memory.conversation_id, same_sentence(said.sentence)) for said, _ in corrections
    }
    return [
        c
        for c in candidates
        if (c.hit.memory_id, c.sentence) not in gone
        and not (
            c.hit.memory.kind == Memory.Kind.FACT
            and (c.hit.memory.conversation_id, same_sentence(c.sentence)) in kept_of
        )
    ]


def _rest_of_message(candidate: Candidate) -> str:
    """What the member said after ``candidate`` in the same message ("" when it ends it)."""
    content = " ".join(candidate.hit.memory.content.split())
    at = content.find(candidate.sentence)
    return content[at + len(candidate.sentence) :].strip() if at >= 0 else ""
