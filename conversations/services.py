"""The conversation lifecycle as services (seed 003): each transition checks the state it starts
from inside one IMMEDIATE transaction, so two tabs racing see one outcome and a clear message.

    active ⇄ ready_to_close → compressing (queued → stages → ready | failed) → archived
       ▲                              │ resume (nothing stored)
       └──────────────────────────────┘
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from conversations.models import Classification, Conversation, Message
from memories import evidence
from memories.models import Memory, Recall
from narratives.models import Narrative
from talkingrock import jobs
from talkingrock.text import clean_text

Status = Conversation.Status
Stage = Conversation.Stage


class TransitionError(Exception):
    """The conversation is not in a state this step can start from; ``message`` says why."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class MessageError(Exception):
    """The message itself cannot be said (empty, too long), whatever the conversation's state."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


def _config(name: str):
    return settings.TALKINGROCK_CONVERSATIONS[name]


# --- the one open conversation ------------------------------------------------------------------


def open_conversation(owner) -> Conversation | None:
    """The member's own open conversation (an imported one being compressed is not theirs to
    talk in)."""
    return (
        Conversation.objects.filter(owner=owner, imported_from="")
        .exclude(status=Status.ARCHIVED)
        .first()
    )


def _locked(conversation: Conversation) -> Conversation:
    """The row as it is now, read inside the caller's (IMMEDIATE, so exclusive) transaction."""
    return Conversation.objects.get(pk=conversation.pk, owner_id=conversation.owner_id)


def start(*, owner) -> tuple[Conversation, bool]:
    """The member's open conversation, or a new one when none is open: (conversation, created).

    The database allows one non-archived conversation per member; a second tab losing the race
    gets the first tab's conversation."""
    try:
        with transaction.atomic():
            if (existing := open_conversation(owner)) is not None:
                return existing, False
            return Conversation.objects.create(owner=owner), True
    except IntegrityError:
        existing = open_conversation(owner)
        if existing is None:
            raise
        return existing, False


def validate_message(content: str) -> str:
    content = clean_text(content or "").strip()
    if not content:
        raise MessageError("Write something first: the message is empty.")
    limit = _config("max_message_chars")
    if len(content) > limit:
        raise MessageError(
            f"That message is {len(content):,} characters; the limit is {limit:,}. "
            "Split it, or store long notes as memories."
        )
    return content


def add_message(
    *, owner, content: str, role: str = Message.Role.USER
) -> tuple[Conversation, Message]:
    """Append a message to the open conversation, starting one if none is open. An empty or
    over-long message is refused first (``MessageError``), before any conversation is started."""
    content = validate_message(content)
    conversation, _ = start(owner=owner)
    with transaction.atomic():
        conversation = _locked(conversation)
        if conversation.status != Status.ACTIVE:
            raise TransitionError(_not_active(conversation))
        message = append(conversation, role=role, content=content)
    return conversation, message


def awaiting_reply(transcript: list[Message]) -> set[int]:
    """The member's messages of ``transcript`` (in order) still waiting for their reply: those
    after the last reply that none answers."""
    answered = {m.reply_to_id for m in transcript if m.reply_to_id}
    last_reply = max(
        (m.position for m in transcript if m.role == Message.Role.ASSISTANT), default=-1
    )
    return {
        m.pk
        for m in transcript
        if m.role == Message.Role.USER and m.position > last_reply and m.pk not in answered
    }


def reply_overdue(message: Message) -> bool:
    """Whether a reply should have come by now: the model's whole budget and a minute more (the
    worker was stopped, or none runs)."""
    allowed = timedelta(seconds=_config("reply_timeout") + 60)
    return timezone.now() - message.created_at > allowed


def append(
    conversation: Conversation,
    *,
    role: str,
    content: str,
    reply_to: Message | None = None,
    findable: bool = True,
) -> Message:
    """Write one message at the next position, inside the caller's transaction. ``findable``:
    kept as evidence in the member's indexes (all but the offline engine's replies, which only
    give back what the member said or kept: conversations/chat.py).

    The position is read here, not taken from ``conversation``: the caller's object may have been
    loaded before another tab added a message (a reply is written after a slow recall). The
    transaction is IMMEDIATE, so it holds the write lock and the count it reads stays true."""
    now = timezone.now()
    position = (
        Conversation.objects.filter(pk=conversation.pk)
        .values_list("message_count", flat=True)
        .get()
    )
    message = Message.objects.create(
        conversation=conversation,
        role=role,
        content=content,
        position=position,
        created_at=now,
        reply_to=reply_to,
    )
    fields = {"message_count": F("message_count") + 1, "last_message_at": now}
    if role == Message.Role.USER:
        fields["nudged_at"] = None  # a new silence may earn a new nudge
    Conversation.objects.filter(pk=conversation.pk).update(**fields)
    conversation.refresh_from_db()
    # What was said stays findable: in the member's indexes from now on (memories/evidence.py).
    if findable:
        evidence.record(owner=conversation.owner, said=said_of(message))
    return message


