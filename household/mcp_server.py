"""MCP transport for the tool registry, on the official SDK's low-level server.

Every tool in ``talkingrock.tools.REGISTRY`` is listed with its description and its JSON Schema
as ``inputSchema``, and called through ``call_tool`` for one member, as the HTTP tool API
(household/api.py) calls it: the same validation, the same refusals, the same messages. A
refusal is a tool result with ``isError`` whose text is the HTTP API's ``{"error": ...}``. Two
ways in:

- stdio (``serve_stdio``), for a desktop client that starts ``manage.py mcp --user NAME``: the
  member is named when the server starts;
- streamable HTTP at ``/mcp`` beside the web app (``HttpEndpoint``, mounted by
  household/asgi.py): each request carries the member's bearer token, checked by the HTTP
  API's own ``api.authenticate`` (the same tokens, the same lockout for guessing).

The ORM is synchronous: every database touch runs in asgiref's thread-sensitive worker thread,
the one Django's ASGI handler runs its synchronous views in, with stale connections closed
before and after as Django does around a request.
"""

from __future__ import annotations

import io
import json
import logging
from importlib.metadata import PackageNotFoundError, version
from typing import Any

import mcp_types as types
from asgiref.sync import sync_to_async
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.handlers.asgi import ASGIRequest
from django.core.serializers.json import DjangoJSONEncoder
from django.db import close_old_connections
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.responses import JSONResponse
from starlette.types import Receive, Scope, Send

from household import api
from talkingrock.tools import REGISTRY, ToolError, call_tool

log = logging.getLogger(__name__)

SERVER_NAME = "talkingrock"
INSTRUCTIONS = (
    "Talking Rock is a household's memory. Each tool acts for the member this connection "
    "belongs to: store what they tell you with memory_store, find it again with "
    "search_memories or memory_query. Another member's ids answer 'not found'."
)
FAILED = "The tool failed on the server; the server's log has the details."
NOT_POST = "Send MCP messages with POST: this endpoint keeps no stream and no session."


def _version() -> str:
    try:
        return version("talkingrock")
    except PackageNotFoundError:  # a checkout that was never installed
        return ""


def tools() -> list[types.Tool]:
    return [
        types.Tool(name=tool.name, description=tool.description, input_schema=tool.parameters)
        for tool in REGISTRY.values()
    ]


def refusal(message: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(text=message)], is_error=True)


def answer(result: dict[str, Any]) -> types.CallToolResult:
    """The tool's answer as JSON text (what the HTTP API sends) and as structured content."""
    text = json.dumps(result, cls=DjangoJSONEncoder)
    return types.CallToolResult(
        content=[types.TextContent(text=text)], structured_content=json.loads(text)
    )


def _in_request(function, *args):
    """Run ``function`` as Django runs a request: stale connections closed before and after."""
    close_old_connections()
    try:
        return function(*args)
    finally:
        close_old_connections()


def run_tool(member_id: int, name: str, arguments: dict[str, Any]) -> types.CallToolResult:
    """Call one tool for the member (synchronous: the ORM). Never raises: a refusal, and any
    failure, is an error result; a failure's details go to the log, not to the client."""
    try:
        member = get_user_model().objects.filter(pk=member_id, is_active=True).first()
        if member is None:
            return refusal("This member is no longer active in the household.")
        return answer(call_tool(member, name, **arguments))
    except ToolError as error:
        return refusal(error.message)
    except Exception:
        log.exception("MCP call of %r failed", name)
        return refusal(FAILED)


def _authenticated_member_id(ctx: ServerRequestContext) -> int | None:
    """The member HttpEndpoint authenticated this HTTP request as (None on any other path)."""
    request = ctx.request
    member = request.scope.get("user") if request is not None else None
    return getattr(member, "pk", None)


