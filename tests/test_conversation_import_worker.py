"""An import through a real django-q2 worker (``manage.py qcluster``) on the production settings
and a database file of its own: the tool answers at once, and the worker lives the conversations
through one task each, oldest first, dated as they happened (issue 22, point 5)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.processes import shell
from tests.support.worker import Worker

FILE = Path(__file__).parent / "data" / "imports" / "chatgpt.json"
QUEUE = (
    "import json\n"
    "from django.contrib.auth import get_user_model\n"
    "from talkingrock.tools import call_tool\n"
    "member = get_user_model().objects.get(username='writer0')\n"
    f"answer = call_tool(member, 'import_conversation', data=json.load(open({str(FILE)!r})))\n"
    "print(json.dumps(answer))\n"
)
STATE = (
    "import json\n"
    "from django_q.models import Success\n"
    "from conversations.models import Conversation\n"
    "from talkingrock.tools import call_tool\n"
    "from django.contrib.auth import get_user_model\n"
    "member = get_user_model().objects.get(username='writer0')\n"
    "print(json.dumps({{'import': call_tool(member, 'get_import', import_id={pk}),\n"
    "  'conversations': {{c.imported_from: [c.status, c.started_at.isoformat()]\n"
    "                    for c in Conversation.objects.filter(owner=member)}},\n"
    "  'by_worker': Success.objects.filter(func='conversations.tasks.import_conversations')\n"
    "               .count()}}))\n"
)
DONE = "Processed 'conversations.tasks.import_conversations'"


@pytest.fixture
def worker(file_env):
    started = Worker({**file_env, "TALKINGROCK_LLM": "off"})
    started.logs("running.")
    yield started
    started.kill()


def test_the_worker_imports_a_chatgpt_export_one_conversation_per_task(file_env, worker):
    queued = json.loads(shell(file_env, QUEUE))
    assert queued["status"] == "queued"
    assert [c["state"] for c in queued["conversations"]] == ["waiting", "waiting"]

    worker.logs(DONE)
    worker.logs(DONE)  # the second conversation, a task of its own

    state = json.loads(shell(file_env, STATE.format(pk=queued["import_id"])))
    assert state["by_worker"] == 2
    assert state["import"]["status"] == "done"
    assert [c["state"] for c in state["import"]["conversations"]] == ["imported", "imported"]
    assert state["conversations"] == {
        "chatgpt:6610f0c2-9d1e-4e8a-9b1c-2f4f1b0c7a11": ["archived", "2026-03-14T18:01:00+00:00"],
        "chatgpt:7a21c3d4-0b5e-4f6a-8c7d-3e5f2a1b9c22": ["archived", "2026-03-23T12:30:00+00:00"],
    }
