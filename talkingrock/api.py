"""HTTP transport for the tool registry: JSON in, JSON out, bearer tokens."""

from __future__ import annotations

import json

from django.http import HttpRequest, JsonResponse
from django.utils import timezone
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET

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
    token = (
        ApiToken.objects.select_related("owner")
        .filter(token_hash=hash_token(raw.strip()), owner__is_active=True)
        .first()
    )
    if token is None:
        raise ToolError(401, "That token is not valid (it may have been revoked).")
    ApiToken.objects.filter(pk=token.pk).update(last_used_at=timezone.now())
    return token.owner


@require_GET
def list_tools(request: HttpRequest) -> JsonResponse:
    return JsonResponse({"tools": [tool.as_schema() for tool in REGISTRY.values()]})


@csrf_exempt
def run_tool(request: HttpRequest, name: str) -> JsonResponse:
    if request.method != "POST":
        response = _error(405, "Call a tool with POST and a JSON object of arguments.")
        response["Allow"] = "POST"
        return response
    try:
        user = _authenticate(request)
        if name not in REGISTRY:
            raise ToolError(404, f"No tool named '{name}'.")
        try:
            args = json.loads(request.body or b"{}")
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise ToolError(400, "The body must be a JSON object of arguments.") from None
        if not isinstance(args, dict):
            raise ToolError(400, "The body must be a JSON object of arguments.")
        return JsonResponse(call_tool(user, name, **args))
    except ToolError as error:
        return _error(error.status, error.message)
