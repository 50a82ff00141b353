"""Changes of mind through the whole app, offline: a later conversation that reverses a decision
proposes the supersession at review; accepted, the old decision and fact are kept with
``valid_to`` and ``superseded_by`` and the greeting and recall give the current one first;
declined, nothing is replaced. Facts are found by recall weeks later, and lead to their
conversation."""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone

from conversations import changes, review, services
from conversations.greeting import greeting
from memories import indexing
from memories.models import Memory, MemoryItem, StateDelta
from memories.recall import recall

BEFORE = "we decided to go with butcher block worktops for the kitchen, its cheaper"
AFTER = "changed our minds, going with quartz worktops instead, butcher block needs oiling"


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


# --- with a scripted Ollama ---------------------------------------------------------------------

ENTITIES = {
    "people": [{"name": "Alex", "context": "sends the contract", "relation": "builder"}],
    "decisions": [{"what": "paint the hallway green", "why": "hides scuffs"}],
    "waiting_on": [{"who": "Alex", "what": "the kitchen contract", "since": "2026-11-23"}],
}
FACTS = {"facts": [{"text": "Alice chose green paint for the hallway.", "subject": "hallway", "relation": "choice"}]}  # fmt: skip
LATER = {
    "people": [{"name": "Alex", "context": "sent the contract", "relation": "builder"}],
    "decisions": [{"what": "paint the hallway grey", "why": "green looked dark"}],
}
LATER_FACTS = {"facts": [{"text": "Alice chose grey paint for the hallway.", "subject": "hallway", "relation": "choice"}]}  # fmt: skip
NARRATIVE = {"narrative": "Alice talked about the hallway and the kitchen contract."}


def test_with_ollama_the_model_proposes_what_closes_and_what_is_replaced(alice, capture, ollama):
    ollama.answer(ENTITIES, ENTITIES, FACTS, NARRATIVE)
    first = talked(alice, capture, "We're painting the hallway green. Waiting on Alex's contract.")
    review.confirm(conversation=first)
    open_items, current = changes.earlier_of(alice, None)
    waiting = next(n for n, e in enumerate(open_items) if e.type == "waiting_on")
    green = next(n for n, e in enumerate(current) if e.type == "decision")
    green_fact = next(n for n, e in enumerate(current) if e.type == "fact")
    ollama.answer(
        LATER,
        LATER,
        LATER_FACTS,
        {
            "resolved": [{"item_id": waiting, "why": "Alex sent the contract"}],
            # One real, one id the model made up: the made-up one is dropped, not a 500.
            "superseded": [
                {"id": green, "new": "paint the hallway grey", "why": "grey instead of green"},
                {"id": green_fact, "new": "grey paint", "why": "the same choice, as a fact"},
                {"id": 999, "new": "nothing", "why": "hallucinated"},
            ],
        },
        NARRATIVE,
    )
    second = talked(alice, capture, "Alex sent the contract. Actually, grey for the hallway.")

    report = second.compression_report
    assert report["deltas"]["engine"] == "ollama"
    deltas = review.draft_of(second).deltas.all()
    superseded = [d for d in deltas if d.type == StateDelta.Type.SUPERSEDED]
    assert {(d.item_id is not None, d.old_fact_id is not None) for d in superseded} == {
        (True, False),
        (False, True),
    }
    assert any(d.resolves and d.item.type == "waiting_on" for d in deltas)

    # What the model alone proposes is shown unticked (the rules did not find the same subject
    # and relation); the member ticks it here, and both replacements are applied.
    model_only = [d for d in superseded if d.data["by"] == "model"]
    assert model_only and not any(d.ticked for d in model_only)
    review.confirm(conversation=second, declined=[])
    old = MemoryItem.objects.get(type="decision", memory__conversation=first)
    old_fact = Memory.objects.get(kind=Memory.Kind.FACT, conversation=first)
    assert old.valid_to is not None and old_fact.valid_to is not None
    assert not MemoryItem.objects.get(type="waiting_on", memory__conversation=first).is_active


def test_with_ollama_broken_delta_json_falls_back_to_the_rules(alice, capture, ollama):
    ollama.answer(ENTITIES, ENTITIES, FACTS, NARRATIVE)
    review.confirm(conversation=talked(alice, capture, "We're painting the hallway green."))
    ollama.answer(LATER, LATER, LATER_FACTS, "{not json", "{still not", NARRATIVE)

    second = talked(alice, capture, "Actually, grey for the hallway.")

    report = second.compression_report
    assert report["deltas"]["engine"] == "offline" and report["deltas"]["fallback_reason"]
    assert review.draft_of(second) is not None
