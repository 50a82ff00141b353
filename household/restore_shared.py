"""What a restore does with what was shared (issue 25), as steps restore.py runs inside its
transaction, each taking the restore under way.

A file holds the member's places in shared acts, the memories they shared there, and who
changed those and how; never the copies of what others shared. It is restored into the member
alone: a shared act comes back as a shared act with only the member in it (the file's list of
members is a record), unless they are in a shared act of that title here already, which it then
joins. Nothing of another member's is written but, in a shared act they are in, the copy of a
memory the member shares there, as sharing it by hand would. The threads' sharing keys are made
anew, so a restored thread is never the twin of anyone's thread here.

Each step takes ``restoring``, the ``restore.Restore`` under way (not imported here: restore.py
imports this module)."""

from __future__ import annotations

import uuid

from memories import sharing
from memories.models import Act, Share


def shared_acts(restoring) -> None:
    """The member's places here by title stand in for the file's shared acts of that title."""
    places = Act.objects.filter(owner=restoring.owner, shared__isnull=False)
    have = {title: shared for shared, title in places.values_list("shared", "title")}
    restoring.restore("shared_acts", have=have, key=lambda row: row["title"])


def act_key(row) -> tuple:
    """Which of the member's acts a file's act is: Your Story; a place in a shared act; an act
    of that title."""
    if row["is_your_story"]:
        return (True, "", False)
    return (False, row["title"], row["shared"] is not None)


def have_acts(owner) -> dict[tuple, int]:
    """The member's acts by ``act_key`` (the oldest of a title wins)."""
    theirs = Act.objects.filter(owner=owner, is_your_story=False).order_by("-created_at", "-id")
    return {
        (False, title, shared is not None): pk
        for pk, title, shared in theirs.values_list("pk", "title", "shared")
    }


def shares(restoring) -> None:
    """The member's shares, theirs again: shared by them (under the name they had)."""
    new = []
    for row in restoring.rows["shares"]:
        if restoring.to("shared_acts", row["shared_act"]) is not None:
            new.append((row, restoring.build("shares", row, shared_by=restoring.owner)))
    restoring.created("shares", new)


def item_keys(restoring) -> None:
    """A thread's sharing key, made anew for each key of the file (the same within it)."""
    fresh: dict[str, uuid.UUID] = {}
    for row in restoring.rows["items"]:
        if row.get("share_key"):
            row["share_key"] = fresh.setdefault(str(row["share_key"]), uuid.uuid4())


def after_memories(restoring) -> None:
    """A share whose memory was the member's already (theirs stands) is not kept; a kept one
    reaches everyone in its act; then who changed what, for the shares kept."""
    created = [restoring.ids["shares"][export_id] for export_id in restoring.fresh["shares"]]
    empty = set(
        Share.objects.filter(pk__in=created, rows__isnull=True).values_list("pk", flat=True)
    )
    Share.objects.filter(pk__in=empty).delete()
    for export_id in list(restoring.fresh["shares"]):
        if restoring.ids["shares"][export_id] in empty:
            restoring.fresh["shares"].discard(export_id)
            restoring.ids["shares"][export_id] = None
    restoring.counts["shares"] = len(restoring.fresh["shares"])
    for share in Share.objects.filter(pk__in=set(created) - empty).select_related("shared_act"):
        sharing.spread(share)
    restoring.restore("share_changes", parent="share")
