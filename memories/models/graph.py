"""The entity graph recall walks (names and what mentions them) and the co-recall links."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone

from memories.models.memory import Memory
from talkingrock.fields import CleanCharField


class Entity(models.Model):
    """A named person, organisation, project or place, unique per member by normalised name."""

    class Kind(models.TextChoices):
        PERSON = "person"
        ORGANISATION = "organisation"
        PROJECT = "project"
        PLACE = "place"
        OTHER = "other"  # named, but the offline rules cannot tell what it is

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="entities"
    )
    name = CleanCharField(max_length=200)
    normalized = CleanCharField(max_length=200)
    kind = models.CharField(max_length=16, choices=Kind.choices, default=Kind.OTHER)
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    memories = models.ManyToManyField(Memory, through="Mention", related_name="entities")

    class Meta:
        ordering = ["name"]
        verbose_name_plural = "entities"
        constraints = [
            models.UniqueConstraint(fields=["owner", "normalized"], name="entity_unique_per_owner"),
            models.CheckConstraint(
                condition=Q(kind__in=["person", "organisation", "project", "place", "other"]),
                name="entity_kind_valid",
            ),
        ]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("memories:entity", args=[self.pk])


class Mention(models.Model):
    """A memory names an entity: the edges of the graph recall walks one hop through."""

    entity = models.ForeignKey(Entity, on_delete=models.CASCADE, related_name="mentions")
    memory = models.ForeignKey(Memory, on_delete=models.CASCADE, related_name="mentions")
    surface = CleanCharField(max_length=200, help_text="The words the memory used.")
    addressed = models.BooleanField(
        default=False,
        help_text='The memory only speaks to them ("Thanks, Mel!"): said to them, not about them.',
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["entity", "memory"], name="mention_unique"),
        ]
        indexes = [models.Index(fields=["memory"], name="mention_memory")]

    def __str__(self) -> str:
        return f"{self.memory_id} → {self.entity}"


class MemoryLink(models.Model):
    """Two memories recalled together (seed 001, v2). Stored in both directions, so a memory's
    related memories are one indexed lookup; ``strength`` grows with every co-recall."""

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memory_links"
    )
    memory = models.ForeignKey(Memory, on_delete=models.CASCADE, related_name="links")
    related = models.ForeignKey(Memory, on_delete=models.CASCADE, related_name="+")
    strength = models.FloatField(default=1.0)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-strength"]
        constraints = [
            models.UniqueConstraint(fields=["memory", "related"], name="memory_link_unique"),
            models.CheckConstraint(
                condition=~Q(memory=models.F("related")), name="memory_link_not_self"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.memory_id} ↔ {self.related_id} ({self.strength:g})"
