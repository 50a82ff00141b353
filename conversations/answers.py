"""Offline answers from memory (issue 13): the sentence that answers, with when and where it
comes from, or a plain "I don't have that".

A question is answered from what ``recall()`` found that clears the relevance floor. Each of those
memories is cut into sentences (a fact is one already); each sentence is scored by

* how much of the question it covers: the question's content words (its shorthand expanded, its
  question words and fillers left out), matched by their stems;
* whether it holds the kind of thing asked for: a date or day for "when", an amount for "how
  much", a name for "who", a time for "what time";
* how high recall ranked its memory, and whether that memory is a fact (facts are written to
  be read alone);

and a memory a later one replaced counts for less, so the current value wins and the answer says
what it replaced. When the best sentence covers too little of the question, or the question
names something the member has never mentioned, the answer is that there is no memory of it:
no unrelated memory is offered instead. The weights and thresholds are constants below, set on
the development households (tests/data/households/dev) by ``bench/answers.py``; the test
households are only scored.

A statement is acknowledged in a line: what it said will be remembered when the conversation
closes (the compression does that, not this module).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from datetime import datetime
from difflib import SequenceMatcher

from django.utils import timezone

from conversations.offline.lexicon import normalise
from conversations.offline.names import common_words, first_names
from memories import search
from memories.models import Memory
from memories.recall import Hit, RecallResult
from talkingrock.text import sentences

NO_MEMORY = "I don't have a memory of that."
QUESTION_WORDS = frozenset(
    "what whats when whens where wheres who whos whom whose which why how".split()
)
AUXILIARIES = frozenset(
    "do does did is isnt are arent was were can could will would should shall have has had am".split()
)
# Words a question is made of that say nothing about what it asks for.
FILLER = frozenset(
    """
    a an the and or but of to in on at for with by from about into as is are was were be been
    being am do does did doing done have has had i me my mine we us our ours you your yours he
    him his she her hers they them their it its this that these those there here what whats
    when whens where wheres who whos whom whose which why how again wait actually exactly now
    then still ever already just really so also any anything some something tell remind know
    remember said say says think thought end ended up going go get got can could will would
    should shall lets let please ok okay oh um hmm again also n r u ur ya yeah
    """.split()
)
GREETINGS = frozenset(
    "hello hi hey hiya good morn even night thank cheer bye goodby great cool nice lovely much".split()
)
_WORD = re.compile(r"[a-z0-9£$€][a-z0-9£$€,.'’-]*", re.I)
_MONTH = (
    r"jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?"
)
_DAY = r"mon(?:day)?|tue(?:s(?:day)?)?|wed(?:nesday)?|thu(?:rs(?:day)?)?|fri(?:day)?|sat(?:urday)?|sun(?:day)?"
_DATE = re.compile(rf"\b(?:{_MONTH})\b|\b(?:{_DAY})s?\b|\b\d{{1,2}}/\d{{1,2}}\b", re.I)
_TIME = re.compile(r"\b\d{1,2}(?:[:.]\d{2})?\s?(?:am|pm)\b|\b\d{1,2}:\d{2}\b|\bnoon\b", re.I)
_AMOUNT = re.compile(r"[£$€]\s?\d|\b\d[\d,.]*\b")
_NAME = re.compile(r"(?<=[a-z,;:] )[A-Z][a-z]+")

# Scoring, set on the development households (bench/answers.py): coverage of the question's words
# counts most; the kind of thing asked for, the rank recall gave and being a fact break ties.
TYPE_WEIGHT = 0.35
RANK_WEIGHT = 0.25
FACT_WEIGHT = 0.1
REPLACED_WEIGHT = 0.5  # a value a later one replaced keeps half its score
EMPTY_WEIGHT = 0.5  # a sentence that only repeats the question's words
MIN_COVERAGE = 0.4  # the share of the question (by weight) the best sentence must cover
SECOND_MIN_GAIN = 0.25  # a second sentence is added when it covers this much more
TYPO_SIMILARITY = 0.8  # difflib's ratio above which an unseen word is a misspelling
# A memory this close in meaning answers though it shares few words ("any ideas for the garden?"
# → "we want to plant tomatoes and a herb bed"): MiniLM puts paraphrases above 0.5.
MEANING_ANSWERS = 0.5


@dataclass
class Answer:
    text: str
    kind: str  # "answer", "no_memory" or "acknowledge"
    used: list[Hit] = field(default_factory=list)  # the memories the answer rests on
    reason: str = ""  # why this answer, in a sentence (shown under "Why did you say that?")


@dataclass(frozen=True)
class Candidate:
    sentence: str
    hit: Hit
    rank: int
    terms: frozenset[str]


def stem(word: str) -> str:
    """A crude English stem, enough to match "measure" with "measured" and "weddings" with
    "wedding": the possessive, a plural and the commonest inflections off."""
    word = word.lower().strip(".,'’-").removesuffix("'s").removesuffix("’s")
    if word.endswith("ies") and len(word) > 4:
        word = word[:-3] + "y"
    elif word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        word = word[:-1]
    if word.endswith("ing") and len(word) > 5:
        word = word[:-3]
    elif word.endswith("ed") and len(word) > 4:
        word = word[:-2]
    return word.rstrip("e") if len(word) > 3 else word


def words_of(text: str) -> list[str]:
    return [w.strip(".,'’-").lower() for w in _WORD.findall(text)]


def content_terms(text: str) -> frozenset[str]:
    stems = ((w, stem(w)) for w in words_of(text) if len(w) > 1 and not w.isdigit())
    return frozenset(s for w, s in stems if w not in FILLER and s not in FILLER)


def is_question(text: str) -> bool:
    """A question mark, a question word or auxiliary first, or "remind me"; also a question
    word followed by "again" ("gems hen do when n where again")."""
    plain = normalise(text).strip().lower()
    if "?" in plain:
        return True
    words = words_of(plain)
    if not words:
        return False
    first = words[0].replace("'", "").replace("’", "")
    if (
        first in QUESTION_WORDS
        or first in AUXILIARIES
        or plain.startswith(("remind me", "tell me"))
    ):
        return True
    return words[-1] == "again" and any(w.replace("'", "") in QUESTION_WORDS for w in words)


def asks_for(question: str) -> re.Pattern | None:
    """What kind of thing answers: a date, a time, an amount or a name (None: anything)."""
    text = normalise(question).lower()
    if re.search(r"\bwhat time\b|\bwhat r?\s?time\b", text):
        return _TIME
    if re.search(r"\bhow (?:much|many)\b|\bcost\b|\bpaying\b|\bprice\b|\bowe\b", text):
        return _AMOUNT
    if re.search(r"\bwhen\b|\bwhat (?:date|day)\b|\bhow long ago\b", text):
        return _DATE
    if re.search(r"\bwho\b|\bwhose\b|\bname of\b|\bwhat'?s .*\bname\b", text):
        return _NAME
    return None


def _candidates(hits: list[Hit]) -> list[Candidate]:
    found = []
    for rank, hit in enumerate(hits):
        memory = hit.memory
        pieces = [memory.content] if memory.kind == Memory.Kind.FACT else sentences(memory.content)
        for piece in pieces:
            piece = " ".join(piece.split())
            if piece:
                found.append(Candidate(piece, hit, rank, content_terms(piece)))
    return found


def _score(candidate: Candidate, question: Question, count: int) -> float:
    score = question.coverage(candidate.terms)
    if not candidate.terms - question.weights.keys():  # it only repeats the question's words
        score *= EMPTY_WEIGHT
    if question.wanted is not None and question.wanted.search(candidate.sentence):
        score += TYPE_WEIGHT
    score += RANK_WEIGHT * (1 - candidate.rank / max(count, 1))
    if candidate.hit.memory.kind == Memory.Kind.FACT:
        score += FACT_WEIGHT
    if candidate.hit.memory.valid_to is not None:
        score *= REPLACED_WEIGHT
    return score


@dataclass(frozen=True)
class Question:
    """What a question asks: its content words (by stem) with their weight, the kind of thing
    that answers it, the words none of the member's memories holds (typos, or things never
    mentioned) and, among those, the names."""

    weights: dict[str, float]
    wanted: re.Pattern | None
    unseen: frozenset[str] = frozenset()
    unknown_names: tuple[str, ...] = ()

    def covers(self, term: str, terms: frozenset[str]) -> bool:
        if term in terms:
            return True
        # A word the member never wrote may be a typo of one they did ("deliverd").
        return term in self.unseen and any(_alike(term, other) for other in terms)

    def coverage(self, terms: frozenset[str]) -> float:
        total = sum(self.weights.values())
        found = sum(w for t, w in self.weights.items() if self.covers(t, terms))
        return found / total if total else 0.0


def _alike(word: str, other: str) -> bool:
    return (
        min(len(word), len(other)) >= 4
        and SequenceMatcher(None, word, other).ratio() >= TYPO_SIMILARITY
    )


def read_question(owner, question: str, *, members: int) -> Question:
    """A word weighs by how rare it is among the member's own memories (IDF over their keyword
    index: "playlist" decides, "want" hardly does); a word none of them holds weighs the most,
    and a sentence covers it only by a near spelling. A name none of them holds (a word
    capitalised inside the question, or a first name that is not also a common word) means
    there is no memory of it."""
    text = normalise(question)
    words = {}
    for word in words_of(text):
        term = stem(word)
        if len(word) > 1 and not word.isdigit() and word not in FILLER and term not in FILLER:
            words.setdefault(term, word.replace("'", " ").replace("’", " ").split()[0])
    if not words:
        return Question({}, asks_for(question))
    counts = search.term_match_counts(
        owner_id=owner.pk, terms=tuple(words.values()), cap=max(members, 1)
    )
    capitalised = {w.lower() for w in re.findall(r"(?<=[\w,] )[A-Z][a-z]+", text)}
    names = first_names() - common_words()
    weights, unseen, unknown = {}, set(), []
    for (term, word), count in zip(words.items(), counts, strict=True):
        weights[term] = math.log((members + 1) / (count + 0.5))
        if not count:
            unseen.add(term)
            if word in capitalised or word.removesuffix("s") in names:
                unknown.append(word.title())
    return Question(weights, asks_for(question), frozenset(unseen), tuple(unknown))


def spoken_date(moment: datetime, *, now: datetime) -> str:
    moment = timezone.localtime(moment)
    text = f"{moment.day} {moment:%b}"
    return text if moment.year == timezone.localtime(now).year else f"{text} {moment.year}"


def _source(hit: Hit, *, now: datetime) -> str:
    memory = hit.memory
    when = spoken_date(memory.happened_at or memory.created_at, now=now)
    where = "" if memory.act.is_your_story else f" — {memory.act.title}"
    return f"On {when}{where}"


def _changed(hit: Hit) -> str:
    for earlier in hit.components.get("replaces", [])[:1]:
        return f" (It changed: previously “{earlier['previously'].rstrip('.')}”.)"
    if hit.memory.valid_to is not None:
        return " (This was changed later.)"
    return ""


def answer_question(owner, question: str, found: RecallResult, *, now=None) -> Answer:
    """The answer to ``question`` from what ``found`` holds that clears the floor."""
    now = now or timezone.now()
    hits = found.strong
    asked = read_question(owner, question, members=Memory.objects.filter(owner=owner).count())
    if asked.unknown_names:
        return Answer(
            NO_MEMORY,
            "no_memory",
            reason=f"None of your memories mentions {', '.join(asked.unknown_names)}.",
        )
    if not asked.weights:
        return Answer(NO_MEMORY, "no_memory", reason="The question has no words to look for.")
    candidates = _candidates(hits)
    if not candidates:
        return Answer(
            NO_MEMORY, "no_memory", reason="No memory cleared the relevance floor for this."
        )
    scored = sorted(candidates, key=lambda c: -_score(c, asked, len(hits)))
    best = scored[0]
    coverage = asked.coverage(best.terms)
    meaning = best.hit.components.get("meaning", {}).get("similarity", 0.0)
    if coverage < MIN_COVERAGE and meaning < MEANING_ANSWERS:
        return Answer(
            NO_MEMORY,
            "no_memory",
            reason=f"The closest memory ([id:{best.hit.memory_id}]) covers {coverage:.0%} of "
            "what the question asks.",
        )
    chosen = [best]
    # Two memories can answer together ("how much under budget": the budget and the quote).
    for other in scored[1:]:
        together = asked.coverage(best.terms | other.terms)
        if other.hit.memory_id != best.hit.memory_id and together - coverage >= SECOND_MIN_GAIN:
            chosen.append(other)
            break
    lines = [f"{_source(c.hit, now=now)}: {c.sentence.rstrip()}{_changed(c.hit)}" for c in chosen]
    used = []
    for c in chosen:
        if c.hit not in used:
            used.append(c.hit)
    holds = asked.wanted is not None and asked.wanted.search(best.sentence)
    reason = (
        f"It covers {coverage:.0%} of what the question asks"
        if coverage >= MIN_COVERAGE
        else f"It means nearly what the question asks (similarity {meaning:.2f})"
    ) + (" and holds the kind of thing asked for." if holds else ".")
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
