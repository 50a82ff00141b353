"""Offline answers from what was said and kept (issues 13 and 22): the sentence that answers, with
when it was said, the current value before the one it replaced, or a plain "I don't have that".

A question is answered from what ``recall()`` found that clears the relevance floor: facts and
memories kept at review, and what was said in conversations (the member's messages, and below
them the assistant's replies). Each is cut into sentences (a long run-on into clauses, read two
at a time); each sentence is scored by

* how much of the question it covers: the question's content words (its shorthand expanded, its
  question words and fillers left out), matched by their stems and weighed by how rare they are
  among the member's own words;
* whether it holds the kind of thing asked for: a date, day or time for "when", a time for "what
  time", an amount for "how much", a length of time for "how long", the days for "which days",
  read with the one date and amount parser (talkingrock/language/);
* how high recall ranked it, and what it is (a reviewed fact over a raw message, a message over
  a reply).

Among the sentences that answer about as well, the one said last is the current one: it comes
first, with the value it holds ("3:30pm — …"), and the earlier one is said as what it replaced
("before: “pickup is at 3pm”"). A question about the past ("what was the first quote") gets the
earliest instead. When the best sentence covers too little of the question, or the question names
something the member never mentioned, the answer is that there is no memory of it: no unrelated
memory is offered instead. Weights and thresholds are the constants below, set on the development
households (tests/data/households/dev) with ``bench/answers.py``; the test households are only
scored.

A statement is acknowledged in a line: what it said will be remembered when the conversation
closes (the compression does that, not this module).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from datetime import date, datetime
from itertools import pairwise

from django.utils import timezone

from conversations.models import Message
from conversations.questions import (
    GREETINGS,
    Question,
    content_terms,
    is_question,
    read_question,
    value_in,
)
from memories import search
from memories.models import Memory
from memories.recall import Hit, RecallResult
from talkingrock.language import amounts, dates, values
from talkingrock.language.offline.lexicon import normalise
from talkingrock.text import sentences

NO_MEMORY = "I don't have a memory of that."
_CLAUSE = re.compile(r"\s*(?:[,;:]|\s-\s|\bbut\b|\bso\b|\band then\b)\s*", re.I)

# Scoring, set on the development households (bench/answers.py): coverage of the question's words
# counts most; the kind of thing asked for, the rank recall gave and what the source is break
# ties.
TYPE_WEIGHT = 0.35
RANK_WEIGHT = 0.15
SOURCE_WEIGHT = {
    Memory.Kind.FACT: 0.1,
    Memory.Kind.MEMORY: 0.0,
    Memory.Kind.SAID: -0.05,
    Memory.Kind.REPLY: -0.15,
}
# Kinds of value whose absence from everything said about a thing means there is no answer:
# "how much" with no amount said, "what time" with no time said (a "when" may be the day it was
# told, and a "who" the sentence itself).
VALUE_KINDS = {
    "amount": "amount",
    "time": "time",
    "duration": "length of time",
    "schedule": "days",
}
# A conversation's narrative sums it up in its own words; what was said and the facts kept
# from it answer a detail better.
NARRATIVE_WEIGHT = -0.1
# A sentence that does not hold the kind of thing asked for ("when": no day in it) keeps this
# share of its score.
WRONG_KIND_WEIGHT = 0.5
REPLACED_WEIGHT = 0.5  # a value a later one replaced keeps half its score
EMPTY_WEIGHT = 0.5  # a sentence that only repeats the question's words
MIN_COVERAGE = 0.4  # the share of the question (by weight) the best sentence must cover
SECOND_MIN_GAIN = 0.25  # a second sentence is added when it covers this much more
# A memory this close in meaning answers though it shares few words ("any ideas for the garden?"
# → "we want to plant tomatoes and a herb bed"): MiniLM puts paraphrases above 0.5.
MEANING_ANSWERS = 0.5
# Sentences that cover at least this share of what the best one covers, and hold a value of the
# same kind, tell the same thing: the one said last is the current one.
SAME_THING = 0.75
LONG_SENTENCE = 25  # words: past this a run-on is read a clause pair at a time
FOLLOWING = 2  # positions: the member's next message (the assistant's reply comes between)
# "Is there a later word on it?": the question's heaviest words the best sentence holds, looked
# up in the member's keyword index (at most this many rows); what is found ranks last.
LATER_TERMS = 2
# A later sentence names the same thing when it holds this share of what the best one is about
# ("football's moved to wednesdays" holds football, not Fionn).
SUBJECT_SHARE = 0.4
LATER_SCAN = 30
LATER_RANK = 15


@dataclass
class Answer:
    text: str
    kind: str  # "answer", "no_memory", "clarify" or "acknowledge"
    used: list[Hit] = field(default_factory=list)  # the memories the answer rests on
    reason: str = ""  # why this answer, in a sentence (shown under "Why did you say that?")


@dataclass(frozen=True)
class Candidate:
    sentence: str
    hit: Hit
    rank: int
    terms: frozenset[str]
    around: frozenset[str] = frozenset()  # the words said around it (its conversation's)

    @property
    def said_on(self) -> datetime:
        """When it was said or kept (not the day it names: "on the 8th" said on 25 Nov)."""
        return self.hit.memory.created_at


# --- the sentences that may answer -------------------------------------------------------------


def _is_narrative(memory: Memory) -> bool:
    return memory.kind == Memory.Kind.MEMORY and memory.source == Memory.Source.CONVERSATION


def _pieces(memory: Memory) -> list[str]:
    if memory.kind == Memory.Kind.FACT:
        return [memory.content]
    found = []
    for sentence in sentences(memory.content):
        if memory.is_evidence and is_question(sentence):
            continue  # a question asked is no answer to one
        if _is_narrative(memory) and "“" in sentence:
            continue  # the narrative quoting another memory ("That replaces the earlier “…”")
        clauses = [c for c in _CLAUSE.split(sentence) if c and c.strip()]
        if len(sentence.split()) <= LONG_SENTENCE or len(clauses) < 3:
            found.append(sentence)
            continue
        # A dictated run-on: two clauses at a time, so that a value and what it is about stay
        # together ("the tiler is ruth, she's coming tues").
        found += [f"{a}, {b}" for a, b in pairwise(clauses)]
    return found


def _candidates(hits: list[Hit], *, rank_from: int = 0) -> list[Candidate]:
    """Every sentence of the hits, each with the words of its conversation's other hits (what
    was said around it)."""
    pieces = [
        (rank_from + rank, hit, " ".join(piece.split()))
        for rank, hit in enumerate(hits)
        for piece in _pieces(hit.memory)
    ]
    by_conversation: dict[int, set[str]] = {}
    for _, hit, piece in pieces:
        if hit.memory.conversation_id is not None:
            by_conversation.setdefault(hit.memory.conversation_id, set()).update(
                content_terms(piece)
            )
    # A narrative sentence that is one of the facts found with it is that fact (which carries
    # what it replaced): one candidate, ranked as the better of the two.
    facts = {
        (hit.memory.conversation_id, _same(piece)): rank
        for rank, hit, piece in pieces
        if hit.memory.kind == Memory.Kind.FACT
    }
    found, ranks = [], {}
    for rank, hit, piece in pieces:
        key = (hit.memory.conversation_id, _same(piece))
        if _is_narrative(hit.memory) and key in facts:
            ranks[key] = min(rank, ranks.get(key, rank))
            continue
        if piece:
            terms = content_terms(piece)
            around = frozenset(by_conversation.get(hit.memory.conversation_id, set()) - terms)
            found.append(Candidate(piece, hit, rank, terms, around))
    return [
        replace(c, rank=min(c.rank, ranks[key]))
        if c.hit.memory.kind == Memory.Kind.FACT
        and (key := (c.hit.memory.conversation_id, _same(c.sentence))) in ranks
        else c
        for c in found
    ]


def _same(sentence: str) -> str:
    return " ".join(re.findall(r"\w+", sentence.casefold()))


def _holds(
    candidate: Candidate,
    wanted: str | None,
    *,
    happened: bool = False,
    about: frozenset[str] = frozenset(),
) -> str:
    return value_in(
        candidate.sentence,
        wanted,
        said_on=timezone.localtime(candidate.said_on).date(),
        happened=happened,
        about=about,
    )


def _continued(candidates: list[Candidate], question: Question) -> list[Candidate]:
    """What was said and what the member said next, read as one: "mareks quote finally came
    thru" then "24.6k all in, fitting cabinets tiling". For each message that covers the
    question but holds no value of the kind asked for, once: the rest of the message when the
    sentence is not its last ("Sal's said brakes. Front pads and rotors, $260."), else the
    member's next message."""
    if question.wanted not in VALUE_KINDS and question.wanted != "date":
        return []
    lacking = [
        c
        for c in candidates
        if c.hit.memory.kind == Memory.Kind.SAID
        and c.hit.memory.message_id is not None
        and question.coverage(c.terms, c.around) >= MIN_COVERAGE
        and not _value(c, question)
    ]
    following = {c.hit.memory.message_id: (c, _rest_of_message(c)) for c in lacking}
    asked = Message.objects.filter(
        pk__in=[pk for pk, (_, rest) in following.items() if not rest]
    ).values_list("pk", "conversation_id", "position")
    for pk, conversation_id, position in asked:
        said_next = (
            Message.objects.filter(
                conversation_id=conversation_id,
                role=Message.Role.USER,
                position__gt=position,
                position__lte=position + FOLLOWING,
            )
            .order_by("position")
            .values_list("content", flat=True)
            .first()
        )
        following[pk] = (following[pk][0], " ".join((said_next or "").split()))
    found = []
    for first, then in following.values():
        if then:
            text = f"{first.sentence} … {then[:300]}"
            terms = content_terms(text)
            found.append(replace(first, sentence=text, terms=terms, around=first.around - terms))
    return found


