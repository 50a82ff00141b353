"""One member never reaches another's rows: every URL that takes an id and every tool, tried by
bob with alice's ids, answers as if the row did not exist, and alice's data stays as it was.

The URL table is checked against the URLconf itself: a new URL that takes an id fails
``test_every_url_that_takes_an_id_has_a_case`` until a case for it is added here.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from html import escape
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.urls import URLPattern, URLResolver, reverse
from django.urls.converters import IntConverter

from conversations import reasoning
from conversations import services as conversation_services
from conversations.models import Classification, Conversation, ConversationImport, Message
from household import urls as root_urls
from memories import indexing, services
from memories import urls as memory_urls
from memories.acts import ensure_your_story
from memories.consolidation import store
from memories.models import (
    Act,
    ConsolidationRun,
    Dream,
    Entity,
    Memory,
    MemoryItem,
    Observation,
    ObservationChange,
    Recall,
)
from narratives import services as narratives
from narratives.models import Narrative
from talkingrock.models import ApiToken
from talkingrock.tools import REGISTRY, ToolError, call_tool

SECRET = "The safe code of the Zanzibar holiday flat is 7391"
ARCHIVED_SECRET = "Quixotic locker combination 2468"
ACT_SECRET = "Surprise party planning"
ACT_MEMORY = "Balloons hidden in the loft"
TOKEN_NAME = "Alice phone assistant"
SAID = "Planning to surprise Omar with a puppy"
SAID_BEFORE = "Granny's recipe uses cardamom"
NARRATED = "Alice chose the Zanzibar flat because of its quiet courtyard."
THREAD = "Book the Zanzibar ferry"
OBSERVED = "Alice keeps the Zanzibar safe code in her head"
OBSERVED_BEFORE = "Alice kept the Zanzibar safe code on a sticky note"
DREAMT = "Zanzibar ferries and lockers both wait for a code"
RUN_ERROR = "Pelicanquill the model went away"
IMPORTED = "Marmalade recipes from the allotment"
ALICES_WORDS = (
    SECRET, ARCHIVED_SECRET, ACT_SECRET, ACT_MEMORY, TOKEN_NAME, SAID, SAID_BEFORE, NARRATED,
    THREAD, OBSERVED, OBSERVED_BEFORE, DREAMT, RUN_ERROR, IMPORTED,
)  # fmt: skip
HTMX = {"HTTP_HX_REQUEST": "true"}


@dataclass
class Alices:
    member: Any
    memory: Memory
    archived: Memory
    act: Act
    act_memory: Memory
    token: ApiToken
    entity: Entity
    conversation: Conversation  # open, with a message
    message: Message
    past: Conversation  # archived
    trail: Recall
    narrative: Narrative
    item: MemoryItem  # an open thread of a kept memory
    classification: Classification  # how her message was read, with its trail
    observation: Observation  # with a history
    dream: Dream
    conversation_import: ConversationImport  # a ChatGPT export she brought in

    def pk_of(self, target: str) -> int:
        return getattr(self, target).pk


@pytest.fixture
def alices(alice, remember, index) -> Alices:
    act = Act.objects.create(owner=alice, title=ACT_SECRET, description="Do not tell anyone")
    archived = remember(ARCHIVED_SECRET)
    services.memory_archive(owner=alice, memory_id=archived.pk)
    memory = remember(SECRET, tags="holiday, private")
    act_memory = remember(ACT_MEMORY, act=act)
    index(alice)  # vectors and entities, so that recall could find them
    memory.refresh_from_db()
    past, _ = conversation_services.add_message(owner=alice, content=SAID_BEFORE)
    conversation_services.request_close(conversation=past)
    conversation_services.confirm_close(conversation=past)  # its task never runs: no commit
    Conversation.objects.filter(pk=past.pk).update(status="archived", archived_at=past.closed_at)
    past.refresh_from_db()
    conversation, message = conversation_services.add_message(owner=alice, content=SAID)
    trail = Recall.objects.create(owner=alice, query=SAID, purpose="chat", message=message)
    narrative = narratives.create(
        owner=alice, summary=NARRATED, memory_ids=[memory.pk], topic="the flat"
    )
    item = MemoryItem.objects.create(memory=memory, type="task", data={"description": THREAD})
    classification = reasoning.classify_with_memory(alice, SAID, message=message, use_model=False)
    zanzibar = Entity.objects.get(owner=alice, normalized="zanzibar")
    observation = store.create(
        alice.pk, store.Draft(OBSERVED_BEFORE, entity_id=zanzibar.pk), [memory], engine="offline"
    )
    observation = store.update(observation, OBSERVED, [archived], engine="offline")
    dream = Dream.objects.create(owner=alice, text=DREAMT, reason=DREAMT, score=0.9)
    dream.facts_a.set([memory])
    dream.facts_b.set([act_memory])
    ConsolidationRun.objects.create(owner=alice, kind="consolidate", error=RUN_ERROR)
    conversation_import = ConversationImport.objects.create(
        owner=alice,
        source="chatgpt",
        status="done",
        report=[
            {"key": "chatgpt:1", "title": IMPORTED, "started_at": "2026-03-01T10:00:00+00:00",
             "messages": 2, "state": "imported", "conversation": past.pk}
        ],
    )  # fmt: skip
    return Alices(
        member=alice,
        memory=memory,
        archived=archived,
        act=act,
        act_memory=act_memory,
        token=ApiToken.issue(owner=alice, name=TOKEN_NAME)[0],
        entity=Entity.objects.get(owner=alice, normalized="zanzibar"),
        conversation=conversation,
        message=message,
        past=past,
        trail=trail,
        narrative=narrative,
        item=item,
        classification=classification,
        observation=observation,
        dream=dream,
        conversation_import=conversation_import,
    )


def snapshot(alice) -> tuple:
    """Everything alice owns, field by field."""
    return (
        list(Memory.objects.filter(owner=alice).order_by("pk").values()),
        list(Act.objects.filter(owner=alice).order_by("pk").values()),
        list(Conversation.objects.filter(owner=alice).order_by("pk").values()),
        list(Message.objects.filter(conversation__owner=alice).order_by("pk").values()),
        list(MemoryItem.objects.filter(memory__owner=alice).order_by("pk").values()),
        list(ApiToken.objects.filter(owner=alice).order_by("pk").values()),
        list(get_user_model().objects.filter(pk=alice.pk).values()),
        list(Narrative.objects.filter(owner=alice).order_by("pk").values()),
        list(Classification.objects.filter(owner=alice).order_by("pk").values()),
        list(Observation.objects.filter(owner=alice).order_by("pk").values()),
        list(ObservationChange.objects.filter(observation__owner=alice).order_by("pk").values()),
        list(Dream.objects.filter(owner=alice).order_by("pk").values()),
        list(ConversationImport.objects.filter(owner=alice).order_by("pk").values()),
    )


def assert_nothing_of_alices_shown(response) -> None:
    body = response.content.decode()
    for words in ALICES_WORDS:
        for shown in {words, escape(words)}:  # a page escapes "Granny's" as "Granny&#x27;s"
            assert shown not in body, f"{words!r} shown to bob at {response.request['PATH_INFO']}"


# --- Every URL that takes an id ------------------------------------------------------------


@dataclass(frozen=True)
class Visit:
    method: str  # "get" or "post"
    data: dict[str, Any] | Callable[[Any], dict[str, Any]] = field(default_factory=dict)
    htmx: bool = False


def _bobs_edit(bob) -> dict[str, Any]:
    return {"content": "Bob was here", "tags": "bob", "act": ensure_your_story(owner=bob).pk}


GET, POST = Visit("get"), Visit("post")
GET_HTMX, POST_HTMX = Visit("get", htmx=True), Visit("post", htmx=True)

# URL name → (which of alice's rows its id names, what bob tries, the answer bob must get).
ID_URL_CASES: dict[str, tuple[str, list[Visit], int]] = {
    "memories:act": ("act", [GET, GET_HTMX, Visit("get", {"page": 2}, htmx=True)], 404),
    "memories:detail": ("memory", [GET, GET_HTMX], 404),
    "memories:edit": ("memory", [GET, Visit("post", _bobs_edit)], 404),
    "memories:reinforce": ("memory", [POST, POST_HTMX], 404),
    "memories:demote": ("memory", [POST, POST_HTMX], 404),
    "memories:archive-memory": ("memory", [POST, POST_HTMX], 404),
    "memories:restore": ("archived", [POST, POST_HTMX], 404),
    "memories:delete": ("memory", [GET, GET_HTMX, POST, POST_HTMX], 404),
    "memories:entity": ("entity", [GET, GET_HTMX, Visit("get", {"page": 2}, htmx=True)], 404),
    "memories:thread-resolve": (
        "item",
        [Visit("post", {"how": "done"}), Visit("post", {"how": "dismissed"}, htmx=True)],
        404,
    ),
    "memories:thread-reopen": ("item", [POST, POST_HTMX], 404),
    "memories:thread-make-current": ("item", [POST], 404),
    "memories:make-current": ("memory", [POST, POST_HTMX], 404),
    # Sharing (issue 25): alice's act, memory and thread, which bob can neither share, take
    # back, join nor leave. tests/test_shared_isolation.py tries the same with shared rows.
    "memories:shared-act-add": ("act", [Visit("post", lambda bob: {"members": [bob.pk]})], 404),
    "memories:shared-act-remove": (("act", "member"), [POST], 404),
    "memories:share": ("memory", [Visit("post", {"place": 1})], 404),
    "memories:take-back": ("memory", [POST], 404),
    "memories:thread-share": ("item", [Visit("post", {"place": 1})], 404),
    "memories:thread-take-back": ("item", [POST], 404),
    "token-revoke": ("token", [POST], 404),
    "conversations:detail": ("past", [GET], 404),
    "conversations:title": ("past", [Visit("post", {"title": "Bob was here"})], 404),
    "conversations:forget": ("conversation", [GET, POST], 404),
    "conversations:pause": ("conversation", [POST], 404),
    "conversations:unpause": ("conversation", [POST], 404),
    "conversations:close": ("conversation", [POST, POST_HTMX], 404),
    "conversations:confirm-close": ("conversation", [POST], 404),
    "conversations:resume": ("conversation", [POST], 404),
    "conversations:retry": ("conversation", [POST], 404),
    "conversations:progress": ("conversation", [GET, GET_HTMX], 404),
    "conversations:review": ("conversation", [GET, Visit("post", {"action": "confirm"})], 404),
    "conversations:reply": ("message", [GET, GET_HTMX], 404),
    "conversations:reply-again": ("message", [POST, POST_HTMX], 404),
    "conversations:act-edit": (
        "act",
        [Visit("post", {"title": "Bob's now"}), Visit("post", {"archived": "1"})],
        404,
    ),
    "conversations:why": ("trail", [GET], 404),
    "conversations:reading": ("classification", [GET], 404),
    "narratives:detail": ("narrative", [GET, GET_HTMX], 404),
    "memories:observation-edit": (
        "observation",
        [GET, Visit("post", {"text": "Bob was here", "next": "/"})],
        404,
    ),
    "memories:observation-confirm": ("observation", [POST], 404),
    "memories:observation-dismiss": ("observation", [POST], 404),
    "memories:observation-bring-back": ("observation", [POST], 404),
    "memories:dream-keep": ("dream", [POST], 404),
    "memories:dream-dismiss": ("dream", [POST], 404),
    "memories:dream-bring-back": ("dream", [POST], 404),
    "conversations:import": ("conversation_import", [GET, GET_HTMX], 404),
    "conversations:import-retry": ("conversation_import", [POST], 404),
    # Removing members and resetting passwords is for household admins; bob is not one, so he
    # is refused outright.
    "member-remove": ("member", [GET, POST], 403),
    "member-reset": ("member", [GET, POST], 403),
}

# URL parameters that are not row ids, and why they need no case here.
NOT_ID_PARAMETERS = {
    "export": "a format name; the export pages are checked in the listing test below",
    "api-tool": "a tool name; every tool is called with alice's ids below",
    "reset-link": "a signed one-time token naming its member (tests/test_password_reset.py)",
}


def url_patterns(patterns=None, namespace: str = ""):
    """(name, converters) of every URL the project serves, outside Django's admin."""
    for pattern in root_urls.urlpatterns if patterns is None else patterns:
        if isinstance(pattern, URLResolver):
            if pattern.app_name == "admin":
                continue  # Django's admin checks staff and row permissions itself (test_admin)
            inner = f"{namespace}{pattern.namespace}:" if pattern.namespace else namespace
            yield from url_patterns(pattern.url_patterns, inner)
        elif isinstance(pattern, URLPattern):
            yield f"{namespace}{pattern.name}", dict(pattern.pattern.converters)


