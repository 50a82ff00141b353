"""The full backup (JSON version 2): everything a member owns out, and back in identical — ids
remapped, every link kept — drafts with their conversation, nothing of anyone else, and files
that are not what they claim refused with a reason."""

from __future__ import annotations

import copy
import json
import random
from datetime import timedelta
from io import StringIO
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from conversations import chat, reasoning, review
from conversations import services as conversations
from conversations.models import Classification, Conversation, Message
from household import backup, restore
from memories import acts, services, sharing
from memories.consolidation import sql as consolidation_sql
from memories.consolidation import store
from memories.models import (
    Act,
    ConsolidationRun,
    Dream,
    Entity,
    Memory,
    MemoryItem,
    MemoryLink,
    Mention,
    Observation,
    ObservationChange,
    Recall,
    RecallHit,
    Share,
    ShareChange,
    SharedAct,
    StateDelta,
)
from memories.recall import strengthen_links
from narratives import services as narratives
from narratives.models import Narrative, NarrativeMemory
from talkingrock import embeddings

ImportFormatError = restore.ImportFormatError

RENOVATION = [
    "We decided to paint the hallway green because it hides scuffs.",
    "I'm waiting on Alex to send the contract for the kitchen.",
    "I need to order the tiles for the bathroom.",
]


def talk(owner, *lines) -> Conversation:
    conversation = None
    for line in lines:
        conversation, _ = conversations.add_message(owner=owner, content=line)
    return conversation


def close_and_compress(conversation, capture) -> Conversation:
    conversations.request_close(conversation=conversation)
    with capture(execute=True):
        conversations.confirm_close(conversation=conversation)
    conversation.refresh_from_db()
    return conversation


@pytest.fixture
def carol(db):
    """A member who has nothing yet: where a backup is restored."""
    return get_user_model().objects.create_user("carol", password="another fine password")


def member_named(name: str):
    return get_user_model().objects.create_user(name, password="another fine password")


@pytest.fixture
def household(alice, bob, remember, index, capture):
    """Alice with a row of every kind a backup holds, linked every way they link."""
    garden = Act.objects.create(owner=alice, title="Garden", description="Beds and borders")
    old_job = Act.objects.create(owner=alice, title="Old job", status=Act.Status.ARCHIVED)
    tomatoes = remember("Tomatoes go in after the last frost", tags="garden, spring", act=garden)
    remember("Payroll ran on the 25th at Acme", act=old_job)
    archived = remember("Old phone number 0161 496 0000")
    services.memory_archive(owner=alice, memory_id=archived.pk)
    edited = remember("The plumber is Jon Baker")
    services.memory_update(owner=alice, memory_id=edited.pk, content="The plumber is Joan Baker")
    services.memory_reinforce(owner=alice, memory_id=tomatoes.pk)
    index(alice)  # vectors, entities and mentions
    strengthen_links(alice, [tomatoes.pk, edited.pk])
    first = close_and_compress(talk(alice, *RENOVATION), capture)
    review.confirm(conversation=first)  # items, deltas, the closing narrative
    second = close_and_compress(
        talk(alice, "Alex sent the contract for the kitchen this morning, finally."), capture
    )
    review.confirm(conversation=second)  # resolves the waiting-on of the first
    third = close_and_compress(
        talk(alice, "We decided to go with quartz worktops for the kitchen."), capture
    )
    review.confirm(conversation=third)  # facts of the conversation, linked to its memory
    # A decision and a fact replaced by later ones: kept as history, with what replaced them.
    old_fact = remember("The worktops will be butcher block.", kind=Memory.Kind.FACT)
    new_fact = (
        Memory.objects.filter(owner=alice, kind=Memory.Kind.FACT).exclude(pk=old_fact.pk).first()
    )
    assert new_fact is not None and new_fact.derived_from_id is not None
    Memory.objects.filter(pk=old_fact.pk).update(valid_to=timezone.now(), superseded_by=new_fact)
    decisions = MemoryItem.objects.filter(memory__owner=alice, type="decision").order_by("pk")
    decisions.filter(pk=decisions[0].pk).update(
        valid_to=timezone.now(), superseded_by=decisions.last()
    )
    narratives.create(
        owner=alice,
        summary="Alice keeps the garden going through spring.",
        memory_ids=[tomatoes.pk, edited.pk],
        previous=narratives.latest(alice),
        topic="the garden",
    )
    asking, question = conversations.add_message(owner=alice, content="When do tomatoes go in?")
    chat.respond(conversation=asking, message=question)  # a recall, its hits, memories_used
    # The turn's reading, taken through every stage: trails, steps and a check holding ids.
    reading = Classification.objects.get(message=question)
    reasoning.decompose_with_memory(reading, use_model=False)
    reasoning.verify_intent_with_memory(reading, use_model=False)
    reading.refresh_from_db()
    assert reading.trails and reading.verification["supporting_memories"]
    reasoning.store_immediate_correction(alice, reading, meant="the tomato bed")
    consolidated(alice, old_fact, new_fact, tomatoes)
    close_and_compress(asking, capture)  # open, its draft waiting for review
    shared_with(bob, alice)
    return alice