def _rest_of_message(candidate: Candidate) -> str:
    """What the member said after ``candidate`` in the same message ("" when it ends it)."""
    content = " ".join(candidate.hit.memory.content.split())
    at = content.find(candidate.sentence)
    return content[at + len(candidate.sentence) :].strip() if at >= 0 else ""


def _coverage(candidate: Candidate, question: Question) -> float:
    return question.coverage(candidate.terms, candidate.around)


def _score(candidate: Candidate, question: Question, count: int) -> float:
    score = _coverage(candidate, question)
    if not candidate.terms - question.weights.keys():  # it only repeats the question's words
        score *= EMPTY_WEIGHT
    if question.wanted is not None:
        if _value(candidate, question):
            score += TYPE_WEIGHT
        elif question.wanted != "name":
            score *= WRONG_KIND_WEIGHT
    score += RANK_WEIGHT * (1 - candidate.rank / max(count, 1))
    memory = candidate.hit.memory
    score += NARRATIVE_WEIGHT if _is_narrative(memory) else SOURCE_WEIGHT.get(memory.kind, 0.0)
    if memory.valid_to is not None:
        score *= REPLACED_WEIGHT
    return score


def _value(candidate: Candidate, question: Question) -> str:
    if question.wanted:
        return _holds(
            candidate,
            question.wanted,
            happened=question.happened,
            about=frozenset(question.weights),
        )
    return _any_value(candidate)


