"""What a household shares (issue 25): a shared act some members are in, each shared memory, and
who changed what.

A shared act is held by each of its members as an act of their own (``Act.shared``), and each
shared memory as a row of their own (``Memory.share``): the sharer's original and one copy per
other member. Everything a member sees, searches and recalls stays a query on their own rows, so
the owner scoping, the member's keyword index and its statistics hold as they are. What one
member does with their copy (reinforcing it, the recall trail) stays theirs; what changes the
shared thing itself (a correction, a thread marked done) is written to every copy and logged
here with who made it (``memories/sharing.py``)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone

from talkingrock.fields import CleanCharField


class SharedAct(models.Model):
    """An act some members of the household share. Its members are the members holding an act
    row for it; it stays while any member is in it, whoever created it."""

    title = CleanCharField(max_length=200)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        ordering = ["title", "id"]

    def __str__(self) -> str:
        return self.title


class Share(models.Model):
    """One memory shared into a shared act, by whom and when. ``from_act`` is the sharer's act it
    came from, where taking it back returns it. A single item shared on its own travels in a
    memory made to carry it (``item``), which goes when it is taken back."""

    shared_act = models.ForeignKey(SharedAct, on_delete=models.CASCADE, related_name="shares")
    shared_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    # The sharer's name, kept when the sharer leaves the household: the others keep what was shared.
    sharer_name = CleanCharField(max_length=150)
    shared_at = models.DateTimeField(default=timezone.now)
    from_act = models.ForeignKey(
        "memories.Act", on_delete=models.SET_NULL, null=True, related_name="+"
    )
    item = models.ForeignKey(
        "memories.MemoryItem", on_delete=models.SET_NULL, null=True, related_name="+"
    )

    class Meta:
        ordering = ["shared_at", "id"]

    def __str__(self) -> str:
        return f"shared by {self.sharer_name} into {self.shared_act_id}"


class ShareChange(models.Model):
    """A change one member made to something shared: shared it, corrected it, closed or reopened
    one of its threads. Shown to everyone in the act beside the memory."""

    class What(models.TextChoices):
        SHARED = "shared", "shared it"
        CORRECTED = "corrected", "corrected it"
        CLOSED = "closed", "closed a thread"
        REOPENED = "reopened", "reopened a thread"

    share = models.ForeignKey(Share, on_delete=models.CASCADE, related_name="changes")
    by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    by_name = CleanCharField(max_length=150)
    what = models.CharField(max_length=16, choices=What.choices)
    # The words before a correction, or the thread that was closed or reopened.
    detail = CleanCharField(max_length=500, blank=True)
    at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["at", "id"]

    def __str__(self) -> str:
        return f"{self.by_name} {self.get_what_display()}"
