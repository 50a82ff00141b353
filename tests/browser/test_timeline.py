"""The timeline page on a 390 px phone, with JavaScript on and off: its three charts are drawn,
fit the screen (nothing wider than the page), and each has its table beneath it. A screenshot
is kept for a person to look at (``TALKINGROCK_SCREENSHOTS``, else a temporary folder)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse
from django.utils import timezone
from playwright.sync_api import expect

from memories.acts import ensure_your_story
from memories.models import Act, Memory, MemoryItem
from tests.browser.pages import PASSWORD, PHONE, screenshots, signed_in

pytestmark = pytest.mark.browser

LONG = (
    "Maya's dentist appointment moved to Tuesday 3pm at the Elm Road practice; "
    "https://example.org/a-very-long-address-that-has-no-spaces-at-all-and-would-overflow"
)


@pytest.fixture
def history(transactional_db):
    """Twelve weeks of a member's life: memories in seven acts (so some are "Other"), threads
    opened and resolved, and dates behind and ahead, one with very long words."""
    alice = get_user_model().objects.create_user("alice", password=PASSWORD)
    now = timezone.now()
    acts = [ensure_your_story(owner=alice)] + [
        Act.objects.create(owner=alice, title=f"A rather long act title number {n}")
        for n in range(6)
    ]
    for n in range(40):
        memory = Memory.objects.create(owner=alice, content=f"kept {n}", act=acts[n % 7])
        when = now - timedelta(days=2 * n + 1)
        happened = now + timedelta(days=5 * n - 60) if n % 3 == 0 else None
        Memory.objects.filter(pk=memory.pk).update(created_at=when, happened_at=happened)
        if n % 4 == 0:
            item = MemoryItem.objects.create(memory=memory, type="task", data={"description": "x"})
            resolved = when + timedelta(days=9) if n % 8 == 0 else None
            MemoryItem.objects.filter(pk=item.pk).update(
                created_at=when, is_active=resolved is None, resolved_at=resolved
            )
    dated = Memory.objects.create(owner=alice, content=LONG, act=acts[1])
    Memory.objects.filter(pk=dated.pk).update(happened_at=now + timedelta(days=3))
    return dated


def test_the_charts_fit_a_phone_and_show_without_javascript(
    browser, live_server, history, warm_models, tmp_path
):
    shots = screenshots(tmp_path)
    for javascript in (True, False):
        context, page = signed_in(
            browser, live_server, viewport=PHONE, java_script_enabled=javascript
        )
        page.goto(reverse("memories:timeline"))
        page.screenshot(path=str(shots / f"phone-timeline-js-{javascript}.png"), full_page=True)
        for n, section in enumerate(page.locator("section.over-time").all()):
            section.screenshot(path=str(shots / f"phone-timeline-{n}-js-{javascript}.png"))

        charts = page.locator("svg.chart[role=img]")
        expect(charts).to_have_count(3)
        for n in range(3):
            chart = charts.nth(n)
            expect(chart).to_be_visible()
            box = chart.bounding_box()
            assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
            assert box["height"] > 100  # drawn, not collapsed
        expect(page.locator("section.over-time table")).to_have_count(3)
        expect(page.get_by_role("table", name="Memories kept each week")).to_be_attached()
        expect(page.get_by_role("link", name=LONG[:40])).to_have_count(1)  # in the table
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        context.close()
