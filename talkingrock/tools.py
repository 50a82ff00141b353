"""The one registry of agent tools: name, JSON schema and function, defined once.

Every transport (the HTTP tool API, in-chat tool calling, the command line) goes through
``call_tool``, so validation, ownership and error shapes are the same everywhere.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import ObjectDoesNotExist, ValidationError

from conversations.models import Act
from memories import services as memory_services
from memories.models import Memory
from memories.recall import recall


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


# --- argument validation: the subset of JSON Schema the registry uses -------------------------

_JSON_TYPES = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "array": (list,),
    "object": (dict,),
    "null": (type(None),),
}


def _type_ok(value: Any, expected: str) -> bool:
    if expected in ("integer", "number") and isinstance(value, bool):
        return False  # JSON true is not a number, even though Python says it is
    return isinstance(value, _JSON_TYPES[expected])


def _is_unicode(text: str) -> bool:
    # JSON may spell a lone surrogate ("\ud800"); Python keeps it, but it cannot be written to
    # the database as UTF-8, so it is refused here rather than failing deep in a write.
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _check(name: str, value: Any, schema: dict[str, Any]) -> None:
    types = schema.get("type")
    if types is not None:
        types = [types] if isinstance(types, str) else types
        if not any(_type_ok(value, t) for t in types):
            raise ToolError(400, f"'{name}' must be of type {' or '.join(types)}.")
    if isinstance(value, str):
        if not _is_unicode(value):
            raise ToolError(400, f"'{name}' is not valid text: it holds an unpaired surrogate.")
        if "maxLength" in schema and len(value) > schema["maxLength"]:
            raise ToolError(400, f"'{name}' is longer than {schema['maxLength']} characters.")
        if "enum" in schema and value not in schema["enum"]:
            raise ToolError(400, f"'{name}' must be one of: {', '.join(schema['enum'])}.")
    if isinstance(value, int | float) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"]:
            raise ToolError(400, f"'{name}' must be at least {schema['minimum']}.")
        if "maximum" in schema and value > schema["maximum"]:
            raise ToolError(400, f"'{name}' must be at most {schema['maximum']}.")
    if isinstance(value, list) and "items" in schema:
        for index, item in enumerate(value):
            _check(f"{name}[{index}]", item, schema["items"])


def validate_arguments(tool: Tool, args: dict[str, Any]) -> dict[str, Any]:
    properties = tool.parameters["properties"]
    unknown = sorted(set(args) - set(properties))
    if unknown:
        raise ToolError(400, f"Unknown argument(s) for {tool.name}: {', '.join(unknown)}.")
    missing = [name for name in tool.parameters["required"] if name not in args]
    if missing:
        raise ToolError(400, f"Missing argument(s) for {tool.name}: {', '.join(missing)}.")
    for name, value in args.items():
        _check(name, value, properties[name])
    return args


def call_tool(user, name: str, /, **args: Any) -> dict[str, Any]:
    """Validate and run one tool for ``user``; refusals raise ``ToolError``."""
    try:
        tool = REGISTRY[name]
    except KeyError:
        raise ToolError(404, f"No tool named '{name}'.") from None
    validate_arguments(tool, args)
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

_ID = {"type": "integer", "minimum": 1, "description": "A memory id, as shown in [id:N]."}
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
    },
    required=("content",),
)
def _memory_store(user, *, content, tags="", source=Memory.Source.AGENT):
    memory = memory_services.memory_store(owner=user, content=content, tags=tags, source=source)
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
    "matched. Use memory_query for an exact keyword search.",
    {
        "query": {"type": "string", "maxLength": 10_000},
        "act_id": {"type": ["integer", "null"], "minimum": 1, "description": "Only this act."},
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
            for hit in result.hits
        ]
    }
    if result.message:
        answer["message"] = result.message
    return answer