def _said_later(owner, best: Candidate, question: Question, subject: set[str]) -> list[Candidate]:
    """What the member said or kept after ``best`` that names the same thing (its heaviest
    words, searched in their own keyword index): the later word a question about "now" needs,
    even when recall ranked it out of sight ("moved the under 8s to wednesdays at 5")."""
    terms = sorted(subject, key=lambda t: -question.weights[t])[:LATER_TERMS]
    # The stems ("quot") are matched by the index's own stemmer, which reads "quoted" as "quot".
    words = search.sanitise(" ".join(terms)).terms
    if not words:
        return []
    found = search.keyword_candidates(
        owner_id=owner.pk,
        match=search.match_expression(tuple(words)),
        limit=LATER_SCAN,
        include_archived=False,
    )
    later = (
        Memory.everything.select_related("act")
        .filter(pk__in=[pk for pk, _ in found], created_at__gt=best.said_on)
        .exclude(kind=Memory.Kind.REPLY)
        .exclude(pk=best.hit.memory_id)
    )
    hits = [Hit(memory.pk, memory, 0.0, {}) for memory in later]
    return _candidates(hits, rank_from=LATER_RANK)


def _share(subject: set[str], terms: frozenset[str], question: Question) -> float:
    """How much of what the best sentence is about (by the question's weights) ``terms`` name."""
    total = sum(question.weights[t] for t in subject)
    named = sum(question.weights[t] for t in subject if question.covers(t, terms))
    return named / total if total else 0.0


