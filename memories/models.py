from __future__ import annotations

import hashlib

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.db.models.functions import Coalesce
from django.urls import reverse
from django.utils import timezone

from talkingrock.fields import CleanCharField, CleanJSONField, CleanTextField


def content_hash(content: str) -> str:
    """Stable fingerprint of a memory's text: whitespace-folded, case-sensitive."""
    return hashlib.sha256(" ".join(content.split()).encode()).hexdigest()


class Memory(models.Model):
    """One remembered thing. Archived, never silently deleted (seed 001)."""

    class Source(models.TextChoices):
        CONVERSATION = "conversation"
        AGENT = "agent"
        EXTRACTION = "extraction"
        MIGRATION = "migration"
        MANUAL = "manual"

    class Status(models.TextChoices):
        DRAFT = "draft"  # produced by a close, waiting for the member's review
        CONFIRMED = "confirmed"

    class Kind(models.TextChoices):
        MEMORY = "memory"  # a conversation's narrative, or anything stored as it was said
        FACT = "fact"  # one self-contained sentence (seed 002), extracted or stored as a fact

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memories"
    )
    content = CleanTextField()
    content_hash = models.CharField(max_length=64, editable=False)
    source = models.CharField(max_length=16, choices=Source.choices, default=Source.MANUAL)
    tags = CleanCharField(max_length=500, blank=True, help_text="Comma-separated keywords.")
    # RESTRICT: an act with memories cannot be deleted on its own, but deleting a member
    # removes their acts and memories together.
    act = models.ForeignKey("conversations.Act", on_delete=models.RESTRICT, related_name="memories")
    conversation = models.ForeignKey(
        "conversations.Conversation",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="memories",
    )
    narrative = models.ForeignKey(
        "narratives.Narrative",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="stamped_memories",
    )
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.CONFIRMED)
    kind = models.CharField(max_length=8, choices=Kind.choices, default=Kind.MEMORY)
    # A fact's subject and relation ("worktops" / "choice", "school pickup" / "time"): a later
    # fact on the same subject and relation may replace it (valid_to, superseded_by).
    subject = CleanCharField(max_length=200, blank=True)
    relation = CleanCharField(max_length=100, blank=True)
    # The conversation memory a fact was extracted from.
    derived_from = models.ForeignKey(
        "self", on_delete=models.SET_NULL, null=True, blank=True, related_name="facts"
    )
    user_reviewed = models.BooleanField(default=False)
    user_edited = models.BooleanField(default=False)
    original_content = CleanTextField(blank=True)
    extraction_engine = models.CharField(max_length=64, blank=True)
    confidence = models.FloatField(null=True, blank=True)
    score = models.IntegerField(default=0)
    hit_count = models.PositiveIntegerField(default=0)
    last_hit_at = models.DateTimeField(null=True, blank=True)
    happened_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    consolidated_at = models.DateTimeField(null=True, blank=True)
    archived_at = models.DateTimeField(null=True, blank=True)
    # Replaced by a later fact or decision on the same subject: kept, shown as history
    # ("previously: butcher block, changed 12 Nov"), ranked below the one that replaced it.
    valid_to = models.DateTimeField(null=True, blank=True)
    superseded_by = models.ForeignKey(
        "self", on_delete=models.SET_NULL, null=True, blank=True, related_name="supersedes"
    )
    # The content hash the vector and the entity mentions were computed from; when it differs
    # from content_hash the memory waits for the indexing task (memories/indexing.py).
    indexed_hash = models.CharField(max_length=64, blank=True, editable=False)
    # The owner's VectorClock tick when this memory's vector was last written: a process holding
    # the member's vectors in memory asks for the rows written after the tick it has.
    vector_tick = models.BigIntegerField(default=0, editable=False)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name_plural = "memories"
        indexes = [
            models.Index(fields=["owner", "act", "-created_at"], name="memory_owner_act_created"),
            models.Index(fields=["owner", "content_hash"], name="memory_owner_hash"),
            models.Index(fields=["owner", "archived_at"], name="memory_owner_archived"),
            # "What happened in March": recall's time window, without scanning a member's rows.
            models.Index(
                F("owner"), Coalesce("happened_at", "created_at"), name="memory_owner_when"
            ),
            models.Index(fields=["owner", "vector_tick"], name="memory_owner_vector_tick"),
            # The few memories waiting for the indexing task, without scanning the rest.
            models.Index(
                fields=["owner"],
                condition=~Q(indexed_hash=F("content_hash")),
                name="memory_pending_index",
            ),
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(
                    source__in=["conversation", "agent", "extraction", "migration", "manual"]
                ),
                name="memory_source_valid",
            ),
            models.CheckConstraint(
                condition=Q(status__in=["draft", "confirmed"]), name="memory_status_valid"
            ),
            models.CheckConstraint(
                condition=Q(kind__in=["memory", "fact"]), name="memory_kind_valid"
            ),
            models.CheckConstraint(condition=~Q(content=""), name="memory_content_not_empty"),
        ]

    def __str__(self) -> str:
        return f"[id:{self.pk}] {self.content[:60]}"

    def save(self, *args, **kwargs):
        self.content_hash = content_hash(self.content)
        update_fields = kwargs.get("update_fields")
        if update_fields is not None and "content" in update_fields:
            kwargs["update_fields"] = {*update_fields, "content_hash"}
        super().save(*args, **kwargs)

    def get_absolute_url(self) -> str:
        return reverse("memories:detail", args=[self.pk])

    @property
    def is_archived(self) -> bool:
        return self.archived_at is not None

    @property
    def tag_list(self) -> list[str]:
        return [t.strip() for t in self.tags.split(",") if t.strip()]


