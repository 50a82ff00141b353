"""The memories app's agent tools (seeds 001 and 002): store is in narratives/tools.py (a store
stamps the active narrative); here keyword search, reinforce, demote, update, hybrid recall,
open threads, Your Story, acts, and consolidation's observations and dreams. Registered when
the app is ready (memories/apps.py)."""

from __future__ import annotations

from typing import Any

from memories import acts as act_services
from memories import insights, sharing, threads
from memories import services as memory_services
from memories.consolidation import context as observation_context
from memories.models import Act, Memory, MemoryItem
from memories.recall import recall
from talkingrock.tools import ToolError, id_schema, refusing, tool

_ID = id_schema("A memory id, as shown in [id:N].")
CONTENT = {"type": "string", "maxLength": 10_000, "description": "One fact, decision or context."}
TAGS = {
    "type": ["string", "array"],
    "items": {"type": "string"},
    "description": "Comma-separated keywords, or a list of them.",
}


def memory_as_dict(memory: Memory) -> dict[str, Any]:
    return {
        "id": memory.pk,
        "ref": f"[id:{memory.pk}]",
        "kind": memory.kind,
        "content": memory.content,
        # Dates, times, amounts and a schedule read from its words, kept beside them.
        "details": memory.details,
        "details_in_words": memory.details_in_words,
        "tags": memory.tags,
        "source": memory.source,
        "act_id": memory.act_id,
        "score": memory.score,
        "hit_count": memory.hit_count,
        "created_at": memory.created_at.isoformat(),
        "happened_at": memory.happened_at.isoformat() if memory.happened_at else None,
        "session": memory.session or None,
        "last_hit_at": memory.last_hit_at.isoformat() if memory.last_hit_at else None,
        "archived": memory.archived_at is not None,
        "user_edited": memory.user_edited,
        "original_content": memory.original_content or None,
        # Shared into a shared act (issue 25): where, by whom, when.
        "shared": _shared(memory),
    }


def _shared(memory: Memory) -> dict[str, Any] | None:
    if memory.share_id is None:
        return None
    share = memory.share
    return {
        "act": memory.act.title,
        "by": share.sharer_name,
        "by_you": sharing.is_original(memory),
        "at": share.shared_at.isoformat(),
    }


@tool(
    "memory_query",
    "Keyword search over your memories (use key nouns and natural synonyms, not a question). "
    "Results carry [id:N] for reinforce/demote/update.",
    {
        "query": {"type": "string", "maxLength": 10_000},
        "limit": {"type": "integer", "minimum": 1, "maximum": 50},
        "include_archived": {"type": "boolean"},
    },
    required=("query",),
)
def _memory_query(user, *, query, limit=5, include_archived=False):
    result = memory_services.memory_query(
        owner=user, query=query, limit=limit, include_archived=include_archived
    )
    answer: dict[str, Any] = {
        "results": [
            {
                "id": memory.pk,
                "ref": f"[id:{memory.pk}]",
                "content": memory.content,
                "tags": memory.tags,
                "score": memory.score,
                "archived": memory.archived_at is not None,
                "rank": float(f"{hit.rank:.6g}"),
                "factors": hit.factors,
            }
            for memory, hit in result.hits
        ]
    }
    if result.message:
        answer["message"] = result.message
    return answer


@tool(
    "memory_reinforce", "This memory was useful: score +3, recency restarts.", {"id": _ID}, ("id",)
)
def _memory_reinforce(user, *, id):
    return memory_as_dict(memory_services.memory_reinforce(owner=user, memory_id=id))


@tool("memory_demote", "This memory is wrong, stale or irrelevant: score −1.", {"id": _ID}, ("id",))
def _memory_demote(user, *, id):
    return memory_as_dict(memory_services.memory_demote(owner=user, memory_id=id))


@tool(
    "memory_update",
    "Correct a memory in place; its score is kept and the first wording is preserved.",
    {"id": _ID, "content": CONTENT, "tags": TAGS},
    required=("id", "content"),
)
def _memory_update(user, *, id, content, tags=None):
    return memory_as_dict(
        memory_services.memory_update(owner=user, memory_id=id, content=content, tags=tags)
    )


# --- hybrid recall (seed 002) -------------------------------------------------------------------