def _tells_the_same(c: Candidate, best: Candidate, question: Question, subject: set[str]) -> bool:
    """Whether ``c``, which holds a value of the kind asked for, tells what ``best`` tells (so
    that one of them replaced the other). ``subject``: the question's words ``best`` holds."""
    names_it = _share(subject, c.terms, question) >= SUBJECT_SHARE
    if c.said_on.date() == best.said_on.date():
        # Said the same day, another sentence with a value is about another thing ("a recheck
        # next tues at 4:10" beside "yeast infection in the left ear") unless it names the same
        # thing and says it changed.
        return names_it and values.tells_a_change(best.sentence, c.sentence)
    if _coverage(c, question) >= SAME_THING * _coverage(best, question):
        return True
    if question.about_the_past and c.said_on < best.said_on:
        # The earlier word on the same thing: "£25 for a basic service" before "put the basic
        # service up to £30".
        return names_it
    # A later word on the same thing that says it changed, though it names less of it:
    # "football's moved to wednesdays at 5" after "Fionn has football on thursdays".
    return (
        c.said_on > best.said_on
        and (
            names_it
            or (
                c.rank < LATER_RANK  # found for the question: its conversation may name it
                and bool(subject & (c.terms | c.around))
                and _same_measure(best, c, question)
            )
        )
        and values.tells_a_change(best.sentence, c.sentence)
    )


def _same_measure(one: Candidate, other: Candidate, question: Question) -> bool:
    """Whether two sums can be one value and its update: not a price each and a fee a week."""
    if question.wanted != "amount":
        return True
    pers = [{a.per for a in _amounts_in(c)} - {""} for c in (one, other)]
    return not (pers[0] and pers[1]) or bool(pers[0] & pers[1])


def _current(best: Candidate, scored: list[Candidate], question: Question, owner=None) -> tuple:
    """Of the sentences that tell what ``best`` tells, the current one (the last said; the first
    for a question about the past) and the one it replaced, if their values differ."""
    if question.wanted != "name" and not _value(best, question):
        return best, None  # no value, so none that a later one replaced
    subject = {t for t in question.weights if question.covers(t, best.terms)}
    if owner is not None and not question.about_the_past and subject:
        scored = [*scored, *_said_later(owner, best, question, subject)]
    alike = [
        c
        for c in scored
        if c.hit.memory_id != best.hit.memory_id
        and _value(c, question)
        and _tells_the_same(c, best, question, subject)
    ]
    told = sorted([best, *alike], key=lambda c: (c.said_on, -c.rank))
    current = told[0] if question.about_the_past else told[-1]
    if current.hit.components.get("replaces") and not question.about_the_past:
        return current, None  # what it replaced is recorded: that is the "before"
    value = _value(current, question)
    kind = _value_kind(current, question)
    for earlier in reversed(told) if not question.about_the_past else told:
        if earlier.hit.memory_id == current.hit.memory_id:
            continue
        # The earlier value of the same kind: a time before a time, not a schedule.
        other = (
            _holds(earlier, kind, happened=question.happened, about=frozenset(question.weights))
            if kind
            else _any_value(earlier)
        )
        if other and other != value and earlier.said_on.date() != current.said_on.date():
            return current, earlier
    return current, None


def _value_kind(candidate: Candidate, question: Question) -> str | None:
    """The kind of value ``candidate`` answers with: a time for "when" when what it names is a
    time of day ("pickup moved to 3:30": a time, to set against a time)."""
    if question.wanted == "date" and _value(candidate, question) == _holds(candidate, "time"):
        return "time"
    return question.wanted


def _any_value(candidate: Candidate) -> str:
    for kind in ("time", "amount", "date"):
        if value := _holds(candidate, kind):
            return value
    return ""


# Questions that ask for a sum worked out from what was said: a difference ("how much under
# budget", "how much did switching save", "how much do I still owe") or a total of so many at a
# price each ("how much will 40 planters at $22 each come to").
_DIFFERENCE = re.compile(
    r"\bhow much (?:more|less|extra|over|under|cheaper|dearer|higher|lower)\b|"
    r"\b(?:under|over) (?:the )?(?:budget|quote|estimate)\b|\bsave[ds]?\b|\bsaving\b|"
    r"\bstill owe\b|\bleft to pay\b|\bdifference\b",
    re.I,
)
_TOTAL = re.compile(r"\b(?:in total|altogether|all together|come to|total)\b", re.I)