class VectorClock(models.Model):
    """Per member: how many times their vectors were written (``tick``) and memories deleted
    (``deletions``). Both only ever grow; writers take the database's write lock first, so a
    reader that has seen tick N has seen every vector written up to N (memories/vectors.py)."""

    owner = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, primary_key=True, related_name="+"
    )
    tick = models.BigIntegerField(default=0)
    deletions = models.BigIntegerField(default=0)

    def __str__(self) -> str:
        return f"vectors of {self.owner_id}: tick {self.tick}, deletions {self.deletions}"


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


class Recall(models.Model):
    """One retrieval that fed an answer, a classification or a tool call: the transparency trail
    behind "why did you think that?"."""

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="recalls"
    )
    query = CleanTextField()
    purpose = models.CharField(max_length=100)
    conversation = models.ForeignKey(
        "conversations.Conversation",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="recalls",
    )
    message = models.ForeignKey(
        "conversations.Message",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="recalls",
    )
    parameters = CleanJSONField(default=dict, blank=True)
    duration_ms = models.FloatField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["owner", "-created_at"], name="recall_owner_created")]

    def __str__(self) -> str:
        return f"{self.purpose}: {self.query[:60]}"


class RecallHit(models.Model):
    """One memory a recall returned, where it ranked and why."""

    recall = models.ForeignKey(Recall, on_delete=models.CASCADE, related_name="hits")
    # A member may still delete a memory for good; the trail keeps the row and says so.
    memory = models.ForeignKey(
        Memory, on_delete=models.SET_NULL, null=True, related_name="recall_hits"
    )
    rank = models.PositiveIntegerField()
    score = models.FloatField()
    components = CleanJSONField(default=dict)
    influence = CleanCharField(max_length=200, blank=True)

    class Meta:
        ordering = ["recall", "rank"]
        constraints = [
            models.UniqueConstraint(fields=["recall", "rank"], name="recall_hit_rank_unique"),
        ]

    def __str__(self) -> str:
        return f"#{self.rank} {self.memory_id}"


