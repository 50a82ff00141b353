"""The one registry of agent tools: name, JSON schema and function, defined once.

Every transport (the HTTP tool API, in-chat tool calling, the command line) goes through
``call_tool``, so validation, ownership and error shapes are the same everywhere.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import wraps
from typing import Any

from django.core.exceptions import ObjectDoesNotExist, ValidationError

from conversations.models import Act
from conversations.services import TransitionError
from memories import services as memory_services
from memories.models import Memory, MemoryItem
from memories.recall import recall
from narratives.services import NarrativeError, NarrativeNotFound
from talkingrock import validation
from talkingrock.text import clean_json


class ToolError(Exception):
    """A refusal with the HTTP status a transport should answer with."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    parameters: dict[str, Any]
    function: Callable[..., dict[str, Any]]

    def as_schema(self) -> dict[str, Any]:
        return {"name": self.name, "description": self.description, "parameters": self.parameters}


REGISTRY: dict[str, Tool] = {}


def tool(name: str, description: str, properties: dict[str, Any], required: tuple[str, ...] = ()):
    """Register ``function(user, **args)`` under ``name`` with an object schema."""

    def register(function):
        parameters = {"type": "object", "properties": properties}
        if unbounded := validation.unbounded_integers(parameters):
            raise ValueError(f"Tool {name}: integers without bounds at {', '.join(unbounded)}")
        REGISTRY[name] = Tool(
            name=name,
            description=description,
            parameters={
                "type": "object",
                "properties": properties,
                "required": list(required),
                "additionalProperties": False,
            },
            function=function,
        )
        return function

    return register


# --- argument validation: jsonschema, the same validator as the model's answers ---------------


def validate_arguments(tool: Tool, args: dict[str, Any]) -> dict[str, Any]:
    """Check ``args`` against the tool's published schema; return them with clean text.

    Unknown and missing arguments are named all at once; otherwise the first problem found."""
    properties = tool.parameters["properties"]
    unknown = sorted(set(args) - set(properties))
    if unknown:
        raise ToolError(400, f"Unknown argument(s) for {tool.name}: {', '.join(unknown)}.")
    missing = [name for name in tool.parameters["required"] if name not in args]
    if missing:
        raise ToolError(400, f"Missing argument(s) for {tool.name}: {', '.join(missing)}.")
    problem = validation.first_problem(
        args, tool.parameters, name=lambda path: f"'{validation.tool_path(path)}'"
    )
    if problem:
        raise ToolError(400, problem + ".")
    return clean_json(args)


def call_tool(user, name: str, /, **args: Any) -> dict[str, Any]:
    """Validate and run one tool for ``user``; refusals raise ``ToolError``."""
    try:
        tool = REGISTRY[name]
    except KeyError:
        raise ToolError(404, f"No tool named '{name}'.") from None
    args = validate_arguments(tool, args)
    try:
        return tool.function(user, **args)
    except ObjectDoesNotExist as error:
        raise ToolError(404, _not_found_message(error, args)) from None
    except ValidationError as error:
        raise ToolError(400, " ".join(error.messages)) from None


def _not_found_message(error: ObjectDoesNotExist, args: dict[str, Any]) -> str:
    if isinstance(error, Memory.DoesNotExist) and "id" in args:
        return f"Memory {args['id']} not found."
    if isinstance(error, Act.DoesNotExist) and "act_id" in args:
        return f"Act {args['act_id']} not found."
    return "Not found."


# --- memory tools (seed 001) ---------------------------------------------------------------


def _id(description: str = "", *, nullable: bool = False) -> dict[str, Any]:
    """An id: a positive integer that fits SQLite's 64 bits (every integer a tool takes is
    bounded; the registry refuses a schema that is not)."""
    schema: dict[str, Any] = {
        "type": ["integer", "null"] if nullable else "integer",
        "minimum": 1,
        "maximum": validation.MAX_INT,
    }
    return schema | ({"description": description} if description else {})


def _ids(description: str = "", *, max_items: int = 100) -> dict[str, Any]:
    schema = {"type": "array", "items": _id(), "maxItems": max_items}
    return schema | ({"description": description} if description else {})


_ID = _id("A memory id, as shown in [id:N].")
_CONTENT = {"type": "string", "maxLength": 10_000, "description": "One fact, decision or context."}
_TAGS = {
    "type": ["string", "array"],
    "items": {"type": "string"},
    "description": "Comma-separated keywords, or a list of them.",
}


