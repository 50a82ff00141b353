"""Version-1 JSON exports, read as before: memories and act titles, nothing else.

A version-1 file holds ``acts`` (title, description, status) and ``memories`` (their fields, the
act by title). The acts are checked first, and a bad one refuses the file; a memory that cannot
be read is skipped with a report line, and one the member has already is skipped and counted.
Version 2, the full backup, is restore.py.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from household.backup import BY_NAME
from household.backup_checks import section_rows
from memories.models import Act, Memory, content_hash
from memories.porting import (
    ImportFormatError,
    ImportReport,
    NewMemories,
    error_message,
    is_act_title,
    parse_iso_datetime,
)
from memories.services import clean_content, clean_tags

_DATETIME_FIELDS = ("last_hit_at", "happened_at", "created_at", "consolidated_at", "archived_at")
_PLAIN_FIELDS = (
    "content",
    "tags",
    "source",
    "status",
    "user_reviewed",
    "user_edited",
    "original_content",
    "extraction_engine",
    "confidence",
    "score",
    "hit_count",
)


def _memory_from_export(new: NewMemories, item: dict[str, Any]) -> tuple[Memory, str | None]:
    """The memory an item describes, and its act's title (None: Your Story)."""
    content = clean_content(item.get("content"))
    fields = {name: item[name] for name in _PLAIN_FIELDS if name in item}
    fields.update({name: parse_iso_datetime(item.get(name), name) for name in _DATETIME_FIELDS})
    fields.update(content=content, tags=clean_tags(item.get("tags", "")))
    fields["created_at"] = fields["created_at"] or timezone.now()
    act_title = item.get("act")
    if act_title is not None and not is_act_title(act_title):
        raise ImportFormatError(f"act must be a title or null, not {act_title!r:.60}")
    # The act is found or made before the memory is checked, as version 1 always did: it stays
    # even when the memory turns out to be refused or known.
    new.act(act_title)
    memory = Memory(owner=new.owner, content_hash=content_hash(content), **fields)
    memory.clean_fields(exclude=["owner", "act", "conversation", "narrative", "content_hash"])
    return memory, act_title


def _act_specs(data: dict[str, Any]) -> list[dict[str, Any]]:
    """The export's acts, checked before anything is written: a bad one refuses the file."""
    checked = []
    for number, spec in enumerate(section_rows(data, BY_NAME["acts"]), start=1):
        if spec.get("is_your_story"):
            continue
        title, description = spec.get("title"), spec.get("description", "")
        status = spec.get("status", Act.Status.ACTIVE)
        if not is_act_title(title):
            raise ImportFormatError(f"act {number} needs a title (text, 200 characters at most).")
        if not isinstance(description, str):
            raise ImportFormatError(f"act {number}: description must be text.")
        if status not in Act.Status.values:
            raise ImportFormatError(
                f"act {number}: status must be one of {', '.join(Act.Status.values)}."
            )
        checked.append({"title": title, "description": description, "status": status})
    return checked


def import_version_1(*, owner, data: dict[str, Any]) -> ImportReport:
    """Restore a version-1 JSON export (memories and act titles) into ``owner``'s memories;
    memories they already have are skipped."""
    specs = _act_specs(data)
    items = data.get("memories", [])
    if not isinstance(items, list):
        raise ImportFormatError("'memories' must be a list.")
    with transaction.atomic():
        new = NewMemories(owner)
        for spec in specs:
            new.act(spec.pop("title"), **spec)
        for item in items:
            if not isinstance(item, dict):
                new.report.errors.append(f"not a memory: {item!r:.60}")
                continue
            try:
                memory, act_title = _memory_from_export(new, item)
            except (ValidationError, ImportFormatError) as error:
                new.report.errors.append(
                    f"memory {item.get('id', '?')!r:.20}: {error_message(error)}"
                )
                continue
            new.add(memory, act=act_title)
        return new.save()
