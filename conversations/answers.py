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

The sentences come from conversations/candidates.py; which of them is the current word on a thing,
and which it replaced, is conversations/current.py's to say; a difference or a total asked for is
worked out by conversations/sums.py.

A statement is acknowledged in a line: what it said will be remembered when the conversation
closes (the compression does that, not this module).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime

from django.conf import settings
from django.utils import timezone

from conversations.candidates import (
    MIN_COVERAGE,
    VALUE_KINDS,
    Candidate,
    candidates_of,
    coverage_of,
    held_value,
    in_full,
    is_narrative,
    time_only,
    told_only,
    value_of,
)
from conversations.choices import picked
from conversations.current import current_and_before, day_of, same_value, struck_in, value_kind
from conversations.kinds_asked import NAMES
from conversations.questions import GREETINGS, Question, read_question
from conversations.said_next import continued, corrected, without_corrected
from conversations.sentence_values import value_in
from conversations.stances import nearest_stance
from conversations.sum_parts import DIFFERENCE, TOTAL, asks_for_a_sum
from conversations.sums import (
    latest_count,
    less_worked_out,
    other_amount,
    parts_worked_out,
    price_each,
    worked_out,
)
from conversations.terms import content_terms
from conversations.totals import asks_what_was_paid, paid_in_all
from memories.models import Memory
from memories.recall import Hit, RecallResult
from talkingrock.language import spoken
from talkingrock.language.offline.lexicon import normalise
from talkingrock.text import sentences

NO_MEMORY = "I don't have a memory of that."
# The kinds of value whose absence from the best sentence means there is no answer: those a
# sentence must state (candidates.VALUE_KINDS), and a name.
_DECLINED_WITHOUT = {**VALUE_KINDS, "name": "name", "called": "name"}

# Scoring, set on the development households (bench/answers.py): coverage of the question's words
# counts most; the kind of thing asked for, the rank recall gave and what the source is break
# ties.
TYPE_WEIGHT = 0.35
# The kinds of value said before the sentence that holds them ("3:30pm — “pickup moved…”").
SAID_FIRST = frozenset(
    {
        "schedule",
        "time",
        "duration",
        "count",
        "number",
        "amount",
        "rate",
        "date",
        "place",
        "name",
        "called",
        "who",
        "which",
        "age",
        "weight",
        "size",
    }
)
TOLD_ON_SHARE = 0.25  # of TYPE_WEIGHT, for a day that is only the day it was told
TIME_ONLY_SHARE = 0.5  # of TYPE_WEIGHT, for a time of day with no day, asked "when"
RANK_WEIGHT = 0.15
SOURCE_WEIGHT = {
    Memory.Kind.FACT: 0.1,
    Memory.Kind.MEMORY: 0.0,
    Memory.Kind.SAID: -0.05,
    Memory.Kind.REPLY: -0.15,
}
# A conversation's narrative sums it up in its own words; what was said and the facts kept
# from it answer a detail better.
NARRATIVE_WEIGHT = -0.1
# A sentence that does not hold the kind of thing asked for ("when": no day in it) keeps this
# share of its score.
WRONG_KIND_WEIGHT = 0.5
REPLACED_WEIGHT = 0.5  # a value a later one replaced keeps half its score
# A sentence at another place than the one asked about ("my manager at Kellaway's", asked who
# the manager at Greenhaven is) keeps this share of its score.
ELSEWHERE_WEIGHT = 0.5
# Asked when something happened, a day still to come when the question is asked is no day it
# happened ("the pacemaker check is on the 24th", asked on the 20th): the sentence keeps this
# share of its score.
YET_TO_COME_WEIGHT = 0.5
EMPTY_WEIGHT = 0.5  # a sentence that only repeats the question's words
SECOND_MIN_GAIN = 0.25  # a second sentence is added when it covers this much more
# A memory this close in meaning answers though it shares few words ("any ideas for the garden?"
# → "we want to plant tomatoes and a herb bed"): MiniLM puts paraphrases above 0.5.
MEANING_ANSWERS = 0.5


@dataclass
class Answer:
    text: str
    kind: str  # "answer", "no_memory", "clarify" or "acknowledge"
    used: list[Hit] = field(default_factory=list)  # the memories the answer rests on
    reason: str = ""  # why this answer, in a sentence (shown under "Why did you say that?")


def _says_of_it(candidate: Candidate, question: Question) -> bool:
    """Whether ``candidate`` says what the member wants and names the question's key word."""
    return (
        bool(question.key)
        and question.covers(question.key, candidate.terms)
        and bool(value_of(candidate, question))
    )


