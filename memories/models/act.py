"""Acts: the projects and chapters of a member's life that memories are kept in, and the one
permanent act every member has, Your Story. They sit with the memories (not with the
conversations that route into them) so that a memory never reaches up a layer for its act."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone

from talkingrock.fields import CleanCharField, CleanTextField


class Act(models.Model):
    """A project or chapter of life; every member has one permanent "Your Story" act."""

    class Status(models.TextChoices):
        ACTIVE = "active"
        ARCHIVED = "archived"

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="acts"
    )
    title = CleanCharField(max_length=200)
    description = CleanTextField(blank=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.ACTIVE)
    is_your_story = models.BooleanField(default=False, editable=False)
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    # This member's place in a shared act (memories/models/sharing.py): its memories are the
    # ones shared into it, the member's own and their copies of everyone else's.
    shared = models.ForeignKey(
        "memories.SharedAct",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        editable=False,
        related_name="acts",
    )

    class Meta:
        ordering = ["-is_your_story", "title"]
        constraints = [
            models.UniqueConstraint(
                fields=["owner", "shared"],
                condition=Q(shared__isnull=False),
                name="one_place_per_shared_act",
            ),
            models.UniqueConstraint(
                fields=["owner"], condition=Q(is_your_story=True), name="one_your_story_per_owner"
            ),
            models.CheckConstraint(
                condition=Q(status__in=["active", "archived"]), name="act_status_valid"
            ),
            models.CheckConstraint(
                condition=~Q(is_your_story=True, status="archived"),
                name="your_story_never_archived",
            ),
        ]

    def __str__(self) -> str:
        return self.title

    def get_absolute_url(self) -> str:
        return reverse("memories:act", args=[self.pk])

    def delete(self, *args, **kwargs):
        if self.is_your_story:
            raise ValueError("Your Story is permanent and cannot be deleted.")
        return super().delete(*args, **kwargs)
