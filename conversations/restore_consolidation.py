"""Consolidation's rows in a restore (restore.py calls ``restore`` inside its transaction, after
the memories and entities): observations with the facts they rest on, their history with the
facts behind each change, dreams with both groups of facts, and the record of the passes. What
the member has already is not doubled: an observation made at the same instant of the same
kind, subject and relation, a dream made at the same instant with the same text, a run of the
same pass started at the same instant are theirs, and their facts and history stand.

Vectors: the file holds none (no backup does: they are derived, as a memory's are). An
observation's and a dream's vector is embedded again from its text by ``embed``, before the
transaction opens (embedding inside it would hold SQLite's one write lock while the model runs,
TECH_NOTES §4), and written with the rows, so what is restored is found by meaning the moment
the restore commits. The same model gives the same vector for the same text, so nothing is lost
against copying them; the file stays readable JSON, a tenth of the size, and never carries a
vector of another model into this database."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from conversations import backup
from memories.consolidation import sql
from memories.models import ConsolidationRun, Dream, Observation
from talkingrock import embeddings

if TYPE_CHECKING:
    from conversations.restore import Restore

# The section whose rows have a vector, and the vector table's name for them.
EMBEDDED = {"observations": "observation", "dreams": "dream"}


@dataclass
class Vectors:
    """Each text's vector, as stored: {section: {text: float32 blob}}."""

    by_text: dict[str, dict[str, bytes]] = field(default_factory=dict)


def embed(rows: dict[str, list[dict[str, Any]]]) -> Vectors:
    """The vectors of the file's observations and dreams, each distinct text once, in batches."""
    vectors = Vectors()
    for section in EMBEDDED:
        texts = list(dict.fromkeys(row["text"] for row in rows[section]))
        found = embeddings.embed(texts) if texts else []
        vectors.by_text[section] = {
            text: embeddings.to_blob(vector) for text, vector in zip(texts, found, strict=True)
        }
    return vectors


def restore(restoring: Restore, vectors: Vectors) -> None:
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
    _facts(restoring)
    _vectors(restoring, vectors)


def _facts(restoring: Restore) -> None:
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


def _vectors(restoring: Restore, vectors: Vectors) -> None:
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
