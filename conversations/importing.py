"""Conversations brought in from elsewhere, dated as they happened (issue 22).

Three kinds of file, told apart by their shape:

* **Talking Rock's own** (``talkingrock.conversations``, version 1)::

      {"format": "talkingrock.conversations", "version": 1,
       "conversations": [{"id": "kitchen-1", "title": "Kitchen", "messages": [
           {"role": "user", "content": "dave came round today", "at": "2026-03-14T19:20:00+00:00"},
           {"role": "assistant", "content": "What did he say?", "at": "2026-03-14T19:21:00+00:00"}]}]}

  ``id`` and ``title`` may be left out (a conversation is then known by its first message);
* **ChatGPT's** ``conversations.json``: a list of conversations, each a ``mapping`` of message
  nodes with parents and children; the branch that leads to ``current_node`` is the transcript;
* **Claude's** export: a list of conversations, each with ``chat_messages`` (``sender`` human or
  assistant, ``text`` or ``content`` parts, ``created_at``).

``queue`` reads and checks the file at once (a bad file is refused whole, with the reason, and
changes nothing) and leaves the work to the worker; ``run`` then lives each conversation through
the app, oldest first, as it happened: its messages with their own times (so "tmrw" and "the
8th" are read against the day each was said, and they are evidence from then on), closed,
compressed, and kept as the review comes (what is ticked by default is accepted), dated its own
day, so that what it changes and the threads it leaves are as of then. A conversation imported
before (by its source and id) is recognised and left alone.

A message longer than the app takes is kept whole, in pieces at paragraph or sentence breaks.
"""

from __future__ import annotations

import hashlib
import json
import logging
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from conversations import compression, review, services, titles
from conversations.models import Conversation, ConversationImport, Message
from memories import evidence
from memories.porting import ImportFormatError, parse_iso_datetime
from talkingrock import jobs
from talkingrock.text import clean_text

log = logging.getLogger(__name__)

FORMAT_NAME = "talkingrock.conversations"
MAX_CONVERSATIONS = 2000
MAX_MESSAGES = 5000  # in one conversation
ROLES = {"user": Message.Role.USER, "human": Message.Role.USER, "assistant": Message.Role.ASSISTANT}


@dataclass
class Said:
    role: str
    content: str
    at: str  # ISO 8601, UTC


@dataclass
class Transcript:
    key: str  # "<source>:<id>"
    title: str
    messages: list[Said]

    @property
    def started_at(self) -> str:
        return self.messages[0].at


# --- reading a file ------------------------------------------------------------------------------


# What to do about a file that is not an export.
_AS_IT_CAME = (
    "Upload the file as the export gave it: ChatGPT's conversations.json, Claude's "
    "conversations.json, or a Talking Rock export."
)


def check_size(size: int) -> None:
    """``ImportFormatError`` for a file larger than the upload takes."""
    limit = settings.TALKINGROCK_CONVERSATIONS["max_import_bytes"]
    if size > limit:
        raise ImportFormatError(
            f"The file is {size / 2**20:.1f} MB; the upload takes at most {limit / 2**20:.0f} MB "
            "(split the export, or use manage.py import_conversations)."
        )


def load(raw: bytes, *, bounded: bool = True) -> Any:
    """A file's JSON; ``ImportFormatError`` when it is not JSON, or (``bounded``) larger than
    the upload takes."""
    if bounded:
        check_size(len(raw))
    try:
        return json.loads(raw.decode("utf-8-sig"))
    except UnicodeDecodeError:
        raise ImportFormatError(
            f"This file is not text, so it is no conversations export. {_AS_IT_CAME}"
        ) from None
    except json.JSONDecodeError as error:
        raise ImportFormatError(
            "This file could not be read as an export: it breaks off at line "
            f"{error.lineno:,}, character {error.colno:,}. {_AS_IT_CAME}"
        ) from None
    except (ValueError, RecursionError):
        raise ImportFormatError(
            f"This file could not be read as an export. {_AS_IT_CAME}"
        ) from None


