"""The header's search box on a phone (390 px) with JavaScript off: in sight without opening
the menu, and its results page no wider than the screen. A screenshot of each width is kept for
a person to look at (``TALKINGROCK_SCREENSHOTS``, else a temporary folder)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import expect

from conversations import services
from memories import indexing
from memories import services as memory_services
from memories.models import Observation

pytestmark = pytest.mark.browser

PASSWORD = "a long household passphrase"
PHONE = {"width": 390, "height": 844}
LAPTOP = {"width": 1280, "height": 800}
LONG = (
    "Ottoline's dentist appointment moved to Tuesday 3pm at the Elm Road practice; "
    "https://example.org/a-very-long-address-that-has-no-spaces-at-all-and-would-overflow"
)
WIDEST = """() => {
  const width = document.documentElement.clientWidth;
  const out = [];
  for (const el of document.querySelectorAll('body *')) {
    const box = el.getBoundingClientRect();
    if (box.width && box.right > width + 1) out.push(el.tagName.toLowerCase() + '.' + el.className);
  }
  return {scroll: document.documentElement.scrollWidth, width, out: out.slice(0, 5)};
}"""


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
    context = browser.new_context(
        base_url=live_server.url, viewport=viewport, java_script_enabled=False
    )
    context.set_default_timeout(10_000)
    page = context.new_page()
    page.goto("/accounts/login/")
    page.get_by_label("Username").fill("alice")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()

    box = page.get_by_role("searchbox", name="Find anything")
    expect(box).to_be_visible()  # on a phone too, without opening the menu
    box.fill("Ottoline")
    page.get_by_role("button", name="Find", exact=True).click()
    expect(page.get_by_role("heading", name="Conversations")).to_be_visible()
    expect(page.get_by_role("heading", name="Memories")).to_be_visible()
    expect(page.get_by_role("heading", name="People & places")).to_be_visible()
    expect(page.get_by_role("searchbox", name="Find anything")).to_have_value("Ottoline")

    shots = Path(os.environ.get("TALKINGROCK_SCREENSHOTS", tmp_path))
    shots.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(shots / f"find-{viewport['width']}.png"), full_page=True)
    found = page.evaluate(WIDEST)
    context.close()
    assert found["scroll"] <= found["width"] and found["out"] == [], found
