"""The final order: relevance weighed by reinforcement, use and age; then what a household said
last about a thing above what it replaced — a decision marked as replaced at review, an older
value of the same subject and relation, an earlier telling of the same topic."""

from __future__ import annotations

import math

from django.conf import settings

from memories import search, vectors
from memories.models import Memory, MemoryItem
from memories.recall.results import Hit
from memories.recall.steps import Pool
from talkingrock.language import values

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


def weigh_what_was_said(final: dict, pool: Pool, rows: dict) -> None:
    """What was said ranks below what was kept from it when both answer equally well: a
    member's message × ``said_weight``, the assistant's reply × ``reply_weight`` (the assistant
    only repeats or asks). Each says where and when it was said."""
    config = settings.TALKINGROCK_RECALL
    weight = {Memory.Kind.SAID: config["said_weight"], Memory.Kind.REPLY: config["reply_weight"]}
    for memory_id, (kind, conversation_id, when) in rows.items():
        if kind in weight:
            final[memory_id] *= weight[kind]
            pool.parts[memory_id]["said"] = {
                "by": "you" if kind == Memory.Kind.SAID else "assistant",
                "conversation": conversation_id,
                "on": when.date().isoformat() if when else "",
            }


# A kept memory "answers as well" as a message when its base relevance (before what was said
# around either lifted it) is at least this share of the message's.
ANSWERS_AS_WELL = 0.9
KEPT_FIRST_CANDIDATES = 30


def kept_before_said(final: dict, pool: Pool, kinds: dict) -> None:
    """A memory the member kept (reviewed, or stored) ranks above a message that answers no
    better: the message, lifted by the conversation around it, goes just below it. A message
    that answers better than anything kept keeps its place."""
    top = sorted(final, key=lambda i: (-final[i], -i))[:KEPT_FIRST_CANDIDATES]
    kept = [i for i in top if kinds.get(i) in (Memory.Kind.MEMORY, Memory.Kind.FACT)]
    for memory_id in top:
        if kinds.get(memory_id) not in Memory.EVIDENCE:
            continue
        base = pool.base.get(memory_id, 0.0)
        rivals = [
            i
            for i in kept
            if final[i] < final[memory_id] and pool.base.get(i, 0.0) >= ANSWERS_AS_WELL * base
        ]
        if rivals:
            best = max(rivals, key=lambda i: final[i])
            final[memory_id] = final[best] * 0.99
            pool.parts[memory_id]["kept_first"] = {"by": best}


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


def current_before_replaced(final: dict, pool: Pool, told_in: dict | None = None) -> None:
    """A conversation's memory whose decision (or fact) a later one replaced ranks just below
    the memory that holds the replacement, when both answer the question: "what did we end up
    doing with the worktops" gives the quartz conversation first, the butcher-block one next.
    So does what was said in that conversation (``told_in``: candidate → its conversation):
    the messages that told the old choice rank below the conversation that changed it."""
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
    if not told_in:
        return
    changed = set(
        MemoryItem.objects.filter(
            memory__conversation_id__in={c for c in told_in.values() if c},
            superseded_by__isnull=False,
        ).values_list("memory__conversation_id", "superseded_by__memory__conversation_id")
    )
    for old_talk, new_talk in changed:
        newer = [i for i, talk in told_in.items() if talk == new_talk]
        if not newer or old_talk == new_talk:
            continue
        best_new = max(newer, key=lambda i: final[i])
        for memory_id, talk in told_in.items():
            if talk == old_talk and final[memory_id] >= final[best_new]:
                final[memory_id] = final[best_new] * 0.95
                pool.parts[memory_id]["changed_later"] = {"by": best_new}


# Two candidates this close in meaning, from different conversations, are the same topic told
# twice: the later telling is the current one ("hen moved … 23rd, manchester").
SAME_TOPIC = 0.6
TOPIC_CANDIDATES = 10


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
    for pk, conversation_id, session, content in Memory.everything.filter(pk__in=top).values_list(
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
                or not values.tells_a_change(text[older], text[newer])
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