def test_every_url_that_takes_an_id_has_a_case():
    served = dict(url_patterns())
    takes_an_id = {
        name
        for name, converters in served.items()
        if any(isinstance(c, IntConverter) for c in converters.values())
    }
    other_parameters = {name for name, converters in served.items() if converters} - takes_an_id

    memories_with_ids = {
        f"memories:{p.name}" for p in memory_urls.urlpatterns if "<int:" in str(p.pattern)
    }
    assert memories_with_ids <= takes_an_id
    assert takes_an_id == set(ID_URL_CASES), "add a case to ID_URL_CASES for each new id URL"
    assert other_parameters == set(NOT_ID_PARAMETERS)


@pytest.mark.parametrize("name", sorted(ID_URL_CASES))
def test_bob_cannot_reach_alices_rows_through_any_url(bob_client, bob, alices, name):
    target, visits, expected = ID_URL_CASES[name]
    targets = target if isinstance(target, tuple) else (target,)
    url = reverse(name, args=[alices.pk_of(t) for t in targets])
    before = snapshot(alices.member)

    for visit in visits:
        data = visit.data(bob) if callable(visit.data) else visit.data
        headers = HTMX if visit.htmx else {}
        response = getattr(bob_client, visit.method)(url, data, **headers)

        assert response.status_code == expected, (visit, response.status_code)
        assert_nothing_of_alices_shown(response)
        assert snapshot(alices.member) == before