def shared_with(bob, alice) -> None:
    """A shared act with bob: the first conversation's memory shared there with its threads,
    and bob's correction of it (who did what)."""
    place = sharing.create_shared_act(creator=alice, title="Kitchen remodel", member_ids=[bob.pk])
    kitchen = Memory.objects.filter(owner=alice, conversation__isnull=False, items__isnull=False)
    kitchen = kitchen.order_by("pk").first()
    sharing.share_memory(memory=kitchen, place=place)
    copy = Memory.objects.get(owner=bob, share=kitchen.share)
    services.memory_update(owner=bob, memory_id=copy.pk, content=f"{copy.content} Bob checked.")


def consolidated(alice, old_fact, new_fact, tomatoes) -> None:
    """An observation that changed (its history), one merged into it, a dream over two groups
    of facts, and a record of a pass."""
    draft = store.Draft(
        "The worktops will be butcher block.",
        subject="worktops",
        relation="material",
        entity_id=Entity.objects.filter(owner=alice).first().pk,
    )
    kept = store.create(alice.pk, draft, [old_fact], engine="offline")
    kept = store.update(kept, "The worktops will be quartz.", [new_fact], engine="offline")
    twin = store.create(
        alice.pk, store.Draft("Quartz for the kitchen.", kind="pattern"), [new_fact], engine="x"
    )
    store.merge(kept, twin, text="The kitchen worktops will be quartz.", engine="offline")
    Observation.objects.filter(pk=kept.pk).update(confirmed_at=timezone.now(), hit_count=2)
    dream = Dream.objects.create(
        owner=alice, text="Tomatoes and worktops both wait for spring.", reason="Seasons.",
        score=0.72, engine="offline", kept_at=timezone.now(),
    )  # fmt: skip
    dream.facts_a.set([tomatoes])
    dream.facts_b.set([old_fact, new_fact])
    ConsolidationRun.objects.create(
        owner=alice, kind="merge", finished_at=timezone.now(), engine="offline",
        summary={"merged": 1}, error="",
    )  # fmt: skip


# --- field by field, straight from the database ----------------------------------------------

# Each kind of row a member owns, and how it is reached from them.
OWNED = [
    (Act, "owner"),
    (Conversation, "owner"),
    (Message, "conversation__owner"),
    (Narrative, "owner"),
    (NarrativeMemory, "narrative__owner"),
    (Memory, "owner"),
    (MemoryItem, "memory__owner"),
    (StateDelta, "memory__owner"),
    (Entity, "owner"),
    (Mention, "entity__owner"),
    (MemoryLink, "owner"),
    (Recall, "owner"),
    (RecallHit, "recall__owner"),
    (Classification, "owner"),
    (Observation, "owner"),
    (ObservationChange, "observation__owner"),
    (Dream, "owner"),
    (ConsolidationRun, "owner"),
    # What the member shared (issue 25): the shared acts they are in, their shares and changes.
    (SharedAct, "acts__owner"),
    (Share, "shared_by"),
    (ShareChange, "share__shared_by"),
    # Many-to-many lists of memories: rows of their own tables, compared as sets.
    (Observation.facts.through, "observation__owner"),
    (ObservationChange.facts.through, "observationchange__observation__owner"),
    (Dream.facts_a.through, "dream__owner"),
    (Dream.facts_b.through, "dream__owner"),
]
THROUGH = {model for model, _ in OWNED if model._meta.auto_created}
# Not content: the row's id, its owner, what indexing recomputes, and which process ran a
# compression (left out of the backup on purpose: it names a process of this machine).
# What was shared names members (who shared, who changed it) by the names kept beside them, and a
# thread's sharing key is made anew on restore (household/restore_shared.py).
NOT_COMPARED = {
    "id",
    "owner",
    "indexed_hash",
    "vector_tick",
    "compression_worker",
    "created_by",
    "shared_by",
    "by",
    "share_key",
}


