"""The checks of an incoming backup (the layout is backup.py): ``checked`` reads every row of
every section against its model's fields and every reference against the file's own ids, before
restore.py writes anything. The first problem refuses the whole file, with a message saying
where; only a memory whose text or tags the app would refuse today is marked to be skipped.
"""

from __future__ import annotations

import math
from typing import Any

from django.core.exceptions import ValidationError
from django.db import models
from django.db.backends.base.operations import BaseDatabaseOperations

from household.backup import MANY, SECTIONS, USED_REFS, Section
from memories.models import Memory
from memories.porting import ImportFormatError, error_message, is_act_title, parse_iso_datetime
from memories.services import clean_content, clean_tags
from talkingrock.text import has_control

_RANGES = BaseDatabaseOperations.integer_field_ranges
_MISSING = object()
# A control character refuses the file (talkingrock/text.py says which), but a line ending of any
# kind is text here: the text fields store it as \n, and a plain JSON field (a reply's
# memories_used, a recall's parameters) keeps what the model sent, \r included.
_LINE_ENDINGS = str.maketrans("", "", "\r\u2028\u2029")


def _text(value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise ImportFormatError(f"{where} must be text, not {type(value).__name__}.")
    if has_control(value.translate(_LINE_ENDINGS)):
        raise ImportFormatError(f"{where} contains control characters.")
    return value


def _json(value: Any, where: str) -> Any:
    """A JSON value whose every string (keys too) is text."""
    if isinstance(value, str):
        return _text(value, where)
    if isinstance(value, dict):
        return {_text(key, where): _json(item, where) for key, item in value.items()}
    if isinstance(value, list):
        return [_json(item, where) for item in value]
    return value


def _value(field: models.Field, value: Any, where: str) -> Any:
    """``value`` as ``field`` stores it, or ImportFormatError."""
    where = f"{where} {field.name}"
    if value is _MISSING:
        if not field.has_default() and not field.null:
            raise ImportFormatError(f"{where} is missing.")
        return field.get_default()
    if value is None:
        if not field.null:
            raise ImportFormatError(f"{where} cannot be null.")
        return None
    if isinstance(field, models.DateTimeField):
        return parse_iso_datetime(value, where)
    if isinstance(field, models.JSONField):
        expected = type(field.get_default())
        if not isinstance(value, expected):
            raise ImportFormatError(f"{where} must be a JSON {expected.__name__}.")
        return _json(value, where)
    if isinstance(field, models.BooleanField):
        if not isinstance(value, bool):
            raise ImportFormatError(f"{where} must be true or false.")
        return value
    if isinstance(value, bool):  # Python counts true and false as numbers; a file must not
        raise ImportFormatError(f"{where} cannot be true or false.")
    if isinstance(field, models.IntegerField):
        low, high = _RANGES[field.get_internal_type()]
        if not isinstance(value, int) or not low <= value <= high:
            raise ImportFormatError(f"{where} must be a whole number from {low} to {high}.")
    elif isinstance(field, models.FloatField):
        if not isinstance(value, int | float) or not math.isfinite(value):
            raise ImportFormatError(f"{where} must be a finite number.")
        value = float(value)
    elif isinstance(field, models.CharField | models.TextField):
        value = _text(value, where)
        if field.max_length and len(value) > field.max_length:
            raise ImportFormatError(f"{where} is longer than {field.max_length} characters.")
    choices = {key for key, _ in field.flatchoices}
    if choices and value not in choices and not (field.blank and value == ""):
        raise ImportFormatError(f"{where} must be one of {', '.join(sorted(choices))}.")
    return value


def _reference(value: Any, known: set[int], where: str, *, required: bool) -> int | None:
    if value is None and not required:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value not in known:
        raise ImportFormatError(f"{where} names {value!r:.30}, which is not in the file.")
    return value


def section_rows(data: dict[str, Any], section: Section) -> list[dict[str, Any]]:
    """The section's rows, each an object (version 1's acts are read the same way)."""
    rows = data.get(section.name, [])
    if not isinstance(rows, list):
        raise ImportFormatError(f"'{section.name}' must be a list.")
    for number, row in enumerate(rows, start=1):
        if not isinstance(row, dict):
            raise ImportFormatError(f"{section.label} {number} is not an object: {row!r:.60}")
    return rows


def _ids(rows: list[dict[str, Any]], section: Section) -> set[int]:
    seen: set[int] = set()
    for number, row in enumerate(rows, start=1):
        value = row.get("id")
        if isinstance(value, bool) or not isinstance(value, int) or abs(value) >= 2**63:
            raise ImportFormatError(f"{section.label} {number} needs a whole-number id.")
        if value in seen:
            raise ImportFormatError(f"{section.label} id {value} is used twice.")
        seen.add(value)
    return seen


# What the database keeps unique among a section's rows.
_UNIQUE = {
    "entities": ("normalized",),
    "messages": ("conversation", "position"),
    "mentions": ("entity", "memory"),
    "links": ("memory", "related"),
    "hits": ("recall", "rank"),
}


def checked(data: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """Every section's rows, each field checked against its model field and every reference
    against the file's ids; the first problem refuses the file."""
    raw = {section.name: section_rows(data, section) for section in SECTIONS}
    ids = {s.name: _ids(raw[s.name], s) for s in SECTIONS if s.has_ids}
    checked: dict[str, list[dict[str, Any]]] = {}
    for section in SECTIONS:
        rows, seen = [], set()
        for number, row in enumerate(raw[section.name], start=1):
            where = f"{section.label} {row['id'] if section.has_ids else number}"
            clean = {"id": row.get("id"), "where": where}
            for name in section.fields:
                model_field = section.model._meta.get_field(name)
                clean[name] = _value(model_field, row.get(name, _MISSING), where)
            for ref, target in section.refs.items():
                clean[ref] = _reference(
                    row.get(ref), ids[target], f"{where} {ref}", required=section.required(ref)
                )
            if unique := _UNIQUE.get(section.name):
                key = tuple(clean[name] for name in unique)
                if key in seen:
                    raise ImportFormatError(
                        f"{where}: a second one with the same {', '.join(unique)}."
                    )
                seen.add(key)
            rows.append(clean)
        checked[section.name] = rows
    _check_rows(raw, checked, ids)
    checked["narratives"] = chain_order(checked["narratives"])
    return checked


def _check_rows(raw, checked, ids) -> None:
    """What a model field alone does not say."""
    for row in checked["acts"]:
        if not row["is_your_story"] and not is_act_title(row["title"]):
            raise ImportFormatError(f"{row['where']} needs a title.")
    stories = [row["where"] for row in checked["acts"] if row["is_your_story"]]
    if len(stories) > 1:  # a member has one Your Story; which would the file's memories join?
        raise ImportFormatError(f"{stories[1]} is a second Your Story ({stories[0]} is one).")
    for row in checked["memories"]:
        if (row["kind"] in Memory.EVIDENCE) != (row["message"] is not None):
            raise ImportFormatError(
                f"{row['where']}: what was said names its message, and nothing else does."
            )
    for row in checked["memories"]:
        try:  # what the app would refuse today is skipped, not the whole file
            row["content"], row["tags"] = clean_content(row["content"]), clean_tags(row["tags"])
        except ValidationError as error:
            row["refused"] = error_message(error)
    for row in checked["links"]:
        if row["memory"] == row["related"]:
            raise ImportFormatError(f"{row['where']} links a memory to itself.")
    for source, row in zip(raw["narratives"], checked["narratives"], strict=True):
        memories = source.get("memories", [])
        if (
            not isinstance(memories, list)
            or len(memories) > _RANGES["PositiveSmallIntegerField"][1]
        ):
            raise ImportFormatError(f"{row['where']} memories must be a list of memory ids.")
        where = f"{row['where']} memories"
        row["memories"] = [_reference(v, ids["memories"], where, required=True) for v in memories]
    for section, names in MANY.items():
        for source, row in zip(raw[section], checked[section], strict=True):
            for name in names:
                where = f"{row['where']} {name}"
                memories = source.get(name, [])
                if not isinstance(memories, list):
                    raise ImportFormatError(f"{where} must be a list of memory ids.")
                found = [_reference(v, ids["memories"], where, required=True) for v in memories]
                row[name] = list(dict.fromkeys(found))  # each memory once
    for source, row in zip(raw["messages"], checked["messages"], strict=True):
        where = f"{row['where']} memories_used"
        used = _json(source.get("memories_used", []), where)
        if not isinstance(used, list) or not all(isinstance(entry, dict) for entry in used):
            raise ImportFormatError(f"{where} must be a list of objects.")
        for entry in used:
            for key, target in USED_REFS:
                if key in entry:
                    entry[key] = _reference(entry[key], ids[target], where, required=False)
        row["memories_used"] = used
        # Written apart (backup.LATER_REFS): the recall it was made from; files written before
        # replies kept it have none.
        row["recall"] = _reference(
            source.get("recall"), ids["recalls"], f"{row['where']} recall", required=False
        )


def chain_order(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Narratives with each one after the one it continues (a narrative is written once, and
    what it continues must exist by then); a chain that goes round is refused."""
    by_id = {row["id"]: row for row in rows}
    ordered: list[dict[str, Any]] = []
    done: set[int] = set()
    for start in rows:
        path: dict[int, dict[str, Any]] = {}  # the walk back from ``start``, in order
        row = start
        while row is not None and row["id"] not in done:
            if row["id"] in path:
                raise ImportFormatError(f"{row['where']} continues itself, round a circle.")
            path[row["id"]] = row
            row = by_id.get(row["previous"])
        done.update(path)
        ordered += reversed(path.values())
    return ordered
