"""One turn of the chat: recall what bears on the message, then answer with it.

With Ollama the model answers from the recalled memories, the most recent ones and the last
turns, and may search further (``memory_query``, up to ``tool_rounds`` times) and reinforce or
demote what it used, through the tool registry (seed 001's agent-driven loop). Offline, the
reply says plainly what Talking Rock remembers that bears on the message. Either way the
assistant message lists the memories it drew on, each with the recall that found it.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from django.conf import settings
from django.db import transaction

from conversations.models import Conversation, Message
from conversations.services import append
from memories.models import Memory, Recall, RecallHit
from memories.recall import recall
from talkingrock import llm

log = logging.getLogger(__name__)

CHAT_TOOLS = ("memory_query", "memory_reinforce", "memory_demote")
SYSTEM = (
    "You are Talking Rock, the memory of {name}'s household assistant. Answer briefly and "
    "warmly. Use the memories below when they bear on the message and cite them as [id:N]; "
    "never invent a memory. If you need more, search with memory_query (key nouns, not a "
    "question). Reinforce a memory that proved useful; demote one that proved wrong."
)
# A hit counts as bearing on the message when its words or its meaning match; otherwise a
# member with few memories would be shown whatever happens to rank first.
MIN_SIMILARITY = 0.3


def _config(name: str):
    return settings.TALKINGROCK_CONVERSATIONS[name]


def relevant(hit) -> bool:
    meaning = hit.components.get("meaning") or {}
    return (
        bool(hit.components.get("keywords")) or (meaning.get("similarity") or 0) >= MIN_SIMILARITY
    )


def respond(*, conversation: Conversation, message: Message) -> Message:
    """Write the assistant's reply to ``message`` (slow work first, one short write after)."""
    owner = conversation.owner
    found = recall(
        owner,
        message.content,
        k=_config("context_memories"),
        purpose="chat",
        conversation=conversation,
        message=message,
    )
    hits = [hit for hit in found.hits if relevant(hit)]
    used = [
        {"id": hit.memory_id, "recall": found.recall_id, "why": "; ".join(hit.why)[:200]}
        for hit in hits
    ]
    engine = "offline"
    content = ""
    if llm.status().engine == "ollama":
        try:
            content, more = _model_reply(conversation, message, hits)
            used += [entry for entry in more if entry["id"] not in {u["id"] for u in used}]
            engine = f"ollama:{llm.model_name()}"
        except llm.LLMError as error:
            log.info("Chat falls back to the offline engine: %s", error.message)
            content = offline_reply(hits) + f"\n\n(The model did not answer: {error.message})"
    if not content:
        content = offline_reply(hits)
    with transaction.atomic():
        reply = append(conversation, role=Message.Role.ASSISTANT, content=content)
        reply.engine = engine
        reply.memories_used = used
        reply.save(update_fields=["engine", "memories_used"])
    return reply


def offline_reply(hits) -> str:
    if not hits:
        return (
            "I don't remember anything that bears on this yet. I'm listening: when you close "
            "this conversation, what mattered in it will be remembered."
        )
    lines = ["Here is what I remember that bears on this:"]
    for hit in hits:
        memory = hit.memory
        when = (memory.happened_at or memory.created_at).date().isoformat()
        lines.append(f"• {' '.join(memory.content.split())} ({when}, [id:{memory.pk}])")
    return "\n".join(lines)


def _context(conversation: Conversation, hits) -> str:
    shown = {hit.memory_id for hit in hits}
    recent = (
        Memory.objects.filter(
            owner=conversation.owner, status=Memory.Status.CONFIRMED, archived_at=None
        )
        .exclude(pk__in=shown)
        .order_by("-created_at")[: _config("recent_memories")]
    )
    lines = ["Memories that bear on the message:"] if hits else ["No memory matched the message."]
    lines += [f"- [id:{hit.memory_id}] {hit.memory.content}" for hit in hits]
    if recent:
        lines.append("Most recent memories:")
        lines += [f"- [id:{memory.pk}] {memory.content}" for memory in recent]
    return "\n".join(lines)


def _model_reply(conversation: Conversation, message: Message, hits) -> tuple[str, list[dict]]:
    from talkingrock.tools import REGISTRY, ToolError, call_tool

    owner = conversation.owner
    name = owner.get_short_name() or owner.get_username()
    turns = list(
        conversation.messages.exclude(role=Message.Role.SYSTEM)
        .filter(position__lte=message.position)
        .order_by("-position")[: _config("recent_turns")]
    )[::-1]
    messages: list[dict[str, Any]] = [
        {
            "role": "system",
            "content": SYSTEM.format(name=name) + "\n\n" + _context(conversation, hits),
        },
        *({"role": turn.role, "content": turn.content} for turn in turns),
    ]
    tools = [REGISTRY[tool].as_schema() for tool in CHAT_TOOLS]
    used: list[dict] = []
    for round_ in range(_config("tool_rounds") + 1):
        offered = tools if round_ < _config("tool_rounds") else None
        reply = llm.chat(messages, tools=offered)
        if not reply.tool_calls:
            return reply.content.strip(), used
        messages.append(
            {
                "role": "assistant",
                "content": reply.content,
                "tool_calls": [
                    {"function": {"name": call.name, "arguments": call.arguments}}
                    for call in reply.tool_calls
                ],
            }
        )
        for call in reply.tool_calls:
            if call.name not in CHAT_TOOLS:
                result: dict[str, Any] = {"error": f"No tool named '{call.name}' here."}
            else:
                try:
                    result = call_tool(owner, call.name, **call.arguments)
                except ToolError as error:
                    result = {"error": error.message}
            if call.name == "memory_query" and "results" in result:
                used += _record_query(conversation, message, call.arguments, result["results"])
            messages.append(
                {"role": "tool", "content": json.dumps(result)[:6000], "tool_name": call.name}
            )
    return "", used


def _record_query(conversation, message, arguments, results) -> list[dict]:
    """The model's own searches leave the same trail as recall()."""
    with transaction.atomic():
        trail = Recall.objects.create(
            owner=conversation.owner,
            query=str(arguments.get("query", ""))[:2000],
            purpose="chat:memory_query",
            conversation=conversation,
            message=message,
            parameters={key: value for key, value in arguments.items() if key != "query"},
        )
        RecallHit.objects.bulk_create(
            RecallHit(
                recall=trail,
                memory_id=row["id"],
                rank=rank,
                score=row["rank"],
                components={"keywords": row["factors"]},
                influence="found by the model's memory_query",
            )
            for rank, row in enumerate(results, start=1)
        )
    return [
        {"id": row["id"], "recall": trail.pk, "why": f"the model searched “{trail.query}”"}
        for row in results
    ]
