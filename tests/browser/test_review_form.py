"""The review form in a browser with JavaScript switched off: a mistake comes back with what is
wrong and everything typed; items and facts are then edited, removed and added, and kept."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse
from playwright.sync_api import expect

from conversations import compression, review, services

pytestmark = pytest.mark.browser

PASSWORD = "a long household passphrase"
LINES = [
    "We decided to paint the hallway green because it hides scuffs.",
    "I'm waiting on Alex to send the contract for the kitchen.",
]


@pytest.fixture
def draft(transactional_db):
    """Alice's closed conversation, compressed, its draft waiting for review."""
    alice = get_user_model().objects.create_user("alice", password=PASSWORD)
    for line in LINES:
        services.add_message(owner=alice, content=line)
    conversation = services.open_conversation(alice)
    services.request_close(conversation=conversation)
    services.confirm_close(conversation=conversation)
    compression.compress(conversation.pk)
    return review.draft_of(conversation)


@pytest.fixture
def no_script(browser, live_server, warm_models):
    context = browser.new_context(base_url=live_server.url, java_script_enabled=False)
    context.set_default_timeout(10_000)
    yield context.new_page()
    context.close()


def test_the_review_form_works_without_javascript(no_script, draft):
    page = no_script
    page.goto("/accounts/login/")
    page.get_by_label("Username").fill("alice")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.goto(reverse("conversations:review", args=[draft.conversation_id]))

    # A mistake: the decision emptied. Nothing is saved; everything typed is still there.
    page.get_by_label("Narrative").fill("Hallway green; the kitchen waits on Alex.")
    page.get_by_label("Decided text").fill("")
    page.get_by_label("Add a fact").fill("The painter comes on Friday.")
    page.get_by_role("button", name="Save edits").click()
    expect(page.get_by_role("alert")).to_contain_text("An item needs some text; or tick Remove.")
    expect(page.get_by_label("Narrative")).to_have_value(
        "Hallway green; the kitchen waits on Alex."
    )
    expect(page.get_by_label("Add a fact")).to_have_value("The painter comes on Friday.")

    # Removed instead, an item added, a fact reworded: saved.
    page.get_by_label("Remove Decided").check()
    page.get_by_label("New item type").select_option(label="To do")
    page.get_by_label("New item text").fill("Order the tiles")
    page.get_by_label("Fact 1", exact=True).fill("Alice chose green for the hallway.")
    page.get_by_role("button", name="Save edits").click()
    expect(page.get_by_role("status")).to_contain_text("Changes saved.")
    expect(page.get_by_label("Decided text")).to_have_count(0)
    expect(page.get_by_label("To do text")).to_have_value("Order the tiles")
    expect(page.locator("ol.facts input.fact-text")).to_have_count(3)
    expect(page.get_by_label("Fact 1", exact=True)).to_have_value(
        "Alice chose green for the hallway."
    )
    expect(page.get_by_label("Narrative")).to_have_value(
        "Hallway green; the kitchen waits on Alex."
    )

    page.get_by_role("button", name="Confirm").click()
    expect(page.get_by_role("status")).to_contain_text("Remembered in Your Story")
    draft.refresh_from_db()
    assert draft.status == "confirmed"
    assert sorted(draft.items.values_list("type", flat=True)) == ["person", "task", "waiting_on"]