def _amounts_in(candidate: Candidate) -> list:
    """The sums of money (or bare numbers) ``candidate`` says, outside its dates."""
    said_on = timezone.localtime(candidate.said_on).date()
    skip = [(m.start, m.end) for m in dates.find(candidate.sentence, today=said_on)]
    found = amounts.find(candidate.sentence, skip=skip, asked_for_a_sum=True)
    return [a for a in found if a.is_money or not a.unit]


def _counts_in(candidate: Candidate) -> list[int]:
    """The plain counts ``candidate`` says ("told Mel 68"), outside its dates and sums."""
    said_on = timezone.localtime(candidate.said_on).date()
    skip = [(m.start, m.end) for m in dates.find(candidate.sentence, today=said_on)]
    skip += [(a.start, a.end) for a in amounts.find(candidate.sentence, skip=skip)]
    return [n for _, n in amounts.counts(candidate.sentence, skip=skip)]


def _price_each(chosen: list[Candidate]):
    return next((a for c in chosen for a in _amounts_in(c) if a.per == "each"), None)


def _latest_count(
    owner, question: Question, chosen: list[Candidate], scored: list[Candidate]
) -> Candidate | None:
    """For a total at a price each: the last thing said about the same thing that gives how
    many ("Told Mel 68", or "her 40 planters" after "wants 30 at $22 each"), unless that is a
    sentence already chosen."""
    first = chosen[0]
    subject = {t for t in question.weights if question.covers(t, first.terms | first.around)}
    if not subject or _price_each(chosen) is None:
        return None
    pool = list(scored) + (_said_later(owner, first, question, subject) if owner else [])
    counted = [
        c
        for c in [*chosen, *pool]
        if _counts_in(c) and _share(subject, c.terms, question) >= SUBJECT_SHARE
    ]
    if not counted:
        return None
    latest = max(counted, key=lambda c: (c.said_on, -c.rank))
    taken = {c.hit.memory_id for c in chosen}
    return None if latest.hit.memory_id in taken else latest


def _other_amount(
    owner, question: Question, chosen: list[Candidate], scored: list[Candidate]
) -> Candidate | None:
    """For a difference whose sentences hold one amount: the sentence about the same thing
    (most of what the first one names of the question) that holds another amount."""
    amounts_held = [a for c in chosen for a in _amounts_in(c)]
    held = {a.value for a in amounts_held}
    currency = next((a.currency for a in amounts_held if a.currency), "")
    first = chosen[0]
    # What it is about, in its words or its conversation's ("he quoted €780", about the clutch).
    subject = {t for t in question.weights if question.covers(t, first.terms | first.around)}
    if len(held) != 1 or not subject:
        return None
    pool = list(scored)
    if owner is not None:
        pool += _said_later(owner, first, question, subject)
    taken = {c.hit.memory_id for c in chosen}
    best, best_key = None, None
    for candidate in pool:
        if candidate.hit.memory_id in taken:
            continue
        others = [a for a in _amounts_in(candidate) if a.value not in held]
        if not others:
            continue
        share = _share(subject, candidate.terms | candidate.around, question)
        # About the same thing by its words, or found by recall for the question itself and
        # holding a sum in the same currency ("€815 in the end", after "he quoted €780").
        if share < SUBJECT_SHARE and not (
            candidate.rank < LATER_RANK and currency and others[0].currency == currency
        ):
            continue
        key = (share >= SUBJECT_SHARE, share, -candidate.rank)
        if best_key is None or key > best_key:
            best, best_key = candidate, key
    return best