def snapshot(member) -> dict[str, list[dict]]:
    """Every row the member owns, field by field, each reference written as the position of
    the row it names (rows in id order), so two members' rows compare without their ids."""
    rows = {
        # Every row, what was said (evidence) included: the base manager leaves nothing out.
        model: list(model._base_manager.filter(**{path: member}).order_by("pk").values())
        for model, path in OWNED
    }
    # What was said is made again after the memories kept from it when a backup is restored:
    # the kept ones first, then the evidence, each in id order, compare alike.
    rows[Memory].sort(key=lambda row: (row["kind"] in Memory.EVIDENCE, row["id"]))
    position = {
        model: {row["id"]: number for number, row in enumerate(found)}
        for model, found in rows.items()
    }

    def named(model, pk):
        return None if pk is None else position[model][pk]

    result = {}
    for model, found in rows.items():
        result[model.__name__] = [
            {
                field.name: named(field.related_model, row[field.attname])
                if field.is_relation
                else row[field.attname]
                for field in model._meta.concrete_fields
                if field.name not in NOT_COMPARED
            }
            for row in found
        ]
    for model in THROUGH:  # written in an order of their own: as sets
        result[model.__name__].sort(key=lambda row: tuple(row.values()))
    for row in result["Classification"]:
        row["trails"] = {stage: named(Recall, pk) for stage, pk in row["trails"].items()}
        for step in row["steps"]:
            step["memory_ids"] = [named(Memory, pk) for pk in step["memory_ids"]]
        for key in ("supporting_memories", "conflicting_memories"):
            row["verification"][key] = [named(Memory, pk) for pk in row["verification"][key]]
    for row in result["Message"]:
        row["memories_used"] = [
            entry | {"id": named(Memory, entry["id"]), "recall": named(Recall, entry["recall"])}
            for entry in row["memories_used"]
        ]
    return result


def restored(data: dict, owner) -> restore.ImportReport:
    return restore.import_data(owner=owner, data=json.loads(json.dumps(data)))


def test_every_field_of_every_kind_of_row_is_in_the_backup_or_left_out_on_purpose():
    for section in backup.SECTIONS:
        for field in section.model._meta.concrete_fields:
            if field.is_relation:
                later = backup.LATER_REFS.get(section.name, {})
                assert (
                    field.name in section.refs
                    or field.name in later
                    or field.name in backup.LEFT_OUT
                    or field.name in backup.NOT_REFS.get(section.name, ())
                    or field.name == "owner"
                ), field
            else:
                assert field.name in section.fields or field.name in backup.LEFT_OUT, field
    assert {model for model, _ in OWNED} == {s.model for s in backup.SECTIONS} | {
        NarrativeMemory
    } | THROUGH
    for section in backup.SECTIONS:  # each plain many-to-many list is in the file
        plain = section.model._meta.many_to_many
        names = {f.name for f in plain if f.remote_field.through._meta.auto_created}
        assert names == set(backup.MANY.get(section.name, ())), section.name


def test_the_household_fixture_has_a_row_of_every_kind(household):
    assert all(count for count in map(len, snapshot(household).values()))
    assert MemoryItem.objects.filter(memory__owner=household, resolved_by__isnull=False).exists()
    assert StateDelta.objects.filter(memory__owner=household, item__isnull=False).exists()
    assert Narrative.objects.filter(owner=household, previous__isnull=False).exists()
    assert Memory.objects.filter(owner=household, narrative__isnull=False).exists()
    assert Message.objects.filter(conversation__owner=household).exclude(memories_used=[]).exists()
    assert Memory.objects.filter(owner=household, status=Memory.Status.DRAFT).exists()


