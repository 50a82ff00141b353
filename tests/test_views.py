"""The memory browser: every page as a full page and, where HTMX asks, as a fragment."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from memories import services
from memories.acts import ensure_your_story
from memories.models import Act, Memory

HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def your_story(alice):
    return ensure_your_story(owner=alice)


@pytest.fixture
def note(remember):
    return remember("The boiler service is due every October", tags="home")


def card_score(response, memory) -> str:
    """The score shown on a memory's card."""
    html = response.content.decode()
    card = html[html.index(f'id="memory-{memory.pk}"') :]
    return card[card.index("score <strong>") + len("score <strong>") :].split("<", 1)[0]


# --- Your Story timeline and act pages -----------------------------------------------------


def test_your_story_link_leads_to_the_timeline(alice_client, your_story):
    response = alice_client.get(reverse("memories:story"))
    assert response.status_code == 302
    assert response.url == reverse("memories:act", args=[your_story.pk])


def test_the_timeline_lists_only_the_members_own_live_memories(
    alice_client, remember, bob, your_story
):
    remember("Alice likes oat milk")
    archived = remember("An old phone number")
    services.memory_archive(owner=archived.owner, memory_id=archived.pk)
    remember("Bob's secret recipe", owner=bob)

    response = alice_client.get(reverse("memories:act", args=[your_story.pk]))

    assert response.status_code == 200
    assert b"<html" in response.content
    assert b"Alice likes oat milk" in response.content
    assert b"An old phone number" not in response.content
    assert b"Bob&#x27;s secret recipe" not in response.content


def test_the_timeline_shows_newest_first_a_page_at_a_time(alice_client, remember, your_story):
    for n in range(25):
        remember(f"memory number {n:02d}")

    first = alice_client.get(reverse("memories:act", args=[your_story.pk])).content.decode()

    assert first.count('class="memory') == 20
    assert first.index("memory number 24") < first.index("memory number 23")
    assert "memory number 04" not in first
    assert 'href="?page=2"' in first and 'hx-get="?page=2"' in first
    second = alice_client.get(reverse("memories:act", args=[your_story.pk]), {"page": 2})
    assert second.content.decode().count('class="memory') == 5
    assert b"memory number 04" in second.content
    assert b"Newer memories" in second.content


def test_older_memories_arrive_as_a_fragment_for_htmx(alice_client, remember, your_story):
    for n in range(25):
        remember(f"memory number {n:02d}")

    response = alice_client.get(reverse("memories:act", args=[your_story.pk]), {"page": 2}, **HTMX)

    assert response.status_code == 200
    assert b"<html" not in response.content
    assert b"memory number 00" in response.content
    assert b"Older memories" not in response.content  # the last page
    assert "HX-Request" in response["Vary"]


def test_an_act_page_lists_that_acts_memories(alice_client, alice, remember):
    garden = Act.objects.create(owner=alice, title="Garden")
    remember("Tomatoes after the last frost", act=garden)
    remember("Bin day is Tuesday")

    response = alice_client.get(reverse("memories:act", args=[garden.pk]))

    assert b"Tomatoes after the last frost" in response.content
    assert b"Bin day is Tuesday" not in response.content


@pytest.mark.parametrize("memories", [3, 45])
def test_the_timeline_costs_the_same_queries_however_many_memories(
    alice_client, remember, your_story, django_assert_num_queries, memories
):
    for n in range(memories):
        remember(f"memory number {n}", tags="home, family")
    url = reverse("memories:act", args=[your_story.pk])
    # session, user, act, sidebar acts, page count, page rows, the add form's act choices, the
    # act's open items, and Your Story's themes (its newest memories, their vectors)
    with django_assert_num_queries(10):
        alice_client.get(url)
    with django_assert_num_queries(5):  # the fragment has no sidebar and no form
        alice_client.get(url, {"page": 2} if memories > 20 else {}, **HTMX)


