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

The sentences come from conversations/candidates.py, and a difference or a total asked for is
worked out by conversations/sums.py.

A statement is acknowledged in a line: what it said will be remembered when the conversation
closes (the compression does that, not this module).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date, datetime

from django.utils import timezone

from conversations.candidates import (
    LATER_RANK,
    MIN_COVERAGE,
    SUBJECT_SHARE,
    VALUE_KINDS,
    Candidate,
    any_value,
    candidates_of,
    continued,
    corrected,
    coverage_of,
    held_value,
    in_full,
    is_narrative,
    said_later,
    share_of,
    time_only,
    told_only,
    value_of,
)
from conversations.questions import (
    GREETINGS,
    Question,
    content_terms,
    read_question,
    stem,
    words_of,
)
from conversations.sentence_values import replaced_in, value_in
from conversations.sums import (
    DIFFERENCE,
    TOTAL,
    amounts_in,
    asked_amounts,
    asks_for_a_sum,
    latest_count,
    other_amount,
    price_each,
    worked_out,
)
from memories.models import Memory
from memories.recall import Hit, RecallResult
from talkingrock.language import dates, spoken, tense, values
from talkingrock.language.offline.lexicon import normalise
from talkingrock.language.words import zipf
from talkingrock.text import sentences

NO_MEMORY = "I don't have a memory of that."

# Scoring, set on the development households (bench/answers.py): coverage of the question's words
# counts most; the kind of thing asked for, the rank recall gave and what the source is break
# ties.
TYPE_WEIGHT = 0.35
# The kinds of value said before the sentence that holds them ("3:30pm — “pickup moved…”").
SAID_FIRST = frozenset(
    {"schedule", "time", "duration", "count", "number", "amount", "date", "place", "name"}
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
EMPTY_WEIGHT = 0.5  # a sentence that only repeats the question's words
SECOND_MIN_GAIN = 0.25  # a second sentence is added when it covers this much more
# A memory this close in meaning answers though it shares few words ("any ideas for the garden?"
# → "we want to plant tomatoes and a herb bed"): MiniLM puts paraphrases above 0.5.
MEANING_ANSWERS = 0.5
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
COMMON_WORD = 5.0


@dataclass
class Answer:
    text: str
    kind: str  # "answer", "no_memory", "clarify" or "acknowledge"
    used: list[Hit] = field(default_factory=list)  # the memories the answer rests on
    reason: str = ""  # why this answer, in a sentence (shown under "Why did you say that?")


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
        elif question.wanted != "name":
            score *= WRONG_KIND_WEIGHT
    score += RANK_WEIGHT * (1 - candidate.rank / max(count, 1))
    memory = candidate.hit.memory
    score += NARRATIVE_WEIGHT if is_narrative(memory) else SOURCE_WEIGHT.get(memory.kind, 0.0)
    if memory.valid_to is not None:
        score *= REPLACED_WEIGHT
    if question.at_another_place(candidate.sentence, candidate.terms):
        score *= ELSEWHERE_WEIGHT
    return score


def _tells_the_same(c: Candidate, best: Candidate, question: Question, subject: set[str]) -> bool:
    """Whether ``c``, which holds a value of the kind asked for, tells what ``best`` tells (so
    that one of them replaced the other). ``subject``: the question's words ``best`` holds."""
    if not _same_measure(best, c, question):
        return False
    names_it = share_of(subject, c.terms, question) >= SUBJECT_SHARE
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
    struck = _replaced_in(later, question.wanted)
    if (
        struck
        and _same_value(struck, value_of(earlier, question))
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
                # or only the sentences around it name it, more than by one word of it
                # ("tuesday", beside "Bernie's hours changed", for Eva's swimming), and the
                # later one says it changed: not "fridays r tight if I have a late pt", told
                # beside Sami's swim meet
                or (
                    share_of(subject, c.around, question) >= SUBJECT_SHARE
                    and values.says_it_changed(later.sentence)
                )
            )
        )
    ) and values.tells_a_change(earlier.sentence, later.sentence)


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


