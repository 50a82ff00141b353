"""Reading imports back: a file or folder (``import_path``), a JSON export (``import_data``;
version 1 is restore_v1.py), and a version-2 backup restored into a member (``import_backup``)
in one transaction: every section's rows, then the references written once every row exists,
then observations, dreams and the passes' runs (with the vectors embedded again for them).

Nothing in a backup is trusted: ``backup_checks.checked`` checks every row before anything is
written, and a file that fails is refused whole, with a message saying where. Only a memory
whose text or tags the app would refuse today is skipped, with a report line; what pointed at it
then points at nothing.

Rows get new ids; every link is kept through the file's ids. What the member already has is not
doubled, and the file's links then point to their copy:

* a memory with the same text (or the first wording of one they corrected) is theirs already:
  links, narratives, hits and replies point to it; its items and deltas are not added (theirs
  stand, and a new delta that resolved one of them points to the matching item of theirs);
* an act with the same title, an entity with the same name, a conversation started at the same
  instant, a narrative written at the same instant with the same summary, a recall made at the
  same instant with the same query: the same row, reused as it is, its children not added;
* Your Story is the member's own; it takes the file's description and start only while empty.

At most one conversation is open per member. An open one in the file (with its drafts, if it
was waiting for review: compressing, stage ready) is restored when the member has none open;
otherwise it is imported archived, its drafts left out, and the report says so. Drafts are
never matched to confirmed memories: they belong to the review of their conversation.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.db import DataError, IntegrityError, models, transaction
from django.utils import timezone

from conversations.models import Classification, Conversation, Message
from conversations.services import findable, open_conversation, said_of
from household import backup, backup_checks, restore_shared
from household.restore_v1 import import_version_1
from memories import evidence, markdown, porting
from memories.acts import ensure_your_story
from memories.consolidation import sql
from memories.indexing import request_indexing
from memories.models import (
    ConsolidationRun,
    Dream,
    Entity,
    Memory,
    MemoryItem,
    MemoryLink,
    Mention,
    Observation,
    Recall,
    content_hash,
)
from narratives.models import Narrative, NarrativeMemory
from talkingrock import embeddings

ImportFormatError = porting.ImportFormatError
ImportReport = porting.ImportReport
Status, Stage = Conversation.Status, Conversation.Stage
INTERRUPTED = "The backup was taken during this compression: retry it, or resume the conversation."


# --- reading a file -----------------------------------------------------------------------------


def import_path(*, owner, path: Path) -> ImportReport:
    """Import a Markdown folder or file, or a JSON export (version 1 or 2)."""
    if not path.exists():
        raise ImportFormatError(f"{path} does not exist.")
    if path.is_file() and path.suffix.lower() == ".json":
        return import_data(owner=owner, data=porting.read_json(path))
    return markdown.import_folder(owner=owner, path=path)


def import_data(*, owner, data: Any) -> ImportReport:
    if not isinstance(data, dict) or data.get("format") != backup.FORMAT_NAME:
        raise ImportFormatError(
            f"Not a Talking Rock export (expected format {backup.FORMAT_NAME!r})."
        )
    if data.get("version") == 1:
        return import_version_1(owner=owner, data=data)
    if data.get("version") != backup.VERSION:
        raise ImportFormatError(f"Unsupported export version {data.get('version')!r:.20}.")
    return import_backup(owner=owner, data=data)


# --- writing ------------------------------------------------------------------------------------


def import_backup(*, owner, data: dict[str, Any]) -> ImportReport:
    """Restore a version-2 backup into ``owner``: all of it in one transaction, or nothing."""
    rows = backup_checks.checked(data)
    vectors = embed_consolidation(rows)  # before the transaction: the model is slow
    report = ImportReport()
    try:
        with transaction.atomic():
            Restore(owner, rows, report, vectors).run()
    except (IntegrityError, DataError) as error:  # a last guard: the checks should catch it
        raise ImportFormatError(f"The file does not fit with what you have: {error}.") from None
    return report


def _fields(section: str, row: dict[str, Any]) -> dict[str, Any]:
    return {name: row[name] for name in backup.BY_NAME[section].fields}


class Restore:
    """One restore: the file's ids → the ids here (None: not imported), and the rows created."""

    def __init__(
        self,
        owner,
        rows: dict[str, list[dict[str, Any]]],
        report: ImportReport,
        vectors: Vectors,
    ):
        self.owner, self.rows, self.report, self.vectors = owner, rows, report, vectors
        self.ids: dict[str, dict[int, int | None]] = {s.name: {} for s in backup.SECTIONS}
        self.fresh: dict[str, set[int]] = {s.name: set() for s in backup.SECTIONS}
        self.counts: dict[str, int] = {}
        self.reviewable: set[int] = set()  # conversations restored waiting for their review
        self.noted: set[int] = set()  # open conversations imported archived, and said so

    def to(self, section: str, export_id: int | None) -> int | None:
        return None if export_id is None else self.ids[section].get(export_id)

    def build(self, section: str, row: dict[str, Any], **overrides: Any) -> models.Model:
        """A new row: the file's fields, its references translated, the member as its owner."""
        spec = backup.BY_NAME[section]
        values = {f"{ref}_id": self.to(target, row[ref]) for ref, target in spec.refs.items()}
        if spec.owned:
            values["owner"] = self.owner
        return spec.model(**(values | _fields(section, row) | overrides))

    def restore(self, section: str, *, have=None, key=None, parent: str | None = None) -> None:
        """Create the section's rows, but not those whose ``key`` the member ``have`` (theirs
        stands in) nor those whose ``parent`` was not created now (theirs, or left out)."""
        spec = backup.BY_NAME[section]
        new = []
        for row in self.rows[section]:
            if parent is not None and row[parent] not in self.fresh[spec.refs[parent]]:
                continue
            if key is not None and (found := have.get(key(row))) is not None:
                self.ids[section][row["id"]] = found
                continue
            if any(
                spec.required(ref) and self.to(target, row[ref]) is None
                for ref, target in spec.refs.items()
            ):
                continue  # it points at a row not restored (what was said, without its message)
            new.append((row, self.build(section, row)))
        self.created(section, new)

    def created(self, section: str, new: list[tuple[dict[str, Any], models.Model]]) -> None:
        backup.BY_NAME[section].model.objects.bulk_create([obj for _, obj in new], batch_size=500)
        self.counts[section] = len(new)
        for row, obj in new:
            if backup.BY_NAME[section].has_ids:
                self.ids[section][row["id"]] = obj.pk
                self.fresh[section].add(row["id"])

    def pairs(self, section: str, first: str, second: str, have: set[tuple[int, int]]) -> None:
        """Mentions and links: two rows of the file may be one row here, so each pair once
        (and a memory is never linked to itself)."""
        refs = backup.BY_NAME[section].refs
        kept = []
        for row in self.rows[section]:
            pair = (self.to(refs[first], row[first]), self.to(refs[second], row[second]))
            if (
                None not in pair
                and pair not in have
                and (section != "links" or len(set(pair)) == 2)
            ):
                have.add(pair)
                kept.append(row)
        self.rows[section] = kept
        self.restore(section)

    def run(self) -> None:
        owner = self.owner
        restore_shared.shared_acts(self)
        self.acts()
        restore_shared.shares(self)
        self.conversations()
        self.messages()
        self.narratives()
        self.memories()
        restore_shared.after_memories(self)
        self.narrative_links()
        restore_shared.item_keys(self)
        self.items()
        self.restore("deltas", parent="memory")
        have = dict(Entity.objects.filter(owner=owner).values_list("normalized", "pk"))
        self.restore("entities", have=have, key=lambda row: row["normalized"])
        mentions = Mention.objects.filter(entity__owner=owner, memory__owner=owner)
        self.pairs("mentions", "entity", "memory", set(mentions.values_list("entity", "memory")))
        links = MemoryLink.objects.filter(owner=owner).values_list("memory", "related")
        self.pairs("links", "memory", "related", set(links))
        fields = ("created_at", "purpose", "query")
        have = {
            tuple(key): pk
            for pk, *key in Recall.objects.filter(owner=owner).values_list("pk", *fields)
        }
        self.restore("recalls", have=have, key=lambda row: tuple(row[name] for name in fields))
        self.restore("hits", parent="recall")
        readings(self)
        consolidation(self, self.vectors)
        replies(self)
        self_references(self)
        self.report.created = self.counts.pop("memories")
        self.report.restored = self.counts
        if self.report.created:
            request_indexing(owner_id=owner.pk)  # vectors, and the mentions recomputed

    def acts(self) -> None:
        your_story = ensure_your_story(owner=self.owner)
        story = next((row for row in self.rows["acts"] if row["is_your_story"]), None)
        if story and not your_story.memories.exists():  # a fresh member: the file's, as it was
            your_story.description, your_story.created_at = (
                story["description"],
                story["created_at"],
            )
            your_story.save(update_fields=["description", "created_at"])
        # Newest first, so the oldest act of a title wins (as in version 1); a place in a shared
        # act is matched among the member's places only.
        have = restore_shared.have_acts(self.owner)
        have[True, "", False] = your_story.pk
        self.restore("acts", have=have, key=restore_shared.act_key)

    def conversations(self) -> None:
        have = dict(Conversation.objects.filter(owner=self.owner).values_list("started_at", "pk"))
        slot_free = open_conversation(self.owner) is None
        drafts = Counter(
            row["conversation"]
            for row in self.rows["memories"]
            if row["status"] == Memory.Status.DRAFT and "refused" not in row
        )
        following = Counter()  # the count is where the next message goes: past the last one
        for message in self.rows["messages"]:
            following[message["conversation"]] = max(
                following[message["conversation"]], message["position"] + 1
            )
        for row in self.rows["conversations"]:
            row["message_count"] = max(row["message_count"], following[row["id"]])
            if row["started_at"] in have or row["status"] == Status.ARCHIVED:
                continue
            if slot_free:
                slot_free = False
                if row["status"] == Status.COMPRESSING:  # its drafts wait for the member's review
                    self.reviewable.add(row["id"])
                    ready = drafts[row["id"]] > 0
                    row["compression_stage"] = Stage.READY if ready else Stage.FAILED
                    row["compression_error"] = "" if ready else INTERRUPTED
                continue
            row.update(status=Status.ARCHIVED, compression_stage="")
            row["archived_at"] = row["archived_at"] or timezone.now()
            note = f"The conversation started {row['started_at']:%Y-%m-%d %H:%M} was open, and "
            note += "you have one open already: it was imported archived"
            if drafts[row["id"]]:
                note += f", without the {drafts[row['id']]} draft memories waiting for review"
            self.report.notes.append(note + ".")
            self.noted.add(row["id"])
        self.restore("conversations", have=have, key=lambda row: row["started_at"])

    def messages(self) -> None:
        # A conversation the member has already keeps its messages; the file's messages name
        # theirs by position (a recall may point at one).
        theirs = Message.objects.filter(conversation__owner=self.owner)
        at = {tuple(key): pk for pk, *key in theirs.values_list("pk", "conversation", "position")}
        for row in self.rows["messages"]:
            conversation = self.to("conversations", row["conversation"])
            self.ids["messages"][row["id"]] = at.get((conversation, row["position"]))
        self.restore("messages", parent="conversation")
        # What was said stays findable: the restored transcripts join the member's indexes.
        fresh = [self.ids["messages"][row["id"]] for row in self.rows["messages"]]
        restored = Message.objects.filter(pk__in=[pk for pk in fresh if pk is not None]).order_by(
            "pk"
        )
        evidence.record_many(owner=self.owner, said=[said_of(m) for m in restored if findable(m)])

    def narratives(self) -> None:
        """One at a time, in chain order: what a narrative continues exists when it is written."""
        theirs = Narrative.objects.filter(owner=self.owner)
        have = {tuple(key): pk for pk, *key in theirs.values_list("pk", "created_at", "summary")}
        for row in self.rows["narratives"]:
            key = (row["created_at"], row["summary"])
            if key not in have:
                narrative = self.build("narratives", row)
                narrative.save()
                have[key] = narrative.pk
                self.fresh["narratives"].add(row["id"])
            self.ids["narratives"][row["id"]] = have[key]
        self.counts["narratives"] = len(self.fresh["narratives"])

    def memories(self) -> None:
        known: dict[str, Any] = porting.existing_hashes(self.owner)  # digest → id, or new row
        your_story = ensure_your_story(owner=self.owner).pk
        new, same, left_out = [], [], 0
        # Drafts of a conversation imported archived were counted in its note; those of a
        # conversation the member has already are theirs, as they stand.
        explained = self.noted | (set(self.ids["conversations"]) - self.fresh["conversations"])
        said = dict(
            Memory.everything.filter(
                owner=self.owner, kind__in=Memory.EVIDENCE, message__isnull=False
            ).values_list("message_id", "pk")
        )
        for row in self.rows["memories"]:
            if row["kind"] in Memory.EVIDENCE:
                # What was said is the evidence of its message as restored, made again.
                self.ids["memories"][row["id"]] = said.get(self.to("messages", row["message"]))
                continue
            if "refused" in row:
                self.report.errors.append(f"{row['where']}: {row['refused']}")
                continue
            draft = row["status"] == Memory.Status.DRAFT
            if draft and row["conversation"] not in self.reviewable:
                left_out += row["conversation"] not in explained
                continue
            digest = content_hash(row["content"])
            if not draft and digest in known:
                same.append((row["id"], known[digest]))
                continue
            # content_hash is given: bulk_create skips save(), which sets it otherwise.
            memory = self.build("memories", row, content_hash=digest)
            memory.act_id = memory.act_id or your_story
            new.append((row, memory))
            if not draft:  # drafts belong to their review, never to a confirmed memory
                known[digest] = memory
        self.created("memories", new)
        for export_id, target in same:
            self.ids["memories"][export_id] = getattr(target, "pk", target)
        self.report.skipped = len(same)
        if left_out:
            self.report.notes.append(
                f"{left_out} draft memories were left out: their conversation is not waiting "
                "for their review here."
            )

    def narrative_links(self) -> None:
        new = []
        for row in self.rows["narratives"]:
            if row["id"] in self.fresh["narratives"]:
                targets = dict.fromkeys(self.to("memories", m) for m in row["memories"])
                kept = [memory for memory in targets if memory is not None]
                narrative = self.ids["narratives"][row["id"]]
                new += [
                    NarrativeMemory(narrative_id=narrative, memory_id=memory, position=position)
                    for position, memory in enumerate(kept)
                ]
        NarrativeMemory.objects.bulk_create(new, batch_size=500)

    def items(self) -> None:
        # The items of a memory the member has already stay theirs; a new delta that resolved
        # one of the file's points to their item of the same type and data.
        theirs = MemoryItem.objects.filter(memory__owner=self.owner)
        at = {
            (memory, kind, json.dumps(data, sort_keys=True)): pk
            for pk, memory, kind, data in theirs.values_list("pk", "memory", "type", "data")
        }
        for row in self.rows["items"]:
            key = (
                self.to("memories", row["memory"]),
                row["type"],
                json.dumps(row["data"], sort_keys=True),
            )
            self.ids["items"][row["id"]] = at.get(key)
        self.restore("items", parent="memory")


