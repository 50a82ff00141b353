"""What a household said last about a thing comes before what it replaced, with the real
embedding model: a value marked as replaced at review, an older value of the same subject and
relation, a decision a later conversation changed, an earlier telling of the same topic — and a
question about the past still gets the past."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from conversations.models import Conversation
from memories.models import Memory, MemoryItem
from memories.recall import recall
from talkingrock.language import values

NOW = timezone.now()


def ids(result) -> list[int]:
    return [hit.memory_id for hit in result.hits]


def hit_for(result, memory):
    return next(hit for hit in result.hits if hit.memory_id == memory.pk)


def talk(owner):
    return Conversation.objects.create(owner=owner, status=Conversation.Status.ARCHIVED)


def test_a_value_replaced_at_review_ranks_below_its_replacement_and_says_so(alice, remember, index):
    old = remember("Maya chose butcher block worktops.", happened_at=NOW - timedelta(days=40))
    new = remember("Maya chose quartz worktops.", happened_at=NOW - timedelta(days=3))
    Memory.objects.filter(pk=old.pk).update(valid_to=NOW - timedelta(days=3), superseded_by=new)
    index(alice)

    result = recall(alice, "butcher block worktops", k=5)

    assert ids(result).index(new.pk) < ids(result).index(old.pk)
    assert any("replaced on" in reason for reason in hit_for(result, old).why)
    assert "previously: “Maya chose butcher block worktops.”" in " ".join(hit_for(result, new).why)


def test_an_older_value_of_the_same_subject_and_relation_ranks_below_the_newer(
    alice, remember, index
):
    old = remember(
        "School pickup is at 3:15.",
        subject="pickup",
        relation="time",
        happened_at=NOW - timedelta(days=60),
    )
    new = remember(
        "School pickup is at 2:45.",
        subject="pickup",
        relation="time",
        happened_at=NOW - timedelta(days=2),
    )
    dentist = remember(
        "The dentist is at 3:15 on Friday.",
        subject="dentist",
        relation="time",
        happened_at=NOW - timedelta(days=70),
    )
    index(alice)

    result = recall(alice, "what time is school pickup 3:15", k=5)

    assert ids(result).index(new.pk) < ids(result).index(old.pk)
    assert hit_for(result, old).components["older_value"] == {"newer": new.pk, "subject": "pickup"}
    assert "older_value" not in hit_for(result, dentist).components  # another subject


def test_a_decision_a_later_conversation_changed_ranks_below_the_change(alice, remember, index):
    first, second = talk(alice), talk(alice)
    before = remember(
        "Leaning towards butcher block for the worktops, it looks warm and costs less.",
        conversation=first,
        happened_at=NOW - timedelta(days=50),
    )
    after = remember(
        "Went with quartz after all, butcher block needs too much oiling.",
        conversation=second,
        happened_at=NOW - timedelta(days=5),
    )
    chosen = MemoryItem.objects.create(
        memory=before, type="decision", data={"what": "go with butcher block"}
    )
    replacing = MemoryItem.objects.create(memory=after, type="decision", data={"what": "go with quartz"})  # fmt: skip
    chosen.valid_to, chosen.superseded_by = NOW - timedelta(days=5), replacing
    chosen.save()
    index(alice)

    result = recall(alice, "butcher block worktops", k=5)

    assert ids(result)[:2] == [after.pk, before.pk]
    assert hit_for(result, before).components["changed_later"] == {"by": after.pk}
    assert any("changed what it decided" in reason for reason in hit_for(result, before).why)


def test_a_topic_told_again_in_a_later_conversation_puts_the_later_telling_first(
    alice, remember, index
):
    earlier = remember(
        "The hen party is on the 16th in Leeds, we booked the cocktail class.",
        conversation=talk(alice),
        happened_at=NOW - timedelta(days=30),
    )
    later = remember(
        "The hen party moved to the 23rd and it is in Manchester now.",
        conversation=talk(alice),
        happened_at=NOW - timedelta(days=4),
    )
    remember("The boiler service is booked for October.", conversation=talk(alice))
    # Reinforced since: without the rule, the earlier telling would come first.
    Memory.objects.filter(pk=earlier.pk).update(score=2)
    index(alice)

    now = recall(alice, "where is the hen party", k=3)
    assert ids(now)[0] == later.pk
    assert hit_for(now, earlier).components.get("told_again") == {"by": later.pk}

    # Asking about the first plan is asking for the earlier telling: nothing is moved down.
    past = recall(alice, "where was the hen party originally going to be", k=3)
    assert all("told_again" not in hit.components for hit in past.hits)


def test_a_topic_told_again_without_a_change_or_a_new_value_moves_nothing(alice, remember, index):
    earlier = remember(
        "The hen party is on the 16th in Leeds, we booked the cocktail class.",
        conversation=talk(alice),
        happened_at=NOW - timedelta(days=30),
    )
    remember(
        "So excited about the hen party, the cocktail class in Leeds will be brilliant.",
        conversation=talk(alice),
        happened_at=NOW - timedelta(days=4),
    )
    Memory.objects.filter(pk=earlier.pk).update(score=2)
    index(alice)

    result = recall(alice, "where is the hen party", k=3)

    assert ids(result)[0] == earlier.pk
    assert all("told_again" not in hit.components for hit in result.hits)


@pytest.mark.parametrize(
    ("older", "newer", "changed"),
    [
        ("the party is on the 16th", "the party is on the 23rd", True),
        ("pickup at 3pm", "pickup is 4:30pm from next week", True),
        ("the quote was £400", "they came back at £520", True),
        ("we are going to leeds", "we switched to manchester", True),
        ("the party is on the 16th", "the party will be great", False),
        ("we loved the support group", "the support group was lovely again", False),
    ],
)
def test_what_counts_as_telling_a_change(older, newer, changed):
    assert values.tells_a_change(older, newer) is changed


def test_telling_the_same_topic_twice_in_one_conversation_moves_nothing(alice, remember, index):
    one = talk(alice)
    remember("The hen party is on the 16th in Leeds.", conversation=one, happened_at=NOW - timedelta(days=9))  # fmt: skip
    remember("The hen party in Leeds starts at noon.", conversation=one, happened_at=NOW - timedelta(days=8))  # fmt: skip
    index(alice)

    result = recall(alice, "hen party", k=3)

    assert all("told_again" not in hit.components for hit in result.hits)