def worked_out(question: str, chosen: list[Candidate]) -> str:
    """A difference or a total worked out from the sentences that answer, said with what it is
    worked out from ("£3,400: £28,000 against £24,600"); "" when the question asks for none or
    the sentences do not hold what it needs."""
    text = normalise(question)
    if _TOTAL.search(text):
        # So many at a price each: the count said last ("40 planters" after "wants 30").
        price = _price_each(chosen)
        counted = [(c.said_on, n) for c in chosen for n in _counts_in(c)]
        if price is None or not counted:
            return ""
        count = max(counted, key=lambda pair: pair[0])[1]
        return f"{price.currency}{count * price.value:,.0f}: {count} at {price.said()}"
    if not _DIFFERENCE.search(text):
        return ""
    money = []
    for candidate in chosen:
        for amount in _amounts_in(candidate):
            if amount.value not in [a.value for a in money]:
                money.append(amount)
    if len(money) < 2:
        return ""
    first, second = money[:2]
    difference = abs(first.value - second.value)
    sign = first.currency or second.currency
    return f"{sign}{difference:,.0f}: {first.said()} against {second.said()}"


def spoken_date(moment: datetime, *, now: datetime) -> str:
    moment = timezone.localtime(moment)
    text = f"{moment.day} {moment:%B}"
    return text if moment.year == timezone.localtime(now).year else f"{text} {moment.year}"


def _source(hit: Hit, *, now: datetime) -> str:
    """Where a sentence comes from and when, in words: "you said on 25 November", "kept on 3
    March — Kitchen remodel"."""
    memory = hit.memory
    when = spoken_date(memory.happened_at or memory.created_at, now=now)
    if memory.kind == Memory.Kind.SAID:
        return f"you said on {when}"
    if memory.kind == Memory.Kind.REPLY:
        return f"I said on {when}"
    where = "" if memory.act.is_your_story else f" — {memory.act.title}"
    return f"kept on {when}{where}"


def _line(candidate: Candidate, question: Question, *, now: datetime, lead: bool) -> str:
    """ "3:30pm — “pickup moved to 3:30 now” (you said on 25 November)": the value asked for
    first, when the sentence states one, then the sentence and where it comes from."""
    value = _value(candidate, question) if lead and question.wanted else ""
    said = f"“{candidate.sentence.rstrip()}” ({_source(candidate.hit, now=now)})"
    return f"{value} — {said}" if value else said


def _replaced(
    candidate: Candidate, before: Candidate | None, question: Question, *, now: datetime
) -> str:
    """What the current value replaced, and when: "; changed 20 April, before: 3pm — “pickup is
    at 3pm”". For a question about the past the earlier value comes first, and ``before`` is
    what replaced it: "; changed 6 November to £22 — “put the puncture fix up to £22”"."""
    # The earlier value of the same kind as the current one: a time for a time ("when is
    # pickup": 3:30pm, before 3pm), though the earlier sentence also names days.
    kind = _value_kind(candidate, question)
    if before is not None:
        value = _holds(before, kind, happened=question.happened, about=frozenset(question.weights))
        value = f"{value} — " if value else ""
        if before.said_on > candidate.said_on:
            changed = spoken_date(before.said_on, now=now)
            return f"; changed {changed} to {value}“{before.sentence.rstrip()}”"
        changed = spoken_date(candidate.said_on, now=now)
        was = spoken_date(before.said_on, now=now)
        return f"; changed {changed}, before: {value}“{before.sentence.rstrip()}” ({was})"
    for earlier in candidate.hit.components.get("replaces", [])[:1]:
        try:
            changed = (
                f"changed {dates.spoken(date.fromisoformat(earlier['changed']), year=False)}, "
            )
        except (KeyError, TypeError, ValueError):
            changed = ""
        previously = earlier["previously"].rstrip(".")
        value = ""
        if kind:
            value = value_in(
                previously,
                kind,
                said_on=timezone.localtime(candidate.said_on).date(),
                happened=question.happened,
                about=frozenset(question.weights),
            )
        return f"; {changed}before: {f'{value} — ' if value else ''}“{previously}”"
    if candidate.hit.memory.valid_to is not None:
        return " (this was changed later)"
    return ""


