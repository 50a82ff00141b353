"""MCP over stdio (`manage.py mcp --user NAME`), driven by the SDK's own client: every registry
tool listed with its schema, calls answered as the HTTP tool API answers them, refusals as tool
errors with the API's messages, hostile input survived, nothing but protocol on stdout."""

from __future__ import annotations

import json
import re
import selectors
import subprocess
import sys
import time

import pytest
from mcp import StdioServerParameters

from talkingrock.tools import REGISTRY, ToolError, call_tool
from tests.support import processes
from tests.support.mcp_client import (
    connected,
    stdio_parameters,
    stdio_session,
    store_foreign_memory,
)
from tests.support.processes import ROOT, shell

MEMBER = "writer0"


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    return processes.file_env(tmp_path_factory.mktemp("mcp-stdio"))


@pytest.fixture(scope="module")
def foreign_memory(env) -> int:
    """The id of a memory of another member (writer1)."""
    return store_foreign_memory(env)


@pytest.fixture(scope="module")
def client(env, tmp_path_factory):
    errlog = tmp_path_factory.mktemp("mcp-stdio-log") / "stderr.txt"
    with connected(stdio_session(stdio_parameters(env, MEMBER), errlog)) as client:
        yield client


def test_every_registry_tool_is_listed_with_its_schema(client):
    tools = client.tools()

    assert set(tools) == set(REGISTRY)
    for name, tool in REGISTRY.items():
        assert tools[name].description == tool.description
        assert tools[name].input_schema == tool.parameters


def test_a_stored_memory_is_found_again(client):
    stored = client.call("memory_store", {"content": "The boiler was serviced in March"})

    assert not stored.is_error
    memory = json.loads(stored.content[0].text)
    assert stored.structured_content == memory
    assert memory["content"] == "The boiler was serviced in March"
    found = client.answer("search_memories", {"query": "when was the boiler serviced"})
    assert memory["id"] in [hit["id"] for hit in found["results"]]


def test_another_members_memory_is_not_found(client, foreign_memory):
    result = client.call("memory_reinforce", {"id": foreign_memory})

    assert result.is_error
    # The HTTP tool API's {"error": ...} for the same call (tests/test_tool_api.py).
    assert result.content[0].text == f"Memory {foreign_memory} not found."
    assert result.structured_content is None


def refusal(name: str, arguments: dict) -> str:
    """What the registry refuses these arguments with: the HTTP tool API's {"error": ...}."""
    with pytest.raises(ToolError) as refused:
        call_tool(None, name, **arguments)  # refused before any member is needed
    return refused.value.message


@pytest.mark.parametrize(
    ("name", "arguments"),
    [
        ("nope", {}),
        ("memory_store", {}),
        ("memory_store", {"content": "x", "owner": 2}),
        ("memory_reinforce", {"id": "seven"}),
        ("memory_reinforce", {"id": 2**80}),
        ("memory_reinforce", {"id": 1.5}),
        ("memory_reinforce", {"id": True}),
        ("memory_store", {"content": ["a list"]}),
        ("memory_store", {"content": "x" * 10_001}),
    ],
)
def test_bad_arguments_are_refused_as_the_http_api_refuses_them(client, name, arguments):
    result = client.call(name, arguments)

    assert result.is_error
    assert result.content[0].text == refusal(name, arguments)


def test_an_unknown_tool_is_named_in_its_refusal(client):
    result = client.call("nope", {})

    assert result.is_error
    assert result.content[0].text == "No tool named 'nope'."


def test_control_characters_are_cleaned_from_what_is_stored(client):
    stored = client.answer("memory_store", {"content": "Keys\x00 under the\x1b[31m mat\u202e"})

    assert stored["content"] == "Keys under the[31m mat\u202e"  # right-to-left text is text


# --- the process itself ------------------------------------------------------------------------


def _start(env, user: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "manage.py", "mcp", "--user", user],
        cwd=ROOT,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )


def _read_until_answered(process: subprocess.Popen, request_id: int, seconds: float = 60):
    """Every line the server writes until the answer to ``request_id``; each must be JSON."""
    messages = []
    deadline = time.monotonic() + seconds
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ)
        while time.monotonic() < deadline:
            if not selector.select(timeout=deadline - time.monotonic()):
                break
            line = process.stdout.readline()
            if not line:
                break
            messages.append(json.loads(line))  # nothing but protocol on stdout
            if messages[-1].get("id") == request_id:
                return messages
    pytest.fail(f"no answer to request {request_id}; the server said {messages}")


