"""The review flows (issue 24): an act made from the review screen by name (the member's own, never
a second of the same name, never another member's); "Forget this conversation", asked first,
discarding the draft and everything said (for a conversation of only questions too); a fact's
own act kept on Confirm; a narrative that never names the act and is written again from what is
left after items are removed; one plain line about the engine, the rest in a fold; and the
compressing page that refreshes itself without JavaScript."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse

from conversations import changes, compression, review, services
from conversations.asking import Produced
from conversations.models import Conversation, Message
from memories import evidence
from memories.acts import ensure_your_story
from memories.models import Act, Memory, Recall
from memories.recall import recall
from narratives import services as narratives
from narratives.models import Narrative
from tests.support.page_form import form_data, row

LINES = [
    "We decided to paint the hallway green because it hides scuffs.",
    "I'm waiting on Alex to send the contract for the kitchen.",
    "We still can't decide whether to replace the boiler before winter.",
]
QUESTIONS = ["When is the dentist appointment?", "What colour did we choose for the hallway?"]


def closed(client, owner, capture, lines=LINES, *, run=True) -> Conversation:
    """The member's conversation, said and closed; compressed unless ``run`` is False."""
    for line in lines:
        client.post(reverse("conversations:send"), {"content": line})
    conversation = services.open_conversation(owner)
    client.post(reverse("conversations:close", args=[conversation.pk]))
    with capture(execute=run):
        client.post(reverse("conversations:confirm-close", args=[conversation.pk]))
    conversation.refresh_from_db()
    return conversation


@pytest.fixture
def draft(alice_client, alice, capture) -> Memory:
    """Alice's closed conversation, its draft (four items, two facts) waiting for review."""
    return review.draft_of(closed(alice_client, alice, capture))


def page(client, memory) -> tuple[str, dict[str, str]]:
    url = reverse("conversations:review", args=[memory.conversation_id])
    return url, form_data(client.get(url).content, "review-form")


def confirmed(memory) -> Memory:
    memory.refresh_from_db()
    assert memory.status == Memory.Status.CONFIRMED
    return memory


# --- a new act from the review ---------------------------------------------------------------


def test_an_act_named_beside_keep_it_in_is_made_and_keeps_the_memory(alice_client, alice, draft):
    url, form = page(alice_client, draft)

    response = alice_client.post(url, form | {"new_act": "Garden shed", "action": "confirm"})

    act = Act.objects.get(owner=alice, title="Garden shed")
    assert response.url == draft.get_absolute_url()
    assert confirmed(draft).act == act
    assert {fact.act for fact in draft.facts.all()} == {act}  # the facts went with it


def test_saving_with_a_new_act_routes_the_draft_there_and_the_page_shows_it(
    alice_client, alice, draft
):
    url, form = page(alice_client, draft)

    alice_client.post(url, form | {"new_act": "  Boiler  ", "action": "save"})

    act = Act.objects.get(owner=alice, title="Boiler")
    draft.refresh_from_db()
    assert (draft.status, draft.act) == (Memory.Status.DRAFT, act)
    _, again = page(alice_client, draft)
    assert again["destination"] == str(act.pk) and again["new_act"] == ""


def test_a_name_the_member_already_has_uses_that_act_not_a_second(alice_client, alice, draft):
    garden = Act.objects.create(owner=alice, title="Garden")
    old = Act.objects.create(owner=alice, title="Loft", status=Act.Status.ARCHIVED)
    fact = review.facts_of(draft)[0]
    url, form = page(alice_client, draft)
    form |= {"new_act": "GARDEN", f"{row(form, 'fact', fact.pk)}-new_act": "loft"}

    alice_client.post(url, form | {"action": "confirm"})

    assert Act.objects.filter(owner=alice).count() == 3  # Your Story, Garden, Loft
    assert confirmed(draft).act == garden
    old.refresh_from_db()
    fact.refresh_from_db()
    assert old.status == Act.Status.ACTIVE  # something is kept in it again
    assert fact.act == old


