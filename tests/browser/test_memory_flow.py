"""A member's first minutes, in a real browser: set up the household, remember something,
find it again and say it helped."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

PASSWORD = "a long household passphrase"


def test_a_new_household_remembers_finds_and_reinforces_a_memory(page):
    # A fresh install sends the first visitor to set up the household.
    page.goto("/")
    expect(page).to_have_url(re.compile(r"/setup/$"))
    page.get_by_label("Username").fill("alice")
    page.get_by_label("Password:", exact=True).fill(PASSWORD)
    page.get_by_label("Password confirmation").fill(PASSWORD)
    page.get_by_role("button", name="Create household").click()

    # Signed in, greeted; Your Story is one link away.
    expect(page.get_by_role("status")).to_contain_text("Welcome, alice.")
    expect(page.get_by_role("heading", level=1)).to_contain_text("Welcome, alice")  # a first visit
    page.get_by_role("navigation", name="Main").get_by_role("link", name="Your Story").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("Your Story")

    # Remember something.
    page.get_by_text("Remember something", exact=True).click()
    page.get_by_label("What to remember").fill("Sam is allergic to peanuts; check every label.")
    page.get_by_label("Tags").fill("family, health")
    page.get_by_role("button", name="Remember", exact=True).click()
    expect(page.get_by_role("status")).to_contain_text("Remembered: “Sam is allergic")
    card = page.locator("article.memory")
    expect(card).to_have_count(1)
    expect(card).to_contain_text("Sam is allergic to peanuts")

    # Find it by search: the results replace themselves as the query is typed.
    page.get_by_role("navigation", name="Main").get_by_role("link", name="Search").click()
    page.get_by_role("searchbox", name="Search your memories").fill("peanuts")
    result = page.locator("ol.results > li")
    expect(result).to_have_count(1)
    expect(result).to_contain_text("Sam is allergic to peanuts")
    expect(result.locator(".why")).to_contain_text("Found because you mentioned “peanuts”")
    expect(result.locator(".why")).to_contain_text("BM25")  # the numbers, in the details fold
    expect(result.locator(".why .formula")).to_be_hidden()
    expect(page).to_have_url(re.compile(r"q=peanuts"))

    # Reinforce it: HTMX swaps the card in place, no page load.
    page.evaluate("window.loadedOnce = true")
    with page.expect_response(
        lambda response: (
            "/reinforce/" in response.url and response.request.headers.get("hx-request") == "true"
        )
    ) as reinforced:
        result.get_by_role("button", name="Reinforce").click()
    assert reinforced.value.status == 200
    expect(result.locator(".score strong")).to_have_text("3")
    expect(result.locator(".note")).to_have_text("Reinforced: it ranks higher in search now.")
    assert page.evaluate("window.loadedOnce") is True  # the same document: nothing reloaded
