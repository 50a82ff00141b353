"""What every importer shares: the error that refuses a file, the report of an import, reading
a file, the checks of a date or an act title, and ``NewMemories``, which stores an import's
memories the member does not have yet.

The formats live beside it: Markdown in and out is ``memories/markdown.py``; JSON, the full
backup, is ``household/backup.py`` (out, and the file's layout), ``backup_checks.py`` (the
checks of an incoming file) and ``restore.py`` (in), with ``restore_v1.py`` for version-1 files.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from django.utils import timezone
from django.utils.dateparse import parse_datetime

from memories.acts import ensure_your_story
from memories.indexing import request_indexing
from memories.models import Act, Memory, content_hash
from talkingrock import validation
from talkingrock.text import has_control


class ImportFormatError(ValueError):
    """The file cannot be imported at all; the message says why."""


@dataclass
class ImportReport:
    created: int = 0  # memories
    skipped: int = 0  # memories the member already had
    errors: list[str] = field(default_factory=list)  # what was refused, and why
    notes: list[str] = field(default_factory=list)  # what was imported differently, and why
    restored: dict[str, int] = field(default_factory=dict)  # a backup's other rows, by kind


# --- reading a file ---------------------------------------------------------------------------


def read_text(path: Path) -> str:
    # utf-8-sig: editors on Windows start files with a byte-order mark, which would otherwise
    # glue itself to the first heading or break the JSON parser.
    try:
        return path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as error:
        raise ImportFormatError(
            f"{path} is not UTF-8 text (byte {error.start}: {error.reason})."
        ) from None
    except OSError as error:
        raise ImportFormatError(f"Cannot read {path}: {error.strerror or error}.") from None


def read_json(path: Path) -> Any:
    try:
        # NaN, Infinity and 1e999 are JSON to Python but never a value of ours; an integer too
        # long to convert is a ValueError as well (and so is a file that is not UTF-8).
        return validation.read_json(read_text(path))
    except ValueError as error:
        raise ImportFormatError(f"{path} is not valid JSON: {error}") from None


# --- checking a value -------------------------------------------------------------------------


def parse_iso_datetime(value: Any, name: str) -> datetime | None:
    if value in (None, ""):
        return None
    try:
        parsed = parse_datetime(value) if isinstance(value, str) else None
    except ValueError:  # well-formed but impossible, like month 13
        parsed = None
    if parsed is None:
        raise ImportFormatError(f"{name} is not an ISO date-time: {value!r:.60}")
    try:  # year 1 at +14:00 is before the first representable UTC instant
        return (parsed if timezone.is_aware(parsed) else parsed.replace(tzinfo=UTC)).astimezone(UTC)
    except OverflowError:
        raise ImportFormatError(f"{name} is out of range: {value!r:.60}") from None


def is_act_title(value: Any) -> bool:
    """One line of text an act can be titled: refused, not cleaned, so a damaged file says so."""
    max_length = Act._meta.get_field("title").max_length
    return (
        isinstance(value, str)
        and bool(value.strip())
        and len(value) <= max_length
        and not has_control(value, multiline=False)
    )


def error_message(error: Exception) -> str:
    return " ".join(getattr(error, "messages", None) or [str(error)])


# --- storing memories -------------------------------------------------------------------------


def existing_hashes(owner) -> dict[str, int]:
    """Fingerprint → memory id of what the member has, and of the first wording of what they
    corrected: re-importing the file a memory came from must not bring back the wording they
    fixed (it maps to the corrected memory instead)."""
    known: dict[str, int] = {}
    rows = Memory.objects.filter(owner=owner).order_by("pk")
    for pk, digest, original in rows.values_list("pk", "content_hash", "original_content"):
        if original:
            known.setdefault(content_hash(original), pk)
        known[digest] = pk  # a current wording wins over an old one
    return known


def act_titled(owner, title: str, **defaults: Any) -> Act:
    # Titles are not unique per member, so get_or_create() could find two: take the oldest.
    act = (
        Act.objects.filter(owner=owner, title=title, is_your_story=False)
        .order_by("created_at", "id")
        .first()
    )
    return act or Act.objects.create(owner=owner, title=title, **defaults)


class NewMemories:
    """The memories of one Markdown or version-1 import, stored together: one the member has
    already (same text, or the first wording of one they corrected) is skipped and counted.
    Use it inside the import's transaction; ``report`` says what happened."""

    def __init__(self, owner):
        self.owner = owner
        self.report = ImportReport()
        self.known = existing_hashes(owner)
        self.acts: dict[str | None, Act] = {None: ensure_your_story(owner=owner)}
        self.new: list[Memory] = []

    def act(self, title: str | None, **defaults: Any) -> Act:
        """The member's act of that title (None: Your Story), created when they have none."""
        if title not in self.acts:
            self.acts[title] = act_titled(self.owner, title, **defaults)
        return self.acts[title]

    def add(self, memory: Memory, *, act: str | None) -> None:
        """Keep ``memory`` (its ``content_hash`` set: bulk_create skips save(), which sets it
        otherwise) unless its text is known; only then is it put in the act titled ``act``."""
        if memory.content_hash in self.known:
            self.report.skipped += 1
            return
        self.known[memory.content_hash] = 0
        memory.act = self.act(act)
        self.new.append(memory)

    def save(self) -> ImportReport:
        Memory.objects.bulk_create(self.new, batch_size=500)
        if self.new:
            request_indexing(owner_id=self.owner.pk)
        self.report.created = len(self.new)
        return self.report