def test_a_full_backup_restores_into_a_fresh_member_row_for_row(household, carol):
    report = restored(backup.export_backup(owner=household), carol)

    assert snapshot(carol) == snapshot(household)
    assert report.errors == [] and report.notes == []
    assert report.created == Memory.objects.filter(owner=household).count()
    theirs = set(Memory.objects.filter(owner=household).values_list("pk", flat=True))
    assert theirs.isdisjoint(Memory.objects.filter(owner=carol).values_list("pk", flat=True))


def test_the_restored_draft_can_be_reviewed_and_confirmed(household, carol):
    restored(backup.export_backup(owner=household), carol)

    conversation = conversations.open_conversation(carol)
    assert conversation.review_ready
    draft = review.draft_of(conversation)
    kept = review.confirm(conversation=conversation)

    assert [memory.pk for memory in kept] == [draft.pk]
    assert Memory.objects.get(pk=draft.pk).status == Memory.Status.CONFIRMED


def test_restoring_the_same_backup_twice_adds_nothing(household, carol):
    data = backup.export_backup(owner=household)
    restored(data, carol)
    before = snapshot(carol)

    report = restored(data, carol)

    assert snapshot(carol) == before
    assert report.created == 0 and report.notes == []
    assert report.skipped == Memory.objects.filter(owner=household, status="confirmed").count()


def test_a_members_own_backup_restores_into_them_without_doubling(household):
    before = snapshot(household)

    restored(backup.export_backup(owner=household), household)

    assert snapshot(household) == before


def observed(member):
    rows = list(Observation.objects.filter(owner=member).order_by("pk"))
    return [o.text for o in rows], store.vectors_of(member.pk, rows)


def test_observations_and_dreams_come_back_with_their_vectors_embedded_again(household, carol):
    restored(backup.export_backup(owner=household), carol)

    (texts, vectors), (theirs, original) = observed(carol), observed(household)
    assert texts == theirs  # the merged one too: it keeps its vector, as it was
    cosines = (vectors * original).sum(axis=1)
    assert len(cosines) == 2 and cosines.min() > 0.999
    live = store.live(carol.pk).get()
    nearest = store.nearest(carol.pk, embeddings.embed_one("what are the worktops made of"), k=1)
    assert nearest[0][0] == live
    dream = Dream.objects.get(owner=carol)
    blob = consolidation_sql.vectors("dream", owner_id=carol.pk, ids=[dream.pk])[dream.pk]
    assert len(blob) == 4 * embeddings.DIMENSIONS


def test_the_download_is_the_full_backup(household, client, carol):
    client.force_login(household)

    body = client.get(reverse("export", args=["json"])).content

    data = json.loads(body)
    assert (data["format"], data["version"]) == ("talkingrock.memories", 2)
    restored(data, carol)
    assert snapshot(carol) == snapshot(household)


def test_the_command_restores_a_backup_and_says_what_came_back(household, carol, tmp_path):
    target = tmp_path / "alice.json"
    call_command("memories", "export", "--user", "alice", "--out", str(target), stderr=StringIO())
    out = StringIO()

    call_command("memories", "import", str(target), "--user", "carol", stdout=out)

    assert snapshot(carol) == snapshot(household)
    assert "Also restored: " in out.getvalue() and "conversations" in out.getvalue()


# --- drafts and the one open conversation ------------------------------------------------------


def test_drafts_are_left_out_when_the_member_has_a_conversation_open(household, carol):
    mine, _ = conversations.add_message(owner=carol, content="Carol's own open conversation")
    data = backup.export_backup(owner=household)

    report = restored(data, carol)

    assert conversations.open_conversation(carol) == mine
    assert not Memory.objects.filter(owner=carol, status=Memory.Status.DRAFT).exists()
    imported = Conversation.objects.filter(owner=carol).exclude(pk=mine.pk)
    assert {conversation.status for conversation in imported} == {Status.ARCHIVED}
    assert len(report.notes) == 1
    assert "imported archived, without the 1 draft memories" in report.notes[0]
    drafts = [m for m in data["memories"] if m["status"] == "draft"]
    confirmed = Memory.objects.filter(owner=household, status="confirmed").count()
    assert (len(drafts), report.created) == (1, confirmed)


Status = Conversation.Status


