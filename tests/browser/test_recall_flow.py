"""Search by meaning in a real browser: a memory stored in other words is found, with the reason
it matched, and its names lead to a page of their own."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

PASSWORD = "a long household passphrase"


def test_a_member_finds_a_memory_by_meaning_and_follows_a_name(page, live_server):
    get_user_model().objects.create_user("alice", password=PASSWORD)
    page.goto("/accounts/login/")
    page.get_by_label("Username").fill("alice")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.get_by_role("navigation", name="Main").get_by_role("link", name="Your Story").click()

    # Stored through the form: the page's request queues the indexing, which runs inline here
    # (no worker in the test), so the memory has its vector and names once the page is back.
    page.get_by_text("Remember something", exact=True).click()
    page.get_by_label("What to remember").fill("Dr Novak says our automobile needs new tyres.")
    page.get_by_role("button", name="Remember", exact=True).click()
    expect(page.get_by_role("status")).to_contain_text("Remembered: “Dr Novak says")

    page.get_by_role("navigation", name="Main").get_by_role("link", name="Search").click()
    page.get_by_label("by meaning").check()
    page.get_by_role("searchbox", name="Search your memories").fill("car maintenance")
    result = page.locator("ol.results > li")
    expect(result).to_have_count(1)
    expect(result).to_contain_text("our automobile needs new tyres")
    expect(result.locator(".why")).to_contain_text("close in meaning to what you asked")
    expect(result.locator(".why")).to_contain_text("meaning #1")  # in the details fold

    result.get_by_role("link", name="A memory from").click()
    page.get_by_role("link", name="Dr Novak").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("Dr Novak")
    expect(page.locator("article.memory")).to_contain_text("automobile")
