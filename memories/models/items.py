"""The structured pieces of a memory (its items) and what a conversation changed (deltas)."""

from __future__ import annotations

from datetime import date, time

from django.db import models
from django.db.models import Q
from django.utils import timezone

from memories.models.memory import Memory
from talkingrock.fields import CleanJSONField
from talkingrock.language import spoken


class MemoryItem(models.Model):
    """A structured piece of a memory (seed 003): a person, task, decision, waiting-on, question
    opened or resolved… The active ones are a member's open threads."""

    class Type(models.TextChoices):
        # The labels are what people say of each ("Waiting on", "Still open"), not the names.
        PERSON = "person", "Person"
        TASK = "task", "To do"
        DECISION = "decision", "Decided"
        WAITING_ON = "waiting_on", "Waiting on"
        QUESTION_RESOLVED = "question_resolved", "Answered"
        QUESTION_OPENED = "question_opened", "Still open"
        BLOCKER_CLEARED = "blocker_cleared", "Unblocked"
        PRIORITY_CHANGE = "priority_change", "Priority changed"
        ACT_REFERENCE = "act_reference", "Part of an act"
        INSIGHT = "insight", "Insight"

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
    # The same item in every copy of a shared memory carries the same key: closing it in one
    # closes it in all (memories/sharing.py).
    share_key = models.UUIDField(null=True, blank=True, editable=False, db_index=True)
    # Who closed or reopened it, when another member of its shared act did.
    changed_by = models.CharField(max_length=150, blank=True, editable=False)

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
        data = self.data if isinstance(self.data, dict) else {}
        return str(data.get(self.FIELDS[self.type][0], ""))

    @property
    def detail(self) -> str:
        key = self.FIELDS[self.type][1]
        data = self.data if isinstance(self.data, dict) else {}
        return str(data.get(key, "")) if key else ""

    @property
    def when_in_words(self) -> str:
        """The day (and time) its words name, kept beside them: "due Fri 6 Mar 2026", "Thu 5
        Mar 2026, 9am"."""
        data = self.data if isinstance(self.data, dict) else {}
        if due := data.get("due"):
            said = spoken.said({"date": due}) if _is_day(due) else str(due)
            return f"due {said}" if said else ""
        if _is_day(data.get("on")):
            at = data.get("at") if _is_time(data.get("at")) else None
            return spoken.said({"date": data["on"], **({"time": at} if at else {})})
        return ""

    @property
    def text(self) -> str:
        """One line for people: "Alex — contract feedback", "Paint the hall — decided"."""
        return " — ".join(part for part in (self.main, self.detail) if part)


class StateDelta(models.Model):
    """What a conversation's memory changed (seed 003, stage 3). Resolutions name the open item
    they close; the member accepts or declines each one on the review screen."""

    class Type(models.TextChoices):
        NEW_WAITING_ON = "new_waiting_on", "Now waiting on"
        RESOLVED_WAITING_ON = "resolved_waiting_on", "No longer waiting"
        NEW_THREAD = "new_thread", "New open question"
        RESOLVED_THREAD = "resolved_thread", "Settled"
        PRIORITY_CHANGE = "priority_change", "Priority changed"
        ACT_UPDATE = "act_update", "Act changed"
        # A new decision or fact replaces an earlier one.
        SUPERSEDED = "superseded", "Replaces an earlier one"

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
    # Proposed as accepted: ticked on the review unless the member unticks it. A replacement is
    # ticked only when both statements are about the same subject and relation and the match
    # is sure; otherwise it is shown unticked, with its evidence (issue 22).
    ticked = models.BooleanField(default=True)
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


def _is_day(value) -> bool:
    try:
        date.fromisoformat(value)
    except (TypeError, ValueError):
        return False
    return True


def _is_time(value) -> bool:
    try:
        time.fromisoformat(value)
    except (TypeError, ValueError):
        return False
    return True
