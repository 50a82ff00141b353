"""The sentences that may answer a question (conversations/answers.py chooses among them):
each sentence of what recall found, a long run-on read two clauses at a time, with the words said
around it in its conversation, and a sentence that points back ("It is now the 21st") with the
words of the one before it. Each is read for the kind of value the question asks for with the
one date and amount parser. A message read on into what the member said next is
conversations/said_next.py's; what the member said beyond what recall found is
conversations/beyond_recall.py's."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import date, datetime
from itertools import pairwise

from django.utils import timezone

from conversations.choices import picked
from conversations.kinds_asked import QUESTION_WORDS, asks_for, is_question
from conversations.models import Message
from conversations.questions import Question
from conversations.sentence_values import value_in
from conversations.terms import content_terms, said_terms, words_of
from memories.models import Memory
from memories.recall import Hit
from talkingrock import nlp
from talkingrock.language import values
from talkingrock.text import sentences

MIN_COVERAGE = 0.4  # the share of the question (by weight) a sentence must cover to answer it
# Kinds of value whose absence from everything said about a thing means there is no answer:
# "how much" with no amount said, "what time" with no time said (a "when" may be the day it was
# told, and a "who" the sentence itself).
VALUE_KINDS = {
    "amount": "amount",
    "rate": "rate",
    "count": "number",
    "number": "number it goes by",
    "time": "time",
    "duration": "length of time",
    "schedule": "days",
}
LONG_SENTENCE = 25  # words: past this a run-on is read a clause pair at a time
# Clauses end at a comma, a semicolon or a colon, but not inside a figure ("$2,300", "10:30").
_CLAUSE = re.compile(r"\s*(?:,(?!\d{3}\b)|;|:(?!\d)|\s-\s|\bbut\b|\bso\b|\band then\b)\s*", re.I)
# What opens another subject: what follows it is not what was said before it goes on to say
# ("…ten weeks for the cheque), and, fyi, our first month of hydro was $186").
NEW_SUBJECT = re.compile(
    r"^\W*(?:and\W+)?(?:fyi|btw|by the way|oh and|anyway|anyways|on another note|p\.?s\b|"
    r"unrelated|separately|while i remember|before i forget|speaking of|"
    r"(?:the |one |an)?other thing|(?:a )?different thing)\b",
    re.I,
)
# A later sentence names the same thing when it holds this share of what the best one is about
# ("football's moved to wednesdays" holds football, not Fionn).
SUBJECT_SHARE = 0.4
# A message is read with the turns just before it: the assistant's question a terse reply
# answers, and the member's message before that.
TURNS_BEFORE = 2
# A sentence that goes on about what the one before it said: its subject is a word that points
# back ("The vote has been moved. It is now Tuesday, April 21st"), or it corrects what was just
# said ("mon 4 may", then "wait no mon 11th"). It is about what that one is about.
_POINTS_BACK = re.compile(
    r"^\W*(?:(?:so|and|but|oh|no|yes|yeah|ok|okay)\b\W*)*"
    r"(?:it|it['’]?s|it\s+is|that['’]?s|that\s+is|they['’]?re|they\s+are)\b",
    re.I,
)


def corrects(sentence: str) -> bool:
    """Whether ``sentence`` opens by correcting what was just said ("wait no, mon 11th")."""
    return bool(values.CORRECTION.match(sentence.lstrip()))


def goes_on(sentence: str) -> bool:
    """Whether ``sentence`` is about what was said just before it: a subject that points back,
    or a correction."""
    return bool(_POINTS_BACK.match(sentence)) or corrects(sentence)


@dataclass(frozen=True)
class Candidate:
    sentence: str
    hit: Hit
    rank: int
    terms: frozenset[str]
    around: frozenset[str] = frozenset()  # the words of its conversation's other hits
    before: frozenset[str] = frozenset()  # a message's: the words of the turns just before it
    replies_to: str = ""  # a message's first sentence: the question the assistant asked before it
    # the day of the plan an earlier word gave, which this later one may change: a day it says
    # without a month is read in that month ("hen moved … 23rd", of a hen do on 16 May)
    plan: date | None = None
    # the words of what was said just before it, which it goes on about ("The vote has been
    # moved. It is now the 21st"): they count as its own towards what it covers, but it names
    # none of them ("its 1.2k all up", after a list of things, is no one thing's figure)
    went_on: frozenset[str] = frozenset()

    @property
    def context(self) -> frozenset[str]:
        """The words said around it, which tell what it is about."""
        return self.around | self.before

    @property
    def said_on(self) -> datetime:
        """When it was said or kept (not the day it names: "on the 8th" said on 25 Nov)."""
        return self.hit.memory.created_at


def is_narrative(memory: Memory) -> bool:
    return memory.kind == Memory.Kind.MEMORY and memory.source == Memory.Source.CONVERSATION


def _pieces(memory: Memory) -> list[str]:
    if memory.kind == Memory.Kind.FACT:
        return by_subject(memory.content)
    found = []
    for sentence in sentences(memory.content):
        if memory.is_evidence and is_question(sentence):
            continue  # a question asked is no answer to one
        if is_narrative(memory) and "“" in sentence:
            continue  # the narrative quoting another memory ("That replaces the earlier “…”")
        found += in_pieces(sentence)
    return found


def by_subject(sentence: str) -> list[str]:
    """``sentence`` cut where a clause opens another subject ("… ten weeks for the cheque), and,
    fyi, our first month of hydro was $186"), each piece in the member's words; whole when
    none does."""
    cuts = [
        (m.start(), m.end())
        for m in _CLAUSE.finditer(sentence)
        if m.start() > 0 and NEW_SUBJECT.match(sentence[m.end() :])
    ]
    if not cuts:
        return [sentence]
    ends = [start for start, _ in cuts] + [len(sentence)]
    starts = [0] + [end for _, end in cuts]
    pieces = [sentence[a:b].strip(" ,;:") for a, b in zip(starts, ends, strict=True)]
    # ", and, fyi, …": the "and" between two cuts joins them, and is no piece of its own
    return [piece for piece in pieces if piece and piece.lower() not in ("and", "but", "so")]


def in_pieces(sentence: str) -> list[str]:
    """A sentence as it is read for an answer: whole, or a dictated run-on two clauses at a
    time, so that a value and what it is about stay together ("the tiler is ruth, she's coming
    tues"); a clause that opens another subject is never read with the one before it."""
    if len(subjects := by_subject(sentence)) > 1:
        return [piece for subject in subjects for piece in in_pieces(subject)]
    clauses = [c for c in _CLAUSE.split(sentence) if c and c.strip()]
    if len(sentence.split()) <= LONG_SENTENCE or len(clauses) < 3:
        return [sentence]
    # A clause that opens another subject ("fyi, our hydro was $186") is not read with the one
    # before it.
    pieces = [a if NEW_SUBJECT.match(b) else f"{a}, {b}" for a, b in pairwise(clauses)]
    if NEW_SUBJECT.match(clauses[-1]):
        pieces.append(clauses[-1])
    return pieces


def _turns_before(hits: list[Hit]) -> tuple[dict[int, set[str]], dict[int, str]]:
    """The words of the ``TURNS_BEFORE`` messages before each message found, by its memory: what
    a terse reply answers ("How did the bill come out?" then "780 which is more than he said");
    and, for a message that replies to a question the assistant asked just before it, the words
    of that question ("Garages sometimes offer a courtesy car — do you want one?" then "No.")."""
    said = {
        hit.memory.message_id: hit.memory_id
        for hit in hits
        if hit.memory.kind == Memory.Kind.SAID and hit.memory.message_id is not None
    }
    said_at = Message.objects.filter(pk__in=said).values_list("pk", "conversation_id", "position")
    wanted = {
        (conversation_id, position - back): said[pk]
        for pk, conversation_id, position in said_at
        for back in range(1, TURNS_BEFORE + 1)
        if position >= back
    }
    if not wanted:
        return {}, {}
    just_before = {
        (conversation_id, position - 1): said[pk]
        for pk, conversation_id, position in said_at
        if position >= 1
    }
    before: dict[int, set[str]] = {}
    replying: dict[int, str] = {}
    found = Message.objects.filter(
        conversation_id__in={conversation_id for conversation_id, _ in wanted},
        position__in={position for _, position in wanted},
    ).values_list("conversation_id", "position", "role", "content")
    for conversation_id, position, role, content in found:
        if (memory_id := wanted.get((conversation_id, position))) is not None:
            before.setdefault(memory_id, set()).update(content_terms(content))
        if role == Message.Role.ASSISTANT and (conversation_id, position) in just_before:
            asked = [s for s in sentences(content) if is_question(s)]
            if asked:
                replying[just_before[(conversation_id, position)]] = asked[-1]
    return before, replying


def _act_terms(hit: Hit) -> frozenset[str]:
    """The words of the act a memory or message is kept in: the household's own name for what
    it is about ("Boat mooring & licence" around a bare "412"). Your Story names nothing."""
    act = hit.memory.act
    return frozenset() if act.is_your_story else content_terms(act.title)


def candidates_of(hits: list[Hit], *, rank_from: int = 0) -> list[Candidate]:
    """Every sentence of the hits, each with the words said around it: its conversation's other
    hits and, for a message, the turns just before it."""
    pieces = [
        (rank_from + rank, hit, " ".join(piece.split()))
        for rank, hit in enumerate(hits)
        for piece in _pieces(hit.memory)
    ]
    by_conversation: dict[int, set[str]] = {}
    for _, hit, piece in pieces:
        if hit.memory.conversation_id is not None:
            by_conversation.setdefault(hit.memory.conversation_id, set()).update(said_terms(piece))
    turns_before, replying = _turns_before(hits)
    first_piece: dict[int, str] = {}  # what a reply says first is what answers the question
    for _, hit, piece in pieces:
        first_piece.setdefault(hit.memory_id, piece)
    # A narrative sentence that is one of the facts found with it is that fact (which carries
    # what it replaced): one candidate, ranked as the better of the two.
    facts = {
        (hit.memory.conversation_id, same_sentence(piece)): rank
        for rank, hit, piece in pieces
        if hit.memory.kind == Memory.Kind.FACT
    }
    said_of = _said_of(replying.values())
    found, ranks = [], {}
    previous: dict[int, str] = {}  # each memory's piece read last
    for rank, hit, piece in pieces:
        before_it = previous.get(hit.memory_id)
        previous[hit.memory_id] = piece
        key = (hit.memory.conversation_id, same_sentence(piece))
        if is_narrative(hit.memory) and key in facts:
            ranks[key] = min(rank, ranks.get(key, rank))
            continue
        if piece:
            terms = said_terms(piece)
            # A reply is about what it answers: "No." to "do you want a courtesy car?"
            replies_to = (
                replying.get(hit.memory_id, "") if first_piece[hit.memory_id] == piece else ""
            )
            # (its own words, not those of what the thing asked about is of: a reply to "when
            # is the costume fitting for the nativity?" is about the fitting; the nativity is
            # said around it)
            terms |= content_terms(replies_to) - said_of.get(replies_to, frozenset())
            went_on = frozenset()
            if before_it and goes_on(piece):
                went_on = said_terms(before_it) - terms  # what the sentence before is about
            elif before_it is None and corrects(piece):
                # opening a message, of the turns before ("mon 4 may", then "wait no mon 11th")
                went_on = frozenset(turns_before.get(hit.memory_id, set())) - terms
            around = by_conversation.get(hit.memory.conversation_id, set()) | _act_terms(hit)
            around = frozenset(around - terms)
            before = frozenset(turns_before.get(hit.memory_id, set()) - terms)
            if NEW_SUBJECT.match(piece):
                # "fyi, our first month of hydro was $186": not of what was said around it
                around = before = frozenset()
            found.append(
                Candidate(piece, hit, rank, terms, around, before, replies_to, went_on=went_on)
            )
    return [
        replace(c, rank=min(c.rank, ranks[key]))
        if c.hit.memory.kind == Memory.Kind.FACT
        and (key := (c.hit.memory.conversation_id, same_sentence(c.sentence))) in ranks
        else c
        for c in found
    ]


# A preposition: a question without one names nothing the thing asked about is of, and is not
# parsed.
_PREPOSITION = re.compile(r"\b(?:for|of|at|in|on|with|from|about|to|by)\b", re.I)
_SAID_OF_KEPT = 1024  # questions whose reading is kept, per process
_said_of_kept: dict[str, frozenset[str]] = {}


def _said_of(questions: Iterable[str]) -> dict[str, frozenset[str]]:
    """For each question, the words that tell what the thing it asks about is of or for: a
    phrase after a noun ("the costume fitting for the nativity", "pickup for Maya"), not after
    the verb or a pronoun ("what did the vet say about her ear", "anything on the formal").
    Read with the one English parser, the questions not read before in one batch."""
    asked = {q for q in questions if q and _PREPOSITION.search(q)}
    unread = sorted(q for q in asked if q not in _said_of_kept)
    if len(_said_of_kept) + len(unread) > _SAID_OF_KEPT:
        _said_of_kept.clear()
    for question, doc in zip(unread, nlp.parse(unread) if unread else [], strict=True):
        of = [
            word.text
            for token in doc
            if token.dep_ == "prep" and _is_noun_phrase(token.head)
            for word in token.subtree
            if word is not token
        ]
        _said_of_kept[question] = content_terms(" ".join(of))
    return {q: _said_of_kept.get(q, frozenset()) for q in asked}


def _is_noun_phrase(token) -> bool:
    """A noun, or a word read as another part of speech that a determiner says is one ("the
    costume fitting": "fitting" is tagged an adjective)."""
    return token.pos_ in ("NOUN", "PROPN") or any(
        word.dep_ == "det" for word in token.subtree if word.i < token.i
    )


def same_sentence(sentence: str) -> str:
    return " ".join(re.findall(r"\w+", sentence.casefold()))


def _read_for(candidate: Candidate, about: frozenset[str]) -> str:
    """Where a value is read: the sentence, but of the assistant's, which sums up several things
    in one ("Noted: drawings to the council by Friday 8 May, and you're driving your mum to her
    fitting"), only the clauses that name what is asked about."""
    sentence = candidate.sentence
    if candidate.hit.memory.kind != Memory.Kind.REPLY or not about:
        return sentence
    named = [c for c in _CLAUSE.split(sentence) if c and content_terms(c) & about]
    return ", ".join(named) if named else sentence


def held_value(
    candidate: Candidate,
    wanted: str | None,
    *,
    happened: bool = False,
    about: frozenset[str] = frozenset(),
) -> str:
    found = value_in(
        _read_for(candidate, about),
        wanted,
        said_on=timezone.localtime(candidate.said_on).date(),
        happened=happened,
        about=about,
        plan=candidate.plan,
    )
    if not found and wanted == "preference" and _asks_which_wanted(candidate.replies_to):
        return candidate.sentence  # the reply says it: "No." to "do you want one?"
    return found


def _asks_which_wanted(question: str) -> bool:
    """Whether the assistant asked yes or no, or which, about what the member wants ("do you
    want one?", "any preference on fuel?"); "what do you want to do with the leave?" asks for
    a plan."""
    words = words_of(question)
    return bool(words) and words[0] not in QUESTION_WORDS and asks_for(question) == "preference"


def told_only(candidate: Candidate, question: Question) -> bool:
    """Whether the day ``candidate`` gives for "when did …" is only the day it was told ("roofer
    finally came", then "thurs")."""
    return question.happened and not held_value(candidate, question.wanted)


def time_only(candidate: Candidate, question: Question) -> bool:
    """Whether the answer ``candidate`` gives to "when …" is a time of day and no day ("she
    comes two till four now")."""
    if question.wanted != "date":
        return False
    value = value_of(candidate, question)
    return bool(value) and value == held_value(candidate, "time", about=frozenset(question.weights))


def in_full(best: Candidate, candidates: list[Candidate]) -> Candidate:
    """The member's own words for what ``best`` keeps, with what they said next, when a kept
    sentence was cut from them: "Rather petrol than diesel." is told in full as "rather petrol
    than diesel … dpf clogs on short runs"; a message, with what was said after it. Else
    ``best``."""
    said = best.hit.memory.kind == Memory.Kind.SAID
    told = [
        c
        for c in candidates
        if c.hit.memory.kind == Memory.Kind.SAID
        and c.hit.memory.conversation_id == best.hit.memory.conversation_id
        and (c.hit.memory_id == best.hit.memory_id or not said)
        and content_terms(best.sentence) < content_terms(c.sentence)
    ]
    return min(told, key=lambda c: len(c.terms)) if told else best


def coverage_of(candidate: Candidate, question: Question) -> float:
    return question.coverage(candidate.terms | candidate.went_on, candidate.context)


def value_of(candidate: Candidate, question: Question) -> str:
    if question.wanted:
        return held_value(
            candidate,
            question.wanted,
            happened=question.happened,
            about=question.about,
        )
    if question.options:  # "wood or vinyl??": the one of the two the sentence chose
        return picked(question.options, candidate.sentence)
    return any_value(candidate)


def any_value(candidate: Candidate) -> str:
    for kind in ("time", "amount", "date"):
        if value := held_value(candidate, kind):
            return value
    return ""


def share_of(subject: set[str], terms: frozenset[str], question: Question) -> float:
    """How much of what the best sentence is about (by the question's weights) ``terms`` name."""
    total = sum(question.weights[t] for t in subject)
    named = sum(question.weights[t] for t in subject if question.covers(t, terms))
    return named / total if total else 0.0
