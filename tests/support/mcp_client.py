"""The MCP SDK's own clients, driven synchronously from tests: the session lives in an anyio
portal's event loop (a thread of its own) for as long as the test module needs it."""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import mcp_types as types
from anyio.from_thread import BlockingPortal, start_blocking_portal
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from tests.support.processes import ROOT, shell

PYTHON = str(Path(sys.executable).absolute())


def stdio_parameters(env: dict[str, str], user: str) -> StdioServerParameters:
    """`manage.py mcp --user NAME` as docs/usage.md tells a desktop client to start it."""
    return StdioServerParameters(
        command=PYTHON,
        args=[str(ROOT / "manage.py"), "mcp", "--user", user],
        env={key: env[key] for key in ("DJANGO_SETTINGS_MODULE", "TALKINGROCK_DATA_DIR")},
    )


@asynccontextmanager
async def stdio_session(
    parameters: StdioServerParameters, errlog: Path
) -> AsyncIterator[ClientSession]:
    with errlog.open("w") as err:  # the server's stderr: a real file, as a client gives it
        async with (
            stdio_client(parameters, errlog=err) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            yield session


@asynccontextmanager
async def http_session(url: str, token: str | None) -> AsyncIterator[ClientSession]:
    headers = {"Authorization": f"Bearer {token}"} if token else None
    async with (
        create_mcp_http_client(headers=headers) as http,
        streamable_http_client(f"{url}/mcp", http_client=http) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        yield session


class Client:
    """Calls on a connected session, one at a time, from synchronous code."""

    def __init__(self, portal: BlockingPortal, session: ClientSession):
        self.portal = portal
        self.session = session

    def tools(self) -> dict[str, types.Tool]:
        return {tool.name: tool for tool in self.portal.call(self.session.list_tools).tools}

    def call(self, name: str, arguments: dict[str, Any] | None = None) -> types.CallToolResult:
        return self.portal.call(self.session.call_tool, name, arguments)

    def answer(self, name: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
        """A call's answer as the HTTP tool API gives it: the JSON, or {"error": message}."""
        return as_answer(self.call(name, arguments))


def as_answer(result: types.CallToolResult) -> dict[str, Any]:
    (content,) = result.content
    if result.is_error:
        return {"error": content.text}
    assert result.structured_content == json.loads(content.text)
    return json.loads(content.text)


@contextmanager
def connected(session) -> Iterator[Client]:
    """``session``: an async context manager yielding an initialized ClientSession."""
    with (
        start_blocking_portal() as portal,
        portal.wrap_async_context_manager(session) as client_session,
    ):
        yield Client(portal, client_session)


def store_foreign_memory(env) -> int:
    """A memory of writer1's in the ``env`` household: the id another member must be refused."""
    return int(
        shell(
            env,
            "from django.contrib.auth import get_user_model\n"
            "from memories.services import memory_store\n"
            "u = get_user_model().objects.get(username='writer1')\n"
            "print(memory_store(owner=u, content='Our safe code is in the blue folder').pk)",
        )
    )


def shared_memories(env, shares: list[tuple[str, str, str, str]]) -> list[dict[str, int]]:
    """For each (sharer, member, words, title): a shared act of the two in the ``env`` household,
    and a memory of the sharer's in those words, with an open waiting-on, shared into it; beside
    it a memory the sharer keeps to themselves. Each share's ids: the sharer's ``original``, its
    ``item``, their ``place`` and ``private`` memory; the member's ``copy``, ``copy_item`` and
    ``copy_place``. The copies are indexed before this returns (no worker: on commit)."""
    return json.loads(
        shell(
            env,
            "import json\n"
            "from django.contrib.auth import get_user_model\n"
            "from memories import sharing\n"
            "from memories.models import Memory, MemoryItem\n"
            "from memories.services import memory_store\n"
            "members = get_user_model().objects\n"
            "found = []\n"
            f"for sharer, member, words, title in {json.dumps(shares)}:\n"
            "    sharer, member = members.get(username=sharer), members.get(username=member)\n"
            "    place = sharing.create_shared_act(creator=sharer, title=title,"
            " member_ids=[member.pk])\n"
            "    original = memory_store(owner=sharer, content=words)\n"
            "    item = MemoryItem.objects.create(memory=original, type='waiting_on',"
            " data={'who': 'Dave', 'what': 'final quote'})\n"
            "    sharing.share_memory(memory=original, place=place)\n"
            "    copy = Memory.objects.get(owner=member, share=original.share)\n"
            "    private = memory_store(owner=sharer, content='Our safe code is in the blue folder')\n"
            "    found.append({'original': original.pk, 'item': item.pk, 'place': place.pk,"
            " 'private': private.pk, 'copy': copy.pk, 'copy_item': copy.items.get().pk,"
            " 'copy_place': copy.act_id})\n"
            "print(json.dumps(found))",
        )
    )
