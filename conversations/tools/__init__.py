"""The conversations app's agent tools, registered in the one registry (talkingrock/tools.py)
when the app is ready (conversations/apps.py): the conversation lifecycle (lifecycle.py) and
reading a request with memory (reasoning.py)."""

from conversations.tools import lifecycle, reasoning

__all__ = ["lifecycle", "reasoning"]
