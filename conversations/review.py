"""The review (seed 003): what the member does with a compression's draft before it is kept —
edit the narrative, the items and the facts, accept or decline each proposed resolution and
supersession, confirm it in an act, split it across acts, or resume the conversation.

Keeping it confirms the memory and its facts, closes the items accepted as resolved, marks the
decisions and facts accepted as replaced (``valid_to``, ``superseded_by``: kept as history,
never deleted) and archives the conversation.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from django.db import transaction
from django.utils import timezone

from conversations import drafts, running
from conversations.asking import transcript_of
from conversations.changes import Found
from conversations.models import Conversation, Message
from conversations.services import TransitionError
from memories import acts, evidence, indexing, sharing
from memories.models import Act, Memory, MemoryItem, StateDelta
from memories.services import clean_content
from talkingrock import jobs
from talkingrock.language import offline
from talkingrock.language.names import Gazetteer, display_name
from talkingrock.language.offline.changes import Proposal
from talkingrock.language.offline.facts import Fact
from talkingrock.language.offline.reading import Reading, Unit
from talkingrock.text import clean_text

Status = Conversation.Status


def draft_of(conversation: Conversation) -> Memory | None:
    """The conversation's draft memory (its narrative), not its facts."""
    return (
        Memory.objects.filter(
            conversation=conversation, status=Memory.Status.DRAFT, kind=Memory.Kind.MEMORY
        )
        .select_related("act")
        .order_by("pk")
        .first()
    )


def facts_of(memory: Memory) -> list[Memory]:
    return list(memory.facts.filter(status=Memory.Status.DRAFT).order_by("pk"))


def _reviewable(conversation: Conversation) -> tuple[Conversation, Memory]:
    current = Conversation.objects.get(pk=conversation.pk, owner_id=conversation.owner_id)
    if current.status == Status.ARCHIVED:
        raise TransitionError("This conversation is already archived: its memory was kept.")
    if not current.review_ready:
        raise TransitionError("The memory is not ready for review yet.")
    memory = draft_of(current)
    if memory is None:
        raise TransitionError("This conversation has no memory waiting for review.")
    return current, memory


def set_content(memory: Memory, text: str) -> None:
    """Edit a memory's text; the engine's wording is kept as the original."""
    text = clean_content(text)
    if text != memory.content:
        if not memory.user_edited:
            memory.original_content = memory.content
        memory.user_edited = True
        memory.content = text


def save_edits(
    *,
    conversation: Conversation,
    narrative: str | None = None,
    destination: Act | None = None,
    fact_acts: dict[int, Act] | None = None,
) -> Memory:
    """Keep the review's choices on the draft without confirming it: its text, its act and the
    acts its facts were given (``route``)."""
    with transaction.atomic():
        _, memory = _reviewable(conversation)
        route(memory, destination=destination, fact_acts=fact_acts)
        if narrative is not None:
            set_content(memory, narrative)
            memory.save(update_fields=["content", "user_edited", "original_content"])
    return memory


# --- where the draft and its facts go --------------------------------------------------------


def act_named(*, owner, name: str) -> Act:
    """The member's act called ``name`` (in any case), else a new one: typing the name of an act
    they already have puts the memory there rather than making a second of that name. An
    archived act of that name comes back out of the archive: something is being kept in it."""
    title = " ".join(clean_text(name, multiline=False).split())
    if title.casefold() == acts.YOUR_STORY_TITLE.casefold():
        return acts.ensure_your_story(owner=owner)
    if (same := acts.act_of_title(owner, title)) is not None:
        if same.status == Act.Status.ARCHIVED:
            acts.set_act_archived(act=same, archived=False)
        return same
    try:
        return acts.create_act(owner=owner, title=title)
    except acts.ActError as error:
        raise TransitionError(error.message) from None


