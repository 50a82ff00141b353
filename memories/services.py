"""Writes and orchestration for memories: the five tools of seed 001, archive and prune.

Every function takes the owner explicitly and only ever touches that owner's rows; an id that is
not theirs raises ``Memory.DoesNotExist`` exactly as a missing one does.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import date, datetime, time

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import F
from django.utils import timezone
from django.utils.dateparse import parse_date, parse_datetime

from memories import indexing, search, sharing
from memories.acts import ensure_your_story
from memories.models import Act, Memory
from talkingrock.text import clean_text


def _config(key: str):
    return settings.TALKINGROCK_MEMORY[key]


def clean_content(content: object) -> str:
    """The text of a memory: control characters removed (talkingrock/text.py), trimmed, and
    within the length limit."""
    if not isinstance(content, str):
        raise ValidationError("content must be text.")
    content = clean_text(content).strip()
    if not content:
        raise ValidationError("content is empty: a memory needs some text.")
    limit = _config("max_content_length")
    if len(content) > limit:
        raise ValidationError(f"content is {len(content):,} characters; the limit is {limit:,}.")
    return content


def clean_tags(tags: object) -> str:
    """Normalise tags to "a, b, c": accepts a comma-separated string or a list of strings."""
    if tags is None:
        return ""
    if isinstance(tags, str):
        parts = tags.split(",")
    elif isinstance(tags, list | tuple) and all(isinstance(t, str) for t in tags):
        parts = list(tags)
    else:
        raise ValidationError("tags must be a comma-separated string or a list of strings.")
    kept: dict[str, str] = {}  # casefolded → first spelling seen
    for part in parts:
        tag = " ".join(clean_text(part, multiline=False).split())
        if tag:
            kept.setdefault(tag.casefold(), tag)
    cleaned = ", ".join(kept.values())
    if len(cleaned) > Memory._meta.get_field("tags").max_length:
        raise ValidationError("tags are too long (500 characters at most).")
    return cleaned


SESSION_LENGTH = 200
_WHEN_HELP = "an ISO date (2026-03-12) or date-time (2026-03-12T09:30:00+00:00)"


def clean_session(session: object) -> str:
    """A session name: any text on one line, spaces folded, 200 characters at most."""
    if session is None:
        return ""
    if not isinstance(session, str):
        raise ValidationError("session must be text.")
    session = " ".join(clean_text(session, multiline=False).split())
    if len(session) > SESSION_LENGTH:
        raise ValidationError(f"session is too long ({SESSION_LENGTH} characters at most).")
    return session


def clean_happened_at(value: object) -> datetime | None:
    """When it happened: a datetime, or an ISO date or date-time; a date alone is midnight in
    the household's time zone, a date-time without an offset is in it too."""
    if value in (None, ""):
        return None
    if isinstance(value, datetime):
        parsed = value
    elif isinstance(value, date):
        parsed = datetime.combine(value, time())
    elif isinstance(value, str) and len(value) <= 40:
        try:
            parsed = parse_datetime(value.strip())
            if parsed is None and (day := parse_date(value.strip())) is not None:
                parsed = datetime.combine(day, time())
        except ValueError:  # well-formed but impossible: month 13, 30 February
            parsed = None
    else:
        parsed = None
    if parsed is None:
        raise ValidationError(f"happened_at must be {_WHEN_HELP}: got {str(value)[:40]!r}.")
    if timezone.is_naive(parsed):
        try:
            parsed = timezone.make_aware(parsed)
        except (OverflowError, ValueError):
            raise ValidationError(f"happened_at is out of range: {str(value)[:40]!r}.") from None
    return parsed


def get_memory(*, owner: AbstractBaseUser, memory_id: int) -> Memory:
    return Memory.objects.select_related("act").get(pk=memory_id, owner=owner)


