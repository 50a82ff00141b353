from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone

from talkingrock.fields import CleanCharField, CleanJSONField, CleanTextField


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
    # A few words saying what it was about, in the member's words (conversations/titles.py):
    # set when it is compressed, editable on its page; blank until then.
    title = CleanCharField(max_length=120, blank=True, default="")
    is_paused = models.BooleanField(default=False)
    paused_at = models.DateTimeField(null=True, blank=True)
    act = models.ForeignKey(
        "memories.Act",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="conversations",
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
    # A conversation brought in from elsewhere (conversations/importing.py): where from, as
    # "<source>:<its id there>", so that importing it again is recognised. Never the member's
    # open conversation: it goes through compression and review as it happened, then archives.
    imported_from = models.CharField(max_length=200, blank=True, default="")

    class Meta:
        ordering = ["-started_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["owner"],
                condition=~Q(status="archived") & Q(imported_from=""),
                name="one_open_conversation_per_owner",
            ),
            models.UniqueConstraint(
                fields=["owner", "imported_from"],
                condition=~Q(imported_from=""),
                name="conversation_imported_once",
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


class Classification(models.Model):
    """What a request was read as (seed 003, phase 4): destination × consumer × semantics, how
    sure, whether to ask first, and the recall trails of the stages that read it (the memories
    that influenced each, with how). Corrected by a later message: ``corrected_by``."""

    class Destination(models.TextChoices):
        STREAM = "stream"  # an answer now
        FILE = "file"  # something kept
        PROCESS = "process"  # something done

    class Consumer(models.TextChoices):
        HUMAN = "human"
        MACHINE = "machine"

    class Semantics(models.TextChoices):
        READ = "read"
        INTERPRET = "interpret"
        EXECUTE = "execute"

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="classifications"
    )
    message = models.ForeignKey(
        Message, on_delete=models.SET_NULL, null=True, blank=True, related_name="classifications"
    )
    request = CleanTextField()
    destination = models.CharField(max_length=8, choices=Destination.choices)
    consumer = models.CharField(max_length=8, choices=Consumer.choices)
    semantics = models.CharField(max_length=10, choices=Semantics.choices)
    confidence = models.FloatField()
    needs_clarification = models.BooleanField(default=False)
    clarification = CleanTextField(blank=True, help_text="The question to ask first.")
    reasoning = CleanTextField(blank=True)
    # The ordered steps (decompose_with_memory) and the check of the reading against memory
    # (verify_intent_with_memory), when they were run.
    steps = CleanJSONField(default=list, blank=True)
    verification = CleanJSONField(default=dict, blank=True)
    engine = models.CharField(max_length=100)
    recall = models.ForeignKey(
        "memories.Recall", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    # The recall trails of the later stages: {"decompose": id, "verify": id}.
    trails = CleanJSONField(default=dict, blank=True)
    # The correction the member made of this reading (a memory, stored at once).
    corrected_by = models.ForeignKey(
        "memories.Memory",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="corrected_classifications",
    )
    # An outcome the member gave it: approved or rejected (learn_from_outcome).
    outcome = models.CharField(max_length=10, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["owner", "-created_at"], name="classification_owner")]
        constraints = [
            models.CheckConstraint(
                condition=Q(destination__in=["stream", "file", "process"])
                & Q(consumer__in=["human", "machine"])
                & Q(semantics__in=["read", "interpret", "execute"])
                & Q(confidence__gte=0)
                & Q(confidence__lte=1)
                & Q(outcome__in=["", "approved", "rejected"]),
                name="classification_values_valid",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.destination} × {self.consumer} × {self.semantics}: {self.request[:40]}"

    @property
    def label(self) -> str:
        return f"{self.destination} × {self.consumer} × {self.semantics}"


class ConversationImport(models.Model):
    """Conversations a member brought in from elsewhere (their own export, ChatGPT's, Claude's),
    read and checked when the file arrives and then lived through in the worker, oldest first
    (conversations/importing.py)."""

    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        DONE = "done"
        FAILED = "failed"

    class Source(models.TextChoices):
        TALKINGROCK = "talkingrock", "Talking Rock"
        CHATGPT = "chatgpt", "ChatGPT"
        CLAUDE = "claude", "Claude"

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="conversation_imports"
    )
    source = models.CharField(max_length=32, choices=Source.choices)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED)
    created_at = models.DateTimeField(default=timezone.now)
    finished_at = models.DateTimeField(null=True, blank=True)
    # The conversations as read from the file, until each is imported (then emptied).
    transcripts = CleanJSONField(default=list, blank=True)
    # One entry per conversation: its key, title, first moment, messages, and what became of it.
    report = CleanJSONField(default=list, blank=True)
    error = CleanTextField(blank=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(
                condition=Q(status__in=["queued", "running", "done", "failed"]),
                name="conversation_import_status_valid",
            ),
        ]

    def __str__(self) -> str:
        return f"Import {self.pk} ({self.source}, {self.status})"

    def get_absolute_url(self) -> str:
        return reverse("conversations:import", args=[self.pk])
