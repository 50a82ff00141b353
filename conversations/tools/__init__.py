"""The conversations app's agent tools, registered in the one registry (talkingrock/tools.py)
when the app is ready (conversations/apps.py): the conversation lifecycle (lifecycle.py),
reading a request with memory (reasoning.py) and bringing conversations in (importing.py)."""

from conversations.tools import importing, lifecycle, reasoning

__all__ = ["importing", "lifecycle", "reasoning"]