# --- What is written once every row exists ---------------------------------------------------
# What a restore writes once every row exists (restore.py calls these last, inside its
# transaction): references between rows of one section (what replaced a fact, what an observation
# was merged into), the ids inside a reading's JSON, and what a reply points to among messages and
# recalls. Each takes the restore under way, whose ``to`` turns the file's ids into the ids here.


def self_references(restoring: Restore) -> None:
    """A fact's memory and what replaced a decision or fact: rows of the same section,
    pointed to once all of them exist."""
    for section, refs in backup.SELF_REFS.items():
        model = backup.BY_NAME[section].model
        changed = []
        for row in restoring.rows[section]:
            if row.get("id") not in restoring.fresh[section]:
                continue
            values = {f"{ref}_id": restoring.to(section, row.get(ref)) for ref in refs}
            if any(value is not None for value in values.values()):
                changed.append(model(pk=restoring.ids[section][row["id"]], **values))
        model.objects.bulk_update(changed, list(refs), batch_size=500)


def readings(restoring: Restore) -> None:
    """Classifications, with the ids inside their JSON made the ids here (a reading the
    member already has, by when and what, is theirs: restored once)."""
    mine = Classification.objects.filter(owner=restoring.owner)
    have = {(when, text): pk for pk, when, text in mine.values_list("pk", "created_at", "request")}
    for row in restoring.rows["classifications"]:
        trails = row["trails"] if isinstance(row["trails"], dict) else {}
        row["trails"] = {
            k: restoring.to("recalls", v) for k, v in trails.items() if _known(restoring, v)
        }
        for step in row["steps"] if isinstance(row["steps"], list) else []:
            if isinstance(step, dict):
                step["memory_ids"] = _memories(restoring, step.get("memory_ids"))
        check = row["verification"] if isinstance(row["verification"], dict) else {}
        for key in ("supporting_memories", "conflicting_memories"):
            if key in check:
                check[key] = _memories(restoring, check[key])
    restoring.restore("classifications", have=have, key=lambda r: (r["created_at"], r["request"]))


