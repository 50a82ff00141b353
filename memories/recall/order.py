"""The final order: relevance weighed by reinforcement, use and age; then what a household said
last about a thing above what it replaced — a decision marked as replaced at review, an older
value of the same subject and relation, an earlier telling of the same topic."""

from __future__ import annotations

import math
import re

from django.conf import settings

from memories import search, vectors
from memories.models import Memory, MemoryItem
from memories.recall.results import Hit
from memories.recall.steps import Pool

# A replaced decision or fact keeps this share of its score: still found, below the current one.
SUPERSEDED_WEIGHT = 0.5
# An older fact on the same subject and relation as a newer candidate, not marked as replaced.
OLDER_VALUE_WEIGHT = 0.8


class Weigher:
    """final = relevance × reinforcement × freshness, where relevance is the candidate's score
    over the best one, reinforcement exp(0.2 × score) as in memory_query, and freshness
    1 + decay_weight × 0.99^(hours since use / strength) + recency_weight × exp(-hours old / 72)."""

    def __init__(self, top_score: float):
        self.top_score = top_score
        config = settings.TALKINGROCK_RECALL
        self.decay_weight, self.recency_weight = config["decay_weight"], config["recency_weight"]

    def parts(self, score, memory_score, hit_count, hours_since_use, hours_old):
        relevance = score / self.top_score if self.top_score else 0.0
        reinforcement = math.exp(search.SCORE_FACTOR * memory_score)
        decay = 0.99 ** (max(hours_since_use, 0.0) / (1 + hit_count))
        recency = math.exp(-max(hours_old, 0.0) / 72)
        freshness = 1 + self.decay_weight * decay + self.recency_weight * recency
        return relevance, reinforcement, decay, recency, relevance * reinforcement * freshness

    def __call__(self, *row) -> float:
        return self.parts(*row)[-1]

    def factors(self, *row) -> dict[str, float]:
        names = ("relevance", "reinforcement", "decay", "recency", "score")
        return {name: round(value, 4) for name, value in zip(names, self.parts(*row), strict=True)}


def rounded(value):
    if isinstance(value, float):
        return round(value, 4)
    if isinstance(value, dict):
        return {key: rounded(item) for key, item in value.items()}
    return value


def newest_value_first(final: dict, values: dict, pool: Pool) -> None:
    """Two facts with the same subject and relation ("pickup" / "time") are two values of one
    thing: among the candidates, the older ranks below the newer (taking the newest value is
    what answers "what is it now?", whether or not the member marked the change at review)."""
    newest: dict[tuple[str, str], tuple] = {}
    for memory_id, (subject, relation, when) in values.items():
        key = (subject, relation)
        if key not in newest or (when, memory_id) > newest[key]:
            newest[key] = (when, memory_id)
    for memory_id, (subject, relation, _when) in values.items():
        _, latest = newest[(subject, relation)]
        if latest != memory_id:
            final[memory_id] *= OLDER_VALUE_WEIGHT
            pool.parts[memory_id]["older_value"] = {"newer": latest, "subject": subject}


# A memory whose decision a later conversation replaced drops below that conversation's memory
# when the later one is itself this strong a candidate (the question is about what changed).
REPLACED_IN_RATIO = 0.6


def current_before_replaced(final: dict, pool: Pool) -> None:
    """A conversation's memory whose decision (or fact) a later one replaced ranks just below
    the memory that holds the replacement, when both answer the question: "what did we end up
    doing with the worktops" gives the quartz conversation first, the butcher-block one next."""
    ids = list(final)
    pairs = set(
        MemoryItem.objects.filter(memory_id__in=ids, superseded_by__memory_id__in=ids)
        .values_list("memory_id", "superseded_by__memory_id")
        .distinct()
    )
    for old, new in sorted(pairs, key=lambda pair: -final[pair[1]]):
        if old == new or final[new] < REPLACED_IN_RATIO * final[old]:
            continue
        if final[old] >= final[new]:
            final[old] = final[new] * 0.95
            pool.parts[old]["changed_later"] = {"by": new}