def test_an_active_conversation_is_restored_open_or_archived_with_a_note(alice, carol, remember):
    talk(alice, "Still talking about the shed roof")
    data = backup.export_backup(owner=alice)
    dave = member_named("dave")
    conversations.add_message(owner=dave, content="Dave is mid-conversation")

    quiet, busy = restored(data, carol), restored(data, dave)

    assert conversations.open_conversation(carol).messages.get().content == (
        "Still talking about the shed roof"
    )
    assert quiet.notes == []
    shed = Conversation.objects.get(owner=dave, messages__content__contains="shed roof")
    assert shed.status == Status.ARCHIVED and shed.archived_at is not None
    assert busy.notes and "imported archived" in busy.notes[0]


def test_a_draft_without_its_conversation_is_not_exported(alice, remember):
    remember("Orphan draft", status=Memory.Status.DRAFT, source=Memory.Source.EXTRACTION)
    remember("Kept memory")

    data = backup.export_backup(owner=alice)

    assert [memory["content"] for memory in data["memories"]] == ["Kept memory"]


def test_a_compression_caught_mid_way_comes_back_ready_to_retry(alice, carol):
    conversation = talk(alice, "We should fix the gate")
    conversations.request_close(conversation=conversation)
    conversations.confirm_close(conversation=conversation)  # queued: its task never runs here

    restored(backup.export_backup(owner=alice), carol)

    back = conversations.open_conversation(carol)
    assert (back.status, back.compression_stage) == (Status.COMPRESSING, "failed")
    assert conversations.is_stalled(back)  # so the page offers "retry"


# --- what the member already has -------------------------------------------------------------


def test_a_memory_the_member_has_is_not_doubled_and_links_point_to_theirs(alice, carol, remember):
    tiles = remember("Order the bathroom tiles")
    grout = remember("Grey grout for the tiles")
    strengthen_links(alice, [tiles.pk, grout.pk])
    narratives.create(owner=alice, summary="Alice plans the bathroom.", memory_ids=[tiles.pk])
    theirs = remember("Order the bathroom tiles", owner=carol, tags="carol's own")

    report = restored(backup.export_backup(owner=alice), carol)

    assert (report.created, report.skipped) == (1, 1)
    assert Memory.objects.filter(owner=carol, content="Order the bathroom tiles").get() == theirs
    new_grout = Memory.objects.get(owner=carol, content="Grey grout for the tiles")
    assert set(MemoryLink.objects.filter(owner=carol).values_list("memory", "related")) == {
        (theirs.pk, new_grout.pk),
        (new_grout.pk, theirs.pk),
    }
    story = Narrative.objects.get(owner=carol)
    assert list(story.memories.all()) == [theirs]
    theirs.refresh_from_db()
    assert theirs.tags == "carol's own"  # theirs stands as it is


def test_acts_are_found_by_title_and_your_story_stays_the_members(alice, carol, remember):
    remember("In the garden act", act=Act.objects.create(owner=alice, title="Garden"))
    carols_garden = Act.objects.create(owner=carol, title="Garden", description="Carol's")
    remember("Carol's first memory", owner=carol)
    story = acts.ensure_your_story(owner=carol)
    started = story.created_at

    restored(backup.export_backup(owner=alice), carol)

    assert Memory.objects.get(owner=carol, content="In the garden act").act == carols_garden
    assert Act.objects.filter(owner=carol).count() == 2
    story.refresh_from_db()
    assert story.created_at == started


# --- only the member's own rows ----------------------------------------------------------------


def test_nothing_of_another_member_is_ever_exported(household, bob, remember, capture):
    secret = "Bob hides the spare key under the blue flowerpot"
    remember(secret, owner=bob, tags="bobs-secret-tag")
    close_and_compress(talk(bob, "Bob whispers about the zeppelin surprise"), capture)
    narratives.create(owner=bob, summary="Bob plans the zeppelin surprise.")
    Entity.objects.create(owner=bob, name="Zeppelin Club", normalized="zeppelin club")

    data = backup.export_backup(owner=household)

    text = json.dumps(data)
    for words in ("spare key", "bobs-secret-tag", "zeppelin", "Zeppelin"):
        assert words not in text
    for section in backup.SECTIONS:
        if section.has_ids:
            owned = dict(OWNED)[section.model]
            mine = set(
                section.model._base_manager.filter(**{owned: household}).values_list(
                    "pk", flat=True
                )
            )
            assert {row["id"] for row in data[section.name]} <= mine, section.name


