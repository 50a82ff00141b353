"""The conversation pages: greeting, chat (HTMX and plain forms), close, progress, review, acts,
the archive and the "why" page."""

from __future__ import annotations

from datetime import timedelta

from django.core.cache import cache
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from django.utils.html import escape

from conversations import compression, review, services
from conversations.models import Conversation, Message
from memories import acts
from memories.models import Act, Memory, MemoryItem
from tests.support.page_form import form_data, new_row, row

HTMX = {"HTTP_HX_REQUEST": "true"}
LINES = [
    "We decided to paint the hallway green because it hides scuffs.",
    "I'm waiting on Alex to send the contract for the kitchen.",
    "We still can't decide whether to replace the boiler before winter.",
]


def say(client, text, **headers):
    return client.post(reverse("conversations:send"), {"content": text}, **headers)


def reviewed(client, alice, capture):
    for line in LINES:
        say(client, line)
    conversation = services.open_conversation(alice)
    client.post(reverse("conversations:close", args=[conversation.pk]))
    with capture(execute=True):
        response = client.post(reverse("conversations:confirm-close", args=[conversation.pk]))
    return conversation, response


def test_home_greets_when_nothing_is_open_and_shows_the_engine(alice_client):
    response = alice_client.get(reverse("home"))
    body = response.content.decode()
    assert "Welcome, alice" in body and "Start a conversation" in body  # no conversation yet
    assert "Offline engine" in body  # Ollama is switched off in tests


def test_the_engine_badge_is_polled_and_follows_ollama(alice_client, ollama):
    page = alice_client.get(reverse("home")).content.decode()
    assert "Ollama · llama3.2:3b" in page
    assert f'hx-get="{reverse("engine")}"' in page and 'hx-trigger="every 30s"' in page

    ollama.down = True
    cache.clear()  # the status_ttl has run out
    badge = alice_client.get(reverse("engine")).content.decode()
    assert "Offline engine" in badge and "Ollama is not reachable" in badge
    assert "<html" not in badge  # the badge alone, for HTMX to swap in
    assert Client().get(reverse("engine")).status_code == 302  # signed out: to the login page


def test_a_plain_form_post_stores_the_message_and_the_reply_shows_on_reload(
    alice_client, alice, capture
):
    with capture(execute=False) as queued:  # the worker has not run yet
        response = say(alice_client, "Hello there")
    assert response.status_code == 302 and response.url == reverse("home")
    waiting = alice_client.get(reverse("home")).content.decode()
    assert "Hello there" in waiting and "Talking Rock is thinking" in waiting
    assert '<noscript><meta http-equiv="refresh"' in waiting  # the page reloads itself
    assert services.open_conversation(alice).messages.count() == 1

    for run in queued:  # the worker writes the reply
        run()
    page = alice_client.get(reverse("home")).content.decode()
    assert "Talking Rock is thinking" not in page and "http-equiv" not in page
    assert "I&#x27;m listening" in page
    assert "I'm done" in page and "new chat" not in page.lower()


def test_with_htmx_the_message_shows_at_once_and_the_page_polls_for_the_reply(
    alice_client, alice, capture
):
    with capture(execute=False) as queued:
        sent = say(alice_client, "what did we decide about the hallway?", **HTMX)
    body = sent.content.decode()
    assert "what did we decide about the hallway?" in body and "Talking Rock is thinking" in body
    message = services.open_conversation(alice).messages.get()
    reply_url = reverse("conversations:reply", args=[message.pk])
    assert f'hx-get="{reply_url}"' in body and 'hx-trigger="load delay:1s"' in body

    still = alice_client.get(reply_url, **HTMX).content.decode()
    assert "Talking Rock is thinking" in still and f'hx-get="{reply_url}"' in still
    for run in queued:
        run()
    for run in queued:  # a second run of the task (a retried task) answers once
        run()
    first = alice_client.get(reply_url, **HTMX).content.decode()
    assert "I don&#x27;t have a memory of that." in first and "Why did you say that?" in first
    assert "hx-get" not in first  # the reply replaces the poller: polling stops
    assert services.open_conversation(alice).messages.count() == 2


def test_a_reply_that_never_came_can_be_asked_for_again(alice_client, alice, capture):
    with capture(execute=False):
        say(alice_client, "Hello there")  # the worker that took it was stopped
    message = services.open_conversation(alice).messages.get()
    Message.objects.filter(pk=message.pk).update(created_at=timezone.now() - timedelta(hours=1))
    reply_url = reverse("conversations:reply", args=[message.pk])
    overdue = alice_client.get(reply_url, **HTMX).content.decode()
    assert "taking longer than it should" in overdue and "Ask again" in overdue

    with capture(execute=True):
        alice_client.post(reverse("conversations:reply-again", args=[message.pk]))
    assert "I&#x27;m listening" in alice_client.get(reply_url, **HTMX).content.decode()
    with capture(execute=True):  # once answered, asking again queues nothing
        alice_client.post(reverse("conversations:reply-again", args=[message.pk]))
    assert services.open_conversation(alice).messages.count() == 2


