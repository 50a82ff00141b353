"""The household every test lives in: alice and bob, each with a Your Story act."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.template.base import Template
from django.test.utils import _TestState

from memories import indexing, services, vectors
from memories.models import Memory
from talkingrock import llm
from talkingrock.models import ApiToken
from tests.support import processes
from tests.support.ollama_stub import ScriptedOllama

PASSWORD = "correct horse battery staple"


@pytest.fixture
def alice(db):
    return get_user_model().objects.create_user(
        "alice", password=PASSWORD, is_staff=True, is_superuser=True
    )


@pytest.fixture
def bob(db):
    return get_user_model().objects.create_user("bob", password=PASSWORD)


@pytest.fixture
def alice_client(client, alice):
    client.force_login(alice)
    return client


@pytest.fixture
def bob_client(client, bob):
    client.force_login(bob)
    return client


@pytest.fixture
def alice_token(alice) -> str:
    return ApiToken.issue(owner=alice, name="test")[1]


@pytest.fixture
def remember(alice):
    """Store a memory for a member (alice by default)."""

    def store(content: str, *, owner=None, **fields):
        return services.memory_store(owner=owner or alice, content=content, **fields)

    return store


@pytest.fixture(autouse=True)
def _fresh_cache():
    """The cache holds "indexing already queued" flags keyed by member id, and the process holds
    members' vectors by id and clock tick; both come round again when each test's transaction
    is rolled back, which never happens to them in a running household."""
    cache.clear()
    vectors.forget()
    yield
    cache.clear()
    vectors.forget()


@pytest.fixture
def index():
    """Run the write path's background step (embeddings, entities) now.

    Tests run inside a transaction that never commits, so the on-commit task never fires."""

    def run(owner=None) -> int:
        return indexing.index_memories(owner_id=owner.pk if owner else None)

    return run


@pytest.fixture
def fact(alice, index):
    """Store a fact (as extraction or an agent does) that happened ``when``, indexed at once."""

    def store_fact(text, when, *, owner=None, subject="", relation="", **fields):
        memory = services.memory_store(
            owner=owner or alice,
            content=text,
            kind=Memory.Kind.FACT,
            subject=subject,
            relation=relation,
            happened_at=when,
            **fields,
        )
        index(owner or alice)
        return memory

    return store_fact


@pytest.fixture(autouse=True)
def _offline_by_default(settings):
    """No test reaches for a real Ollama; the ones about the model use ``ollama`` below."""
    settings.TALKINGROCK_LLM = {**settings.TALKINGROCK_LLM, "enabled": False}


@pytest.fixture
def ollama(settings):
    """The real ``ollama`` client talking to a scripted server (tests/support/ollama_stub.py)."""
    settings.TALKINGROCK_LLM = {
        **settings.TALKINGROCK_LLM,
        "enabled": True,
        "host": "http://ollama.test",
        "model": "llama3.2:3b",
        "timeout": 5,
    }
    server = ScriptedOllama()
    with llm.use_transport(server.transport()):
        yield server


@pytest.fixture
def file_env(tmp_path):
    """The production settings on a database file of its own (tests/support/processes.py)."""
    return processes.file_env(tmp_path)


@pytest.fixture
def capture(django_capture_on_commit_callbacks):
    """Run what is queued on commit (tests run in a transaction that never commits):
    ``with capture(execute=True): …``."""
    return django_capture_on_commit_callbacks


@pytest.fixture
def templates_as_served(monkeypatch):
    """Templates render as they do when served, without the test runner's signal per template
    (it copies the context of every widget's template for ``response.context``). For tests that
    post thousands of pages and read only their status and HTML: it halves their cost."""
    monkeypatch.setattr(Template, "_render", _TestState.saved_data.template_render)
