"""What the household shares (issue 25), as services: shared acts and who is in them, a memory
or a single thread shared into one and taken back, and the changes anyone in the act makes to
what is shared. Refusals are ``ShareError`` with a message.

Each member of a shared act holds it as an act of their own, and each shared memory as a row of
their own: the sharer keeps their original, everyone else gets a copy (memories/models/
sharing.py says why). So:

- sharing writes a copy into each other member's place in the act, with its threads; a copy
  carries no conversation, so nothing else said in it is exposed;
- a correction or a thread closed on any row is written to every row of that share, and logged
  with who made it; the first wording is kept on each row (``original_content``);
- leaving the act, being removed from it, or the sharer taking a memory back deletes the copies
  at once: they are a view of what was shared, not the member's own words.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Q

from memories import indexing
from memories.acts import ensure_your_story
from memories.models import Act, Memory, MemoryItem, Share, ShareChange, SharedAct
from talkingrock import jobs
from talkingrock.text import clean_text, shortened


class ShareError(Exception):
    """A change sharing does not allow; ``message`` says why in the member's words."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


def name_of(member) -> str:
    return member.get_short_name() or member.get_username()


# --- shared acts and who is in them ------------------------------------------------------------


def household():
    """Everyone a shared act can hold: the household's active members."""
    return get_user_model().objects.filter(is_active=True).order_by("username")


def places(member):
    """The member's places in shared acts: their own act row for each."""
    return Act.objects.filter(owner=member, shared__isnull=False).select_related("shared")


def members_of(shared: SharedAct):
    """Who is in a shared act, by name."""
    return get_user_model().objects.filter(acts__shared=shared).order_by("username")


def copies(member) -> Q:
    """The member's copies of what others shared (and the carriers of threads shared on their
    own): a view of the household's, not the member's own words, so no export of theirs holds
    them."""
    return Q(share__isnull=False) & (~Q(share__shared_by=member) | Q(share__item__isnull=False))


def spread(share: Share) -> None:
    """Everyone in the act who has no row of ``share`` gets a copy of the sharer's (a backup
    restored into a shared act the member is in)."""
    source = Memory.objects.filter(share=share, owner_id=share.shared_by_id).first()
    if source is not None:
        _copy_to_others(source, share)


def _title(text: str) -> str:
    """A shared act's title as typed, on one line, spaces folded; ShareError when empty."""
    title = " ".join(clean_text(text, multiline=False).split())[:200]
    if not title:
        raise ShareError("A shared act needs a title.")
    return title


def place_of(member, shared: SharedAct) -> Act | None:
    return Act.objects.filter(owner=member, shared=shared).first()


def _household(ids: Iterable[int]) -> list:
    """The active members with these ids; an id that is no member is refused, not ignored."""
    ids = {int(pk) for pk in ids}
    found = list(household().filter(pk__in=ids))
    if len(found) != len(ids):
        raise ShareError("Choose members of this household.")
    return found


@transaction.atomic
def create_shared_act(*, creator, title: str, member_ids: Iterable[int]) -> Act:
    """A new shared act with the creator and the chosen members in it; the creator's place."""
    title = _title(title)
    others = [m for m in _household(member_ids) if m.pk != creator.pk]
    if not others:
        raise ShareError("Choose at least one other member to share it with.")
    shared = SharedAct.objects.create(title=title, created_by=creator)
    place = Act.objects.create(owner=creator, title=title, shared=shared)
    for member in others:
        Act.objects.create(owner=member, title=title, shared=shared)
    return place


def may_manage(place: Act) -> bool:
    """Whether the owner of ``place`` may add members or take them out: the member who made the
    act, or anyone in it once they have left. Anyone may leave."""
    shared = _shared(place)
    return (
        shared.created_by_id == place.owner_id
        or not shared.acts.filter(owner_id=shared.created_by_id).exists()
    )


@transaction.atomic
def add_members(*, place: Act, member_ids: Iterable[int]) -> list:
    """Bring members into the act of ``place`` (its owner's): each gets a copy of everything
    shared in it so far."""
    shared = _shared(place)
    if not may_manage(place):
        raise ShareError(f"Ask {_creator_name(shared)}, who made this act, to add members.")
    new = [m for m in _household(member_ids) if place_of(m, shared) is None]
    for member in new:
        row = Act.objects.create(owner=member, title=shared.title, shared=shared)
        for share in shared.shares.all():
            if (source := _any_row(share)) is not None:
                _copy(source, share, row)
        indexing.request_indexing(owner_id=member.pk)
    return new


