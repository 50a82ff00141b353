"""A real django-q2 worker (``manage.py qcluster``) compresses a conversation, and one killed in
the middle of it loses nothing: the conversation waits in ``compressing``, the sweeper requeues
it, and a new worker finishes it.

Everything runs as in production: the production settings on a database file of their own, the
worker as its own process, the real ``ollama`` client in that process talking to a loopback
server that speaks Ollama's API (tests/support/ollama_server.py), and the real embedding model.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from tests import test_concurrency
from tests.support.ollama_server import LoopbackOllama
from tests.test_concurrency import ROOT, manage

file_env = test_concurrency.file_env  # the fixture: production settings on a file of their own

MODEL = "llama3.2:3b"
SAID = [
    "We decided to paint the hallway green because it hides scuffs.",
    "I'm waiting on Alex to send the contract for the kitchen.",
]
ENTITIES = {  # every field the schema requires, as a model constrained by it answers
    "people": [{"name": "Alex", "context": "sends the kitchen contract", "relation": "builder"}],
    "decisions": [{"what": "paint the hallway green", "why": "it hides scuffs"}],
    "waiting_on": [{"who": "Alex", "what": "the kitchen contract", "since": "today"}],
}
NARRATIVE = {"narrative": "The hallway will be green. The kitchen now waits on Alex's contract."}
PATIENCE = 180  # seconds a worker may take to start, load its models and finish one task


def answer(request: dict) -> dict:
    """The model's answer, chosen by the schema the app asked for."""
    wanted = request.get("format", {}).get("properties", {})
    return NARRATIVE if "narrative" in wanted else ENTITIES


@pytest.fixture
def ollama_server():
    server = LoopbackOllama(MODEL, answer)
    yield server
    server.stop()


@pytest.fixture
def env(file_env, ollama_server):
    return {
        **file_env,
        "OLLAMA_HOST": ollama_server.url,
        "TALKINGROCK_LLM_MODEL": MODEL,
        "TALKINGROCK_LLM": "on",
    }


@pytest.fixture
def workers(env):
    """Start ``manage.py qcluster`` processes; every one still alive is killed at the end."""
    started: list[subprocess.Popen] = []

    def start() -> subprocess.Popen:
        worker = subprocess.Popen(
            [sys.executable, "manage.py", "qcluster"],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # its own process group: kill() takes its children too
        )
        started.append(worker)
        wait_for(lambda: shell(env, HEARTBEAT.format(pid=worker.pid)) == "True", "a heartbeat")
        return worker

    yield start
    for worker in started:
        kill(worker)


HEARTBEAT = (
    "from django_q.status import Stat\n"
    "print(any(s.pid == {pid} and s.status != 'Stopped' for s in Stat.get_all()))"
)
STATE = (
    "import json\n"
    "from conversations.models import Conversation\n"
    "from django_q.models import Success\n"
    "c = Conversation.objects.get()\n"
    "draft = c.memories.first()\n"
    "print(json.dumps({'status': c.status, 'stage': c.compression_stage,\n"
    "  'attempts': c.compression_attempts, 'messages': c.messages.count(),\n"
    "  'report': c.compression_report, 'draft': draft and draft.content,\n"
    "  'embedded': bool(draft and draft.indexed_hash == draft.content_hash),\n"
    "  'by_worker': Success.objects.filter(func='conversations.tasks.compress').count()}))"
)


def shell(env, code: str) -> str:
    return manage(env, "shell", "-v", "0", "-c", code).strip()


def state(env) -> dict:
    return json.loads(shell(env, STATE))


def wait_for(condition, what: str, timeout: float = PATIENCE):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if result := condition():
            return result
        time.sleep(0.5)
    raise AssertionError(f"waited {timeout} s for {what}")


def kill(worker: subprocess.Popen) -> None:
    """SIGKILL the whole cluster: no clean-up code of ours or django-q2's gets to run."""
    try:
        os.killpg(worker.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    worker.wait(timeout=30)


def close(env) -> None:
    shell(
        env,
        "from django.contrib.auth import get_user_model\n"
        "from conversations import services\n"
        "member = get_user_model().objects.get(username='writer0')\n"
        f"for line in {SAID!r}: conversation, _ = services.add_message(owner=member, content=line)\n"
        "services.request_close(conversation=conversation)\n"
        "services.confirm_close(conversation=conversation)\n",
    )


def test_a_worker_compresses_a_closed_conversation(env, workers):
    workers()
    close(env)  # queued on commit; the worker, not this process, runs it
    done = wait_for(lambda: (s := state(env))["stage"] == "ready" and s, "the compression")
    assert done["by_worker"] == 1 and done["attempts"] == 1
    assert done["report"]["entities"]["engine"] == "ollama", done["report"]
    assert done["draft"] == NARRATIVE["narrative"] and done["embedded"]


def test_a_worker_killed_mid_compression_loses_nothing(env, workers, ollama_server):
    ollama_server.hold = True  # the model "thinks" until the test says otherwise
    first = workers()
    close(env)
    assert ollama_server.chat_arrived.wait(PATIENCE), "the worker never asked the model"
    kill(first)  # mid-compression: inside the entities stage, waiting on the model

    killed = state(env)
    assert (killed["status"], killed["stage"]) == ("compressing", "entities")
    assert killed["messages"] == len(SAID) and killed["draft"] is None  # nothing lost, no half

    ollama_server.release()
    workers()
    # The sweeper (every 5 minutes in production) finds it once the timeout has passed.
    requeued = shell(
        env,
        "from datetime import timedelta\n"
        "from django.utils import timezone\n"
        "from conversations import services\n"
        "print(services.sweep_stalled(now=timezone.now() + timedelta(minutes=16)))",
    )
    assert requeued == "[1]"
    done = wait_for(lambda: (s := state(env))["stage"] == "ready" and s, "the requeued compression")
    assert done["by_worker"] == 1 and done["attempts"] == 2
    assert done["status"] == "compressing"  # ready for the member's review, as it should be
    assert done["draft"] == NARRATIVE["narrative"] and done["embedded"]