def test_an_oversized_message_is_refused_with_a_message(alice_client, alice):
    response = say(alice_client, "x" * 10_001, **HTMX)
    assert response.status_code == 400
    assert "the limit is 10,000" in response.content.decode()
    assert services.open_conversation(alice) is None


def test_close_preview_then_compress_then_review(alice_client, alice, capture):
    for line in LINES:
        say(alice_client, line)
    conversation = services.open_conversation(alice)
    alice_client.post(reverse("conversations:close", args=[conversation.pk]))
    preview = alice_client.get(reverse("home")).content.decode()
    assert "Ready to close?" in preview and "Close and remember" in preview
    with capture(execute=True):
        response = alice_client.post(reverse("conversations:confirm-close", args=[conversation.pk]))
    review_url = reverse("conversations:review", args=[conversation.pk])
    # The task ran when the confirmation committed (inline: no worker here); the test runs it as
    # the view returns, so the view sent the member home, which leads on to the review.
    assert response.url in (reverse("home"), review_url)
    assert alice_client.get(reverse("home")).url == review_url
    page = alice_client.get(review_url).content.decode()
    assert "decided to paint the hallway green" in page
    assert "offline" in page and "Suggested: <strong>Your Story</strong>" in page


def test_progress_polls_until_ready_then_redirects(alice_client, alice, capture):
    for line in LINES:
        say(alice_client, line)
    conversation = services.open_conversation(alice)
    alice_client.post(reverse("conversations:close", args=[conversation.pk]))
    with capture(execute=False):
        alice_client.post(reverse("conversations:confirm-close", args=[conversation.pk]))
    url = reverse("conversations:progress", args=[conversation.pk])
    polling = alice_client.get(url, **HTMX).content.decode()
    assert 'hx-trigger="every 1s"' in polling and "Finding people" in polling
    compression.compress(conversation.pk)
    done = alice_client.get(url, **HTMX)
    assert done.status_code == 204
    assert done["HX-Redirect"] == reverse("conversations:review", args=[conversation.pk])


def test_a_stalled_compression_offers_retry(alice_client, alice):
    for line in LINES:
        say(alice_client, line)
    conversation = services.open_conversation(alice)
    Conversation.objects.filter(pk=conversation.pk).update(
        status="compressing", compression_stage="failed", compression_error="worker died"
    )
    page = alice_client.get(reverse("home")).content.decode()
    assert "worker died" in page and "Retry" in page and "Nothing is lost" in page


def review_form(client, conversation) -> tuple[str, dict[str, str]]:
    """The review page's URL and its form as rendered, to post back changed."""
    url = reverse("conversations:review", args=[conversation.pk])
    return url, form_data(client.get(url).content, "review-form")


def test_review_edit_then_confirm_in_another_act(alice_client, alice, capture):
    garden = Act.objects.create(owner=alice, title="Garden")
    conversation, _ = reviewed(alice_client, alice, capture)
    memory = review.draft_of(conversation)
    item = memory.items.get(type="decision")
    url, form = review_form(alice_client, conversation)
    edited, new = row(form, "item", item.pk), new_row(form, "item")
    form |= {
        "narrative": "The hallway goes green.",
        f"{edited}-main": "paint the hallway sage green",
        f"{edited}-detail": "",
        f"{new}-type": "insight",
        f"{new}-main": "Dark colours hide scuffs",
        "destination": garden.pk,
    }
    saved = alice_client.post(url, form | {"action": "save"})
    assert saved.url == url
    memory.refresh_from_db()
    assert memory.content == "The hallway goes green." and memory.status == "draft"
    assert memory.items.filter(type="insight").count() == 1

    url, form = review_form(alice_client, conversation)  # the page again, as saved
    kept = alice_client.post(url, form | {"destination": garden.pk, "action": "confirm"})

    memory.refresh_from_db()
    assert kept.url == memory.get_absolute_url()
    assert memory.status == "confirmed" and memory.act == garden and memory.user_edited
    assert memory.items.filter(type="insight").count() == 1
    assert memory.items.get(pk=item.pk).data["what"] == "paint the hallway sage green"
    conversation.refresh_from_db()
    assert conversation.status == "archived"


def test_review_split_across_two_acts(alice_client, alice, capture):
    house = Act.objects.create(owner=alice, title="House")
    conversation, _ = reviewed(alice_client, alice, capture)
    memory = review.draft_of(conversation)
    story = acts.ensure_your_story(owner=alice)
    url, form = review_form(alice_client, conversation)
    form |= {"action": "split", f"split-{house.pk}": "Hallway green.", f"split-{story.pk}": ""}
    for item in memory.items.all():
        form[f"{row(form, 'item', item.pk)}-act"] = (
            story.pk if item.type == "waiting_on" else house.pk
        )
    alice_client.post(url, form)
    kept = Memory.objects.filter(
        conversation=conversation, status="confirmed", kind="memory"
    ).order_by("pk")
    assert [m.act for m in kept] == [story, house] or [m.act for m in kept] == [house, story]
    assert MemoryItem.objects.get(type="waiting_on").memory.act == story


