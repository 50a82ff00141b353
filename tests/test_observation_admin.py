"""The admin over consolidation's rows (issue 15): a member curates their own observations' flags
with the history shown inline and read-only, keeps or dismisses dreams, and reads the passes'
runs without being able to change them."""

from __future__ import annotations

from django.urls import reverse

from memories import services
from memories.consolidation import store
from memories.models import ConsolidationRun, Dream, Memory

BEFORE = "The shed key hangs by the back door."
NOW = "The shed key is in the blue bowl."


def test_a_member_curates_their_observation_with_its_history_alongside(alice, alice_client):
    fact = services.memory_store(owner=alice, content=BEFORE, kind=Memory.Kind.FACT)
    observation = store.create(alice.pk, store.Draft(BEFORE), [fact], engine="offline")
    observation = store.update(observation, NOW, [fact], engine="offline")
    url = reverse("admin:memories_observation_change", args=[observation.pk])

    page = alice_client.get(url).content.decode()
    assert NOW in page and BEFORE in page  # the history inline shows what it said before

    response = alice_client.post(
        url,
        {
            "owner": alice.pk,
            "dismissed": "on",
            "changes-TOTAL_FORMS": "2",
            "changes-INITIAL_FORMS": "2",
            "changes-MIN_NUM_FORMS": "0",
            "changes-MAX_NUM_FORMS": "1000",
        },
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    observation.refresh_from_db()
    assert observation.dismissed and observation.text == NOW
    assert alice_client.get(reverse("admin:memories_observation_add")).status_code == 403


def test_runs_are_a_record_nobody_changes(alice, alice_client):
    run = ConsolidationRun.objects.create(owner=alice, kind="merge", summary={"merged": 2})
    Dream.objects.create(owner=alice, text="Bikes and bread both rise early.")

    assert (
        "merged"
        in alice_client.get(
            reverse("admin:memories_consolidationrun_change", args=[run.pk])
        ).content.decode()
    )
    assert (
        alice_client.post(
            reverse("admin:memories_consolidationrun_change", args=[run.pk]), {"kind": "dream"}
        ).status_code
        == 403
    )
    run.refresh_from_db()
    assert run.kind == "merge"
    assert (
        "Bikes and bread"
        in alice_client.get(reverse("admin:memories_dream_changelist")).content.decode()
    )