def test_the_archive_costs_the_same_queries_however_many_memories(
    alice_client, alice, remember, django_assert_num_queries
):
    for n in range(30):
        memory = remember(f"memory number {n}")
        services.memory_archive(owner=alice, memory_id=memory.pk)

    with django_assert_num_queries(4):  # session, user, count, page rows
        response = alice_client.get(reverse("memories:archive"))
    assert response.content.decode().count('class="memory archived') == 20


def test_another_members_act_is_not_found(alice_client, bob):
    bobs_story = ensure_your_story(owner=bob)
    assert alice_client.get(reverse("memories:act", args=[bobs_story.pk])).status_code == 404


# --- Search ----------------------------------------------------------------------------------


def test_search_shows_each_result_with_why_it_ranked(alice_client, note):
    response = alice_client.get(reverse("memories:search"), {"q": "boiler"})

    html = response.content.decode()
    assert response.status_code == 200
    assert "<html" in html
    assert "The boiler service is due every October" in html
    for factor in ("rank", "BM25", "score weight", "(score 0)", "recency", "days since stored"):
        assert factor in html
    assert "1 memory matching <code>boiler</code>" in html


def test_search_lists_the_current_fact_before_the_one_it_replaced(alice_client, remember):
    current = remember("School pickup moved to 3:30 now")
    old = remember("School pickup is at 3pm this year, pickup pickup")  # the better keyword match
    Memory.objects.filter(pk=old.pk).update(valid_to="2026-12-07T10:00:00Z", superseded_by=current)

    html = alice_client.get(reverse("memories:search"), {"q": "pickup"}).content.decode()

    assert html.index("moved to 3:30") < html.index("at 3pm this year")
    assert html.count("replaced 7 Dec 2026") == 1


@pytest.mark.parametrize("memories", [2, 30])
def test_search_costs_the_same_queries_however_many_results(
    alice_client, remember, django_assert_num_queries, memories
):
    for n in range(memories):
        remember(f"boiler note {n}", tags="home")

    # session, user, the ranked FTS query, the memories, and what was said in conversations
    with django_assert_num_queries(5):
        response = alice_client.get(reverse("memories:search"), {"q": "boiler"})
    assert response.content.decode().count('class="result"') == min(memories, 25)


def test_search_answers_htmx_with_the_results_only(alice_client, note):
    response = alice_client.get(reverse("memories:search"), {"q": "October"}, **HTMX)

    assert response.status_code == 200
    assert b"<html" not in response.content
    assert b"Search your memories" not in response.content
    assert b"The boiler service is due every October" in response.content
    assert "HX-Request" in response["Vary"]


def test_search_restoring_history_gets_the_whole_page(alice_client, note):
    response = alice_client.get(
        reverse("memories:search"),
        {"q": "October"},
        **HTMX,
        HTTP_HX_HISTORY_RESTORE_REQUEST="true",
    )

    assert b"<html" in response.content


def test_search_explains_a_query_with_no_words(alice_client, note):
    response = alice_client.get(reverse("memories:search"), {"q": '!!! "" * ( ) -'})

    assert b"Nothing to search for: the query has no words" in response.content
    assert b"The boiler service" not in response.content


def test_search_says_so_when_nothing_matches(alice_client, note):
    response = alice_client.get(reverse("memories:search"), {"q": "giraffe"})

    assert b"No memories matched." in response.content


def test_search_never_finds_another_members_memories(alice_client, remember, bob):
    remember("Bob keeps the spare key under the flowerpot", owner=bob)

    response = alice_client.get(reverse("memories:search"), {"q": "flowerpot"})

    assert b"Bob keeps the spare key" not in response.content
    assert b"No memories matched." in response.content


def test_search_finds_archived_memories_only_when_asked(alice_client, alice, note):
    services.memory_archive(owner=alice, memory_id=note.pk)

    hidden = alice_client.get(reverse("memories:search"), {"q": "boiler"})
    shown = alice_client.get(reverse("memories:search"), {"q": "boiler", "archived": "on"})

    assert b"The boiler service" not in hidden.content
    assert b"The boiler service" in shown.content
    assert b"Restore" in shown.content


def test_searching_leaves_scores_alone(alice_client, note):
    alice_client.get(reverse("memories:search"), {"q": "boiler"})

    note.refresh_from_db()
    assert (note.score, note.hit_count, note.last_hit_at) == (0, 0, None)


