"""HTTP transport for the tool registry: JSON in, JSON out, bearer tokens."""

from __future__ import annotations

import json

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, JsonResponse
from django.utils import timezone
from django.views.decorators.csrf import csrf_exempt

from talkingrock import throttle
from talkingrock.models import ApiToken, hash_token
from talkingrock.tools import REGISTRY, ToolError, call_tool


def _error(status: int, message: str) -> JsonResponse:
    response = JsonResponse({"error": message}, status=status)
    if status == 401:
        response["WWW-Authenticate"] = 'Bearer realm="talkingrock"'
    return response


def _authenticate(request: HttpRequest):
    scheme, _, raw = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not raw.strip():
        raise ToolError(401, "Send your token as 'Authorization: Bearer <token>'.")
    if throttle.token_locked(request):
        raise ToolError(429, throttle.token_lockout_message(throttle.cooloff_minutes(request)))
    raw = raw.strip()
    # Our tokens are URL-safe ASCII; anything else cannot be one (and might not even encode).
    token = None
    if raw.isascii():
        token = (
            ApiToken.objects.select_related("owner")
            .filter(token_hash=hash_token(raw), owner__is_active=True)
            .first()
        )
    if token is None:
        throttle.token_failed(request)
        raise ToolError(401, "That token is not valid (it may have been revoked).")
    ApiToken.objects.filter(pk=token.pk).update(last_used_at=timezone.now())
    return token.owner


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
    """The request's body, chunked ones included.

    Django reads exactly Content-Length bytes, so a body sent with ``Transfer-Encoding:
    chunked`` (no Content-Length) looked empty. gunicorn decodes chunked bodies and says so with
    ``wsgi.input_terminated``: then the stream is read to its end, within the same size limit."""
    meta = request.META
    chunked = "chunked" in meta.get("HTTP_TRANSFER_ENCODING", "").lower()
    if not chunked or meta.get("CONTENT_LENGTH"):
        return request.body
    if not meta.get("wsgi.input_terminated"):
        raise ToolError(411, "Send the body with a Content-Length: this server cannot read it.")
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    body = meta["wsgi.input"].read(limit + 1)
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
        user = _authenticate(request)
        if name not in REGISTRY:
            raise ToolError(404, f"No tool named '{name}'.")
        return JsonResponse(call_tool(user, name, **_arguments(request)))
    except ToolError as error:
        return _error(error.status, error.message)