@transaction.atomic
def remove_member(*, place: Act, member_id: int) -> None:
    """Leave a shared act (``member_id`` is the owner of ``place``), or take another member out
    of it (``may_manage``)."""
    shared = _shared(place)
    row = Act.objects.filter(owner_id=member_id, shared=shared).first()
    if row is None:
        raise ShareError("That member is not in this shared act.")
    if row != place and not may_manage(place):
        raise ShareError(f"Only {_creator_name(shared)}, who made this act, can take others out.")
    _leave(row)


def _creator_name(shared: SharedAct) -> str:
    return name_of(shared.created_by) if shared.created_by else "the member who made it"


def _leave(row: Act) -> None:
    """The member stops seeing what others shared in the act, at once. What they shared stays
    shared with the others, back in the act it came from on their side (they can still take it
    back from its page); what was said in their conversations goes back to Your Story."""
    member = row.owner
    copies_gone = False
    for memory in Memory.objects.filter(act=row).select_related("share"):
        if is_original(memory):
            memory.act = _home_of(memory)
            memory.save(update_fields=["act"])
        else:
            memory.delete()  # a copy: what others shared leaves with the member's place
            copies_gone = True
    Memory.everything.filter(act=row).update(act=ensure_your_story(owner=member))
    shared = row.shared
    row.delete()
    if copies_gone:
        _forget_statistics([member.pk])
    if not shared.acts.exists():
        shared.delete()


def _forget_statistics(owner_ids) -> None:
    """Their keyword indexes are written again in the worker: FTS5 keeps a deleted row's part of
    the statistics until then, and those rows are no longer theirs to see."""
    for owner_id in set(owner_ids):
        jobs.enqueue("memories.tasks.rebuild_keyword_index", owner_id, owner_id=owner_id)


@transaction.atomic
def rename(*, place: Act, title: str) -> None:
    """A new title for a shared act, for everyone in it (its maker's to give)."""
    shared, title = _shared(place), _title(title)
    if shared.title == title:
        return
    if not may_manage(place):
        raise ShareError(f"Ask {_creator_name(shared)}, who made this act, to rename it.")
    shared.title = title
    shared.save(update_fields=["title"])
    shared.acts.update(title=title)


def _shared(place: Act) -> SharedAct:
    if place.shared_id is None:
        raise ShareError("This act is not shared.")
    return place.shared


# --- sharing a memory or a thread, and taking it back ------------------------------------------


@transaction.atomic
def share_memory(*, memory: Memory, place: Act) -> Share:
    """Share one of the member's kept memories (a conversation's memory with its threads, a
    fact, a note) into a shared act they are in."""
    owner = memory.owner
    if place.owner_id != owner.pk or place.shared_id is None:
        raise ShareError("Choose a shared act you are in.")
    if memory.kind not in (Memory.Kind.MEMORY, Memory.Kind.FACT):
        raise ShareError("Only what you keep can be shared, not a message.")
    if memory.status != Memory.Status.CONFIRMED:
        raise ShareError("Review this conversation first; then share what you kept.")
    if memory.share_id is not None:
        raise ShareError(f"This is already shared in “{memory.act.title}”.")
    share = Share.objects.create(
        shared_act_id=place.shared_id,
        shared_by=owner,
        sharer_name=name_of(owner),
        from_act=memory.act,
    )
    memory.act, memory.share = place, share
    memory.save(update_fields=["act", "share"])
    for item in memory.items.filter(share_key=None):
        item.share_key = uuid.uuid4()
        item.save(update_fields=["share_key"])
    _copy_to_others(memory, share)
    _log(share, owner, ShareChange.What.SHARED, shortened(memory.content, words=12))
    return share