def _current(best: Candidate, scored: list[Candidate], question: Question, owner=None) -> tuple:
    """Of the sentences that tell what ``best`` tells, the current one (the last said; the first
    for a question about the past) and the one it replaced, if their values differ."""
    if question.wanted != "name" and not value_of(best, question):
        return best, None  # no value, so none that a later one replaced
    subject = {t for t in question.weights if question.covers(t, best.terms)}
    if owner is not None and not question.about_the_past and subject:
        scored = [*scored, *said_later(owner, best, question, subject)]
    alike = [
        c
        for c in scored
        if c.hit.memory_id != best.hit.memory_id
        # a value it states, not only the day it was told on ("her teeth moved faster")
        and (
            held_value(c, question.wanted, about=frozenset(question.weights))
            if question.wanted
            else any_value(c)
        )
        and _tells_the_same(c, best, question, subject)
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
    told = [best, *alike]  # in the order they answer the question best
    order = {id(c): at for at, c in enumerate(told)}
    # The last said (the first for a question about the past); of two said together (two
    # clauses of one message), the one that answers better.
    if question.about_the_past:
        current = min(told, key=lambda c: (c.said_on, c.rank, order[id(c)]))
    else:
        current = max(told, key=lambda c: (c.said_on, -c.rank, -order[id(c)]))
    # Nearest in time first; of those said together, the one that answers best ("eva has
    # swimming on tuesdays at five fifteen", not "… and Eva at two fifty" beside it).
    if question.about_the_past:
        told.sort(key=lambda c: (c.said_on, order[id(c)]))
    else:
        told.sort(key=lambda c: (c.said_on, -order[id(c)]), reverse=True)
    if current.hit.components.get("replaces") and not question.about_the_past:
        return current, None  # what it replaced is recorded: that is the "before"
    value = value_of(current, question)
    kind = _value_kind(current, question)
    # "its tues may 12 now, not may 5": the sentence says what it replaced, so an earlier one
    # is its "before" only when it gives that value.
    struck = "" if question.about_the_past else _replaced_in(current, kind)
    for earlier in told:
        if earlier.hit.memory_id == current.hit.memory_id:
            continue
        # The earlier value of the same kind: a time before a time, not a schedule.
        other = (
            held_value(earlier, kind, happened=question.happened, about=frozenset(question.weights))
            if kind
            else any_value(earlier)
        )
        if other and other != value and earlier.said_on.date() != current.said_on.date():
            if struck and not _same_value(struck, other):
                continue
            return current, earlier
    return current, None


def _replaced_in(candidate: Candidate, kind: str | None) -> str:
    return replaced_in(
        candidate.sentence, kind, said_on=timezone.localtime(candidate.said_on).date()
    )


def _same_value(one: str, other: str) -> bool:
    """Whether ``one`` gives the value ``other`` gives: its figures are all among the other's
    ("may 5" and "Tuesday 5 May 2026"), or, with none, its words ("Hession" and "Hession's
    bar")."""
    figures = [set(re.findall(r"\d+(?:[:.]\d+)?", text.replace(",", ""))) for text in (one, other)]
    if figures[0]:
        return figures[0] <= figures[1]
    said = content_terms(one)
    return bool(said) and said <= content_terms(other)


def _value_kind(candidate: Candidate, question: Question) -> str | None:
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
    # A preference is the sentence itself: nothing is put before it.
    value = value_of(candidate, question) if lead and question.wanted in SAID_FIRST else ""
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
        value = held_value(
            before, kind, happened=question.happened, about=frozenset(question.weights)
        )
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
                about=frozenset(question.weights),
            )
        return f"; {changed}before: {f'{value} — ' if value else ''}“{previously}”"
    if candidate.hit.memory.valid_to is not None:
        return " (this was changed later)"
    struck = "" if question.about_the_past else _replaced_in(candidate, kind)
    if struck and not _same_value(struck, value_of(candidate, question)):
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
    candidates = candidates_of(hits)
    candidates += continued(candidates, asked)
    if corrections := corrected(candidates, asked):
        # What was said and then corrected is read only with its correction.
        replaced = {(said.hit.memory_id, said.sentence) for said, _ in corrections}
        candidates = [c for c in candidates if (c.hit.memory_id, c.sentence) not in replaced]
        candidates += [read for _, read in corrections]
    if not candidates:
        return Answer(NO_MEMORY, "no_memory", reason="Nothing you said or kept bears on this.")
    scored = sorted(candidates, key=lambda c: -_score(c, asked, len(hits)))
    best = scored[0]
    if asked.wanted == "preference":
        best = in_full(best, candidates)
    coverage = coverage_of(best, asked)
    meaning = best.hit.components.get("meaning", {}).get("similarity", 0.0)
    # "What did I say I wanted …": a sentence that says what the member wants, in what recall
    # found above its floor, answers though it shares few of the question's words.
    # So does the number a thing goes by, said with its name ("plot 27" for "whats our plot no
    # at wyvern fields"): the name is the question's own word.
    wanted_first = asked.wanted in ("preference", "number") and bool(value_of(best, asked))
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
    if asked.wanted in VALUE_KINDS and not value_of(best, asked):
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
    if sum_said := worked_out(question, asked, chosen):
        lines.insert(0, sum_said)
    elif low:
        return too_far
    used: list[Hit] = []
    for candidate in chosen:
        if candidate.hit not in used:
            used.append(candidate.hit)
    holds = asked.wanted is not None and bool(value_of(current, asked))
    if low:
        reason = f"It covers {coverage:.0%} of what the question asks, and the sum is worked out"
    elif coverage >= MIN_COVERAGE:
        reason = f"It covers {coverage:.0%} of what the question asks"
    else:
        reason = f"It means nearly what the question asks (similarity {meaning:.2f})"
    reason += " and holds the kind of thing asked for." if holds else "."
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