def read(data: Any) -> tuple[str, list[Transcript]]:
    """(source, transcripts) of an export, oldest first; ``ImportFormatError`` saying what is
    wrong when it is none of the three, or holds nothing to import."""
    if isinstance(data, dict) and data.get("format") == FORMAT_NAME:
        source, found = "talkingrock", _ours(data)
    elif isinstance(data, dict) and "mapping" in data:
        source, found = "chatgpt", _chatgpt([data])  # one conversation on its own
    elif isinstance(data, list) and data and all(isinstance(c, dict) for c in data):
        if all("mapping" in c for c in data):
            source, found = "chatgpt", _chatgpt(data)
        elif all("chat_messages" in c for c in data):
            source, found = "claude", _claude(data)
        else:
            raise ImportFormatError(
                "This file is a list, but not of ChatGPT's or Claude's conversations: they hold "
                f"their messages in other fields. {_AS_IT_CAME}"
            )
    else:
        raise ImportFormatError(
            "This is not a conversations export: expected Talking Rock's "
            f"('format': '{FORMAT_NAME}'), ChatGPT's conversations.json or Claude's export."
        )
    found = [t for t in found if any(m.role == Message.Role.USER for m in t.messages)]
    if not found:
        raise ImportFormatError("The file holds no conversation with anything you said.")
    if len(found) > MAX_CONVERSATIONS:
        raise ImportFormatError(
            f"The file holds {len(found):,} conversations; import at most "
            f"{MAX_CONVERSATIONS:,} at a time."
        )
    keys = [t.key for t in found]
    if len(set(keys)) != len(keys):
        repeated = next(key for key in keys if keys.count(key) > 1)
        raise ImportFormatError(f"Two conversations have the same id ({repeated}).")
    return source, sorted(found, key=lambda t: t.started_at)


def _text(value: Any, where: str, *, limit: int = 1_000_000) -> str:
    if not isinstance(value, str):
        raise ImportFormatError(f"{where} must be text, not {type(value).__name__}.")
    text = clean_text(value).strip()
    if len(text) > limit:
        raise ImportFormatError(f"{where} is longer than {limit:,} characters.")
    return text


def _moment(value: Any, where: str) -> str:
    """An ISO date-time, or seconds since 1970 (ChatGPT's), as ISO 8601 in UTC."""
    if isinstance(value, bool):
        raise ImportFormatError(f"{where} is not a time.")
    if isinstance(value, int | float):
        try:
            return datetime.fromtimestamp(float(value), tz=UTC).isoformat()
        except (OverflowError, OSError, ValueError):
            raise ImportFormatError(f"{where} is out of range: {value!r:.30}") from None
    moment = parse_iso_datetime(value, where)
    if moment is None:
        raise ImportFormatError(f"{where} is missing.")
    return moment.isoformat()


def _pieces(content: str) -> list[str]:
    """A message in pieces the app takes (each at most ``max_message_chars``), cut at a
    paragraph, then a line, then a sentence, then a space; nothing is dropped."""
    limit = settings.TALKINGROCK_CONVERSATIONS["max_message_chars"]
    pieces, rest = [], content
    while len(rest) > limit:
        window = rest[:limit]
        cut = max(window.rfind("\n\n"), window.rfind("\n"), window.rfind(". "), window.rfind(" "))
        cut = cut if cut > limit // 2 else limit
        pieces.append(rest[:cut].strip())
        rest = rest[cut:].strip()
    return [piece for piece in [*pieces, rest] if piece]


def _said(role: str, content: str, at: str) -> list[Said]:
    return [Said(role, piece, at) for piece in _pieces(content)]


def _key(source: str, given: Any, messages: list[Said]) -> str:
    if isinstance(given, str | int) and not isinstance(given, bool) and str(given).strip():
        return f"{source}:{str(given).strip()[:150]}"
    first = messages[0]
    digest = hashlib.sha256(f"{first.at}\n{first.content}".encode()).hexdigest()[:32]
    return f"{source}:{digest}"


def _ours(data: dict) -> list[Transcript]:
    if data.get("version") != 1:
        raise ImportFormatError(f"Unsupported version {data.get('version')!r:.20}; expected 1.")
    conversations = data.get("conversations")
    if not isinstance(conversations, list):
        raise ImportFormatError("'conversations' must be a list.")
    found = []
    for number, conversation in enumerate(conversations, start=1):
        where = f"conversation {number}"
        if not isinstance(conversation, dict):
            raise ImportFormatError(f"{where} is not an object.")
        rows = conversation.get("messages")
        if not isinstance(rows, list) or not rows:
            raise ImportFormatError(f"{where} needs a list of messages.")
        if len(rows) > MAX_MESSAGES:
            raise ImportFormatError(f"{where} has more than {MAX_MESSAGES:,} messages.")
        messages: list[Said] = []
        for position, row in enumerate(rows, start=1):
            at = f"{where}, message {position}"
            if not isinstance(row, dict):
                raise ImportFormatError(f"{at} is not an object.")
            role = ROLES.get(row.get("role"))
            if role is None:
                raise ImportFormatError(f"{at}: role must be user or assistant.")
            content = _text(row.get("content"), f"{at} content")
            if content:
                messages += _said(role, content, _moment(row.get("at"), f"{at} at"))
        if messages:
            title = _text(conversation.get("title", ""), f"{where} title", limit=200)
            found.append(
                Transcript(_key("talkingrock", conversation.get("id"), messages), title, messages)
            )
    return found


