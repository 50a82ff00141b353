"""The tool registry: one definition per tool, one entry point (``call_tool``) for every
transport, one error type carrying the HTTP status."""

from __future__ import annotations

import pytest

from memories import services
from memories.models import Memory
from talkingrock.tools import REGISTRY, ToolError, call_tool

MEMORY_TOOLS = {
    "memory_store",
    "memory_query",
    "memory_reinforce",
    "memory_demote",
    "memory_update",
}
OWN = object()  # stands for the id of a memory the caller owns
ID_TOOLS = {"memory_reinforce": {}, "memory_demote": {}, "memory_update": {"content": "Changed"}}


def refusal(user, name: str, /, **args) -> ToolError:
    with pytest.raises(ToolError) as caught:
        call_tool(user, name, **args)
    return caught.value


# --- Each tool, called well ------------------------------------------------------------------


def test_the_registry_holds_the_five_memory_tools_as_closed_object_schemas():
    assert MEMORY_TOOLS <= set(REGISTRY)
    for tool in REGISTRY.values():
        schema = tool.as_schema()
        assert schema["name"] == tool.name and schema["description"]
        parameters = schema["parameters"]
        assert parameters["type"] == "object"
        assert parameters["additionalProperties"] is False
        assert set(parameters["required"]) <= set(parameters["properties"])


def test_memory_store_answers_the_new_memory_with_its_id(alice):
    answer = call_tool(
        alice, "memory_store", content="  Oat milk, not soy  ", tags=["diet", "milk"]
    )

    memory = Memory.objects.get(pk=answer["id"])
    assert memory.owner == alice
    assert answer["content"] == memory.content == "Oat milk, not soy"
    assert answer["tags"] == memory.tags == "diet, milk"
    assert answer["source"] == memory.source == Memory.Source.AGENT
    assert answer["ref"] == f"[id:{memory.pk}]"
    assert answer["score"] == 0


def test_memory_store_takes_a_source_from_the_list(alice):
    answer = call_tool(alice, "memory_store", content="From the old notes", source="migration")

    assert Memory.objects.get(pk=answer["id"]).source == Memory.Source.MIGRATION


def test_memory_query_answers_ranked_results_with_their_factors(alice, remember):
    boiler = remember("The boiler service is due in October", tags="home")
    remember("The cat sees the vet in May")

    answer = call_tool(alice, "memory_query", query="boiler service")

    assert "message" not in answer
    [result] = answer["results"]
    assert result["id"] == boiler.pk
    assert result["content"] == boiler.content
    assert result["ref"] == f"[id:{boiler.pk}]"
    assert result["rank"] > 0
    assert set(result["factors"]) >= {"bm25", "score_weight", "recency", "days"}


def test_memory_query_respects_the_limit_and_leaves_archived_memories_out(alice, remember):
    for n in range(4):
        remember(f"Garden note {n}")
    archived = remember("Garden shed key, old")
    services.memory_archive(owner=alice, memory_id=archived.pk)

    limited = call_tool(alice, "memory_query", query="garden", limit=2)
    live = call_tool(alice, "memory_query", query="garden", limit=10)
    everything = call_tool(alice, "memory_query", query="garden", limit=10, include_archived=True)

    assert len(limited["results"]) == 2
    assert archived.pk not in {r["id"] for r in live["results"]}
    assert archived.pk in {r["id"] for r in everything["results"]}


@pytest.mark.parametrize("query", ["", "a ? !", "NEAR(", 'content:"x'])
def test_memory_query_with_nothing_it_can_find_answers_an_empty_list_and_a_message(alice, query):
    answer = call_tool(alice, "memory_query", query=query)

    assert answer["results"] == []
    assert answer["message"]


def test_memory_reinforce_answers_the_updated_memory(alice, remember):
    memory = remember("Mum's birthday is 3 March")

    answer = call_tool(alice, "memory_reinforce", id=memory.pk)

    assert (answer["id"], answer["content"], answer["score"]) == (memory.pk, memory.content, 3)
    assert answer["last_hit_at"] is not None
    memory.refresh_from_db()
    assert memory.score == 3


def test_memory_demote_answers_the_updated_memory(alice, remember):
    memory = remember("Likes jazz")

    answer = call_tool(alice, "memory_demote", id=memory.pk)

    assert (answer["id"], answer["content"], answer["score"]) == (memory.pk, "Likes jazz", -1)
    memory.refresh_from_db()
    assert memory.score == -1


def test_memory_update_corrects_in_place_keeping_score_and_first_wording(alice, remember):
    memory = remember("The plumber is Jon", tags="home")
    call_tool(alice, "memory_reinforce", id=memory.pk)

    answer = call_tool(alice, "memory_update", id=memory.pk, content="The plumber is Joan")

    assert (answer["id"], answer["content"], answer["score"]) == (
        memory.pk,
        "The plumber is Joan",
        3,
    )
    assert answer["original_content"] == "The plumber is Jon"
    assert answer["tags"] == "home"  # tags left out are kept
    retagged = call_tool(alice, "memory_update", id=memory.pk, content="x", tags="trades")
    assert retagged["tags"] == "trades"