def build_server(*, member_id: int | None = None) -> Server:
    """The MCP server: for one member (stdio), or for whoever each HTTP request is from."""

    async def list_tools(
        ctx: ServerRequestContext, params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools())

    async def on_call_tool(
        ctx: ServerRequestContext, params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        member = member_id if member_id is not None else _authenticated_member_id(ctx)
        if member is None:
            return refusal("Send your token as 'Authorization: Bearer <token>'.")
        run = sync_to_async(_in_request, thread_sensitive=True)
        return await run(run_tool, member, params.name, params.arguments or {})

    return Server(
        SERVER_NAME,
        version=_version(),
        title="Talking Rock",
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=on_call_tool,
    )


async def serve_stdio(member_id: int) -> None:
    """Serve MCP on stdin and stdout for one member until the client closes stdin. While it
    serves, the SDK points file descriptor 1 at stderr: nothing else reaches the protocol."""
    server = build_server(member_id=member_id)
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


# --- streamable HTTP ---------------------------------------------------------------------------


def transport_security() -> TransportSecuritySettings:
    """DNS-rebinding protection: the Host must be one of ALLOWED_HOSTS (on any port), as for
    every page, and so must an Origin when a browser sends one. The SDK matches names exactly:
    a '.example.com' entry allows example.com only; '*' allows any host, as it does in Django."""
    if "*" in settings.ALLOWED_HOSTS:
        return TransportSecuritySettings(enable_dns_rebinding_protection=False)
    names = [host.lstrip(".") for host in settings.ALLOWED_HOSTS]
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[pattern for name in names for pattern in (name, f"{name}:*")],
        allowed_origins=[
            pattern
            for name in names
            for scheme in ("http", "https")
            for pattern in (f"{scheme}://{name}", f"{scheme}://{name}:*")
        ],
    )


class HttpEndpoint:
    """ASGI app for /mcp: the bearer token first (401 with WWW-Authenticate, or 429 while the
    address is locked out, as at /api/), then the SDK's streamable HTTP transport.

    Stateless, with JSON responses: every POST stands alone (no session to lose between the two
    worker processes, nor to expire), and every tool answers in one response. ``session_manager``
    must be running: household/asgi.py enters ``session_manager.run()`` on lifespan startup."""

    def __init__(self) -> None:
        self.session_manager = StreamableHTTPSessionManager(
            app=build_server(),
            json_response=True,
            stateless=True,
            security_settings=transport_security(),
            max_request_body_size=settings.DATA_UPLOAD_MAX_MEMORY_SIZE,
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["method"] != "POST":
            # Stateless, the server has nothing to push on a GET stream (one would stay open,
            # empty, for as long as the client kept it), nor a session to DELETE.
            response = JSONResponse({"error": NOT_POST}, 405, headers={"Allow": "POST"})
            await response(scope, receive, send)
            return
        # A Django request made of the scope's headers and address, for the token check and
        # django-axes; the body stays with the SDK.
        request = ASGIRequest(scope, io.BytesIO())
        try:
            member = await sync_to_async(_in_request, thread_sensitive=True)(
                api.authenticate, request
            )
        except ToolError as error:
            headers = {"WWW-Authenticate": api.WWW_AUTHENTICATE} if error.status == 401 else None
            response = JSONResponse({"error": error.message}, error.status, headers=headers)
            await response(scope, receive, send)
            return
        scope = {**scope, "headers": _hosts_in_lower_case(scope["headers"]), "user": member}
        await self.session_manager.handle_request(scope, receive, send)


# Host names are case-insensitive (RFC 3986 §3.2.2), and Django's pages take "LOCALHOST" as
# "localhost"; the SDK compares them exactly.
_HOST_HEADERS = (b"host", b"origin")


def _hosts_in_lower_case(headers: list[tuple[bytes, bytes]]) -> list[tuple[bytes, bytes]]:
    return [
        (name, value.lower() if name.lower() in _HOST_HEADERS else value) for name, value in headers
    ]
