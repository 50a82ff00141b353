"""Every page at a phone's width (390 px) shows nothing wider than the screen, and the header
fits one row on a laptop and folds into a menu on a phone; a screenshot of each phone page is
kept for a person to look at (``TALKINGROCK_SCREENSHOTS``, else a temporary folder)."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse
from playwright.sync_api import expect

from conversations import chat, compression, review, services, tasks
from memories import indexing
from memories.consolidation import store
from memories.models import Act, ConsolidationRun, Dream, Entity, Memory, Recall
from narratives.models import Narrative
from talkingrock import jobs
from tests.browser.pages import LAPTOP, PASSWORD, PHONE, WIDEST, screenshots, sign_in

pytestmark = pytest.mark.browser

LONG = (
    "Maya's dentist appointment moved to Tuesday 3pm at the Elm Road practice; "
    "https://example.org/a-very-long-address-that-has-no-spaces-at-all-and-would-overflow "
    "and Dr Novak wants the inhaler reviewed before the winter."
)


@pytest.fixture
def household(transactional_db):
    """A member with something on every page: memories, a name, a reviewed conversation, an
    open one with a reply, a narrative and a recall."""
    alice = get_user_model().objects.create_superuser("alice", password=PASSWORD)
    act = Act.objects.create(owner=alice, title="A rather long act title about the kitchen")
    # Titles as typed: one long run of digits, and one with a right-to-left override in it.
    Act.objects.create(owner=alice, title="4" * 200)
    Act.objects.create(owner=alice, title="dave said \u202e hello")
    for line in (LONG, "We decided to paint the hallway green because it hides scuffs."):
        services.add_message(owner=alice, content=line)
    conversation = services.open_conversation(alice)
    services.request_close(conversation=conversation)
    services.confirm_close(conversation=conversation)
    compression.compress(conversation.pk)
    conversation.refresh_from_db()
    review.confirm(conversation=conversation, destination=act)
    indexing.index_memories(owner_id=alice.pk)
    talk, message = services.add_message(owner=alice, content="when is Maya's dentist?")
    chat.respond(conversation=talk, message=message)
    observation = observed(alice)
    return {
        "alice": alice,
        "act": act,
        "archived": conversation,
        "memory": Memory.objects.filter(owner=alice).first(),
        "entity": Entity.objects.filter(owner=alice).first(),
        "narrative": Narrative.objects.filter(owner=alice).first(),
        "recall": Recall.objects.filter(owner=alice).first(),
        "observation": observation,
    }


def observed(alice):
    """An observation about a name, with a history of long words, a dream over two groups of
    facts, and a pass that failed with a long error."""
    facts = list(Memory.objects.filter(owner=alice).order_by("pk"))
    entity = Entity.objects.filter(owner=alice).first()
    draft = store.Draft(LONG, entity_id=entity.pk if entity else None)
    observation = store.create(alice.pk, draft, facts[:1], engine="offline")
    observation = store.update(
        observation, LONG.replace("Tuesday", "Thursday"), facts[1:], engine="offline", reason=LONG
    )
    dream = Dream.objects.create(owner=alice, text=LONG, reason=LONG, score=0.5, engine="offline")
    dream.facts_a.set(facts[:1])
    dream.facts_b.set(facts[1:])
    ConsolidationRun.objects.create(owner=alice, kind="temporal", error=LONG, summary={"a": 1})
    return observation


def pages(found) -> dict[str, str]:
    return {
        "chat": reverse("home"),
        "story": reverse("memories:story"),
        "acts": reverse("conversations:acts"),
        "act": reverse("memories:act", args=[found["act"].pk]),
        "memory": reverse("memories:detail", args=[found["memory"].pk]),
        "edit": reverse("memories:edit", args=[found["memory"].pk]),
        "search": reverse("memories:search") + "?q=dentist+appointment&mode=meaning",
        "archive": reverse("memories:archive"),
        "entities": reverse("memories:entities"),
        "entity": reverse("memories:entity", args=[found["entity"].pk]),
        "narratives": reverse("narratives:index"),
        "narrative": reverse("narratives:detail", args=[found["narrative"].pk]),
        "conversations": reverse("conversations:archive"),
        "conversation": reverse("conversations:detail", args=[found["archived"].pk]),
        "why": reverse("conversations:why", args=[found["recall"].pk]),
        "settings": reverse("settings"),
        "observations": reverse("memories:observations"),
        "observation-edit": reverse("memories:observation-edit", args=[found["observation"].pk]),
        "dreams": reverse("memories:dreams"),
        "timeline": reverse("memories:timeline"),
        "find": reverse("find") + "?q=dentist",
        "members": reverse("members"),
    }


def test_no_page_is_wider_than_a_phone(browser, live_server, household, warm_models, tmp_path):
    shots = screenshots(tmp_path)
    context = browser.new_context(base_url=live_server.url, viewport=PHONE)
    context.set_default_timeout(10_000)
    page = context.new_page()
    page.goto("/accounts/login/")
    assert page.evaluate(WIDEST)["out"] == [], "the sign-in page"
    sign_in(page)
    wide = {}
    for name, url in pages(household).items():
        page.goto(url)
        page.screenshot(path=str(shots / f"phone-{name}.png"), full_page=True)
        found = page.evaluate(WIDEST)
        if found["scroll"] > found["width"] or found["out"]:
            wide[name] = found
    context.close()
    assert wide == {}, f"wider than {PHONE['width']} px: {wide}"


def test_a_right_to_left_mark_in_a_title_turns_only_the_title(browser, live_server, household):
    """ "dave said \u202e hello" shows its own end turned round; the count after it still
    reads left to right, after it."""
    context = browser.new_context(base_url=live_server.url, viewport=LAPTOP)
    page = context.new_page()
    sign_in(page)
    page.goto(reverse("conversations:acts"))
    row = page.locator("ul.acts-list li", has_text="dave said")
    title, count = row.locator("a").bounding_box(), row.locator("span.meta").bounding_box()
    context.close()
    assert count["x"] >= title["x"] + title["width"] - 1


def test_the_header_is_one_row_on_a_laptop_and_a_menu_on_a_phone(browser, live_server, household):
    context = browser.new_context(base_url=live_server.url, viewport=LAPTOP)
    page = context.new_page()
    sign_in(page)
    brand = page.locator("header .brand").bounding_box()
    for item in ("nav a >> nth=-1", ".engine-status", "details.account summary"):
        box = page.locator(f"header {item}").bounding_box()
        assert abs(box["y"] - brand["y"]) < brand["height"], item  # the same row
    expect(page.get_by_text("Menu", exact=True)).to_be_hidden()

    page.set_viewport_size(PHONE)
    nav = page.get_by_role("navigation", name="Main")
    expect(nav).to_be_hidden()
    page.get_by_text("Menu", exact=True).click()
    expect(nav.get_by_role("link", name="Search")).to_be_visible()
    nav.get_by_role("link", name="Search").click()
    expect(page).to_have_url(live_server.url + reverse("memories:search"))
    page.locator("details.account summary").click()
    expect(page.get_by_role("button", name="Sign out")).to_be_visible()
    context.close()


def test_a_message_of_only_spaces_is_refused_in_words_and_stays_in_the_box(
    browser, live_server, household
):
    context = browser.new_context(base_url=live_server.url, viewport=LAPTOP)
    page = context.new_page()
    sign_in(page)
    box = page.get_by_label("Message")
    box.fill("     ")
    page.get_by_role("button", name="Send").click()

    expect(page.locator("form.say .refused")).to_contain_text("empty")
    assert box.input_value() == "     "
    box.fill("the hallway is going green")
    page.get_by_role("button", name="Send").click()
    expect(page.locator("article.message.user").last).to_contain_text("hallway is going green")
    expect(page.locator("form.say .refused")).to_be_empty()
    context.close()


def test_the_reply_arrives_by_polling_and_a_reload_shows_it_without_javascript(
    browser, live_server, household, monkeypatch, database_turns
):
    """The worker is held back: the page shows the message and "thinking", then the reply
    replaces it by itself once the worker writes it; without JavaScript a reload shows it."""
    held: list[tuple] = []
    run = jobs.run_now_or_queue

    def hold(func, *args, **kwargs):
        if func == "conversations.tasks.reply":
            held.append(args)
        else:
            run(func, *args, **kwargs)

    monkeypatch.setattr(jobs, "run_now_or_queue", hold)
    for javascript in (True, False):
        context = browser.new_context(
            base_url=live_server.url, viewport=LAPTOP, java_script_enabled=javascript
        )
        page = context.new_page()
        sign_in(page)
        page.get_by_label("Message").fill("what colour is the hallway going to be?")
        page.get_by_role("button", name="Send").click()
        expect(page.locator("article.message.user").last).to_contain_text("hallway going")
        expect(page.locator(".pending")).to_contain_text("Talking Rock is thinking")
        (message_id,) = held.pop()
        with database_turns:  # the worker, in its turn with the page's polling
            tasks.reply(message_id)
        if not javascript:
            page.get_by_role("link", name="Reload").click()
        answer = page.locator("article.message.assistant").last
        expect(answer).to_contain_text("green")
        expect(page.locator(".pending")).to_have_count(0)
        answer.get_by_text("Why did you say that?").click()
        expect(answer.locator("details.reply-why")).to_contain_text("why it matched")
        context.close()