def memory_store(
    *,
    owner: AbstractBaseUser,
    content: str,
    tags: str | list[str] | None = "",
    source: str = Memory.Source.AGENT,
    act: Act | None = None,
    happened_at=None,
    session: str | None = "",
    **fields,
) -> Memory:
    """Store one memory for ``owner``; it lands in Your Story unless an act of theirs is given.
    ``happened_at`` (a datetime or an ISO date or date-time) says when it happened, ``session``
    groups it with the owner's other memories of that session."""
    content = clean_content(content)
    tags = clean_tags(tags)
    happened_at = clean_happened_at(happened_at)
    session = clean_session(session)
    if source not in Memory.Source.values:
        raise ValidationError(f"source must be one of: {', '.join(Memory.Source.values)}.")
    if act is None:
        act = ensure_your_story(owner=owner)
    elif act.owner_id != owner.pk:
        raise Act.DoesNotExist("Act matching query does not exist.")
    # Created through the manager of every row: the kept rows' manager builds a filtered query
    # for each create (a tenth of a store's time).
    memory = Memory.everything.create(
        owner=owner,
        content=content,
        tags=tags,
        source=source,
        act=act,
        happened_at=happened_at,
        session=session,
        **fields,
    )
    indexing.request_indexing(owner_id=owner.pk)  # embed + entities, after commit
    if act.shared_id is not None and memory.status == Memory.Status.CONFIRMED:
        sharing.share_memory(memory=memory, place=act)  # kept in a shared act: shared
    return memory


@dataclass
class QueryResult:
    hits: list[tuple[Memory, search.RankedHit]]
    message: str = ""
    terms: tuple[str, ...] = field(default_factory=tuple)  # the words searched for
    dropped: tuple[str, ...] = field(default_factory=tuple)  # too common to be worth their cost


def memory_query(
    *,
    owner: AbstractBaseUser,
    query: str,
    limit: int = 5,
    include_archived: bool = False,
    now=None,
) -> QueryResult:
    """Keyword search over the owner's memories, ranked by BM25 × score weight × recency.

    Any text is accepted: what cannot be searched is sanitised away, and an empty result comes
    with a message saying why. Querying is neutral: it never changes a memory's score.
    """
    sanitised = search.sanitise(query if isinstance(query, str) else "")
    if not sanitised.terms:
        return QueryResult(
            hits=[],
            message="Nothing to search for: the query has no words of two or more characters.",
        )
    terms, dropped = search.within_budget(sanitised.terms, owner_id=owner.pk)
    rows = search.keyword_search(
        owner_id=owner.pk,
        match=search.match_expression(terms),
        limit=limit,
        include_archived=include_archived,
        now=now or timezone.now(),
    )
    memories = Memory.objects.select_related("act").in_bulk([row.memory_id for row in rows])
    hits = [(memories[row.memory_id], row) for row in rows if row.memory_id in memories]
    messages = []
    if sanitised.truncated:
        messages.append(f"Only the first {search.MAX_TERMS} distinct words were searched.")
    if dropped:
        messages.append(
            f"Words found in too many memories to tell them apart were left out: "
            f"{', '.join(dropped)}."
        )
    if not hits:
        messages.append("No memories matched.")
    return QueryResult(hits=hits, message=" ".join(messages), terms=terms, dropped=dropped)


def _adjust_score(*, owner, memory_id: int, delta: int, touch: bool) -> Memory:
    updates = {"score": F("score") + delta}
    if touch:
        updates["last_hit_at"] = timezone.now()
        updates["hit_count"] = F("hit_count") + 1
    if not Memory.objects.filter(pk=memory_id, owner=owner).update(**updates):
        raise Memory.DoesNotExist("Memory matching query does not exist.")
    return get_memory(owner=owner, memory_id=memory_id)


def memory_reinforce(*, owner: AbstractBaseUser, memory_id: int) -> Memory:
    """This memory helped: +reinforce_weight, and its recency clock restarts."""
    return _adjust_score(
        owner=owner, memory_id=memory_id, delta=_config("reinforce_weight"), touch=True
    )


