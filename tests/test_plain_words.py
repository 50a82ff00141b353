"""Pages speak household English (issue 24): no ids, scores, engines or stage names in what a
member reads; the numbers wait in a "Details" fold, and the why is said in words ("Found because
you mentioned “boiler”"). Settings shows the MCP address beside the token."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest
from django.urls import reverse

from conversations import services as conversation_services
from conversations.models import Classification
from memories.consolidation import store
from memories.models import Dream, Memory, MemoryItem, MemoryLink, Observation
from narratives import services as narratives
from tests.support.jargon import jargon_in

BOILER = "The boiler service is due every October; Dave sends the quote."


class _Text(HTMLParser):
    """A page's text, split into what shows and what waits inside a closed ``<details>`` (the
    summary of the outermost closed one shows: it is the fold's label)."""

    def __init__(self):
        super().__init__()
        self.shown: list[str] = []
        self.folded: list[str] = []
        self.open: list[bool] = []  # the <details> we are inside, outermost first
        self.label = False  # inside the summary of the outermost closed one

    def _closed_at(self) -> int | None:
        return next((n for n, is_open in enumerate(self.open) if not is_open), None)

    def handle_starttag(self, tag, attrs):
        if tag == "details":
            self.open.append(any(name == "open" for name, _ in attrs))
        elif tag == "summary" and self._closed_at() == len(self.open) - 1:
            self.label = True

    def handle_endtag(self, tag):
        if tag == "details" and self.open:
            self.open.pop()
        elif tag == "summary":
            self.label = False

    def handle_data(self, data):
        hidden = self._closed_at() is not None and not self.label
        (self.folded if hidden else self.shown).append(data)


def read(response) -> tuple[str, str]:
    """(the text a member sees, the text inside the folds)."""
    assert response.status_code == 200
    parser = _Text()
    parser.feed(response.content.decode())
    return " ".join(" ".join(parser.shown).split()), " ".join(" ".join(parser.folded).split())


def speaks_plainly(response) -> str:
    shown, _ = read(response)
    assert jargon_in(shown) == [], shown
    return shown


def test_the_reader_keeps_folded_text_apart():
    parser = _Text()
    parser.feed(
        "<p>Found [id:1]</p><details><summary>Details</summary><p>BM25 3.2</p>"
        "<details><summary>More</summary>[id:2]</details></details><p>after</p>"
        "<details open><summary>Sources</summary><p>shown</p></details>"
    )
    assert parser.shown == ["Found [id:1]", "Details", "after", "Sources", "shown"]
    assert parser.folded == ["BM25 3.2", "More", "[id:2]"]


@pytest.fixture
def boiler(alice, remember, index):
    memory = remember(BOILER, tags="home")
    index(alice)
    return memory


@pytest.fixture
def kept(alice, remember, boiler):
    """A memory with an open question, a waiting-on, a related memory and a fact it replaced."""
    older = remember("The boiler was serviced by Jon last year.")
    MemoryItem.objects.create(
        memory=boiler, type="question_opened", data={"question": "Replace it before winter?"}
    )
    MemoryItem.objects.create(
        memory=boiler, type="waiting_on", data={"who": "Dave", "what": "quote"}
    )
    MemoryItem.objects.create(memory=boiler, type="decision", data={"what": "Keep Dave"})
    MemoryLink.objects.create(owner=alice, memory=boiler, related=older, strength=2)
    return boiler


def test_a_memory_page_names_memories_by_their_words_and_folds_the_numbers(alice_client, kept):
    response = alice_client.get(kept.get_absolute_url())

    shown = speaks_plainly(response)
    _, folded = read(response)
    assert "A memory from" in shown
    assert "Still open:" in shown and "Waiting on:" in shown and "Decided:" in shown
    assert "The boiler was serviced by Jon last year." in shown  # the related one, by its words
    assert f"[id:{kept.pk}]" in folded and f"score {kept.score}" in folded


def test_your_story_speaks_plainly(alice_client, kept):
    response = alice_client.get(reverse("memories:story"), follow=True)

    shown = speaks_plainly(response)
    assert "Dave sends the quote" in shown and "written by you" not in shown  # stored by a tool
    assert f"[id:{kept.pk}]" in read(response)[1]


def test_a_keyword_result_says_why_in_words_with_the_rank_in_its_fold(alice_client, boiler):
    response = alice_client.get(reverse("memories:search"), {"q": "Dave quote"})

    shown = speaks_plainly(response)
    _, folded = read(response)
    assert "Found because you mentioned “Dave” and “quote”." in shown
    for factor in ("rank", "BM25", "score weight", "recency", "days since stored"):
        assert factor in folded


