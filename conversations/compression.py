"""Close → compress → review (seed 003): the four stages, and what the review does with them.

``compress`` runs in the django-q2 worker (inline when none runs). Each stage asks Ollama when it
answers and falls back to the offline engine (``conversations.offline``) when it does not, or
answers nonsense twice; ``Conversation.compression_report`` records which engine produced each
artefact. Slow calls happen outside transactions; each write is short. The result is a draft
memory (status ``draft``: invisible to search and recall) with its items and state deltas, which
the member confirms, edits, redirects, splits or drops by resuming.
"""

from __future__ import annotations

import logging
import re
import time
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from conversations import offline
from conversations.models import Act, Conversation, Message
from conversations.services import TransitionError, ensure_your_story
from memories import indexing
from memories.models import Memory, MemoryItem, Mention, StateDelta
from memories.services import clean_content
from narratives import running
from narratives import services as narratives
from talkingrock import embeddings, jobs, llm
from talkingrock.text import clean_text

log = logging.getLogger(__name__)
Stage = Conversation.Stage
Status = Conversation.Status

# extract()'s keys → MemoryItem types
KIND_TO_TYPE = {
    "people": "person",
    "tasks": "task",
    "decisions": "decision",
    "waiting_on": "waiting_on",
    "questions_resolved": "question_resolved",
    "questions_opened": "question_opened",
    "blockers_cleared": "blocker_cleared",
    "insights": "insight",
}
TYPE_TO_KIND = {value: key for key, value in KIND_TO_TYPE.items()}


def _config(name: str):
    return settings.TALKINGROCK_CONVERSATIONS[name]


# --- schemas: bounded, so a small model cannot ramble (maxItems, maxLength) ---------------------


def _text(limit: int = 300) -> dict:
    return {"type": "string", "maxLength": limit}


def _list_of(**fields: dict) -> dict:
    return {
        "type": "array",
        "maxItems": 20,
        "items": {"type": "object", "properties": fields, "required": list(fields)},
    }


ENTITY_SCHEMA = {
    "type": "object",
    "properties": {
        "people": _list_of(name=_text(100), context=_text(), relation=_text(100)),
        "tasks": _list_of(
            description=_text(),
            status={"type": "string", "enum": ["decided", "in_progress", "blocked", "completed"]},
            priority=_text(50),
        ),
        "decisions": _list_of(what=_text(), why=_text()),
        "waiting_on": _list_of(who=_text(100), what=_text(), since=_text(40)),
        "questions_resolved": _list_of(question=_text(), answer=_text()),
        "questions_opened": _list_of(question=_text()),
        "blockers_cleared": _list_of(what=_text(), unblocks=_text()),
        "insights": _list_of(insight=_text(), context=_text()),
    },
}
# 2–4 sentences fit in 800 characters. A longer maxLength is also more than llama.cpp's grammar
# parser accepts once the limit is spelt out character by character (it refuses between 900 and
# 1,100: measured with `make smoke-llm`, see smoke/README.md).
NARRATIVE_MAX_CHARS = 800
NARRATIVE_SCHEMA = {
    "type": "object",
    "properties": {"narrative": {"type": "string", "maxLength": NARRATIVE_MAX_CHARS}},
    "required": ["narrative"],
}
DELTA_SCHEMA = {
    "type": "object",
    "properties": {
        "resolved": {
            "type": "array",
            "maxItems": 20,
            "items": {
                "type": "object",
                "properties": {"item_id": {"type": "integer"}, "why": _text()},
                "required": ["item_id", "why"],
            },
        },
        "priority_changes": _list_of(item=_text(), old=_text(50), new=_text(50)),
    },
    "required": ["resolved"],
}
ROUTE_SCHEMA = {
    "type": "object",
    "properties": {
        "suggested_destination": _text(200),
        "confidence": {"type": "number", "minimum": 0, "maximum": 1},
        "reasoning": _text(),
    },
    "required": ["suggested_destination", "confidence", "reasoning"],
}

