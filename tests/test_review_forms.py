"""The review screen's form: the draft's items and facts as Django formsets, edited, removed and
added through ``review.edit`` (the edit_memory tool's service), under that tool's limits; a
mistake or a tampered row comes back as typed, with what is wrong, and changes nothing."""

from __future__ import annotations

import pytest
from django.urls import reverse

from conversations import review, services
from conversations.services import TransitionError
from memories import services as memories
from memories.models import Act, Memory, MemoryItem
from tests.support.page_form import form_data, new_row, row

LINES = [
    "We decided to paint the hallway green because it hides scuffs.",
    "I'm waiting on Alex to send the contract for the kitchen.",
    "We still can't decide whether to replace the boiler before winter.",
]


@pytest.fixture
def draft(alice_client, alice, django_capture_on_commit_callbacks):
    """Alice's closed conversation, its draft memory waiting for review (four items, two facts)."""
    for line in LINES:
        alice_client.post(reverse("conversations:send"), {"content": line})
    conversation = services.open_conversation(alice)
    alice_client.post(reverse("conversations:close", args=[conversation.pk]))
    with django_capture_on_commit_callbacks(execute=True):
        alice_client.post(reverse("conversations:confirm-close", args=[conversation.pk]))
    return review.draft_of(conversation)


def page(client, memory) -> tuple[str, dict[str, str]]:
    url = reverse("conversations:review", args=[memory.conversation_id])
    return url, form_data(client.get(url).content, "review-form")


def as_stored(memory) -> tuple:
    """Everything the form can change, to show that nothing did."""
    memory.refresh_from_db()
    return (
        memory.content,
        memory.status,
        sorted((i.pk, i.type, tuple(sorted(i.data.items()))) for i in memory.items.all()),
        sorted((f.pk, f.content) for f in review.facts_of(memory)),
    )


def test_the_page_renders_both_formsets_with_their_management_forms(alice_client, draft):
    url, form = page(alice_client, draft)
    assert form["item-INITIAL_FORMS"] == "4" and form["item-TOTAL_FORMS"] == "5"
    assert form["fact-INITIAL_FORMS"] == "2" and form["fact-TOTAL_FORMS"] == "3"
    question = draft.items.get(type="question_opened")
    assert f"{row(form, 'item', question.pk)}-detail" not in form  # no second field to edit
    body = alice_client.get(url).content.decode()
    assert 'aria-label="Remove Decided “paint the hallway green”"' in body
    assert 'aria-label="New item type"' in body and "Add a fact" in body


def test_an_item_is_edited(alice_client, draft):
    decision = draft.items.get(type="decision")
    url, form = page(alice_client, draft)
    at = row(form, "item", decision.pk)
    form |= {f"{at}-main": "paint the hallway sage", f"{at}-detail": "it hides scuffs best"}

    response = alice_client.post(url, form | {"action": "save"})

    assert response.status_code == 302
    decision.refresh_from_db()
    assert decision.data == {"what": "paint the hallway sage", "why": "it hides scuffs best"}


def test_an_item_is_removed_with_its_box(alice_client, draft):
    person = draft.items.get(type="person")
    url, form = page(alice_client, draft)
    form[f"{row(form, 'item', person.pk)}-DELETE"] = "on"
    form[f"{row(form, 'item', person.pk)}-main"] = ""  # emptied and removed: removal wins

    alice_client.post(url, form | {"action": "save"})

    assert not MemoryItem.objects.filter(pk=person.pk).exists()
    assert draft.items.count() == 3


def test_an_item_is_added_from_the_empty_row(alice_client, draft):
    url, form = page(alice_client, draft)
    new = new_row(form, "item")
    form |= {f"{new}-type": "task", f"{new}-main": "Order tiles", f"{new}-detail": "this week"}

    alice_client.post(url, form | {"action": "save"})

    added = draft.items.get(type="task")
    assert added.data == {"description": "Order tiles", "status": "this week"}
    _, again = page(alice_client, draft)  # a fresh empty row after it
    assert again["item-INITIAL_FORMS"] == "5" and again[f"{new_row(again, 'item')}-main"] == ""


def test_a_fact_is_edited_another_removed_and_one_added(alice_client, draft):
    first, second = review.facts_of(draft)
    url, form = page(alice_client, draft)
    form[f"{row(form, 'fact', first.pk)}-text"] = "Alice chose green for the hallway."
    form[f"{row(form, 'fact', second.pk)}-DELETE"] = "on"
    form[f"{new_row(form, 'fact')}-text"] = "The kitchen budget is £40,000."

    alice_client.post(url, form | {"action": "save"})

    first.refresh_from_db()
    assert (first.content, first.user_edited) == ("Alice chose green for the hallway.", True)
    assert (
        first.original_content == "We decided to paint the hallway green because it hides scuffs."
    )
    assert not Memory.objects.filter(pk=second.pk).exists()  # a draft's fact was never kept
    assert [f.content for f in review.facts_of(draft)] == [
        "Alice chose green for the hallway.",
        "The kitchen budget is £40,000.",
    ]