def route(
    memory: Memory, *, destination: Act | None = None, fact_acts: dict[int, Act] | None = None
) -> Memory:
    """Send a draft to ``destination``, taking along the facts that are with it; a fact given an
    act of its own (``fact_acts``: fact id → act) goes there and stays there when the memory
    moves later. Inside the caller's transaction."""
    fact_acts = fact_acts or {}
    for act in [destination, *fact_acts.values()]:
        if act is not None and act.owner_id != memory.owner_id:
            raise Act.DoesNotExist("Act matching query does not exist.")
    facts = Memory.objects.filter(derived_from=memory, status=Memory.Status.DRAFT)
    if stray := set(fact_acts) - set(facts.values_list("pk", flat=True)):
        raise TransitionError(f"Items {sorted(stray)} are not part of this memory.")
    if destination is not None and destination.pk != memory.act_id:
        facts.filter(act_id=memory.act_id).exclude(pk__in=fact_acts).update(act=destination)
        memory.act = destination
        memory.save(update_fields=["act"])
    for pk, act in fact_acts.items():
        facts.filter(pk=pk).update(act=act)
    return memory


# --- the narrative, written again from what is left --------------------------------------------


def narrative_from(memory: Memory) -> str:
    """A draft's narrative written again by the offline engine (the compression's own builder)
    from what the draft holds now: its items and facts in the words they have (the member's,
    as extracted or as corrected) and the changes still ticked. It never names the act."""
    conversation = memory.conversation
    if conversation is None:
        return memory.content
    items: dict[str, list[dict]] = {kind: [] for kind in drafts.KIND_TO_TYPE}
    for item in memory.items.order_by("pk"):
        if (kind := drafts.TYPE_TO_KIND.get(item.type)) is not None:
            items[kind].append(dict(item.data))
    facts = [Fact(f.content, f.subject, f.relation, 0, f.content) for f in facts_of(memory)]
    day = (conversation.started_at or conversation.closed_at or timezone.now()).date()
    person = display_name(memory.owner)
    # When nothing is left to tell, the builder says what was talked about from the first thing
    # the member said. That one message stands in for the full reading, which would parse and
    # embed the whole transcript inside the review's transaction.
    said = next(
        (text for role, text in transcript_of(conversation) if role == Message.Role.USER), ""
    )
    first = [Unit(index=0, message=0, text=said, tokens=())] if said else []
    reading = Reading(units=first, gazetteer=Gazetteer(), member=person, household=[person])
    return offline.narrative(
        offline.Extraction(reading, items, facts),
        person=person,
        day=day,
        changed=_changed(memory),
    )


def _changed(memory: Memory) -> list[str]:
    """What the draft still changes in earlier threads (the deltas ticked), said in the words the
    compression uses for it (changes.Found.sentences)."""
    earlier: dict[tuple, str] = {}
    found = Found(produced=None, entities={})  # only its sentences are wanted here
    for delta in memory.deltas.filter(ticked=True).order_by("pk"):
        key = ("delta", delta.pk)
        if delta.resolves:
            earlier[key] = str(delta.data.get("item", ""))
            found.resolutions.append(Proposal(key, delta.type, "resolves", "", 1.0, ""))
        elif delta.type == StateDelta.Type.SUPERSEDED:
            earlier[key] = str(delta.data.get("old", ""))
            found.supersessions.append(Proposal(key, delta.type, "supersedes", "", 1.0, ""))
    return found.sentences(earlier)


def update_item(*, item: MemoryItem, main: str, detail: str = "") -> MemoryItem:
    main_key, detail_key = MemoryItem.FIELDS[item.type]
    main, detail = clean_text(main, multiline=False), clean_text(detail, multiline=False)
    if not main.strip():
        raise TransitionError("An item needs some text; remove it instead.")
    item.data = {**item.data, main_key: main.strip()[:300]}
    if detail_key:
        item.data[detail_key] = detail.strip()[:300]
    item.save(update_fields=["data"])
    return item


def add_item(*, memory: Memory, type: str, main: str, detail: str = "") -> MemoryItem:
    if type not in MemoryItem.FIELDS:
        raise TransitionError(f"Unknown item type: {type}.")
    main, detail = clean_text(main, multiline=False), clean_text(detail, multiline=False)
    if not main.strip():
        raise TransitionError("An item needs some text.")
    main_key, detail_key = MemoryItem.FIELDS[type]
    data = {main_key: main.strip()[:300]}
    if detail_key and detail.strip():
        data[detail_key] = detail.strip()[:300]
    return MemoryItem.objects.create(memory=memory, type=type, data=data)


def update_fact(*, fact: Memory, text: str) -> Memory:
    set_content(fact, text)
    fact.save(update_fields=["content", "user_edited", "original_content"])
    return fact