ENTITY_SYSTEM = (
    "You are an entity extractor for a personal knowledge system. Given a conversation "
    "transcript, extract structured entities. Be precise. Only extract what is explicitly stated "
    "or strongly implied. Do not invent or assume. People are proper nouns only: named people, "
    "never pronouns or roles. Output valid JSON only. No preamble. No explanation."
)
NARRATIVE_SYSTEM = (
    "You are a memory synthesizer. Given extracted entities from a conversation, write a brief "
    "narrative that captures the MEANING of the conversation: not what was said, but what it "
    "signified, as a thoughtful colleague would remember it. 2-4 sentences. Focus on decisions, "
    "shifts in understanding, and what changed. Do not summarize the transcript."
)
DELTA_SYSTEM = (
    "You are a state change detector. Given the open items of a person (each with an id) and the "
    "entities just extracted from a conversation, list the open items this conversation resolves, "
    "and priority changes. Be conservative: only mark an item resolved if the conversation "
    "explicitly resolves it. Output valid JSON only."
)
ROUTE_SYSTEM = (
    "You are a routing advisor. Given a memory and the person's active Acts (projects or "
    "chapters of life), suggest which Act the memory belongs to. If it does not clearly belong "
    'to one, suggest "Your Story". Output JSON only.'
)


# --- the pipeline --------------------------------------------------------------------------------


@dataclass
class Produced:
    value: Any
    engine: str  # "ollama" or "offline"
    model: str = ""
    attempts: int = 0
    fallback_reason: str = ""

    def report(self) -> dict[str, Any]:
        entry = {"engine": self.engine}
        if self.model:
            entry |= {"model": self.model, "attempts": self.attempts}
        if self.fallback_reason:
            entry["fallback_reason"] = self.fallback_reason
        return entry


def _ask(use_llm: bool, fallback, **question) -> Produced:
    """The model's answer when it gives a valid one, else the offline engine's."""
    reason = "Ollama is not available."
    if use_llm:
        try:
            answer = llm.structured(**question)
            return Produced(answer.value, "ollama", answer.model, answer.attempts)
        except llm.LLMError as error:
            reason = error.message
            log.info("Falling back to the offline engine: %s", reason)
    return Produced(fallback(), "offline", fallback_reason=reason)


def transcript_of(conversation: Conversation) -> list[tuple[str, str]]:
    return list(
        conversation.messages.exclude(role=Message.Role.SYSTEM)
        .order_by("position")
        .values_list("role", "content")
    )


def _render(transcript: list[tuple[str, str]]) -> str:
    return "\n".join(f"{role}: {content}" for role, content in transcript)


def _normalised(entities: Any) -> dict[str, list[dict[str, str]]]:
    """Every key present, every field a string: what the review screen and items expect."""
    clean: dict[str, list[dict[str, str]]] = {}
    for kind, item_type in KIND_TO_TYPE.items():
        rows = entities.get(kind) if isinstance(entities, dict) else None
        fields = [*MemoryItem.FIELDS[item_type], "relation", "priority", "since", "why"]
        kept = []
        for row in rows if isinstance(rows, list) else []:
            if isinstance(row, dict):
                kept.append({k: str(v)[:300] for k, v in row.items() if k in fields and v})
        clean[kind] = kept
    return clean


def merge_entities(passes: list[dict]) -> dict[str, list[dict[str, str]]]:
    """Several extraction passes into one: an item is kept once, by its main text."""
    merged: dict[str, list[dict[str, str]]] = {kind: [] for kind in KIND_TO_TYPE}
    for entities in passes:
        for kind, rows in _normalised(entities).items():
            main = MemoryItem.FIELDS[KIND_TO_TYPE[kind]][0]
            seen = {_key(row.get(main, "")) for row in merged[kind]}
            for row in rows:
                if (key := _key(row.get(main, ""))) and key not in seen:
                    merged[kind].append(row)
                    seen.add(key)
    return merged


def _key(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.casefold()))