def _said_in(memory: Memory) -> dict[str, Any]:
    """Evidence says where and when it was said: "said in conversation 12, 2 March 2026"."""
    if not memory.is_evidence:
        return {}
    by = "you" if memory.kind == Memory.Kind.SAID else "assistant"
    return {
        "said_in": {
            "by": by,
            "conversation_id": memory.conversation_id,
            "at": memory.happened_at.isoformat() if memory.happened_at else None,
            "text": f"said by {by} in conversation {memory.conversation_id}, "
            f"{memory.happened_at:%-d %B %Y}",
        }
    }


@tool(
    "search_memories",
    "Find memories by meaning as well as keywords: paraphrases, names shared with a match, what "
    "was said around it and the time the query names ('last week'). Each result says why it "
    "matched; matches below the relevance floor are left out and counted in weak_matches. Use "
    "memory_query for an exact keyword search.",
    {
        "query": {"type": "string", "maxLength": 10_000},
        "act_id": id_schema("Only this act.", nullable=True),
        "your_story_only": {"type": "boolean"},
        "limit": {"type": "integer", "minimum": 1, "maximum": 50},
    },
    required=("query",),
)
def _search_memories(user, *, query, act_id=None, your_story_only=False, limit=10):
    acts = None
    if act_id is not None:
        acts = [Act.objects.get(pk=act_id, owner=user)]
    result = recall(
        user,
        query,
        k=limit,
        acts=acts,
        your_story_only=your_story_only,
        purpose="tool:search_memories",
    )
    answer: dict[str, Any] = {
        "results": [
            {
                "id": hit.memory_id,
                "ref": f"[id:{hit.memory_id}]",
                "kind": hit.memory.kind,
                "content": hit.memory.content,
                "details_in_words": hit.memory.details_in_words,
                "act_id": hit.memory.act_id,
                "score": round(hit.score, 4),
                **_said_in(hit.memory),
                "shared": _shared(hit.memory),
                "why": {**hit.components, "reasons": hit.why},
            }
            for hit in result.strong
        ],
        # Matches below the relevance floor are left out and counted: the least bad of what
        # the member has is not an answer.
        "weak_matches": len(result.weak),
    }
    if result.message:
        answer["message"] = result.message
    return answer


@tool(
    "get_open_threads",
    "Open items across the member's memories: questions, waiting-ons and tasks not yet resolved.",
    {
        "entity_type": {
            "type": ["string", "null"],
            "enum": ["waiting_on", "question_opened", "task"],
        },
        "act_id": id_schema(nullable=True),
    },
)
def _get_open_threads(user, *, entity_type=None, act_id=None):

    items = threads.kept_items(user).filter(is_active=True, type__in=MemoryItem.OPEN_TYPES)
    if entity_type:
        items = items.filter(type=entity_type)
    if act_id is not None:
        items = items.filter(memory__act=Act.objects.get(pk=act_id, owner=user))
    return {
        "threads": [
            {
                "item_id": item.pk,
                "type": item.type,
                "data": item.data,
                "memory_id": item.memory_id,
                "act_id": item.memory.act_id,
                "since": item.created_at.isoformat(),
            }
            for item in items.order_by("-created_at")[:100]
        ]
    }


@tool(
    "resolve_item",
    "Close an open thread by hand: mark it done or dismissed; 'reopen' undoes either. The "
    "answer says when, how and by what it closed.",
    {
        "item_id": id_schema("An item id, as get_open_threads lists them."),
        "resolution": {"type": "string", "enum": ["done", "dismissed", "reopen"]},
    },
    required=("item_id", "resolution"),
)
def _resolve_item(user, *, item_id, resolution):

    try:
        if resolution == "reopen":
            item = threads.reopen(owner=user, item_id=item_id)
        else:
            item = threads.resolve(owner=user, item_id=item_id, how=resolution)
    except threads.ThreadError as error:
        raise ToolError(409, error.message) from None
    return threads.describe(item)


@tool(
    "get_your_story",
    "Recent memories of the member's permanent Your Story act, newest first.",
    {
        "limit": {"type": "integer", "minimum": 1, "maximum": 100},
        "offset": {"type": "integer", "minimum": 0, "maximum": 1_000_000_000},
    },
)
def _get_your_story(user, *, limit=20, offset=0):

    rows = Memory.objects.filter(
        owner=user,
        act=act_services.ensure_your_story(owner=user),
        status=Memory.Status.CONFIRMED,
        archived_at=None,
    ).order_by("-created_at", "-pk")[offset : offset + limit]
    return {"memories": [memory_as_dict(m) for m in rows]}