def _known(restoring: Restore, recall_id) -> bool:
    return isinstance(recall_id, int) and restoring.to("recalls", recall_id) is not None


def _memories(restoring: Restore, ids) -> list[int]:
    ids = ids if isinstance(ids, list) else []
    return [pk for pk in (restoring.to("memories", i) for i in ids if isinstance(i, int)) if pk]


def replies(restoring: Restore) -> None:
    """What a message points to among messages and recalls, by the ids here: written last,
    when every message and recall exists (a recall names its message, and a reply its
    recalls and the message it answers)."""
    changed = []
    for row in restoring.rows["messages"]:
        if row["id"] in restoring.fresh["messages"]:
            used = row["memories_used"]  # the checked copy, the file's ids made the ids here
            for entry in used:
                for key, section in backup.USED_REFS:
                    if key in entry:
                        entry[key] = restoring.to(section, entry[key])
            reply_to = restoring.to("messages", row["reply_to"])
            recall = restoring.to("recalls", row.get("recall"))
            pk = restoring.ids["messages"][row["id"]]
            changed.append(
                Message(pk=pk, memories_used=used, reply_to_id=reply_to, recall_id=recall)
            )
    Message.objects.bulk_update(changed, ["memories_used", "reply_to", "recall"], batch_size=500)