def extract_entities(transcript, *, use_llm: bool, today) -> Produced:
    passes = _config("extraction_passes")
    results: list[dict] = []
    produced: Produced | None = None
    prompt = f"Extract entities from this conversation:\n\n---\n{_render(transcript)}\n---"
    for _ in range(passes if use_llm else 1):
        produced = _ask(
            use_llm,
            lambda: offline.extract(transcript, today=today),
            system=ENTITY_SYSTEM,
            prompt=prompt,
            schema=ENTITY_SCHEMA,
        )
        results.append(produced.value)
        if produced.engine == "offline":
            results = [produced.value]  # rules are deterministic: one pass says it all
            break
    produced.value = merge_entities(results)
    if produced.engine == "ollama":
        produced.attempts = passes
    return produced


def write_narrative(entities, *, use_llm: bool, conversation: Conversation, person: str):
    act = conversation.act.title if conversation.act else "Your Story"
    date = (conversation.closed_at or timezone.now()).date()
    prompt = (
        f"Conversation entities:\n{entities}\n\nConversation context:\n- Active Act: {act}\n"
        f"- Date: {date.isoformat()}\n- Person: {person}\n\nWrite the memory narrative."
    )
    first_message = next(
        (text for role, text in transcript_of(conversation) if role == Message.Role.USER), ""
    )

    def by_rules() -> str:
        return offline.narrative(
            entities, act_title=act, date=date, person=person, first_message=first_message
        )

    produced = _ask(
        use_llm,
        lambda: {"narrative": by_rules()},
        system=NARRATIVE_SYSTEM,
        prompt=prompt,
        schema=NARRATIVE_SCHEMA,
    )
    narrative = " ".join(str(produced.value["narrative"]).split())
    if not narrative:  # a blank answer is no narrative: the rules always write one
        narrative = by_rules()
        produced.engine = "offline"
        produced.fallback_reason = "The model wrote an empty narrative."
    produced.value = narrative
    return produced


def open_items(owner, *, exclude_conversation=None) -> list[MemoryItem]:
    rows = MemoryItem.objects.filter(
        memory__owner=owner,
        memory__status=Memory.Status.CONFIRMED,
        is_active=True,
        type__in=MemoryItem.OPEN_TYPES,
    ).select_related("memory")
    if exclude_conversation is not None:
        rows = rows.exclude(memory__conversation=exclude_conversation)
    return list(rows.order_by("-created_at")[:200])


def _as_open(item: MemoryItem) -> dict:
    return {"id": item.pk, "type": item.type, "data": item.data}


def compute_deltas(entities, transcript, items: list[MemoryItem], *, use_llm: bool) -> Produced:
    """New threads and waiting-ons, and the open items this conversation resolves: by the rules,
    by embedding similarity (same person for a waiting-on), and by the model when it answers."""
    said = "\n".join(content for role, content in transcript if role == Message.Role.USER)
    rules = offline.deltas(entities, [_as_open(item) for item in items], said)
    resolutions: dict[int, dict] = {}
    for kind in ("resolved_waiting_ons", "resolved_threads"):
        for row in rules.get(kind, []):
            if isinstance(row.get("item_id"), int):
                resolutions[row["item_id"]] = {"by": "rules", "why": _rule_reason(row)}
    for item_id, (similarity, text) in similar_resolutions(entities, transcript, items).items():
        resolutions.setdefault(
            item_id, {"by": "similarity", "why": f"similar to “{text}” ({similarity:.2f})"}
        )
        resolutions[item_id]["similarity"] = round(similarity, 3)
    reason = "Ollama is not available." if not use_llm else "There were no open items to check."
    produced = Produced(None, "offline", fallback_reason=reason)
    if use_llm and items:
        known = {item.pk for item in items}
        prompt = (
            f"Current open items:\n{[_as_open(item) for item in items]}\n\n"
            f"Newly extracted entities:\n{entities}"
        )
        produced = _ask(
            True, lambda: {"resolved": []}, system=DELTA_SYSTEM, prompt=prompt, schema=DELTA_SCHEMA
        )
        for row in produced.value.get("resolved", []):
            if row["item_id"] in known:
                resolutions.setdefault(row["item_id"], {"by": "model", "why": row["why"]})
    produced.value = {
        "new_waiting_ons": rules.get("new_waiting_ons", []),
        "new_open_threads": rules.get("new_open_threads", []),
        "priority_changes": rules.get("priority_changes", []),
        "resolutions": resolutions,
    }
    return produced


