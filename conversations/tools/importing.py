"""Bringing conversations in from elsewhere, as agent tools (conversations/importing.py): a
file is read and checked at once, then lived through in the worker; ``get_import`` follows it."""

from __future__ import annotations

from typing import Any

from conversations import importing
from conversations.models import ConversationImport
from memories.porting import ImportFormatError
from talkingrock.tools import ToolError, id_schema, tool


def import_as_dict(job: ConversationImport) -> dict[str, Any]:
    return {
        "import_id": job.pk,
        "source": job.source,
        "status": job.status,
        "created_at": job.created_at.isoformat(),
        "finished_at": job.finished_at.isoformat() if job.finished_at else None,
        "error": job.error,
        "conversations": [
            {
                "title": entry["title"],
                "started_at": entry["started_at"],
                "messages": entry["messages"],
                "state": entry["state"],
                "conversation_id": entry["conversation"],
            }
            for entry in job.report
        ],
    }


@tool(
    "import_conversation",
    "Bring in conversations with their dates: Talking Rock's own JSON "
    "({'format': 'talkingrock.conversations', 'version': 1, 'conversations': [...]}, each "
    "message with role, content and an ISO 'at'), ChatGPT's conversations.json, or Claude's "
    "export. Each goes through compression and review as of its own day, in the worker; a "
    "conversation imported before is recognised. Answers at once with an import_id; follow it "
    "with get_import.",
    {
        "data": {
            "type": ["object", "array"],
            "description": "The export's JSON, as it is in the file.",
        }
    },
    required=("data",),
)
def _import_conversation(user, *, data):
    try:
        job = importing.queue(owner=user, data=data)
    except ImportFormatError as error:
        raise ToolError(400, str(error)) from None
    return import_as_dict(job)


@tool(
    "get_import",
    "How an import is going: each conversation's state (waiting, imported, already imported) "
    "and the conversation it became.",
    {"import_id": id_schema("An import id, from import_conversation.")},
    required=("import_id",),
)
def _get_import(user, *, import_id):
    return import_as_dict(ConversationImport.objects.get(pk=import_id, owner=user))
