"""The Observations and Dreams pages (issue 15, items 7-8): each observation with its kind,
evidence, history ("previously") and source facts in time order; confirm, edit (through the
store, into the history), dismiss and bring back; each dream with both groups of facts, the
evaluator's reason and score, keep, dismiss and bring back; an entity's page shows what is
observed about it; the Observations and Settings pages show when each pass last ran and what it
did. Every request is the member's own: another member's ids and filters are refused cleanly."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from memories import services
from memories.consolidation import store
from memories.models import (
    ConsolidationRun,
    Dream,
    Entity,
    Memory,
    Observation,
    ObservationChange,
)
from talkingrock import embeddings

LEAD = "Priya leads the mobile app team."
NOW_LEADS = "Priya leads the backend rewrite."
GARDEN = "The tomatoes are watered every Sunday."
DREAM = "Both the sourdough starter and the compost heap thrive on a weekly feed."


def day(n: int) -> datetime:
    return datetime(2026, 2, 1, 9, tzinfo=UTC) + timedelta(days=n)


def fact(owner, text: str, when: datetime) -> Memory:
    return services.memory_store(owner=owner, content=text, kind=Memory.Kind.FACT, happened_at=when)


@pytest.fixture
def observed(alice):
    """Alice: an observation about Priya that changed (with its history), one about the garden,
    a dream over two groups of facts, and runs of two of the four passes (one failed)."""
    priya = Entity.objects.create(owner=alice, name="Priya", normalized="priya", kind="person")
    later = fact(alice, "Priya moved to the backend team in March.", day(30))
    first = fact(alice, "Priya runs the mobile app stand-ups.", day(2))
    sunday = fact(alice, "Watered the tomatoes on Sunday.", day(5))
    leads = store.create(
        alice.pk,
        store.Draft(LEAD, kind=Observation.Kind.STATE, entity_id=priya.pk, subject="priya"),
        [first],
        engine="offline",
    )
    leads = store.update(leads, NOW_LEADS, [later], engine="offline", reason="A later fact.")
    garden = store.create(
        alice.pk, store.Draft(GARDEN, kind=Observation.Kind.CYCLE), [sunday], engine="offline"
    )
    dream = Dream.objects.create(
        owner=alice, text=DREAM, reason="Both need feeding weekly.", score=0.81, engine="offline"
    )
    dream.facts_a.set([sunday])
    dream.facts_b.set([first])
    started = timezone.now() - timedelta(minutes=5)
    ConsolidationRun.objects.create(
        owner=alice,
        kind="consolidate",
        started_at=started,
        finished_at=started + timedelta(seconds=3),
        engine="offline",
        summary={"create": 2, "update": 1},
    )
    ConsolidationRun.objects.create(
        owner=alice,
        kind="temporal",
        started_at=started,
        finished_at=started + timedelta(seconds=1),
        engine="offline",
        error="RuntimeError: the model went away",
    )
    return {"priya": priya, "leads": leads, "garden": garden, "dream": dream}


@pytest.fixture
def bobs(bob):
    named = Entity.objects.create(owner=bob, name="Zebedee", normalized="zebedee")
    kept = fact(bob, "Zebedee feeds the quokkas at dawn.", day(1))
    observation = store.create(
        bob.pk,
        store.Draft("Zebedee feeds the quokkas daily.", entity_id=named.pk),
        [kept],
        engine="offline",
    )
    dream = Dream.objects.create(owner=bob, text="Quokkas and zebras dream alike.", score=0.5)
    return {"entity": named, "observation": observation, "dream": dream}


def page(client, name: str = "memories:observations", *args, **params):
    response = client.get(reverse(name, args=args), params)
    return response, response.content.decode()


# --- the Observations page ---------------------------------------------------------------------


def test_it_lists_live_observations_newest_change_first_with_history_and_sources(
    alice_client, observed
):
    response, body = page(alice_client)

    assert response.status_code == 200
    assert body.index(GARDEN) < body.index(NOW_LEADS)  # the garden's changed last
    assert f"previously: “{LEAD}”" in body
    assert "A later fact." in body  # the change's reason
    leads = observed["leads"]
    facts = [f.pk for f in leads.facts.order_by("happened_at")]
    first, later = (reverse("memories:detail", args=[pk]) for pk in facts)
    article = body[body.index(f'id="observation-{leads.pk}"') :]
    sources = article[article.index("Source facts") :]
    assert sources.index(first) < sources.index(later)  # as they happened
    assert "2 facts" in body and "state" in body and "cycle" in body
    assert reverse("memories:entity", args=[observed["priya"].pk]) in body


def test_it_filters_by_kind_and_by_entity(alice_client, observed):
    _, by_kind = page(alice_client, kind="cycle")
    _, by_entity = page(alice_client, entity=observed["priya"].pk)

    assert GARDEN in by_kind and NOW_LEADS not in by_kind
    assert NOW_LEADS in by_entity and GARDEN not in by_entity


@pytest.mark.parametrize(
    "params",
    [
        {"entity": "bobs"},
        {"entity": str(10**30)},
        {"entity": "-1"},
        {"entity": "4\x00"},
        {"kind": "nonsense"},
        {"kind": "state\x1b[31m"},
        {"page": str(10**30)},
    ],
)
def test_a_filter_that_is_not_the_members_is_refused_clearly(alice_client, observed, bobs, params):
    if params.get("entity") == "bobs":
        params = {"entity": bobs["entity"].pk}

    response, body = page(alice_client, **params)

    assert response.status_code in (200, 400)
    if "page" not in params:
        assert response.status_code == 400
        assert "That filter is not one of yours" in body
    assert NOW_LEADS in body and GARDEN in body  # everything, then
    assert "Zebedee" not in body


def test_the_page_asks_the_database_the_same_number_of_times_for_one_or_many(
    alice, alice_client, observed, django_assert_max_num_queries
):
    with django_assert_max_num_queries(30) as one:
        alice_client.get(reverse("memories:observations"))
    for number in range(6):
        more = fact(alice, f"Fact number {number} about the allotment shed.", day(number))
        store.create(alice.pk, store.Draft(f"Allotment note {number}"), [more], engine="offline")
    with django_assert_max_num_queries(len(one.captured_queries)):
        response = alice_client.get(reverse("memories:observations"))
    assert "Allotment note 5" in response.content.decode()


def test_confirming_records_when_the_member_said_it_holds(alice_client, observed):
    leads = observed["leads"]
    back = reverse("memories:observations") + "?kind=state"

    response = alice_client.post(
        reverse("memories:observation-confirm", args=[leads.pk]), {"next": back}
    )

    assert response.status_code == 302 and response.url == back
    leads.refresh_from_db()
    assert leads.confirmed_at is not None
    followed = alice_client.get(response.url).content.decode()
    assert f"Confirmed: “{NOW_LEADS}”" in followed and "confirmed" in followed


def test_an_edit_goes_into_the_history_in_the_members_words(alice, alice_client, observed):
    leads = observed["leads"]
    url = reverse("memories:observation-edit", args=[leads.pk])
    assert LEAD not in alice_client.get(url).content.decode()  # the form shows what it says now

    response = alice_client.post(url, {"text": "Priya leads the platform group."})

    assert response.status_code == 302
    leads.refresh_from_db()
    assert leads.text == "Priya leads the platform group." and leads.user_edited
    change = leads.changes.order_by("-id").first()
    assert (change.kind, change.previous_text) == (ObservationChange.Kind.EDITED, NOW_LEADS)
    # Re-embedded: its vector is its new words.
    nearest = store.nearest(alice.pk, embeddings.embed_one("Priya leads the platform group."), k=1)
    assert nearest[0][0] == leads and nearest[0][1] > 0.99
    body = alice_client.get(response.url).content.decode()
    assert f"previously: “{NOW_LEADS}”" in body and "edited" in body


@pytest.mark.parametrize("text", ["", "   ", "x" * 10_001])
def test_an_edit_that_cannot_be_saved_says_why_and_changes_nothing(alice_client, observed, text):
    leads = observed["leads"]

    response = alice_client.post(
        reverse("memories:observation-edit", args=[leads.pk]), {"text": text}
    )

    assert response.status_code == 400
    assert response.context["form"].errors["text"]
    leads.refresh_from_db()
    assert leads.text == NOW_LEADS


def test_control_characters_in_an_edit_are_cleaned(alice_client, observed):
    leads = observed["leads"]
    alice_client.post(
        reverse("memories:observation-edit", args=[leads.pk]),
        {"text": "Priya \x1b[31mleads\x00 the data team."},
    )
    leads.refresh_from_db()
    assert leads.text == "Priya [31mleads the data team."


def test_dismissing_hides_it_and_bring_back_undoes_it(alice, alice_client, observed):
    garden = observed["garden"]

    response = alice_client.post(reverse("memories:observation-dismiss", args=[garden.pk]))
    listed = alice_client.get(response.url).content.decode()

    garden.refresh_from_db()
    assert garden.dismissed and not store.live(alice.pk).filter(pk=garden.pk).exists()
    assert "Dismissed “" in listed and "Dismissed lately (1)" in listed
    assert reverse("memories:observation-bring-back", args=[garden.pk]) in listed

    alice_client.post(reverse("memories:observation-bring-back", args=[garden.pk]))
    garden.refresh_from_db()
    assert not garden.dismissed
    assert (
        "Dismissed lately"
        not in alice_client.get(reverse("memories:observations")).content.decode()
    )


def test_an_observation_merged_away_cannot_be_confirmed_or_edited(alice_client, observed):
    garden, leads = observed["garden"], observed["leads"]
    Observation.objects.filter(pk=garden.pk).update(merged_into=leads)

    for name in ("memories:observation-confirm", "memories:observation-dismiss"):
        response = alice_client.post(reverse(name, args=[garden.pk]), follow=True)
        assert f"It was merged into “{NOW_LEADS}”" in response.content.decode()
    alice_client.post(reverse("memories:observation-edit", args=[garden.pk]), {"text": "New"})

    garden.refresh_from_db()
    assert garden.text == GARDEN and garden.confirmed_at is None and not garden.dismissed


def test_actions_take_only_a_post_and_a_page_needs_a_member(client, alice_client, observed):
    pk = observed["leads"].pk
    for name in ("memories:observation-confirm", "memories:observation-dismiss"):
        assert alice_client.get(reverse(name, args=[pk])).status_code == 405
    alice_client.logout()
    for url in (reverse("memories:observations"), reverse("memories:dreams")):
        response = client.get(url)
        assert response.status_code == 302 and "/accounts/login/" in response.url


def test_a_next_that_leads_elsewhere_is_not_followed(alice_client, observed):
    pk = observed["leads"].pk
    response = alice_client.post(
        reverse("memories:observation-confirm", args=[pk]), {"next": "https://evil.example/"}
    )
    assert response.url == f"{reverse('memories:observations')}#observation-{pk}"


# --- Dreams ---------------------------------------------------------------------------------------


def test_the_dreams_page_shows_both_groups_the_reason_and_the_score(alice_client, observed):
    dream = observed["dream"]
    response, body = page(alice_client, "memories:dreams")

    assert response.status_code == 200
    assert DREAM in body and "Both need feeding weekly." in body and "0.81" in body
    assert "offline" in body
    for memory in [*dream.facts_a.all(), *dream.facts_b.all()]:
        assert reverse("memories:detail", args=[memory.pk]) in body


def test_a_dream_can_be_kept_dismissed_and_brought_back(alice_client, observed):
    dream = observed["dream"]

    alice_client.post(reverse("memories:dream-keep", args=[dream.pk]))
    dream.refresh_from_db()
    assert dream.kept_at is not None
    assert "Keep</button>" not in page(alice_client, "memories:dreams")[1]

    response = alice_client.post(reverse("memories:dream-dismiss", args=[dream.pk]), follow=True)
    dream.refresh_from_db()
    assert dream.dismissed and dream.kept_at is None
    assert "Dismissed lately (1)" in response.content.decode()

    alice_client.post(reverse("memories:dream-bring-back", args=[dream.pk]))
    dream.refresh_from_db()
    assert not dream.dismissed


# --- the entity page, and when the passes ran ----------------------------------------------------


def test_an_entitys_page_shows_what_is_observed_about_it(alice_client, observed):
    _, body = page(alice_client, "memories:entity", observed["priya"].pk)

    assert NOW_LEADS in body and f"previously: “{LEAD}”" in body
    assert GARDEN not in body
    assert f"{reverse('memories:observations')}?entity={observed['priya'].pk}" in body


@pytest.mark.parametrize("name", ["memories:observations", "settings"])
def test_the_status_block_shows_when_each_pass_last_ran_and_what_it_did(
    alice_client, observed, name
):
    _, body = page(alice_client, name)

    assert "create 2 · update 1" in body
    assert "failed: RuntimeError: the model went away" in body
    merge = body[body.index('id="pass-merge"') :]
    assert "never" in merge[: merge.index("</tr>")]
    assert body.count("never</td>") == 2  # merge and dreams


def test_a_run_still_going_says_so(alice, alice_client):
    ConsolidationRun.objects.create(owner=alice, kind="merge", engine="offline")
    _, body = page(alice_client)
    assert "still running" in body