def _rule_reason(row: dict) -> str:
    return row.get("why") or "the conversation says so"


_SENTENCE = re.compile(r"(?<=[.!?])\s+")


def similar_resolutions(entities, transcript, items: list[MemoryItem]) -> dict[int, tuple]:
    """Open item id → (cosine, the new text) for the pairs above the threshold.

    A waiting-on is compared with the member's sentences that name the same person; a question
    with the new decisions and answered questions; a task with the completed tasks."""
    if not items:
        return {}
    answers = [
        *(
            f"{row.get('question', '')} {row.get('answer', '')}"
            for row in entities["questions_resolved"]
        ),
        *(f"{row.get('what', '')} {row.get('why', '')}" for row in entities["decisions"]),
        *(row.get("what", "") for row in entities["blockers_cleared"]),
    ]
    done = [
        row.get("description", "") for row in entities["tasks"] if row.get("status") == "completed"
    ]
    sentences = [
        sentence
        for role, content in transcript
        if role == Message.Role.USER
        for sentence in _SENTENCE.split(content)
        if sentence.strip()
    ]
    pairs: list[tuple[MemoryItem, str]] = []
    for item in items:
        if item.type == "waiting_on":
            who = item.data.get("who", "").strip()
            candidates = [
                s for s in sentences if who and re.search(rf"\b{re.escape(who)}\b", s, re.I)
            ]
        elif item.type == "question_opened":
            candidates = answers
        else:
            candidates = done
        pairs.extend((item, text.strip()) for text in candidates if text.strip())
    if not pairs:
        return {}
    texts = sorted({item.text for item, _ in pairs} | {text for _, text in pairs})
    vectors = dict(zip(texts, embeddings.embed(texts), strict=True))
    threshold = _config("resolution_similarity")
    best: dict[int, tuple[float, str]] = {}
    for item, text in pairs:
        similarity = float(vectors[item.text] @ vectors[text])
        if similarity >= threshold and similarity > best.get(item.pk, (0.0, ""))[0]:
            best[item.pk] = (similarity, text[:200])
    return best


