"""Find anything (issue 24): one search box across a member's memories, conversations, people and
places and observations, only their own; conversations with titles; a people page of people."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from conversations import review, services, titles
from conversations.models import Conversation
from household import find as finding
from memories.acts import ensure_your_story
from memories.entities import extract_offline, normalize, worth_listing
from memories.models import Entity, Memory, Mention, Observation
from narratives import services as narratives

FIND = reverse("find")
WORD = "Ottoline"


def archive(conversation: Conversation, title: str = "") -> None:
    Conversation.objects.filter(pk=conversation.pk).update(
        status="archived",
        archived_at=timezone.now(),
        title=title,
        act=ensure_your_story(owner=conversation.owner),
    )


def household_of(owner, remember, index, *, tag: str = "") -> dict:
    """A message, a memory, a person and an observation, each naming Ottoline."""
    conversation, message = services.add_message(
        owner=owner, content=f"Did {WORD} call back about the shed roof{tag}?"
    )
    archive(conversation, title=f"The shed roof{tag}")
    memory = remember(f"{WORD} keeps the marmalade recipe in the blue tin{tag}.", owner=owner)
    index(owner)
    observation = Observation.objects.create(owner=owner, text=f"{WORD} visits on Sundays{tag}.")
    return {
        "conversation": conversation,
        "message": message,
        "memory": memory,
        "entity": Entity.objects.get(owner=owner, normalized="ottoline"),
        "observation": observation,
    }


def found_ids(found: finding.Found) -> tuple:
    return (
        [m.pk for m in found.memories],
        [(s.conversation.pk, s.message_id, s.words) for s in found.said],
        [e.pk for e in found.entities],
        [o.pk for o in found.observations],
    )


def test_a_message_a_memory_a_person_and_an_observation_are_each_found(
    alice_client, alice, remember, index
):
    mine = household_of(alice, remember, index)
    page = alice_client.get(FIND, {"q": WORD})
    assert page.status_code == 200
    body = page.content.decode()
    for heading in ("Memories", "Conversations", "People &amp; places", "Observations"):
        assert f">{heading}</h2>" in body
    assert mine["memory"].get_absolute_url() in body
    assert "keeps the marmalade recipe" in body
    detail = reverse("conversations:detail", args=[mine["conversation"].pk])
    assert f"{detail}#message-{mine['message'].pk}" in body
    assert "call back about the shed roof" in body
    assert "You said in" in body and "The shed roof</a>" in body
    assert mine["entity"].get_absolute_url() in body
    assert "visits on Sundays" in body
    assert "[id:" not in body and "bm25" not in body.lower()  # plain words only
    assert f'value="{WORD}"' in body  # the header's box says what was looked for


def test_a_memory_is_found_by_what_it_means_too(alice_client, alice, remember, index):
    remember("The heating engineer is coming to fix the boiler on Thursday.")
    index(alice)
    body = alice_client.get(FIND, {"q": "boiler repair"}).content.decode()
    assert "heating engineer" in body


def test_another_members_things_are_never_found(alice_client, alice, bob, remember, index):
    household_of(bob, remember, index, tag=" (bob)")
    body = alice_client.get(FIND, {"q": WORD}).content.decode()
    assert "(bob)" not in body
    assert "Nothing of yours matches" in body
    assert finding.find(alice, WORD).nothing


def test_what_a_member_finds_is_the_same_whether_or_not_another_has_the_word(
    alice, bob, remember, index
):
    household_of(alice, remember, index)
    before = found_ids(finding.find(alice, WORD))
    assert all(before)
    household_of(bob, remember, index, tag=" (bob)")
    remember(f"{WORD} and {WORD} again, {WORD}.", owner=bob)
    index(bob)
    assert found_ids(finding.find(alice, WORD)) == before


@pytest.mark.parametrize(
    ("query", "says"),
    [
        ("", "Type a name, a word or a few words"),
        ("   ", "Type a name, a word or a few words"),
        ("\x00\x01\x1b", "Nothing to look for"),
        ("Ottoline" + "x" * 6000, "only its first 500 characters"),
        ("' OR 1=1 -- \"NEAR( *", "Nothing of yours matches"),
        ("%_\\%", "Nothing of yours matches"),
        ("🔥 東京 Łódź", "Nothing of yours matches"),
    ],
)
def test_junk_is_answered_in_words_never_with_an_error(alice_client, alice, query, says):
    page = alice_client.get(FIND, {"q": query})
    assert page.status_code == 200
    assert says in page.content.decode()


def test_bytes_that_are_not_text_are_answered_too(alice_client, alice):
    for raw in ("%ED%A0%80%00lone", "%FF%FE%00", "%00" * 50, "x&q=y&q=%00"):
        page = alice_client.get(f"{FIND}?q={raw}")
        assert page.status_code == 200 and "<h1>" in page.content.decode()


def test_find_asks_for_a_sign_in(client, alice):
    response = client.get(FIND, {"q": WORD})
    assert response.status_code == 302 and "login" in response.url


def test_the_header_has_a_labelled_search_box(alice_client):
    body = alice_client.get(reverse("conversations:archive")).content.decode()
    assert f'<form class="find" role="search" method="get" action="{FIND}">' in body
    assert '<label for="find-q" class="visually-hidden">' in body and 'id="find-q"' in body
    assert "css/find.css" in body


# --- conversation titles -------------------------------------------------------------------


def test_a_conversation_gets_a_title_in_its_own_words_when_it_is_compressed(
    alice_client, alice, django_capture_on_commit_callbacks
):
    first = "Can you help me plan Leo's birthday party at the lido next month?"
    alice_client.post(reverse("conversations:send"), {"content": first})
    alice_client.post(reverse("conversations:send"), {"content": "He wants a pirate theme."})
    conversation = services.open_conversation(alice)
    alice_client.post(reverse("conversations:close", args=[conversation.pk]))
    with django_capture_on_commit_callbacks(execute=True):
        alice_client.post(reverse("conversations:confirm-close", args=[conversation.pk]))
    conversation.refresh_from_db()
    assert conversation.title and len(conversation.title) <= titles.MAX_TITLE
    said = {word.strip("?.,!").casefold() for word in first.split()}
    assert {word.casefold() for word in conversation.title.split()} <= said  # never invented
    review.confirm(conversation=conversation)
    listing = alice_client.get(reverse("conversations:archive")).content.decode()
    assert conversation.title.replace("'", "&#x27;") in listing


def test_a_title_the_member_gave_is_kept_when_it_is_compressed(
    alice_client, alice, django_capture_on_commit_callbacks
):
    alice_client.post(reverse("conversations:send"), {"content": "The gutters need clearing."})
    conversation = services.open_conversation(alice)
    alice_client.post(reverse("conversations:title", args=[conversation.pk]), {"title": "Gutters"})
    alice_client.post(reverse("conversations:close", args=[conversation.pk]))
    with django_capture_on_commit_callbacks(execute=True):
        alice_client.post(reverse("conversations:confirm-close", args=[conversation.pk]))
    conversation.refresh_from_db()
    assert conversation.compression_stage == "ready" and conversation.title == "Gutters"


def test_a_title_is_the_topic_the_talk_started_else_the_first_message_without_a_loose_end(alice):
    conversation, _ = services.add_message(
        owner=alice,
        content="Maya's dentist appointment moved to Tuesday 3pm at the Elm Road practice",
    )
    assert titles.suggest(conversation) == "Maya's dentist appointment moved to Tuesday 3pm"
    narratives.create(
        owner=alice,
        summary="Alice talked about the dentist.",
        topic="the dentist move",
        starts_topic=True,
        conversation=conversation,
    )
    assert titles.suggest(conversation) == "The dentist move"


def test_the_member_renames_a_conversation_on_its_page(alice_client, alice):
    conversation, _ = services.add_message(owner=alice, content="Notes about the allotment.")
    archive(conversation)
    url = reverse("conversations:title", args=[conversation.pk])
    response = alice_client.post(url, {"title": "  Allotment\x00 plans\x1b  "})
    assert response.status_code == 302
    assert response.url == reverse("conversations:detail", args=[conversation.pk])
    conversation.refresh_from_db()
    assert conversation.title == "Allotment plans"
    page = alice_client.get(response.url).content.decode()
    assert "<h1>Allotment plans</h1>" in page and f'action="{url}"' in page

    too_long = alice_client.post(url, {"title": "x" * (titles.MAX_TITLE + 1)})
    assert too_long.status_code == 400 and "at most" in too_long.content.decode()
    conversation.refresh_from_db()
    assert conversation.title == "Allotment plans"

    alice_client.post(url, {"title": ""})  # cleared: its first words again
    conversation.refresh_from_db()
    assert conversation.title == ""
    assert "“Notes about the allotment.”" in alice_client.get(response.url).content.decode()
    assert alice_client.get(url).status_code == 405


def test_another_members_conversation_cannot_be_seen_or_renamed(alice_client, bob):
    conversation, _ = services.add_message(owner=bob, content="Bob's private notes.")
    archive(conversation, title="Bob's")
    url = reverse("conversations:title", args=[conversation.pk])
    assert alice_client.post(url, {"title": "Mine now"}).status_code == 404
    assert (
        alice_client.get(reverse("conversations:detail", args=[conversation.pk])).status_code == 404
    )
    assert (
        alice_client.post(reverse("conversations:title", args=[10**12]), {"title": "x"}).status_code
        == 404
    )
    conversation.refresh_from_db()
    assert conversation.title == "Bob's"


def test_the_archive_lists_each_conversation_by_its_title_in_one_query_per_list(
    alice_client, alice
):
    said = [
        "Sorting out the school run for next term with Ross and the other parents",
        "The boiler is making that knocking noise again",
        "Planning the food for Leo's party",
    ]
    for position, text in enumerate(said):
        conversation, _ = services.add_message(owner=alice, content=text)
        archive(conversation, title="Leo's party" if position == 2 else "")
    with CaptureQueriesContext(connection) as three:
        listing = alice_client.get(reverse("conversations:archive")).content.decode()
    assert "“Sorting out the school run for next term…”" in listing  # its first eight words
    assert "“The boiler is making that knocking noise again”" in listing
    assert "Leo&#x27;s party" in listing
    assert listing.count(timezone.localdate().strftime("%A")) >= 3  # the date, in words
    assert "Your Story" in listing  # the act it was kept in
    for text in ("More talk", "And more"):
        conversation, _ = services.add_message(owner=alice, content=text)
        archive(conversation)
    with CaptureQueriesContext(connection) as five:
        alice_client.get(reverse("conversations:archive"))
    assert len(five) == len(three)


# --- the people page ---------------------------------------------------------------------


def test_days_and_pairs_are_not_names():
    names = [e.name for e in extract_offline("Greg on Mondays, Tuesdays and Thursdays; fine.")]
    assert names == []
    text = "Maya and Sam swim on Wednesdays and Fridays. Lunch with Priya on Sunday Nights."
    assert [e.name for e in extract_offline(text)] == ["Maya", "Sam", "Priya"]
    # One name with "and" in it, as spaCy reads it, stays one.
    assert [e.name for e in extract_offline("Procter and Gamble sent a letter.")] == [
        "Procter and Gamble"
    ]
    assert not worth_listing("Tuesdays and Thursdays") and not worth_listing("and Friday")
    assert not worth_listing("Maya and Sam") and worth_listing("Theresa May")


def test_the_people_page_lists_people_not_weekdays_or_pairs(alice_client, alice, remember, index):
    remember("Maya and Sam swim on Tuesdays and Thursdays; Mondays are for Dr. Novak.")
    index(alice)
    # Rows stored before the rules left such names out are left out of the page too.
    old = remember("Swimming with Maya and Sam on Mondays.")
    for junk in ("Mondays", "Tuesdays and Thursdays", "Maya and Sam", "and Friday"):
        entity = Entity.objects.create(owner=alice, name=junk, normalized=normalize(junk))
        Mention.objects.create(entity=entity, memory=old, surface=junk)
    page = alice_client.get(reverse("memories:entities")).content.decode()
    for name in ("Maya", "Sam", "Dr Novak"):
        assert f">{name}</a>" in page
    for junk in ("Mondays", "Tuesdays", "Maya and Sam", "and Friday"):
        assert f">{junk}" not in page
    assert ">People</h2>" in page and ">Other names</h2>" in page


def test_the_people_page_is_the_members_own(alice_client, bob, remember, index):
    remember("Lunch with Priya.", owner=bob)
    index(bob)
    assert "Priya" not in alice_client.get(reverse("memories:entities")).content.decode()
    assert Memory.objects.filter(owner=bob).exists()