def _score(candidate: Candidate, question: Question, count: int) -> float:
    score = coverage_of(candidate, question)
    if not candidate.terms - question.weights.keys():  # it only repeats the question's words
        score *= EMPTY_WEIGHT
    if question.wanted is not None:
        if value_of(candidate, question):
            # "when did …": a sentence that names the day outranks one that only tells it
            # happened (and so happened on the day it was told).
            # A time of day with no day ("she comes two till four now") answers "when" in part.
            score += TYPE_WEIGHT * (
                TOLD_ON_SHARE
                if told_only(candidate, question)
                else TIME_ONLY_SHARE
                if time_only(candidate, question)
                else 1.0
            )
        elif question.wanted not in NAMES:
            score *= WRONG_KIND_WEIGHT
    if question.options and picked(question.options, candidate.sentence):
        score += TYPE_WEIGHT  # "wood or vinyl??": a sentence that chose one answers it
    score += RANK_WEIGHT * (1 - candidate.rank / max(count, 1))
    memory = candidate.hit.memory
    score += NARRATIVE_WEIGHT if is_narrative(memory) else SOURCE_WEIGHT.get(memory.kind, 0.0)
    if memory.valid_to is not None:
        score *= REPLACED_WEIGHT
    if question.at_another_place(candidate.sentence, candidate.terms):
        score *= ELSEWHERE_WEIGHT
    return score


def _yet_to_come(candidate: Candidate, asked: Question, today: date) -> bool:
    """Whether ``candidate`` gives a day after ``today`` for what the question asks happened."""
    if not asked.happened:
        return False
    day = day_of(candidate, asked)
    return day is not None and day > today


def spoken_date(moment: datetime, *, now: datetime) -> str:
    """The day of ``moment`` in words, with its year when that is not this year's."""
    day = timezone.localtime(moment).date()
    return spoken.spoken(day, year=day.year != timezone.localtime(now).year)


def _source(hit: Hit, *, now: datetime) -> str:
    """Where a sentence comes from and when, in words: "you said on 25 November", "kept on 3
    March — Kitchen remodel", "alice shared on 3 March — Kitchen remodel"."""
    memory = hit.memory
    # A message was said when it happened; a kept memory was kept when it was written (its
    # ``happened_at`` is the day its words name: "dentist on the 8th" is not kept on the 8th).
    at = (memory.happened_at or memory.created_at) if memory.is_evidence else memory.created_at
    when = spoken_date(at, now=now)
    if memory.kind == Memory.Kind.SAID:
        return f"you said on {when}"
    if memory.kind == Memory.Kind.REPLY:
        return f"I said on {when}"
    where = "" if memory.act.is_your_story else f" — {memory.act.title}"
    if (
        share := memory.share if memory.share_id else None
    ) and share.shared_by_id != memory.owner_id:
        # Shared by another member of a shared act: theirs, said so (issue 25).
        return f"{share.sharer_name} shared on {spoken_date(share.shared_at, now=now)}{where}"
    return f"kept on {when}{where}"


def _line(candidate: Candidate, question: Question, *, now: datetime, lead: bool) -> str:
    """ "3:30pm — “pickup moved to 3:30 now” (you said on 25 November)": the value asked for
    first, when the sentence states one, then the sentence and where it comes from."""
    # A preference is the sentence itself: nothing is put before it but the one of two things
    # asked about that it chose ("A playlist — …").
    value = value_of(candidate, question) if lead and question.wanted in SAID_FIRST else ""
    if lead and not value and (pick := picked(question.options, candidate.sentence)):
        value = pick[0].upper() + pick[1:]
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
    kind = value_kind(candidate, question)
    if before is not None:
        value = held_value(before, kind, happened=question.happened, about=question.about)
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
                f"changed {spoken.spoken(date.fromisoformat(earlier['changed']), year=False)}, "
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
                about=question.about,
            )
        return f"; {changed}before: {f'{value} — ' if value else ''}“{previously}”"
    if candidate.hit.memory.valid_to is not None:
        return " (this was changed later)"
    struck = "" if question.about_the_past else struck_in(candidate, kind)
    if struck and not same_value(struck, value_of(candidate, question)):
        # What the sentence itself says it replaced: "18 months — “maybe 18 months total not
        # 22”; changed 14 August, before: 22".
        return f"; changed {spoken_date(candidate.said_on, now=now)}, before: {struck}"
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
        if asked.coverage(current.terms | other.terms) - covered >= SECOND_MIN_GAIN:
            added.append(other)
            taken.append(other)
            break
    if DIFFERENCE.search(normalise(question)) and not worked_out(question, asked, taken):
        # A difference needs both amounts; the other may have been said in another
        # conversation ("he quoted 620" in April, "the bill came to 780" in May).
        if other := other_amount(owner, asked, taken, scored):
            added.append(other)
            taken.append(other)
    if TOTAL.search(normalise(question)):
        # So many at a price each: the price, and how many said last.
        if priced := price_each(asked, taken, scored):
            added.append(priced)
            taken.append(priced)
        if counted := latest_count(owner, asked, taken, scored):
            added.append(counted)
    return added


