"""The one registry of agent tools: name, JSON schema and function, each declared once.

Each app declares its own tools in ``<app>/tools.py`` with the ``tool`` decorator; the module is
imported when the app is ready (``AppConfig.ready``), which registers them. This module imports
no app: it is the core every transport (the HTTP tool API, MCP, in-chat tool calling) goes
through, so validation, ownership refusals and error shapes are the same everywhere.

Arguments are described once, as JSON Schema: the same schema is published to agents and
checked by ``talkingrock.validation`` (jsonschema) before a tool runs.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import wraps
from typing import Any

from django.core.exceptions import ObjectDoesNotExist, ValidationError

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
        if name in REGISTRY and REGISTRY[name].function is not function:
            raise ValueError(f"Tool {name} is declared twice.")
        parameters = {
            "type": "object",
            "properties": properties,
            "required": list(required),
            "additionalProperties": False,
        }
        if unbounded := validation.unbounded_integers(parameters):
            raise ValueError(f"Tool {name}: integers without bounds at {', '.join(unbounded)}")
        REGISTRY[name] = Tool(name, description, parameters, function)
        return function

    return register


# --- what tools' schemas share ---------------------------------------------------------------


def id_schema(description: str = "", *, nullable: bool = False) -> dict[str, Any]:
    """An id: a positive integer that fits SQLite's 64 bits (every integer a tool takes is
    bounded; the registry refuses a schema that is not)."""
    schema: dict[str, Any] = {
        "type": ["integer", "null"] if nullable else "integer",
        "minimum": 1,
        "maximum": validation.MAX_INT,
    }
    return schema | ({"description": description} if description else {})


def ids_schema(description: str = "", *, max_items: int = 100) -> dict[str, Any]:
    schema = {"type": "array", "items": id_schema(), "maxItems": max_items}
    return schema | ({"description": description} if description else {})


def refusing(*answers: tuple[type[Exception], int]):
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


# --- calling -------------------------------------------------------------------------------------


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
        raise ToolError(404, not_found_message(error, args)) from None
    except ValidationError as error:
        raise ToolError(400, " ".join(error.messages)) from None


def not_found_message(error: ObjectDoesNotExist, args: dict[str, Any]) -> str:
    """'Memory 12 not found.' when the missing row's model names one of the arguments (``id``,
    ``memory_id``, ``act_id``…), which is all an agent needs; otherwise 'Not found.'. Another
    member's id gets the same answer as one that does not exist."""
    model = type(error).__qualname__.partition(".")[0]  # Django names it Memory.DoesNotExist
    words = re.findall(r"[A-Z][a-z]*", model) or [model]
    for argument in ("_".join(words).lower() + "_id", words[-1].lower() + "_id", "id"):
        if argument in args:
            return f"{' '.join(words).capitalize()} {args[argument]} not found."
    return "Not found."