def memory_as_dict(memory: Memory) -> dict[str, Any]:
    return {
        "id": memory.pk,
        "ref": f"[id:{memory.pk}]",
        "content": memory.content,
        "tags": memory.tags,
        "source": memory.source,
        "act_id": memory.act_id,
        "score": memory.score,
        "hit_count": memory.hit_count,
        "created_at": memory.created_at.isoformat(),
        "happened_at": memory.happened_at.isoformat() if memory.happened_at else None,
        "session": memory.session or None,
        "last_hit_at": memory.last_hit_at.isoformat() if memory.last_hit_at else None,
        "archived": memory.archived_at is not None,
        "user_edited": memory.user_edited,
        "original_content": memory.original_content or None,
    }


@tool(
    "memory_store",
    "Remember one discrete fact, decision or piece of context.",
    {
        "content": _CONTENT,
        "tags": _TAGS,
        "source": {"type": "string", "enum": list(Memory.Source.values)},
        "happened_at": {
            "type": "string",
            "maxLength": 40,
            "description": "When it happened: an ISO date (2026-03-12) or date-time "
            "(2026-03-12T09:30:00+00:00); without an offset, in the household's time zone.",
        },
        "session": {
            "type": "string",
            "maxLength": memory_services.SESSION_LENGTH,
            "description": "Any name you use to group memories said together (a chat, a "
            "meeting, an import); recall reads a session as it reads a conversation.",
        },
    },
    required=("content",),
)
def _memory_store(
    user, *, content, tags="", source=Memory.Source.AGENT, happened_at=None, session=""
):
    memory = memory_services.memory_store(
        owner=user,
        content=content,
        tags=tags,
        source=source,
        happened_at=happened_at,
        session=session,
    )
    return memory_as_dict(memory)


@tool(
    "memory_query",
    "Keyword search over your memories (use key nouns and natural synonyms, not a question). "
    "Results carry [id:N] for reinforce/demote/update.",
    {
        "query": {"type": "string", "maxLength": 10_000},
        "limit": {"type": "integer", "minimum": 1, "maximum": 50},
        "include_archived": {"type": "boolean"},
    },
    required=("query",),
)
def _memory_query(user, *, query, limit=5, include_archived=False):
    result = memory_services.memory_query(
        owner=user, query=query, limit=limit, include_archived=include_archived
    )
    answer: dict[str, Any] = {
        "results": [
            {
                "id": memory.pk,
                "ref": f"[id:{memory.pk}]",
                "content": memory.content,
                "tags": memory.tags,
                "score": memory.score,
                "archived": memory.archived_at is not None,
                "rank": float(f"{hit.rank:.6g}"),
                "factors": hit.factors,
            }
            for memory, hit in result.hits
        ]
    }
    if result.message:
        answer["message"] = result.message
    return answer


@tool(
    "memory_reinforce", "This memory was useful: score +3, recency restarts.", {"id": _ID}, ("id",)
)
def _memory_reinforce(user, *, id):
    return memory_as_dict(memory_services.memory_reinforce(owner=user, memory_id=id))


@tool("memory_demote", "This memory is wrong, stale or irrelevant: score −1.", {"id": _ID}, ("id",))
def _memory_demote(user, *, id):
    return memory_as_dict(memory_services.memory_demote(owner=user, memory_id=id))


@tool(
    "memory_update",
    "Correct a memory in place; its score is kept and the first wording is preserved.",
    {"id": _ID, "content": _CONTENT, "tags": _TAGS},
    required=("id", "content"),
)
def _memory_update(user, *, id, content, tags=None):
    return memory_as_dict(
        memory_services.memory_update(owner=user, memory_id=id, content=content, tags=tags)
    )


# --- hybrid recall (seed 002) -------------------------------------------------------------------