# --- version 1 ---------------------------------------------------------------------------------


def test_a_version_1_file_still_imports_as_before(carol, tmp_path):
    old = {
        "format": "talkingrock.memories",
        "version": 1,
        "acts": [
            {"title": "Your Story", "is_your_story": True},
            {"title": "Garden", "description": "Beds", "status": "archived"},
        ],
        "memories": [
            {"id": 1, "content": "Mulch in autumn", "act": "Garden", "score": 2, "tags": "soil"},
            {"id": 2, "content": "Old", "archived_at": "2024-01-02T03:04:05+00:00"},
            {"id": 3, "content": ""},
        ],
    }
    path = tmp_path / "old.json"
    path.write_text(json.dumps(old), encoding="utf-8")

    report = restore.import_path(owner=carol, path=path)

    assert (report.created, len(report.errors)) == (2, 1) and "memory 3:" in report.errors[0]
    mulch = Memory.objects.get(owner=carol, content="Mulch in autumn")
    assert (mulch.act.title, mulch.act.status, mulch.score, mulch.tags) == (
        "Garden",
        "archived",
        2,
        "soil",
    )
    assert Memory.objects.get(owner=carol, content="Old").archived_at is not None


# --- files that are not what they claim ---------------------------------------------------------


@pytest.fixture
def small_backup(alice, remember, index):
    """A backup with one row of most kinds, to break in one place at a time."""
    garden = Act.objects.create(owner=alice, title="Garden")
    tomatoes = remember("Tomatoes after the frost with Maya", act=garden)
    beans = remember("Beans on the fence")
    index(alice)
    strengthen_links(alice, [tomatoes.pk, beans.pk])
    first = narratives.create(owner=alice, summary="Alice sows.", memory_ids=[tomatoes.pk])
    narratives.create(owner=alice, summary="Alice waters.", previous=first)
    conversation, message = conversations.add_message(owner=alice, content="When do beans go in?")
    chat.respond(conversation=conversation, message=message)
    MemoryItem.objects.create(memory=beans, type="task", data={"description": "Water"})
    observation = store.create(alice.pk, store.Draft("Beans climb"), [beans], engine="offline")
    store.update(observation, "Beans climb the fence", [tomatoes], engine="offline")
    dream = Dream.objects.create(owner=alice, text="Beans and tomatoes share the sun.")
    dream.facts_a.set([beans])
    dream.facts_b.set([tomatoes])
    ConsolidationRun.objects.create(owner=alice, kind="dream", summary={"kept": 1})
    return backup.export_backup(owner=alice)


def broken(data: dict, path: str, value) -> dict:
    """A copy of ``data`` with the value at ``path`` ("memories.0.score") replaced."""
    data = copy.deepcopy(data)
    *parents, last = path.split(".")
    target = data
    for part in parents:
        target = target[int(part)] if isinstance(target, list) else target[part]
    if isinstance(target, list):
        target[int(last)] = value
    else:
        target[last] = value
    return data


def a_memory_id(data: dict) -> int:
    return data["memories"][0]["id"]


