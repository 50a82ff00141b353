"""One validator for everything that arrives as JSON: tool arguments and the model's answers.

Both are described by JSON Schema (the tool registry publishes its schemas to agents; Ollama
constrains generation with them), and both are checked here with the maintained ``jsonschema``
library against the same schema that was published. The refusal names the first place that does
not fit, in words an agent or a person can act on.

Two deliberate departures from the specification's defaults: an integer is a JSON integer, not
``5.0`` (which the spec allows, and which would reach Python slicing as a float), and JSON
``true`` is never a number (Python's ``bool`` is an ``int``).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterator
from typing import Any

from jsonschema import Draft202012Validator, validators
from jsonschema.exceptions import ValidationError, best_match

# SQLite stores signed 64-bit integers; anything larger cannot be an id or a count here.
MAX_INT = 2**63 - 1


def _not_json(name: str):
    raise ValueError(f"{name} is not a JSON number")


def _finite(text: str) -> float:
    if not math.isfinite(number := float(text)):  # 1e309 reads as infinity
        raise ValueError(f"{text[:20]} is too large a number")
    return number


def read_json(text: str | bytes) -> Any:
    """Standard JSON, or ``ValueError`` saying what is wrong. Python's reader also takes NaN,
    Infinity and numbers that overflow to infinity (which SQLite's JSON_VALID check on every JSON
    column then refuses), integers too long to convert, and nesting deep enough to exhaust the
    stack: each of them is a ValueError here."""
    try:
        return json.loads(text, parse_constant=_not_json, parse_float=_finite)
    except RecursionError:
        raise ValueError("it is nested too deeply") from None


def _is_integer(_checker, value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


Validator = validators.extend(
    Draft202012Validator,
    type_checker=Draft202012Validator.TYPE_CHECKER.redefine("integer", _is_integer),
)


class Invalid(ValueError):
    """The value does not fit its schema; ``message`` says where and how."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


# Validators by schema identity: schemas are module-level constants, and building a validator
# costs more than using one. The schema is kept beside it, so an id is never reused while cached.
_validators: dict[int, tuple[dict[str, Any], Any]] = {}


def _validator_for(schema: dict[str, Any]):
    cached = _validators.get(id(schema))
    if cached is None or cached[0] is not schema:
        if len(_validators) > 512:  # schemas built on the fly should not pile up
            _validators.clear()
        cached = _validators[id(schema)] = (schema, Validator(schema))
    return cached[1]


def errors(value: Any, schema: dict[str, Any]) -> Iterator[ValidationError]:
    return _validator_for(schema).iter_errors(value)


def tool_path(path) -> str:
    """('tags', 1) → 'tags[1]': how a tool's argument is named in a refusal."""
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def json_path(path) -> str:
    """('names', 0) → '$.names[0]': how a place in the model's answer is named."""
    return "$" + "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in path)


def describe(error: ValidationError, name: str) -> str:
    """One schema error as a sentence about the place called ``name``."""
    keyword, expected = error.validator, error.validator_value
    if keyword == "type":
        kinds = [expected] if isinstance(expected, str) else list(expected)
        return f"{name} must be of type {' or '.join(kinds)}"
    if keyword == "maxLength":
        return f"{name} is longer than {expected} characters"
    if keyword == "minLength":
        return f"{name} is shorter than {expected} characters"
    if keyword == "maxItems":
        return f"{name} has more than {expected} items"
    if keyword == "minimum":
        return f"{name} must be at least {expected}"
    if keyword == "maximum":
        return f"{name} must be at most {expected}"
    if keyword == "enum":
        return f"{name} must be one of: {', '.join(map(str, expected))}"
    if keyword == "required":
        missing = [key for key in expected if key not in (error.instance or {})]
        return f"{name} is missing {', '.join(missing)}"
    if keyword == "additionalProperties":
        return f"{name} has unexpected keys: {', '.join(_extra_keys(error))}"
    return f"{name}: {error.message}"


def _extra_keys(error: ValidationError) -> list[str]:
    allowed = set(error.schema.get("properties", {}))
    return sorted(str(key) for key in error.instance if key not in allowed)


def first_problem(
    value: Any, schema: dict[str, Any], *, name: Callable[[Any], str] = json_path
) -> str:
    """The most relevant problem of ``value`` against ``schema`` as a sentence, or ""."""
    error = best_match(errors(value, schema))
    if error is None:
        return ""
    return describe(error, name(error.absolute_path))


def validate(value: Any, schema: dict[str, Any]) -> None:
    """Raise ``Invalid`` naming the first place (as ``$.a[0].b``) where ``value`` does not fit."""
    if problem := first_problem(value, schema):
        raise Invalid(problem)


def unbounded_integers(schema: dict[str, Any], path: str = "$") -> list[str]:
    """Places in a schema where an integer has no minimum or maximum: every integer a tool
    takes must be bounded, or a 10**30 reaches SQLite and fails there (the registry checks)."""
    found = []
    kinds = schema.get("type")
    kinds = [kinds] if isinstance(kinds, str) else kinds or []
    if "integer" in kinds and ("minimum" not in schema or "maximum" not in schema):
        found.append(path)
    for key, sub in schema.get("properties", {}).items():
        found += unbounded_integers(sub, f"{path}.{key}")
    if isinstance(schema.get("items"), dict):
        found += unbounded_integers(schema["items"], f"{path}[]")
    return found
