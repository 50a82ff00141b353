from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from talkingrock.fields import CleanCharField, CleanJSONField, CleanTextField


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

    class Meta:
        ordering = ["-is_your_story", "title"]
        constraints = [
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

    def delete(self, *args, **kwargs):
        if self.is_your_story:
            raise ValueError("Your Story is permanent and cannot be deleted.")
        return super().delete(*args, **kwargs)


class Conversation(models.Model):
    """One exchange with a deliberate end; at most one non-archived per member."""

    class Status(models.TextChoices):
        ACTIVE = "active"
        READY_TO_CLOSE = "ready_to_close"
        COMPRESSING = "compressing"
        ARCHIVED = "archived"

    class Stage(models.TextChoices):
        """Where a compression is; ``ready`` waits for the member's review."""

        QUEUED = "queued"
        ENTITIES = "entities", "Finding people, tasks, decisions and facts"
        DELTAS = "deltas", "Checking what changed"
        NARRATIVE = "narrative", "Writing what it meant"
        EMBEDDINGS = "embeddings", "Indexing for recall"
        READY = "ready"
        FAILED = "failed"

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="conversations"
    )
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.ACTIVE)
    is_paused = models.BooleanField(default=False)
    paused_at = models.DateTimeField(null=True, blank=True)
    act = models.ForeignKey(
        Act, on_delete=models.SET_NULL, null=True, blank=True, related_name="conversations"
    )
    started_at = models.DateTimeField(default=timezone.now)
    last_message_at = models.DateTimeField(null=True, blank=True)
    closed_at = models.DateTimeField(null=True, blank=True)
    archived_at = models.DateTimeField(null=True, blank=True)
    message_count = models.PositiveIntegerField(default=0)
    compression_engine = models.CharField(max_length=32, blank=True)
    compression_model = models.CharField(max_length=100, blank=True)
    compression_duration_ms = models.PositiveIntegerField(null=True, blank=True)
    compression_passes = models.PositiveSmallIntegerField(null=True, blank=True)
    compression_stage = models.CharField(
        max_length=16, choices=Stage.choices, blank=True, help_text="While compressing."
    )
    compression_started_at = models.DateTimeField(null=True, blank=True)
    compression_attempts = models.PositiveSmallIntegerField(default=0)
    # The process running the compression ("host:pid:start"): when it has ended before the
    # compression did, the work is known lost at once (talkingrock/jobs.py).
    compression_worker = models.CharField(max_length=200, blank=True)
    compression_error = CleanTextField(blank=True)
    compression_report = CleanJSONField(
        default=dict, blank=True, help_text="Which engine produced each stage, and the routing."
    )
    nudged_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-started_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["owner"],
                condition=~Q(status="archived"),
                name="one_open_conversation_per_owner",
            ),
            models.CheckConstraint(
                condition=Q(status__in=["active", "ready_to_close", "compressing", "archived"]),
                name="conversation_status_valid",
            ),
        ]

    def __str__(self) -> str:
        return f"Conversation {self.pk} ({self.status})"

    @property
    def is_open(self) -> bool:
        return self.status != self.Status.ARCHIVED

    @property
    def review_ready(self) -> bool:
        return self.status == self.Status.COMPRESSING and self.compression_stage == self.Stage.READY


class Message(models.Model):
    class Role(models.TextChoices):
        USER = "user"
        ASSISTANT = "assistant"
        SYSTEM = "system"

    conversation = models.ForeignKey(
        Conversation, on_delete=models.CASCADE, related_name="messages"
    )
    role = models.CharField(max_length=16, choices=Role.choices)
    content = CleanTextField()
    position = models.PositiveIntegerField()
    created_at = models.DateTimeField(default=timezone.now)
    engine = models.CharField(max_length=100, blank=True, help_text="What wrote a reply.")
    # The member's message a reply answers: with two tabs sending at once, the reply to the first
    # is not always the next message.
    reply_to = models.ForeignKey(
        "self", on_delete=models.SET_NULL, null=True, blank=True, related_name="replies"
    )
    memories_used = CleanJSONField(
        default=list,
        blank=True,
        help_text="The memories a reply drew on: [{id, recall, why}]; the trail is in Recall.",
    )
    # Why a reply says what it says, in a sentence ("It covers 80 % of what the question asks"),
    # and the recall it was made from: "Why did you say that?" under the reply.
    explanation = CleanTextField(blank=True)
    recall = models.ForeignKey(
        "memories.Recall", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    class Meta:
        ordering = ["conversation", "position"]
        constraints = [
            models.UniqueConstraint(
                fields=["conversation", "position"], name="message_position_unique"
            ),
            models.CheckConstraint(
                condition=Q(role__in=["user", "assistant", "system"]), name="message_role_valid"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.role}: {self.content[:40]}"
