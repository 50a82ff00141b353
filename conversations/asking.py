"""Asking the model for one stage of a compression, and falling back to the offline engine:
the answer and which engine gave it (``compression_report``)."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from django.utils import timezone

from conversations.models import Conversation, Message
from talkingrock import llm

log = logging.getLogger(__name__)


@dataclass
class Produced:
    value: Any
    engine: str  # "ollama" or "offline"
    model: str = ""
    attempts: int = 0
    fallback_reason: str = ""

    def report(self) -> dict[str, Any]:
        entry = {"engine": self.engine}
        if self.model:
            entry |= {"model": self.model, "attempts": self.attempts}
        if self.fallback_reason:
            entry["fallback_reason"] = self.fallback_reason
        return entry


def ask(use_llm: bool, fallback, **question) -> Produced:
    """The model's answer when it gives a valid one, else the offline engine's."""
    reason = "Ollama is not available."
    if use_llm:
        try:
            answer = llm.structured(**question)
            return Produced(answer.value, "ollama", answer.model, answer.attempts)
        except llm.LLMError as error:
            reason = error.message
            log.info("Falling back to the offline engine: %s", reason)
    return Produced(fallback(), "offline", fallback_reason=reason)


def transcript_of(conversation: Conversation) -> list[tuple[str, str]]:
    return list(
        conversation.messages.exclude(role=Message.Role.SYSTEM)
        .order_by("position")
        .values_list("role", "content")
    )


def days_of(conversation: Conversation) -> list:
    """The local day each message of ``transcript_of`` was said, in the same order: relative
    dates ("tmrw", "on the 8th") are read against the day of the message that says them."""
    return [
        timezone.localtime(moment).date()
        for moment in conversation.messages.exclude(role=Message.Role.SYSTEM)
        .order_by("position")
        .values_list("created_at", flat=True)
    ]


def render(transcript: list[tuple[str, str]]) -> str:
    return "\n".join(f"{role}: {content}" for role, content in transcript)