def test_hostile_lines_on_stdin_leave_the_server_answering(env):
    process = _start(env, MEMBER)

    def send(message) -> None:
        line = message if isinstance(message, bytes) else json.dumps(message).encode()
        process.stdin.write(line + b"\n")
        process.stdin.flush()

    def call(request_id: int, arguments) -> dict:
        params = {"name": "memory_reinforce", "arguments": arguments}
        return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}

    try:
        send(
            {
                "jsonrpc": "2.0",
                "id": 0,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-11-25",
                    "capabilities": {},
                    "clientInfo": {"name": "test", "version": "0"},
                },
            }
        )
        _read_until_answered(process, 0)
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        send(b"{this is not json")
        send(b"\xff\xfe not utf-8")
        send(b"[" * 100_000 + b"]" * 100_000)
        send(call(1, ["not", "an", "object"]))
        send(call(2, "a string"))
        huge = b'{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": '
        huge += b'"memory_reinforce", "arguments": {"id": %s}}}'
        send(huge % (b"9" * 400))
        send(huge.replace(b'"id": 3', b'"id": 33') % (b"9" * 5000))  # beyond what the SDK parses
        send(call(4, {"id": 1, "\x00\u202e": "x"}))
        send(
            b'{"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": '
            b'"memory_update", "arguments": {"id": 987654, "content": "lone \\ud800"}}}'
        )
        send(call(6, {"id": 987654}))

        answers = {m.get("id"): m for m in _read_until_answered(process, 6) if "id" in m}
    finally:
        process.stdin.close()
        process.wait(timeout=30)

    assert answers[1]["error"]["code"] == -32602  # invalid params: arguments must be an object
    assert answers[2]["error"]["code"] == -32602
    assert answers[3]["result"]["isError"] is True
    assert answers[3]["result"]["content"][0]["text"] == "'id' must be at most 9223372036854775807."
    assert 33 not in answers  # a line the SDK cannot read is dropped, unanswered
    assert answers[4]["result"]["isError"] is True
    assert re.fullmatch(
        r"Unknown argument\(s\) for memory_reinforce: .*\.",
        answers[4]["result"]["content"][0]["text"],
    )
    assert 5 not in answers  # a lone surrogate too: the SDK's JSON parser refuses the line
    assert answers[6]["result"]["content"][0]["text"] == "Memory 987654 not found."
    assert process.returncode == 0


def test_an_unknown_member_is_refused(env):
    result = subprocess.run(
        [sys.executable, "manage.py", "mcp", "--user", "nobody"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
    )

    assert result.returncode == 1
    assert "No member named 'nobody'." in result.stderr
    assert result.stdout == ""


def test_an_inactive_member_is_refused(env):
    shell(
        env,
        "from django.contrib.auth import get_user_model\n"
        "get_user_model().objects.filter(username='writer3').update(is_active=False)",
    )

    result = subprocess.run(
        [sys.executable, "manage.py", "mcp", "--user", "writer3"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
    )

    assert result.returncode == 1
    assert "writer3 is not an active member" in result.stderr
    assert result.stdout == ""


def documented_stdio_config() -> dict:
    """The first JSON block of docs/usage.md's "Connect an MCP client"."""
    usage = (ROOT / "docs" / "usage.md").read_text()
    section = usage.split("## Connect an MCP client", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```json\n(.*?)```", section, re.DOTALL).group(1)
    return json.loads(block)["mcpServers"]["talkingrock"]


def test_the_stdio_config_in_the_docs_starts_a_working_server(env, tmp_path):
    config = documented_stdio_config()
    # The placeholders a reader replaces: the checkout's path and the member's name.
    command = config["command"].replace("/home/you/talkingrock", str(ROOT))
    args = [arg.replace("/home/you/talkingrock", str(ROOT)) for arg in config["args"]]
    assert command == str(ROOT / ".venv" / "bin" / "python")
    assert args == [str(ROOT / "manage.py"), "mcp", "--user", "alice"]
    parameters = StdioServerParameters(
        command=command,
        args=[*args[:-1], MEMBER],
        # This test's database; a household with the default var/ needs no env at all.
        env={**config.get("env", {}), "TALKINGROCK_DATA_DIR": env["TALKINGROCK_DATA_DIR"]},
    )

    with connected(stdio_session(parameters, tmp_path / "stderr.txt")) as documented:
        assert set(documented.tools()) == set(REGISTRY)
        assert documented.answer("list_acts", {})["acts"][0]["is_your_story"] is True
