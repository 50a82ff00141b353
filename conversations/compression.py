"""Close → compress (seed 003): the stages that turn a finished conversation into a draft memory
the member reviews (conversations/review.py).

``compress`` runs in the django-q2 worker (inline when none runs). The offline engine
(talkingrock/language/offline/) reads the conversation every time: it is the fallback of every stage and
the reading the rules for what changed work on. With Ollama each stage asks the model first
(conversations/prompts.py), checks the answer and falls back to the offline engine when it fails
twice or is down; ``Conversation.compression_report`` records which engine produced each stage.
Slow calls happen outside transactions; each write is short.

1. **entities**: people, tasks, decisions, waiting-ons, questions, and facts;
2. **deltas**: the member's open items this conversation closes, the decisions and facts it
   replaces (conversations/changes.py);
3. **narrative**: the route to an act, and 2–4 sentences of what it meant;
4. **embeddings**: the draft memory and its facts, written and indexed for recall.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Case, CharField, F, Value, When
from django.utils import timezone

from conversations import changes, drafts, prompts, titles
from conversations.asking import Produced, ask, days_of, render, transcript_of
from conversations.models import Conversation, Message
from memories import indexing
from talkingrock import embeddings, jobs, llm
from talkingrock.language import offline
from talkingrock.language.names import display_name
from talkingrock.language.offline.pipeline import Extraction

log = logging.getLogger(__name__)
Stage = Conversation.Stage
Status = Conversation.Status


def _config(name: str):
    return settings.TALKINGROCK_CONVERSATIONS[name]


# --- stage 1: entities and facts -------------------------------------------------------------


def read(conversation: Conversation, transcript, today: date) -> Extraction:
    """The offline engine's reading, with the member's household and the people they know."""
    owner = conversation.owner
    return offline.extract(
        transcript,
        today=today,
        member=display_name(owner),
        household=drafts.household_names(owner),
        known=drafts.known_people(owner),
    )


def extract_entities(transcript, reading: Extraction, *, use_llm: bool) -> Produced:
    passes = _config("extraction_passes")
    results: list[dict] = []
    produced: Produced | None = None
    prompt = f"Extract entities from this conversation:\n\n---\n{render(transcript)}\n---"
    for _ in range(passes if use_llm else 1):
        produced = ask(
            use_llm,
            lambda: reading.items,
            system=prompts.ENTITY_SYSTEM,
            prompt=prompt,
            schema=prompts.ENTITY_SCHEMA,
        )
        results.append(produced.value)
        if produced.engine == "offline":
            results = [produced.value]  # rules are deterministic: one pass says it all
            break
    produced.value = drafts.merge_entities(results)
    if produced.engine == "ollama":
        produced.attempts = passes
    return produced


def extract_facts(
    transcript, reading: Extraction, *, use_llm: bool, today: date, days: list[date] = ()
) -> Produced:
    """The conversation's facts; each remembers the day it was said on (``days``: each
    message's day), against which its dates are read when the draft is written."""
    said = "\n".join(content for role, content in transcript if role == Message.Role.USER)

    def said_on(fact) -> date:
        position = reading.reading.units[fact.unit].message
        return days[position] if position < len(days) else today

    produced = ask(
        use_llm,
        lambda: {"facts": [drafts.fact_row(fact, said_on(fact)) for fact in reading.facts]},
        system=prompts.FACTS_SYSTEM,
        prompt=f"Date of the conversation: {today:%-d %B %Y}.\nThe person is "
        f"{reading.reading.member}.\n\nWhat they said:\n{said}\n\nList the facts.",
        schema=prompts.FACTS_SCHEMA,
    )
    produced.value = drafts.clean_facts(produced.value.get("facts", []))
    return produced


# --- the pipeline ------------------------------------------------------------------------------


@dataclass
class Work:
    """Everything the stages produce for one conversation, before the draft is written."""

    conversation: Conversation
    transcript: list[tuple[str, str]]
    today: date
    use_llm: bool
    report: dict[str, Any] = field(default_factory=dict)


def _set_stage(conversation: Conversation, stage: str) -> bool:
    """Record progress; False when the member resumed meanwhile (the work is then dropped)."""
    updated = Conversation.objects.filter(pk=conversation.pk, status=Status.COMPRESSING).update(
        compression_stage=stage
    )
    conversation.compression_stage = stage
    return bool(updated)


