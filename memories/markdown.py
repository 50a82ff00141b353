"""Memories in and out as Markdown (seed 001, "Migration").

Markdown import reads a folder holding ``MEMORY.md`` and ``memory/*.md`` (or a single ``.md``
file): one memory per bullet or paragraph. Continuation lines and nested bullets stay with their
bullet; headings above an entry and the file's name become its tags. Re-running adds nothing: an
entry whose text the member already has is skipped.

Markdown export writes one bullet per confirmed memory under its act's heading, and ends each
with an HTML comment a renderer hides, ``<!-- talkingrock id=7 act="Garden" tags="a, b" … -->``:
its tags, act, source, score, hits, dates and archive date. On import an entry carrying that
comment takes its metadata from it (and not from the headings or the file name), so an export
round-trips; hand-written Markdown has no such comment and imports as before.

What every importer shares (the report, the checks of a date or an act title, storing the new
memories) is memories/porting.py.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import date, datetime, time
from pathlib import Path
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from memories import sharing
from memories.acts import YOUR_STORY_TITLE
from memories.models import Act, Memory, content_hash
from memories.porting import (
    ImportFormatError,
    ImportReport,
    NewMemories,
    error_message,
    is_act_title,
    parse_iso_datetime,
    read_text,
)
from memories.services import clean_content, clean_session, clean_tags
from talkingrock.text import has_control

# ATX heading; a closing run of #s needs a space before it, so "# C#" is about C#.
_HEADING = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_BULLET = re.compile(r"^(\s*)(?:[-*+]|\d{1,3}[.)])(?:[ \t]+(.*)|[ \t]*$)")
_FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})")
_THEMATIC_BREAK = re.compile(r"^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$")
_SETEXT_UNDERLINE = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_DATE_IN_NAME = re.compile(r"(\d{4})-(\d{2})-(\d{2})")
# The metadata comment of an exported entry, its key=value fields (text values are JSON strings,
# the rest bare words), and the mark that stands in for it while the lines are parsed.
_META = re.compile(r"<!--[ \t]*talkingrock\b(.*?)-->", re.DOTALL)
_META_FIELD = re.compile(r'([a-z_]+)=("(?:[^"\\\n]|\\.)*"|[^\s"]+)')
_META_MARK = re.compile(r"[ \t]*\x00(\d+)\x00")
# Markdown key → the memory's date field it carries.
_META_DATES = {
    "created": "created_at",
    "happened": "happened_at",
    "last_hit": "last_hit_at",
    "archived": "archived_at",
}


@dataclass
class Entry:
    content: str
    tags: list[str]
    happened_at: datetime | None = None
    meta: dict[str, str] | None = None  # the export's metadata comment, when the entry has one


# --- Markdown in ------------------------------------------------------------------------------


def parse_markdown(text: str, *, file_tag: str = "") -> list[Entry]:
    """Split one Markdown document into entries, each tagged with its file and headings.

    Markdown's own rules decide what belongs together: a line right after a bullet continues it
    (lazy continuation) unless it starts something new (a heading, a bullet, a rule), an indented
    line or nested bullet continues it even after a blank line, and a blank line ends a
    paragraph. Fenced code stays whole inside its entry. Rules (``---``) separate entries and are
    not memories; a setext heading (a line underlined with ``===`` or ``---``) is a heading.
    """
    found: list[dict[str, str]] = []  # the metadata comments, in order

    def mark(match: re.Match) -> str:
        found.append(_meta_fields(match.group(1)))
        return f"\x00{len(found) - 1}\x00"

    # A NUL is never text (and would fake a mark): it goes before the marks go in.
    lines = _COMMENT.sub("", _META.sub(mark, text.replace("\x00", ""))).splitlines()
    reader = _Blocks(found, file_tag)
    for line in _without_front_matter(lines):
        reader.read(line)
    reader.flush()
    return reader.entries


def _without_front_matter(lines: list[str]) -> list[str]:
    if lines and lines[0].strip() == "---":  # YAML front matter
        closing = next((i for i in range(1, len(lines)) if lines[i].strip() == "---"), None)
        if closing is None:  # its metadata would otherwise be read as memories
            raise ImportFormatError(
                "its front matter (the '---' on line 1) never closes: end it with a '---' line"
            )
        return lines[closing + 1 :]
    return lines


class _Blocks:
    """Markdown's block rules, a line at a time: each finished block is an entry."""

    def __init__(self, found: list[dict[str, str]], file_tag: str):
        self.found, self.file_tag = found, file_tag
        self.entries: list[Entry] = []
        self.headings: list[tuple[int, str]] = []
        self.block: list[str] = []
        self.kind: str | None = None  # "bullet" or "paragraph" while a block is open
        self.fenced = False  # the open block holds fenced code (not a setext heading's text)
        self.after_blank = False
        self.fence = ""  # the opening fence (``` or ~~~, maybe longer) inside fenced code
        self.fence_indent = 0

    def flush(self) -> None:
        content = "\n".join(self.block)
        # A comment that only starts with the word, with no key=value in it, is just a comment.
        metas = [self.found[int(n)] for n in _META_MARK.findall(content) if self.found[int(n)]]
        content = _META_MARK.sub("", content).strip()
        if content:
            tags = [self.file_tag] if self.file_tag else []
            self.entries.append(
                Entry(
                    content=content,
                    tags=tags + [t for _, t in self.headings],
                    meta=metas[-1] if metas else None,
                )
            )
        self.block.clear()
        self.kind = None
        self.fenced = False

    def open_heading(self, level: int, title: str) -> None:
        title = " ".join(_META_MARK.sub("", title).replace(",", " ").split())
        self.headings = [(lvl, t) for lvl, t in self.headings if lvl < level]
        if title:
            self.headings.append((level, title))

    def read(self, line: str) -> None:
        if self.fence:
            # Code keeps its own indentation, less the indentation of its opening fence.
            stripped = line.lstrip(" ")
            self.block.append(line[min(self.fence_indent, len(line) - len(stripped)) :].rstrip())
            if re.match(rf"^\s*{re.escape(self.fence[0])}{{{len(self.fence)},}}\s*$", line):
                self.fence = ""
            return
        if not line.strip():
            if self.kind == "paragraph":
                self.flush()
            self.after_blank = True
            return
        self._block_line(line)
        if opening := _FENCE.match(line):
            self.fence, self.fence_indent = opening.group(2), len(opening.group(1))
            self.fenced = True
        self.after_blank = False

    def _block_line(self, line: str) -> None:
        indented = line[:1] in (" ", "\t")
        bullet = _BULLET.match(line)
        if self.kind == "bullet" and indented:
            self.block.append(line.strip())  # an indented continuation or a nested bullet
        elif (
            self.kind == "paragraph"
            and not self.fenced
            and (underline := _SETEXT_UNDERLINE.match(line))
        ):
            title = " ".join(self.block)
            self.block.clear()
            self.kind = None
            self.open_heading(1 if underline.group(1)[0] == "=" else 2, title)
        elif _THEMATIC_BREAK.match(line):
            self.flush()
        elif heading := _HEADING.match(line):
            self.flush()
            self.open_heading(len(heading.group(1)), heading.group(2) or "")
        elif bullet:
            self.flush()
            self.kind = "bullet"
            self.block.append((bullet.group(2) or "").strip())
        elif self.kind == "bullet" and not self.after_blank:
            self.block.append(line.strip())  # lazy continuation
        else:
            if self.kind != "paragraph":
                self.flush()
                self.kind = "paragraph"
            self.block.append(line.strip())


