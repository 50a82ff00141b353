from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import httpx
import ollama
from django.conf import settings
from django.core.cache import cache
from django.utils import timezone

from talkingrock.validation import Invalid, validate

log = logging.getLogger(__name__)

_transport: httpx.BaseTransport | None = None  # set by tests: the real client, a scripted server
_STATUS_KEY = "talkingrock:llm-status"


class LLMError(Exception):
    """No usable answer: Ollama is down, slow, missing the model, or answered nonsense.

    ``kind`` is one of ``disabled``, ``unreachable``, ``timeout``, ``http``, ``invalid``."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind
        self.message = message


def _config(name: str) -> Any:
    return settings.TALKINGROCK_LLM[name]


def enabled() -> bool:
    return bool(_config("enabled"))


def model_name() -> str:
    return _config("model")


@contextmanager
def use_transport(transport: httpx.BaseTransport) -> Iterator[None]:
    """Send every request of the real ``ollama`` client through ``transport`` (tests)."""
    global _transport
    previous, _transport = _transport, transport
    cache.delete(_STATUS_KEY)
    try:
        yield
    finally:
        _transport = previous
        cache.delete(_STATUS_KEY)


def _client(read_timeout: float) -> ollama.Client:
    # The client's own default is to wait forever; a reply that never comes must not hold a
    # request or a worker. Connecting to loopback either works at once or not at all.
    timeout = httpx.Timeout(read_timeout, connect=_config("connect_timeout"))
    extra = {"transport": _transport} if _transport is not None else {}
    return ollama.Client(host=_config("host"), timeout=timeout, **extra)


def _call(method: str, *, read_timeout: float, **kwargs: Any) -> Any:
    if not enabled():
        raise LLMError("disabled", "The language model is switched off (TALKINGROCK_LLM=off).")
    try:
        return getattr(_client(read_timeout), method)(**kwargs)
    except ConnectionError as error:  # the builtin: nothing listens on the host
        raise LLMError("unreachable", f"Ollama is not reachable at {_config('host')}.") from error
    except httpx.TimeoutException as error:
        raise LLMError("timeout", f"Ollama did not answer within {read_timeout:g} s.") from error
    except httpx.HTTPError as error:
        raise LLMError("unreachable", f"Ollama could not be reached: {error}.") from error
    except ollama.ResponseError as error:
        detail = error.error or str(error)
        if error.status_code == 404:
            detail = f"{detail} (run `ollama pull {model_name()}`)"
        raise LLMError("http", f"Ollama answered {error.status_code}: {detail}") from error


@dataclass(frozen=True)
class Structured:
    """A validated answer and how it was obtained."""

    value: dict[str, Any]
    model: str
    attempts: int
    duration_ms: int


def structured(
    *,
    system: str,
    prompt: str,
    schema: dict[str, Any],
    temperature: float = 0.0,
    max_tokens: int = 1024,
    read_timeout: float | None = None,
) -> Structured:
    """Ask for one JSON object fitting ``schema``; one retry with the error fed back.
    ``read_timeout`` shortens the configured wait for each answer."""
    messages = [{"role": "system", "content": system}, {"role": "user", "content": prompt}]
    started = time.perf_counter()
    problem = ""
    configured = _config("timeout")
    wait = configured if read_timeout is None else min(read_timeout, configured)
    for attempt in (1, 2):
        response = _call(
            "chat",
            read_timeout=wait,
            model=model_name(),
            messages=messages,
            format=schema,
            options={"temperature": temperature, "num_predict": max_tokens},
            stream=False,
        )
        content = response.message.content or ""
        try:
            # strict=False: a raw newline inside a string is the model's slip, not a broken answer
            value = json.loads(content, strict=False)
            validate(value, schema)
        except (json.JSONDecodeError, Invalid) as error:
            problem = str(error)
            log.info("LLM answer rejected (attempt %s): %s", attempt, problem)
            messages = [
                *messages,
                {"role": "assistant", "content": content[:4000]},
                {
                    "role": "user",
                    "content": f"That answer was not valid: {problem}. Answer again with one "
                    "JSON object that fits the schema exactly, and nothing else.",
                },
            ]
            continue
        return Structured(
            value=value,
            model=model_name(),
            attempts=attempt,
            duration_ms=round((time.perf_counter() - started) * 1000),
        )
    raise LLMError("invalid", f"The model's answer did not fit the schema twice: {problem}")


@dataclass(frozen=True)
class ToolCall:
    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class ChatReply:
    content: str
    tool_calls: list[ToolCall] = field(default_factory=list)
    model: str = ""


def chat(
    messages: list[dict[str, Any]],
    *,
    tools: list[dict[str, Any]] | None = None,
    read_timeout: float | None = None,
) -> ChatReply:
    """One assistant turn. ``tools`` are registry schemas (name, description, parameters);
    ``read_timeout`` shortens the configured wait (a reply has a deadline of its own)."""
    configured = _config("timeout")
    response = _call(
        "chat",
        read_timeout=configured if read_timeout is None else min(read_timeout, configured),
        model=model_name(),
        messages=messages,
        tools=[{"type": "function", "function": tool} for tool in tools or []] or None,
        options={"temperature": _config("temperature")},
        stream=False,
    )
    calls = [
        ToolCall(name=call.function.name, arguments=dict(call.function.arguments or {}))
        for call in response.message.tool_calls or []
    ]
    return ChatReply(content=response.message.content or "", tool_calls=calls, model=model_name())


@dataclass(frozen=True)
class EngineStatus:
    enabled: bool
    reachable: bool
    model_pulled: bool
    model: str
    host: str
    detail: str
    checked_at: str

    @property
    def engine(self) -> str:
        return "ollama" if self.reachable and self.model_pulled else "offline"


def status(*, refresh: bool = False) -> EngineStatus:
    """Reachability and model, re-checked at most every ``status_ttl`` seconds."""
    if not refresh and (known := cache.get(_STATUS_KEY)) is not None:
        return known
    reachable = pulled = False
    if not enabled():
        detail = "Switched off: the offline engine answers."
    else:
        try:
            listing = _call("list", read_timeout=_config("connect_timeout"))
        except LLMError as error:
            detail = f"{error.message} The offline engine answers."
        else:
            reachable = True
            names = {model.model for model in listing.models}
            wanted = model_name()
            pulled = wanted in names or f"{wanted}:latest" in names
            detail = (
                f"Ollama answers with {wanted}."
                if pulled
                else f"Ollama runs but {wanted} is not pulled (`ollama pull {wanted}`); "
                "the offline engine answers."
            )
    result = EngineStatus(
        enabled=enabled(),
        reachable=reachable,
        model_pulled=pulled,
        model=model_name(),
        host=_config("host"),
        detail=detail,
        checked_at=timezone.now().isoformat(timespec="seconds"),
    )
    cache.set(_STATUS_KEY, result, _config("status_ttl"))
    return result