def _act_dict(act) -> dict[str, Any]:
    return {
        "id": act.pk,
        "title": act.title,
        "description": act.description,
        "status": act.status,
        "is_your_story": act.is_your_story,
    }


@tool(
    "create_act",
    "Create an act: a project or chapter of life that memories can be kept in.",
    {
        "title": {"type": "string", "maxLength": 200},
        "description": {"type": "string", "maxLength": 2000},
    },
    required=("title",),
)
@refusing((act_services.ActError, 409))
def _create_act(user, *, title, description=""):

    return _act_dict(act_services.create_act(owner=user, title=title, description=description))


@tool("list_acts", "The member's acts, Your Story first.", {})
def _list_acts(user):
    return {"acts": [_act_dict(act) for act in Act.objects.filter(owner=user)]}


# --- consolidation: observations and dreams (seed 002) ------------------------------------------


def _observation_dict(found: insights.Found, transitions) -> dict[str, Any]:
    observation = found.observation
    answer: dict[str, Any] = {
        "id": observation.pk,
        "text": observation.text,
        "kind": observation.kind,
        "evidence_count": observation.evidence_count,
        "entity": observation.entity.name if observation.entity else None,
        "updated_at": observation.updated_at.isoformat(),
        "confirmed": observation.confirmed_at is not None,
        "user_edited": observation.user_edited,
        # Its latest changes of value, newest first, and the line a reply's context gets.
        "history": [
            {
                "previous_text": change.previous_text,
                "new_text": change.new_text,
                "changed_at": change.changed_at.isoformat(),
                "happened_at": change.happened_at.isoformat() if change.happened_at else None,
            }
            for change in transitions
        ],
        "line": observation_context.line_of(observation, transitions),
        "source_fact_ids": [fact.pk for fact in observation.sources],  # as they happened
    }
    if found.matched:
        answer["matched"] = found.matched
        if found.similarity is not None:
            answer["similarity"] = found.similarity
    return answer


@tool(
    "get_observations",
    "What the member's facts add up to (observations: states, trends, changes, cycles), each "
    "with how it changed (history) and the ids of the facts it rests on. With a query: by "
    "meaning and keywords; with an entity (a person, place or project by name): about it; "
    "otherwise the most recently changed.",
    {
        "entity": {"type": "string", "maxLength": 200, "description": "A name, e.g. 'Maya'."},
        "query": {"type": "string", "maxLength": 1000},
        "limit": {"type": "integer", "minimum": 1, "maximum": 50},
    },
)
@refusing((insights.NoSuchEntity, 404))
def _get_observations(user, *, entity=None, query=None, limit=10):
    about = insights.entity_named(user.pk, entity) if entity and entity.strip() else None
    found = insights.find(user.pk, query=(query or "").strip(), entity=about, limit=limit)
    transitions = observation_context.latest_transitions([f.observation.pk for f in found])
    return {
        "observations": [_observation_dict(f, transitions.get(f.observation.pk, [])) for f in found]
    }


@tool(
    "get_dreams",
    "The member's dreams: cross-domain connections between two distant groups of their facts, "
    "with both groups' fact ids, the evaluator's reason and score. Dreams never feed recall.",
    {
        "include_dismissed": {"type": "boolean"},
        "limit": {"type": "integer", "minimum": 1, "maximum": 50},
    },
)
def _get_dreams(user, *, include_dismissed=False, limit=10):
    dreams = insights.dreams(user.pk)
    if include_dismissed:
        dreams = insights.dreams(user.pk, dismissed=None)
    return {
        "dreams": [
            {
                "id": dream.pk,
                "text": dream.text,
                "facts_a": [fact.pk for fact in dream.sources_a],
                "facts_b": [fact.pk for fact in dream.sources_b],
                "reason": dream.reason,
                "score": dream.score,
                "engine": dream.engine,
                "created_at": dream.created_at.isoformat(),
                "kept": dream.kept_at is not None,
                "dismissed": dream.dismissed,
            }
            for dream in dreams[:limit]
        ]
    }
