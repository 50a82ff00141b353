"""Changes of mind through the whole app, offline: a later conversation that reverses a decision
proposes the supersession at review; accepted, the old decision and fact are kept with
``valid_to`` and ``superseded_by`` and the greeting and recall give the current one first;
declined, nothing is replaced. Facts are found by recall weeks later, and lead to their
conversation."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from conversations import review, services
from conversations.greeting import greeting
from memories import indexing
from memories.models import Memory, MemoryItem, StateDelta
from memories.recall import recall

BEFORE = "we decided to go with butcher block worktops for the kitchen, its cheaper"
AFTER = "changed our minds, going with quartz worktops instead, butcher block needs oiling"


@pytest.fixture
def capture(django_capture_on_commit_callbacks):
    return django_capture_on_commit_callbacks


def talked(owner, capture, *lines):
    conversation = None
    for line in lines:
        conversation, _ = services.add_message(owner=owner, content=line)
    services.request_close(conversation=conversation)
    with capture(execute=True):
        services.confirm_close(conversation=conversation)
    conversation.refresh_from_db()
    return conversation


def decided(owner, capture):
    first = talked(owner, capture, BEFORE)
    review.confirm(conversation=first)
    old = MemoryItem.objects.get(type="decision", memory__conversation=first)
    assert "butcher block" in old.main
    second = talked(owner, capture, AFTER)
    delta = review.draft_of(second).deltas.get(type=StateDelta.Type.SUPERSEDED)
    return first, second, old, delta


def test_a_reversed_decision_is_proposed_and_accepted_keeping_the_old_one(alice, capture):
    _, second, old, delta = decided(alice, capture)
    assert delta.item == old and "quartz" in str(delta.data)

    review.confirm(conversation=second)

    old.refresh_from_db()
    new = MemoryItem.objects.get(type="decision", memory__conversation=second)
    assert old.valid_to is not None and old.superseded_by == new  # kept, marked as history
    assert MemoryItem.objects.filter(pk=old.pk).exists()
    delta.refresh_from_db()
    assert delta.applied

    decisions = greeting(alice).recent_decisions
    shown = next(item for item in decisions if item.pk == new.pk)
    assert [earlier.pk for earlier in shown.supersedes.all()] == [old.pk]
    assert all(item.pk != old.pk for item in decisions)


def test_a_declined_supersession_replaces_nothing(alice, capture):
    _, second, old, delta = decided(alice, capture)

    review.confirm(conversation=second, declined=[delta.pk])

    old.refresh_from_db()
    delta.refresh_from_db()
    assert old.valid_to is None and old.superseded_by is None
    assert not delta.accepted and not delta.applied


def test_after_the_change_recall_gives_the_current_decision_first(alice, capture):
    first, second, _, _ = decided(alice, capture)
    review.confirm(conversation=second)
    indexing.index_memories(owner_id=alice.pk)

    result = recall(alice, "what worktops are we getting", k=5)

    conversations = [hit.memory.conversation_id for hit in result.hits]
    assert second.pk in conversations
    if first.pk in conversations:
        assert conversations.index(second.pk) < conversations.index(first.pk)


def test_a_fact_is_found_weeks_later_and_leads_to_its_conversation(alice, capture):
    said = talked(
        alice,
        capture,
        "dave came by to measure the kitchen. our budget is 40k all in",
        "also the boiler service is booked for october",
    )
    review.confirm(conversation=said)
    facts = Memory.objects.filter(conversation=said, kind=Memory.Kind.FACT)
    assert facts.exists() and all(f.status == Memory.Status.CONFIRMED for f in facts)
    for other in ("the dog needs worming", "school trip money is due friday"):
        review.confirm(conversation=talked(alice, capture, other))
    indexing.index_memories(owner_id=alice.pk)

    weeks_later = timezone.now() + timedelta(weeks=5)
    result = recall(alice, "what's the kitchen budget", k=5, at=weeks_later)

    top = result.hits[0].memory
    assert top.conversation_id == said.pk
    assert any(
        hit.memory.kind == Memory.Kind.FACT and "40,000" in hit.memory.content
        for hit in result.hits
    )