HOSTILE = [
    ("version", "2", "Unsupported export version"),
    ("memories", "all of them", "'memories' must be a list"),
    ("memories.0", ["not", "an", "object"], "memory 1 is not an object"),
    ("memories.0.id", True, "memory 1 needs a whole-number id"),
    ("memories.0.id", 10**30, "memory 1 needs a whole-number id"),
    ("memories.0.score", "lots", "score must be a whole number"),
    ("memories.0.score", 2**40, "score must be a whole number"),
    ("memories.0.hit_count", -1, "hit_count must be a whole number from 0"),
    ("memories.0.confidence", float("nan"), "confidence must be a finite number"),
    ("memories.0.user_edited", "yes", "user_edited must be true or false"),
    ("memories.0.status", "pending", "status must be one of"),
    ("memories.0.source", "gossip", "source must be one of"),
    ("memories.0.created_at", "2020-13-45T00:00:00", "is not an ISO date-time"),
    ("memories.0.created_at", "0001-01-01T00:00:00+14:00", "is out of range"),
    ("memories.0.content", "Bell \x07 character", "content contains control characters"),
    ("memories.0.content", "Lone \ud800 surrogate", "content contains control characters"),
    ("memories.0.tags", ["a", "b"], "tags must be text"),
    ("memories.0.act", 999_999, "act names 999999, which is not in the file"),
    ("memories.0.narrative", "first", "narrative names 'first'"),
    ("acts.1.title", "", "needs a title"),
    ("acts.0.is_your_story", "yes", "is_your_story must be true or false"),
    ("narratives.1.previous", 999_999, "previous names 999999"),
    ("narratives.0.memories", [999_999], "memories names 999999"),
    ("messages.0.role", "god", "role must be one of"),
    ("messages.0.conversation", None, "conversation names None"),
    ("messages.1.memories_used", [{"id": 999_999}], "memories_used names 999999"),
    ("messages.1.memories_used", "everything", "memories_used must be a list of objects"),
    ("items.0.data", ["not", "a", "dict"], "data must be a JSON dict"),
    ("items.0.memory", 999_999, "memory names 999999"),
    ("hits.0.recall", 999_999, "recall names 999999"),
    ("hits.0.components", {"key\x00": 1}, "components contains control characters"),
    ("recalls.0.parameters", {"deep": ["\x1b[31m"]}, "parameters contains control characters"),
    ("links.0.related", "self", "related names 'self'"),
    ("mentions.0.surface", "x" * 201, "surface is longer than 200 characters"),
    ("observations.0.kind", "vibe", "kind must be one of"),
    ("observations.0.facts", [999_999], "facts names 999999"),
    ("observations.0.facts", "all", "facts must be a list of memory ids"),
    ("observations.0.merged_into", 999_999, "merged_into names 999999"),
    ("observations.0.evidence_count", -3, "evidence_count must be a whole number from 0"),
    ("observation_changes.1.observation", None, "observation names None"),
    ("observation_changes.1.previous_text", "Bell \x07", "previous_text contains control"),
    ("dreams.0.facts_b", [True], "facts_b names True"),
    ("dreams.0.score", float("inf"), "score must be a finite number"),
    ("consolidation_runs.0.summary", ["kept"], "summary must be a JSON dict"),
    ("consolidation_runs.0.kind", "nap", "kind must be one of"),
]


@pytest.mark.parametrize(("path", "value", "message"), HOSTILE, ids=[h[0] for h in HOSTILE])
def test_a_malformed_backup_is_refused_whole_with_a_reason(
    small_backup, carol, path, value, message
):
    with pytest.raises(ImportFormatError, match=message.replace("(", r"\(")):
        restore.import_data(owner=carol, data=broken(small_backup, path, value))

    assert not Memory.objects.filter(owner=carol).exists()
    assert not Act.objects.filter(owner=carol, is_your_story=False).exists()


def test_a_line_ending_of_any_kind_in_a_backup_is_text(small_backup, carol):
    # Line endings of every kind are text, not control characters: accepted, and stored the
    # way every text is stored (talkingrock/text.py: "\n").
    why = "the model searched “beans\r\nfence\u2028water\u2029”"
    data = broken(small_backup, "messages.1.memories_used.0.why", why)
    data = broken(data, "memories.0.content", "Tomatoes\r\nafter the frost")

    restore.import_data(owner=carol, data=data)

    reply = Message.objects.get(conversation__owner=carol, position=1)
    assert reply.memories_used[0]["why"] == "the model searched “beans\nfence\nwater\n”"
    assert Memory.objects.filter(owner=carol, content="Tomatoes\nafter the frost").exists()


def test_a_narrative_chain_that_goes_round_is_refused(small_backup, carol):
    second = small_backup["narratives"][1]  # it continues the first
    data = broken(small_backup, "narratives.0.previous", second["id"])

    with pytest.raises(ImportFormatError, match="round a circle"):
        restore.import_data(owner=carol, data=data)


@pytest.mark.parametrize("section", ["memories", "messages", "links", "hits"])
def test_two_rows_the_database_keeps_apart_are_refused(small_backup, carol, section):
    data = copy.deepcopy(small_backup)
    data[section].append(copy.deepcopy(data[section][0]))  # the same id, position, pair, rank

    with pytest.raises(ImportFormatError, match=r"used twice|a second one with the same"):
        restore.import_data(owner=carol, data=data)


