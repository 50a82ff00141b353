"""What the household shares (issue 25), replayed as two members would: alice makes a shared
"Kitchen remodel" act with bob and keeps a conversation about Dave's quote in it; both see the
quote and the open thread as their own, in the greeting, search, recall and the act; either
closes the thread or corrects the words, and the other sees who did it; then bob leaves and
stops seeing any of it at once. Alice's conversation, and everything she keeps elsewhere, never
reach bob."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from conversations.models import Conversation, Message
from conversations.review import draft_of
from household import backup, restore
from memories import sharing
from memories.consolidation import facts
from memories.models import Act, Memory, MemoryItem, Observation, Share, ShareChange
from talkingrock.tools import call_tool
from tests.support.page_form import form_data
from tests.test_review_flows import closed

KITCHEN = [
    "Dave quoted $38,000 all in for the kitchen remodel.",
    "I'm waiting on Dave to send the final quote for the kitchen.",
]
PRIVATE = "Alice hides the spare house key under the blue flowerpot"


def signed_in(member) -> Client:
    client = Client()
    client.force_login(member)
    return client


@pytest.fixture
def bob_web(bob) -> Client:
    return signed_in(bob)


@pytest.fixture
def place(alice_client, alice, bob) -> Act:
    """Alice's place in the shared act she made on the Acts page, with bob in it."""
    response = alice_client.post(
        reverse("memories:shared-act-new"), {"title": "Kitchen remodel", "members": [bob.pk]}
    )
    act = Act.objects.get(owner=alice, shared__isnull=False)
    assert response.url == act.get_absolute_url()
    return act


@pytest.fixture
def kept(alice_client, alice, bob, place, capture, remember) -> Memory:
    """Alice's kitchen conversation, kept at review in the shared act; a private memory beside."""
    remember(PRIVATE)
    draft = draft_of(closed(alice_client, alice, capture, KITCHEN))
    url = reverse("conversations:review", args=[draft.conversation_id])
    form = form_data(alice_client.get(url).content, "review-form")
    alice_client.post(url, form | {"destination": place.pk, "action": "confirm"})
    draft.refresh_from_db()
    assert draft.status == Memory.Status.CONFIRMED and draft.act == place
    return draft


def bobs_copy(bob, memory: Memory) -> Memory:
    return Memory.objects.get(owner=bob, share_id=memory.share_id)


def waiting_on(memory: Memory) -> MemoryItem:
    return memory.items.get(type="waiting_on")


def test_both_see_the_quote_and_the_open_thread(alice, bob, bob_web, kept, index, capture):
    copy = bobs_copy(bob, kept)
    index(bob)

    assert copy.content == kept.content and copy.act.shared_id == kept.act.shared_id
    assert copy.conversation_id is None  # the rest of alice's conversation stays hers
    assert waiting_on(copy).is_active and waiting_on(copy).share_key == waiting_on(kept).share_key
    facts = Memory.objects.filter(owner=bob, kind=Memory.Kind.FACT, share__isnull=False)
    assert any("38,000" in fact.content for fact in facts)
    assert all(fact.derived_from == copy for fact in facts)

    greeting = bob_web.get(reverse("home")).content.decode()
    assert "Dave" in greeting and "shared by alice" in greeting
    found = bob_web.get(reverse("find"), {"q": "Dave quote kitchen"}).content.decode()
    assert "38,000" in found or "Dave" in found
    recalled = call_tool(bob, "search_memories", query="what did Dave quote for the kitchen?")
    assert copy.pk in {hit["id"] for hit in recalled["results"]}
    mine = next(hit for hit in recalled["results"] if hit["id"] == copy.pk)
    assert mine["shared"]["by"] == "alice" and not mine["shared"]["by_you"]
    with capture(execute=True):
        bob_web.post(reverse("conversations:send"), {"content": "What did Dave quote?"})
    said = Message.objects.filter(conversation__owner=bob, role="assistant").last()
    assert "38,000" in said.content and "alice shared on" in said.content
    timeline = bob_web.get(reverse("memories:timeline")).content.decode()
    assert timeline  # a dated shared memory would be marked; the page renders with shared rows
    act_page = bob_web.get(copy.act.get_absolute_url()).content.decode()
    assert "alice" in act_page and "Leave this act" in act_page