# --- Consolidation's rows ----------------------------------------------------------------------
# Consolidation's rows in a restore (restore.py calls ``restore`` inside its transaction, after
# the memories and entities): observations with the facts they rest on, their history with the
# facts behind each change, dreams with both groups of facts, and the record of the passes. What
# the member has already is not doubled: an observation made at the same instant of the same
# kind, subject and relation, a dream made at the same instant with the same text, a run of the
# same pass started at the same instant are theirs, and their facts and history stand.
#
# Vectors: the file holds none (no backup does: they are derived, as a memory's are). An
# observation's and a dream's vector is embedded again from its text by ``embed``, before the
# transaction opens (embedding inside it would hold SQLite's one write lock while the model runs,
# TECH_NOTES §4), and written with the rows, so what is restored is found by meaning the moment
# the restore commits. The same model gives the same vector for the same text, so nothing is lost
# against copying them; the file stays readable JSON, a tenth of the size, and never carries a
# vector of another model into this database.


# The section whose rows have a vector, and the vector table's name for them.
EMBEDDED = {"observations": "observation", "dreams": "dream"}


@dataclass
class Vectors:
    """Each text's vector, as stored: {section: {text: float32 blob}}."""

    by_text: dict[str, dict[str, bytes]] = field(default_factory=dict)


