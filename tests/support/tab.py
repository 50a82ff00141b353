"""One browser tab for tests/test_conversation_race.py: a member's request, raced with others.

Usage: python -m tests.support.tab USERNAME start|close|send   (TALKINGROCK_DATA_DIR picks the file)
Prints the conversation id and its status (send: the conversation id and the reply), or
"refused: <message>".
"""

from __future__ import annotations

import os
import sys

import django


def main(username: str, action: str) -> None:
    django.setup()
    from django.contrib.auth import get_user_model

    from conversations import services
    from memories import indexing
    from talkingrock.tools import ToolError, call_tool

    indexing.request_indexing = lambda **kwargs: None  # the race is the point, not embeddings
    member = get_user_model().objects.get(username=username)
    print("ready", flush=True)
    sys.stdin.readline()  # every tab acts on the same signal
    try:
        if action == "send":  # the send_message tool: the message, then its reply
            answer = call_tool(member, "send_message", content=f"Hello from tab {os.getpid()}")
            print(answer["conversation_id"], answer["reply"].replace("\n", " "), flush=True)
            return
        if action == "start":
            conversation, _ = services.add_message(owner=member, content="Hello from a tab")
        else:
            conversation = services.open_conversation(member)
            services.request_close(conversation=conversation)
            conversation = services.confirm_close(conversation=conversation)
    except (services.TransitionError, ToolError) as error:
        print(f"refused: {error.message}", flush=True)
        return
    print(conversation.pk, conversation.status, flush=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
