"""The header's search box on a phone (390 px) with JavaScript off: in sight without opening
the menu, and its results page no wider than the screen. A screenshot of each width is kept for
a person to look at (``TALKINGROCK_SCREENSHOTS``, else a temporary folder)."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import expect

from conversations import services
from memories import indexing
from memories import services as memory_services
from memories.models import Observation
from tests.browser.pages import LAPTOP, PASSWORD, PHONE, WIDEST, screenshots, signed_in

pytestmark = pytest.mark.browser

LONG = (
    "Ottoline's dentist appointment moved to Tuesday 3pm at the Elm Road practice; "
    "https://example.org/a-very-long-address-that-has-no-spaces-at-all-and-would-overflow"
)


@pytest.fixture
def member(transactional_db, warm_models):
    alice = get_user_model().objects.create_superuser("alice", password=PASSWORD)
    conversation, _ = services.add_message(owner=alice, content=LONG)
    conversation.title = "A very long title about Ottoline and the dentist and the Elm Road move"
    conversation.save(update_fields=["title"])
    memory_services.memory_store(owner=alice, content=f"Ottoline said: {LONG}")
    indexing.index_memories(owner_id=alice.pk)
    Observation.objects.create(owner=alice, text=LONG)
    return alice


@pytest.mark.parametrize("viewport", [PHONE, LAPTOP], ids=["phone", "laptop"])
def test_the_search_box_finds_without_javascript_and_fits_the_screen(
    browser, live_server, member, tmp_path, viewport
):
    context, page = signed_in(browser, live_server, viewport=viewport, java_script_enabled=False)

    box = page.get_by_role("searchbox", name="Find anything")
    expect(box).to_be_visible()  # on a phone too, without opening the menu
    box.fill("Ottoline")
    page.get_by_role("button", name="Find", exact=True).click()
    expect(page.get_by_role("heading", name="Conversations")).to_be_visible()
    expect(page.get_by_role("heading", name="Memories")).to_be_visible()
    expect(page.get_by_role("heading", name="People & places")).to_be_visible()
    expect(page.get_by_role("searchbox", name="Find anything")).to_have_value("Ottoline")

    page.screenshot(
        path=str(screenshots(tmp_path) / f"find-{viewport['width']}.png"), full_page=True
    )
    found = page.evaluate(WIDEST)
    context.close()
    assert found["scroll"] <= found["width"] and found["out"] == [], found
