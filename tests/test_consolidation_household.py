"""Issue 15's "done when": a household's facts replayed over eight simulated weeks
(tests/support/household_weeks.py). Each week its facts are stored and indexed, the 30-second
pass consolidates them, and at the week's end the daily passes run: temporal → merge → dreams.
Ollama is down most weeks (the offline engine) and up in weeks 3 and 5, where the scripted
stand-in writes an observation about Mia's piano each time — the near-duplicate a model makes
and the daily merge is there for.

At the end: observations whose history shows what changed, a trend and a transition, the
duplicate merged, one to three dreams with their evidence — on the pages, through the tools,
and "previously" in the context string."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse

from memories import services
from memories.consolidation import dreams, facts, merge, temporal
from memories.models import Dream, Memory, Observation
from memories.recall import recall
from talkingrock.tools import call_tool
from tests.support import household_weeks

MODEL_WEEKS = {
    3: "Mia has piano lessons every Tuesday.",
    5: "Mia's piano lessons are every Tuesday.",
}


def model_answers(week: list, text: str) -> list[dict]:
    """The stand-in's answer for each fact of the week, in the order the pass takes them."""
    return [
        {"action": "create", "observation_id": None, "text": text, "reason": "a weekly lesson"}
        if "piano" in fact_text.casefold()
        else {"action": "skip", "observation_id": None, "text": "", "reason": "nothing new"}
        for _, fact_text, _, _ in week
    ]


@pytest.fixture
def replayed(alice, index, ollama):
    """The eight weeks, with every fact of weeks 3 and 5 read by the model."""
    summaries = []
    for number, week in enumerate(household_weeks.weeks(), start=1):
        for happened, text, relation, subject in week:
            services.memory_store(
                owner=alice,
                content=text,
                kind=Memory.Kind.FACT,
                relation=relation,
                subject=subject,
                happened_at=happened,
            )
        index(alice)
        with_model = number in MODEL_WEEKS
        if with_model:
            ollama.answer(*model_answers(week, MODEL_WEEKS[number]))
        consolidated = facts.consolidate_member(alice.pk, use_model=with_model, limit=1000)
        end = household_weeks.when(number, "sun") + timedelta(hours=12)
        summaries.append(
            {
                "consolidate": consolidated,
                "temporal": temporal.temporal_member(alice.pk, use_model=False, now=end),
                "merge": merge.merge_member(alice.pk, use_model=False),
                "dream": dreams.dream_member(alice.pk, use_model=False, now=end),
            }
        )
    model_read = sum(len(household_weeks.weeks()[n - 1]) for n in MODEL_WEEKS)
    assert len(ollama.chats) == model_read  # the model did read those weeks
    return summaries


def live(**filters):
    return Observation.objects.filter(dismissed=False, merged_into=None, **filters)


def test_a_replayed_household_is_consolidated_into_observations_with_history(alice, replayed):
    pickup = live(subject="pickup").get()
    assert pickup.text.endswith("3:30pm") or "3:30pm" in pickup.text
    assert pickup.changes.filter(kind="updated", previous_text="The school pickup is at 3pm.")

    (trend,) = live(kind=Observation.Kind.TREND, entity__normalized="sam")
    assert "rose from 24 to 30 minutes" in trend.text and trend.evidence_count == 5
    (transition,) = live(kind=Observation.Kind.TRANSITION, entity__normalized="priya")
    assert "mobile app team" in transition.text and "backend" in transition.text

    (merged,) = Observation.objects.exclude(merged_into=None)
    keeper = merged.merged_into
    assert keeper.live and keeper.kind == Observation.Kind.PATTERN
    assert {merged.text, keeper.text} == set(MODEL_WEEKS.values())
    assert set(keeper.facts.all()) >= set(merged.facts.all())
    assert keeper.changes.filter(kind="merged").exists()
    assert sum(week["merge"].get("merged", 0) for week in replayed) == 1

    waiting = Dream.objects.filter(owner=alice, dismissed=False)
    assert 1 <= waiting.count() <= 3
    for dream in waiting:
        assert dream.facts_a.exists() and dream.facts_b.exists() and dream.reason
        assert not set(dream.facts_a.all()) & set(dream.facts_b.all())


def test_the_replayed_household_is_on_the_pages_through_the_tools_and_in_the_context(
    alice, alice_client, replayed
):
    page = alice_client.get(reverse("memories:observations")).content.decode()
    trend = live(kind=Observation.Kind.TREND).get()
    assert trend.text.replace("'", "&#x27;") in page and "previously" in page
    dreams_page = alice_client.get(reverse("memories:dreams")).content.decode()
    for dream in Dream.objects.filter(owner=alice):
        assert dream.facts_a.first().content.replace("'", "&#x27;") in dreams_page

    about_priya = call_tool(alice, "get_observations", entity="Priya")["observations"]
    assert {o["kind"] for o in about_priya} >= {"transition", "state"}
    assert 1 <= len(call_tool(alice, "get_dreams")["dreams"]) <= 3

    context = recall(alice, "what time is the school pickup now?").context
    assert 'previously: "The school pickup is at 3pm."' in context