OFFLINE_ENGINE = "offline"  # what wrote a reply the offline engine wrote


def findable(message: Message) -> bool:
    """Whether ``message`` is evidence: all but the offline engine's replies, which only give
    back what the member said or kept (kept as evidence, asked again, an answer would quote
    itself quoting them). What a model or an agent wrote, or an import brought, may say
    something new."""
    return not (message.role == Message.Role.ASSISTANT and message.engine == OFFLINE_ENGINE)


def said_of(message: Message) -> evidence.Said:
    return evidence.Said(
        message_id=message.pk,
        conversation_id=message.conversation_id,
        role=message.role,
        content=message.content,
        said_at=message.created_at,
    )


def _not_active(conversation: Conversation) -> str:
    if conversation.status == Status.READY_TO_CLOSE:
        return "This conversation is waiting to be closed: resume it to keep talking."
    if conversation.status == Status.COMPRESSING:
        return "This conversation is being remembered: review it, or resume it to keep talking."
    return "This conversation is archived."


def set_paused(*, conversation: Conversation, paused: bool) -> Conversation:
    with transaction.atomic():
        conversation = _locked(conversation)
        if conversation.status != Status.ACTIVE:
            raise TransitionError(_not_active(conversation))
        conversation.is_paused = paused
        conversation.paused_at = timezone.now() if paused else None
        conversation.save(update_fields=["is_paused", "paused_at"])
    return conversation


def nudge_due(conversation: Conversation, *, now=None) -> bool:
    """One gentle nudge after a silence, never while paused, never twice for one silence."""
    if conversation.status != Status.ACTIVE or conversation.is_paused:
        return False
    if conversation.nudged_at is not None or conversation.last_message_at is None:
        return False
    silence = (now or timezone.now()) - conversation.last_message_at
    return silence.total_seconds() >= _config("nudge_after_minutes") * 60


NUDGE = "We've been quiet for a while. Is this thread resolved, or are you still sitting with it?"


def nudge(*, conversation: Conversation) -> Message | None:
    with transaction.atomic():
        conversation = _locked(conversation)
        if not nudge_due(conversation):
            return None
        message = append(conversation, role=Message.Role.SYSTEM, content=NUDGE)
        Conversation.objects.filter(pk=conversation.pk).update(nudged_at=timezone.now())
    return message


# --- closing ------------------------------------------------------------------------------------


def request_close(*, conversation: Conversation) -> Conversation:
    """ "I'm done": show what will be remembered before anything is compressed."""
    with transaction.atomic():
        conversation = _locked(conversation)
        if conversation.status in (Status.READY_TO_CLOSE, Status.COMPRESSING):
            return conversation  # another tab got there first: the same outcome
        if conversation.status != Status.ACTIVE:
            raise TransitionError(_not_active(conversation))
        conversation.status = Status.READY_TO_CLOSE
        conversation.closed_at = timezone.now()
        conversation.save(update_fields=["status", "closed_at"])
    return conversation


def has_user_messages(conversation: Conversation) -> bool:
    return conversation.messages.filter(role=Message.Role.USER).exists()


def confirm_close(*, conversation: Conversation, from_states: Iterable[str] = ()) -> Conversation:
    """ready_to_close → compressing, and the compression task queued on commit.

    An agent has no review screen to wait on, so ``close_conversation`` passes
    ``from_states=(ACTIVE,)`` and goes straight here. A conversation without a word from the
    member is archived at once and leaves no memory."""
    allowed = {Status.READY_TO_CLOSE, *from_states}
    with transaction.atomic():
        conversation = _locked(conversation)
        if conversation.status == Status.COMPRESSING or (
            conversation.status == Status.ARCHIVED and conversation.closed_at
        ):
            return conversation  # already on its way
        if conversation.status not in allowed:
            if conversation.status == Status.ACTIVE:
                raise TransitionError("Say you are done first; then confirm.")
            raise TransitionError(_not_active(conversation))
        now = timezone.now()
        conversation.closed_at = conversation.closed_at or now
        if not has_user_messages(conversation):
            conversation.status = Status.ARCHIVED
            conversation.archived_at = now
            conversation.save(update_fields=["status", "closed_at", "archived_at"])
            return conversation
        conversation.status = Status.COMPRESSING
        _queue_compression(conversation)
    return conversation