def _chatgpt(conversations: list[dict]) -> list[Transcript]:
    found = []
    for number, conversation in enumerate(conversations, start=1):
        where = f"conversation {number}"
        mapping = conversation.get("mapping")
        if not isinstance(mapping, dict):
            raise ImportFormatError(f"{where}: 'mapping' must be an object of messages.")
        node_id = conversation.get("current_node")
        if node_id not in mapping:  # no pointer to the last message: the newest leaf
            leaves = [
                k for k, n in mapping.items() if isinstance(n, dict) and not n.get("children")
            ]
            node_id = leaves[-1] if leaves else None
        chain, seen = [], set()
        while node_id is not None and node_id in mapping and node_id not in seen:
            seen.add(node_id)
            node = mapping[node_id]
            if not isinstance(node, dict):
                raise ImportFormatError(f"{where}: message {node_id!r:.40} is not an object.")
            chain.append(node)
            node_id = node.get("parent")
        started = conversation.get("create_time")
        messages: list[Said] = []
        for node in reversed(chain):
            message = node.get("message")
            if not isinstance(message, dict):
                continue  # the root, and nodes the export left empty
            role = ROLES.get((message.get("author") or {}).get("role"))
            content = message.get("content") or {}
            if role is None or not isinstance(content, dict):
                continue  # system and tool messages
            if content.get("content_type") not in (None, "text", "multimodal_text"):
                continue  # code runs, browsing and images: not something said
            parts = [p for p in content.get("parts") or [] if isinstance(p, str)]
            text = _text("\n".join(parts), f"{where} message")
            if not text:
                continue
            when = message.get("create_time") or started
            messages += _said(role, text, _moment(when, f"{where} message time"))
        if messages:
            title = _text(conversation.get("title") or "", f"{where} title", limit=200)
            given = conversation.get("conversation_id") or conversation.get("id")
            found.append(Transcript(_key("chatgpt", given, messages), title, messages))
    return found


def _claude(conversations: list[dict]) -> list[Transcript]:
    found = []
    for number, conversation in enumerate(conversations, start=1):
        where = f"conversation {number}"
        rows = conversation.get("chat_messages")
        if not isinstance(rows, list):
            raise ImportFormatError(f"{where}: 'chat_messages' must be a list.")
        messages: list[Said] = []
        for position, row in enumerate(rows, start=1):
            at = f"{where}, message {position}"
            if not isinstance(row, dict):
                raise ImportFormatError(f"{at} is not an object.")
            role = ROLES.get(row.get("sender"))
            if role is None:
                continue
            text = row.get("text")
            if not text and isinstance(row.get("content"), list):
                text = "\n".join(
                    part.get("text", "")
                    for part in row["content"]
                    if isinstance(part, dict) and part.get("type") == "text"
                )
            text = _text(text or "", f"{at} text")
            if text:
                messages += _said(role, text, _moment(row.get("created_at"), f"{at} created_at"))
        if messages:
            title = _text(conversation.get("name") or "", f"{where} name", limit=200)
            found.append(
                Transcript(_key("claude", conversation.get("uuid"), messages), title, messages)
            )
    return found


# --- queueing and living them through -------------------------------------------------------------


def queue(*, owner, data: Any, enqueue: bool = True) -> ConversationImport:
    """Read and check ``data`` now (``ImportFormatError`` changes nothing), then leave the
    importing to the worker (``enqueue=False``: the caller runs it, as ``manage.py
    import_conversations`` does); conversations already imported are marked so at once."""
    source, transcripts = read(data)
    known = set(
        Conversation.objects.filter(
            owner=owner, imported_from__in=[t.key for t in transcripts]
        ).values_list("imported_from", flat=True)
    )
    report = [_entry(t, "already imported" if t.key in known else "waiting") for t in transcripts]
    job = ConversationImport.objects.create(
        owner=owner,
        source=source,
        transcripts=[asdict(t) for t in transcripts if t.key not in known],
        report=report,
    )
    if not job.transcripts:
        _finish(job)
        job.refresh_from_db()
        return job
    if enqueue:
        jobs.enqueue("conversations.tasks.import_conversations", job.pk, owner_id=owner.pk)
    return job


def _entry(transcript: Transcript, state: str) -> dict[str, Any]:
    return {
        "key": transcript.key,
        "title": transcript.title,
        "started_at": transcript.started_at,
        "messages": len(transcript.messages),
        "state": state,
        "conversation": None,
    }


