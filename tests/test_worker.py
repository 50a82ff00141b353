"""A real django-q2 worker (``manage.py qcluster``) compresses a conversation, and one killed in
the middle of it loses nothing: the conversation waits in ``compressing``, the sweeper requeues
it, and a new worker finishes it.

Everything runs as in production: the production settings on a database file of their own, the
worker as its own process, the real ``ollama`` client in that process talking to a loopback
server that speaks Ollama's API (tests/support/ollama_server.py), and the real embedding model.
"""

from __future__ import annotations

import json
import time

import pytest

from tests.support.ollama_server import LoopbackOllama
from tests.support.processes import shell
from tests.support.worker import PATIENCE, Worker

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
    """Start workers, each once its cluster says it runs; every one is killed at the end."""
    started: list[Worker] = []

    def start(with_env=None) -> Worker:
        worker = Worker(with_env or env)
        started.append(worker)
        worker.logs("running.")  # django-q2: "Q Cluster <name> [<id>] running."
        return worker

    yield start
    for worker in started:
        worker.kill()


DONE = "Processed 'conversations.tasks.compress'"  # django-q2's monitor, once the result is saved
STATE = (
    "import json\n"
    "from conversations.models import Conversation\n"
    "from django_q.models import Success\n"
    "c = Conversation.objects.get()\n"
    "draft = c.memories.filter(kind='memory').first()\n"
    "print(json.dumps({'status': c.status, 'stage': c.compression_stage,\n"
    "  'attempts': c.compression_attempts, 'messages': c.messages.count(),\n"
    "  'report': c.compression_report, 'draft': draft and draft.content,\n"
    "  'embedded': bool(draft and draft.indexed_hash == draft.content_hash),\n"
    "  'by_worker': Success.objects.filter(func='conversations.tasks.compress').count()}))"
)


def state(env) -> dict:
    return json.loads(shell(env, STATE))


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
    worker = workers()
    close(env)  # queued on commit; the worker, not this process, runs it
    worker.logs(DONE)
    done = state(env)
    assert done["by_worker"] == 1 and done["attempts"] == 1
    assert done["report"]["entities"]["engine"] == "ollama", done["report"]
    assert done["draft"] == NARRATIVE["narrative"] and done["embedded"]


def test_a_worker_killed_mid_compression_loses_nothing_and_a_new_one_recovers_at_once(
    env, workers, ollama_server
):
    ollama_server.hold = True  # the model "thinks" until the test says otherwise
    first = workers()
    close(env)
    assert ollama_server.chat_arrived.wait(PATIENCE), "the worker never asked the model"
    first.kill()  # mid-compression: inside the entities stage, waiting on the model

    killed = state(env)
    assert (killed["status"], killed["stage"]) == ("compressing", "entities")
    assert killed["messages"] == len(SAID) and killed["draft"] is None  # nothing lost, no half
    # The page offers Retry now, not after the 15-minute stall threshold: the process is gone.
    assert shell(env, LOST) == "lost True stalled True"

    ollama_server.release()
    # No sweep is queued by hand and the timeout stays at 15 minutes: the new worker sweeps as
    # it starts, sees the dead process and requeues (before: 6 minutes, the queue's retry).
    started = time.monotonic()
    second = workers()
    second.logs(DONE)
    assert time.monotonic() - started < 60
    done = state(env)
    assert done["attempts"] == 2 and done["stage"] == "ready"
    assert done["status"] == "compressing"  # ready for the member's review, as it should be
    assert done["draft"] == NARRATIVE["narrative"] and done["embedded"]


LOST = (
    "from conversations.models import Conversation\n"
    "from conversations import services\n"
    "c = Conversation.objects.get()\n"
    "print('lost', services.is_lost(c), 'stalled', services.is_stalled(c))"
)