def _hits_of(chosen: list[Candidate]) -> list[Hit]:
    used: list[Hit] = []
    for candidate in chosen:
        if candidate.hit not in used:
            used.append(candidate.hit)
    return used


def hits_to_recall() -> int:
    """How many hits to ask recall for, for a message that may be a question: as far down as a
    question left declined is read (``answer_reach``), and no fewer than a reply's context or an
    answer's first reading takes."""
    config = settings.TALKINGROCK_CONVERSATIONS
    return max(config["context_memories"], config["answer_memories"], config["answer_reach"])


def answer_question(
    owner, question: str, found: RecallResult, *, now=None, asked_in_index: bool = False
) -> Answer:
    """The answer to ``question`` from what ``found`` holds that clears the floor."""
    now = now or timezone.now()
    asked = read_question(owner, question, asked_in_index=asked_in_index)
    config = settings.TALKINGROCK_CONVERSATIONS
    strong = found.strong
    read = strong[: config["answer_memories"]]
    found_sentences = candidates_of(read)
    answer = _answered(owner, question, asked, found_sentences, len(read), now=now)
    if answer.kind == "no_memory" and len(strong) > len(read) and not asked.unknown_names:
        # What recall found further down may answer, but only in the member's own words: a
        # sentence there that covers the question by itself (not by the words said around it)
        # and gives the kind asked for, never one near it only in meaning.
        wider = [
            c
            for c in candidates_of(strong[: config["answer_reach"]])
            if c.hit.memory.kind != Memory.Kind.REPLY  # the member's words, not the assistant's
        ]
        again = _answered(owner, question, asked, wider, len(wider), now=now, strict=True)
        if again.kind == "answer":
            return again
    if answer.kind == "no_memory" and asked.wanted == "preference" and asked.weights:
        # "…stick a porta potti under the bench. worth it?": an offer the member never spoke
        # of, answered by what they said they want or won't have of its kind.
        if near := nearest_stance(question, found_sentences):
            stance, similarity = near
            said = in_full(stance, found_sentences)
            return Answer(
                _line(said, asked, now=now, lead=False),
                "answer",
                [said.hit],
                reason="It is what you said you want or won't have nearest in meaning to what "
                f"the question puts to you (similarity {similarity:.2f}).",
            )
    return answer


