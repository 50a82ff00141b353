"""Sums worked out from what was said (conversations/answers.py adds them to an answer): a
difference ("how much under budget": £28,000 against £24,600) and a total of so many at a price
each ("40 at $22 each"), with the sentences that hold the figures, found in another conversation
when the answer's own sentences hold only one."""

from __future__ import annotations

import re

from django.utils import timezone

from conversations.beyond_recall import LATER_RANK, said_in, said_later
from conversations.candidates import (
    MIN_COVERAGE,
    SUBJECT_SHARE,
    Candidate,
    coverage_of,
    share_of,
)
from conversations.questions import Question, stem
from conversations.sentence_values import counted_of, counts_said, nearest_first
from talkingrock.language import amounts, dates
from talkingrock.language.offline.lexicon import normalise
from talkingrock.language.values import struck_out

# Questions that ask for a sum worked out from what was said: a difference ("how much under
# budget", "how much did switching save", "how much do I still owe") or a total of so many at a
# price each ("how much will 40 planters at $22 each come to").
DIFFERENCE = re.compile(
    r"\bhow much (?:more|less|extra|over|under|cheaper|dearer|higher|lower)\b|"
    r"\b(?:under|over) (?:the )?(?:budget|quote|estimate)\b|\bsave[ds]?\b|\bsaving\b|"
    r"\bstill owe\b|\bleft to pay\b|\bdifference\b",
    re.I,
)


# A total: "in total", "come to", "all in", "all up", "all told", or what so many brought in
# ("how much did the tables bring in").
TOTAL = re.compile(
    r"\b(?:in total|altogether|all together|come to|total|all (?:in|up|told)|in all|"
    r"br(?:ing|ings|inging|ought) in)\b",
    re.I,
)


def asks_for_a_sum(question: str) -> bool:
    """Whether ``question`` asks for a difference or a total worked out from what was said."""
    text = normalise(question)
    return bool(TOTAL.search(text) or DIFFERENCE.search(text))


def amounts_in(candidate: Candidate) -> list:
    """The sums of money (or bare numbers) ``candidate`` says, outside its dates."""
    said_on = timezone.localtime(candidate.said_on).date()
    skip = [(m.start, m.end) for m in dates.find(candidate.sentence, today=said_on)]
    found = amounts.find(candidate.sentence, skip=skip, asked_for_a_sum=True)
    return [a for a in found if a.is_money or not a.unit]


def _counts_said(candidate: Candidate, of: str = "") -> list[tuple[int, bool]]:
    """The plain counts ``candidate`` says ("told Mel 68"), outside its dates and sums, each
    with whether it is said as the one that no longer holds ("40 planters, not 30"). ``of``:
    only the counts of that thing ("32 tables", for a price "a table")."""
    said_on = timezone.localtime(candidate.said_on).date()
    return [
        (n, struck_out(candidate.sentence, start))
        for start, end, n in counts_said(candidate.sentence, said_on=said_on)
        if not of or counted_of(candidate.sentence, end) == stem(of)
    ]


def _counts_in(candidate: Candidate, of: str = "") -> list[int]:
    """The counts ``candidate`` says that still hold (of ``of`` only, when given)."""
    return [n for n, struck in _counts_said(candidate, of) if not struck]


def _price_each(chosen: list[Candidate]):
    return next((a for c in chosen for a in amounts_in(c) if a.per == "each"), None)


def price_each(question: Question, chosen: list[Candidate], scored: list[Candidate]):
    """For a total whose sentences give no price each: the best sentence that covers the
    question and gives one ("24 of my lemon cakes at £3 each", when the best one says how many
    they want now and what else went up)."""
    if _price_each(chosen) is not None:
        return None
    taken = {c.hit.memory_id for c in chosen}
    return next(
        (
            c
            for c in scored
            if c.hit.memory_id not in taken
            and coverage_of(c, question) >= MIN_COVERAGE
            and any(a.per == "each" for a in amounts_in(c))
        ),
        None,
    )


def latest_count(
    owner, question: Question, chosen: list[Candidate], scored: list[Candidate]
) -> Candidate | None:
    """For a total at a price each: the last thing said about the same thing that gives how
    many ("Told Mel 68", or "her 40 planters" after "wants 30 at $22 each"), unless that is a
    sentence already chosen."""
    first = chosen[0]
    subject = {t for t in question.weights if question.covers(t, first.terms | first.context)}
    if not subject or _price_each(chosen) is None:
        return None
    pool = list(scored) + (said_later(owner, first, question, subject) if owner else [])
    chosen_counts = {n for c in chosen for n in _counts_in(c)}
    each_of = _price_each(chosen).each_of
    counted = []
    for c in [*chosen, *pool]:
        said = _counts_said(c)
        # About the same thing by its words, or by striking out the very count chosen: "she's
        # bumped it to 40 planters, not 30!!" after "wants 30 … at $22 each" names it as "it";
        # or a count of the very thing the price is each of ("32 tables", for "€40 a table").
        if any(not struck for _, struck in said) and (
            share_of(subject, c.terms, question) >= SUBJECT_SHARE
            or any(struck and n in chosen_counts for n, struck in said)
            or (each_of and _counts_in(c, each_of))
        ):
            counted.append(c)
    if not counted:
        return None
    latest = max(counted, key=lambda c: (c.said_on, -c.rank))
    # A sentence, not its message: "… came thru in writing" may be chosen, and "but she's
    # upped it to 60" after it in the same message is still to add.
    taken = {(c.hit.memory_id, c.sentence) for c in chosen}
    return None if (latest.hit.memory_id, latest.sentence) in taken else latest


