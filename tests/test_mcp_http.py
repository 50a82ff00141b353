"""MCP over streamable HTTP at /mcp, on the server `make run` serves (gunicorn with
household/asgi.py), driven by the SDK's own client: the HTTP tool API's bearer tokens and
lockout of a bad token (never of a valid one), the same answers; and every registry tool
answering alike on all three transports."""

from __future__ import annotations

import httpx
import pytest

from talkingrock.tools import REGISTRY
from tests.support import processes
from tests.support.mcp_client import (
    connected,
    http_session,
    stdio_parameters,
    stdio_session,
    store_foreign_memory,
)
from tests.support.processes import manage, shell
from tests.support.server import served

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "0"},
    },
}
ACCEPT = {"Accept": "application/json, text/event-stream"}


def token_of(env, username: str) -> str:
    return shell(
        env,
        "from django.contrib.auth import get_user_model\n"
        "from talkingrock.models import ApiToken\n"
        f"u = get_user_model().objects.get(username={username!r})\n"
        "print(ApiToken.issue(owner=u, name='mcp test')[1])",
    )


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    return processes.file_env(tmp_path_factory.mktemp("mcp-http"))


@pytest.fixture(scope="module")
def foreign_memory(env) -> int:
    """The id of a memory of writer1: not writer0's, nor writer2's."""
    return store_foreign_memory(env)


@pytest.fixture(scope="module")
def url(env, tmp_path_factory):
    with served(env, tmp_path_factory.mktemp("mcp-http-log") / "gunicorn.log") as url:
        yield url


@pytest.fixture(scope="module")
def token(env) -> str:
    return token_of(env, "writer0")


@pytest.fixture(scope="module")
def client(url, token):
    with connected(http_session(url, token)) as client:
        yield client


def api_answer(url: str, token: str, name: str, arguments: dict) -> dict:
    """The HTTP tool API's answer: the JSON, or {"error": message}."""
    response = httpx.post(
        f"{url}/api/tools/{name}",
        json=arguments,
        headers={"Authorization": f"Bearer {token}"},
        timeout=60,
    )
    assert response.headers["Content-Type"] == "application/json"
    return response.json()


# --- authentication ----------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/mcp", "/mcp/"])
def test_without_a_token_the_endpoint_answers_401(url, path):
    response = httpx.post(f"{url}{path}", json=INITIALIZE, headers=ACCEPT, timeout=60)

    assert response.status_code == 401
    assert response.headers["WWW-Authenticate"] == 'Bearer realm="talkingrock"'
    assert response.json() == {"error": "Send your token as 'Authorization: Bearer <token>'."}


def test_a_bad_token_answers_401_as_at_the_tool_api(url):
    bad = {"Authorization": "Bearer tr_not_a_token", **ACCEPT}

    response = httpx.post(f"{url}/mcp", json=INITIALIZE, headers=bad, timeout=60)

    assert response.status_code == 401
    assert response.headers["WWW-Authenticate"] == 'Bearer realm="talkingrock"'
    assert response.json() == api_answer(url, "tr_not_a_token", "list_acts", {})


@pytest.mark.parametrize("method", ["GET", "DELETE", "PUT"])
def test_only_post_is_served(url, token, method):
    headers = {"Authorization": f"Bearer {token}", **ACCEPT}

    response = httpx.request(method, f"{url}/mcp", headers=headers, timeout=60)

    assert response.status_code == 405
    assert response.headers["Allow"] == "POST"
    assert "POST" in response.json()["error"]


def test_a_request_naming_another_host_is_refused(url, token):
    # DNS rebinding: a page on evil.example resolving to 127.0.0.1 sends its own name as Host.
    headers = {"Authorization": f"Bearer {token}", "Host": "evil.example", **ACCEPT}

    response = httpx.post(f"{url}/mcp", json=INITIALIZE, headers=headers, timeout=60)

    assert response.status_code == 421


def test_a_host_name_in_capitals_is_the_same_host(url, token):
    # Host names are case-insensitive, and the pages take "LOCALHOST" too.
    port = url.rsplit(":", 1)[1]
    headers = {"Authorization": f"Bearer {token}", "Host": f"LOCALHOST:{port}", **ACCEPT}

    response = httpx.post(f"{url}/mcp", json=INITIALIZE, headers=headers, timeout=60)

    assert response.status_code == 200, response.text


def tools_call(arguments: bytes) -> bytes:
    return (
        b'{"jsonrpc": "2.0", "id": 7, "method": "tools/call", '
        b'"params": {"name": "memory_reinforce", "arguments": ' + arguments + b"}}"
    )


