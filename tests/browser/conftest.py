"""Playwright driving Debian's chromium against pytest-django's live server.

The browser starts once per session; each test gets a fresh context (no shared cookies).
"""

from __future__ import annotations

import os
import threading

import pytest
from playwright.sync_api import sync_playwright

from talkingrock import jobs, warmup

# Playwright's sync API runs an asyncio loop in this thread; Django refuses ORM calls from a
# thread with a running loop unless told that this is deliberate.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--headless",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@pytest.fixture(scope="session")
def browser():
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture(scope="session")
def warm_models():
    """The models loaded before the first page, as the web server's workers load them when
    they start (gunicorn.conf.py): a first message must not wait on them."""
    warmup.warm()


@pytest.fixture
def page(browser, live_server, transactional_db, warm_models):
    context = browser.new_context(base_url=live_server.url, viewport={"width": 1100, "height": 900})
    context.set_default_timeout(10_000)  # a failure should say so quickly, not hang
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield page
    context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


@pytest.fixture
def database_turns(live_server, transactional_db):
    """A lock the live server holds while it serves a request.

    The test database is SQLite in memory, so pytest-django hands the test's own connection to
    the server's threads. A test that writes while the page polls (a queued task run by hand)
    holds this lock, so requests wait their turn instead of interleaving statements and
    transactions with its work on that one connection."""
    turns = threading.Lock()
    httpd = live_server.thread.httpd
    app = httpd.get_app()

    def one_at_a_time(environ, start_response):
        with turns:
            response = app(environ, start_response)
            try:
                body = b"".join(response)
            finally:
                if hasattr(response, "close"):
                    response.close()  # request_finished touches the connection too
        return [body]

    httpd.set_app(one_at_a_time)
    yield turns
    httpd.set_app(app)


@pytest.fixture
def busy_worker(monkeypatch):
    """Compressions wait in a queue, as behind a busy worker, until the test runs them."""
    queue: list[tuple] = []
    run = jobs.run_now_or_queue

    def hold(func: str, *args, **kwargs):
        if func == "conversations.tasks.compress":
            queue.append(args)
        else:
            run(func, *args, **kwargs)

    monkeypatch.setattr(jobs, "run_now_or_queue", hold)
    return queue