def other_amount(
    owner, question: Question, chosen: list[Candidate], scored: list[Candidate]
) -> Candidate | None:
    """For a difference whose sentences hold one amount: the sentence about the same thing
    (most of what the first one names of the question) that holds another amount."""
    amounts_held = [a for c in chosen for a in amounts_in(c)]
    held = {a.value for a in amounts_held}
    currency = next((a.currency for a in amounts_held if a.currency), "")
    first = chosen[0]
    # What it is about, in its words or its conversation's ("he quoted €780", about the clutch).
    subject = {t for t in question.weights if question.covers(t, first.terms | first.context)}
    if len(held) != 1 or not subject:
        return None
    pool = list(scored)
    if owner is not None:
        pool += said_later(owner, first, question, subject)
        # A figure said on its own in a conversation about the same thing: the first
        # sentence's own ("180 each all in", then "kayleigh wants 60 deposit"), or one whose
        # sentences name most of it.
        about = {
            c.hit.memory.conversation_id
            for c in scored
            if c.hit.memory.conversation_id is not None
            and share_of(subject, c.terms, question) >= SUBJECT_SHARE
        }
        if first.hit.memory.conversation_id is not None:
            about.add(first.hit.memory.conversation_id)
        pool += said_in(owner, about)
    taken = {c.hit.memory_id for c in chosen}
    held_value = next(iter(held))
    best, best_key = None, None
    for candidate in pool:
        if candidate.hit.memory_id in taken:
            continue
        others = [
            a
            for a in amounts_in(candidate)
            if a.value not in held and same_period(a, amounts_held[0])
        ]
        if not others:
            continue
        share = share_of(subject, candidate.terms | candidate.context, question)
        # About the same thing by its words; or by some of them when said in another
        # conversation (a final bill said on its own where the finished loft is); or found by
        # recall for the question itself and holding a sum in the same currency ("€815 in the
        # end", after "he quoted €780").
        elsewhere = candidate.hit.memory.conversation_id != first.hit.memory.conversation_id
        about = share >= SUBJECT_SHARE or (share > 0 and elsewhere)
        if not about and not (
            candidate.rank < LATER_RANK and currency and others[0].currency == currency
        ):
            continue
        # Of as many, the one nearest the other in size: a difference sets like against like
        # (a final bill against its quote, not against the deposit paid on it).
        nearest = min(_apart(a.value, held_value) for a in others)
        key = (about, -nearest, share, -candidate.rank)
        if best_key is None or key > best_key:
            best, best_key = candidate, key
    return best


def same_period(one, other) -> bool:
    """Whether two sums can be set against each other: not £85 a week against £640 a month."""
    return not (one.per and other.per and one.per != other.per)


def _apart(one, other) -> float:
    """How far apart two sums are in size, as a ratio (0 when equal)."""
    low, high = sorted((abs(float(one)), abs(float(other))))
    return 1.0 - low / high if high else 0.0


def asked_amounts(candidate: Candidate, question: Question) -> list:
    """The sums ``candidate`` says that still hold, nearest the question's words first."""
    held = [
        (a.start, a) for a in amounts_in(candidate) if not struck_out(candidate.sentence, a.start)
    ]
    return [a for _, a in nearest_first(held, candidate.sentence, frozenset(question.weights))]


def worked_out(question: str, asked: Question, chosen: list[Candidate]) -> str:
    """A difference or a total worked out from the sentences that answer, said with what it is
    worked out from ("£3,400: £28,000 against £24,600"); "" when the question asks for none or
    the sentences do not hold what it needs."""
    text = normalise(question)
    if TOTAL.search(text):
        # So many at a price each: the count said last ("40 planters" after "wants 30").
        price = _price_each(chosen)
        if price is None:
            return ""
        # Of the thing the price is each of when said so ("32 tables" at "€40 a table"), else
        # any count.
        counted = [(c.said_on, n) for c in chosen for n in _counts_in(c, price.each_of)]
        if not counted and price.each_of:
            counted = [(c.said_on, n) for c in chosen for n in _counts_in(c)]
        if not counted:
            return ""
        count = max(counted, key=lambda pair: pair[0])[1]
        return f"{price.currency}{count * price.value:,.0f}: {count} at {price.said()}"
    if not DIFFERENCE.search(text):
        return ""
    money = []
    for candidate in chosen:
        # Each sentence's own figure: the one said nearest what the question is about, not one
        # it says is no longer so ("now $2,100 instead of the 1850").
        for amount in asked_amounts(candidate, asked):
            if amount.value not in [a.value for a in money] and all(
                same_period(amount, a) for a in money
            ):
                money.append(amount)
                break
    if len(money) < 2:
        return ""
    first, second = money[:2]
    difference = abs(first.value - second.value)
    sign = first.currency or second.currency
    return f"{sign}{difference:,.0f}: {first.said()} against {second.said()}"
