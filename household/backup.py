"""A member's backup: everything they own as one JSON file (format version 2), and the export
both the ``memories`` command and the Settings downloads call. Reading one back is
backup_checks.py (every row checked against this layout) and restore.py (the writing).

The file is a dump by section, every row with the export's own ``id`` (the row's id at export)
and every cross-reference by those ids::

    {"format": "talkingrock.memories", "version": 2, "member": "alice", "exported_at": "…",
     "shared_acts": [{"id", "title", "created_at", "members": [names, a record]}],
     "acts": [{"id", "title", "description", "status", "is_your_story", "created_at",
               "shared": the shared act it is the member's place in, or null}],
     "shares": [{"id", "shared_act", "sharer_name", "shared_at", "from_act"}],
     "share_changes": [{"id", "share", "by_name", "what", "detail", "at"}],
     "conversations": [{"id", "status", "act", "started_at", … every lifecycle field}],
     "messages": [{"id", "conversation", "role", "content", "position", "created_at", "engine",
                   "reply_to", "memories_used": [{"id": memory, "recall": recall, "why"}]}],
     "narratives": [{"id", "summary", "topic", "previous", "starts_topic", "conversation",
                     "engine", "created_at", "memories": [memory ids, in order]}],
     "memories": [{"id", "content", … every field, "act", "conversation", "narrative"}],
     "items": [{"id", "memory", "type", "data", "is_active", "resolved_by", …}],
     "deltas": [{"id", "memory", "item", "type", "data", "accepted", "applied", …}],
     "entities": [{"id", "name", "normalized", "kind", "created_at"}],
     "mentions": [{"entity", "memory", "surface"}],
     "links": [{"memory", "related", "strength", "updated_at"}],
     "recalls": [{"id", "query", "purpose", "conversation", "message", "parameters", …}],
     "hits": [{"recall", "memory", "rank", "score", "components", "influence"}],
     "classifications": [{"id", "message", "recall", "request", … every field}],
     "observations": [{"id", "text", "kind", "entity", "merged_into", … every field,
                       "facts": [memory ids]}],
     "observation_changes": [{"id", "observation", "kind", "previous_text", "new_text",
                              "reason", "changed_at", "happened_at", "facts": [memory ids]}],
     "dreams": [{"id", "text", "reason", "score", … every field,
                 "facts_a": [memory ids], "facts_b": [memory ids]}],
     "consolidation_runs": [{"id", "kind", "started_at", "finished_at", "engine", "summary",
                             "error"}]}

What was shared (issue 25): the member's own memories shared into a shared act travel with who
changed them and how; their copies of what others shared do not (those are the others' words),
nor does a thread shared on its own (its thread travels as a thread of its memory).

Left out: API tokens (secrets), vectors and the vector clock, content hashes (indexing
recomputes them; an observation's and a dream's vector is embedded again from its text on
restore), and which process ran a compression. Drafts travel only with their
conversation: a draft without one could never be reviewed. A reference to a row that is not
exported is written as null, so a file never points outside itself; ids inside text and
explanations (a reply's "[id:7]", a hit's ``components`` and ``influence``) stay as written, the
file's ids. Rows are listed in id order, which keeps their relative order through a restore.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from uuid import UUID

from django.db.models import Model, Q, QuerySet
from django.utils import timezone

from conversations.models import Classification, Conversation, Message
from memories import markdown, sharing
from memories.models import (
    Act,
    ConsolidationRun,
    Dream,
    Entity,
    Memory,
    MemoryItem,
    MemoryLink,
    Mention,
    Observation,
    ObservationChange,
    Recall,
    RecallHit,
    Share,
    ShareChange,
    SharedAct,
    StateDelta,
)
from narratives.models import Narrative, NarrativeMemory

EXPORT_FORMATS = ("json", "markdown")
FORMAT_NAME = "talkingrock.memories"
VERSION = 2


@dataclass(frozen=True)
class Section:
    """One list of the file: its rows' model, plain fields and references."""

    name: str
    model: type[Model]
    label: str  # one row, in messages: "memory 12"
    refs: dict[str, str] = field(default_factory=dict)  # reference → the section it names

    @property
    def fields(self) -> tuple[str, ...]:
        """Every plain field of the model, but those LEFT_OUT: a field added later is in."""
        return tuple(
            f.name
            for f in self.model._meta.concrete_fields
            if not f.is_relation and f.name not in LEFT_OUT
        )

    @property
    def owned(self) -> bool:
        return any(field.name == "owner" for field in self.model._meta.fields)

    @property
    def has_ids(self) -> bool:
        """Rows other rows point to carry an id; mentions, links and hits need none."""
        return self.name not in ("mentions", "links", "hits")

    def required(self, ref: str) -> bool:
        """A row cannot be without this reference (a memory without an act is in Your Story)."""
        return not self.model._meta.get_field(ref).null and (self.name, ref) != ("memories", "act")


# Not in the file: ids (the file has its own), what is recomputed (hashes, vectors), which
# process ran a compression (meaningless anywhere else), and memories_used, which is written
# apart because the ids inside it are the file's.
LEFT_OUT = {
    "id",
    "content_hash",
    "indexed_hash",
    "vector_tick",
    "compression_worker",
    "memories_used",
}