def suggest_route(owner, entities, narrative: str, *, use_llm: bool) -> Produced:
    acts = list(Act.objects.filter(owner=owner, status=Act.Status.ACTIVE, is_your_story=False))
    described = [
        {
            "id": act.pk,
            "title": act.title,
            "description": act.description,
            "entity_names": sorted(
                set(
                    Mention.objects.filter(memory__act=act, memory__owner=owner).values_list(
                        "entity__name", flat=True
                    )[:200]
                )
            )[:30],
        }
        for act in acts
    ]
    rules = offline.route(entities, narrative, described)
    reason = "Ollama is not available." if not use_llm else "There is no act besides Your Story."
    produced = Produced(rules, "offline", fallback_reason=reason)
    if use_llm and acts:
        listing = "\n".join(f"- {act['title']}: {act['description']}" for act in described)
        answer = _ask(
            True,
            lambda: None,
            system=ROUTE_SYSTEM,
            schema=ROUTE_SCHEMA,
            prompt=f"Memory narrative:\n{narrative}\n\nMemory entities:\n{entities}\n\n"
            f"Active Acts:\n{listing}\n- Your Story: everything else",
        )
        if answer.engine == "ollama":
            by_title = {act.title.casefold(): act.pk for act in acts}
            wanted = answer.value["suggested_destination"].strip().casefold()
            if wanted in by_title or wanted == "your story":
                produced = Produced(
                    {
                        "act_id": by_title.get(wanted),
                        "confidence": float(answer.value["confidence"]),
                        "reason": answer.value["reasoning"],
                    },
                    "ollama",
                    answer.model,
                    answer.attempts,
                )
            else:
                produced.fallback_reason = f"The model named an act that does not exist: {wanted}."
        else:
            produced.fallback_reason = answer.fallback_reason
    return produced


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
    conversation = Conversation.objects.select_related("owner", "act").get(pk=conversation_id)
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
    use_llm = llm.status().engine == "ollama"
    transcript = transcript_of(conversation)
    today = (conversation.closed_at or timezone.now()).date()
    person = owner.get_short_name() or owner.get_username()
    report: dict[str, Any] = {}

    if not _set_stage(conversation, Stage.ENTITIES):
        return "resumed"
    entities = extract_entities(transcript, use_llm=use_llm, today=today)
    report["entities"] = entities.report() | {
        "passes": _config("extraction_passes") if use_llm else 1
    }

    if not _set_stage(conversation, Stage.NARRATIVE):
        return "resumed"
    narrative = write_narrative(
        entities.value, use_llm=use_llm, conversation=conversation, person=person
    )
    report["narrative"] = narrative.report()

    if not _set_stage(conversation, Stage.DELTAS):
        return "resumed"
    items = open_items(owner, exclude_conversation=conversation)
    deltas = compute_deltas(entities.value, transcript, items, use_llm=use_llm)
    report["deltas"] = deltas.report()
    route = suggest_route(owner, entities.value, narrative.value, use_llm=use_llm)
    report["route"] = route.report() | route.value

    if not _set_stage(conversation, Stage.EMBEDDINGS):
        return "resumed"
    with transaction.atomic():
        current = Conversation.objects.get(pk=conversation.pk)
        if current.status != Status.COMPRESSING:
            return "resumed"
        Memory.objects.filter(conversation=conversation, status=Memory.Status.DRAFT).delete()
        memory = _write_draft(conversation, entities, narrative, deltas.value, route.value)
    indexing.index_memories(owner_id=owner.pk)  # stage 4: the draft's vector and entities
    report["embeddings"] = {"engine": "sentence-transformers", "model": embeddings.MODEL_NAME}
    Conversation.objects.filter(pk=conversation.pk, status=Status.COMPRESSING).update(
        compression_stage=Stage.READY,
        compression_report=report,
        compression_engine=entities.engine,
        compression_model=entities.model,
        compression_passes=report["entities"]["passes"],
        compression_duration_ms=round((time.perf_counter() - started) * 1000),
        compression_error="",
    )
    return f"draft memory {memory.pk}"


def _write_draft(conversation, entities: Produced, narrative: Produced, deltas, route) -> Memory:
    owner = conversation.owner
    destination = None
    if route.get("act_id"):
        destination = Act.objects.filter(pk=route["act_id"], owner=owner).first()
    memory = Memory.objects.create(
        owner=owner,
        content=narrative.value,
        source=Memory.Source.CONVERSATION,
        act=destination or ensure_your_story(owner=owner),
        conversation=conversation,
        status=Memory.Status.DRAFT,
        extraction_engine=_engine_label(narrative),
        confidence=route.get("confidence"),
        happened_at=conversation.started_at,
        narrative=narratives.latest(owner),
    )
    indexing.request_indexing(owner_id=owner.pk)
    MemoryItem.objects.bulk_create(
        MemoryItem(
            memory=memory,
            type=KIND_TO_TYPE[kind],
            data=row,
            is_active=not (kind == "tasks" and row.get("status") == "completed"),
        )
        for kind, rows in entities.value.items()
        for row in rows
    )
    new = (
        [
            StateDelta(memory=memory, type=StateDelta.Type.NEW_WAITING_ON, data=row)
            for row in deltas["new_waiting_ons"]
        ]
        + [
            StateDelta(memory=memory, type=StateDelta.Type.NEW_THREAD, data=row)
            for row in deltas["new_open_threads"]
        ]
        + [
            StateDelta(memory=memory, type=StateDelta.Type.PRIORITY_CHANGE, data=row)
            for row in deltas["priority_changes"]
        ]
    )
    resolved_items = MemoryItem.objects.in_bulk(list(deltas["resolutions"]))
    for item_id, how in deltas["resolutions"].items():
        if (item := resolved_items.get(item_id)) is None:
            continue
        kind = (
            StateDelta.Type.RESOLVED_WAITING_ON
            if item.type == "waiting_on"
            else StateDelta.Type.RESOLVED_THREAD
        )
        new.append(StateDelta(memory=memory, type=kind, item=item, data={"item": item.text, **how}))
    StateDelta.objects.bulk_create(new)
    return memory