def _answered(
    owner,
    question: str,
    asked: Question,
    found: list[Candidate],
    count: int,
    *,
    now,
    strict: bool = False,
) -> Answer:
    """The answer from ``found``, the sentences of recall's ``count`` hits above its floor.
    ``strict``: only a sentence that covers the question in its own words answers (not by the
    words said around it, nor near it only in meaning)."""
    if asked.unknown_names:
        return Answer(
            NO_MEMORY,
            "no_memory",
            reason=f"Nothing you said or kept mentions {', '.join(asked.unknown_names)}.",
        )
    if not asked.weights:
        return Answer(NO_MEMORY, "no_memory", reason="The question has no words to look for.")
    candidates = found + continued(found, asked)
    if corrections := corrected(candidates, asked):
        # What was said and then corrected is read only with its correction.
        candidates = without_corrected(candidates, corrections)
        candidates += [read for _, read in corrections]
    if not candidates:
        return Answer(NO_MEMORY, "no_memory", reason="Nothing you said or kept bears on this.")
    today = timezone.localtime(now).date()
    scored = sorted(
        candidates,
        key=lambda c: (
            -_score(c, asked, count)
            * (YET_TO_COME_WEIGHT if _yet_to_come(c, asked, today) else 1.0)
        ),
    )
    if asked.wanted == "amount" and (
        worked := parts_worked_out(owner, question, asked, scored, now=now)
    ):
        # "entry + trainers", "once the rebate comes through": each part's own sentence.
        line, said = worked
        return Answer(
            "\n".join([line] + [_line(c, asked, now=now, lead=False) for c in said]),
            "answer",
            _hits_of(said),
            reason="The sum is worked out from what you said of each part the question names.",
        )
    best = scored[0]
    if asked.wanted == "preference":
        if not value_of(best, asked):
            # "kroger has the tuna one on sale, 2 cases for $100. grab it?": the sentence that
            # says what the member wants of the thing it is about ("she hates the tuna kind"),
            # though the offer's other words outweigh it.
            best = next((c for c in scored if _says_of_it(c, asked)), best)
        best = in_full(best, candidates)
    coverage = coverage_of(best, asked)
    if strict and asked.coverage(best.terms) < MIN_COVERAGE:
        return Answer(NO_MEMORY, "no_memory", reason="Nothing you said covers enough of it.")
    meaning = best.hit.components.get("meaning", {}).get("similarity", 0.0)
    # "What did I say I wanted …": a sentence that says what the member wants, in what recall
    # found above its floor, answers though it shares few of the question's words.
    # So does the number a thing goes by, said with its name ("plot 27" for "whats our plot no
    # at wyvern fields"): the name is the question's own word.
    # So does a rate ("4.19 now not 4.09" for "wats the rate on the new mortgage"): a figure
    # with decimals or a percentage is seldom said of anything else.
    wanted_first = asked.wanted in ("preference", "number", "rate") and bool(value_of(best, asked))
    # So does a sentence that chose one of two things the question offers ("going vinyl").
    wanted_first = wanted_first or bool(picked(asked.options, best.sentence))
    # A sum asked for ("how much is Mel's food going to come to in total") answers when it can
    # be worked out from what was said ("£16 a head", then "told Mel 68"), though the sentences
    # name little of the question ("food" is never said).
    low = coverage < MIN_COVERAGE and meaning < MEANING_ANSWERS and not wanted_first
    too_far = Answer(
        NO_MEMORY,
        "no_memory",
        reason=f"The closest thing you said or kept covers {coverage:.0%} of what the "
        "question asks.",
    )
    if low and not (asked.wanted == "amount" and asks_for_a_sum(question)):
        return too_far
    if asked.wanted in _DECLINED_WITHOUT and not value_of(best, asked):
        # "How much did Ana quote?": what was said about it gives no amount, so there is none;
        # "what's the name of Ma's renal physician": one said of with no name gives none.
        return Answer(
            NO_MEMORY,
            "no_memory",
            reason=f"Nothing you said or kept about it gives the {_DECLINED_WITHOUT[asked.wanted]}.",
        )
    current, before = current_and_before(best, scored, asked, owner, today=today)
    paid = None
    lines = [_line(current, asked, now=now, lead=True) + _replaced(current, before, asked, now=now)]
    chosen = [current] + ([before] if before else [])
    if asked.wanted == "amount" and (
        less := less_worked_out(owner, question, asked, current, scored, now=now)
    ):
        # "once the rebate comes through": what it came to, less the part taken off.
        sum_said, added = less
        if current not in added:
            before = None  # what replaced what is said only beside the figure it replaced
        lines = [sum_said] + [
            _line(c, asked, now=now, lead=c is current)
            + (_replaced(c, before, asked, now=now) if c is current else "")
            for c in added
        ]
        chosen = added + ([before] if before else [])
    else:
        for other in _also_needed(owner, question, asked, chosen, scored):
            lines.append(_line(other, asked, now=now, lead=False))
            chosen.append(other)
        # "how much have we paid sipho so far": what each conversation paid, added up; asked
        # what was paid ("what have we paid the hall altogether"), before any sum worked out
        # from a price each said beside it ("£64 a head").
        paid_first = asked.wanted == "amount" and asks_what_was_paid(question)
        if paid_first:
            paid = paid_in_all(owner, question, asked, scored, now=now)
        worked = "" if paid else worked_out(question, asked, chosen)
        if not worked and not paid_first and asked.wanted == "amount":
            paid = paid_in_all(owner, question, asked, scored, now=now)
        if paid:
            sum_said, chosen = paid
            lines = [sum_said] + [_line(c, asked, now=now, lead=False) for c in chosen]
            before = None
        elif worked:
            lines.insert(0, worked)
        elif low:
            return too_far
    used = _hits_of(chosen)
    holds = asked.wanted is not None and bool(value_of(current, asked))
    if paid:
        reason = "The total adds up what you said was paid for it, in each conversation."
    elif low:
        reason = (
            "The sum is worked out from what you said, though the closest of it covers "
            f"{coverage:.0%} of what the question asks."
        )
    else:
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