def add_fact(*, memory: Memory, text: str) -> Memory:
    return Memory.objects.create(
        owner=memory.owner,
        content=clean_content(text),
        kind=Memory.Kind.FACT,
        source=Memory.Source.MANUAL,
        act=memory.act,
        conversation=memory.conversation,
        derived_from=memory,
        status=Memory.Status.DRAFT,
        user_edited=True,
        happened_at=memory.happened_at,
        narrative=memory.narrative,
    )


@dataclass
class Edits:
    """Changes to a memory's narrative, items and facts: what the review screen's form and the
    edit_memory tool both ask for, applied by ``edit`` in one transaction."""

    narrative: str | None = None
    items: dict[int, tuple[str, str]] = field(default_factory=dict)  # id → (main, detail)
    remove_items: list[int] = field(default_factory=list)
    add_items: list[tuple[str, str, str]] = field(default_factory=list)  # (type, main, detail)
    facts: dict[int, str] = field(default_factory=dict)  # id → text
    remove_facts: list[int] = field(default_factory=list)
    add_facts: list[str] = field(default_factory=list)


def edit(memory: Memory, edits: Edits) -> Memory:
    """Apply ``edits`` to a memory (a draft under review, or one already kept) and to its own
    items and facts; ids that are not the memory's are refused."""
    with transaction.atomic():
        memory = Memory.objects.select_for_update().get(pk=memory.pk, owner_id=memory.owner_id)
        items = {item.pk: item for item in memory.items.all()}
        facts = {fact.pk: fact for fact in memory.facts.all()}
        stray = (set(edits.items) | set(edits.remove_items)) - set(items)
        stray |= (set(edits.facts) | set(edits.remove_facts)) - set(facts)
        if stray:
            raise TransitionError(f"Items {sorted(stray)} are not part of this memory.")
        if edits.narrative is not None:
            set_content(memory, edits.narrative)
            memory.save(update_fields=["content", "user_edited", "original_content"])
        for pk, (main, detail) in edits.items.items():
            if pk not in edits.remove_items:
                update_item(item=items[pk], main=main, detail=detail)
        MemoryItem.objects.filter(memory=memory, pk__in=edits.remove_items).delete()
        for type_, main, detail in edits.add_items:
            add_item(memory=memory, type=type_, main=main, detail=detail)
        for pk, text in edits.facts.items():
            if pk not in edits.remove_facts:
                update_fact(fact=facts[pk], text=text)
        # A draft's fact was never kept, so removing it deletes it; a kept fact is archived.
        Memory.objects.filter(
            derived_from=memory, pk__in=edits.remove_facts, status=Memory.Status.DRAFT
        ).delete()
        Memory.objects.filter(
            derived_from=memory, pk__in=edits.remove_facts, status=Memory.Status.CONFIRMED
        ).update(archived_at=timezone.now())
        for text in edits.add_facts:
            fact = add_fact(memory=memory, text=text)
            if memory.status == Memory.Status.CONFIRMED:
                Memory.objects.filter(pk=fact.pk).update(status=Memory.Status.CONFIRMED)
        rewritten = _rewrites_narrative(memory, edits)
        if rewritten:
            memory.content = narrative_from(memory)
            memory.save(update_fields=["content"])
    if edits.narrative is not None or edits.facts or edits.add_facts or rewritten:
        indexing.request_indexing(owner_id=memory.owner_id)
    memory.refresh_from_db()
    return memory


def _rewrites_narrative(memory: Memory, edits: Edits) -> bool:
    """A draft's narrative still in the engine's words is written again once an item or fact it
    may tell of is removed or corrected; one the member wrote themselves is theirs and stays."""
    changed = edits.items or edits.remove_items or edits.facts or edits.remove_facts
    return (
        bool(changed)
        and edits.narrative is None
        and memory.status == Memory.Status.DRAFT
        and not memory.user_edited
    )


@dataclass
class Part:
    """One destination of a split: an act, its text, the items and facts that go with it."""

    act: Act
    text: str
    item_ids: list[int]
    fact_ids: list[int] = field(default_factory=list)