# --- Refusals: a ToolError with a status and a message ---------------------------------------


@pytest.mark.parametrize(
    ("name", "args", "message"),
    [
        ("memory_store", {"content": "x", "colour": "red"}, "Unknown argument(s) for memory_store"),
        ("memory_store", {}, "Missing argument(s) for memory_store: content"),
        ("memory_store", {"content": 5}, "'content' must be of type string"),
        ("memory_store", {"content": None}, "'content' must be of type string"),
        ("memory_store", {"content": "x" * 10_001}, "'content' is longer than 10000"),
        ("memory_store", {"content": "x", "source": "gossip"}, "'source' must be one of"),
        ("memory_store", {"content": "x", "tags": 5}, "'tags' must be of type string or array"),
        ("memory_store", {"content": "x", "tags": ["ok", 1]}, "'tags[1]' must be of type string"),
        ("memory_store", {"content": "   "}, "content is empty"),
        ("memory_store", {"content": "\x00\x01\ud800"}, "content is empty"),
        (
            "memory_store",
            {"content": "x", "tags": [f"tag {n}" for n in range(100)]},
            "tags are too long",
        ),
        ("memory_query", {"query": "x", "limit": 0}, "'limit' must be at least 1"),
        ("memory_query", {"query": "x", "limit": 51}, "'limit' must be at most 50"),
        ("memory_query", {"query": "x", "limit": 10**30}, "'limit' must be at most 50"),
        ("memory_query", {"query": "x", "limit": "5"}, "'limit' must be of type integer"),
        ("memory_query", {"query": "x", "limit": 2.5}, "'limit' must be of type integer"),
        ("memory_query", {"query": "x", "limit": True}, "'limit' must be of type integer"),
        ("memory_query", {"query": "x", "include_archived": "yes"}, "must be of type boolean"),
        ("memory_query", {"query": "x" * 10_001}, "'query' is longer than 10000"),
        ("memory_query", {"query": ["boiler"]}, "'query' must be of type string"),
        ("memory_reinforce", {"id": True}, "'id' must be of type integer"),
        ("memory_reinforce", {"id": "7"}, "'id' must be of type integer"),
        ("memory_reinforce", {"id": 0}, "'id' must be at least 1"),
        ("memory_demote", {}, "Missing argument(s) for memory_demote: id"),
        ("memory_update", {"id": OWN}, "Missing argument(s) for memory_update: content"),
        ("memory_update", {"id": OWN, "content": ""}, "content is empty"),
    ],
)
def test_bad_arguments_are_refused_with_400_and_a_message(alice, remember, name, args, message):
    existing = remember("Already here")
    args = {key: existing.pk if value is OWN else value for key, value in args.items()}

    error = refusal(alice, name, **args)

    assert error.status == 400
    assert message in error.message
    existing.refresh_from_db()
    assert (existing.content, existing.score) == ("Already here", 0)
    assert Memory.objects.count() == 1


def test_an_unknown_tool_is_not_found(alice):
    error = refusal(alice, "memory_forget", id=1)

    assert (error.status, error.message) == (404, "No tool named 'memory_forget'.")


@pytest.mark.parametrize("name", sorted(ID_TOOLS))
def test_a_missing_id_is_not_found(alice, name):
    error = refusal(alice, name, id=424242, **ID_TOOLS[name])

    assert (error.status, error.message) == (404, "Memory 424242 not found.")


@pytest.mark.parametrize("name", sorted(ID_TOOLS))
def test_another_members_id_is_not_found_exactly_like_a_missing_one(alice, bob, remember, name):
    alices = remember("Alice's private note")
    missing = alices.pk + 1000

    theirs = refusal(bob, name, id=alices.pk, **ID_TOOLS[name])
    absent = refusal(bob, name, id=missing, **ID_TOOLS[name])

    assert theirs.status == absent.status == 404
    assert theirs.message.replace(str(alices.pk), "N") == absent.message.replace(str(missing), "N")
    alices.refresh_from_db()
    assert (alices.content, alices.score, alices.last_hit_at) == ("Alice's private note", 0, None)


def test_memory_query_never_finds_another_members_memories(alice, bob, remember):
    remember("The spare key is under the flowerpot")

    answer = call_tool(bob, "memory_query", query="spare key flowerpot")

    assert answer["results"] == []


@pytest.mark.parametrize("extra", [{"name": "x"}, {"user": "bob"}, {"name": "x", "user": 1}])
def test_a_name_or_user_argument_is_refused_not_a_crash(alice, extra):
    error = refusal(alice, "memory_store", content="hello", **extra)

    assert error.status == 400
    assert error.message == (f"Unknown argument(s) for memory_store: {', '.join(sorted(extra))}.")
    assert not Memory.objects.exists()
