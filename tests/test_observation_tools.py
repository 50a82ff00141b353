"""get_observations and get_dreams (issue 15, item 8): live observations by meaning, keywords,
entity name or newest, each with its history and source facts; dreams with both groups' fact
ids; nothing of another member's, whatever is asked."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from memories import services
from memories.consolidation import store
from memories.models import Dream, Entity, Memory, Observation
from talkingrock.tools import ToolError, call_tool

LEAD = "Priya leads the mobile app team."
NOW_LEADS = "Priya leads the backend rewrite."
BOILER = "The boiler is serviced every October by Dave."
BIKE = "Sam cycles to school when it is dry."


def day(n: int) -> datetime:
    return datetime(2026, 2, 1, 9, tzinfo=UTC) + timedelta(days=n)


def fact(owner, text: str, when: datetime) -> Memory:
    return services.memory_store(owner=owner, content=text, kind=Memory.Kind.FACT, happened_at=when)


def observe(owner, text, facts, *, entity=None, kind=Observation.Kind.STATE) -> Observation:
    draft = store.Draft(text, kind=kind, entity_id=entity.pk if entity else None)
    return store.create(owner.pk, draft, facts, engine="offline")


@pytest.fixture
def observed(alice):
    priya = Entity.objects.create(owner=alice, name="Priya", normalized="priya", kind="person")
    later = fact(alice, "Priya moved to the backend team in March.", day(30))
    first = fact(alice, "Priya runs the mobile app stand-ups.", day(2))
    boiler = fact(alice, "Dave serviced the boiler in October.", day(3))
    leads = observe(alice, LEAD, [first], entity=priya)
    leads = store.update(leads, NOW_LEADS, [later], engine="offline", reason="A later fact.")
    heating = observe(alice, BOILER, [boiler], kind=Observation.Kind.CYCLE)
    bike = observe(alice, BIKE, [first])
    return {
        "priya": priya,
        "leads": leads,
        "heating": heating,
        "bike": bike,
        "facts": [first, later],
    }


def listed(answer) -> list[str]:
    return [row["text"] for row in answer["observations"]]


def test_without_arguments_it_lists_the_newest_first(alice, observed):
    answer = call_tool(alice, "get_observations")

    assert listed(answer) == [BIKE, BOILER, NOW_LEADS]
    leads = answer["observations"][2]
    assert leads["kind"] == "state" and leads["evidence_count"] == 2
    assert leads["entity"] == "Priya" and leads["updated_at"]
    assert leads["source_fact_ids"] == [f.pk for f in observed["facts"]]  # as they happened
    assert [(h["previous_text"], h["new_text"]) for h in leads["history"]] == [(LEAD, NOW_LEADS)]
    assert f'previously: "{LEAD}"' in leads["line"]
    assert "matched" not in leads


def test_a_query_finds_by_meaning_and_by_keywords(alice, observed):
    by_meaning = call_tool(alice, "get_observations", query="who looks after the heating?")
    by_word = call_tool(alice, "get_observations", query="October", limit=5)

    assert listed(by_meaning)[0] == BOILER
    assert by_meaning["observations"][0]["matched"] == "meaning"
    assert BOILER in listed(by_word)


def test_an_entity_is_matched_by_its_name_as_entities_are(alice, observed):
    for name in ("Priya", "PRIYA", "Priya's", "  priya "):
        answer = call_tool(alice, "get_observations", entity=name)
        assert listed(answer) == [NOW_LEADS], name
    about = call_tool(alice, "get_observations", entity="Priya", query="backend team")
    assert listed(about) == [NOW_LEADS]


def test_an_unknown_name_is_a_clear_refusal(alice, observed):
    with pytest.raises(ToolError) as refused:
        call_tool(alice, "get_observations", entity="Zebedee")
    assert refused.value.status == 404 and "Zebedee" in refused.value.message


def test_dismissed_and_merged_observations_are_not_listed(alice, observed):
    Observation.objects.filter(pk=observed["bike"].pk).update(dismissed=True)
    Observation.objects.filter(pk=observed["heating"].pk).update(merged_into=observed["leads"])

    assert listed(call_tool(alice, "get_observations")) == [NOW_LEADS]
    assert listed(call_tool(alice, "get_observations", query="boiler October Dave")) == []


def test_the_limit_is_kept_and_bounded(alice, observed):
    assert len(call_tool(alice, "get_observations", limit=1)["observations"]) == 1
    for limit in (0, 51, 10**30):
        with pytest.raises(ToolError) as refused:
            call_tool(alice, "get_observations", limit=limit)
        assert refused.value.status == 400
    with pytest.raises(ToolError):
        call_tool(alice, "get_observations", query="x" * 1001)


def test_dreams_come_with_both_groups_of_facts_and_dismissed_ones_on_request(alice, observed):
    first, later = observed["facts"]
    dream = Dream.objects.create(
        owner=alice, text="Stand-ups and boilers both run on schedules.", reason="Rhythm.",
        score=0.7, engine="offline",
    )  # fmt: skip
    dream.facts_a.set([first])
    dream.facts_b.set([later])
    Dream.objects.create(owner=alice, text="A dismissed one.", dismissed=True)

    answer = call_tool(alice, "get_dreams")
    both = call_tool(alice, "get_dreams", include_dismissed=True, limit=5)

    (row,) = answer["dreams"]
    assert row["facts_a"] == [first.pk] and row["facts_b"] == [later.pk]
    assert (row["reason"], row["score"], row["kept"], row["dismissed"]) == (
        "Rhythm.",
        0.7,
        False,
        False,
    )
    assert [d["text"] for d in both["dreams"]] == ["A dismissed one.", dream.text]


def test_another_member_sees_nothing_of_alices(alice, bob, observed):
    Dream.objects.create(owner=alice, text="Alice's secret dream.")
    assert call_tool(bob, "get_observations") == {"observations": []}
    for query in (NOW_LEADS, BOILER, "boiler October", "Priya"):
        assert call_tool(bob, "get_observations", query=query) == {"observations": []}
    with pytest.raises(ToolError) as refused:
        call_tool(bob, "get_observations", entity="Priya")
    assert refused.value.status == 404
    assert call_tool(bob, "get_dreams", include_dismissed=True) == {"dreams": []}
    # And alice's answers hold nothing of bob's.
    bobs = fact(bob, "Priya from bob's office is his boiler expert.", day(1))
    observe(bob, "Bob's Priya fixes boilers.", [bobs])
    answer = call_tool(alice, "get_observations", query="Priya boiler expert", limit=50)
    assert "Bob's Priya fixes boilers." not in listed(answer)
    assert all(bobs.pk not in row["source_fact_ids"] for row in answer["observations"])
