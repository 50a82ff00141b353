"""The 30-second consolidation schedule runs in a real django-q2 worker (``manage.py
qcluster``), on the production settings and a database file of its own, over a household's
facts: the worker, not this process, turns them into observations with their history. A worker
killed in the middle of a pass is taken over as soon as a new one starts, not 30 minutes later."""

from __future__ import annotations

import json
import time

import pytest

from tests.support.ollama_server import LoopbackOllama
from tests.support.processes import shell
from tests.support.worker import PATIENCE, Worker

FACTS = [  # (member, day of February, text, relation): as extraction or an agent stores them
    ("writer0", 1, "The school pickup is at 3pm.", "time"),
    ("writer0", 3, "school pickup 3pm again, same as always", "time"),
    ("writer0", 20, "from next week the school pickup moves to 3:30pm", "time"),
    ("writer0", 2, "Priya leads the mobile app team.", "state"),
    ("writer0", 18, "priya moved over to backend, she's on the API rewrite now", "state"),
    ("writer1", 4, "Priya bakes bread on Sundays.", "state"),
]
STORE = (
    "from datetime import datetime, UTC\n"
    "from django.contrib.auth import get_user_model\n"
    "from memories import services\n"
    "from memories.models import Memory\n"
    "people = {u.username: u for u in get_user_model().objects.all()}\n"
    f"for who, day, text, relation in {FACTS!r}:\n"
    "    services.memory_store(owner=people[who], content=text, kind=Memory.Kind.FACT,\n"
    "        subject='pickup' if 'pickup' in text else '', relation=relation,\n"
    "        happened_at=datetime(2026, 2, day, 9, tzinfo=UTC))\n"
)
STATE = (
    "import json\n"
    "from memories.models import ConsolidationRun, Memory, Observation\n"
    "from django_q.models import Schedule, Success\n"
    "print(json.dumps({\n"
    "  'observations': {o.text: [c.previous_text for c in o.changes.filter(kind='updated')]\n"
    "                   for o in Observation.objects.filter(owner__username='writer0')},\n"
    "  'others': Observation.objects.exclude(owner__username='writer0').count(),\n"
    "  'pending': Memory.objects.filter(consolidated_at=None).count(),\n"
    "  'runs': ConsolidationRun.objects.filter(kind='consolidate').exclude(finished_at=None)\n"
    "          .count(),\n"
    "  'by_worker': Success.objects.filter(func='memories.tasks.consolidate').count(),\n"
    "  'cron': Schedule.objects.get(name='memories.consolidate').cron}))"
)
DONE = "Processed 'memories.tasks.consolidate'"


@pytest.fixture
def worker(file_env):
    started = Worker({**file_env, "TALKINGROCK_LLM": "off"})
    yield started
    started.kill()


def test_the_thirty_second_schedule_consolidates_a_households_facts_in_the_worker(file_env, worker):
    shell(file_env, STORE)  # no worker yet: indexing runs inline, consolidation waits
    worker.logs("running.")
    worker.logs(DONE, timeout=120)
    done = json.loads(shell(file_env, STATE))

    assert done["cron"] == "* * * * * */30" and done["by_worker"] >= 1 and done["runs"] >= 2
    assert done["pending"] == 0
    assert done["observations"] == {
        "from next week the school pickup moves to 3:30pm": ["The school pickup is at 3pm."],
        "priya moved over to backend, she's on the API rewrite now": [
            "Priya leads the mobile app team."
        ],
    }
    assert done["others"] == 0  # writer1's one fact about their Priya waits alone


MODEL = "llama3.2:3b"
RUNS = (
    "import json\n"
    "from memories.models import ConsolidationRun, Memory\n"
    "print(json.dumps({\n"
    "  'pending': Memory.objects.filter(consolidated_at=None, kind='fact').count(),\n"
    "  'runs': [[r.finished_at is None, r.error, bool(r.worker)]\n"
    "           for r in ConsolidationRun.objects.filter(kind='consolidate').order_by('pk')]}))"
)


def skip(request: dict) -> dict:
    """The model's answer to every consolidation decision: nothing to change."""
    return {"action": "skip", "observation_id": None, "text": "", "reason": "nothing new"}


@pytest.fixture
def ollama_server():
    server = LoopbackOllama(MODEL, skip)
    yield server
    server.stop()


def test_a_worker_killed_mid_pass_is_taken_over_as_soon_as_a_new_one_starts(
    file_env, ollama_server
):
    """The attack: kill -9 of the task cluster mid-pass and an immediate restart left 203 facts
    unconsolidated for 30 minutes, the run open until ``stale_minutes``."""
    env = {**file_env, "OLLAMA_HOST": ollama_server.url, "TALKINGROCK_LLM_MODEL": MODEL}
    shell(env, STORE)
    ollama_server.hold = True  # the model "thinks" about the first fact until released
    first = Worker(env)
    try:
        assert ollama_server.chat_arrived.wait(PATIENCE + 60), "the pass never asked the model"
    finally:
        first.kill()
    killed = json.loads(shell(env, RUNS))
    assert killed["pending"] == len(FACTS)
    assert killed["runs"] == [[True, "", True]]  # open, and it names its (now dead) process

    ollama_server.release()
    restarted = time.monotonic()
    second = Worker(env)
    try:
        while (after := json.loads(shell(env, RUNS)))["pending"] and (
            time.monotonic() - restarted < 60
        ):
            time.sleep(1)
    finally:
        second.kill()

    assert after["pending"] == 0, f"{after} one minute after the restart"
    dead, *taken_over = after["runs"]
    assert dead[0] is False and "stopped" in dead[1]  # closed, saying why
    assert taken_over and all(run[:2] == [False, ""] for run in taken_over)