@pytest.mark.parametrize(
    ("body", "status"),
    [
        (b"{this is not json", 400),
        (b"[" * 100_000 + b"]" * 100_000, 400),
        (tools_call(b'["not", "an", "object"]'), 200),  # a JSON-RPC error: invalid params
        (tools_call(b'"a string"'), 200),
        (tools_call(b'{"id": "\\ud800"}'), 400),  # a lone surrogate: the SDK's parser refuses it
        (tools_call(b'{"id": ' + b"9" * 400 + b"}"), 200),  # a tool error: at most 2^63 - 1
        (b'{"jsonrpc": "2.0", "id": 1, "method": "ping", "pad": "' + b"x" * 3_000_000 + b'"}', 413),
    ],
)
def test_hostile_bodies_are_answered_not_crashed_on(url, token, body, status):
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json", **ACCEPT}

    response = httpx.post(f"{url}/mcp", content=body, headers=headers, timeout=60)

    assert response.status_code == status
    if status == 200:
        answer = response.json()
        assert answer["id"] == 7
        assert "error" in answer or answer["result"]["isError"] is True


# --- the SDK's client --------------------------------------------------------------------------


def test_every_registry_tool_is_listed_with_its_schema(client):
    tools = client.tools()

    assert set(tools) == set(REGISTRY)
    for name, tool in REGISTRY.items():
        assert tools[name].input_schema == tool.parameters


def test_a_stored_memory_is_found_again(client):
    stored = client.answer("memory_store", {"content": "The gutters were cleared in October"})

    found = client.answer("search_memories", {"query": "when were the gutters cleared"})

    assert stored["id"] in [hit["id"] for hit in found["results"]]


def test_another_members_memory_is_refused_as_the_tool_api_refuses_it(
    client, url, token, foreign_memory
):
    result = client.call("memory_demote", {"id": foreign_memory})

    assert result.is_error
    assert result.content[0].text == f"Memory {foreign_memory} not found."
    assert {"error": result.content[0].text} == api_answer(
        url, token, "memory_demote", {"id": foreign_memory}
    )


# --- one registry, three transports ------------------------------------------------------------


def deterministic_call(name: str, foreign_id: int) -> dict:
    """Arguments for ``name`` that answer the same however often they are sent: every id is
    another member's (not found), every text empty and every object too (refused before
    anything is written) — or a read of a member who has nothing yet."""
    reads = {"memory_query", "search_memories", "get_reasoning_context"}
    if name in reads:
        return {"query": "when was the boiler serviced"}
    parameters = REGISTRY[name].parameters
    arguments = {}
    for argument in parameters["required"]:
        schema = parameters["properties"][argument]
        kind = schema["type"][0] if isinstance(schema["type"], list) else schema["type"]
        if "enum" in schema:
            arguments[argument] = schema["enum"][0]
        else:
            arguments[argument] = {
                "integer": foreign_id,
                "string": "",
                "array": [foreign_id],
                "object": {},
            }[kind]
    return arguments


def test_every_tool_answers_alike_over_the_api_mcp_stdio_and_mcp_http(
    env, url, foreign_memory, tmp_path
):
    # writer2 has nothing yet: reads answer the same each time, and no call below writes.
    token = token_of(env, "writer2")
    stdio_log = tmp_path / "stdio.txt"
    with (
        connected(stdio_session(stdio_parameters(env, "writer2"), stdio_log)) as stdio,
        connected(http_session(url, token)) as http,
    ):
        assert set(stdio.tools()) == set(http.tools()) == set(REGISTRY)
        for name in REGISTRY:
            arguments = deterministic_call(name, foreign_memory)

            api = api_answer(url, token, name, arguments)

            assert api != {"error": f"No tool named '{name}'."}
            assert stdio.answer(name, arguments) == api, name
            assert http.answer(name, arguments) == api, name


# --- a bad token is stopped; a valid one never is -----------------------------------------------


def test_a_bad_token_is_stopped_at_both_endpoints_and_a_valid_one_still_works(env, url, token):
    """The attack: three bad bearer tokens from one address made /api and /mcp answer 429 to
    every member's valid token from that address for 15 minutes."""
    guess = {"Authorization": "Bearer tr_revoked_long_ago", **ACCEPT}
    try:
        statuses = [
            httpx.post(f"{url}/mcp", json=INITIALIZE, headers=guess, timeout=60).status_code
            for _ in range(6)
        ]
        at_the_api = api_answer(url, "tr_revoked_long_ago", "list_acts", {})
        with_the_right_token = httpx.post(
            f"{url}/mcp",
            json=INITIALIZE,
            headers={"Authorization": f"Bearer {token}", **ACCEPT},
            timeout=60,
        )
        right_at_the_api = api_answer(url, token, "list_acts", {})
    finally:
        manage(env, "axes_reset")

    assert 401 in statuses and statuses[-1] == 429
    assert "Too many invalid tokens from this address" in at_the_api["error"]
    assert with_the_right_token.status_code == 200
    assert "acts" in right_at_the_api
