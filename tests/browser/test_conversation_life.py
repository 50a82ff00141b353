"""The whole life of a conversation in a real browser, on the offline engine (no Ollama): chat,
close, watch it compress stage by stage, edit the narrative, split across two acts, confirm,
find the memory, see the open thread on the greeting, resolve it in a later conversation, and
come back to where you left off and walk the thread both ways."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import expect

from conversations import changes, compression

pytestmark = pytest.mark.browser

PASSWORD = "a long household passphrase"
FIRST = [
    "We decided to paint the hallway green because it hides scuffs.",
    "I'm waiting on Alex to send the contract for the kitchen.",
    "I need to order the tiles for the bathroom.",
    "We still can't decide whether to replace the boiler before winter.",
]


def watch_it_compress(page, busy_worker, monkeypatch, database_turns) -> None:
    """Close, see the queued compression, see each stage as the worker reaches it, then land on
    the review by the page's own polling (no reload). The worker and the server share one
    in-memory database connection, so they take turns (``database_turns``)."""
    page.get_by_role("button", name="I'm done").click()
    expect(page.get_by_role("heading", name="Ready to close?")).to_be_visible()
    page.get_by_role("button", name="Close and remember").click()
    stages = page.locator("#progress ol.stages li")
    expect(page.locator("#progress")).to_contain_text("Remembering this conversation")
    expect(page.locator(".stage-now")).to_have_text("Stage: Queued")
    assert len(busy_worker) == 1

    write = changes.write_narrative
    missed: list[AssertionError] = []  # compress() would record it as a failed compression

    def narrative_stage(*args, **kwargs):  # mid-compression, the page polls in its turn
        database_turns.release()
        try:
            expect(page.locator(".stage-now")).to_have_text("Stage: Writing what it meant")
            expect(stages.nth(0)).to_have_class("done")
            expect(stages.nth(1)).to_have_class("done")
            expect(stages.nth(2)).to_have_class("now")
        except AssertionError as error:
            missed.append(error)
        finally:
            database_turns.acquire()
        return write(*args, **kwargs)

    monkeypatch.setattr(changes, "write_narrative", narrative_stage)
    with database_turns:
        outcome = compression.compress(*busy_worker.pop())
    if missed:
        raise missed[0]
    assert outcome.startswith("draft memory")
    monkeypatch.setattr(changes, "write_narrative", write)
    expect(page.get_by_role("heading", level=1)).to_contain_text("What I'm remembering")


def test_a_conversation_is_lived_closed_reviewed_split_and_resolved(
    page, live_server, busy_worker, monkeypatch, database_turns
):
    get_user_model().objects.create_user("alice", password=PASSWORD)
    page.goto("/accounts/login/")
    page.get_by_label("Username").fill("alice")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    expect(page.locator(".engine-status")).to_have_text("Offline engine")

    for title in ("House", "Work"):
        page.goto("/acts/")
        page.get_by_label("Title").fill(title)
        page.get_by_role("button", name="Create act").click()

    # Chat four messages: each appears at once, its reply follows.
    page.goto("/")
    page.get_by_label("Start a conversation").fill(FIRST[0])
    page.get_by_role("button", name="Send").click()
    expect(page.locator("article.message.assistant")).to_have_count(1)
    for n, line in enumerate(FIRST[1:], start=2):
        page.get_by_label("Message").fill(line)
        page.get_by_role("button", name="Send").click()
        expect(page.locator("article.message.user")).to_have_count(n)
        expect(page.locator("article.message.assistant")).to_have_count(n)
    expect(page.locator("article.message.assistant").first).to_contain_text("Why did you say that?")

    watch_it_compress(page, busy_worker, monkeypatch, database_turns)
    expect(page.locator("p.reading")).to_have_text("Read on this computer without Ollama.")

    # Edit the narrative, send the waiting-on to Work and the rest to House.
    page.get_by_label("Narrative").fill("Hallway green; kitchen contract pending.")
    for select in page.get_by_label("Split destination of").all():
        label = select.get_attribute("aria-label")
        select.select_option(label="Work" if "Alex" in label else "House")
    for select in page.get_by_role("combobox", name="Act for fact").all():  # facts to House too
        select.select_option(label="House")
    page.get_by_text("Split across acts").click()
    # Each box starts from the extracted narrative, not empty.
    expect(page.get_by_label("Text for House")).not_to_have_value("")
    page.get_by_label("Text for House").fill("The hallway will be green; tiles to order.")
    page.get_by_label("Text for Work").fill("Waiting on Alex for the kitchen contract.")
    page.get_by_role("button", name="Split and confirm").click()
    expect(page.get_by_role("status")).to_contain_text("Remembered in House, Work")

    # Find it on the act page and in search.
    page.goto("/acts/")
    page.get_by_role("link", name="House").click()
    # The kept memory and its facts, each a memory of the act.
    expect(
        page.locator("article.memory").filter(has_text="The hallway will be green")
    ).to_have_count(1)
    expect(page.locator(".open-items")).to_contain_text("Replace the boiler before winter?")
    page.get_by_role("navigation", name="Main").get_by_role("link", name="Search").click()
    page.get_by_role("searchbox", name="Search your memories").fill("hallway green")
    expect(page.locator("ol.results").first).to_contain_text("The hallway will be green")

    # The greeting shows the open thread; a later conversation resolves it.
    page.get_by_role("navigation", name="Main").get_by_role("link", name="Talk").click()
    expect(page.get_by_role("heading", name="Open threads")).to_be_visible()
    expect(page.locator(".greeting")).to_contain_text("Replace the boiler before winter?")
    page.get_by_label("Start a conversation").fill(
        "We decided to replace the boiler before winter, the old one is failing."
    )
    page.get_by_role("button", name="Send").click()
    expect(page.locator("article.message.assistant")).to_have_count(1)
    watch_it_compress(page, busy_worker, monkeypatch, database_turns)
    resolves = page.get_by_label("Resolves: Replace the boiler before winter?", exact=False)
    expect(resolves).to_be_checked()
    page.get_by_role("button", name="Confirm").click()
    expect(page.get_by_role("status")).to_contain_text("Remembered in")
    page.get_by_role("navigation", name="Main").get_by_role("link", name="Talk").click()
    # No longer open: under "This week", saying a conversation answered it.
    boiler = "Replace the boiler before winter?"
    expect(page.locator(".open-threads").filter(has_text=boiler)).to_have_count(0)
    expect(page.locator("#this-week li.thread").filter(has_text=boiler)).to_contain_text("answered")

    # Days later: the greeting says where things were left; the thread is walked both ways.
    page.context.clear_cookies()
    page.goto("/accounts/login/")
    page.get_by_label("Username").fill("alice")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    left_off = page.locator(".left-off")
    expect(left_off).to_contain_text("Where you left off: Alice decided to replace the boiler")
    left_off.get_by_role("link").click()
    chain = page.locator("ol.chain > li")
    expect(page.locator('ol.chain > li[aria-current="step"]')).to_contain_text("replace the boiler")
    expect(chain.first).to_contain_text("A new thread")
    expect(chain.first).to_contain_text("paint the hallway green")
    chain.first.locator("p.summary a").click()  # back to where the thread began
    expect(chain.first).to_have_attribute("aria-current", "step")
    chain.last.locator("p.summary a").click()  # and forward again to the latest
    expect(chain.last).to_have_attribute("aria-current", "step")
    expect(chain.last.locator("ul.linked")).to_contain_text("replace the boiler")


def test_a_messy_change_of_mind_is_reviewed_accepted_and_shown_as_current(
    page, live_server, busy_worker, monkeypatch, database_turns
):
    get_user_model().objects.create_user("maya", password=PASSWORD)
    page.goto("/accounts/login/")
    page.get_by_label("Username").fill("maya")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()

    page.get_by_label("Start a conversation").fill(
        "ok so we went w butcher block for the worktops bc its way cheaper"
    )
    page.get_by_role("button", name="Send").click()
    expect(page.locator("article.message.assistant")).to_have_count(1)
    page.get_by_label("Message").fill("still waiting on dave for the quote")
    page.get_by_role("button", name="Send").click()
    expect(page.locator("article.message.assistant")).to_have_count(2)
    watch_it_compress(page, busy_worker, monkeypatch, database_turns)
    # The review shows the facts beside the items, in the member's own words.
    expect(page.locator("ol.facts input.fact-text").first).to_have_value(
        "We went with butcher block for the worktops because its way cheaper."
    )
    page.get_by_role("button", name="Confirm").click()
    expect(page.get_by_role("status")).to_contain_text("Remembered in")

    # The waiting-on is ticked off by hand on the greeting, and the tick undone.
    page.get_by_role("navigation", name="Main").get_by_role("link", name="Talk").click()
    waiting = page.locator(".greeting li.thread").filter(has_text="the quote")
    waiting.get_by_role("button", name="Done").click()
    expect(waiting).to_contain_text("done")
    waiting.get_by_role("button", name="Undo").click()
    expect(waiting.get_by_role("button", name="Done")).to_be_visible()

    page.get_by_label("Start a conversation").fill(
        "changed our minds, going with quartz worktops instead, butcher block needs too much oiling"
    )
    page.get_by_role("button", name="Send").click()
    expect(page.locator("article.message.assistant")).to_have_count(1)
    watch_it_compress(page, busy_worker, monkeypatch, database_turns)
    replaces = page.locator("ul.supersessions input[type=checkbox]")
    expect(replaces).to_have_count(1)
    expect(replaces).to_be_checked()
    expect(page.locator("ul.supersessions")).to_contain_text("butcher block")
    page.get_by_role("button", name="Confirm").click()
    expect(page.get_by_role("status")).to_contain_text("Remembered in")

    page.get_by_role("navigation", name="Main").get_by_role("link", name="Talk").click()
    current = page.locator(".greeting li.decision").filter(has_text="quartz")
    expect(current).to_contain_text("previously:")
    expect(current.locator(".previously")).to_contain_text("butcher block")
    expect(page.locator(".greeting li.decision")).to_have_count(1)
