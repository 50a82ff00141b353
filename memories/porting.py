"""Memories in and out: flat Markdown files in, JSON and Markdown out (seed 001, "Migration").

Markdown import reads a folder holding ``MEMORY.md`` and ``memory/*.md`` (or a single ``.md``
file): one memory per bullet or paragraph. Continuation lines and nested bullets stay with their
bullet; headings above an entry and the file's name become its tags. Re-running adds nothing: an
entry whose text the member already has is skipped.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time
from pathlib import Path
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from conversations.models import Act
from conversations.services import ensure_your_story
from memories.indexing import request_indexing
from memories.models import Memory, content_hash
from memories.services import clean_content, clean_tags

EXPORT_FORMATS = ("json", "markdown")
JSON_FORMAT_NAME = "talkingrock.memories"
JSON_FORMAT_VERSION = 1

# ATX heading; a closing run of #s needs a space before it, so "# C#" is about C#.
_HEADING = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_BULLET = re.compile(r"^(\s*)(?:[-*+]|\d{1,3}[.)])(?:[ \t]+(.*)|[ \t]*$)")
_FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})")
_THEMATIC_BREAK = re.compile(r"^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$")
_SETEXT_UNDERLINE = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_DATE_IN_NAME = re.compile(r"(\d{4})-(\d{2})-(\d{2})")


class ImportFormatError(ValueError):
    """The file cannot be imported at all; the message says why."""


@dataclass
class Entry:
    content: str
    tags: list[str]
    happened_at: datetime | None = None


@dataclass
class ImportReport:
    created: int = 0
    skipped: int = 0
    errors: list[str] = field(default_factory=list)


# --- Markdown in ------------------------------------------------------------------------------


def parse_markdown(text: str, *, file_tag: str = "") -> list[Entry]:
    """Split one Markdown document into entries, each tagged with its file and headings.

    Markdown's own rules decide what belongs together: a line right after a bullet continues it
    (lazy continuation) unless it starts something new (a heading, a bullet, a rule), an indented
    line or nested bullet continues it even after a blank line, and a blank line ends a
    paragraph. Fenced code stays whole inside its entry. Rules (``---``) separate entries and are
    not memories; a setext heading (a line underlined with ``===`` or ``---``) is a heading.
    """
    lines = _COMMENT.sub("", text).splitlines()
    if lines and lines[0].strip() == "---":  # YAML front matter
        closing = next((i for i in range(1, len(lines)) if lines[i].strip() == "---"), None)
        if closing is not None:
            lines = lines[closing + 1 :]

    entries: list[Entry] = []
    headings: list[tuple[int, str]] = []
    block: list[str] = []
    kind = None  # "bullet" or "paragraph" while a block is open
    fenced = False  # the open block holds fenced code (so it is not a setext heading's text)
    after_blank = False
    fence = ""  # the opening fence (``` or ~~~, maybe longer) while inside fenced code
    fence_indent = 0

    def flush() -> None:
        nonlocal kind, fenced
        content = "\n".join(block).strip()
        if content:
            tags = [file_tag] if file_tag else []
            entries.append(Entry(content=content, tags=tags + [t for _, t in headings]))
        block.clear()
        kind = None
        fenced = False

    def open_heading(level: int, title: str) -> None:
        nonlocal headings
        title = " ".join(title.replace(",", " ").split())
        headings = [(lvl, t) for lvl, t in headings if lvl < level]
        if title:
            headings.append((level, title))

    for line in lines:
        if fence:
            # Code keeps its own indentation, less the indentation of its opening fence.
            stripped = line.lstrip(" ")
            block.append(line[min(fence_indent, len(line) - len(stripped)) :].rstrip())
            if re.match(rf"^\s*{re.escape(fence[0])}{{{len(fence)},}}\s*$", line):
                fence = ""
            continue
        if not line.strip():
            if kind == "paragraph":
                flush()
            after_blank = True
            continue
        indented = line[:1] in (" ", "\t")
        bullet = _BULLET.match(line)
        if kind == "bullet" and indented:
            block.append(line.strip())  # an indented continuation or a nested bullet
        elif kind == "paragraph" and not fenced and (underline := _SETEXT_UNDERLINE.match(line)):
            title = " ".join(block)
            block.clear()
            kind = None
            open_heading(1 if underline.group(1)[0] == "=" else 2, title)
        elif _THEMATIC_BREAK.match(line):
            flush()
        elif heading := _HEADING.match(line):
            flush()
            open_heading(len(heading.group(1)), heading.group(2) or "")
        elif bullet:
            flush()
            kind = "bullet"
            block.append((bullet.group(2) or "").strip())
        elif kind == "bullet" and not after_blank:
            block.append(line.strip())  # lazy continuation
        else:
            if kind != "paragraph":
                flush()
                kind = "paragraph"
            block.append(line.strip())
        if opening := _FENCE.match(line):
            fence, fence_indent, fenced = opening.group(2), len(opening.group(1)), True
        after_blank = False
    flush()
    return entries


def _happened_at_from_name(name: str) -> datetime | None:
    match = _DATE_IN_NAME.search(name)
    if not match:
        return None
    try:
        day = date(*(int(part) for part in match.groups()))
    except ValueError:
        return None
    return timezone.make_aware(datetime.combine(day, time(12, 0)))


def markdown_files(path: Path) -> list[Path]:
    if path.is_file():
        return [path]
    files = [path / "MEMORY.md"] if (path / "MEMORY.md").is_file() else []
    files += sorted((path / "memory").glob("*.md")) if (path / "memory").is_dir() else []
    return files


def _read_text(path: Path) -> str:
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


def read_markdown_folder(path: Path) -> list[Entry]:
    entries = []
    for file in markdown_files(path):
        file_tag = file.stem.lower() if file.name != "MEMORY.md" else "memory"
        happened_at = _happened_at_from_name(file.name)
        for entry in parse_markdown(_read_text(file), file_tag=file_tag):
            entry.happened_at = happened_at
            entries.append(entry)
    return entries


def _existing_hashes(owner) -> set[str]:
    """Fingerprints of what the member has, and of the first wording of what they corrected:
    re-importing the file a memory came from must not bring back the wording they fixed."""
    known = set()
    rows = Memory.objects.filter(owner=owner).values_list("content_hash", "original_content")
    for digest, original in rows:
        known.add(digest)
        if original:
            known.add(content_hash(original))
    return known


def import_entries(
    *, owner, entries: list[Entry], source: str = Memory.Source.MIGRATION
) -> ImportReport:
    """Store entries the member does not have yet; one short transaction for the whole batch."""
    report = ImportReport()
    known = _existing_hashes(owner)
    your_story = ensure_your_story(owner=owner)
    new = []
    for entry in entries:
        try:
            content = clean_content(entry.content)
            tags = clean_tags(entry.tags)
        except ValidationError as error:
            report.errors.append(f"{entry.content[:60]!r}: {' '.join(error.messages)}")
            continue
        digest = content_hash(content)
        if digest in known:
            report.skipped += 1
            continue
        known.add(digest)
        new.append(
            Memory(
                owner=owner,
                content=content,
                content_hash=digest,  # bulk_create skips save(), which sets it otherwise
                tags=tags,
                source=source,
                act=your_story,
                happened_at=entry.happened_at,
            )
        )
    with transaction.atomic():
        Memory.objects.bulk_create(new, batch_size=500)
        if new:
            request_indexing(owner_id=owner.pk)
    report.created = len(new)
    return report


# --- JSON in and out --------------------------------------------------------------------------

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


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value else None


def export_json(*, owner) -> dict[str, Any]:
    acts = Act.objects.filter(owner=owner).order_by("-is_your_story", "created_at", "id")
    memories = Memory.objects.filter(owner=owner).select_related("act").order_by("created_at", "id")
    return {
        "format": JSON_FORMAT_NAME,
        "version": JSON_FORMAT_VERSION,
        "member": owner.get_username(),
        "exported_at": timezone.now().isoformat(),
        "acts": [
            {
                "title": act.title,
                "description": act.description,
                "status": act.status,
                "is_your_story": act.is_your_story,
            }
            for act in acts
        ],
        "memories": [
            {
                "id": memory.pk,
                **{name: getattr(memory, name) for name in _PLAIN_FIELDS},
                **{name: _iso(getattr(memory, name)) for name in _DATETIME_FIELDS},
                "act": None if memory.act.is_your_story else memory.act.title,
            }
            for memory in memories
        ],
    }


def _parse_datetime(value: Any, name: str) -> datetime | None:
    if value in (None, ""):
        return None
    try:
        parsed = parse_datetime(value) if isinstance(value, str) else None
    except ValueError:  # well-formed but impossible, like month 13
        parsed = None
    if parsed is None:
        raise ImportFormatError(f"{name} is not an ISO date-time: {value!r}")
    return parsed if timezone.is_aware(parsed) else timezone.make_aware(parsed, UTC)


def _memory_from_export(owner, item: dict[str, Any], acts: dict[str | None, Act]) -> Memory:
    content = clean_content(item.get("content"))
    fields = {name: item[name] for name in _PLAIN_FIELDS if name in item}
    fields.update({name: _parse_datetime(item.get(name), name) for name in _DATETIME_FIELDS})
    fields.update(content=content, tags=clean_tags(item.get("tags", "")))
    fields["created_at"] = fields["created_at"] or timezone.now()
    act_title = item.get("act")
    if act_title is not None and not _is_act_title(act_title):
        raise ImportFormatError(f"act must be a title or null, not {act_title!r:.60}")
    if act_title not in acts:
        acts[act_title] = _act_titled(owner, act_title)
    memory = Memory(owner=owner, act=acts[act_title], content_hash=content_hash(content), **fields)
    memory.clean_fields(exclude=["owner", "act", "conversation", "narrative", "content_hash"])
    return memory


def _is_act_title(value: Any) -> bool:
    max_length = Act._meta.get_field("title").max_length
    return isinstance(value, str) and bool(value.strip()) and len(value) <= max_length


def _act_titled(owner, title: str, **defaults: Any) -> Act:
    # Titles are not unique per member, so get_or_create() could find two: take the oldest.
    act = (
        Act.objects.filter(owner=owner, title=title, is_your_story=False)
        .order_by("created_at", "id")
        .first()
    )
    return act or Act.objects.create(owner=owner, title=title, **defaults)


def _act_specs(data: dict[str, Any]) -> list[dict[str, Any]]:
    """The export's acts, checked before anything is written: a bad one refuses the file."""
    specs = data.get("acts", [])
    if not isinstance(specs, list):
        raise ImportFormatError("'acts' must be a list.")
    checked = []
    for number, spec in enumerate(specs, start=1):
        if not isinstance(spec, dict):
            raise ImportFormatError(f"act {number} is not an object: {spec!r:.60}")
        if spec.get("is_your_story"):
            continue
        title, description = spec.get("title"), spec.get("description", "")
        status = spec.get("status", Act.Status.ACTIVE)
        if not _is_act_title(title):
            raise ImportFormatError(f"act {number} needs a title (text, 200 characters at most).")
        if not isinstance(description, str):
            raise ImportFormatError(f"act {number}: description must be text.")
        if status not in Act.Status.values:
            raise ImportFormatError(
                f"act {number}: status must be one of {', '.join(Act.Status.values)}."
            )
        checked.append({"title": title, "description": description, "status": status})
    return checked


