"""Settings says how background work is going, as a member may see it: household counts, their
own failures with the error, and nothing of what another member's work was or said. (django-q2's
admin pages, which showed every task's result to a household admin, are gone.)"""

from __future__ import annotations

from datetime import timedelta
from uuid import uuid4

import pytest
from django.urls import reverse
from django.utils import timezone
from django_q.models import OrmQ, Task

from talkingrock import jobs


def failed(group: str, func: str, error: str, *, hours_ago: float = 1) -> Task:
    when = timezone.now() - timedelta(hours=hours_ago)
    return Task.objects.create(
        id=uuid4().hex,
        name=uuid4().hex[:20],
        func=func,
        group=group,
        started=when,
        stopped=when,
        success=False,
        result=f"Traceback (most recent call last):\n  File ...\n{error}",
    )


@pytest.fixture
def failures(alice, bob):
    failed(jobs.member_group(alice.pk), "conversations.tasks.compress", "ValueError: alice broke")
    failed(jobs.member_group(bob.pk), "conversations.tasks.reply", "KeyError: bobs-secret-recipe")
    failed("memories.consolidate", "memories.tasks.consolidate", "OSError: disk full")
    failed(
        jobs.member_group(alice.pk),
        "memories.tasks.index_memories",
        "Stale: yesterday",
        hours_ago=30,
    )


def test_a_member_sees_their_own_failure_and_only_counts_of_the_rest(alice_client, failures):
    page = alice_client.get(reverse("settings")).content.decode()

    assert "1 of your background job failed in the last day" in page
    assert "ValueError: alice broke" in page and "conversations.tasks.compress" in page
    assert "1 scheduled household job" in page
    assert "bobs-secret-recipe" not in page and "disk full" not in page
    assert "Stale: yesterday" not in page


def test_another_member_sees_their_own_not_alices(bob_client, failures):
    page = bob_client.get(reverse("settings")).content.decode()

    assert "KeyError: bobs-secret-recipe" in page
    assert "alice broke" not in page


def test_work_is_queued_in_the_members_group(alice, settings):
    jobs.run_now_or_queue("memories.tasks.index_memories", alice.pk, owner_id=alice.pk)

    health = jobs.health(alice.pk)
    assert health.waiting == OrmQ.objects.count()
    assert Task.objects.filter(group=jobs.member_group(alice.pk)).exists()


def test_the_error_line_is_the_exception_without_the_traceback(alice):
    task = failed(jobs.member_group(alice.pk), "x.y", "RuntimeError: the model went away")

    assert jobs.error_line(task) == "RuntimeError: the model went away"
