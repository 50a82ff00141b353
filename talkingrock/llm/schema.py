"""The subset of JSON Schema our prompts use, checked without a dependency.

Ollama constrains generation to the schema, but small models still truncate, and a server
without structured outputs ignores it; so every answer is checked here before it is used.
"""

from __future__ import annotations

from typing import Any

_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,),
    "array": (list,),
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "null": (type(None),),
}


class SchemaError(ValueError):
    """The answer does not fit; the message names the first place where it does not."""


def validate(value: Any, schema: dict[str, Any], path: str = "$") -> None:
    kinds = schema.get("type")
    if kinds is not None:
        kinds = [kinds] if isinstance(kinds, str) else kinds
        if not any(_is(value, kind) for kind in kinds):
            raise SchemaError(f"{path} must be {' or '.join(kinds)}, not {_name(value)}")
    if "enum" in schema and value not in schema["enum"]:
        raise SchemaError(f"{path} must be one of {schema['enum']}")
    if isinstance(value, str) and len(value) > schema.get("maxLength", len(value)):
        raise SchemaError(f"{path} is longer than {schema['maxLength']} characters")
    if isinstance(value, int | float) and not isinstance(value, bool):
        if value < schema.get("minimum", value) or value > schema.get("maximum", value):
            raise SchemaError(
                f"{path} must be between {schema.get('minimum')} and {schema.get('maximum')}"
            )
    if isinstance(value, list):
        if len(value) > schema.get("maxItems", len(value)):
            raise SchemaError(f"{path} has more than {schema['maxItems']} items")
        for index, item in enumerate(value):
            validate(item, schema.get("items", {}), f"{path}[{index}]")
    if isinstance(value, dict):
        for name in schema.get("required", ()):
            if name not in value:
                raise SchemaError(f"{path}.{name} is missing")
        properties = schema.get("properties", {})
        if schema.get("additionalProperties") is False:
            extra = sorted(set(value) - set(properties))
            if extra:
                raise SchemaError(f"{path} has unexpected keys: {', '.join(extra)}")
        for name, item in value.items():
            if name in properties:
                validate(item, properties[name], f"{path}.{name}")


def _is(value: Any, kind: str) -> bool:
    if kind in ("integer", "number") and isinstance(value, bool):
        return False
    return isinstance(value, _TYPES[kind])


def _name(value: Any) -> str:
    for kind in _TYPES:
        if _is(value, kind):
            return kind
    return type(value).__name__