def import_json(*, owner, data: Any) -> ImportReport:
    """Restore a JSON export into ``owner``'s memories; memories they already have are skipped."""
    if not isinstance(data, dict) or data.get("format") != JSON_FORMAT_NAME:
        raise ImportFormatError(
            f"Not a Talking Rock export (expected format {JSON_FORMAT_NAME!r})."
        )
    if data.get("version") != JSON_FORMAT_VERSION:
        raise ImportFormatError(f"Unsupported export version {data.get('version')!r}.")
    specs = _act_specs(data)
    items = data.get("memories", [])
    if not isinstance(items, list):
        raise ImportFormatError("'memories' must be a list.")
    report = ImportReport()
    known = _existing_hashes(owner)
    acts = {None: ensure_your_story(owner=owner)}
    new = []
    with transaction.atomic():
        for spec in specs:
            title = spec.pop("title")
            acts[title] = _act_titled(owner, title, **spec)
        for item in items:
            if not isinstance(item, dict):
                report.errors.append(f"not a memory: {item!r:.60}")
                continue
            try:
                memory = _memory_from_export(owner, item, acts)
            except (ValidationError, ImportFormatError) as error:
                message = " ".join(getattr(error, "messages", [str(error)]))
                report.errors.append(f"memory {item.get('id', '?')}: {message}")
                continue
            if memory.content_hash in known:
                report.skipped += 1
                continue
            known.add(memory.content_hash)
            new.append(memory)
        Memory.objects.bulk_create(new, batch_size=500)
        if new:
            request_indexing(owner_id=owner.pk)
    report.created = len(new)
    return report


