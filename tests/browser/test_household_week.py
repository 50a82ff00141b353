"""A household's week, read in a real browser at a laptop's width, at a phone's, and with
JavaScript off (issue 24's walk): three conversations over the week (brought in with their
dates, compressed and confirmed as of their own day, as an import does), a change of plan and a
dated task. Every page reads in household words (no score, id or stage name outside a
"Details" fold, the engine named once); the greeting shows what is coming up and what changed
this week; the header's search finds a message, a memory and a person; the timeline draws its
charts with their tables. A screenshot of each page at each width is kept for a person to look
at (``TALKINGROCK_SCREENSHOTS``, else a temporary folder).

At each width the review's flows are walked too: an act made on the review screen, and a
conversation forgotten. The compressing page that refreshes itself without JavaScript, and the
review's tap targets on a phone, are in tests/browser/test_phone_review.py."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse
from django.utils import timezone
from playwright.sync_api import expect

from conversations import importing
from conversations.models import Conversation, ConversationImport
from memories.models import Memory
from tests.browser.pages import LAPTOP, PASSWORD, PHONE, compressed, screenshots, signed_in
from tests.support.jargon import jargon_in

pytestmark = pytest.mark.browser

WIDTHS = {
    "laptop": (LAPTOP, True),
    "phone": (PHONE, True),
    "no-js": (PHONE, False),
}


def _week(now) -> dict:
    """Three conversations: Sunday's plans, a change of plan midweek, and yesterday's dentist
    call with a day to do it by, each said in a member's own typing."""

    def said(days_ago: float, *lines: str) -> list[dict]:
        start = now - timedelta(days=days_ago)
        return [
            {
                "role": "user",
                "content": line,
                "at": (start + timedelta(minutes=n)).isoformat(),
            }
            for n, line in enumerate(lines)
        ]

    plumber_day = f"{timezone.localtime(now + timedelta(days=3)):%A}".lower()
    # A day ahead of when it was said, whatever day the suite runs on ("by monday" said on a
    # Monday is that day, gone by the Tuesday the page is read).
    dentist_day = f"{timezone.localtime(now + timedelta(days=4)):%A}".lower()
    return {
        "format": "talkingrock.conversations",
        "version": 1,
        "conversations": [
            {
                "id": "week-1",
                "messages": said(
                    6,
                    "dave the builder came round about the kitchen, quote by friday he says",
                    "school pickup is at 3pm, i do mon tue thu",
                ),
            },
            {
                "id": "week-2",
                "messages": said(
                    3, "school pickup moved to 3:30 now, not 3pm. the school changed the bell"
                ),
            },
            {
                "id": "week-3",
                "messages": said(
                    1,
                    f"need to call the dentist by {dentist_day} about maya's filling",
                    f"the plumber is coming {plumber_day} at 9 to look at the leak",
                ),
            },
        ],
    }


@pytest.fixture
def household(transactional_db, warm_models):
    maya = get_user_model().objects.create_superuser("maya", password=PASSWORD)
    job = importing.queue(owner=maya, data=_week(timezone.now()), enqueue=False)
    assert importing.run(job.pk) == ConversationImport.Status.DONE
    return maya


def plain(page, name: str) -> str:
    """The page's visible text (a closed fold hides its contents), checked for jargon."""
    shown = page.locator("body").inner_text()
    assert jargon_in(shown) == [], f"{name}: {jargon_in(shown)} in {shown}"
    assert len(re.findall(r"offline engine", shown, re.I)) <= 1, f"{name}: engine said twice"
    return shown


@pytest.mark.parametrize("width", list(WIDTHS), ids=list(WIDTHS))
def test_a_week_of_the_household_reads_plainly_at_every_width(
    browser, live_server, household, tmp_path, width
):
    viewport, javascript = WIDTHS[width]
    context, page = signed_in(
        browser, live_server, "maya", viewport=viewport, java_script_enabled=javascript
    )
    shots = screenshots(tmp_path)

    def visit(name: str, url: str) -> str:
        page.goto(url)
        page.screenshot(path=str(shots / f"week-{name}-{width}.png"), full_page=True)
        return plain(page, name)

    # The greeting: what is coming up (the dentist in four days, the plumber in three) and
    # what changed this week (the pickup, with what it replaced).
    visit("greeting", "/")
    coming = page.locator(".coming-up")
    expect(coming).to_contain_text("dentist")
    expect(coming).to_contain_text("plumber")
    this_week = page.locator(".this-week")
    expect(this_week).to_contain_text("3:30")
    expect(this_week).to_contain_text("previously")

    # One search box finds a message, a memory and a person.
    box = page.get_by_role("searchbox", name="Find anything")
    box.fill("dave")
    page.get_by_role("button", name="Find", exact=True).click()
    plain(page, "find")
    page.screenshot(path=str(shots / f"week-find-{width}.png"), full_page=True)
    expect(page.get_by_role("heading", name="Conversations")).to_be_visible()
    expect(page.get_by_role("heading", name="Memories")).to_be_visible()
    expect(page.get_by_role("heading", name="People & places")).to_be_visible()
    expect(page.locator("main")).to_contain_text("You said in")

    # The timeline draws its three charts, each with its numbers in a table.
    visit("timeline", "/timeline/")
    expect(page.locator("svg[role=img]")).to_have_count(3)
    expect(page.locator("main table")).to_have_count(3)

    # The other pages a member reads in a week.
    shown = visit("conversations", "/conversations/")
    assert "dave the builder" in shown.casefold() or "kitchen" in shown.casefold()
    page.locator("ul.conversations a").first.click()
    plain(page, "conversation")
    for name, url in (
        ("story", "/memories/"),
        ("search", "/memories/search/?q=school+pickup"),
        ("people", "/entities/"),
        ("settings", "/settings/"),
        ("observations", "/observations/"),
        ("narratives", "/narratives/"),
    ):
        visit(name, url)
    page.goto("/memories/search/?q=school+pickup")
    page.locator("ol.results a[href^='/memories/']").first.click()
    plain(page, "memory")
    page.screenshot(path=str(shots / f"week-memory-{width}.png"), full_page=True)

    # The review flows: an act made on the review screen keeps the memory; a conversation of
    # only a question is forgotten, transcript and all.
    kept = compressed(household, "the fence blew down in the wind, ring the fencing man by friday")
    visit("review", reverse("conversations:review", args=[kept.pk]))
    page.get_by_label("or a new act", exact=True).fill("Garden")
    page.get_by_role("button", name="Confirm").click()
    expect(page.get_by_role("status")).to_contain_text("Garden")
    assert Memory.objects.get(conversation=kept, kind="memory").act.title == "Garden"
    asked = compressed(household, "what time is the dentist again?")
    page.goto(reverse("conversations:review", args=[asked.pk]))
    page.get_by_text("Forget this conversation").click()  # a fold: no JavaScript needed
    page.get_by_role("button", name="Yes, forget it").click()
    expect(page.get_by_role("status")).to_contain_text("Forgotten")
    assert not Conversation.objects.filter(pk=asked.pk).exists()
    context.close()