def unticked(memory: Memory) -> list[int]:
    """The draft's proposed changes that are not ticked by default (unsure replacements)."""
    return list(memory.deltas.filter(ticked=False).values_list("pk", flat=True))


def confirm(
    *,
    conversation: Conversation,
    destination: Act | None = None,
    narrative: str | None = None,
    declined: list[int] | None = None,
    fact_acts: dict[int, Act] | None = None,
    at=None,
) -> list[Memory]:
    """Keep the draft where the member says (the suggestion otherwise), with its facts, each in
    its own act when given one (``fact_acts``, ``route``); apply the accepted deltas and archive
    the conversation. ``declined``: the changes the member unticked; None keeps the review as
    it comes (what is ticked by default is accepted). ``at``: when the review happened (an
    imported conversation's own time)."""
    with transaction.atomic():
        current, memory = _reviewable(conversation)
        route(memory, destination=destination, fact_acts=fact_acts)
        if narrative is not None:
            set_content(memory, narrative)
        if declined is None:
            declined = unticked(memory)
        return _keep(current, [memory], declined, at=at)


def split(
    *, conversation: Conversation, parts: list[Part], declined: list[int] = ()
) -> list[Memory]:
    """One memory per destination, each linked to the conversation; items and facts go where
    assigned (facts not assigned stay with the first part).

    Each part starts from the extracted narrative (the review's split boxes are filled with it):
    a part kept as it was is not an edit; a part the member rewrote keeps the engine's words as
    its original; a part left empty is written from its items and is not an edit either."""
    parts = [part for part in parts if part.text.strip() or part.item_ids or part.fact_ids]
    if len(parts) < 2:
        raise TransitionError("A split needs at least two destinations with text or items.")
    if len({part.act.pk for part in parts}) != len(parts):
        raise TransitionError("Each destination of a split must be a different act.")
    with transaction.atomic():
        current, draft = _reviewable(conversation)
        owned = set(MemoryItem.objects.filter(memory=draft).values_list("pk", flat=True))
        own_facts = {fact.pk for fact in facts_of(draft)}
        extracted = (draft.content, draft.user_edited, draft.original_content)
        # Facts no part names stay with the first part, unless given an act of their own.
        assigned = [pk for part in parts for pk in part.fact_ids]
        Memory.objects.filter(
            derived_from=draft, status=Memory.Status.DRAFT, act_id=draft.act_id
        ).exclude(pk__in=assigned).update(act=parts[0].act)
        memories = []
        for index, part in enumerate(parts):
            if stray := (set(part.item_ids) - owned) | (set(part.fact_ids) - own_facts):
                raise TransitionError(f"Items {sorted(stray)} are not part of this memory.")
            content, edited, original = _part_wording(part, *extracted)
            if index == 0:
                memory = draft
                memory.act = part.act
                memory.content, memory.user_edited, memory.original_content = (
                    content,
                    edited,
                    original,
                )
            else:
                memory = Memory.objects.create(
                    owner=draft.owner,
                    content=content,
                    source=Memory.Source.CONVERSATION,
                    act=part.act,
                    conversation=current,
                    status=Memory.Status.DRAFT,
                    extraction_engine=draft.extraction_engine,
                    happened_at=draft.happened_at,
                    user_edited=edited,
                    original_content=original,
                    narrative=draft.narrative,
                )
            MemoryItem.objects.filter(pk__in=part.item_ids).update(memory=memory)
            Memory.objects.filter(pk__in=part.fact_ids).update(derived_from=memory, act=part.act)
            memories.append(memory)
        indexing.request_indexing(owner_id=draft.owner_id)
        return _keep(current, memories, declined)


def _part_wording(part: Part, narrative: str, edited: bool, original: str) -> tuple:
    """(content, user_edited, original_content) of one part of a split."""
    if not part.text.strip():
        return text_for_items(part.item_ids), False, ""
    text = clean_content(part.text)
    if text == narrative:
        return narrative, edited, original  # kept as extracted (or as already edited)
    return text, True, original if edited else narrative


def text_for_items(item_ids: list[int]) -> str:
    items = MemoryItem.objects.filter(pk__in=item_ids).order_by("pk")
    return " ".join(f"{item.get_type_display()}: {item.text}." for item in items)