def step(import_id: int) -> tuple[str, bool]:
    """Import the oldest conversation still waiting: (what became of it, whether more wait).
    One at a time, so that no worker task outlives its timeout however long the file; safe to
    run twice (each conversation once). A failure marks the import failed, with the reason;
    what was imported stays, and ``retry`` takes up the rest."""
    job = ConversationImport.objects.select_related("owner").filter(pk=import_id).first()
    if job is None or job.status == ConversationImport.Status.DONE:
        return "nothing to do", False
    if not job.transcripts:
        _finish(job)
        return "done", False
    ConversationImport.objects.filter(pk=job.pk).update(
        status=ConversationImport.Status.RUNNING, error=""
    )
    waiting = job.transcripts[0]
    transcript = Transcript(
        waiting["key"], waiting["title"], [Said(**m) for m in waiting["messages"]]
    )
    try:
        state, conversation_id = live_through(job.owner, transcript)
    except Exception as error:
        log.exception("Import %s failed at %s", job.pk, transcript.key)
        ConversationImport.objects.filter(pk=job.pk).update(
            status=ConversationImport.Status.FAILED,
            error=f"{transcript.title or transcript.key}: {type(error).__name__}: {error}"[:2000],
        )
        return "failed", False
    more = _record(job, transcript.key, state, conversation_id)
    if not more:
        _finish(job)
    return f"{transcript.title or transcript.key}: {state}", more


def work(import_id: int) -> str:
    """The worker's task: one conversation, then the next as a task of its own."""
    outcome, more = step(import_id)
    if more:
        owner_id = ConversationImport.objects.values_list("owner_id", flat=True).get(pk=import_id)
        jobs.enqueue("conversations.tasks.import_conversations", import_id, owner_id=owner_id)
    return outcome


def run(import_id: int, *, progress=None) -> str:
    """Every waiting conversation, one after the other (``manage.py import_conversations``)."""
    while True:
        outcome, more = step(import_id)
        if progress and outcome not in ("nothing to do", "done"):
            progress(outcome)
        if not more:
            return ConversationImport.objects.get(pk=import_id).status


def retry(job: ConversationImport) -> None:
    """A failed import tries again from where it stopped, in the worker."""
    updated = ConversationImport.objects.filter(
        pk=job.pk, status=ConversationImport.Status.FAILED
    ).update(status=ConversationImport.Status.QUEUED, error="")
    if updated:
        jobs.enqueue("conversations.tasks.import_conversations", job.pk, owner_id=job.owner_id)


def _finish(job: ConversationImport) -> None:
    ConversationImport.objects.filter(pk=job.pk).update(
        status=ConversationImport.Status.DONE, finished_at=timezone.now(), transcripts=[]
    )


def _record(job: ConversationImport, key: str, state: str, conversation_id: int | None) -> bool:
    """Note what became of one conversation; whether others still wait."""
    with transaction.atomic():
        current = ConversationImport.objects.select_for_update().get(pk=job.pk)
        for entry in current.report:
            if entry["key"] == key:
                entry["state"], entry["conversation"] = state, conversation_id
        current.transcripts = [t for t in current.transcripts if t["key"] != key]
        current.save(update_fields=["report", "transcripts"])
        return bool(current.transcripts)


def live_through(owner, transcript: Transcript) -> tuple[str, int | None]:
    """One conversation as it happened: its messages with their times (and as evidence),
    closed, compressed and kept as the review comes, on its own day. ("imported", id), or
    ("already imported", id) when it was. A conversation a stopped worker left half way is
    taken up where it stopped."""
    conversation = Conversation.objects.filter(owner=owner, imported_from=transcript.key).first()
    if conversation is None:
        try:
            conversation = _store(owner, transcript)
        except IntegrityError:  # another run stored it meanwhile
            conversation = Conversation.objects.get(owner=owner, imported_from=transcript.key)
            return "already imported", conversation.pk
    elif conversation.status == Conversation.Status.ARCHIVED:
        return "already imported", conversation.pk
    if not conversation.review_ready:
        outcome = compression.compress(conversation.pk)
        conversation.refresh_from_db()
        if not conversation.review_ready:
            raise RuntimeError(f"compressing {transcript.key} did not finish: {outcome}")
    review.confirm(conversation=conversation, at=conversation.last_message_at)
    return "imported", conversation.pk


def _store(owner, transcript: Transcript) -> Conversation:
    said = [(m, datetime.fromisoformat(m.at)) for m in transcript.messages]
    first, last = said[0][1], said[-1][1]
    with transaction.atomic():
        conversation = Conversation.objects.create(
            owner=owner,
            imported_from=transcript.key,
            title=titles.clean(transcript.title),  # its own title, where the export gives one
            started_at=first,
            last_message_at=last,
            closed_at=last,
            message_count=len(said),
            status=Conversation.Status.COMPRESSING,
            compression_stage=Conversation.Stage.QUEUED,
            compression_started_at=timezone.now(),
        )
        messages = Message.objects.bulk_create(
            Message(
                conversation=conversation,
                role=m.role,
                content=m.content,
                position=position,
                created_at=at,
            )
            for position, (m, at) in enumerate(said)
        )
        evidence.record_many(owner=owner, said=[services.said_of(m) for m in messages])
    return conversation