@tool(
    "search_memories",
    "Find memories by meaning as well as keywords: paraphrases, names shared with a match, what "
    "was said around it and the time the query names ('last week'). Each result says why it "
    "matched; matches below the relevance floor are left out and counted in weak_matches. Use "
    "memory_query for an exact keyword search.",
    {
        "query": {"type": "string", "maxLength": 10_000},
        "act_id": _id("Only this act.", nullable=True),
        "your_story_only": {"type": "boolean"},
        "limit": {"type": "integer", "minimum": 1, "maximum": 50},
    },
    required=("query",),
)
def _search_memories(user, *, query, act_id=None, your_story_only=False, limit=10):
    acts = None
    if act_id is not None:
        acts = [Act.objects.get(pk=act_id, owner=user)]
    result = recall(
        user,
        query,
        k=limit,
        acts=acts,
        your_story_only=your_story_only,
        purpose="tool:search_memories",
    )
    answer: dict[str, Any] = {
        "results": [
            {
                "id": hit.memory_id,
                "ref": f"[id:{hit.memory_id}]",
                "content": hit.memory.content,
                "act_id": hit.memory.act_id,
                "score": round(hit.score, 4),
                "why": {**hit.components, "reasons": hit.why},
            }
            for hit in result.strong
        ],
        # Matches below the relevance floor are left out and counted: the least bad of what
        # the member has is not an answer.
        "weak_matches": len(result.weak),
    }
    if result.message:
        answer["message"] = result.message
    return answer


# --- conversations (seed 003) -------------------------------------------------------------------

_CONVERSATION_ID = _id("A conversation id.")


def _refusing(*answers: tuple[type[Exception], int]):
    """A service's refusal (an error with a ``message``) answers with the status given for its
    type, the first that matches; the reason goes to the caller."""

    def decorate(function):
        @wraps(function)
        def run(user, **args):
            try:
                return function(user, **args)
            except tuple(kind for kind, _ in answers) as error:
                status = next(status for kind, status in answers if isinstance(error, kind))
                raise ToolError(status, error.message) from None

        return run

    return decorate


# A step the conversation's state does not allow answers 409 with the reason.
_refusing_transitions = _refusing((TransitionError, 409))


def _conversation_of(user, conversation_id: int):
    from conversations.models import Conversation

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
@_refusing_transitions
def _send_message(user, *, content):
    from conversations import chat, services

    conversation, message = services.add_message(owner=user, content=content)
    reply = chat.respond(conversation=conversation, message=message)
    return {
        "conversation_id": conversation.pk,
        "reply": reply.content,
        "memories_used": [used["id"] for used in reply.memories_used],
    }


@tool("get_active_conversation", "The member's open conversation with its messages, or null.", {})
def _get_active_conversation(user):
    from conversations.services import open_conversation

    conversation = open_conversation(user)
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
    from conversations import services
    from conversations.models import Conversation

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
    from conversations import review
    from conversations.models import Conversation

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
        "memory_id": _id(),
        "destination_act_id": _id(nullable=True),
        "edited_narrative": {"type": ["string", "null"], "maxLength": 10_000},
    },
    required=("memory_id",),
)
@_refusing_transitions
def _confirm_memory(user, *, memory_id, destination_act_id=None, edited_narrative=None):
    from conversations import review

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
    from conversations import services

    conversation = services.resume(conversation=_conversation_of(user, conversation_id))
    return _conversation_dict(conversation)


@tool(
    "get_open_threads",
    "Open items across the member's memories: questions, waiting-ons and tasks not yet resolved.",
    {
        "entity_type": {
            "type": ["string", "null"],
            "enum": ["waiting_on", "question_opened", "task"],
        },
        "act_id": _id(nullable=True),
    },
)
def _get_open_threads(user, *, entity_type=None, act_id=None):
    from conversations.greeting import items_of
    from memories.models import MemoryItem

    items = items_of(user).filter(is_active=True, type__in=MemoryItem.OPEN_TYPES)
    if entity_type:
        items = items.filter(type=entity_type)
    if act_id is not None:
        items = items.filter(memory__act=Act.objects.get(pk=act_id, owner=user))
    return {
        "threads": [
            {
                "item_id": item.pk,
                "type": item.type,
                "data": item.data,
                "memory_id": item.memory_id,
                "act_id": item.memory.act_id,
                "since": item.created_at.isoformat(),
            }
            for item in items.order_by("-created_at")[:100]
        ]
    }


@tool(
    "resolve_item",
    "Close an open thread by hand: mark it done or dismissed; 'reopen' undoes either. The "
    "answer says when, how and by what it closed.",
    {
        "item_id": _id("An item id, as get_open_threads lists them."),
        "resolution": {"type": "string", "enum": ["done", "dismissed", "reopen"]},
    },
    required=("item_id", "resolution"),
)
def _resolve_item(user, *, item_id, resolution):
    from memories import threads

    try:
        if resolution == "reopen":
            item = threads.reopen(owner=user, item_id=item_id)
        else:
            item = threads.resolve(owner=user, item_id=item_id, how=resolution)
    except threads.ThreadError as error:
        raise ToolError(409, error.message) from None
    return threads.describe(item)