def test_your_story_by_name_is_your_story(alice_client, alice, draft):
    url, form = page(alice_client, draft)
    alice_client.post(url, form | {"new_act": "your story", "action": "confirm"})
    assert confirmed(draft).act == ensure_your_story(owner=alice)
    assert Act.objects.filter(owner=alice).count() == 1


def test_a_new_act_is_the_members_own_even_when_another_has_that_name(
    alice_client, alice, bob, draft
):
    bobs = Act.objects.create(owner=bob, title="Garden")
    url, form = page(alice_client, draft)

    alice_client.post(url, form | {"new_act": "Garden", "action": "confirm"})

    mine = Act.objects.get(owner=alice, title="Garden")
    assert confirmed(draft).act == mine and mine != bobs
    assert not Memory.objects.filter(act=bobs).exists()
    assert Act.objects.filter(owner=bob).count() == 2  # Bob's Your Story and Garden, no more


def test_a_new_act_name_too_long_comes_back_and_makes_nothing(alice_client, alice, draft):
    url, form = page(alice_client, draft)
    response = alice_client.post(url, form | {"new_act": "x" * 201, "action": "confirm"})
    assert response.status_code == 400
    assert "at most 200" in response.content.decode()
    assert Act.objects.filter(owner=alice).count() == 1
    draft.refresh_from_db()
    assert draft.status == Memory.Status.DRAFT


def test_an_act_made_for_a_refused_confirm_is_rolled_back(alice_client, alice, draft, monkeypatch):
    def archived_meanwhile(**kwargs):
        raise services.TransitionError("This conversation is already archived.")

    monkeypatch.setattr(review, "confirm", archived_meanwhile)
    url, form = page(alice_client, draft)
    response = alice_client.post(url, form | {"new_act": "Garden", "action": "confirm"})
    assert response.status_code == 400
    assert not Act.objects.filter(owner=alice, title="Garden").exists()


# --- a fact's own act ------------------------------------------------------------------------


def test_a_facts_own_act_is_kept_on_confirm(alice_client, alice, draft):
    garden = Act.objects.create(owner=alice, title="Garden")
    house = Act.objects.create(owner=alice, title="House")
    first, second = review.facts_of(draft)
    url, form = page(alice_client, draft)
    form[f"{row(form, 'fact', first.pk)}-act"] = str(garden.pk)

    alice_client.post(url, form | {"destination": str(house.pk), "action": "confirm"})

    assert confirmed(draft).act == house
    first.refresh_from_db(), second.refresh_from_db()
    assert (first.act, first.status) == (garden, Memory.Status.CONFIRMED)
    assert second.act == house  # a fact left alone goes where its memory goes


def test_a_fact_given_a_new_act_by_name_is_kept_there(alice_client, alice, draft):
    first, second = review.facts_of(draft)
    url, form = page(alice_client, draft)
    form[f"{row(form, 'fact', first.pk)}-new_act"] = "Painting"

    alice_client.post(url, form | {"action": "confirm"})

    first.refresh_from_db(), second.refresh_from_db()
    assert first.act == Act.objects.get(owner=alice, title="Painting")
    assert second.act == confirmed(draft).act == ensure_your_story(owner=alice)


def test_a_facts_act_saved_earlier_stays_when_the_memory_moves_later(alice_client, alice, draft):
    garden = Act.objects.create(owner=alice, title="Garden")
    house = Act.objects.create(owner=alice, title="House")
    first, second = review.facts_of(draft)
    url, form = page(alice_client, draft)
    form[f"{row(form, 'fact', first.pk)}-act"] = str(garden.pk)
    alice_client.post(url, form | {"action": "save"})
    url, form = page(alice_client, draft)  # the page again, as saved
    assert form[f"{row(form, 'fact', first.pk)}-act"] == str(garden.pk)

    alice_client.post(url, form | {"destination": str(house.pk), "action": "confirm"})

    first.refresh_from_db(), second.refresh_from_db()
    assert (confirmed(draft).act, first.act, second.act) == (house, garden, house)