def _queue_compression(conversation: Conversation) -> None:
    conversation.compression_stage = Stage.QUEUED
    conversation.compression_started_at = timezone.now()
    conversation.compression_error = ""
    conversation.compression_worker = ""  # the next run claims it
    conversation.save(
        update_fields=[
            "status",
            "closed_at",
            "compression_stage",
            "compression_started_at",
            "compression_error",
            "compression_worker",
        ]
    )
    jobs.enqueue("conversations.tasks.compress", conversation.pk, owner_id=conversation.owner_id)


def retry_compression(*, conversation: Conversation) -> Conversation:
    """Queue a failed or stalled compression again; its transcript was never touched."""
    with transaction.atomic():
        conversation = _locked(conversation)
        if conversation.status != Status.COMPRESSING or conversation.review_ready:
            raise TransitionError("Only a compression that failed or stalled can be retried.")
        _queue_compression(conversation)
    return conversation


def is_lost(conversation: Conversation) -> bool:
    """The process that was compressing it has ended without finishing: known at once."""
    return (
        conversation.status == Status.COMPRESSING
        and conversation.compression_stage not in (Stage.READY, Stage.FAILED)
        and bool(conversation.compression_worker)
        and jobs.process_gone(conversation.compression_worker) is True
    )


def is_stalled(conversation: Conversation, *, now=None) -> bool:
    """Failed, lost (its process ended), or older than the timeout (a process on another
    machine, or one this machine cannot see): the member may retry."""
    if conversation.status != Status.COMPRESSING:
        return False
    if conversation.compression_stage in (Stage.READY, Stage.FAILED):
        return conversation.compression_stage == Stage.FAILED
    if is_lost(conversation):
        return True
    started = conversation.compression_started_at
    limit = _config("compression_timeout_minutes") * 60
    return started is None or ((now or timezone.now()) - started).total_seconds() > limit


def sweep_stalled(*, now=None) -> list[int]:
    """Requeue compressions whose process died (at once) or that outlived the timeout."""
    requeued = []
    for conversation in Conversation.objects.filter(status=Status.COMPRESSING).exclude(
        compression_stage__in=(Stage.READY, Stage.FAILED)
    ):
        if is_stalled(conversation, now=now):
            with transaction.atomic():
                current = _locked(conversation)
                if is_stalled(current, now=now):
                    current.status = Status.COMPRESSING
                    _queue_compression(current)
                    requeued.append(current.pk)
    return requeued


def resume(*, conversation: Conversation) -> Conversation:
    """Back to talking: from ready_to_close, or from a compression (its draft is dropped)."""
    with transaction.atomic():
        conversation = _locked(conversation)
        if conversation.status == Status.ACTIVE:
            return conversation
        if conversation.status == Status.ARCHIVED:
            raise TransitionError("This conversation is archived and cannot be resumed.")
        # A draft was never confirmed: nothing of it was remembered, so it goes.
        Memory.objects.filter(conversation=conversation, status=Memory.Status.DRAFT).delete()
        conversation.status = Status.ACTIVE
        conversation.closed_at = None
        conversation.compression_stage = ""
        conversation.compression_error = ""
        conversation.nudged_at = None
        conversation.save(
            update_fields=[
                "status",
                "closed_at",
                "compression_stage",
                "compression_error",
                "nudged_at",
            ]
        )
    return conversation


# --- forgetting -----------------------------------------------------------------------------------


def forget(*, conversation: Conversation) -> None:
    """Discard a conversation that was not kept, as if it had not happened: its draft memory and
    facts, its transcript (each message's evidence goes with it, out of the keyword and vector
    indexes: memories/evidence.py), the running narrative's links it wrote, and the readings and
    recall trails of its messages. Memories stored on purpose while it was open stay.

    A kept (archived) conversation is not forgotten here: its memories are, one by one."""
    with transaction.atomic():
        conversation = _locked(conversation)
        if conversation.status == Status.ARCHIVED:
            raise TransitionError(
                "This conversation was kept; delete its memories instead if you want them gone."
            )
        if conversation.status == Status.COMPRESSING and conversation.compression_stage not in (
            Stage.READY,
            Stage.FAILED,
        ):
            raise TransitionError(
                "This conversation is still being remembered; forget it once its review is ready."
            )
        owner = conversation.owner_id
        messages = Message.objects.filter(conversation=conversation)
        Memory.objects.filter(
            owner=owner, conversation=conversation, status=Memory.Status.DRAFT
        ).delete()
        Narrative.objects.filter(owner=owner, conversation=conversation).delete()
        Classification.objects.filter(owner=owner, message__in=messages).delete()
        Recall.objects.filter(owner=owner, conversation=conversation).delete()
        Recall.objects.filter(owner=owner, message__in=messages).delete()
        conversation.delete()  # its messages, and with each its evidence row (CASCADE)