@tool(
    "get_your_story",
    "Recent memories of the member's permanent Your Story act, newest first.",
    {
        "limit": {"type": "integer", "minimum": 1, "maximum": 100},
        "offset": {"type": "integer", "minimum": 0, "maximum": 1_000_000_000},
    },
)
def _get_your_story(user, *, limit=20, offset=0):
    from conversations.services import ensure_your_story

    rows = Memory.objects.filter(
        owner=user,
        act=ensure_your_story(owner=user),
        status=Memory.Status.CONFIRMED,
        archived_at=None,
    ).order_by("-created_at", "-pk")[offset : offset + limit]
    return {"memories": [memory_as_dict(m) for m in rows]}


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
        "memory_id": _id(),
        "narrative": {"type": ["string", "null"], "maxLength": 10_000},
        "items_to_remove": _ids("Item ids, as get_memory_preview lists them."),
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
        "facts_to_remove": _ids("Fact ids, as get_memory_preview lists them."),
        "facts_to_add": {
            "type": "array",
            "maxItems": 50,
            "items": {"type": "string", "minLength": 1, "maxLength": 300},
            "description": "One self-contained sentence each.",
        },
    },
    required=("memory_id",),
)
@_refusing((TransitionError, 400))  # an item without text is a bad argument, not a bad state
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
    from conversations import review

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


def _act_dict(act) -> dict[str, Any]:
    return {
        "id": act.pk,
        "title": act.title,
        "description": act.description,
        "status": act.status,
        "is_your_story": act.is_your_story,
    }


@tool(
    "create_act",
    "Create an act: a project or chapter of life that memories can be kept in.",
    {
        "title": {"type": "string", "maxLength": 200},
        "description": {"type": "string", "maxLength": 2000},
    },
    required=("title",),
)
@_refusing_transitions
def _create_act(user, *, title, description=""):
    from conversations import services

    return _act_dict(services.create_act(owner=user, title=title, description=description))


@tool("list_acts", "The member's acts, Your Story first.", {})
def _list_acts(user):
    return {"acts": [_act_dict(act) for act in Act.objects.filter(owner=user)]}


# --- narratives (seed 000): the thread between memories --------------------------------------


# An id that is not the member's answers 404, as a missing one; a bad summary or topic 400.
_refusing_narrative_errors = _refusing((NarrativeNotFound, 404), (NarrativeError, 400))


@tool(
    "narrative_update",
    "Add one link to the member's chain of meaning: one sentence on the reasoning arc, the "
    "memory ids it connects, and the narrative it continues (null starts a new thread). "
    "Narratives are never changed; the chain moves on by new links.",
    {
        "summary": {"type": "string", "maxLength": 300},
        "memory_ids": _ids(max_items=50),
        "previous_narrative_id": _id(nullable=True),
        "topic": {"type": "string", "maxLength": 200},
    },
    required=("summary", "memory_ids", "previous_narrative_id", "topic"),
)
@_refusing_narrative_errors
def _narrative_update(user, *, summary, memory_ids, previous_narrative_id, topic):
    from narratives import services

    narrative = services.create(
        owner=user,
        summary=summary,
        memory_ids=memory_ids,
        previous=previous_narrative_id,
        topic=topic,
    )
    found = services.search_narratives(user, id=narrative.pk)
    return {"narrative": services.as_result(found.narratives[0])}


@tool(
    "narrative_search",
    "Find narratives: by id (to walk the chain: follow previous_narrative_id back, "
    "continued_by forward), by keyword, or with neither the latest one: where the member "
    "left off. Newest first.",
    {
        "id": _id(),
        "query": {"type": "string", "maxLength": 1000},
        "limit": {"type": "integer", "minimum": 1, "maximum": 50},
    },
)
@_refusing_narrative_errors
def _narrative_search(user, *, id=None, query=None, limit=10):
    from narratives import services

    if id is not None and query is not None:
        raise ToolError(400, "Give an id or a query, not both.")
    found = services.search_narratives(user, id=id, query=query, limit=limit)
    answer = {"mode": found.mode, "narratives": [services.as_result(n) for n in found.narratives]}
    if found.message:
        answer["message"] = found.message
    return answer