# --- Add -----------------------------------------------------------------------------------


def test_adding_a_memory_stores_it_as_manual_and_goes_back_to_its_act(
    alice_client, alice, your_story
):
    response = alice_client.post(
        reverse("memories:create"),
        {
            "content": "  Sam is allergic to peanuts  ",
            "tags": "family, health",
            "act": your_story.pk,
        },
    )

    memory = Memory.objects.get(owner=alice)
    assert response.status_code == 302
    assert response.url == reverse("memories:act", args=[your_story.pk])
    assert (memory.content, memory.tags, memory.source) == (
        "Sam is allergic to peanuts",
        "family, health",
        Memory.Source.MANUAL,
    )
    page = alice_client.get(response.url)
    assert "Remembered: “Sam is allergic to peanuts”.".encode() in page.content


def test_adding_an_empty_memory_is_refused_with_a_reason(alice_client, your_story):
    response = alice_client.post(
        reverse("memories:create"), {"content": "   ", "act": your_story.pk}
    )

    assert response.status_code == 400
    assert b"This field is required." in response.content
    assert not Memory.objects.exists()


def test_adding_more_than_ten_thousand_characters_is_refused(alice_client, your_story):
    response = alice_client.post(
        reverse("memories:create"), {"content": "x" * 10_001, "act": your_story.pk}
    )

    assert response.status_code == 400
    assert b"at most 10000 characters (it has 10001)" in response.content
    assert not Memory.objects.exists()


def test_ten_thousand_characters_are_fine(alice_client, alice, your_story):
    alice_client.post(reverse("memories:create"), {"content": "x" * 10_000, "act": your_story.pk})

    assert len(Memory.objects.get(owner=alice).content) == 10_000


def test_a_memory_cannot_be_added_to_another_members_act(alice_client, bob):
    bobs_story = ensure_your_story(owner=bob)

    response = alice_client.post(
        reverse("memories:create"), {"content": "sneaky", "act": bobs_story.pk}
    )

    assert response.status_code == 400
    assert b"Select a valid choice" in response.content
    assert not Memory.objects.exists()


# --- Detail and edit -----------------------------------------------------------------------


def test_the_detail_page_shows_a_memory(alice_client, note):
    response = alice_client.get(reverse("memories:detail", args=[note.pk]))

    assert response.status_code == 200
    assert b"<html" in response.content
    assert b"The boiler service is due every October" in response.content


def test_the_detail_answers_htmx_with_the_card(alice_client, note):
    response = alice_client.get(reverse("memories:detail", args=[note.pk]), **HTMX)

    assert b"<html" not in response.content
    assert f'id="memory-{note.pk}"'.encode() in response.content


def test_editing_keeps_the_original_wording_and_the_score(alice_client, alice, note):
    services.memory_reinforce(owner=alice, memory_id=note.pk)

    response = alice_client.post(
        reverse("memories:edit", args=[note.pk]),
        {"content": "The boiler service is due every November", "tags": "home, boiler"},
    )

    note.refresh_from_db()
    assert response.status_code == 302
    assert (note.content, note.original_content, note.score, note.user_edited) == (
        "The boiler service is due every November",
        "The boiler service is due every October",
        3,
        True,
    )
    detail = alice_client.get(response.url)
    assert b"Original wording" in detail.content
    assert b"The boiler service is due every October" in detail.content
    edit = alice_client.get(reverse("memories:edit", args=[note.pk]))
    assert b"The boiler service is due every October" in edit.content


def test_a_second_edit_still_keeps_the_first_wording(alice_client, alice, note):
    for content in ("second wording", "third wording"):
        alice_client.post(reverse("memories:edit", args=[note.pk]), {"content": content})

    note.refresh_from_db()
    assert (note.content, note.original_content) == (
        "third wording",
        "The boiler service is due every October",
    )


def test_editing_to_empty_is_refused(alice_client, note):
    response = alice_client.post(reverse("memories:edit", args=[note.pk]), {"content": ""})

    note.refresh_from_db()
    assert response.status_code == 400
    assert b"This field is required." in response.content
    assert note.content == "The boiler service is due every October"