def embed_consolidation(rows: dict[str, list[dict[str, Any]]]) -> Vectors:
    """The vectors of the file's observations and dreams, each distinct text once, in batches."""
    vectors = Vectors()
    for section in EMBEDDED:
        texts = list(dict.fromkeys(row["text"] for row in rows[section]))
        found = embeddings.embed(texts) if texts else []
        vectors.by_text[section] = {
            text: embeddings.to_blob(vector) for text, vector in zip(texts, found, strict=True)
        }
    return vectors


def consolidation(restoring: Restore, vectors: Vectors) -> None:
    owner = restoring.owner
    theirs = Observation.objects.filter(owner=owner)
    fields = ("created_at", "kind", "subject", "relation")
    have = {tuple(key): pk for pk, *key in theirs.values_list("pk", *fields)}
    restoring.restore(
        "observations", have=have, key=lambda row: tuple(row[name] for name in fields)
    )
    restoring.restore("observation_changes", parent="observation")
    dreams = Dream.objects.filter(owner=owner).values_list("pk", "created_at", "text")
    have = {(when, text): pk for pk, when, text in dreams}
    restoring.restore("dreams", have=have, key=lambda row: (row["created_at"], row["text"]))
    runs = ConsolidationRun.objects.filter(owner=owner).values_list("pk", "kind", "started_at")
    have = {(kind, when): pk for pk, kind, when in runs}
    restoring.restore(
        "consolidation_runs", have=have, key=lambda row: (row["kind"], row["started_at"])
    )
    _consolidation_facts(restoring)
    _consolidation_vectors(restoring, vectors)


def _consolidation_facts(restoring: Restore) -> None:
    """The many-to-many lists of the rows created now, by the ids here (two of the file's
    memories may be one memory here: each pair once)."""
    for section, names in backup.MANY.items():
        for name in names:
            table, column, memory = backup.through(section, name)
            pairs = dict.fromkeys(
                (restoring.ids[section][row["id"]], restoring.to("memories", export_id))
                for row in restoring.rows[section]
                if row["id"] in restoring.fresh[section]
                for export_id in row[name]
            )
            table.objects.bulk_create(
                [table(**{column: pk, memory: fact}) for pk, fact in pairs if fact is not None],
                batch_size=500,
            )


def _consolidation_vectors(restoring: Restore, vectors: Vectors) -> None:
    for section, kind in EMBEDDED.items():
        blobs = vectors.by_text[section]
        sql.replace_vectors(
            kind,
            [
                (restoring.ids[section][row["id"]], restoring.owner.pk, blobs[row["text"]])
                for row in restoring.rows[section]
                if row["id"] in restoring.fresh[section]
            ],
        )