def test_alice_still_reaches_her_own_rows_at_the_same_urls(alice_client, alices):
    # The cases above must fail for the right reason: the same requests work for the owner.
    names = (
        "memories:act",
        "memories:detail",
        "memories:edit",
        "memories:delete",
        "memories:entity",
        "memories:observation-edit",
    )
    for name in names:
        target, _, _ = ID_URL_CASES[name]
        response = alice_client.get(reverse(name, args=[alices.pk_of(target)]))
        assert response.status_code == 200, name


# --- Every tool ------------------------------------------------------------------------------


def _is_id(name: str, schema: dict[str, Any]) -> bool:
    types = schema.get("type")
    return (name == "id" or name.endswith("_id")) and "integer" in (
        [types] if isinstance(types, str) else types or []
    )


# Which of alice's rows an id argument names.
ID_ARGUMENTS = {
    "id": "memory",
    "memory_id": "memory",
    "act_id": "act",
    "destination_act_id": "act",
    "conversation_id": "conversation",
    "previous_narrative_id": "narrative",
    "item_id": "item",
    "classification_id": "classification",
    "import_id": "conversation_import",
}
# Arguments a tool needs a real value for to answer at all: bob's own, harmless to alice.
PLAIN_ARGUMENTS = {
    ("import_conversation", "data"): {
        "format": "talkingrock.conversations",
        "version": 1,
        "conversations": [
            {"messages": [{"role": "user", "content": "Bob's bike needs a new chain.",
                           "at": "2026-02-01T09:00:00+00:00"}]}
        ],
    },
}  # fmt: skip
# Where one tool's id names another kind of row than the name says elsewhere.
TOOL_ID_ARGUMENTS = {("narrative_search", "id"): "narrative"}


