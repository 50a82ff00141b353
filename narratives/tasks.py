"""Background work for narratives (django-q2 task paths)."""

from __future__ import annotations

from narratives import running


def advance(reply_id: int) -> str:
    """After each turn: the running narrative's next link."""
    return running.advance(reply_id)