@transaction.atomic
def share_item(*, item: MemoryItem, place: Act) -> Share:
    """Share one thread on its own (a waiting-on, a task, a decision): the others get it in a
    memory of its own words; the sharer's stays where it is, and closing either closes both."""
    owner = item.memory.owner
    if place.owner_id != owner.pk or place.shared_id is None:
        raise ShareError("Choose a shared act you are in.")
    if item.memory.status != Memory.Status.CONFIRMED:
        raise ShareError("Review this conversation first; then share what you kept.")
    if item.share_key is not None:
        raise ShareError("This thread is already shared.")
    item.share_key = uuid.uuid4()
    item.save(update_fields=["share_key"])
    share = Share.objects.create(
        shared_act_id=place.shared_id,
        shared_by=owner,
        sharer_name=name_of(owner),
        from_act=item.memory.act,
        item=item,
    )
    carrier = _carrier(item)
    _copy_to_others(carrier, share)
    _log(share, owner, ShareChange.What.SHARED, shortened(item.text, words=12))
    return share


@transaction.atomic
def take_back(*, memory: Memory) -> None:
    """The sharer takes a shared memory back: every copy goes at once, and theirs returns to the
    act it came from (Your Story when that act is gone)."""
    share = memory.share
    if share is None:
        raise ShareError("This memory is not shared.")
    if not is_original(memory):
        raise ShareError(f"Only {share.sharer_name}, who shared it, can take it back.")
    copies = Memory.objects.filter(share=share).exclude(pk=memory.pk)
    owners = list(copies.values_list("owner_id", flat=True))
    copies.delete()
    _make_private(memory)
    share.delete()
    _forget_statistics(owners)


@transaction.atomic
def take_back_item(*, item: MemoryItem) -> None:
    """The sharer takes a thread shared on its own back."""
    share = Share.objects.filter(item=item, shared_by=item.memory.owner).first()
    if share is None:
        raise ShareError("This thread is not shared on its own.")
    carriers = Memory.objects.filter(share=share)
    owners = list(carriers.values_list("owner_id", flat=True))
    carriers.delete()
    _forget_statistics(owners)
    item.share_key = None
    item.save(update_fields=["share_key"])
    share.delete()


def _home_of(memory: Memory) -> Act:
    """The sharer's act a shared memory came from, else (gone, or itself shared) Your Story."""
    back = memory.share.from_act if memory.share else None
    if back is None or back.owner_id != memory.owner_id or back.shared_id is not None:
        back = ensure_your_story(owner=memory.owner)
    return back


def _make_private(memory: Memory) -> None:
    back = _home_of(memory)
    memory.act, memory.share = back, None
    memory.save(update_fields=["act", "share"])
    memory.items.update(share_key=None)
    if memory.conversation_id is not None:
        Memory.everything.filter(
            conversation_id=memory.conversation_id,
            kind__in=Memory.EVIDENCE,
            act__shared__isnull=False,
        ).update(act=back)


def is_original(memory: Memory) -> bool:
    """Whether ``memory`` is its sharer's own (not a copy, nor a thread's carrier)."""
    share = memory.share
    return share is not None and share.shared_by_id == memory.owner_id and share.item_id is None


def _any_row(share: Share) -> Memory | None:
    """What to copy for a member who joins later: the sharer's row, else anyone's, else (a
    thread shared on its own that no one else holds now) a carrier for the sharer's thread."""
    rows = Memory.objects.filter(share=share)
    row = rows.filter(owner_id=share.shared_by_id).first() or rows.order_by("pk").first()
    if row is None and share.item is not None:
        row = _carrier(share.item)
    return row


def _carrier(item: MemoryItem) -> Memory:
    """A memory (unsaved) of a thread's own words, to carry it to the others."""
    carrier = Memory(
        owner_id=item.memory.owner_id,
        content=f"{item.get_type_display()}: {item.text}",
        source=Memory.Source.MANUAL,
        happened_at=item.memory.happened_at,
        created_at=item.created_at,
    )
    carrier.items_to_copy = [item]
    return carrier


def _copy_to_others(source: Memory, share: Share) -> None:
    """A copy of ``source`` for everyone in the act but its owner who has no row of ``share``."""
    places = share.shared_act.acts.exclude(owner_id=source.owner_id)
    for row in places.exclude(owner__memories__share=share):
        _copy(source, share, row)
        indexing.request_indexing(owner_id=row.owner_id)


