"""What a restore writes once every row exists (restore.py calls these last, inside its
transaction): references between rows of one section (what replaced a fact, what an observation
was merged into), the ids inside a reading's JSON, and what a reply points to among messages and
recalls. Each takes the restore under way, whose ``to`` turns the file's ids into the ids here."""

from __future__ import annotations

from typing import TYPE_CHECKING

from conversations import backup
from conversations.models import Classification, Message

if TYPE_CHECKING:
    from conversations.restore import Restore


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