def test_bob_never_sees_alices_conversation_or_her_other_memories(bob, bob_web, kept, index):
    index(bob)
    conversation = Conversation.objects.get(pk=kept.conversation_id)
    assert bob_web.get(reverse("conversations:detail", args=[conversation.pk])).status_code == 404
    assert bob_web.get(kept.get_absolute_url()).status_code == 404  # her row, not his
    seen = bob_web.get(bobs_copy(bob, kept).get_absolute_url()).content.decode()
    assert reverse("conversations:detail", args=[conversation.pk]) not in seen
    for query in ("spare house key", "blue flowerpot"):
        assert call_tool(bob, "search_memories", query=query)["results"] == [] or all(
            PRIVATE not in hit["content"]
            for hit in call_tool(bob, "search_memories", query=query)["results"]
        )
        assert PRIVATE not in bob_web.get(reverse("find"), {"q": query}).content.decode()


def test_bob_closes_the_thread_and_alice_sees_who_did(alice_client, alice, bob, bob_web, kept):
    his = waiting_on(bobs_copy(bob, kept))

    bob_web.post(reverse("memories:thread-resolve", args=[his.pk]), {"how": "done"})

    hers = waiting_on(kept)
    assert not hers.is_active and hers.resolution == "done" and hers.changed_by == "bob"
    page = alice_client.get(kept.get_absolute_url()).content.decode()
    assert "done" in page and "by bob" in page and "bob closed a thread" in page
    # Alice undoes it: open again for both, and bob sees it was alice.
    alice_client.post(reverse("memories:thread-reopen", args=[hers.pk]))
    his.refresh_from_db()
    assert his.is_active and his.changed_by == "alice"


def test_a_correction_reaches_everyone_and_keeps_the_first_words(alice, bob, bob_web, kept):
    copy = bobs_copy(bob, kept)
    first = kept.content
    bob_web.post(
        reverse("memories:edit", args=[copy.pk]),
        {"content": "Dave's final quote for the kitchen is $36,500.", "act": copy.act_id},
    )

    kept.refresh_from_db()
    assert kept.content == "Dave's final quote for the kitchen is $36,500."
    assert kept.user_edited and kept.original_content == first
    change = ShareChange.objects.get(what="corrected")
    assert change.by == bob and change.detail


def test_bob_leaves_and_stops_seeing_it_at_once(alice, bob, bob_web, kept, index):
    index(bob)
    copy = bobs_copy(bob, kept)
    his_place = copy.act.get_absolute_url()
    assert call_tool(bob, "memory_query", query="Dave quote")["results"]

    response = bob_web.post(reverse("memories:shared-act-remove", args=[copy.act_id, bob.pk]))

    assert response.status_code == 302
    assert not Memory.objects.filter(owner=bob, share__isnull=False).exists()
    assert call_tool(bob, "memory_query", query="Dave quote")["results"] == []
    assert call_tool(bob, "search_memories", query="Dave quote kitchen")["results"] == [] or all(
        "Dave" not in hit["content"]
        for hit in call_tool(bob, "search_memories", query="Dave quote kitchen")["results"]
    )
    assert bob_web.get(his_place).status_code == 404
    kept.refresh_from_db()
    assert kept.act.shared is not None and list(sharing.members_of(kept.act.shared)) == [alice]


def test_alice_takes_it_back_and_it_returns_to_where_it_came_from(alice, bob, alice_client, kept):
    share = kept.share
    alice_client.post(reverse("memories:take-back", args=[kept.pk]))

    kept.refresh_from_db()
    assert kept.share is None and kept.act.shared is None
    assert not Memory.objects.filter(owner=bob, share_id=share.pk).exists()
    assert not Share.objects.filter(pk=share.pk).exists()


def test_only_the_sharer_takes_it_back(bob, bob_web, kept):
    copy = bobs_copy(bob, kept)
    bob_web.post(reverse("memories:take-back", args=[copy.pk]))
    assert Memory.objects.filter(share_id=kept.share_id).count() == 2


def test_one_thread_shared_on_its_own(alice, bob, alice_client, bob_web, remember):
    place = sharing.create_shared_act(creator=alice, title="School", member_ids=[bob.pk])
    memory = remember("Waiting on the school about the trip form")
    item = MemoryItem.objects.create(
        memory=memory, type="waiting_on", data={"who": "the school", "what": "trip form"}
    )

    alice_client.post(reverse("memories:thread-share", args=[item.pk]), {"place": place.pk})

    memory.refresh_from_db()
    item.refresh_from_db()
    assert memory.share is None and memory.act.shared is None  # hers stays where it was
    carried = MemoryItem.objects.get(memory__owner=bob, share_key=item.share_key)
    assert carried.text == item.text
    bob_web.post(reverse("memories:thread-resolve", args=[carried.pk]), {"how": "dismissed"})
    item.refresh_from_db()
    assert not item.is_active and item.changed_by == "bob"
    alice_client.post(reverse("memories:thread-take-back", args=[item.pk]))
    assert not MemoryItem.objects.filter(memory__owner=bob, pk=carried.pk).exists()


