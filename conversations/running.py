"""The running narrative (seed 000, "incremental compaction"): after each turn one new link.

With Ollama, one small JSON-schema call answers the sentence, the memory ids it references, the
topic and whether the topic is the same. Offline, the topic shifts when the member's message is
no longer like the running topic (embedding similarity below ``topic_shift_below``), and the
sentence is the first one the offline engine writes for the turn's extraction.

Same topic: a link whose ``previous`` is the member's current one, even across conversations.
New topic: a link that starts a topic and still points back to where the talk came from.
At close, ``close_link`` adds the conversation's final link, which the kept memories carry.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass

import numpy as np
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from conversations.models import Conversation, Message
from memories.models import Memory
from narratives import services
from narratives.models import Narrative
from talkingrock import embeddings, jobs, llm
from talkingrock.language import offline
from talkingrock.text import sentences

log = logging.getLogger(__name__)

SYSTEM = """You keep the running narrative of a conversation: one sentence that says where the
reasoning has got to (what was decided, what is open, why), not a transcript. Answer with JSON:
"summary" (one sentence, at most 250 characters, third person, about the member), "memory_ids"
(ids from the memories listed that the sentence rests on; may be empty), "topic" (a short label,
at most 8 words) and "same_topic" (true if this turn continues the current topic)."""

SCHEMA = {
    "type": "object",
    "properties": {
        "summary": {"type": "string", "maxLength": 250},
        "memory_ids": {"type": "array", "maxItems": 10, "items": {"type": "integer"}},
        "topic": {"type": "string", "maxLength": 80},
        "same_topic": {"type": "boolean"},
    },
    "required": ["summary", "memory_ids", "topic", "same_topic"],
}


def _config(name: str):
    return settings.TALKINGROCK_NARRATIVES[name]


@dataclass
class Step:
    summary: str
    topic: str
    same_topic: bool
    memory_ids: list[int]
    engine: str
    moved: bool = True  # False: the rules found nothing new in the turn (small talk, "ok")


def fit(sentence: str, limit: int = services.MAX_SUMMARY) -> str:
    """One sentence, cut at a word to fit the limit."""
    text = " ".join(sentence.split())
    if len(text) <= limit:
        return text
    return text[: limit - 1].rsplit(" ", 1)[0].rstrip(",;:") + "…"


def similarity(text: str, references: list[str]) -> float:
    """How like the running topic a message is: its best cosine against the references."""
    vectors = embeddings.embed([text, *references])
    return float(np.max(vectors[1:] @ vectors[0]))


_WORD = re.compile(r"[a-z0-9]{3,}")
_FILLER = frozenset("the and but for you that this with have just what yes okay thanks".split())


def content_words(text: str) -> int:
    return len({w for w in _WORD.findall(text.casefold()) if w not in _FILLER})


def offline_step(turn: str, *, current: Narrative | None, previous_said: str, person: str, today):
    """The rules' link for a turn: the first sentence the offline engine writes for it, and a
    topic shift when the message is unlike the running topic (a message too short to judge
    continues it)."""
    found = offline.extract([(Message.Role.USER, turn)], today=today, member=person)
    sentence = sentences(offline.narrative(found, person=person, day=today))[0]
    same = current is not None
    if current is not None and content_words(turn) >= _config("min_shift_words"):
        references = [text for text in (current.topic, current.summary, previous_said) if text]
        same = similarity(turn, references) >= _config("topic_shift_below")
    topic = current.topic if same and current else offline.topic_of(turn)
    moved = bool(found.facts) or any(
        found.items.get(kind) for kind in offline.KINDS if kind != "people"
    )
    return Step(fit(sentence), fit(topic, services.MAX_TOPIC), same, [], "offline", moved)


def model_step(turn: str, reply: str, *, current: Narrative | None, offered: list[Memory]):
    now = (
        f"Current narrative: {current.summary} (topic: {current.topic})"
        if current
        else ("There is no narrative yet.")
    )
    listed = "\n".join(f"- [id:{memory.pk}] {memory.content[:300]}" for memory in offered)
    answer = llm.structured(
        system=SYSTEM,
        prompt=f"{now}\n\nMemories:\n{listed or '(none)'}\n\nThe member said: {turn}\n"
        f"The assistant answered: {reply[:1500]}\n\nThe next link of the narrative:",
        schema=SCHEMA,
        max_tokens=256,
    )
    known = {memory.pk for memory in offered}
    value = answer.value
    return Step(
        services.clean_summary(fit(value["summary"])),  # one sentence, or the rules answer
        fit(value["topic"], services.MAX_TOPIC),
        bool(value["same_topic"]) and current is not None,
        [pk for pk in value["memory_ids"] if pk in known],
        f"ollama:{answer.model}",
    )


def advance(reply_id: int) -> str:
    """The task after each turn: add the running narrative's next link, if the turn moved it.
    One worker process at a time for each member: two turns' tasks run side by side would both
    continue the same link, and the chain would fork."""
    reply = Message.objects.select_related("conversation__owner").get(pk=reply_id)
    with jobs.held(f"narrative-member-{reply.conversation.owner_id}", wait=True):
        return _next_link(reply)


def _next_link(reply: Message) -> str:
    conversation = reply.conversation
    owner = conversation.owner
    said = list(
        conversation.messages.filter(role=Message.Role.USER, position__lt=reply.position)
        .order_by("-position")
        .values_list("content", flat=True)[:2]
    )
    if not said:
        return "no turn"
    turn, previous_said = said[0], (said[1] if len(said) > 1 else "")
    current = services.latest(owner)
    used = [entry["id"] for entry in reply.memories_used or [] if isinstance(entry.get("id"), int)]
    offered = list(Memory.objects.filter(owner=owner, pk__in=used))
    step = None
    if llm.status().engine == "ollama":
        try:
            step = model_step(turn, reply.content, current=current, offered=offered)
        except (llm.LLMError, services.NarrativeError) as error:
            log.info("Running narrative falls back to the offline engine: %s", error)
    if step is None:
        person = (owner.get_short_name() or owner.get_username()).title()
        today = timezone.localdate()
        step = offline_step(
            turn, current=current, previous_said=previous_said, person=person, today=today
        )
        step.memory_ids = [memory.pk for memory in offered]
    linked = {link.memory_id for link in current.links.all()} if current else set()
    if (
        current is not None
        and step.same_topic
        and (step.summary == current.summary or not step.moved)
        and set(step.memory_ids) <= linked
    ):
        return "unchanged"
    try:
        narrative = services.create(
            owner=owner,
            summary=step.summary,
            memory_ids=step.memory_ids,
            previous=current,
            topic=step.topic,
            starts_topic=current is None or not step.same_topic,
            conversation=conversation,
            engine=step.engine,
        )
    except services.NarrativeError as error:  # e.g. a memory deleted since the reply used it
        log.warning("No narrative link for message %s: %s", reply.pk, error.message)
        return f"refused: {error.message}"
    return f"narrative {narrative.pk}"


def close_link(conversation: Conversation, memories: list[Memory]) -> Narrative:
    """The conversation's final link: the first sentence of what was kept, linking the kept
    memories (and those its running links referenced); the kept memories carry it."""
    owner = conversation.owner
    current = services.latest(owner)
    referenced = [
        link.memory_id
        for narrative in services.with_links(conversation.narratives.order_by("created_at", "id"))
        for link in narrative.links.all()
    ]
    ids = list(dict.fromkeys([memory.pk for memory in memories] + referenced))
    live = set(Memory.objects.filter(owner=owner, pk__in=ids).values_list("pk", flat=True))
    ids = [pk for pk in ids if pk in live][: services.MAX_MEMORIES]
    same_conversation = current is not None and current.conversation_id == conversation.pk
    if same_conversation:
        topic = current.topic
    else:
        first = conversation.messages.filter(role=Message.Role.USER).order_by("position").first()
        topic = offline.topic_of(first.content if first else "")
    with transaction.atomic():
        final = services.create(
            owner=owner,
            summary=fit(sentences(memories[0].content)[0]),
            memory_ids=ids,
            previous=current,
            topic=fit(topic, services.MAX_TOPIC),
            starts_topic=current is None or not same_conversation,
            conversation=conversation,
            engine="close",
        )
        Memory.objects.filter(pk__in=[memory.pk for memory in memories]).update(narrative=final)
    for memory in memories:  # the caller's objects say what the rows now say
        memory.narrative = final
    return final
