"""The narratives app's agent tools (seed 000): the chain of meaning between memories, and
``memory_store``, which is declared here rather than in memories/tools.py because an agent's
store stamps the member's active narrative link, and narratives sit above memories. Registered
when the app is ready (narratives/apps.py)."""

from __future__ import annotations

from memories import services as memory_services
from memories.models import Memory
from memories.tools import CONTENT, TAGS, memory_as_dict
from narratives import services
from narratives.services import NarrativeError, NarrativeNotFound
from talkingrock.tools import ToolError, id_schema, ids_schema, refusing, tool


@tool(
    "memory_store",
    "Remember one discrete fact, decision or piece of context.",
    {
        "content": CONTENT,
        "tags": TAGS,
        "source": {"type": "string", "enum": list(Memory.Source.values)},
        "happened_at": {
            "type": "string",
            "maxLength": 40,
            "description": "When it happened: an ISO date (2026-03-12) or date-time "
            "(2026-03-12T09:30:00+00:00); without an offset, in the household's time zone.",
        },
        "session": {
            "type": "string",
            "maxLength": memory_services.SESSION_LENGTH,
            "description": "Any name you use to group memories said together (a chat, a "
            "meeting, an import); recall reads a session as it reads a conversation.",
        },
    },
    required=("content",),
)
def _memory_store(
    user, *, content, tags="", source=Memory.Source.AGENT, happened_at=None, session=""
):
    memory = memory_services.memory_store(
        owner=user,
        content=content,
        tags=tags,
        source=source,
        happened_at=happened_at,
        session=session,
        narrative_id=services.latest_id(user),  # the active narrative's stamp
    )
    return memory_as_dict(memory)


# An id that is not the member's answers 404, as a missing one; a bad summary or topic 400.
_refusing_narrative_errors = refusing((NarrativeNotFound, 404), (NarrativeError, 400))


@tool(
    "narrative_update",
    "Add one link to the member's chain of meaning: one sentence on the reasoning arc, the "
    "memory ids it connects, and the narrative it continues (null starts a new thread). "
    "Narratives are never changed; the chain moves on by new links.",
    {
        "summary": {"type": "string", "maxLength": 300},
        "memory_ids": ids_schema(max_items=50),
        "previous_narrative_id": id_schema(nullable=True),
        "topic": {"type": "string", "maxLength": 200},
    },
    required=("summary", "memory_ids", "previous_narrative_id", "topic"),
)
@_refusing_narrative_errors
def _narrative_update(user, *, summary, memory_ids, previous_narrative_id, topic):

    narrative = services.create(
        owner=user,
        summary=summary,
        memory_ids=memory_ids,
        previous=previous_narrative_id,
        topic=topic,
    )
    found = services.search_narratives(user, id=narrative.pk)
    return {"narrative": services.as_result(found.narratives[0])}


@tool(
    "narrative_search",
    "Find narratives: by id (to walk the chain: follow previous_narrative_id back, "
    "continued_by forward), by keyword, or with neither the latest one: where the member "
    "left off. Newest first.",
    {
        "id": id_schema(),
        "query": {"type": "string", "maxLength": 1000},
        "limit": {"type": "integer", "minimum": 1, "maximum": 50},
    },
)
@_refusing_narrative_errors
def _narrative_search(user, *, id=None, query=None, limit=10):

    if id is not None and query is not None:
        raise ToolError(400, "Give an id or a query, not both.")
    found = services.search_narratives(user, id=id, query=query, limit=limit)
    answer = {"mode": found.mode, "narratives": [services.as_result(n) for n in found.narratives]}
    if found.message:
        answer["message"] = found.message
    return answer
