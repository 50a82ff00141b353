"""A scripted Ollama server for the real ``ollama`` client, through ``httpx.MockTransport``.

The client builds real requests (model, messages, ``format`` schema, tools) and parses real
responses; only the network is replaced. Script ``/api/chat`` answers in order:

- a ``dict`` or ``list``: answered as JSON text in ``message.content`` (a structured answer);
- a ``str``: answered verbatim as ``message.content`` (prose, or deliberately broken JSON);
- ``ToolCalls([...])``: the model asks for tools instead of answering;
- ``Timeout()``: the server never answers (the client raises ``httpx.ReadTimeout``);
- ``HTTP(status, "error text")``: an error answer, as Ollama sends them.

When the script runs out, ``/api/chat`` answers 500 so a test never passes by accident.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import httpx


@dataclass
class Timeout:
    pass


@dataclass
class HTTP:
    status: int
    error: str


@dataclass
class ToolCalls:
    calls: list[tuple[str, dict[str, Any]]]


@dataclass
class ScriptedOllama:
    models: list[str] = field(default_factory=lambda: ["llama3.2:3b"])
    script: list[Any] = field(default_factory=list)
    requests: list[dict[str, Any]] = field(default_factory=list)
    down: bool = False

    def answer(self, *items: Any) -> ScriptedOllama:
        self.script.extend(items)
        return self

    @property
    def chats(self) -> list[dict[str, Any]]:
        return [body for body in self.requests if body.get("_path") == "/api/chat"]

    def transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self._handle)

    def _handle(self, request: httpx.Request) -> httpx.Response:
        if self.down:
            raise httpx.ConnectError("connection refused", request=request)
        body = json.loads(request.content or b"{}")
        read_timeout = request.extensions.get("timeout", {}).get("read")
        self.requests.append({**body, "_path": request.url.path, "_read_timeout": read_timeout})
        if request.url.path == "/api/tags":
            return httpx.Response(200, json={"models": [_model(name) for name in self.models]})
        if request.url.path != "/api/chat":
            return httpx.Response(404, json={"error": f"no route {request.url.path}"})
        if body.get("model") not in self.models:
            return httpx.Response(404, json={"error": f"model '{body.get('model')}' not found"})
        if not self.script:
            return httpx.Response(500, json={"error": "the test script has no answer left"})
        item = self.script.pop(0)
        if isinstance(item, Timeout):
            raise httpx.ReadTimeout("timed out", request=request)
        if isinstance(item, HTTP):
            return httpx.Response(item.status, json={"error": item.error})
        message: dict[str, Any] = {"role": "assistant", "content": ""}
        if isinstance(item, ToolCalls):
            message["tool_calls"] = [
                {"function": {"name": name, "arguments": args}} for name, args in item.calls
            ]
        elif isinstance(item, str):
            message["content"] = item
        else:
            message["content"] = json.dumps(item)
        return httpx.Response(
            200,
            json={
                "model": body["model"],
                "created_at": "2026-11-23T00:00:00Z",
                "message": message,
                "done": True,
                "done_reason": "stop",
                "eval_count": 10,
                "prompt_eval_count": 10,
            },
        )


def _model(name: str) -> dict[str, Any]:
    return {
        "name": name,
        "model": name,
        "modified_at": "2026-11-01T00:00:00Z",
        "size": 2_000_000_000,
        "digest": "0" * 64,
        "details": {"format": "gguf", "family": "llama", "parameter_size": "3B"},
    }