def _meta_fields(body: str) -> dict[str, str]:
    """``key=value`` pairs of a metadata comment; quoted values are JSON strings."""
    fields = {}
    for key, raw in _META_FIELD.findall(body):
        if raw.startswith('"'):
            try:
                raw = json.loads(raw)
            except ValueError:
                pass  # kept as written: the field's own check refuses it
        fields[key] = raw
    return fields


def _happened_at_from_name(name: str) -> datetime | None:
    match = _DATE_IN_NAME.search(name)
    if not match:
        return None
    try:
        day = date(*(int(part) for part in match.groups()))
    except ValueError:
        return None
    return timezone.make_aware(datetime.combine(day, time(12, 0)))


def markdown_files(path: Path) -> tuple[list[Path], list[Path]]:
    """The Markdown files to read, and the symbolic links among the candidates, which are not
    followed: a folder import reads what is in the folder, not what a link points to."""
    if path.is_file():
        return [path], []
    folder = path / "memory"
    candidates = [path / "MEMORY.md"] if (path / "MEMORY.md").is_file() else []
    if folder.is_symlink():
        return candidates, [folder]
    candidates += sorted(folder.glob("*.md")) if folder.is_dir() else []
    links = [file for file in candidates if file.is_symlink()]
    return [file for file in candidates if file not in links and file.is_file()], links


def read_markdown_folder(path: Path) -> list[Entry]:
    entries = []
    for file in markdown_files(path)[0]:
        file_tag = file.stem.lower() if file.name != "MEMORY.md" else "memory"
        happened_at = _happened_at_from_name(file.name)
        try:
            parsed = parse_markdown(read_text(file), file_tag=file_tag)
        except ImportFormatError as error:
            raise ImportFormatError(f"{file}: {error_message(error)}.") from None
        for entry in parsed:
            entry.happened_at = happened_at
            entries.append(entry)
    return entries


def _whole_number(raw: str, key: str, low: int, high: int) -> int:
    if not re.fullmatch(r"[+-]?\d{1,12}", raw) or not low <= int(raw) <= high:
        raise ValidationError(f"{key} must be a whole number from {low} to {high}: {raw!r:.40}")
    return int(raw)


