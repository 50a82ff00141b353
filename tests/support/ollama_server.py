"""A loopback server speaking the part of Ollama's HTTP API Talking Rock uses.

For tests where the ``ollama`` client runs in *another process* (a django-q2 worker), so an
``httpx.MockTransport`` cannot reach it. ``GET /api/tags`` lists the model; ``POST /api/chat``
answers with ``answer(request_body)`` (a dict, sent as the JSON content of the reply), or, while
``hold`` is set, does not answer at all until it is released: a model busy for as long as the
test needs, e.g. to kill the worker waiting on it.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Answer = Callable[[dict[str, Any]], dict[str, Any]]


class LoopbackOllama(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, model: str, answer: Answer):
        super().__init__(("127.0.0.1", 0), _Handler)
        self.model = model
        self.answer = answer
        self.hold = False
        self.chats: list[dict[str, Any]] = []
        self.chat_arrived = threading.Event()
        self._released = threading.Event()
        threading.Thread(target=self.serve_forever, name="loopback-ollama", daemon=True).start()

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host}:{port}"

    def release(self) -> None:
        """Let held chats go (they answer as ``answer`` says) and hold no more."""
        self.hold = False
        self._released.set()

    def stop(self) -> None:
        self.release()
        self.shutdown()
        self.server_close()


class _Handler(BaseHTTPRequestHandler):
    server: LoopbackOllama

    def do_GET(self) -> None:
        if self.path == "/api/tags":
            self._json(200, {"models": [{"name": self.server.model, "model": self.server.model}]})
        else:
            self._json(404, {"error": "not found"})

    def do_POST(self) -> None:
        if self.path != "/api/chat":
            self._json(404, {"error": "not found"})
            return
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
        self.server.chats.append(body)
        self.server.chat_arrived.set()
        if self.server.hold:
            self.server._released.wait()
        content = json.dumps(self.server.answer(body))
        self._json(
            200,
            {
                "model": body.get("model", self.server.model),
                "created_at": datetime.now(UTC).isoformat(),
                "message": {"role": "assistant", "content": content},
                "done": True,
                "done_reason": "stop",
            },
        )

    def _json(self, status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):  # the caller died while we held it
            pass

    def log_message(self, format: str, *args: Any) -> None:
        pass