def test_a_result_by_meaning_says_why_in_words_with_the_scores_in_its_fold(alice_client, boiler):
    response = alice_client.get(
        reverse("memories:search"), {"q": "heating maintenance", "mode": "meaning"}
    )

    shown = speaks_plainly(response)
    _, folded = read(response)
    assert BOILER in shown
    assert "Found because it is close in meaning to what you asked." in shown
    assert "similarity" in folded and "score" in folded


def test_the_observations_and_dreams_fold_their_engines_and_scores(alice, alice_client, remember):
    fact = remember("Dave services the boiler every October.", kind=Memory.Kind.FACT)
    draft = store.Draft("Dave looks after the boiler.", kind=Observation.Kind.STATE)
    store.create(alice.pk, draft, [fact], engine="offline")
    dream = Dream.objects.create(
        owner=alice, text="Boilers and bread both like warmth.", score=0.81
    )
    dream.facts_a.set([fact])

    observations = alice_client.get(reverse("memories:observations"))
    dreams = alice_client.get(reverse("memories:dreams"))

    assert "Dave services the boiler every October." in speaks_plainly(observations)
    assert "Written by offline." in read(observations)[1]
    assert "Boilers and bread" in speaks_plainly(dreams) and "score 0.81" in read(dreams)[1]


def test_the_narrative_pages_name_memories_by_their_words(alice, alice_client, boiler):
    first = narratives.create(owner=alice, summary="Alice planned the boiler service.")
    step = narratives.create(
        owner=alice, summary="Dave will quote.", previous=first, memory_ids=[boiler.pk]
    )

    speaks_plainly(alice_client.get(reverse("narratives:index")))
    detail = alice_client.get(reverse("narratives:detail", args=[step.pk]))
    assert BOILER in speaks_plainly(detail)
    assert f"Step [id:{step.pk}], written by tool." in read(detail)[1]


@pytest.fixture
def answered(alice, alice_client, boiler, django_capture_on_commit_callbacks):
    """Alice asked a question the boiler memory answers."""
    with django_capture_on_commit_callbacks(execute=True):
        alice_client.post(reverse("conversations:send"), {"content": "When is the boiler due?"})
    conversation = conversation_services.open_conversation(alice)
    reply = conversation.messages.get(role="assistant")
    assert [used["id"] for used in reply.memories_used] == [boiler.pk]
    return conversation, reply


def test_an_answer_says_what_it_used_without_ids_or_scores(alice_client, answered):
    conversation, reply = answered

    for url in (reverse("home"), reverse("conversations:detail", args=[conversation.pk])):
        response = alice_client.get(url)
        speaks_plainly(response)
        _, folded = read(response)
        assert f"“{BOILER}”" in folded  # the memory used, named by its words in the why fold
        assert f"[id:{reply.memories_used[0]['id']}]" in folded and "Read as" in folded


def test_how_a_message_was_read_and_why_a_memory_matched_speak_plainly(alice_client, answered):
    _, reply = answered
    reading = Classification.objects.get(message=reply.reply_to)

    page = alice_client.get(reverse("conversations:reading", args=[reading.pk]))
    assert "I took it as something to answer now." in speaks_plainly(page)
    assert f"confidence {reading.confidence:.2f}" in read(page)[1]

    why = alice_client.get(reverse("conversations:why", args=[reply.recall_id]))
    shown = speaks_plainly(why)
    assert BOILER in shown and "Found because you mentioned “boiler”" in shown
    assert "score" in read(why)[1]


def test_settings_shows_the_mcp_address_beside_the_token_with_a_client_block(alice_client):
    response = alice_client.post(reverse("settings"), {"name": "laptop"})

    shown = speaks_plainly(response)
    body = response.content.decode()
    token = body.split('<code id="new-token">', 1)[1].split("<", 1)[0]
    assert "http://testserver/mcp" in shown
    config = body.split('id="mcp-config"', 1)[1].split("</textarea>", 1)[0]
    assert '"url": "http://testserver/mcp"' in config and '"type": "http"' in config
    assert f'"headers": {{"Authorization": "Bearer {token}"}}' in config


def test_settings_without_a_new_token_says_where_to_put_one(alice_client):
    response = alice_client.get(reverse("settings"))

    config = response.content.decode().split('id="mcp-config"', 1)[1]
    assert "Bearer &lt;token&gt;" in config.split("</textarea>", 1)[0]
    assert "http://testserver/mcp" in speaks_plainly(response)


def test_the_engine_badge_says_it_in_words_and_keeps_the_name_in_its_title(alice_client, ollama):
    page = alice_client.get(reverse("home")).content.decode()
    badge = page.split('class="engine-status', 1)[1].split("</span>", 1)[0]
    assert badge.endswith(">Language model on") and "Ollama · llama3.2:3b" in badge