def test_an_unchanged_form_writes_no_item_or_fact(alice_client, draft, monkeypatch):
    seen = []
    monkeypatch.setattr(review, "edit", lambda memory, edits: seen.append(edits) or memory)
    url, form = page(alice_client, draft)

    alice_client.post(url, form | {"action": "save"})

    assert seen == [review.Edits()]


def test_the_forms_make_one_edits_for_review_edit(alice_client, draft, monkeypatch):
    """The same service and the same shape of request as the edit_memory tool."""
    seen = []
    real = review.edit
    monkeypatch.setattr(
        review, "edit", lambda memory, edits: seen.append(edits) or real(memory, edits)
    )
    decision, person = draft.items.get(type="decision"), draft.items.get(type="person")
    first, second = review.facts_of(draft)
    url, form = page(alice_client, draft)
    form[f"{row(form, 'item', decision.pk)}-main"] = "paint it sage"
    form[f"{row(form, 'item', person.pk)}-DELETE"] = "on"
    form |= {f"{new_row(form, 'item')}-type": "insight", f"{new_row(form, 'item')}-main": "Sage"}
    form[f"{row(form, 'fact', first.pk)}-text"] = "Sage it is."
    form[f"{row(form, 'fact', second.pk)}-DELETE"] = "on"
    form[f"{new_row(form, 'fact')}-text"] = "Tiles next."

    alice_client.post(url, form | {"action": "save"})

    assert seen == [
        review.Edits(
            items={decision.pk: ("paint it sage", "it hides scuffs")},
            remove_items=[person.pk],
            add_items=[("insight", "Sage", "")],
            facts={first.pk: "Sage it is."},
            remove_facts=[second.pk],
            add_facts=["Tiles next."],
        )
    ]


# --- refused: the page comes back as typed ---------------------------------------------------


@pytest.fixture
def bobs_item(bob):
    memory = memories.memory_store(owner=bob, content="Bob's shed plans")
    return MemoryItem.objects.create(memory=memory, type="task", data={"description": "Fix shed"})


@pytest.mark.parametrize("remove", [False, True], ids=["edited", "removed"])
def test_another_members_item_id_is_refused_and_nothing_changes(
    alice_client, draft, bobs_item, remove
):
    before = as_stored(draft)
    url, form = page(alice_client, draft)
    at = row(form, "item", draft.items.get(type="person").pk)
    form |= {f"{at}-id": str(bobs_item.pk), f"{at}-main": "Bob's now", "narrative": "Changed."}
    if remove:
        form[f"{at}-DELETE"] = "on"  # a removed row is not validated: its id still is

    response = alice_client.post(url, form | {"action": "save"})

    assert response.status_code == 400
    assert "not part of this memory" in response.content.decode()
    assert as_stored(draft) == before
    bobs_item.refresh_from_db()
    assert bobs_item.data == {"description": "Fix shed"}


def test_another_members_fact_id_is_refused(alice_client, draft, bob):
    bobs_fact = memories.memory_store(owner=bob, content="Bob's shed is blue.")
    before = as_stored(draft)
    url, form = page(alice_client, draft)
    at = row(form, "fact", review.facts_of(draft)[0].pk)
    form |= {f"{at}-id": str(bobs_fact.pk), f"{at}-text": "Bob's shed is red."}

    response = alice_client.post(url, form | {"action": "confirm"})

    assert response.status_code == 400 and "not part of this memory" in response.content.decode()
    assert as_stored(draft) == before
    bobs_fact.refresh_from_db()
    assert bobs_fact.content == "Bob's shed is blue."


def test_another_members_act_is_refused(alice_client, draft, bob):
    bobs = Act.objects.create(owner=bob, title="Bob's shed")
    url, form = page(alice_client, draft)

    response = alice_client.post(url, form | {"destination": bobs.pk, "action": "confirm"})

    assert response.status_code == 400
    assert "That act is not one of yours." in response.content.decode()
    assert as_stored(draft)[1] == "draft"