class MemoryItem(models.Model):
    """A structured piece of a memory (seed 003): a person, task, decision, waiting-on, question
    opened or resolved… The active ones are a member's open threads."""

    class Type(models.TextChoices):
        PERSON = "person"
        TASK = "task"
        DECISION = "decision"
        WAITING_ON = "waiting_on"
        QUESTION_RESOLVED = "question_resolved"
        QUESTION_OPENED = "question_opened"
        BLOCKER_CLEARED = "blocker_cleared"
        PRIORITY_CHANGE = "priority_change"
        ACT_REFERENCE = "act_reference"
        INSIGHT = "insight"

    # Each type's main and secondary field in ``data`` (the seed's extraction JSON).
    FIELDS: dict[str, tuple[str, str]] = {
        "person": ("name", "context"),
        "task": ("description", "status"),
        "decision": ("what", "why"),
        "waiting_on": ("who", "what"),
        "question_resolved": ("question", "answer"),
        "question_opened": ("question", ""),
        "blocker_cleared": ("what", "unblocks"),
        "priority_change": ("item", "new"),
        "act_reference": ("act", "relevance"),
        "insight": ("insight", "context"),
    }
    # Items that stay open until a later conversation resolves them.
    OPEN_TYPES = ("waiting_on", "question_opened", "task")

    class Resolution(models.TextChoices):
        CONVERSATION = "conversation"  # a later conversation closed it (resolved_by)
        DONE = "done"  # ticked off by hand
        DISMISSED = "dismissed"  # no longer relevant, by hand

    memory = models.ForeignKey(Memory, on_delete=models.CASCADE, related_name="items")
    type = models.CharField(max_length=24, choices=Type.choices)
    data = CleanJSONField(default=dict)
    is_active = models.BooleanField(default=True)
    resolved_by = models.ForeignKey(
        Memory, on_delete=models.SET_NULL, null=True, blank=True, related_name="resolved_items"
    )
    resolved_at = models.DateTimeField(null=True, blank=True)
    resolution = models.CharField(max_length=16, choices=Resolution.choices, blank=True)
    # A decision a later one replaced ("leaning butcher block" → "quartz after all").
    valid_to = models.DateTimeField(null=True, blank=True)
    superseded_by = models.ForeignKey(
        "self", on_delete=models.SET_NULL, null=True, blank=True, related_name="supersedes"
    )
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["memory", "id"]
        indexes = [models.Index(fields=["type", "is_active"], name="memory_item_type_active")]
        constraints = [
            models.CheckConstraint(
                condition=Q(
                    type__in=[
                        "person",
                        "task",
                        "decision",
                        "waiting_on",
                        "question_resolved",
                        "question_opened",
                        "blocker_cleared",
                        "priority_change",
                        "act_reference",
                        "insight",
                    ]
                ),
                name="memory_item_type_valid",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.get_type_display()}: {self.text}"

    @property
    def main(self) -> str:
        return str(self.data.get(self.FIELDS[self.type][0], ""))

    @property
    def detail(self) -> str:
        key = self.FIELDS[self.type][1]
        return str(self.data.get(key, "")) if key else ""

    @property
    def text(self) -> str:
        """One line for people: "Alex — contract feedback", "Paint the hall — decided"."""
        return " — ".join(part for part in (self.main, self.detail) if part)


class StateDelta(models.Model):
    """What a conversation's memory changed (seed 003, stage 3). Resolutions name the open item
    they close; the member accepts or declines each one on the review screen."""

    class Type(models.TextChoices):
        NEW_WAITING_ON = "new_waiting_on"
        RESOLVED_WAITING_ON = "resolved_waiting_on"
        NEW_THREAD = "new_thread"
        RESOLVED_THREAD = "resolved_thread"
        PRIORITY_CHANGE = "priority_change"
        ACT_UPDATE = "act_update"
        SUPERSEDED = "superseded"  # a new decision or fact replaces an earlier one

    memory = models.ForeignKey(Memory, on_delete=models.CASCADE, related_name="deltas")
    type = models.CharField(max_length=24, choices=Type.choices)
    data = CleanJSONField(default=dict)
    item = models.ForeignKey(
        MemoryItem,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="resolving_deltas",
        help_text="The open item this delta resolves, or the decision it supersedes.",
    )
    # A supersession: the earlier fact it replaces, and what replaces the item or the fact.
    old_fact = models.ForeignKey(
        Memory, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    new_item = models.ForeignKey(
        MemoryItem, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    new_fact = models.ForeignKey(
        Memory, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    accepted = models.BooleanField(default=True)
    applied = models.BooleanField(default=False)
    applied_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["memory", "id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(
                    type__in=[
                        "new_waiting_on",
                        "resolved_waiting_on",
                        "new_thread",
                        "resolved_thread",
                        "priority_change",
                        "act_update",
                        "superseded",
                    ]
                ),
                name="state_delta_type_valid",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.get_type_display()} from [id:{self.memory_id}]"

    @property
    def resolves(self) -> bool:
        return self.type in (self.Type.RESOLVED_WAITING_ON, self.Type.RESOLVED_THREAD)
