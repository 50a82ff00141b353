"""What the browser tests share: the widths a household reads at, signing in, where screenshots
go (``TALKINGROCK_SCREENSHOTS``, else the test's temporary folder, for a person to look at), the
script that reports what sticks out past the screen's right edge, and a conversation whose
review is ready."""

from __future__ import annotations

import os
from pathlib import Path

from playwright.sync_api import expect

from conversations import compression, services

PASSWORD = "a long household passphrase"
PHONE = {"width": 390, "height": 844}
LAPTOP = {"width": 1280, "height": 800}

# How wide the page is, and the elements that stick out past the screen's right edge.
WIDEST = """() => {
  const width = document.documentElement.clientWidth;
  const out = [];
  for (const el of document.querySelectorAll('body *')) {
    const box = el.getBoundingClientRect();
    if (box.width && box.right > width + 1) {
      out.push(`${el.tagName.toLowerCase()}.${el.className} (${Math.round(box.right)} px)`);
    }
  }
  return {scroll: document.documentElement.scrollWidth, width, out: out.slice(0, 5)};
}"""


def sign_in(page, username: str = "alice", password: str = PASSWORD) -> None:
    page.goto("/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("heading", level=1)).to_be_visible()


def signed_in(browser, live_server, username: str = "alice", **options):
    """A new browser context (``options``: viewport, java_script_enabled…) signed in as
    ``username``, and its page."""
    context = browser.new_context(base_url=live_server.url, **options)
    context.set_default_timeout(10_000)  # a failure should say so quickly, not hang
    page = context.new_page()
    sign_in(page, username)
    return context, page


def screenshots(tmp_path: Path) -> Path:
    shots = Path(os.environ.get("TALKINGROCK_SCREENSHOTS", tmp_path))
    shots.mkdir(parents=True, exist_ok=True)
    return shots


def compressed(owner, *lines: str):
    """A conversation said, closed and compressed, as the worker would: its review is ready."""
    for line in lines:
        conversation, _ = services.add_message(owner=owner, content=line)
    services.request_close(conversation=conversation)
    services.confirm_close(conversation=conversation)
    compression.compress(conversation.pk)
    conversation.refresh_from_db()
    assert conversation.review_ready
    return conversation
