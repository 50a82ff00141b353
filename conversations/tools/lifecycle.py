"""The conversation lifecycle as agent tools (seed 003): send a message, the open
conversation, close it, preview and confirm its memory, resume it, its archive, and edits to a
memory's narrative, items and facts (the review screen's service, conversations/review.py)."""

from __future__ import annotations

from typing import Any

from conversations import chat, review, services
from conversations.models import Conversation
from conversations.services import MessageError, TransitionError
from memories.models import Act, Memory, MemoryItem
from memories.tools import memory_as_dict
from talkingrock.tools import ToolError, id_schema, ids_schema, refusing, tool

_CONVERSATION_ID = id_schema("A conversation id.")


# A step the conversation's state does not allow answers 409 with the reason.
_refusing_transitions = refusing((TransitionError, 409))


def _conversation_of(user, conversation_id: int):
    return Conversation.objects.get(pk=conversation_id, owner=user)


def _message_dict(message) -> dict[str, Any]:
    return {
        "role": message.role,
        "content": message.content,
        "position": message.position,
        "created_at": message.created_at.isoformat(),
        "memories_used": [used["id"] for used in message.memories_used],
    }


def _conversation_dict(conversation, *, with_messages: bool = False) -> dict[str, Any]:
    answer = {
        "id": conversation.pk,
        "status": conversation.status,
        "stage": conversation.compression_stage or None,
        "is_paused": conversation.is_paused,
        "started_at": conversation.started_at.isoformat(),
        "message_count": conversation.message_count,
    }
    if with_messages:
        answer["messages"] = [_message_dict(m) for m in conversation.messages.all()]
    return answer


@tool(
    "send_message",
    "Say something in the member's open conversation (one is started if none is open); answers "
    "with Talking Rock's reply and the memories it drew on.",
    {"content": {"type": "string", "maxLength": 10_000}},
    required=("content",),
)
@refusing((MessageError, 400), (TransitionError, 409))
def _send_message(user, *, content):
    conversation, message = services.add_message(owner=user, content=content)
    reply = chat.respond(conversation=conversation, message=message)
    return {
        "conversation_id": conversation.pk,
        "reply": reply.content,
        "memories_used": [used["id"] for used in reply.memories_used],
    }


@tool("get_active_conversation", "The member's open conversation with its messages, or null.", {})
def _get_active_conversation(user):
    conversation = services.open_conversation(user)
    if conversation is None:
        return {"conversation": None}
    return {"conversation": _conversation_dict(conversation, with_messages=True)}


@tool(
    "close_conversation",
    "Close the conversation and start compressing it (an agent has no review screen to wait "
    "on); poll get_memory_preview, then confirm_memory.",
    {"conversation_id": _CONVERSATION_ID},
    required=("conversation_id",),
)
@_refusing_transitions
def _close_conversation(user, *, conversation_id):
    conversation = _conversation_of(user, conversation_id)
    conversation = services.confirm_close(
        conversation=conversation, from_states=(Conversation.Status.ACTIVE,)
    )
    conversation.refresh_from_db()
    answer = _conversation_dict(conversation)
    if conversation.status == Conversation.Status.ARCHIVED:
        answer["message"] = "Nothing was said, so nothing was remembered; archived."
    return answer


@tool(
    "get_memory_preview",
    "What compression made of a closed conversation: the narrative, the items and the suggested "
    "act, once status is 'ready'.",
    {"conversation_id": _CONVERSATION_ID},
    required=("conversation_id",),
)
def _get_memory_preview(user, *, conversation_id):
    conversation = _conversation_of(user, conversation_id)
    if conversation.status != Conversation.Status.COMPRESSING:
        raise ToolError(409, f"Conversation {conversation_id} is {conversation.status}.")
    stage = conversation.compression_stage
    status = {"ready": "ready", "failed": "failed"}.get(stage, "compressing")
    memory = review.draft_of(conversation) if status == "ready" else None
    route = conversation.compression_report.get("route", {})
    answer: dict[str, Any] = {
        "status": status,
        "stage": stage,
        "memory_id": memory.pk if memory else None,
        "narrative": memory.content if memory else "",
        "items": [{"id": i.pk, "type": i.type, "data": i.data} for i in memory.items.all()]
        if memory
        else [],
        "facts": [{"id": f.pk, "text": f.content} for f in review.facts_of(memory)]
        if memory
        else [],
        "changes": [_delta_dict(delta) for delta in memory.deltas.all()] if memory else [],
        "suggested_act_id": route.get("act_id"),
        "reason": route.get("reason", ""),
        "engines": {
            name: info.get("engine")
            for name, info in conversation.compression_report.items()
            if isinstance(info, dict)
        },
    }
    if status == "failed":
        answer["error"] = conversation.compression_error
    return answer


