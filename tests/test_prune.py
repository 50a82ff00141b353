"""Pruning archives the weakest slice only when the database is too big; nothing is deleted."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.conf import settings
from django.core.management import call_command
from django.test import override_settings
from django.utils import timezone
from django_q.models import Schedule

from memories import services, tasks
from memories.housekeeping import ensure_schedules
from memories.models import Memory


def memory_settings(**changes):
    return override_settings(TALKINGROCK_MEMORY={**settings.TALKINGROCK_MEMORY, **changes})


too_big = memory_settings(max_size=1, prune_percent=25)


@pytest.fixture
def pile(alice, remember):
    """Eight memories whose weakness is known by hand: weight = exp(0.2·score)/(1 + 0.01·days)."""
    now = timezone.now()
    spec = {  # name: (score, days since last useful)
        "fresh": (0, 0),  # 1.0
        "reinforced": (3, 30),  # 1.82 / 1.3 = 1.40
        "old": (0, 200),  # 1 / 3 = 0.33
        "demoted": (-5, 0),  # 0.37
        "ancient": (0, 400),  # 1 / 5 = 0.20     ← weakest
        "old demoted": (-2, 150),  # 0.67 / 2.5 = 0.27 ← second weakest
        "middling": (-1, 10),  # 0.82 / 1.1 = 0.74
        "useful": (6, 100),  # 3.32 / 2 = 1.66
    }
    memories = {}
    for name, (score, days) in spec.items():
        memory = remember(f"Pruning candidate {name}")
        Memory.objects.filter(pk=memory.pk).update(
            score=score, created_at=now - timedelta(days=days)
        )
        memories[name] = memory
    return memories


def archived_names(pile) -> set[str]:
    archived = set(Memory.objects.exclude(archived_at=None).values_list("pk", flat=True))
    return {name for name, memory in pile.items() if memory.pk in archived}


def test_nothing_is_archived_while_the_database_is_under_its_size_limit(pile):
    with memory_settings(max_size=10**12, prune_percent=25):
        report = services.prune()

    assert not report.over_limit
    assert report.archived_ids == [] and archived_names(pile) == set()


def test_over_the_limit_the_weakest_share_is_archived_by_score_weight_and_recency(pile):
    with too_big:
        report = services.prune()

    assert report.over_limit
    assert archived_names(pile) == {"ancient", "old demoted"}  # 25 % of 8
    assert Memory.objects.count() == 8  # archived, never deleted


def test_the_share_rounds_up_so_a_small_household_still_prunes(pile):
    with memory_settings(max_size=1, prune_percent=1):
        services.prune()

    assert archived_names(pile) == {"ancient"}


def test_pruned_memories_stay_searchable_in_the_archive_and_can_be_restored(alice, pile):
    with too_big:
        services.prune()
    ancient = pile["ancient"]

    assert services.memory_query(owner=alice, query="ancient").hits == []
    [(found, _)] = services.memory_query(owner=alice, query="ancient", include_archived=True).hits
    assert found == ancient

    services.memory_restore(owner=alice, memory_id=ancient.pk)
    [(found, _)] = services.memory_query(owner=alice, query="ancient").hits
    assert found == ancient


def test_a_second_prune_takes_the_next_weakest(pile):
    with too_big:
        services.prune()
        services.prune()

    assert archived_names(pile) == {"ancient", "old demoted", "old", "demoted"}


def test_a_dry_run_archives_nothing(pile):
    with too_big:
        report = services.prune(dry_run=True)

    assert len(report.archived_ids) == 2
    assert archived_names(pile) == set()


def test_force_prunes_under_the_limit(pile):
    with memory_settings(max_size=10**12, prune_percent=25):
        services.prune(force=True)

    assert archived_names(pile) == {"ancient", "old demoted"}


def test_the_prune_command_says_what_it_did(pile, capsys):
    with too_big:
        call_command("prune", "--dry-run")
        assert "Would archive 2 memories." in capsys.readouterr().out
        call_command("prune")
        assert "Archived 2 memories." in capsys.readouterr().out

    assert archived_names(pile) == {"ancient", "old demoted"}


def test_the_scheduled_task_prunes(pile):
    with too_big:
        assert tasks.prune() == 2


def test_the_prune_check_is_a_daily_cron_schedule_that_follows_settings(db):
    schedule = Schedule.objects.get(name="memories.prune")
    assert (schedule.func, schedule.schedule_type) == ("memories.tasks.prune", Schedule.CRON)
    assert schedule.cron == "0 4 * * *"

    with memory_settings(prune_schedule="30 2 * * 0"):
        ensure_schedules()

    assert Schedule.objects.get(name="memories.prune").cron == "30 2 * * 0"
    assert Schedule.objects.filter(name="memories.prune").count() == 1