def _plain_value(schema: dict[str, Any]) -> Any:
    types = schema.get("type")
    kind = types if isinstance(types, str) else (types or ["string"])[0]
    if kind == "string":
        return schema["enum"][0] if "enum" in schema else f"Bob asks about {SECRET}"
    return {"integer": schema.get("minimum", 1), "number": 1, "boolean": False}.get(kind, [])


def arguments_with_alices_ids(tool, alices: Alices) -> tuple[dict[str, Any], bool]:
    """The tool's required arguments, with alice's rows wherever an id goes."""
    args, names_a_row = {}, False
    for name, schema in tool.parameters["properties"].items():
        if _is_id(name, schema):
            target = TOOL_ID_ARGUMENTS.get((tool.name, name)) or ID_ARGUMENTS.get(name)
            assert target, f"{tool.name}: add {name!r} to ID_ARGUMENTS"
            args[name] = alices.pk_of(target)
            names_a_row = True
        elif (tool.name, name) in PLAIN_ARGUMENTS:
            args[name] = PLAIN_ARGUMENTS[tool.name, name]
        elif name in tool.parameters["required"]:
            args[name] = _plain_value(schema)
    return args, names_a_row


def ids_in(value: Any) -> set[int]:
    """The ids of the memories in an answer (a memory is a dict with an id and content)."""
    if isinstance(value, dict):
        is_memory = isinstance(value.get("id"), int) and "content" in value
        found = {value["id"]} if is_memory else set()
        return found.union(*(ids_in(v) for v in value.values()))
    if isinstance(value, list):
        return set().union(*(ids_in(v) for v in value))
    return set()