# --- Markdown out -----------------------------------------------------------------------------


def _markdown_item(memory: Memory) -> str:
    first, *rest = memory.content.splitlines() or [""]
    meta = [f"id:{memory.pk}"]
    if memory.tags:
        meta.append(f"tags: {memory.tags}")
    meta.append(f"score {memory.score}")
    meta.append((memory.happened_at or memory.created_at).date().isoformat())
    lines = [f"- {first}", *(f"  {line}" if line else "" for line in rest)]
    lines[-1] += f" <!-- {' · '.join(meta)} -->"
    return "\n".join(lines)


def export_markdown(*, owner) -> str:
    memories = list(
        Memory.objects.filter(owner=owner).select_related("act").order_by("created_at", "id")
    )
    # The preamble is YAML front matter, which the importer skips: re-importing this file brings
    # back the memories only. (A "# title" heading would have become a tag on every one of them.)
    out = [
        "---",
        f"title: Talking Rock memories of {owner.get_username()}",
        f"exported: {timezone.now():%Y-%m-%d %H:%M} UTC",
        f"memories: {len(memories)}",
        "import: python manage.py memories import FILE --user NAME",
        "---",
    ]
    live = [m for m in memories if m.archived_at is None]
    archived = [m for m in memories if m.archived_at is not None]
    acts = Act.objects.filter(owner=owner).order_by("-is_your_story", "created_at", "id")
    for act in acts:
        section = [m for m in live if m.act_id == act.pk]
        if section or act.is_your_story:
            out += ["", f"## {act.title}", ""]
            out += [_markdown_item(m) for m in section]
    if archived:
        out += ["", "## Archived", ""] + [_markdown_item(m) for m in archived]
    return "\n".join(out) + "\n"