def _also_needed(
    owner, question: str, asked: Question, chosen: list[Candidate], scored: list[Candidate]
) -> list[Candidate]:
    """The sentences that answer together with those ``chosen``: one that covers more of the
    question ("how much under budget": the budget and the quote), the other amount of a
    difference, and how many of a total at a price each."""
    current, taken, added = chosen[0], list(chosen), []
    covered = asked.coverage(current.terms)
    for other in scored[1:]:
        if other.hit.memory_id in {c.hit.memory_id for c in taken}:
            continue
        if asked.coverage(current.terms | other.terms) - covered >= SECOND_MIN_GAIN or (
            _DIFFERENCE.search(question)
            and _coverage(other, asked) >= MIN_COVERAGE
            and _value(other, asked) not in ("", _value(current, asked))
        ):
            added.append(other)
            taken.append(other)
            break
    if _DIFFERENCE.search(normalise(question)) and not worked_out(question, taken):
        # A difference needs both amounts; the other may have been said in another
        # conversation ("he quoted 620" in April, "the bill came to 780" in May).
        if other := _other_amount(owner, asked, taken, scored):
            added.append(other)
            taken.append(other)
    if _TOTAL.search(normalise(question)) and (
        counted := _latest_count(owner, asked, taken, scored)
    ):
        added.append(counted)
    return added


def answer_question(
    owner, question: str, found: RecallResult, *, now=None, asked_in_index: bool = False
) -> Answer:
    """The answer to ``question`` from what ``found`` holds that clears the floor."""
    now = now or timezone.now()
    hits = found.strong
    asked = read_question(owner, question, asked_in_index=asked_in_index)
    if asked.unknown_names:
        return Answer(
            NO_MEMORY,
            "no_memory",
            reason=f"Nothing you said or kept mentions {', '.join(asked.unknown_names)}.",
        )
    if not asked.weights:
        return Answer(NO_MEMORY, "no_memory", reason="The question has no words to look for.")
    candidates = _candidates(hits)
    candidates += _continued(candidates, asked)
    if not candidates:
        return Answer(NO_MEMORY, "no_memory", reason="Nothing you said or kept bears on this.")
    scored = sorted(candidates, key=lambda c: -_score(c, asked, len(hits)))
    best = scored[0]
    coverage = _coverage(best, asked)
    meaning = best.hit.components.get("meaning", {}).get("similarity", 0.0)
    if coverage < MIN_COVERAGE and meaning < MEANING_ANSWERS:
        return Answer(
            NO_MEMORY,
            "no_memory",
            reason=f"The closest thing you said or kept covers {coverage:.0%} of what the "
            "question asks.",
        )
    if asked.wanted in VALUE_KINDS and not _value(best, asked):
        # "How much did Ana quote?": what was said about it gives no amount, so there is none.
        return Answer(
            NO_MEMORY,
            "no_memory",
            reason=f"Nothing you said or kept about it gives the {VALUE_KINDS[asked.wanted]}.",
        )
    current, before = _current(best, scored, asked, owner)
    lines = [_line(current, asked, now=now, lead=True) + _replaced(current, before, asked, now=now)]
    chosen = [current] + ([before] if before else [])
    for other in _also_needed(owner, question, asked, chosen, scored):
        lines.append(_line(other, asked, now=now, lead=False))
        chosen.append(other)
    if sum_said := worked_out(question, chosen):
        lines.insert(0, sum_said)
    used: list[Hit] = []
    for candidate in chosen:
        if candidate.hit not in used:
            used.append(candidate.hit)
    holds = asked.wanted is not None and bool(_value(current, asked))
    reason = (
        f"It covers {coverage:.0%} of what the question asks"
        if coverage >= MIN_COVERAGE
        else f"It means nearly what the question asks (similarity {meaning:.2f})"
    ) + (" and holds the kind of thing asked for." if holds else ".")
    if before is not None:
        reason += (
            " It is the earlier word on it, as asked; what replaced it follows."
            if before.said_on > current.said_on
            else " It is the latest word on it; the earlier one follows."
        )
    return Answer("\n".join(lines), "answer", used, reason=reason)


LISTENING = "I'm listening. Tell me what's on your mind, or ask me about something you told me."


def acknowledge(statement: str) -> Answer:
    """A short line on what a statement said, kept for the close ("hello" and "thanks" say
    nothing to keep: those get a word that it is listening)."""
    if not content_terms(normalise(statement)) - GREETINGS:
        return Answer(LISTENING, "acknowledge", reason="Nothing in it to remember.")
    first = " ".join(sentences(statement)[:1] or [statement]).strip()
    if len(first) > 90:
        first = first[:89].rsplit(" ", 1)[0] + "…"
    return Answer(
        f"Noted: “{first}” I'll remember what matters in it when you close this conversation.",
        "acknowledge",
        reason="It is not a question: what it says is kept when the conversation closes.",
    )