def _engine_label(produced: Produced) -> str:
    return f"ollama:{produced.model}" if produced.engine == "ollama" else "offline"


# --- the review ----------------------------------------------------------------------------------


def draft_of(conversation: Conversation) -> Memory | None:
    return (
        Memory.objects.filter(conversation=conversation, status=Memory.Status.DRAFT)
        .select_related("act")
        .order_by("pk")
        .first()
    )


def _reviewable(conversation: Conversation) -> tuple[Conversation, Memory]:
    current = Conversation.objects.get(pk=conversation.pk, owner_id=conversation.owner_id)
    if current.status == Status.ARCHIVED:
        raise TransitionError("This conversation is already archived: its memory was kept.")
    if not current.review_ready:
        raise TransitionError("The memory is not ready for review yet.")
    memory = draft_of(current)
    if memory is None:
        raise TransitionError("This conversation has no memory waiting for review.")
    return current, memory


def save_edits(*, conversation: Conversation, narrative: str | None = None) -> Memory:
    """Edit the draft's narrative; the engine's wording is kept as the original."""
    with transaction.atomic():
        _, memory = _reviewable(conversation)
        if narrative is not None:
            _set_content(memory, narrative)
            memory.save(update_fields=["content", "user_edited", "original_content"])
    return memory


def _set_content(memory: Memory, narrative: str) -> None:
    narrative = clean_content(narrative)
    if narrative != memory.content:
        if not memory.user_edited:
            memory.original_content = memory.content
        memory.user_edited = True
        memory.content = narrative


def update_item(*, item: MemoryItem, main: str, detail: str = "") -> MemoryItem:
    main_key, detail_key = MemoryItem.FIELDS[item.type]
    main, detail = clean_text(main, multiline=False), clean_text(detail, multiline=False)
    if not main.strip():
        raise TransitionError("An item needs some text; remove it instead.")
    item.data = {**item.data, main_key: main.strip()[:300]}
    if detail_key:
        item.data[detail_key] = detail.strip()[:300]
    item.save(update_fields=["data"])
    return item


def add_item(*, memory: Memory, type: str, main: str, detail: str = "") -> MemoryItem:
    if type not in MemoryItem.FIELDS:
        raise TransitionError(f"Unknown item type: {type}.")
    main, detail = clean_text(main, multiline=False), clean_text(detail, multiline=False)
    if not main.strip():
        raise TransitionError("An item needs some text.")
    main_key, detail_key = MemoryItem.FIELDS[type]
    data = {main_key: main.strip()[:300]}
    if detail_key and detail.strip():
        data[detail_key] = detail.strip()[:300]
    return MemoryItem.objects.create(memory=memory, type=type, data=data)


@dataclass
class Part:
    """One destination of a split: an act, its text, the items that go with it."""

    act: Act
    text: str
    item_ids: list[int]


def confirm(
    *,
    conversation: Conversation,
    destination: Act | None = None,
    narrative: str | None = None,
    declined: list[int] = (),
) -> list[Memory]:
    """Keep the draft where the member says (the suggestion otherwise), apply the accepted
    deltas and archive the conversation."""
    with transaction.atomic():
        current, memory = _reviewable(conversation)
        if destination is not None:
            memory.act = destination
        if narrative is not None:
            _set_content(memory, narrative)
        return _keep(current, [memory], declined)