def test_someone_who_joins_later_gets_what_was_shared(alice, bob, kept, alice_client):
    carol = get_user_model().objects.create_user("carol", password="x" * 12)
    alice_client.post(
        reverse("memories:shared-act-add", args=[kept.act_id]), {"members": [carol.pk]}
    )

    theirs = Memory.objects.filter(owner=carol, share__isnull=False)
    assert {m.content for m in theirs} == {
        m.content for m in Memory.objects.filter(owner=alice, share__isnull=False)
    }


def test_refusals_say_why_and_change_nothing(alice, bob, alice_client, place, remember):
    memory = remember("The boiler is serviced every October")
    mine = Act.objects.create(owner=alice, title="House")
    refused = [
        ({"title": "", "members": [bob.pk]}, "A shared act needs a title."),
        ({"title": "Trip", "members": []}, "Choose at least one other member"),
        ({"title": "Trip", "members": ["999999"]}, "Choose members of this household."),
        ({"title": "Trip", "members": [str(2**70)]}, "Choose members of this household."),
    ]
    for data, why in refused:
        response = alice_client.post(reverse("memories:shared-act-new"), data, follow=True)
        assert response.status_code == 200 and why in response.content.decode()
    assert Act.objects.filter(owner=alice, shared__isnull=False).count() == 1
    # A memory shared once is not shared twice; a private act is no place to share into.
    alice_client.post(reverse("memories:share", args=[memory.pk]), {"place": place.pk})
    for place in (mine.pk, 2**70, "x"):
        response = alice_client.post(
            reverse("memories:share", args=[memory.pk]), {"place": place}, follow=True
        )
        assert b"Choose a shared act you are in." in response.content
    assert Memory.objects.filter(share_id=Memory.objects.get(pk=memory.pk).share_id).count() == 2


# --- export and import -----------------------------------------------------------------------


def _rows_of(member) -> list:
    return [
        list(Memory.everything.filter(owner=member).order_by("pk").values()),
        list(MemoryItem.objects.filter(memory__owner=member).order_by("pk").values()),
        list(Act.objects.filter(owner=member).order_by("pk").values()),
    ]


def test_an_export_holds_what_the_member_shared_and_not_the_copies(alice, bob, bob_web, kept):
    bob_web.post(
        reverse("memories:thread-resolve", args=[waiting_on(bobs_copy(bob, kept)).pk]),
        {"how": "done"},
    )

    bobs = json.dumps(backup.export_backup(owner=bob))
    alices = backup.export_backup(owner=alice)

    assert "38,000" not in bobs and "Dave" not in bobs  # alice's words, not his
    assert [row["title"] for row in alices["shared_acts"]] == ["Kitchen remodel"]
    assert alices["shared_acts"][0]["members"] == ["alice", "bob"]
    assert {row["what"] for row in alices["share_changes"]} == {"shared", "closed"}
    assert {row["by_name"] for row in alices["share_changes"]} == {"alice", "bob"}
    assert "38,000" in json.dumps(alices)


def test_a_restore_shares_with_no_one_and_writes_nothing_of_anyone_elses(alice, bob, kept):
    carol = get_user_model().objects.create_user("carol", password="x" * 12)
    bobs_before = _rows_of(bob)

    restore.import_data(owner=carol, data=json.loads(json.dumps(backup.export_backup(owner=alice))))

    place = Act.objects.get(owner=carol, shared__isnull=False)
    assert list(sharing.members_of(place.shared)) == [carol]  # the file's members are a record
    theirs = Memory.objects.get(owner=carol, share__isnull=False, kind=Memory.Kind.MEMORY)
    assert theirs.act == place and theirs.share.changes.filter(what="shared").exists()
    assert _rows_of(bob) == bobs_before
    keys = set(MemoryItem.objects.filter(memory__owner=carol).values_list("share_key", flat=True))
    assert keys - {None} and keys.isdisjoint(
        MemoryItem.objects.filter(memory__owner__in=[alice, bob]).values_list(
            "share_key", flat=True
        )
    )  # closing carol's thread closes no one else's


def test_restoring_into_the_same_household_joins_the_act_again(alice, bob, kept):
    data = json.loads(json.dumps(backup.export_backup(owner=alice)))
    bobs_before = _rows_of(bob)

    restore.import_data(owner=alice, data=data)

    assert Act.objects.filter(owner=alice, shared__isnull=False).count() == 1
    assert (
        Memory.objects.filter(share__isnull=False, owner=alice).count()
        == Memory.objects.filter(share__isnull=False, owner=bob).count()
    )
    assert _rows_of(bob) == bobs_before