# --- Reinforce, demote, archive, restore -----------------------------------------------------


def test_reinforcing_with_htmx_answers_the_updated_card(alice_client, note):
    response = alice_client.post(reverse("memories:reinforce", args=[note.pk]), **HTMX)

    note.refresh_from_db()
    assert note.score == 3
    assert response.status_code == 200
    assert b"<html" not in response.content
    assert card_score(response, note) == "3"
    assert b"Reinforced: it ranks higher in search now." in response.content


def test_reinforcing_without_javascript_goes_back_where_the_member_was(alice_client, note):
    back = reverse("memories:search") + "?q=boiler"

    response = alice_client.post(reverse("memories:reinforce", args=[note.pk]), {"next": back})

    assert response.status_code == 302
    assert response.url == back
    page = alice_client.get(back)
    assert b"Reinforced: it ranks higher in search now." in page.content
    assert card_score(page, note) == "3"


def test_demoting_with_htmx_answers_the_updated_card(alice_client, note):
    response = alice_client.post(reverse("memories:demote", args=[note.pk]), **HTMX)

    note.refresh_from_db()
    assert note.score == -1
    assert card_score(response, note) == "-1"


def test_demoting_without_javascript_redirects(alice_client, note):
    response = alice_client.post(reverse("memories:demote", args=[note.pk]))

    note.refresh_from_db()
    assert note.score == -1
    assert response.status_code == 302
    assert response.url == note.get_absolute_url()


@pytest.mark.parametrize(
    "next_url",
    [
        "https://evil.example/steal",
        "//evil.example/steal",
        "http://testserver.evil.example/",
        "javascript:alert(1)",
        "\\\\evil.example",
    ],
)
def test_next_never_leads_off_site(alice_client, note, next_url):
    response = alice_client.post(reverse("memories:reinforce", args=[note.pk]), {"next": next_url})

    assert response.status_code == 302
    assert response.url == note.get_absolute_url()


def test_actions_need_a_post(alice_client, note):
    for name in ("reinforce", "demote", "archive-memory", "restore"):
        response = alice_client.get(reverse(f"memories:{name}", args=[note.pk]))
        assert response.status_code == 405, name
    note.refresh_from_db()
    assert (note.score, note.archived_at) == (0, None)


def test_archiving_keeps_the_memory_in_the_archive(alice_client, note):
    response = alice_client.post(
        reverse("memories:archive-memory", args=[note.pk]), {"next": reverse("home")}
    )

    note.refresh_from_db()
    assert note.archived_at is not None
    assert response.url == reverse("home")
    archive = alice_client.get(reverse("memories:archive"))
    assert b"The boiler service is due every October" in archive.content
    assert b"Restore" in archive.content


def test_archiving_with_htmx_answers_the_archived_card(alice_client, note):
    response = alice_client.post(reverse("memories:archive-memory", args=[note.pk]), **HTMX)

    assert b'class="memory archived"' in response.content
    assert b"Restore" in response.content


def test_restoring_brings_a_memory_back(alice_client, alice, note, your_story):
    services.memory_archive(owner=alice, memory_id=note.pk)

    response = alice_client.post(reverse("memories:restore", args=[note.pk]))

    note.refresh_from_db()
    assert note.archived_at is None
    assert response.status_code == 302
    timeline = alice_client.get(reverse("memories:act", args=[your_story.pk]))
    assert b"The boiler service is due every October" in timeline.content


def test_restoring_with_htmx_answers_the_live_card(alice_client, alice, note):
    services.memory_archive(owner=alice, memory_id=note.pk)

    response = alice_client.post(reverse("memories:restore", args=[note.pk]), **HTMX)

    assert b"archived" not in response.content
    assert b"Reinforce" in response.content


def test_the_archive_answers_htmx_with_the_next_page(alice_client, alice, remember):
    for n in range(22):
        memory = remember(f"archived number {n}")
        services.memory_archive(owner=alice, memory_id=memory.pk)

    response = alice_client.get(reverse("memories:archive"), {"page": 2}, **HTMX)

    assert b"<html" not in response.content
    assert response.content.decode().count('class="memory archived') == 2


