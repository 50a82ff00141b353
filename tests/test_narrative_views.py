"""The narrative pages: the list and its search, the chain view walked both ways, the memory
page's recall chain, "where you left off" on the greeting, and a read-only admin."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from memories.models import Memory
from narratives import services as narratives
from narratives.models import Narrative
from talkingrock.tools import call_tool


def link(owner, summary, *, previous=None, memory_ids=(), topic=""):
    return narratives.create(
        owner=owner, summary=summary, previous=previous, memory_ids=memory_ids, topic=topic
    )


@pytest.fixture
def thread(alice, remember):
    """A chain of five links with a branch after the second."""
    oak = remember("We chose the oak worktop.")
    quote = remember("Marta's quote is 4,200 euros.")
    links = [link(alice, "Alice started planning the kitchen.", topic="kitchen")]
    links.append(
        link(alice, "She chose oak for the worktop.", previous=links[0], memory_ids=[oak.pk])
    )
    links.append(link(alice, "The quote came in at 4,200 euros.", previous=links[1],
                      memory_ids=[quote.pk, oak.pk]))  # fmt: skip
    links.append(link(alice, "The electrician is booked for Friday.", previous=links[2]))
    branch = link(alice, "A side thought on the garden shed.", previous=links[1], topic="shed")
    return links, branch, oak, quote


def page(client, name, *args, **params):
    response = client.get(reverse(name, args=args), params)
    assert response.status_code == 200
    return response.content.decode()


def test_the_list_is_newest_first_and_searchable(alice_client, thread):
    links, branch, *_ = thread
    body = page(alice_client, "narratives:index")
    assert body.index(branch.summary) < body.index(links[0].summary)
    assert "new thread" in body and "continues" in body and "new topic" not in body

    found = page(alice_client, "narratives:index", q="electrician")
    assert links[3].summary in found and links[0].summary not in found
    assert "No narrative mentions “zeppelin”" in page(
        alice_client, "narratives:index", q="zeppelin"
    )


@pytest.mark.parametrize(
    ("query", "said"),
    [
        ('"((', "Nothing left to search for"),
        ("*", "Nothing left to search for"),
        ("-", "Nothing left to search for"),
        ("NEAR(", "No narrative mentions “NEAR(”"),  # an operator is only a word here
    ],
)
def test_a_malformed_search_says_so_and_never_fails(alice_client, thread, query, said):
    assert said in page(alice_client, "narratives:index", q=query)


def test_the_chain_walks_back_and_forward_and_shows_branches(alice_client, thread):
    links, branch, oak, _ = thread
    body = page(alice_client, "narratives:detail", links[2].pk)
    for earlier_or_later in links:
        assert earlier_or_later.summary in body
    assert 'aria-current="step"' in body and "Marta&#x27;s quote is 4,200 euros." in body
    assert f'href="{oak.get_absolute_url()}"' in body
    assert "Also continued by:" in body and branch.summary in body  # the branch after link 2
    assert "Earlier in the thread" not in body and "Later in the thread" not in body

    start = page(alice_client, "narratives:detail", links[0].pk)
    assert "A new thread: kitchen" in start and links[3].summary in start


def test_seen_from_a_branch_the_main_line_is_the_other_continuation(alice_client, thread):
    links, branch, *_ = thread
    body = page(alice_client, "narratives:detail", branch.pk)
    chain = body[body.index('<ol class="chain">') : body.index("</ol>")]
    assert branch.summary in chain and links[2].summary in chain
    also = chain[chain.index("Also continued by:") :]
    assert links[2].summary in also.split("</p>")[0]  # not the branch, which is shown below it
    assert links[3].summary not in chain  # the main line's later links belong to its own view


def test_the_list_costs_the_same_however_many_links(
    alice_client, alice, remember, django_assert_num_queries
):
    memory = remember("The boiler is due a service.")
    previous = None
    for n in range(30):
        previous = link(
            alice, f"Step {n} of the boiler.", previous=previous, memory_ids=[memory.pk]
        )
    with django_assert_num_queries(6):  # session, user, count, page rows, links, continuations
        body = page(alice_client, "narratives:index")
    assert body.count('class="narrative"') == 25 and "Older →" in body
    assert "Step 4 of" in page(alice_client, "narratives:index", page=2)


def test_a_search_with_more_matches_than_a_page_says_it_shows_the_newest(alice_client, alice):
    for n in range(30):
        link(alice, f"Boiler thought number {n}.")
    body = page(alice_client, "narratives:index", q="boiler")
    assert "The 25 newest matches" in body
    assert "number 29." in body and "number 4." not in body


def test_a_long_chain_is_walked_page_by_page(alice_client, alice):
    links = [link(alice, "Step 0 of a long thread.")]
    for n in range(1, 60):
        links.append(link(alice, f"Step {n} of a long thread.", previous=links[-1]))
    body = page(alice_client, "narratives:detail", links[30].pk)
    assert "Step 10 of" in body and "Step 50 of" in body and "Step 9 of" not in body
    back = reverse("narratives:detail", args=[links[9].pk])
    forward = reverse("narratives:detail", args=[links[51].pk])
    assert f'href="{back}" rel="prev"' in body and f'href="{forward}" rel="next"' in body


def stored_by_agent(member, content: str) -> Memory:
    return Memory.objects.get(pk=call_tool(member, "memory_store", content=content)["id"])


def test_a_memory_page_opens_the_recall_chain(alice_client, alice, thread):
    links, _, oak, quote = thread
    # Stored by an agent while links[3] is newest: its caller stamps the active link.
    stamped = stored_by_agent(alice, "The tiles are from the shop in town.")
    assert stamped.narrative == Narrative.objects.filter(owner=alice).first()
    body = page(alice_client, "memories:detail", oak.pk)
    assert "Stored before any narrative." in body  # oak was stored first
    assert links[1].summary in body and links[2].summary in body  # the narratives linking it

    linked = narratives.create(owner=alice, summary="Tiles and quote.", memory_ids=[quote.pk])
    newer = stored_by_agent(alice, "The tiler comes next week.")
    body = page(alice_client, "memories:detail", newer.pk)
    assert linked.summary in body and "Marta&#x27;s quote" in body  # its narrative's siblings


def test_the_greeting_says_where_you_left_off(alice_client, alice):
    assert "Where you left off" not in page(alice_client, "home")
    latest = link(alice, "Alice was choosing between two boilers.")
    body = page(alice_client, "home")
    assert "Where you left off:" in body and latest.summary in body
    assert reverse("narratives:detail", args=[latest.pk]) in body


def test_the_admin_shows_narratives_but_never_changes_them(alice_client, thread):
    links, *_ = thread
    change = reverse("admin:narratives_narrative_change", args=[links[0].pk])
    response = alice_client.get(change)
    assert response.status_code == 200 and links[0].summary in response.content.decode()
    assert 'name="_save"' not in response.content.decode()
    refused = alice_client.post(change, {"summary": "Rewritten.", "topic": "x"})
    assert refused.status_code == 403
    links[0].refresh_from_db()
    assert links[0].summary == "Alice started planning the kitchen."
    assert alice_client.get(reverse("admin:narratives_narrative_add")).status_code == 403
    delete = reverse("admin:narratives_narrative_delete", args=[links[0].pk])
    assert alice_client.post(delete, {"post": "yes"}).status_code == 403
    assert Narrative.objects.filter(pk=links[0].pk).exists()


def test_a_staff_member_sees_her_own_narratives_and_their_memories_in_the_admin(
    client, alice, remember, thread
):
    carol = get_user_model().objects.create_user("carol", password="x", is_staff=True)
    tomatoes = remember("Carol's tomatoes are ripe.", owner=carol)
    hers = link(carol, "Carol picked the tomatoes.", memory_ids=[tomatoes.pk])
    links, *_ = thread
    client.force_login(carol)

    listed = client.get(reverse("admin:narratives_narrative_changelist")).content.decode()
    assert hers.summary in listed and links[0].summary not in listed
    change = reverse("admin:narratives_narrative_change", args=[hers.pk])
    body = client.get(change).content.decode()
    assert "Carol&#x27;s tomatoes are ripe." in body  # the inline, read-only
    assert 'name="_save"' not in body
    assert client.post(change, {"summary": "Rewritten."}).status_code == 403
    alices = client.get(reverse("admin:narratives_narrative_change", args=[links[0].pk]))
    assert alices.status_code == 302 and "Alice started" not in alices.content.decode()