def test_confirm_keeps_each_fact_in_the_act_it_is_given(alice, alice_client, draft):
    garden = Act.objects.create(owner=alice, title="Garden")
    house = Act.objects.create(owner=alice, title="House")
    first, second = review.facts_of(draft)
    conversation = draft.conversation

    review.confirm(conversation=conversation, destination=house, fact_acts={first.pk: garden})

    first.refresh_from_db(), second.refresh_from_db()
    assert (confirmed(draft).act, first.act, second.act) == (house, garden, house)


def test_another_members_act_for_a_fact_is_refused(alice, bob, draft):
    bobs = Act.objects.create(owner=bob, title="Shed")
    first, _ = review.facts_of(draft)
    with pytest.raises(Act.DoesNotExist):
        review.confirm(conversation=draft.conversation, fact_acts={first.pk: bobs})
    draft.refresh_from_db()
    assert draft.status == Memory.Status.DRAFT


# --- forget this conversation ----------------------------------------------------------------


def said_rows(owner, conversation_id: int):
    return Memory.everything.filter(owner=owner, conversation_id=conversation_id)


def test_forget_asks_first_and_a_get_deletes_nothing(alice_client, alice, draft):
    conversation = draft.conversation
    review_page = alice_client.get(reverse("conversations:review", args=[conversation.pk]))
    forget_url = reverse("conversations:forget", args=[conversation.pk])
    assert f'action="{forget_url}"' in review_page.content.decode()
    assert "Forget this conversation" in review_page.content.decode()

    response = alice_client.get(forget_url)

    assert response.status_code == 200 and "Yes, forget it" in response.content.decode()
    assert Conversation.objects.filter(pk=conversation.pk).exists()
    assert Message.objects.filter(conversation=conversation).count() >= len(LINES)
    assert Memory.objects.filter(pk=draft.pk).exists()


def test_forgetting_discards_the_draft_the_transcript_and_its_evidence(
    alice_client, alice, draft, index
):
    conversation = draft.conversation
    index(alice)
    assert evidence.find(owner=alice, query="hallway scuffs")  # findable before
    # The running narrative's link for it, and the trail of a recall made while it was open.
    narratives.create(owner=alice, summary="Alice chose green.", conversation=conversation)
    Recall.objects.create(
        owner=alice, query="hallway colour", purpose="chat", conversation=conversation
    )

    response = alice_client.post(reverse("conversations:forget", args=[conversation.pk]))

    assert response.url == reverse("home")
    assert not Conversation.objects.filter(pk=conversation.pk).exists()
    assert not Message.objects.filter(conversation_id=conversation.pk).exists()
    assert not said_rows(alice, conversation.pk).exists()
    assert not Memory.everything.filter(owner=alice).exists()  # no draft, no fact, no message
    assert not Narrative.objects.filter(owner=alice).exists()
    assert not Recall.objects.filter(owner=alice, query="hallway colour").exists()
    assert evidence.find(owner=alice, query="hallway scuffs") == []
    assert not [h for h in recall(alice, "hallway green scuffs", k=5).strong]
    home = alice_client.get(reverse("home")).content.decode()
    assert "Start a conversation" in home and "Forgotten" in home
    search = alice_client.get(reverse("memories:search"), {"q": "hallway scuffs"})
    assert "hides scuffs" not in search.content.decode()


def test_another_members_conversation_cannot_be_forgotten(alice, bob, draft):
    conversation = draft.conversation
    url = reverse("conversations:forget", args=[conversation.pk])
    bob_client = Client()
    bob_client.force_login(bob)

    assert bob_client.get(url).status_code == 404
    assert bob_client.post(url).status_code == 404

    assert Conversation.objects.filter(pk=conversation.pk).exists()
    assert Memory.objects.filter(pk=draft.pk).exists()
    assert said_rows(alice, conversation.pk).filter(kind=Memory.Kind.SAID).count() == len(LINES)