SECTIONS = (
    Section("shared_acts", SharedAct, "shared act"),
    Section("acts", Act, "act", {"shared": "shared_acts"}),
    Section("shares", Share, "share", {"shared_act": "shared_acts", "from_act": "acts"}),
    Section("share_changes", ShareChange, "share change", {"share": "shares"}),
    Section("conversations", Conversation, "conversation", {"act": "acts"}),
    Section(
        "messages",
        Message,
        "message",
        {"conversation": "conversations", "reply_to": "messages"},
    ),
    Section(
        "narratives",
        Narrative,
        "narrative",
        {"previous": "narratives", "conversation": "conversations"},
    ),
    Section(
        "memories",
        Memory,
        "memory",
        {
            "act": "acts",
            "conversation": "conversations",
            "narrative": "narratives",
            "derived_from": "memories",
            "superseded_by": "memories",
            # What was said (kinds "said" and "reply") is a row of the memories section too, so
            # that what points at it (a recall's hits, a reply's memories) points somewhere; on
            # restore it is the evidence of its restored message, made again, never a copy.
            "message": "messages",
            "share": "shares",
        },
    ),
    Section(
        "items",
        MemoryItem,
        "item",
        {"memory": "memories", "resolved_by": "memories", "superseded_by": "items"},
    ),
    Section(
        "deltas",
        StateDelta,
        "state delta",
        {
            "memory": "memories",
            "item": "items",
            "old_fact": "memories",
            "new_item": "items",
            "new_fact": "memories",
        },
    ),
    Section("entities", Entity, "entity"),
    Section("mentions", Mention, "mention", {"entity": "entities", "memory": "memories"}),
    Section("links", MemoryLink, "memory link", {"memory": "memories", "related": "memories"}),
    Section(
        "recalls",
        Recall,
        "recall",
        {"conversation": "conversations", "message": "messages"},
    ),
    Section("hits", RecallHit, "recall hit", {"recall": "recalls", "memory": "memories"}),
    Section(
        "classifications",
        Classification,
        "classification",
        {"message": "messages", "recall": "recalls", "corrected_by": "memories"},
    ),
    Section(
        "observations",
        Observation,
        "observation",
        {"entity": "entities", "merged_into": "observations"},
    ),
    Section(
        "observation_changes",
        ObservationChange,
        "observation change",
        {"observation": "observations"},
    ),
    Section("dreams", Dream, "dream"),
    Section("consolidation_runs", ConsolidationRun, "consolidation run"),
)
BY_NAME = {section.name: section for section in SECTIONS}
# References a file does not carry as ids: to members (named by a plain field beside them, since a
# file is restored into one member), and a share's thread (only memories are shared in a file).
NOT_REFS = {
    "shared_acts": ("created_by",),
    "shares": ("shared_by", "item"),
    "share_changes": ("by",),
}
# References from a section to itself, written once every row of the section exists.
SELF_REFS = {
    "memories": ("derived_from", "superseded_by"),
    "items": ("superseded_by",),
    "observations": ("merged_into",),
}
# Many-to-many lists of memories, each a list of the file's memory ids: the facts an observation
# rests on, those behind each change of it, and a dream's two groups.
MANY = {
    "observations": ("facts",),
    "observation_changes": ("facts",),
    "dreams": ("facts_a", "facts_b"),
}
# The ids in a reply's memories_used, and the section each names.
USED_REFS = (("id", "memories"), ("recall", "recalls"))
# References to a later section, written apart once every row exists: the recall a reply was
# made from (a recall names its message, so recalls come after messages).
LATER_REFS = {"messages": {"recall": "recalls"}}
# Ids inside a classification's JSON: its later stages' trails, the memories its steps and its
# check name (translated on restore; one the file does not hold is dropped).
READING_REFS = {"trails": "recalls", "steps": "memories", "verification": "memories"}


# --- out --------------------------------------------------------------------------------------


def _owned(owner) -> dict[str, QuerySet]:
    """Each section's rows: the member's, and only theirs, whichever way a row is reached."""
    drafts_with_their_conversation = Q(status=Memory.Status.CONFIRMED) | Q(
        conversation__owner=owner
    )
    shares = Share.objects.filter(shared_by=owner, item=None)
    return {
        "shared_acts": SharedAct.objects.filter(acts__owner=owner),
        "acts": Act.objects.filter(owner=owner),
        "shares": shares,
        "share_changes": ShareChange.objects.filter(share__in=shares),
        "conversations": Conversation.objects.filter(owner=owner),
        "messages": Message.objects.filter(conversation__owner=owner),
        "narratives": Narrative.objects.filter(owner=owner),
        "memories": Memory.everything.filter(drafts_with_their_conversation, owner=owner).exclude(
            sharing.copies(owner)
        ),
        "items": MemoryItem.objects.filter(memory__owner=owner),
        "deltas": StateDelta.objects.filter(memory__owner=owner),
        "entities": Entity.objects.filter(owner=owner),
        "mentions": Mention.objects.filter(entity__owner=owner, memory__owner=owner),
        "links": MemoryLink.objects.filter(owner=owner, memory__owner=owner, related__owner=owner),
        "recalls": Recall.objects.filter(owner=owner),
        "hits": RecallHit.objects.filter(recall__owner=owner),
        "classifications": Classification.objects.filter(owner=owner),
        "observations": Observation.objects.filter(owner=owner),
        "observation_changes": ObservationChange.objects.filter(observation__owner=owner),
        "dreams": Dream.objects.filter(owner=owner),
        "consolidation_runs": ConsolidationRun.objects.filter(owner=owner),
    }