def test_bob_cannot_reach_alices_rows_through_any_tool(client, bob, alices):
    bobs_token = ApiToken.issue(owner=bob, name="bob")[1]
    alices_ids = {alices.memory.pk, alices.archived.pk, alices.act_memory.pk}
    before = snapshot(alices.member)
    id_tools = []

    for tool in REGISTRY.values():
        args, names_a_row = arguments_with_alices_ids(tool, alices)
        response = client.post(
            reverse("api-tool", args=[tool.name]),
            data=json.dumps(args),
            content_type="application/json",
            HTTP_AUTHORIZATION=f"Bearer {bobs_token}",
        )
        if names_a_row:
            id_tools.append(tool.name)
            with pytest.raises(ToolError) as refused:
                call_tool(bob, tool.name, **args)
            assert refused.value.status == 404, tool.name
            assert response.status_code == 404, tool.name
            assert set(response.json()) == {"error"}
        else:
            assert response.status_code == 200, (tool.name, response.content)
            assert not ids_in(response.json()) & alices_ids, tool.name
            assert SAID not in response.content.decode(), tool.name
        assert snapshot(alices.member) == before, tool.name

    assert {"memory_reinforce", "memory_demote", "memory_update", "confirm_memory"} <= set(id_tools)
    assert {"close_conversation", "get_memory_preview", "get_conversation_archive"} <= set(id_tools)
    assert {"narrative_update", "narrative_search"} <= set(id_tools)
    assert {"explain_classification", "get_memory_influence_chain", "learn_from_outcome"} <= set(
        id_tools
    )
    assert "store_immediate_correction" in id_tools


def test_bob_can_neither_link_nor_find_alices_narratives(bob, alices):
    with pytest.raises(ToolError) as refused:
        call_tool(
            bob,
            "narrative_update",
            summary="Bob links what is not his.",
            memory_ids=[alices.memory.pk],
            previous_narrative_id=None,
            topic="",
        )
    assert refused.value.status == 404
    for args in ({}, {"query": "Zanzibar courtyard"}, {"query": "flat"}):
        assert call_tool(bob, "narrative_search", **args)["narratives"] == [], args
    assert not Narrative.objects.filter(owner=bob).exists()


def test_bob_never_gets_alices_observations_or_dreams(bob, alices):
    for query in (OBSERVED, OBSERVED_BEFORE, "Zanzibar safe code", DREAMT):
        assert call_tool(bob, "get_observations", query=query, limit=50) == {"observations": []}
    with pytest.raises(ToolError) as refused:
        call_tool(bob, "get_observations", entity="Zanzibar")
    assert refused.value.status == 404
    assert call_tool(bob, "get_dreams", include_dismissed=True, limit=50) == {"dreams": []}
    # The same calls find hers for her: the answers above are empty for the right reason.
    found = call_tool(alices.member, "get_observations", entity="Zanzibar", query=OBSERVED)
    assert [row["text"] for row in found["observations"]] == [OBSERVED]
    assert call_tool(alices.member, "get_dreams")["dreams"][0]["text"] == DREAMT