@pytest.mark.parametrize("pk", ["999999", "99999999999999999999"])
def test_forgetting_a_conversation_that_is_not_there_is_a_404(alice_client, pk):
    assert alice_client.post(f"/conversations/{pk}/forget/").status_code == 404


def test_a_conversation_of_only_questions_can_be_forgotten(alice_client, alice, capture):
    conversation = closed(alice_client, alice, capture, QUESTIONS)
    assert conversation.review_ready
    page_ = alice_client.get(reverse("conversations:review", args=[conversation.pk]))
    assert page_.status_code == 200 and "Forget this conversation" in page_.content.decode()

    alice_client.post(reverse("conversations:forget", args=[conversation.pk]))

    assert not Conversation.objects.filter(pk=conversation.pk).exists()
    assert not Memory.everything.filter(owner=alice).exists()
    assert evidence.find(owner=alice, query="dentist appointment") == []


def test_a_conversation_still_being_remembered_is_not_forgotten_and_its_task_finishes(
    alice_client, alice, capture
):
    conversation = closed(alice_client, alice, capture, run=False)  # queued, not yet compressed
    assert conversation.status == Conversation.Status.COMPRESSING

    response = alice_client.post(reverse("conversations:forget", args=[conversation.pk]))

    assert response.status_code == 302 and Conversation.objects.filter(pk=conversation.pk).exists()
    assert compression.compress(conversation.pk).startswith("draft memory")


def test_a_compression_of_a_conversation_that_is_gone_does_nothing(alice):
    assert compression.compress(987654).startswith("nothing to do")


def test_a_kept_conversation_is_not_forgotten_here(alice_client, alice, draft):
    conversation = draft.conversation
    review.confirm(conversation=conversation)

    response = alice_client.post(reverse("conversations:forget", args=[conversation.pk]))

    assert response.url == reverse("conversations:detail", args=[conversation.pk])
    assert Conversation.objects.filter(pk=conversation.pk).exists()
    assert confirmed(draft).conversation_id == conversation.pk


def test_after_forgetting_a_new_conversation_can_start(alice_client, alice, draft):
    alice_client.post(reverse("conversations:forget", args=[draft.conversation_id]))
    alice_client.post(reverse("conversations:send"), {"content": "A fresh start."})
    assert services.open_conversation(alice).messages.filter(content="A fresh start.").exists()


# --- the narrative -----------------------------------------------------------------------------


def test_the_narrative_never_names_the_act_it_is_routed_to(
    alice_client, alice, capture, monkeypatch
):
    kitchen = Act.objects.create(owner=alice, title="Kitchen remodel")
    suggest = changes.suggest_route

    def to_the_kitchen(owner, reading, entities, *, use_llm):
        suggest(owner, reading, entities, use_llm=use_llm)  # the real stage still runs
        return Produced(
            {"act_id": kitchen.pk, "confidence": 0.9, "reason": "The kitchen."}, "offline"
        )

    monkeypatch.setattr(changes, "suggest_route", to_the_kitchen)
    memory = review.draft_of(closed(alice_client, alice, capture))

    assert memory.act == kitchen
    assert "Kitchen remodel" not in memory.content and "(" not in memory.content[-30:]
    assert "hallway green" in memory.content


def test_after_removing_an_item_the_narrative_no_longer_names_it(alice_client, alice, draft):
    assert "Alex" in draft.content
    url, form = page(alice_client, draft)
    for item in draft.items.filter(type__in=["waiting_on", "person"]):
        form[f"{row(form, 'item', item.pk)}-DELETE"] = "on"
    for fact in review.facts_of(draft):
        if "Alex" in fact.content:
            form[f"{row(form, 'fact', fact.pk)}-DELETE"] = "on"

    alice_client.post(url, form | {"action": "save"})

    draft.refresh_from_db()
    assert "Alex" not in draft.content
    assert "hallway green" in draft.content  # what is left is still told, in its words
    assert not draft.user_edited  # still the engine's narrative, written again
    _, again = page(alice_client, draft)
    assert again["narrative"] == draft.content


