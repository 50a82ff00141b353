"""A memory: one fact, note or conversation summary a member owns, and the clock that says
how far their vectors have been written."""

from __future__ import annotations

import hashlib
from datetime import date, time

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.db.models.functions import Coalesce
from django.urls import reverse
from django.utils import timezone

from talkingrock.fields import CleanCharField, CleanJSONField, CleanTextField
from talkingrock.language import parsed


def content_hash(content: str) -> str:
    """Stable fingerprint of a memory's text: whitespace-folded, case-sensitive."""
    return hashlib.sha256(" ".join(content.split()).encode()).hexdigest()


class KeptManager(models.Manager):
    """The memories a member keeps: everything but what was said, which is evidence for recall
    and answers only (``Memory.everything`` reads both)."""

    def get_queryset(self):
        return super().get_queryset().exclude(kind__in=Memory.EVIDENCE)


class Memory(models.Model):
    """One remembered thing. Archived, never silently deleted (seed 001).

    Also, as evidence, each message of a conversation (kind ``said`` for the member's words,
    ``reply`` for the assistant's): in the member's keyword and vector indexes from the moment
    it is said, so what was said stays findable, but not a memory anyone browses, reviews,
    consolidates or exports (the transcript is exported with its conversation). The default
    manager (``objects``) leaves evidence out; recall, indexing and the vectors read
    ``everything``."""

    class Source(models.TextChoices):
        CONVERSATION = "conversation"
        AGENT = "agent"
        EXTRACTION = "extraction"
        MIGRATION = "migration"
        MANUAL = "manual"
        CORRECTION = "correction"  # the member corrected how a request was read (issue 13)

    class Status(models.TextChoices):
        DRAFT = "draft"  # produced by a close, waiting for the member's review
        CONFIRMED = "confirmed"

    class Kind(models.TextChoices):
        MEMORY = "memory"  # a conversation's narrative, or anything stored as it was said
        FACT = "fact"  # one self-contained sentence (seed 002), extracted or stored as a fact
        SAID = "said"  # a message the member wrote, kept as evidence (issue 22)
        REPLY = "reply"  # the assistant's reply to one, kept as evidence and ranked below

    EVIDENCE = (Kind.SAID, Kind.REPLY)
    # Memories whose words were read for their days when written (conversations/drafts.py).
    READ_SOURCES = (Source.EXTRACTION, Source.CONVERSATION)

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memories"
    )
    content = CleanTextField()
    content_hash = models.CharField(max_length=64, editable=False)
    source = models.CharField(max_length=16, choices=Source.choices, default=Source.MANUAL)
    tags = CleanCharField(max_length=500, blank=True, help_text="Comma-separated keywords.")
    # RESTRICT: an act with memories cannot be deleted on its own, but deleting a member
    # removes their acts and memories together.
    act = models.ForeignKey("memories.Act", on_delete=models.RESTRICT, related_name="memories")
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
    # The message this evidence is (kinds ``said`` and ``reply``): it goes when the message does.
    message = models.OneToOneField(
        "conversations.Message",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="evidence",
    )
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
    # What was parsed out of the words, kept beside them and never spliced in (issue 22): the
    # dates and times it names, read against the day it was said ("the 8th at 10:30" → 8 Dec,
    # 10:30), the amounts ("6k" → 6000), a schedule ("mon tue thu" → weekly on Monday,
    # Tuesday and Thursday). talkingrock/language/parsed.py writes and reads it.
    details = CleanJSONField(default=dict, blank=True)
    # Any string the writer uses to group memories (seed 001's session_id): a session groups its
    # memories as a conversation does, for recall's neighbours and its conversation prior. Only
    # ever read together with the owner, so two members' "monday" are two sessions.
    session = CleanCharField(max_length=200, blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now)
    consolidated_at = models.DateTimeField(null=True, blank=True)
    archived_at = models.DateTimeField(null=True, blank=True)
    # Replaced by a later fact or decision on the same subject: kept, shown as history
    # ("previously: butcher block, changed 12 Nov"), ranked below the one that replaced it.
    valid_to = models.DateTimeField(null=True, blank=True)
    superseded_by = models.ForeignKey(
        "self", on_delete=models.SET_NULL, null=True, blank=True, related_name="supersedes"
    )
    # Shared into a shared act (memories/sharing.py): the sharer's own row and each member's copy
    # point at the same share. A copy has no conversation: the rest of it stays the sharer's.
    share = models.ForeignKey(
        "memories.Share",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        editable=False,
        related_name="rows",
    )
    # The content hash the vector and the entity mentions were computed from; when it differs
    # from content_hash the memory waits for the indexing task (memories/indexing.py).
    indexed_hash = models.CharField(max_length=64, blank=True, editable=False)
    # The owner's VectorClock tick when this memory's vector was last written: a process holding
    # the member's vectors in memory asks for the rows written after the tick it has.
    vector_tick = models.BigIntegerField(default=0, editable=False)

    objects = KeptManager()
    everything = models.Manager()  # noqa: DJ012 - a second manager, not a field

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name_plural = "memories"
        default_manager_name = "objects"
        indexes = [
            models.Index(fields=["owner", "act", "-created_at"], name="memory_owner_act_created"),
            models.Index(fields=["owner", "content_hash"], name="memory_owner_hash"),
            models.Index(fields=["owner", "archived_at"], name="memory_owner_archived"),
            # "What happened in March": recall's time window, without scanning a member's rows.
            models.Index(
                F("owner"), Coalesce("happened_at", "created_at"), name="memory_owner_when"
            ),
            models.Index(fields=["owner", "vector_tick"], name="memory_owner_vector_tick"),
            # A conversation's confirmed rows in the order they were told, each with what
            # recall's neighbour and conversation steps read (search.conversation_order): read
            # from the index alone, not row by row from the table.
            models.Index(
                F("conversation"),
                F("status"),
                Coalesce("happened_at", "created_at"),
                F("id"),
                F("owner"),
                F("archived_at"),
                condition=Q(conversation__isnull=False),
                name="memory_conversation_told",
            ),
            models.Index(
                fields=["owner", "session"], condition=~Q(session=""), name="memory_owner_session"
            ),
            # The facts waiting for consolidation, without scanning the rest (memories/
            # consolidation: the 30-second pass asks who has any).
            models.Index(
                fields=["owner"],
                condition=Q(consolidated_at=None),
                name="memory_pending_consolidation",
            ),
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
                    source__in=[
                        "conversation",
                        "agent",
                        "extraction",
                        "migration",
                        "manual",
                        "correction",
                    ]
                ),
                name="memory_source_valid",
            ),
            models.CheckConstraint(
                condition=Q(status__in=["draft", "confirmed"]), name="memory_status_valid"
            ),
            models.CheckConstraint(
                condition=Q(kind__in=["memory", "fact", "said", "reply"]), name="memory_kind_valid"
            ),
            # Evidence is exactly the rows that are a message.
            models.CheckConstraint(
                condition=Q(kind__in=["said", "reply"], message__isnull=False)
                | Q(kind__in=["memory", "fact"], message__isnull=True),
                name="memory_evidence_is_a_message",
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
    def is_evidence(self) -> bool:
        return self.kind in self.EVIDENCE

    @property
    def is_archived(self) -> bool:
        return self.archived_at is not None

    @property
    def details_in_words(self) -> list[str]:
        """The dates, times, amounts and schedule its words hold, as a person reads them beside
        the words: ["Tue 8 Dec 2026, 10:30am", "$38,000"]."""
        return parsed.said(self.details)

    def named_day(self) -> tuple[date, time | None] | None:
        """The local day of ``happened_at``, with its time when one was said; None when it names
        no day. A memory whose words were read (``details``) is dated only when they name a day:
        one that names none was given the day it was said, and is no appointment (nor is a
        conversation's memory, dated by when it was held). One whose words were not read
        (stored by hand, an agent or an import) has the ``happened_at`` it was given, timed
        unless midnight."""
        if self.happened_at is None:
            return None
        moment = timezone.localtime(self.happened_at)
        when = self.details.get("when") if isinstance(self.details, dict) else None
        first = next((m for m in when or [] if isinstance(m, dict) and "date" in m), None)
        if first is not None:
            timed = "time" in first
        elif self.source in self.READ_SOURCES:
            return None
        else:
            timed = moment.time() != time.min
        return moment.date(), (moment.time().replace(second=0, microsecond=0) if timed else None)

    @property
    def said_in_url(self) -> str:
        """Evidence: where it was said (the conversation, at the message)."""
        if not self.is_evidence or self.conversation_id is None:
            return ""
        url = reverse("conversations:detail", args=[self.conversation_id])
        return f"{url}#message-{self.message_id}"

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