def test_deleting_a_shared_memory_deletes_it_for_everyone_a_copy_only_for_its_owner(
    alice, bob, alice_client, bob_web, kept
):
    copy = bobs_copy(bob, kept)
    fact = Memory.objects.filter(owner=alice, kind=Memory.Kind.FACT, share__isnull=False).first()
    bob_web.post(reverse("memories:delete", args=[bobs_copy(bob, fact).pk]))
    assert Memory.objects.filter(share_id=fact.share_id).count() == 1  # only bob's went

    alice_client.post(reverse("memories:delete", args=[kept.pk]))

    assert not Memory.objects.filter(pk__in=[kept.pk, copy.pk]).exists()


def test_moving_a_shared_memory_out_of_its_act_is_refused_with_a_reason(bob, bob_web, kept):
    copy = bobs_copy(bob, kept)
    story = Act.objects.get(owner=bob, is_your_story=True)

    response = bob_web.post(
        reverse("memories:edit", args=[copy.pk]), {"content": copy.content, "act": story.pk}
    )

    assert response.status_code == 400 and b"take it back" in response.content
    copy.refresh_from_db()
    assert copy.act.shared_id is not None


def test_only_the_one_who_made_the_act_adds_or_removes_others(alice, bob, bob_web, kept):
    carol = get_user_model().objects.create_user("carol", password="x" * 12)
    his_place = bobs_copy(bob, kept).act

    bob_web.post(reverse("memories:shared-act-remove", args=[his_place.pk, alice.pk]))
    bob_web.post(reverse("memories:shared-act-add", args=[his_place.pk]), {"members": [carol.pk]})

    assert list(sharing.members_of(his_place.shared)) == [alice, bob]
    assert b"Leave this act" in bob_web.get(his_place.get_absolute_url()).content


def test_a_sharer_who_leaves_still_shares_and_can_take_it_back(
    alice, bob, alice_client, kept, capture
):
    with capture(execute=True):
        alice_client.post(reverse("memories:shared-act-remove", args=[kept.act_id, alice.pk]))

    kept.refresh_from_db()
    assert kept.act.shared is None and kept.share is not None  # home again, still shared
    assert bobs_copy(bob, kept).content == kept.content
    page = alice_client.get(kept.get_absolute_url()).content.decode()
    assert "Take it back" in page
    alice_client.post(reverse("memories:take-back", args=[kept.pk]))
    assert not Memory.objects.filter(owner=bob, kind=Memory.Kind.MEMORY, share__isnull=False)


def test_renaming_a_shared_act_renames_it_for_everyone_and_only_its_maker_may(
    alice, bob, alice_client, bob_web, place
):
    his = sharing.place_of(bob, place.shared)
    bob_web.post(reverse("conversations:act-edit", args=[his.pk]), {"title": "Bob's kitchen"})
    his.refresh_from_db()
    assert his.title == "Kitchen remodel"

    alice_client.post(
        reverse("conversations:act-edit", args=[place.pk]),
        {"title": "Kitchen and utility", "description": "Hers"},
    )

    his.refresh_from_db()
    place.refresh_from_db()
    assert his.title == place.title == place.shared.title == "Kitchen and utility"
    assert place.description == "Hers" and his.description == ""


def test_facts_shared_with_bob_become_his_observations(alice, bob, fact, index):
    place = sharing.create_shared_act(creator=alice, title="Team", member_ids=[bob.pk])
    days = (timezone.now() - timedelta(days=30), timezone.now() - timedelta(days=5))
    for text, when in zip(
        ("Priya leads the mobile app team.", "Priya moved over to backend, leading the API."),
        days,
        strict=True,
    ):
        sharing.share_memory(memory=fact(text, when, relation="state"), place=place)
    index(bob)

    facts.consolidate_member(bob.pk, use_model=False)

    observation = Observation.objects.get(owner=bob)
    assert observation.text == "Priya moved over to backend, leading the API."
    assert set(observation.facts.values_list("owner", flat=True)) == {bob.pk}  # his copies
    assert not Observation.objects.filter(owner=alice).exists()  # hers are hers to consolidate


def test_when_the_sharer_leaves_the_household_the_shared_act_stays_with_the_others(
    alice, bob, bob_web, kept
):
    carol = get_user_model().objects.create_user("carol", password="x" * 12)
    copy = bobs_copy(bob, kept)

    alice.delete()  # an admin removed her, with everything she stored

    copy.refresh_from_db()
    assert copy.content and copy.share.sharer_name == "alice" and copy.share.shared_by is None
    assert list(sharing.members_of(copy.act.shared)) == [bob]
    bob_web.post(reverse("memories:shared-act-add", args=[copy.act_id]), {"members": [carol.pk]})
    assert Memory.objects.filter(owner=carol, share=copy.share).exists()  # bob manages it now