def test_bobs_keyword_query_never_finds_alices_memories(bob, alices):
    for include_archived in (False, True):
        query = f"{SECRET} {ARCHIVED_SECRET} {ACT_MEMORY}"
        answer = call_tool(
            bob, "memory_query", query=query, include_archived=include_archived, limit=50
        )
        assert answer["results"] == []
        assert call_tool(alices.member, "memory_query", query=query, limit=50)["results"]


# --- Pages that list, search and export ------------------------------------------------------


def test_bobs_lists_searches_and_exports_never_show_alices_rows(bob_client, bob, alices):
    bobs = services.memory_store(owner=bob, content="Bob's own note about the holiday safe")
    # Keywords from each of alice's rows (the page echoes the query, so not her sentences).
    words = "zanzibar safe 7391 quixotic locker balloons loft surprise party"
    pages = [
        (reverse("home"), {}, {}),
        (reverse("conversations:archive"), {}, {}),
        (reverse("conversations:acts"), {}, {}),
        (reverse("memories:act", args=[ensure_your_story(owner=bob).pk]), {}, {}),
        (reverse("memories:search"), {"q": words}, {}),
        (reverse("memories:search"), {"q": words, "archived": "on"}, {}),
        (reverse("memories:search"), {"q": words, "archived": "on"}, HTMX),
        (reverse("memories:search"), {"q": words, "mode": "meaning"}, {}),
        (reverse("memories:search"), {"q": words, "mode": "meaning", "archived": "on"}, HTMX),
        (reverse("memories:entities"), {}, {}),
        (reverse("narratives:index"), {}, {}),
        (reverse("narratives:index"), {"q": "zanzibar courtyard flat"}, {}),
        (reverse("memories:detail", args=[bobs.pk]), {}, {}),
        (reverse("memories:archive"), {}, {}),
        (reverse("memories:archive"), {}, HTMX),
        (reverse("settings"), {}, {}),
        (reverse("memories:observations"), {}, {}),
        (reverse("memories:observations"), {"entity": alices.entity.pk}, {}),
        (reverse("memories:observations"), {"kind": "state"}, {}),
        (reverse("memories:dreams"), {}, {}),
        (reverse("export", args=["json"]), {}, {}),
        (reverse("export", args=["markdown"]), {}, {}),
        (reverse("api-tools"), {}, {}),
    ]

    for url, params, headers in pages:
        response = bob_client.get(url, params, follow=True, **headers)

        assert response.status_code == (400 if "entity" in params else 200), url
        assert_nothing_of_alices_shown(response)
        assert alices.token.hint not in response.content.decode(), url

    indexing.index_memories(owner_id=bob.pk)
    for mode in ("keywords", "meaning"):
        search = bob_client.get(reverse("memories:search"), {"q": "holiday safe", "mode": mode})
        assert bobs.get_absolute_url() in search.content.decode(), mode  # bob finds his own
    exported = json.loads(bob_client.get(reverse("export", args=["json"])).content)
    assert [m["content"] for m in exported["memories"]] == [bobs.content]
    assert [a["title"] for a in exported["acts"]] == ["Your Story"]


# --- Forms that take an act -----------------------------------------------------------------


def test_bob_cannot_store_a_memory_in_alices_act(bob_client, bob, alices):
    before = snapshot(alices.member)

    response = bob_client.post(
        reverse("memories:create"), {"content": "Bob sneaks in", "act": alices.act.pk}
    )

    assert response.status_code == 400
    assert "act" in response.context["form"].errors
    assert not Memory.objects.filter(content="Bob sneaks in").exists()
    assert snapshot(alices.member) == before
    assert_nothing_of_alices_shown(response)


def test_bob_cannot_move_his_memory_into_alices_act(bob_client, bob, alices):
    bobs = services.memory_store(owner=bob, content="Bob's grocery list")
    before = snapshot(alices.member)

    response = bob_client.post(
        reverse("memories:edit", args=[bobs.pk]),
        {"content": "Bob's grocery list", "act": alices.act.pk},
    )

    assert response.status_code == 400
    assert "act" in response.context["form"].errors
    bobs.refresh_from_db()
    assert bobs.act == ensure_your_story(owner=bob)
    assert snapshot(alices.member) == before
