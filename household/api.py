"""HTTP transport for the tool registry: JSON in, JSON out, bearer tokens.

``authenticate`` is the one bearer-token check: the MCP endpoint (household/mcp_server.py) uses
it too, so both accept the same tokens and lock out the same guessing."""

from __future__ import annotations

import json

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.core.handlers.asgi import ASGIRequest
from django.http import HttpRequest, JsonResponse
from django.utils import timezone
from django.views.decorators.csrf import csrf_exempt

from household import throttle
from talkingrock.models import ApiToken, hash_token
from talkingrock.tools import REGISTRY, ToolError, call_tool

WWW_AUTHENTICATE = 'Bearer realm="talkingrock"'


def _error(status: int, message: str) -> JsonResponse:
    response = JsonResponse({"error": message}, status=status)
    if status == 401:
        response["WWW-Authenticate"] = WWW_AUTHENTICATE
    return response


def authenticate(request: HttpRequest):
    """The active member whose bearer token the request carries; otherwise ``ToolError`` 401,
    or 429 once bad tokens from this address (or this bad token) reached the limit
    (throttle.py). A valid token is looked up first and never refused for anyone else's
    failures. Touches the database: call it from synchronous code."""
    scheme, _, raw = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not raw.strip():
        raise ToolError(401, "Send your token as 'Authorization: Bearer <token>'.")
    raw = raw.strip()
    # Our tokens are URL-safe ASCII; anything else cannot be one (and might not even encode).
    token = None
    if raw.isascii():
        token = (
            ApiToken.objects.select_related("owner")
            .filter(token_hash=hash_token(raw), owner__is_active=True)
            .first()
        )
    if token is not None:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=timezone.now())
        return token.owner
    credentials = throttle.token_credentials(raw)
    if not throttle.token_locked(request, credentials):
        throttle.token_failed(request, credentials)
        # The failure that reaches the limit is answered as a locked-out one (axes marks it).
        if not getattr(request, "axes_locked_out", False):
            raise ToolError(401, "That token is not valid (it may have been revoked).")
    raise ToolError(429, throttle.token_lockout_message(throttle.cooloff_minutes(request)))


def _not_allowed(allow: str, message: str) -> JsonResponse:
    # Django's own 405 has an empty HTML body; an agent gets JSON like every other error.
    response = _error(405, message)
    response["Allow"] = allow
    return response


@csrf_exempt
def list_tools(request: HttpRequest) -> JsonResponse:
    if request.method not in ("GET", "HEAD"):
        return _not_allowed("GET, HEAD", "List the tools with GET; call one at /api/tools/<name>.")
    return JsonResponse({"tools": [tool.as_schema() for tool in REGISTRY.values()]})


def _body(request: HttpRequest) -> bytes:
    """The request's body, chunked ones included, within DATA_UPLOAD_MAX_MEMORY_SIZE.

    Django checks that limit against Content-Length only. Under ASGI (household/asgi.py, what
    `make run` serves) the server decodes a chunked body and Django holds all of it: it is read
    here within the limit. Under WSGI Django reads exactly Content-Length bytes, so a chunked
    body (no Content-Length) would look empty; gunicorn's WSGI workers decode it and say so with
    ``wsgi.input_terminated``, and then the stream is read to its end, within the same limit."""
    meta = request.META
    if meta.get("CONTENT_LENGTH"):
        return request.body
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    if isinstance(request, ASGIRequest):
        body = request.read(limit + 1)
    elif "chunked" not in meta.get("HTTP_TRANSFER_ENCODING", "").lower():
        return request.body
    elif meta.get("wsgi.input_terminated"):
        body = meta["wsgi.input"].read(limit + 1)
    else:
        raise ToolError(411, "Send the body with a Content-Length: this server cannot read it.")
    if len(body) > limit:
        raise RequestDataTooBig()
    return body


def _arguments(request: HttpRequest) -> dict:
    try:
        body = _body(request)
    except RequestDataTooBig:
        raise ToolError(400, "The body is too large for a tool call.") from None
    try:
        args = json.loads(body or b"{}")
    # JSONDecodeError and UnicodeDecodeError are ValueErrors; absurd nesting is a RecursionError.
    except (ValueError, RecursionError):
        raise ToolError(400, "The body must be a JSON object of arguments.") from None
    if not isinstance(args, dict):
        raise ToolError(400, "The body must be a JSON object of arguments.")
    return args


@csrf_exempt
def run_tool(request: HttpRequest, name: str) -> JsonResponse:
    if request.method != "POST":
        return _not_allowed("POST", "Call a tool with POST and a JSON object of arguments.")
    try:
        user = authenticate(request)
        if name not in REGISTRY:
            raise ToolError(404, f"No tool named '{name}'.")
        return JsonResponse(call_tool(user, name, **_arguments(request)))
    except ToolError as error:
        return _error(error.status, error.message)