def export_memories(*, owner, fmt: str) -> tuple[str, str, str]:
    """The member's whole memory as (body, content type, file extension)."""
    if fmt == "json":
        body = json.dumps(export_json(owner=owner), indent=2, ensure_ascii=False)
        return body + "\n", "application/json", "json"
    if fmt == "markdown":
        return export_markdown(owner=owner), "text/markdown; charset=utf-8", "md"
    raise ValueError(f"Unknown export format {fmt!r}; use one of {', '.join(EXPORT_FORMATS)}.")


def import_path(*, owner, path: Path) -> ImportReport:
    """Import a Markdown folder or file, or a JSON export file."""
    if not path.exists():
        raise ImportFormatError(f"{path} does not exist.")
    if path.is_file() and path.suffix.lower() == ".json":
        try:
            data = json.loads(_read_text(path))
        except json.JSONDecodeError as error:
            raise ImportFormatError(f"{path} is not valid JSON: {error}") from None
        except RecursionError:
            raise ImportFormatError(f"{path} is nested too deeply to be an export.") from None
        return import_json(owner=owner, data=data)
    files = markdown_files(path)
    if not files:
        raise ImportFormatError(f"No MEMORY.md or memory/*.md under {path}.")
    return import_entries(owner=owner, entries=read_markdown_folder(path))