def split(
    *, conversation: Conversation, parts: list[Part], declined: list[int] = ()
) -> list[Memory]:
    """One memory per destination, each linked to the conversation; items go where assigned.

    Each part starts from the extracted narrative (the review's split boxes are filled with it):
    a part kept as it was is not an edit; a part the member rewrote keeps the engine's words as
    its original; a part left empty is written from its items and is not an edit either."""
    parts = [part for part in parts if part.text.strip() or part.item_ids]
    if len(parts) < 2:
        raise TransitionError("A split needs at least two destinations with text or items.")
    if len({part.act.pk for part in parts}) != len(parts):
        raise TransitionError("Each destination of a split must be a different act.")
    with transaction.atomic():
        current, draft = _reviewable(conversation)
        owned = set(MemoryItem.objects.filter(memory=draft).values_list("pk", flat=True))
        extracted = (draft.content, draft.user_edited, draft.original_content)
        memories = []
        for index, part in enumerate(parts):
            if stray := set(part.item_ids) - owned:
                raise TransitionError(f"Items {sorted(stray)} are not part of this memory.")
            content, edited, original = _part_wording(part, *extracted)
            if index == 0:
                memory = draft
                memory.act = part.act
                memory.content, memory.user_edited, memory.original_content = (
                    content,
                    edited,
                    original,
                )
            else:
                memory = Memory.objects.create(
                    owner=draft.owner,
                    content=content,
                    source=Memory.Source.CONVERSATION,
                    act=part.act,
                    conversation=current,
                    status=Memory.Status.DRAFT,
                    extraction_engine=draft.extraction_engine,
                    happened_at=draft.happened_at,
                    user_edited=edited,
                    original_content=original,
                    narrative=draft.narrative,
                )
            MemoryItem.objects.filter(pk__in=part.item_ids).update(memory=memory)
            memories.append(memory)
        indexing.request_indexing(owner_id=draft.owner_id)
        return _keep(current, memories, declined)


def _part_wording(part: Part, narrative: str, edited: bool, original: str) -> tuple:
    """(content, user_edited, original_content) of one part of a split."""
    if not part.text.strip():
        return _text_for_items(part.item_ids), False, ""
    text = clean_content(part.text)
    if text == narrative:
        return narrative, edited, original  # kept as extracted (or as already edited)
    return text, True, original if edited else narrative


def _text_for_items(item_ids: list[int]) -> str:
    items = MemoryItem.objects.filter(pk__in=item_ids).order_by("pk")
    return " ".join(f"{item.get_type_display()}: {item.text}." for item in items)


def _keep(conversation: Conversation, memories: list[Memory], declined) -> list[Memory]:
    now = timezone.now()
    for memory in memories:
        if memory.act.owner_id != conversation.owner_id:
            raise Act.DoesNotExist("Act matching query does not exist.")
        memory.status = Memory.Status.CONFIRMED
        memory.user_reviewed = True
        memory.save()
    first = memories[0]
    declined = set(declined)
    deltas = StateDelta.objects.filter(memory__in=memories).select_related("item")
    for delta in deltas:
        if delta.pk in declined:
            delta.accepted = False
            delta.save(update_fields=["accepted"])
            continue
        if delta.resolves and delta.item is not None:
            MemoryItem.objects.filter(
                pk=delta.item.pk, memory__owner=conversation.owner_id, is_active=True
            ).update(is_active=False, resolved_by=first, resolved_at=now)
        delta.applied = True
        delta.applied_at = now
        delta.save(update_fields=["applied", "applied_at"])
    Conversation.objects.filter(pk=conversation.pk).update(
        status=Status.ARCHIVED, archived_at=now, compression_stage=""
    )
    # The member may have edited, added or moved people: the entity graph follows the review.
    indexing.refresh_mentions([memory.pk for memory in memories])
    running.close_link(conversation, memories)  # the thread's link for this conversation
    return memories


def preview(conversation: Conversation) -> dict[str, Any]:
    """What closing would remember, by the offline rules (instant): the ready_to_close screen."""
    transcript = transcript_of(conversation)
    today = timezone.now().date()
    entities = merge_entities([offline.extract(transcript, today=today)])
    counts = {kind: len(rows) for kind, rows in entities.items() if rows}
    return {
        "entities": entities,
        "counts": counts,
        "empty": not any(role == Message.Role.USER for role, _ in transcript),
    }