def test_a_backup_with_a_second_your_story_is_refused(small_backup, carol):
    data = copy.deepcopy(small_backup)
    story = next(act for act in data["acts"] if act["is_your_story"])
    data["acts"].append({**story, "id": max(act["id"] for act in data["acts"]) + 1})

    with pytest.raises(ImportFormatError, match="is a second Your Story"):
        restore.import_data(owner=carol, data=data)

    assert not Memory.objects.filter(owner=carol).exists()


def test_a_link_from_a_memory_to_itself_is_refused(small_backup, carol):
    link = small_backup["links"][0]
    data = broken(small_backup, "links.0.related", link["memory"])

    with pytest.raises(ImportFormatError, match="links a memory to itself"):
        restore.import_data(owner=carol, data=data)


def test_a_memory_the_app_would_refuse_is_skipped_and_what_named_it_lets_go(small_backup, carol):
    data = broken(small_backup, "memories.0.content", "x" * 10_001)  # too long today

    report = restore.import_data(owner=carol, data=data)

    assert len(report.errors) == 1 and "limit is 10,000" in report.errors[0]
    kept = [row for row in data["memories"] if row["kind"] not in Memory.EVIDENCE]
    assert Memory.objects.filter(owner=carol).count() == len(kept) - 1
    assert not NarrativeMemory.objects.filter(narrative__owner=carol).exists()
    assert not MemoryLink.objects.filter(owner=carol).exists()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"format": "talkingrock.memories", "version": 2, "memories": [NaN]}', "NaN"),
        ('{"format": "talkingrock.memories", "version": 2, "score": 1e999}', "too large"),
        ('{"format": "talkingrock.memories", "version": 2, "id": ' + "9" * 5000 + "}", "JSON"),
        ("[" * 100_000 + "]" * 100_000, "nested too deeply|not valid JSON"),
    ],
    ids=["nan", "infinity", "huge-integer", "deep"],
)
def test_a_file_json_itself_barely_allows_is_a_clear_error(carol, tmp_path, text, message):
    path = tmp_path / "hostile.json"
    path.write_text(text, encoding="utf-8")

    with pytest.raises(CommandError, match=message):
        call_command("memories", "import", str(path), "--user", "carol", stdout=StringIO())


def test_timestamps_keep_their_instant_whatever_offset_the_file_wrote(small_backup, carol):
    moment = timezone.now().replace(microsecond=0) - timedelta(days=3)
    local = moment.astimezone(timezone.get_fixed_timezone(-300)).isoformat()
    data = broken(small_backup, "memories.0.happened_at", local)

    restore.import_data(owner=carol, data=data)

    content = data["memories"][0]["content"]
    assert Memory.objects.get(owner=carol, content=content).happened_at == moment


def test_an_import_path_that_is_not_there_is_a_clear_error(carol):
    with pytest.raises(ImportFormatError, match="does not exist"):
        restore.import_path(owner=carol, path=Path("/nowhere/at/all.json"))


# Values a damaged or hand-made file might hold anywhere.
ODD_VALUES = [
    None, True, 0, -1, 2**31, 2**63, 10**40, 1.5, float("inf"), "", "x", "\x00", "\ud800",
    "2020-01-01T00:00:00", "9999-12-31T23:59:59-14:00", [], [1], {}, {"\ud800": 1}, "a" * 20_000,
]  # fmt: skip


class _RolledBack(Exception):
    pass


def test_random_damage_is_refused_or_imported_never_a_crash(small_backup, carol):
    rng = random.Random(2024)  # fixed: a failure names the same damage every run
    sections = [name for name, rows in small_backup.items() if isinstance(rows, list) and rows]
    for _ in range(300):
        data = copy.deepcopy(small_backup)
        for _ in range(rng.randint(1, 3)):
            row = rng.choice(data[rng.choice(sections)])
            other = rng.choice(data[rng.choice(sections)]).get("id")
            row[rng.choice([*row, "id"])] = copy.deepcopy(rng.choice([*ODD_VALUES, other]))
        try:
            with transaction.atomic():  # each try starts from the same empty member
                try:
                    restore.import_data(owner=carol, data=data)
                except ImportFormatError:
                    pass
                raise _RolledBack
        except _RolledBack:
            pass