def _copy(source: Memory, share: Share, row: Act) -> Memory:
    """The member of ``row`` gets their own row of a shared memory, with its threads."""
    copy = Memory.objects.create(
        owner_id=row.owner_id,
        act=row,
        share=share,
        content=source.content,
        source=source.source,
        tags=source.tags,
        kind=source.kind,
        subject=source.subject,
        relation=source.relation,
        derived_from=_row_of(source.derived_from, row.owner_id),
        # What the sharer wrote before sharing stays theirs: a copy starts at the shared words.
        user_reviewed=source.user_reviewed,
        extraction_engine=source.extraction_engine,
        confidence=source.confidence,
        happened_at=source.happened_at,
        details=source.details,
        created_at=source.created_at,
        valid_to=source.valid_to,
        superseded_by=_row_of(source.superseded_by, row.owner_id),
    )
    items = getattr(source, "items_to_copy", None) or source.items.all()
    MemoryItem.objects.bulk_create(
        MemoryItem(
            memory=copy,
            type=item.type,
            data=item.data,
            is_active=item.is_active,
            resolved_at=item.resolved_at,
            resolution=item.resolution
            or ("" if item.is_active else MemoryItem.Resolution.CONVERSATION),
            valid_to=item.valid_to,
            share_key=item.share_key,
            changed_by=item.changed_by,
            created_at=item.created_at,
        )
        for item in items
    )
    return copy


def _row_of(memory: Memory | None, owner_id: int) -> Memory | None:
    """The member's own row of a shared memory (None when it is not shared with them)."""
    if memory is None or memory.share_id is None:
        return None
    return Memory.objects.filter(share_id=memory.share_id, owner_id=owner_id).first()


# --- changes anyone in the act makes ------------------------------------------------------------


def corrected(memory: Memory, *, before: str) -> None:
    """A member corrected their row of a shared memory: every row says it the same way now,
    each keeping its first wording. Inside the caller's transaction."""
    if memory.share_id is None or memory.content == before:
        return
    for row in Memory.objects.filter(share_id=memory.share_id).exclude(pk=memory.pk):
        if not row.user_edited:
            row.original_content = row.content
        row.user_edited = True
        row.content = memory.content
        row.save(update_fields=["content", "original_content", "user_edited"])
        indexing.request_indexing(owner_id=row.owner_id)
    _log(memory.share, memory.owner, ShareChange.What.CORRECTED, shortened(before, words=12))


def item_changed(item: MemoryItem, *, actor) -> None:
    """A member closed or reopened a shared thread on their row: it is closed (or open) on every
    row, saying who did it. Inside the caller's transaction."""
    if item.share_key is None:
        return
    twins = MemoryItem.objects.filter(share_key=item.share_key).exclude(pk=item.pk)
    twins.update(
        is_active=item.is_active,
        resolution=item.resolution
        or ("" if item.is_active else MemoryItem.Resolution.CONVERSATION),
        resolved_at=item.resolved_at,
        resolved_by=None,
        changed_by=name_of(actor),
    )
    if item.changed_by:
        MemoryItem.objects.filter(pk=item.pk).update(changed_by="")
    share = _share_of_item(item)
    if share is not None:
        what = ShareChange.What.REOPENED if item.is_active else ShareChange.What.CLOSED
        _log(share, actor, what, shortened(item.text, words=12))


def items_closed_by_conversation(item_ids: Iterable[int], *, actor) -> None:
    """A later conversation of ``actor`` closed these threads (at its review)."""
    for item in MemoryItem.objects.filter(pk__in=list(item_ids), share_key__isnull=False):
        item_changed(item, actor=actor)


def _share_of_item(item: MemoryItem) -> Share | None:
    by_item = Share.objects.filter(item__share_key=item.share_key).first()
    if by_item is not None:
        return by_item
    return Share.objects.filter(rows__items__share_key=item.share_key).first()


def _log(share: Share, member, what: str, detail: str = "") -> None:
    ShareChange.objects.create(
        share=share, by=member, by_name=name_of(member), what=what, detail=detail[:500]
    )


# --- what a member is shown -----------------------------------------------------------------------


def changes_of(memory: Memory):
    """Who did what to a shared memory, oldest first."""
    if memory.share_id is None:
        return ShareChange.objects.none()
    return ShareChange.objects.filter(share_id=memory.share_id)