def test_invalid_input_comes_back_as_typed_with_what_is_wrong(alice_client, draft):
    before = as_stored(draft)
    decision = draft.items.get(type="decision")
    url, form = page(alice_client, draft)
    long = "green " * 60  # 360 characters: over the 300 of an item
    new_fact = new_row(form, "fact")
    form |= {
        "narrative": "My own words for it.",
        f"{row(form, 'item', decision.pk)}-main": long,
        f"{new_fact}-text": "The painter comes on Friday.",
    }

    response = alice_client.post(url, form | {"action": "confirm"})

    assert response.status_code == 400
    body = response.content.decode()
    assert "Nothing has been saved yet" in body
    assert "Decided “paint the hallway green”: Ensure this value has at most 300" in body
    again = form_data(body, "review-form")  # what was typed, all of it, ready to send again
    assert again["narrative"] == "My own words for it."
    assert again[f"{row(again, 'item', decision.pk)}-main"] == long  # exactly as typed
    assert again[f"{new_fact}-text"] == "The painter comes on Friday."
    assert as_stored(draft) == before


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"narrative": "x" * 10_001}, "Narrative: Ensure this value has at most 10000"),
        ({"narrative": "   "}, "Narrative: The narrative needs some text."),
        ({"{item}-main": ""}, "An item needs some text; or tick Remove."),
        ({"{item}-main": "\x00\x07\x1b"}, "An item needs some text"),  # nothing left once cleaned
        ({"{item}-detail": "d" * 301}, "Ensure this value has at most 300"),
        ({"{fact}-text": "f" * 301}, "Fact 1: Ensure this value has at most 300"),
        ({"{fact}-text": ""}, "Fact 1: A fact needs some text; or tick Remove."),
        ({"{new_item}-main": "Order tiles"}, "New item: Choose what kind of item it is."),
        ({"{new_item}-type": "task"}, "New item: A new item needs some text."),
        ({"{new_item}-type": "gossip", "{new_item}-main": "x"}, "Select a valid choice."),
        ({"item-TOTAL_FORMS": "", "item-INITIAL_FORMS": ""}, "ManagementForm data is missing"),
    ],
)
def test_each_limit_of_the_edit_memory_tool_is_the_forms(alice_client, draft, change, message):
    before = as_stored(draft)
    url, form = page(alice_client, draft)
    names = {
        "item": row(form, "item", draft.items.get(type="decision").pk),
        "fact": row(form, "fact", review.facts_of(draft)[0].pk),
        "new_item": new_row(form, "item"),
    }
    form |= {name.format(**names): value for name, value in change.items()}

    response = alice_client.post(url, form | {"action": "save"})

    assert response.status_code == 400
    assert message in response.content.decode()
    assert as_stored(draft) == before


@pytest.mark.parametrize("total", ["1000000000", "9223372036854775808"])
def test_a_huge_count_of_rows_is_refused_without_building_them(alice_client, draft, total):
    """The page holds the draft's four items, up to a hundred new and one blank: a posted
    TOTAL_FORMS beyond that is told so, and only that many forms are ever built."""
    before = as_stored(draft)
    url, form = page(alice_client, draft)

    response = alice_client.post(url, form | {"item-TOTAL_FORMS": total, "action": "save"})

    assert response.status_code == 400
    assert "Please submit at most 105 forms." in response.content.decode()
    assert len(response.context["form"].items.forms) == 105
    assert as_stored(draft) == before


def test_a_post_without_the_form_is_refused_not_a_server_error(alice_client, draft):
    before = as_stored(draft)
    url = reverse("conversations:review", args=[draft.conversation_id])
    response = alice_client.post(url, {"action": "confirm"})
    assert (
        response.status_code == 400
        and "ManagementForm data is missing" in response.content.decode()
    )
    assert as_stored(draft) == before


def test_control_characters_in_item_and_fact_text_are_cleaned(alice_client, draft):
    decision = draft.items.get(type="decision")
    url, form = page(alice_client, draft)
    form[f"{row(form, 'item', decision.pk)}-main"] = "paint\x00 the\x1b[0m hall"
    form[f"{new_row(form, 'fact')}-text"] = "Tiles\x07 next."

    assert alice_client.post(url, form | {"action": "save"}).status_code == 302

    decision.refresh_from_db()
    assert decision.data["what"] == "paint the[0m hall"
    assert review.facts_of(draft)[-1].content == "Tiles next."


def test_a_split_with_one_destination_is_refused_before_anything_is_written(alice_client, draft):
    before = as_stored(draft)
    url, form = page(alice_client, draft)
    form[f"{row(form, 'item', draft.items.get(type='decision').pk)}-main"] = "paint it sage"

    response = alice_client.post(url, form | {"action": "split"})

    assert response.status_code == 400
    body = response.content.decode()
    assert "A split needs at least two destinations" in body and "paint it sage" in body
    assert as_stored(draft) == before


def test_a_refusal_from_the_service_rolls_the_edits_back(alice_client, draft, monkeypatch):
    def archived_meanwhile(**kwargs):
        raise TransitionError("This conversation is already archived: its memory was kept.")

    monkeypatch.setattr(review, "confirm", archived_meanwhile)
    before = as_stored(draft)
    url, form = page(alice_client, draft)
    form[f"{new_row(form, 'item')}-type"] = "task"
    form[f"{new_row(form, 'item')}-main"] = "Order tiles"

    response = alice_client.post(url, form | {"action": "confirm"})

    assert response.status_code == 400
    body = response.content.decode()
    assert "already archived" in body and 'value="Order tiles"' in body
    assert as_stored(draft) == before  # the new item went with the refusal: no double on resend