def test_removing_an_item_and_confirming_at_once_keeps_the_narrative_without_it(
    alice_client, alice, draft
):
    decision = draft.items.get(type="decision")
    url, form = page(alice_client, draft)
    form[f"{row(form, 'item', decision.pk)}-DELETE"] = "on"
    for fact in review.facts_of(draft):
        if "hallway" in fact.content:
            form[f"{row(form, 'fact', fact.pk)}-DELETE"] = "on"

    alice_client.post(url, form | {"action": "confirm"})

    assert "hallway" not in confirmed(draft).content
    assert "Alex" in draft.content


def test_a_narrative_the_member_wrote_is_kept_after_removing_items(alice_client, alice, draft):
    url, form = page(alice_client, draft)
    waiting = draft.items.get(type="waiting_on")
    form[f"{row(form, 'item', waiting.pk)}-DELETE"] = "on"
    form["narrative"] = "In my words: green hallway, and Alex owes us the contract."

    alice_client.post(url, form | {"action": "save"})

    draft.refresh_from_db()
    assert draft.content == "In my words: green hallway, and Alex owes us the contract."
    assert draft.user_edited


def test_when_nothing_is_left_the_narrative_says_what_was_talked_about(alice, alice_client, draft):
    url, form = page(alice_client, draft)
    for item in draft.items.all():
        form[f"{row(form, 'item', item.pk)}-DELETE"] = "on"
    for fact in review.facts_of(draft):
        form[f"{row(form, 'fact', fact.pk)}-DELETE"] = "on"

    alice_client.post(url, form | {"action": "save"})

    draft.refresh_from_db()
    assert "talked about" in draft.content and "Alex" not in draft.content
    assert "Nothing was decided or left open." in draft.content


# --- how it was read: one line, the rest folded ------------------------------------------------


def test_the_engine_is_one_plain_line_and_the_stages_are_in_a_fold(alice_client, draft):
    body = alice_client.get(reverse("conversations:review", args=[draft.conversation_id]))
    body = body.content.decode()
    folded = re.search(r'<details class="explain engines">.*?</details>', body, re.S)
    assert folded and "entities" in folded.group(0) and "offline" in folded.group(0)
    assert folded.group(0).count("Ollama is not available") == 1  # said once, not per stage
    outside = body.replace(folded.group(0), "")
    assert outside.count("Read on this computer without Ollama.") == 1
    assert "Ollama is not available" not in outside and "Produced by" not in outside
    assert "offline" not in outside.split('id="review-heading"')[1]
    assert "confidence" not in outside


# --- compressing, without JavaScript ---------------------------------------------------------


REFRESH = '<noscript><meta http-equiv="refresh" content="3"></noscript>'


def test_the_compressing_page_refreshes_itself_without_javascript(alice_client, alice, capture):
    conversation = closed(alice_client, alice, capture, run=False)
    assert conversation.status == Conversation.Status.COMPRESSING
    assert not conversation.review_ready

    waiting = alice_client.get(reverse("home")).content.decode()

    assert REFRESH in waiting and "Remembering this conversation" in waiting
    assert "Reload this page" not in waiting
    compression.compress(conversation.pk)
    assert alice_client.get(reverse("home")).url == reverse(
        "conversations:review", args=[conversation.pk]
    )


def test_a_failed_compression_does_not_refresh_forever(alice_client, alice, capture):
    conversation = closed(alice_client, alice, capture, run=False)
    Conversation.objects.filter(pk=conversation.pk).update(
        compression_stage="failed", compression_error="worker died"
    )
    page_ = alice_client.get(reverse("home")).content.decode()
    assert "Retry" in page_ and REFRESH not in page_