def _keep(conversation: Conversation, memories: list[Memory], declined, *, at=None) -> list[Memory]:
    now = at or timezone.now()
    changed_at = conversation.started_at or now
    kept_facts = []
    for memory in memories:
        if memory.act.owner_id != conversation.owner_id:
            raise Act.DoesNotExist("Act matching query does not exist.")
        memory.status = Memory.Status.CONFIRMED
        memory.user_reviewed = True
        memory.save()
        facts = facts_of(memory)
        # Each fact keeps the act it was routed to: its memory's, or one of its own (``route``).
        Memory.objects.filter(pk__in=[f.pk for f in facts]).update(
            status=Memory.Status.CONFIRMED, user_reviewed=True
        )
        kept_facts += facts
    first = memories[0]
    declined = set(declined)
    deltas = StateDelta.objects.filter(memory__in=memories).select_related(
        "item", "old_fact", "new_item", "new_fact"
    )
    for delta in deltas:
        if delta.pk in declined:
            delta.accepted = False
            delta.save(update_fields=["accepted"])
            continue
        if delta.resolves and delta.item is not None:
            MemoryItem.objects.filter(
                pk=delta.item.pk, memory__owner=conversation.owner_id, is_active=True
            ).update(
                is_active=False,
                resolved_by=first,
                resolved_at=now,
                resolution=MemoryItem.Resolution.CONVERSATION,
            )
            sharing.items_closed_by_conversation([delta.item.pk], actor=conversation.owner)
        if delta.type == StateDelta.Type.SUPERSEDED:
            _supersede(delta, conversation, first, changed_at)
        delta.applied = True
        delta.applied_at = now
        delta.save(update_fields=["applied", "applied_at"])
    Conversation.objects.filter(pk=conversation.pk).update(
        status=Status.ARCHIVED, archived_at=now, compression_stage=""
    )
    # What was said in it follows it into the act it was kept in.
    evidence.move_to_act(conversation_id=conversation.pk, act_id=first.act_id)
    # What was kept in a shared act is shared with everyone in it: the memory, then its facts.
    for kept in sorted(
        Memory.objects.filter(
            pk__in=[m.pk for m in [*memories, *kept_facts]], act__shared__isnull=False, share=None
        ).select_related("act"),
        key=lambda m: m.kind != Memory.Kind.MEMORY,
    ):
        sharing.share_memory(memory=kept, place=kept.act)
    # The member may have edited, added or moved people: the entity graph follows the review.
    indexing.refresh_mentions([memory.pk for memory in [*memories, *kept_facts]])
    running.close_link(conversation, memories)  # the thread's link for this conversation
    # Your Story may have a new theme: the model names them in the worker (when it answers).
    jobs.enqueue(
        "conversations.tasks.refresh_themes", conversation.owner_id, owner_id=conversation.owner_id
    )
    return memories


def _supersede(delta: StateDelta, conversation: Conversation, first: Memory, when) -> None:
    """An accepted supersession: the old decision and fact are kept, marked as replaced."""
    owner = conversation.owner_id
    if delta.item is not None:
        MemoryItem.objects.filter(pk=delta.item.pk, memory__owner=owner, valid_to=None).update(
            valid_to=when, superseded_by=delta.new_item
        )
    if delta.old_fact is not None:
        Memory.objects.filter(pk=delta.old_fact.pk, owner=owner, valid_to=None).update(
            valid_to=when, superseded_by=delta.new_fact or first
        )
        # A decision kept in the replaced fact's own words ("school pickup is at 3pm") is
        # replaced with it: the greeting must not list it as decided after the change.
        said = _plain(delta.old_fact.content)
        decisions = MemoryItem.objects.filter(
            memory__owner=owner,
            memory__conversation_id=delta.old_fact.conversation_id,
            type=MemoryItem.Type.DECISION,
            valid_to=None,
        )
        same = [
            item.pk
            for item in decisions
            if (words := _plain(item.main)) and f" {words} " in f" {said} "
        ]
        MemoryItem.objects.filter(pk__in=same).update(valid_to=when, superseded_by=delta.new_item)


def _plain(text: str) -> str:
    """Words only, lower case, one space apart: "School pickup is at 3pm, I do…" reads as
    "school pickup is at 3pm i do…"."""
    return " ".join(re.findall(r"\w+", text.casefold()))