# --- Delete ---------------------------------------------------------------------------------


def test_delete_asks_for_confirmation_first(alice_client, note):
    response = alice_client.get(reverse("memories:delete", args=[note.pk]))

    assert response.status_code == 200
    assert b"<html" in response.content
    assert b"Delete for good" in response.content
    assert Memory.objects.filter(pk=note.pk).exists()


def test_delete_confirmation_comes_inline_for_htmx(alice_client, note):
    response = alice_client.get(reverse("memories:delete", args=[note.pk]), **HTMX)

    assert b"<html" not in response.content
    assert f'id="memory-{note.pk}"'.encode() in response.content
    assert b"Delete for good" in response.content


def test_confirming_deletes_for_good(alice_client, note, your_story):
    response = alice_client.post(reverse("memories:delete", args=[note.pk]))

    assert not Memory.objects.filter(pk=note.pk).exists()
    assert response.status_code == 302
    assert response.url == reverse("memories:act", args=[your_story.pk])


def test_confirming_with_htmx_leaves_a_note_where_the_card_was(alice_client, note):
    response = alice_client.post(reverse("memories:delete", args=[note.pk]), **HTMX)

    assert not Memory.objects.filter(pk=note.pk).exists()
    assert (
        "Deleted “The boiler service is due every October” for good.".encode() in response.content
    )


def test_deleting_from_a_list_goes_back_to_the_list(alice_client, note):
    back = reverse("memories:search") + "?q=boiler"

    response = alice_client.post(reverse("memories:delete", args=[note.pk]), {"next": back})

    assert response.url == back


def test_deleting_from_its_own_page_does_not_go_back_to_a_404(alice_client, note, your_story):
    response = alice_client.post(
        reverse("memories:delete", args=[note.pk]), {"next": note.get_absolute_url()}
    )

    assert response.url == reverse("memories:act", args=[your_story.pk])


# --- Another member's memories ------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "method"),
    [
        ("detail", "get"),
        ("edit", "get"),
        ("edit", "post"),
        ("reinforce", "post"),
        ("demote", "post"),
        ("archive-memory", "post"),
        ("restore", "post"),
        ("delete", "get"),
        ("delete", "post"),
    ],
)
def test_another_members_memory_is_not_found(alice_client, remember, bob, name, method):
    bobs = remember("Bob's memory", owner=bob)

    response = getattr(alice_client, method)(
        reverse(f"memories:{name}", args=[bobs.pk]),
        {"content": "mine now"} if method == "post" else {},
    )

    assert response.status_code == 404
    bobs.refresh_from_db()
    assert (bobs.content, bobs.score, bobs.archived_at) == ("Bob's memory", 0, None)


# --- Export ---------------------------------------------------------------------------------


def test_export_downloads_json_of_only_the_members_memories(alice_client, note, remember, bob):
    remember("Bob's private thought", owner=bob)

    response = alice_client.get(reverse("export", args=["json"]))

    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert response["Content-Disposition"] == 'attachment; filename="talkingrock-alice.json"'
    body = response.content.decode()
    assert "The boiler service is due every October" in body
    assert "Bob's private thought" not in body
    json.loads(body)


def test_export_downloads_markdown_of_only_the_members_memories(alice_client, note, remember, bob):
    remember("Bob's private thought", owner=bob)

    response = alice_client.get(reverse("export", args=["markdown"]))

    assert response["Content-Type"].startswith("text/markdown")
    assert response["Content-Disposition"] == 'attachment; filename="talkingrock-alice.md"'
    assert b"The boiler service is due every October" in response.content
    assert b"Bob's private thought" not in response.content


def test_an_unknown_export_format_is_not_found(alice_client):
    assert alice_client.get(reverse("export", args=["csv"])).status_code == 404


def test_the_settings_page_offers_both_downloads(alice_client):
    response = alice_client.get(reverse("settings"))

    assert reverse("export", args=["json"]).encode() in response.content
    assert reverse("export", args=["markdown"]).encode() in response.content
