"""The one door to a language model: Ollama on loopback, or nobody.

Only this package imports ``ollama``. Callers get three things:

- ``structured(...)``: one JSON answer that fits a schema, validated with the same validator as
  the tool arguments (talkingrock/validation.py), retried once with the validation error fed back, else ``LLMError``; the caller then falls back to the offline engine
  and records which engine produced the artefact.
- ``chat(...)``: one assistant turn, with tool calls when tools are offered.
- ``status()``: is Ollama reachable and is the model pulled (cached for a few seconds, shown in
  the page header).

The ``ollama`` client waits forever by default and fails in three shapes (the builtin
``ConnectionError`` when nothing listens, ``ollama.ResponseError`` for an HTTP error such as
404 "model not found", a raw ``httpx`` timeout); all three become ``LLMError`` here.
"""

from talkingrock.llm.client import (
    ChatReply,
    EngineStatus,
    LLMError,
    Structured,
    chat,
    enabled,
    model_name,
    status,
    structured,
    use_transport,
)

__all__ = [
    "ChatReply",
    "EngineStatus",
    "LLMError",
    "Structured",
    "chat",
    "enabled",
    "model_name",
    "status",
    "structured",
    "use_transport",
]