def _plain(value: Any) -> Any:
    if isinstance(value, UUID):
        return str(value)
    return value.isoformat() if isinstance(value, datetime) else value


def export_backup(*, owner) -> dict[str, Any]:
    """Everything ``owner`` owns, every reference by the file's own ids."""
    data: dict[str, Any] = {
        "format": FORMAT_NAME,
        "version": VERSION,
        "member": owner.get_username(),
        "exported_at": timezone.now().isoformat(),
    }
    owned = _owned(owner)
    ids: dict[str, set[int]] = {}
    for section in SECTIONS:  # references point to earlier sections (or the section itself)
        if section.name in section.refs.values():
            ids[section.name] = set(owned[section.name].values_list("pk", flat=True))
        rows = []
        columns = ["id", *section.fields, *section.refs]
        for row in owned[section.name].order_by("pk").values(*columns):
            known = {ref: row[ref] in ids[target] for ref, target in section.refs.items()}
            if any(section.required(ref) and not known[ref] for ref in section.refs):
                continue  # it belongs to a row left out (a draft without its conversation)
            for ref in section.refs:
                row[ref] = row[ref] if known[ref] else None
            if not section.has_ids:
                del row["id"]
            rows.append({name: _plain(value) for name, value in row.items()})
        ids[section.name] = {row["id"] for row in rows if "id" in row}
        data[section.name] = rows
    _add_narrative_memories(data, owner, ids["memories"])
    _add_memories_used(data, owned["messages"], ids)
    _add_many(data, owned, ids["memories"])
    _add_members(data)
    return data


def _add_members(data: dict[str, Any]) -> None:
    """Who was in each shared act at export, by name: a record; a restore shares with no one."""
    for row in data["shared_acts"]:
        row["members"] = [
            sharing.name_of(member)
            for member in sharing.members_of(SharedAct.objects.get(pk=row["id"]))
        ]


def through(section: str, name: str) -> tuple[type[Model], str, str]:
    """A many-to-many list's own table, and its columns for the row and for the memory."""
    relation = BY_NAME[section].model._meta.get_field(name)
    return (
        relation.remote_field.through,
        relation.m2m_column_name(),
        relation.m2m_reverse_name(),
    )


def _add_many(data: dict[str, Any], owned: dict[str, QuerySet], memory_ids: set[int]) -> None:
    for section, names in MANY.items():
        rows = {row["id"]: row for row in data[section]}
        for name in names:
            table, column, memory = through(section, name)
            mine = {f"{column}__in": owned[section].values("pk")}  # a subquery: any number
            pairs = table.objects.filter(**mine).order_by(column, memory)
            for row in rows.values():
                row[name] = []
            for row_id, memory_id in pairs.values_list(column, memory):
                if memory_id in memory_ids and row_id in rows:
                    rows[row_id][name].append(memory_id)


def _add_narrative_memories(data: dict[str, Any], owner, memory_ids: set[int]) -> None:
    linked: dict[int, list[int]] = {}
    rows = NarrativeMemory.objects.filter(narrative__owner=owner).order_by("narrative", "position")
    for narrative_id, memory_id in rows.values_list("narrative_id", "memory_id"):
        if memory_id in memory_ids:
            linked.setdefault(narrative_id, []).append(memory_id)
    for row in data["narratives"]:
        row["memories"] = linked.get(row["id"], [])


def _add_memories_used(data: dict[str, Any], messages: QuerySet, ids) -> None:
    used = dict(messages.values_list("pk", "memories_used"))
    made_from = dict(messages.values_list("pk", "recall"))
    for row in data["messages"]:
        recall = made_from[row["id"]]
        row["recall"] = recall if recall in ids["recalls"] else None
        row["memories_used"] = [
            entry
            | {
                key: entry[key] if entry[key] in ids[target] else None
                for key, target in USED_REFS
                if key in entry
            }
            for entry in used[row["id"]] or []
            if isinstance(entry, dict)
        ]


def export_memories(*, owner, fmt: str) -> tuple[str, str, str]:
    """The member's export as (body, content type, file extension): JSON is everything they
    own (restorable), Markdown their memories to read."""
    if fmt == "json":
        body = json.dumps(export_backup(owner=owner), indent=2, ensure_ascii=False)
        return body + "\n", "application/json", "json"
    if fmt == "markdown":
        return markdown.export_markdown(owner=owner), "text/markdown; charset=utf-8", "md"
    raise ValueError(f"Unknown export format {fmt!r}; use one of {', '.join(EXPORT_FORMATS)}.")