def _meta_values(meta: dict[str, str]) -> tuple[str | None, dict[str, Any]]:
    """The act title (None: Your Story) and the memory fields an exported entry carries."""
    for key, value in meta.items():
        # Every value is one line: the file spells a control character with a JSON escape.
        if has_control(value, multiline=False):
            raise ValidationError(f"{key} contains control characters.")
    source = meta.get("source", Memory.Source.MIGRATION)
    if source not in Memory.Source.values:
        raise ValidationError(f"source must be one of {', '.join(Memory.Source.values)}.")
    fields: dict[str, Any] = {"tags": clean_tags(meta.get("tags", "")), "source": source}
    if "score" in meta:
        fields["score"] = _whole_number(meta["score"], "score", -(2**31), 2**31 - 1)
    if "hits" in meta:
        fields["hit_count"] = _whole_number(meta["hits"], "hits", 0, 2**31 - 1)
    for key, name in _META_DATES.items():
        fields[name] = parse_iso_datetime(meta.get(key), key)
    fields["session"] = clean_session(meta.get("session", ""))
    fields["created_at"] = fields["created_at"] or timezone.now()
    act = meta.get("act")
    if act is not None and not is_act_title(act):
        raise ValidationError("act must be a title of 200 characters at most.")
    if act is not None and act.strip().casefold() == YOUR_STORY_TITLE.casefold():
        act = None
    return act, fields


def import_entries(
    *, owner, entries: list[Entry], source: str = Memory.Source.MIGRATION
) -> ImportReport:
    """Store entries the member does not have yet; one short transaction for the whole batch.

    An entry with an export's metadata comment keeps its act (found by title, created when the
    member has none of that title), tags, source, score, hits, dates and archive date; the rest
    are tagged by headings and file name and land in Your Story."""
    with transaction.atomic():
        new = NewMemories(owner)
        for entry in entries:
            try:
                content = clean_content(entry.content)
                if entry.meta is None:
                    act_title = None
                    fields = {
                        "tags": clean_tags(entry.tags),
                        "source": source,
                        "happened_at": entry.happened_at,
                    }
                else:
                    act_title, fields = _meta_values(entry.meta)
            except (ValidationError, ImportFormatError) as error:
                new.report.errors.append(f"{entry.content[:60]!r}: {error_message(error)}")
                continue
            memory = Memory(
                owner=owner, content=content, content_hash=content_hash(content), **fields
            )
            new.add(memory, act=act_title)
        return new.save()


def import_folder(*, owner, path: Path) -> ImportReport:
    """Import a folder's ``MEMORY.md`` and ``memory/*.md``, or one Markdown file."""
    files, links = markdown_files(path)
    if not files:
        raise ImportFormatError(f"No MEMORY.md or memory/*.md under {path}.")
    report = import_entries(owner=owner, entries=read_markdown_folder(path))
    for link in links:
        report.notes.append(
            f"Skipped {link}: a symbolic link (only the folder's own files are read)."
        )
    return report


# --- Markdown out -----------------------------------------------------------------------------


def _quoted(text: str) -> str:
    # JSON string syntax keeps the comment on one line; ">" is escaped so no value can end it.
    return json.dumps(text, ensure_ascii=False).replace(">", "\\u003e")


def _meta_comment(memory: Memory) -> str:
    fields = [f"id={memory.pk}"]
    if not memory.act.is_your_story:
        fields.append(f"act={_quoted(memory.act.title)}")
    if memory.tags:
        fields.append(f"tags={_quoted(memory.tags)}")
    fields.append(f"source={memory.source}")
    if memory.score:
        fields.append(f"score={memory.score}")
    if memory.hit_count:
        fields.append(f"hits={memory.hit_count}")
    for key, name in _META_DATES.items():
        if (value := getattr(memory, name)) is not None:
            fields.append(f"{key}={value.isoformat()}")
    if memory.session:
        fields.append(f"session={_quoted(memory.session)}")
    return f"<!-- talkingrock {' '.join(fields)} -->"


def _markdown_item(memory: Memory) -> str:
    first, *rest = memory.content.splitlines() or [""]
    lines = [f"- {first}", *(f"  {line}" if line else "" for line in rest)]
    if rest and _FENCE.match(rest[-1]):
        lines.append(f"  {_meta_comment(memory)}")  # text after a closing fence would reopen it
    else:
        lines[-1] += f" {_meta_comment(memory)}"
    return "\n".join(lines)


def export_markdown(*, owner) -> str:
    """The member's confirmed memories, by act, the archived ones last. Drafts wait for their
    review and are not memories yet: they travel in the JSON export with their conversation."""
    memories = list(
        Memory.objects.filter(owner=owner, status=Memory.Status.CONFIRMED)
        .exclude(sharing.copies(owner))
        .select_related("act")
        .order_by("created_at", "id")
    )
    # The preamble is YAML front matter, which the importer skips: re-importing this file brings
    # back the memories only. (A "# title" heading would have become a tag on every one of them.)
    out = [
        "---",
        f"title: Talking Rock memories of {owner.get_username()}",
        f"exported: {timezone.now():%Y-%m-%d %H:%M} UTC",
        f"memories: {len(memories)}",
        "metadata: the comment closing each memory (act, tags, source, score, dates)",
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