def test_review_split_boxes_start_from_the_narrative_and_untouched_ones_do_not_choose(
    alice_client, alice, capture
):
    house = Act.objects.create(owner=alice, title="House")
    work = Act.objects.create(owner=alice, title="Work")
    conversation, _ = reviewed(alice_client, alice, capture)
    memory = review.draft_of(conversation)
    url, form = review_form(alice_client, conversation)
    page = alice_client.get(url).content.decode()
    assert page.count(f"{escape(memory.content)}</textarea>") >= 3  # narrative + each act's box
    story = acts.ensure_your_story(owner=alice)
    assert form[f"split-{story.pk}"] == form[f"split-{house.pk}"] == memory.content
    form |= {"action": "split", f"split-{work.pk}-keep": "on"}
    form[f"split-{house.pk}"] = "Only the hallway."
    for item in memory.items.all():
        form[f"{row(form, 'item', item.pk)}-act"] = house.pk

    alice_client.post(url, form)

    kept = Memory.objects.filter(
        conversation=conversation, status="confirmed", kind="memory"
    ).order_by("act__title")
    assert [(m.act, m.content, m.user_edited) for m in kept] == [
        (house, "Only the hallway.", True),
        (work, memory.content, False),
    ]


def test_resume_from_review_goes_back_to_the_chat(alice_client, alice, capture):
    conversation, _ = reviewed(alice_client, alice, capture)
    alice_client.post(reverse("conversations:resume", args=[conversation.pk]))
    assert not Memory.objects.exists()
    assert "Talk to Talking Rock" in alice_client.get(reverse("home")).content.decode()


def test_the_archive_lists_past_conversations_with_their_memories(alice_client, alice, capture):
    conversation, _ = reviewed(alice_client, alice, capture)
    review.confirm(conversation=conversation)
    listing = alice_client.get(reverse("conversations:archive")).content.decode()
    assert reverse("conversations:detail", args=[conversation.pk]) in listing
    assert "1 memory" in listing
    page = alice_client.get(reverse("conversations:detail", args=[conversation.pk])).content
    assert LINES[0].encode().replace(b"'", b"&#x27;") in page
    memory = Memory.objects.get(conversation=conversation, kind="memory")
    assert memory.get_absolute_url().encode() in page


def test_acts_are_created_renamed_and_archived_but_not_your_story(alice_client, alice):
    response = alice_client.post(reverse("conversations:acts"), {"title": "Garden"})
    act = Act.objects.get(owner=alice, title="Garden")
    assert response.url == reverse("memories:act", args=[act.pk])
    edit = reverse("conversations:act-edit", args=[act.pk])
    alice_client.post(edit, {"title": "Allotment", "description": "Plot 12"})
    alice_client.post(edit, {"archived": "1"})
    act.refresh_from_db()
    assert (act.title, act.description, act.status) == ("Allotment", "Plot 12", "archived")
    story = acts.ensure_your_story(owner=alice)
    alice_client.post(reverse("conversations:act-edit", args=[story.pk]), {"archived": "1"})
    story.refresh_from_db()
    assert story.status == "active"
    assert "Your Story" in alice_client.get(reverse("conversations:acts")).content.decode()


def test_an_act_page_shows_its_open_items(alice_client, alice, capture):
    house = Act.objects.create(owner=alice, title="House")
    conversation, _ = reviewed(alice_client, alice, capture)
    review.confirm(conversation=conversation, destination=house)
    page = alice_client.get(reverse("memories:act", args=[house.pk])).content.decode()
    assert "Open in this act" in page and "Replace the boiler before winter?" in page


def test_why_shows_the_recall_behind_a_reply(alice_client, alice, remember, index, capture):
    remember("Maya's dentist appointment is on Tuesday")
    index(alice)
    with capture(execute=True):
        say(alice_client, "When is Maya's dentist?")
    reply = services.open_conversation(alice).messages.get(role="assistant")
    assert "“Maya's dentist appointment is on Tuesday” (kept on " in reply.content
    used = reply.memories_used[0]
    assert used["recall"] == reply.recall_id
    page = alice_client.get(reverse("conversations:why", args=[used["recall"]])).content.decode()
    assert "Maya&#x27;s dentist appointment" in page and "chat" in page
    chat_page = alice_client.get(reverse("home")).content.decode()
    assert reverse("conversations:why", args=[used["recall"]]) in chat_page
    assert "Why did you say that?" in chat_page and escape(reply.explanation) in chat_page