def compress(conversation_id: int) -> str:
    """The compression task. Safe to run twice: a run that finds another one alive leaves it be,
    and a second run after a lost one replaces its draft."""
    conversation = (
        Conversation.objects.select_related("owner", "act").filter(pk=conversation_id).first()
    )
    if conversation is None:
        return "nothing to do: the conversation was forgotten"
    if conversation.status != Status.COMPRESSING or conversation.compression_stage == Stage.READY:
        return "nothing to do"
    holder, me = conversation.compression_worker, jobs.process_identity()
    if holder and holder != me and not jobs.process_gone(holder):
        return "already running"  # a duplicate delivery while its first run still works
    # Claim it: of two runs starting together, the one whose update lands first works.
    claimed = Conversation.objects.filter(pk=conversation.pk, compression_worker=holder).update(
        compression_worker=me, compression_attempts=F("compression_attempts") + 1
    )
    if not claimed:
        return "already running"
    started = time.perf_counter()
    try:
        return _compress(conversation, started)
    except Exception as error:
        log.exception("Compression of conversation %s failed", conversation.pk)
        Conversation.objects.filter(pk=conversation.pk, status=Status.COMPRESSING).update(
            compression_stage=Stage.FAILED,
            compression_error=f"{type(error).__name__}: {error}"[:2000],
        )
        return "failed"


def _compress(conversation: Conversation, started: float) -> str:
    owner = conversation.owner
    work = Work(
        conversation,
        transcript_of(conversation),
        (conversation.started_at or conversation.closed_at or timezone.now()).date(),
        llm.status().engine == "ollama",
    )
    report = work.report

    if not _set_stage(conversation, Stage.ENTITIES):
        return "resumed"
    reading = read(conversation, work.transcript, work.today)
    entities = extract_entities(work.transcript, reading, use_llm=work.use_llm)
    report["entities"] = entities.report() | {
        "passes": _config("extraction_passes") if work.use_llm else 1
    }
    facts = extract_facts(
        work.transcript,
        reading,
        use_llm=work.use_llm,
        today=work.today,
        days=days_of(conversation),
    )
    report["facts"] = facts.report()

    if not _set_stage(conversation, Stage.DELTAS):
        return "resumed"
    found = changes.find(
        owner, conversation, reading, entities.value, facts.value, use_llm=work.use_llm
    )
    report["deltas"] = found.produced.report()

    if not _set_stage(conversation, Stage.NARRATIVE):
        return "resumed"
    route = changes.suggest_route(owner, reading, entities.value, use_llm=work.use_llm)
    report["route"] = route.report() | route.value
    narrative = changes.write_narrative(
        conversation, reading, entities.value, found, route.value, use_llm=work.use_llm
    )
    report["narrative"] = narrative.report()

    if not _set_stage(conversation, Stage.EMBEDDINGS):
        return "resumed"
    with transaction.atomic():
        current = Conversation.objects.get(pk=conversation.pk)
        if current.status != Status.COMPRESSING:
            return "resumed"
        memory = drafts.write(
            conversation,
            narrative=narrative,
            entities=entities,
            facts=facts,
            found=found,
            route=route.value,
        )
    indexing.index_memories(owner_id=owner.pk)  # stage 4: vectors and entities, facts included
    report["embeddings"] = {"engine": "sentence-transformers", "model": embeddings.MODEL_NAME}
    Conversation.objects.filter(pk=conversation.pk, status=Status.COMPRESSING).update(
        # What it was about, unless the member has named it already (conversations/titles.py).
        title=Case(
            When(title="", then=Value(titles.suggest(conversation))),
            default=F("title"),
            output_field=CharField(),
        ),
        compression_stage=Stage.READY,
        compression_report=report,
        compression_engine=entities.engine,
        compression_model=entities.model,
        compression_passes=report["entities"]["passes"],
        compression_duration_ms=round((time.perf_counter() - started) * 1000),
        compression_error="",
    )
    return f"draft memory {memory.pk}"


def preview(conversation: Conversation) -> dict[str, Any]:
    """What closing will work from (the ready_to_close screen): instant, no model, no parse —
    the member's messages and the people they named whom the member's memories already know."""
    transcript = transcript_of(conversation)
    said = [content for role, content in transcript if role == Message.Role.USER]
    return {
        "messages": len(said),
        "people": drafts.people_named(conversation.owner, " ".join(said)),
        "empty": not said,
    }
