"""On a 390 px phone: the greeting's Done and Dismiss, and the review's buttons and ticks, are at
least 44 px to tap; the review's items table stacks, so nothing is wider than the screen and each
item's act is a full-width choice. With JavaScript off, closing a conversation ends on its review
by itself: the compressing page refreshes until the review is ready."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse
from playwright.sync_api import expect

from conversations import compression, review, services
from tests.browser.pages import PASSWORD, PHONE, WIDEST, compressed, screenshots, signed_in

pytestmark = pytest.mark.browser

TAP = 44
LINES = [
    "We decided to paint the hallway green because it hides scuffs.",
    "I'm waiting on Alex to send the contract for the kitchen.",
    "We still can't decide whether to replace the boiler before winter.",
]


@pytest.fixture
def alice(transactional_db):
    return get_user_model().objects.create_user("alice", password=PASSWORD)


def too_small(locator) -> list[str]:
    """Each element of ``locator`` whose box is under 44 px either way, with its size."""
    small = []
    for element in locator.all():
        box = element.bounding_box()
        assert box is not None, "not shown"
        if box["width"] < TAP or box["height"] < TAP:
            name = element.get_attribute("aria-label") or element.inner_text()
            small.append(f"{name[:40]}: {box['width']:.0f}×{box['height']:.0f}")
    return small


def test_the_greetings_done_and_dismiss_are_big_enough_to_tap(browser, live_server, alice):
    review.confirm(conversation=compressed(alice, *LINES))
    context, page = signed_in(browser, live_server, viewport=PHONE)

    buttons = page.locator("li.thread form button")
    expect(buttons.first).to_be_visible()
    assert buttons.count() >= 4  # Done and Dismiss of at least two threads
    assert too_small(buttons) == []
    assert page.evaluate(WIDEST)["scroll"] <= PHONE["width"]
    context.close()


def test_the_review_on_a_phone_has_big_ticks_and_a_stacked_table(
    browser, live_server, alice, tmp_path
):
    conversation = compressed(alice, *LINES)
    context, page = signed_in(browser, live_server, viewport=PHONE)
    page.goto(reverse("conversations:review", args=[conversation.pk]))
    page.get_by_text("Split across acts").click()  # its ticks shown too
    page.get_by_text("Forget this conversation").click()
    page.screenshot(path=str(screenshots(tmp_path) / "phone-review.png"), full_page=True)

    ticks = page.locator("#review-form input[type=checkbox]")
    labelled = page.locator("#review-form label:has(input[type=checkbox])")
    assert ticks.count() >= 6 and labelled.count() == ticks.count()  # every tick in a label
    assert too_small(labelled) == []
    for tick in ticks.all():
        box = tick.bounding_box()
        assert box["width"] >= 20 and box["height"] >= 20  # drawn larger than 13 px
    assert too_small(page.locator("main button:visible")) == []

    found = page.evaluate(WIDEST)
    assert found["scroll"] <= PHONE["width"] and found["out"] == [], found
    # Each item's act is a full-width choice under its own label, not squeezed to "You".
    split_to = page.get_by_label("Split destination of", exact=False).first
    assert split_to.bounding_box()["width"] >= 200
    expect(page.locator("table.items td[data-label='Split to']").first).to_be_visible()
    context.close()


def test_without_javascript_closing_ends_on_the_review_by_itself(
    browser, live_server, alice, busy_worker, database_turns
):
    for line in LINES[:2]:  # each answered: no reply is awaited, only the compression
        conversation, said = services.add_message(owner=alice, content=line)
        services.append(conversation, role="assistant", content="Noted.", reply_to=said)
    context, page = signed_in(browser, live_server, java_script_enabled=False, viewport=PHONE)
    expect(page.locator(".pending")).to_have_count(0)
    page.get_by_role("button", name="I'm done").click()
    page.get_by_role("button", name="Close and remember").click()
    expect(page.locator("#progress")).to_contain_text("Remembering this conversation")
    # Without JavaScript the <noscript> note shows (Playwright's text matchers skip noscript).
    expect(page.locator("#progress noscript p.hint")).to_be_visible()
    (conversation_id,) = busy_worker.pop()

    with database_turns:  # the worker, in its turn with the page's own refreshing
        compression.compress(conversation_id)

    review_url = reverse("conversations:review", args=[conversation_id])
    page.wait_for_url(f"**{review_url}", timeout=20_000)  # no click, no reload: it came by itself
    expect(page.get_by_role("heading", level=1)).to_contain_text("What I'm remembering")
    context.close()