# Two candidates this close in meaning, from different conversations, are the same topic told
# twice: the later telling is the current one ("hen moved … 23rd, manchester").
SAME_TOPIC = 0.6
TOPIC_CANDIDATES = 10
_THE_PAST = re.compile(
    r"\b(?:originally|at first|first|initially|before|previously|used to|old|last time|back in|"
    r"back when|earlier|the first time|to begin with|in the beginning)\b",
    re.I,
)


def asks_about_the_past(query: str) -> bool:
    return bool(_THE_PAST.search(query or ""))


# A later telling replaces an earlier one only when it says the plan changed, or carries a new
# value of a kind the earlier one has: a date for a date, a time for a time, an amount for an
# amount (the rule issue 11's changes stage applies at review). Telling a topic again without
# either ("the support group was great again") replaces nothing.
_CHANGED = re.compile(
    r"\b(?:moved|changed?|switched|instead|no longer|anymore|cancell?ed|postponed|rescheduled|"
    r"pushed (?:back|to)|brought forward|going with|settled on|not \w+ after all)\b",
    re.I,
)
_MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*"
_VALUES = {
    "time": re.compile(r"\b\d{1,2}(?:[:.]\d{2})?\s?(?:am|pm)\b|\b\d{1,2}:\d{2}\b|\bnoon\b", re.I),
    "amount": re.compile(
        r"[£$€]\s?\d[\d,.]*k?|\b\d[\d,.]*\s?(?:pounds|dollars|euros|quid|bucks)\b", re.I
    ),
    "date": re.compile(
        rf"\b\d{{1,2}}(?:st|nd|rd|th)\b|\b(?:mon|tues|wednes|thurs|fri|satur|sun)day\b|"
        rf"\b{_MONTH}\s\d{{1,2}}\b|\b\d{{1,2}}\s{_MONTH}\b",
        re.I,
    ),
}


def _values(text: str) -> dict[str, set[str]]:
    return {kind: {v.lower() for v in found.findall(text)} for kind, found in _VALUES.items()}


def tells_a_change(older: str, newer: str) -> bool:
    """Whether ``newer`` says a plan changed, or gives a new value of a kind ``older`` has."""
    if _CHANGED.search(newer):
        return True
    before, after = _values(older), _values(newer)
    return any(before[kind] and after[kind] - before[kind] for kind in _VALUES)


def newer_on_the_same_topic(final: dict, pool: Pool, owner, *, when: dict) -> None:
    """Among the best candidates, an earlier memory on the same topic as a later one (their
    meanings this close, their conversations or sessions different) ranks just below the later one when
    the later one answers nearly as well and tells a change: what a household says last about a
    thing is what is true now, whether or not the change was marked at review. Not for questions about the past
    or a time window (those ask for the earlier one)."""
    top = sorted(final, key=lambda i: (-final[i], -i))[:TOPIC_CANDIDATES]
    found = vectors.rows(pool.vectors, owner.pk, top)
    # Told where: its conversation, else its session (a session is read as a conversation).
    told_in, text = {}, {}
    for pk, conversation_id, session, content in Memory.objects.filter(pk__in=top).values_list(
        "pk", "conversation_id", "session", "content"
    ):
        told_in[pk] = conversation_id or (f"session:{session}" if session else None)
        text[pk] = content
    for newer in sorted(top, key=lambda i: when[i], reverse=True):
        for older in top:
            if (
                when[older] >= when[newer]
                or older not in found
                or newer not in found
                or told_in.get(older) == told_in.get(newer)
                or final[older] < final[newer]
                or final[newer] < REPLACED_IN_RATIO * final[older]
                or float(found[older] @ found[newer]) < SAME_TOPIC
                or not tells_a_change(text[older], text[newer])
            ):
                continue
            final[older] = final[newer] * 0.95
            pool.parts[older]["told_again"] = {"by": newer}


def note_what_they_replace(hits: list[Hit]) -> None:
    """A current decision or fact says what it replaced ("previously: butcher block")."""
    earlier = Memory.objects.filter(superseded_by__in=[hit.memory_id for hit in hits]).values_list(
        "superseded_by", "content", "valid_to"
    )
    by_id = {hit.memory_id: hit for hit in hits}
    for current, content, until in earlier:
        replaces = by_id[current].components.setdefault("replaces", [])
        replaces.append({"previously": content[:200], "changed": until.date().isoformat()})
