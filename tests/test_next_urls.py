"""Every ``next`` is checked once (talkingrock/navigation.py): a path on this site is followed,
anything else is ignored for the view's own page, and never after the action failed to answer.

The attack: ``next=foo`` (no "/" or ".") on 11 POST endpoints applied the change and then
answered 500 (``redirect("foo")`` took it for the name of a URL pattern)."""

from __future__ import annotations

import pytest
from django.test import RequestFactory
from django.urls import reverse

from memories import services
from memories.consolidation import store
from memories.models import Memory, MemoryItem, Observation
from talkingrock.navigation import next_url

# URL name → (what its id names, the field it changes and the value it has after)
ENDPOINTS = {
    "memories:reinforce": ("memory", lambda memory: memory.score, 3),
    "memories:demote": ("memory", lambda memory: memory.score, -1),
    "memories:archive-memory": ("memory", lambda memory: memory.archived_at is not None, True),
    "memories:restore": ("archived", lambda memory: memory.archived_at is None, True),
    "memories:delete": ("memory", lambda memory: None, None),
    "memories:observation-confirm": ("observation", lambda o: o.confirmed_at is not None, True),
    "memories:observation-dismiss": ("observation", lambda o: o.dismissed, True),
    "memories:observation-bring-back": ("dismissed", lambda o: o.dismissed, False),
    "memories:observation-edit": ("observation", lambda o: o.text, "Boiler hums at night"),
    "memories:thread-resolve": ("item", lambda item: item.is_active, False),
    "memories:thread-reopen": ("resolved", lambda item: item.is_active, True),
}


@pytest.fixture
def rows(alice, remember, index):
    memory = remember("The boiler hums")
    archived = remember("The gate code was 4411")
    services.memory_archive(owner=alice, memory_id=archived.pk)
    index(alice)
    observation = store.create(alice.pk, store.Draft("Boiler hums"), [memory], engine="offline")
    dismissed = store.create(alice.pk, store.Draft("Gate code"), [archived], engine="offline")
    Observation.objects.filter(pk=dismissed.pk).update(dismissed=True)
    item = MemoryItem.objects.create(memory=memory, type="task", data={"description": "Oil it"})
    resolved = MemoryItem.objects.create(
        memory=memory, type="task", data={"description": "Bleed it"}, is_active=False
    )
    return {
        "memory": memory,
        "archived": archived,
        "observation": observation,
        "dismissed": dismissed,
        "item": item,
        "resolved": resolved,
    }


def data_for(name: str) -> dict[str, str]:
    if name == "memories:thread-resolve":
        return {"how": "done"}
    if name == "memories:observation-edit":
        return {"text": "Boiler hums at night"}
    return {}


@pytest.mark.parametrize("name", list(ENDPOINTS))
@pytest.mark.parametrize("given", ["foo", "memories:story", "https://evil.example/", "//x", "/\\x"])
def test_a_next_that_is_not_a_path_here_is_ignored_after_the_action(
    alice_client, rows, name, given
):
    target, read, after = ENDPOINTS[name]
    row = rows[target]

    response = alice_client.post(reverse(name, args=[row.pk]), {**data_for(name), "next": given})

    assert response.status_code == 302
    assert response.url.startswith("/") and not response.url.startswith(("//", "/\\"))
    assert given not in response.url
    if name == "memories:delete":
        assert not Memory.objects.filter(pk=row.pk).exists()
    else:
        row.refresh_from_db()
        assert read(row) == after


@pytest.mark.parametrize("name", list(ENDPOINTS))
def test_a_next_on_this_site_is_followed(alice_client, rows, name):
    target, _, _ = ENDPOINTS[name]
    back = "/observations/?kind=state"

    response = alice_client.post(
        reverse(name, args=[rows[target].pk]), {**data_for(name), "next": back}
    )

    assert response.status_code == 302 and response.url == back


@pytest.mark.parametrize(
    ("given", "followed"),
    [
        ("/memories/3/", True),
        ("/observations/?kind=state#observation-2", True),
        ("", False),
        ("foo", False),
        ("memories/3/", False),
        ("//evil.example/", False),
        ("/\\evil.example/", False),
        ("https://evil.example/", False),
        ("/memories/\x00/", False),
        ("javascript:alert(1)", False),
    ],
)
def test_next_url_follows_only_a_path_on_this_site(given, followed):
    request = RequestFactory().post("/", {"next": given})

    assert next_url(request, "/home/") == (given if followed else "/home/")