def _delta_dict(delta) -> dict[str, Any]:
    return {"id": delta.pk, "type": delta.type, "data": delta.data}


@tool(
    "confirm_memory",
    "Keep a conversation's memory (in the suggested act, or the one given; null keeps the "
    "suggestion), optionally with an edited narrative; the conversation is archived.",
    {
        "memory_id": id_schema(),
        "destination_act_id": id_schema(nullable=True),
        "edited_narrative": {"type": ["string", "null"], "maxLength": 10_000},
    },
    required=("memory_id",),
)
@_refusing_transitions
def _confirm_memory(user, *, memory_id, destination_act_id=None, edited_narrative=None):
    memory = Memory.objects.select_related("conversation").get(
        pk=memory_id, owner=user, status=Memory.Status.DRAFT, conversation__isnull=False
    )
    destination = None
    if destination_act_id is not None:
        destination = Act.objects.get(pk=destination_act_id, owner=user)
    kept = review.confirm(
        conversation=memory.conversation, destination=destination, narrative=edited_narrative
    )
    return {
        "memories": [memory_as_dict(m) for m in kept],
        "conversation_id": memory.conversation_id,
    }


@tool(
    "resume_conversation",
    "Go back to a conversation that was being closed; its draft memory is dropped.",
    {"conversation_id": _CONVERSATION_ID},
    required=("conversation_id",),
)
@_refusing_transitions
def _resume_conversation(user, *, conversation_id):
    conversation = services.resume(conversation=_conversation_of(user, conversation_id))
    return _conversation_dict(conversation)


@tool(
    "get_conversation_archive",
    "An archived conversation's transcript and the memories it produced.",
    {"conversation_id": _CONVERSATION_ID},
    required=("conversation_id",),
)
def _get_conversation_archive(user, *, conversation_id):
    conversation = _conversation_of(user, conversation_id)
    answer = _conversation_dict(conversation, with_messages=True)
    answer["memories"] = [
        memory_as_dict(m) for m in conversation.memories.filter(status=Memory.Status.CONFIRMED)
    ]
    return answer


@tool(
    "edit_memory",
    "Edit a memory's narrative, its items and its facts (remove some by id, add new ones).",
    {
        "memory_id": id_schema(),
        "narrative": {"type": ["string", "null"], "maxLength": 10_000},
        "items_to_remove": ids_schema("Item ids, as get_memory_preview lists them."),
        "items_to_add": {
            "type": "array",
            "maxItems": 100,
            "items": {
                "type": "object",
                "properties": {
                    "type": {"type": "string", "enum": list(MemoryItem.FIELDS)},
                    "text": {"type": "string", "minLength": 1, "maxLength": 300},
                    "detail": {"type": "string", "maxLength": 300},
                },
                "required": ["type", "text"],
                "additionalProperties": False,
            },
            "description": 'Each {"type": "task", "text": "...", "detail": "..."}.',
        },
        "facts_to_remove": ids_schema("Fact ids, as get_memory_preview lists them."),
        "facts_to_add": {
            "type": "array",
            "maxItems": 50,
            "items": {"type": "string", "minLength": 1, "maxLength": 300},
            "description": "One self-contained sentence each.",
        },
    },
    required=("memory_id",),
)
@refusing((TransitionError, 400))  # an item without text is a bad argument, not a bad state
def _edit_memory(
    user,
    *,
    memory_id,
    narrative=None,
    items_to_remove=(),
    items_to_add=(),
    facts_to_remove=(),
    facts_to_add=(),
):

    memory = Memory.objects.get(pk=memory_id, owner=user)
    edits = review.Edits(
        narrative=narrative,
        remove_items=list(items_to_remove),
        add_items=[(row["type"], row["text"], row.get("detail", "")) for row in items_to_add],
        remove_facts=list(facts_to_remove),
        add_facts=list(facts_to_add),
    )
    memory = review.edit(memory, edits)
    return memory_as_dict(memory) | {
        "items": [{"id": i.pk, "type": i.type, "data": i.data} for i in memory.items.all()],
        "facts": [
            {"id": f.pk, "text": f.content}
            for f in memory.facts.filter(archived_at=None).order_by("pk")
        ],
    }