def memory_demote(*, owner: AbstractBaseUser, memory_id: int) -> Memory:
    """This memory is wrong, stale or irrelevant: −demote_weight."""
    return _adjust_score(
        owner=owner, memory_id=memory_id, delta=-_config("demote_weight"), touch=False
    )


def memory_update(
    *,
    owner: AbstractBaseUser,
    memory_id: int,
    content: str,
    tags: str | list[str] | None = None,
    act: Act | None = None,
) -> Memory:
    """Correct a memory in place: the score stays, ``last_hit_at`` refreshes, the first wording
    is kept in ``original_content``."""
    content = clean_content(content)
    with transaction.atomic():
        memory = Memory.objects.select_for_update().get(pk=memory_id, owner=owner)
        before = memory.content
        if content != memory.content:
            if not memory.user_edited:
                memory.original_content = memory.content
            memory.user_edited = True
            memory.content = content
        if tags is not None:
            memory.tags = clean_tags(tags)
        if act is not None:
            if act.owner_id != owner.pk:
                raise Act.DoesNotExist("Act matching query does not exist.")
            if act.pk != memory.act_id and (memory.share_id or act.shared_id):
                raise sharing.ShareError(
                    "Shared memories move by sharing: share it, or take it back, from its page."
                )
            memory.act = act
        memory.last_hit_at = timezone.now()
        memory.save()
        sharing.corrected(memory, before=before)
    if memory.indexed_hash != memory.content_hash:
        indexing.request_indexing(owner_id=owner.pk)
    return memory


def memory_archive(*, owner: AbstractBaseUser, memory_id: int) -> Memory:
    Memory.objects.filter(pk=memory_id, owner=owner, archived_at=None).update(
        archived_at=timezone.now()
    )
    return get_memory(owner=owner, memory_id=memory_id)


def memory_restore(*, owner: AbstractBaseUser, memory_id: int) -> Memory:
    Memory.objects.filter(pk=memory_id, owner=owner).update(archived_at=None)
    return get_memory(owner=owner, memory_id=memory_id)


def memory_make_current(*, owner: AbstractBaseUser, memory_id: int) -> Memory:
    """Undo a replacement: the memory is current again. The one that replaced it stays as it is:
    the member archives or edits whichever no longer holds."""
    Memory.objects.filter(pk=memory_id, owner=owner).update(valid_to=None, superseded_by=None)
    return get_memory(owner=owner, memory_id=memory_id)


def memory_delete(*, owner: AbstractBaseUser, memory_id: int) -> None:
    """A member's own explicit delete: really gone, its FTS entry and vector with it (triggers).
    A memory they shared goes from everyone they shared it with too; deleting their copy of
    someone else's removes only theirs."""
    with transaction.atomic():
        memory = Memory.objects.select_related("share").filter(pk=memory_id, owner=owner).first()
        if memory is None:
            raise Memory.DoesNotExist("Memory matching query does not exist.")
        if sharing.is_original(memory):
            sharing.take_back(memory=memory)
        memory.delete()


@dataclass(frozen=True)
class PruneReport:
    database_bytes: int
    max_bytes: int
    archived_ids: list[int]

    @property
    def over_limit(self) -> bool:
        return self.database_bytes > self.max_bytes


def prune(*, force: bool = False, dry_run: bool = False, now=None) -> PruneReport:
    """Archive the bottom ``prune_percent`` of live memories by score weight × recency, but only
    when the database is larger than ``max_size`` (or ``force``). Nothing is deleted."""
    size, limit = search.database_size(), _config("max_size")
    if size <= limit and not force:
        return PruneReport(size, limit, [])
    live = Memory.objects.filter(archived_at=None, status=Memory.Status.CONFIRMED).count()
    count = math.ceil(live * _config("prune_percent") / 100)
    ids = search.prune_candidates(count=count, now=now or timezone.now()) if count else []
    if ids and not dry_run:
        Memory.objects.filter(pk__in=ids).update(archived_at=timezone.now())
    return PruneReport(size, limit, ids)
