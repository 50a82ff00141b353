"""Sums worked out from what was said (conversations/answers.py adds them to an answer): a
difference ("how much under budget": £28,000 against £24,600) and a total of so many at a price
each ("40 at $22 each"), with the sentences that hold the figures, found in another conversation
when the answer's own sentences hold only one."""

from __future__ import annotations

import re
from decimal import Decimal

from django.utils import timezone

from conversations.beyond_recall import LATER_RANK, naming, said_in, said_later
from conversations.candidates import (
    MIN_COVERAGE,
    SUBJECT_SHARE,
    Candidate,
    coverage_of,
    share_of,
)
from conversations.nearness import clause_around, how_far, named_at, nearest_first
from conversations.questions import Question
from conversations.said_next import continued
from conversations.sentence_values import counted_of, counts_said
from conversations.sum_parts import (
    DIFFERENCE,
    HALF,
    TOTAL,
    Part,
    parts_of,
    taken_off,
    without_taken_off,
)
from conversations.terms import content_terms, stem
from talkingrock.language import amounts, dates
from talkingrock.language.offline.lexicon import normalise
from talkingrock.language.values import struck_out


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


FRAME_WORDS = 3  # the words after a count that say what it counts: "85 | for the day"


def _count_frames(candidate: Candidate) -> set[str]:
    """What the counts ``candidate`` says that still hold are said of, as the few words after
    each ("85 for the day", "90 for the day in the end": "for the day"), when those name a
    thing."""
    sentence = candidate.sentence
    said_on = timezone.localtime(candidate.said_on).date()
    frames = set()
    for start, end, _ in counts_said(sentence, said_on=said_on):
        if struck_out(sentence, start):
            continue
        words = re.match(r"[^\W\d]+(?:\s+[^\W\d]+)*", sentence[end:].lstrip())
        frame = " ".join((words.group(0) if words else "").lower().split()[:FRAME_WORDS])
        if len(frame.split()) == FRAME_WORDS and content_terms(frame):
            frames.add(frame)
    return frames


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
    # A later count is looked for by what the chosen sentences name between them: the price's
    # words and the count's ("food" and "day" for "£69 a head" and "85 for the day").
    said = frozenset().union(*(c.terms | c.context for c in chosen))
    named = {t for t in question.weights if question.covers(t, said)}
    pool = list(scored) + (said_later(owner, first, question, named) if owner else [])
    chosen_counts = {n for c in chosen for n in _counts_in(c)}
    frames = set().union(*(_count_frames(c) for c in chosen))
    each_of = _price_each(chosen).each_of
    counted = []
    for c in [*chosen, *pool]:
        said = _counts_said(c)
        # About the same thing by its words, or by striking out the very count chosen: "she's
        # bumped it to 40 planters, not 30!!" after "wants 30 … at $22 each" names it as "it";
        # or a count of the very thing the price is each of ("32 tables", for "€40 a table");
        # or a count said the same way as one chosen ("90 for the day" after "85 for the day").
        if any(not struck for _, struck in said) and (
            share_of(subject, c.terms, question) >= SUBJECT_SHARE
            or any(struck and n in chosen_counts for n, struck in said)
            or (each_of and _counts_in(c, each_of))
            or (frames and frames & _count_frames(c))
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
    if HALF.search(text):
        return _half(asked, chosen[0])
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


# A sentence whose figure is already a share: "my half is £545", "split it, 140 each".
_SHARED = re.compile(
    r"\b(?:each|apiece|per (?:person|head)|a head|pp|(?:my|our|your|his|her) (?:half|share))\b",
    re.I,
)


def _half(asked: Question, current: Candidate) -> str:
    """Half the sum the answer's sentence gives ("£545: half of £1,090"), unless that sentence
    already says a share."""
    money = [a for a in asked_amounts(current, asked) if a.is_money]
    if not money or _SHARED.search(current.sentence):
        return ""
    whole = money[0]
    return f"{sum_said(whole.value / 2, whole.currency)}: half of {whole.said()}"


# A figure said right after what it is ("entry was 42"): read as the part's sum even when it
# has two digits, which alone are a count.
_FIGURE_AFTER = (
    r"\b{word}\w*\W+(?:\w+\W+){{0,2}}?(?:was|were|is|are|cost|costs|came to|comes to)\W+"
)
# A figure said and then set right: "were 140 but 119 w/ club discount".
_SET_RIGHT = re.compile(r"\s*(?:but|then|now|down to|up to)\s+(?:\w+\s+){0,2}?$", re.I)
NEAR = 40  # characters: a figure this near a part's word is said of it
UNNAMED_FAR = 10 * NEAR  # how far the one figure of a sentence that names no part is from it


def _held(candidate: Candidate) -> list:
    """The sums ``candidate`` says that still hold: not struck out ("not 30"), nor set right
    by the one after ("140 but 119")."""
    sentence = candidate.sentence
    found = [
        a
        for a in amounts_in(candidate)
        if (a.is_money or not a.unit) and not struck_out(sentence, a.start)
    ]
    return [
        a
        for a in found
        if not any(
            b.start > a.end and _SET_RIGHT.fullmatch(sentence[a.end : b.start]) for b in found
        )
    ]


def _figure_after(candidate: Candidate, part: Part) -> list:
    sentence = candidate.sentence
    pattern = re.compile(_FIGURE_AFTER.format(word=re.escape(part.head[:4])), re.I)
    found = []
    for match in pattern.finditer(sentence):
        figure = re.match(r"\d+(?:\.\d\d)?\b", sentence[match.end() :])
        if figure:
            at = match.end()
            found.append(
                amounts.Amount(figure.group(0), at, at + figure.end(), Decimal(figure.group(0)))
            )
    return found


def _part_of_figure(at: int, sentence: str, heads: frozenset[str]) -> str | None:
    """Which of the parts (by the stems of their heads) a figure said at ``at`` is said of:
    the one named last before it in its clause ("the movers charged $380"), else the one named
    first after it there ("$380 for the movers"), else the one the sentence names ("Réjean
    tuned it … $140"); "" when it names several and none in the figure's clause, None when it
    names none."""
    named = named_at(sentence, heads)
    if not named:
        return None
    start, stop = clause_around(sentence, at)
    in_clause_before = [word for place, word in named if start <= place < at]
    in_clause_after = [word for place, word in named if at < place < stop]
    if in_clause_before:
        return in_clause_before[-1]
    if in_clause_after:
        return in_clause_after[0]
    if len({word for _, word in named}) > 1:
        # Said apart from the several parts named: "dress hair makeup shoes car tix … dom said
        # 1k" is a budget for them all, not the hair's.
        return ""
    return named[0][1]


def _figures_of(
    candidate: Candidate, part: Part, heads: frozenset[str] = frozenset()
) -> list[tuple[int, object]]:
    """(how far from the part's words, sum) of the sums ``candidate`` says that still hold and
    are said of this part, nearest first; [] when it names none of the part's words. With the
    heads of all the question's parts (``heads``), a sum said of another part is that part's:
    "Piano movers … quoted $380" is not the piano's."""
    sentence = candidate.sentence
    held = [a for a in _held(candidate) or _figure_after(candidate, part) if not a.per]
    # (A rate, "$55 a lesson" or "£85 a week", is not what a part came to.)
    found = []
    for a in held:
        far = how_far(a.start, sentence, part.terms)
        if far is None:
            continue
        of = _part_of_figure(a.start, sentence, heads) if heads else None
        if of is None or of == stem(part.head):
            found.append((far, a))
    if not found and len(held) == 1 and not named_at(sentence, heads | part.terms):
        # The one sum of a sentence about the part that names no part, in other words: "145
        # for an updo", said of the hair.
        found.append((UNNAMED_FAR, held[0]))
    return sorted(found, key=lambda pair: (pair[0], pair[1].start))


def _sentences_naming(
    owner, part: Part, asked: Question, scored: list[Candidate], now, parts
) -> list:
    """The sentences that name ``part`` and give a sum, best first: naming its own word
    ("trainers"), more of its words, a sum said near them, more of what else the question is
    about ("the half"), then the one said last (a price changed is the later one). What the
    member said next is read with a sentence that names it and gives no sum ("got new
    trainers", then "were 140 but 119 w/ club discount"). ``parts``: all the question's parts,
    whose words are not what the rest of it is about."""
    head = stem(part.head)
    subject = set(asked.weights).difference(*(p.terms for p in parts))
    heads = frozenset(stem(p.head) for p in parts)
    pool = [
        c
        for c in [*scored, *naming(owner, part.head, before=now)]
        if any(asked.covers(t, c.terms) for t in part.terms)
    ]
    pool += continued(pool, Question(weights=dict.fromkeys(part.terms, 1.0), wanted="amount"))
    found = []
    for c in pool:
        if figures := _figures_of(c, part, heads):
            nearest = figures[0][0]
            key = (
                asked.covers(head, c.terms),
                sum(asked.covers(t, c.terms) for t in part.terms),
                nearest <= NEAR,
                share_of(subject, c.terms | c.context, asked),
                c.said_on,
                -nearest,
            )
            found.append((key, c))
    return [c for _, c in sorted(found, key=lambda pair: pair[0], reverse=True)]


def sum_said(value, currency: str) -> str:
    """A sum worked out, said as any sum is: "£161", "$7,710", "£12.50"."""
    return amounts.Amount("", 0, 0, value, currency).said()


def _same_kind(found: list) -> bool:
    currencies = {a.currency for a in found if a.currency}
    return len(currencies) <= 1 and all(same_period(a, b) for a in found for b in found)


def _each_part(owner, parts: list[Part], asked: Question, scored, now):
    """For each part, the sentence that says what it came to and that sum; None when a part
    has none, or when the figure that best answers a part is one another part took (the same
    figure in the same message cannot be two parts' sums: which one it is of is unclear)."""
    taken: set[tuple[int, object]] = set()
    heads = frozenset(stem(p.head) for p in parts)
    found = []
    for part in parts:
        best = next(
            (
                (candidate, figures[0][1])
                for candidate in _sentences_naming(owner, part, asked, scored, now, parts)
                if (figures := _figures_of(candidate, part, heads))
            ),
            None,
        )
        if best is None:
            return None
        candidate, amount = best
        if (candidate.hit.memory_id, amount.value) in taken:
            return None
        taken.add((candidate.hit.memory_id, amount.value))
        found.append((part, candidate, amount))
    return found


def parts_worked_out(
    owner, question: str, asked: Question, scored: list[Candidate], *, now
) -> tuple[str, list[Candidate]] | None:
    """A total of the parts a question names ("entry + trainers": "£161: £42 (entry) + £119
    (trainers)"), with the sentences each figure is said in; None when the question names no
    parts or what was said does not give them all."""
    parts = parts_of(question)
    if not parts:
        return None
    each = _each_part(owner, parts, asked, scored, now)
    if each is None or not _same_kind([a for _, _, a in each]):
        return None
    total = sum(a.value for _, _, a in each)
    sign = next((a.currency for _, _, a in each if a.currency), "")
    # A figure said bare ("entry was 42") is in the currency the others are said in.
    said = " + ".join(
        f"{a.said() if a.currency else sign + a.said()} ({part.words})" for part, _, a in each
    )
    return f"{sum_said(total, sign)}: {said}", _distinct([c for _, c, _ in each])


def less_worked_out(
    owner, question: str, asked: Question, current: Candidate, scored: list[Candidate], *, now
) -> tuple[str, list[Candidate]] | None:
    """What something came to less the parts a question takes off ("once the rebate comes
    through": "$7,710: $9,210 less $1,500 (rebate)"), from the current word on what it came
    to, with the sentences the parts are said in; None when the question takes nothing off or
    what was said does not give it."""
    less = taken_off(question)
    if not less:
        return None
    off_terms = frozenset().union(*(part.terms for part in less))
    each = _each_part(owner, less, asked, scored, now)
    if each is None:
        return None
    off = sum(a.value for _, _, a in each)
    # What the rest of the question names: "the solar", not "once … comes through".
    rest = content_terms(without_taken_off(question))
    about = frozenset(t for t in asked.weights if t in rest) - off_terms
    if not about:
        return None
    # What it is about: what the sentences of the part taken off say of the rest of the
    # question ("Denis wants a $3,000 deposit": Denis), else all of the rest.
    said = frozenset().union(*(c.terms | c.context for _, c, _ in each))
    subject = {t for t in about if asked.covers(t, said)} or set(about)
    # What it came to: the latest sum said about that, larger than what is taken off ("the
    # final bill … 9,210", not the quote before it).
    heaviest = max(subject, key=lambda t: asked.weights[t])
    pool = [current, *scored, *naming(owner, heaviest, before=now)]
    came_to = []
    for candidate in pool:
        if share_of(subject, candidate.terms | candidate.context, asked) < SUBJECT_SHARE:
            continue
        main = next(
            (
                a
                for a in _near(candidate, about)
                if a.value > off and _same_kind([a, *(b for _, _, b in each)])
            ),
            None,
        )
        if main is not None:
            came_to.append((candidate.said_on, -candidate.rank, candidate, main))
    if not came_to:
        return None
    _, _, candidate, main = max(came_to, key=lambda found: found[:2])
    said = "".join(f" less {a.said()} ({part.words})" for part, _, a in each)
    return (
        f"{sum_said(main.value - off, main.currency)}: {main.said()}{said}",
        _distinct([candidate, *(c for _, c, _ in each)]),
    )


def _near(candidate: Candidate, about: frozenset[str]) -> list:
    """The sums ``candidate`` says that still hold, nearest the words ``about`` first."""
    held = [(a.start, a) for a in _held(candidate)]
    return [a for _, a in nearest_first(held, candidate.sentence, about)]


def _distinct(candidates: list[Candidate]) -> list[Candidate]:
    seen, kept = set(), []
    for c in candidates:
        if (c.hit.memory_id, c.sentence) not in seen:
            seen.add((c.hit.memory_id, c.sentence))
            kept.append(c)
    return kept
