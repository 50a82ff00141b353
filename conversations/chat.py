"""One turn of the chat: recall what bears on the message, then answer with it.

A reply is written by the task worker (``queue_reply`` → ``conversations.tasks.reply``), never in
a web request: the page shows the member's message at once and polls for the reply. With Ollama
the model answers from the recalled memories, the most recent ones and the last turns, and may
search further (``memory_query``, up to ``tool_rounds`` times) and reinforce or demote what it
used, through the tool registry (seed 001's agent-driven loop), all within ``reply_timeout``
seconds; past that, or when the model fails, the offline engine answers and the reply says so.
Offline, a question is answered from memory (``conversations.answers``: the sentence that answers,
with when and where it comes from, or "I don't have a memory of that") and a statement is
acknowledged in a line. Either way the reply names the memories it rests on, says why it said
what it said (``explanation``) and keeps the recall it was made from.
"""

from __future__ import annotations

import json
import logging
import time
from dataclasses import replace
from typing import Any

from django.conf import settings
from django.db import transaction

from conversations import answers, kinds_asked, questions, reasoning
from conversations.models import Conversation, Message
from conversations.services import OFFLINE_ENGINE, append
from memories.consolidation import context as observation_context
from memories.models import Memory, Recall, RecallHit
from memories.recall import line_of, recall
from narratives import services as narratives
from talkingrock import jobs, llm
from talkingrock.text import shortened
from talkingrock.tools import REGISTRY, ToolError, call_tool

log = logging.getLogger(__name__)

USED_WORDS = 12  # a memory an answer used is named by its first words
CHAT_TOOLS = ("memory_query", "memory_reinforce", "memory_demote", "narrative_search")
SYSTEM = (
    "You are Talking Rock, the memory of {name}'s household assistant. Answer briefly and "
    "warmly. Use the memories below when they bear on the message and cite them as [id:N]; "
    "never invent a memory. If you need more, search with memory_query (key nouns, not a "
    "question). Reinforce a memory that proved useful; demote one that proved wrong."
)


def _config(name: str):
    return settings.TALKINGROCK_CONVERSATIONS[name]


def queue_reply(message: Message) -> None:
    """Have the worker write the reply once the message is committed."""
    jobs.enqueue("conversations.tasks.reply", message.pk, owner_id=message.conversation.owner_id)


def respond(*, conversation: Conversation, message: Message) -> Message:
    """Write the assistant's reply to ``message`` (slow work first, one short write after).
    Answers once: a second call for the same message returns the reply already written.

    A correction of how the previous message was read is learnt at once; any other message is
    classified with memory first (seed 003), then answered."""
    if (written := message.replies.first()) is not None:
        return written
    owner = conversation.owner
    deadline = time.monotonic() + _config("reply_timeout")
    if (parsed := reasoning.parse_correction(message.content)) and (
        earlier := reasoning.last_reading(conversation, message)
    ):
        return _write(conversation, message, *_learn(owner, earlier, *parsed))
    found = recall(
        owner,
        questions.recalled_for(message.content),
        k=answers.hits_to_recall(),
        purpose="chat",
        conversation=conversation,
        message=message,
    )
    # The reading uses the same recall: one search per turn, its trail marked with how each
    # memory shaped the reading. It reads the hits an answer reads first, not those further
    # down that only a question left declined reaches.
    use_model = llm.status().engine == "ollama"
    reading = reasoning.classify_with_memory(
        owner,
        message.content,
        message=message,
        use_model=use_model,
        timeout=_config("reply_timeout") / 3,
        found=replace(
            found, hits=found.hits[: max(_config("context_memories"), _config("answer_memories"))]
        ),
    )
    # Only what clears the relevance floor (memories/recall/floor.py): otherwise a member with
    # few memories would be shown whatever happens to rank first.
    hits = found.strong[: _config("context_memories")]  # what the model is shown
    engine, content, used, explanation = OFFLINE_ENGINE, "", [], ""
    if use_model:
        try:
            content, more = _model_reply(conversation, message, hits, deadline, found.observations)
            observation_context.mark_used(found.observations)
            used = [_used(hit, found) for hit in hits]
            used += [entry for entry in more if entry["id"] not in {u["id"] for u in used}]
            engine = f"ollama:{llm.model_name()}"
            explanation = "The model answered from the memories listed, and the last turns."
        except llm.LLMError as error:
            log.info("Chat falls back to the offline engine: %s", error.message)
            explanation = f"The model did not answer ({error.message}) "
    if not content:
        offline = offline_answer(owner, message.content, found, reading)
        note = "\n\n(The model did not answer: this is the offline engine's answer.)"
        # "Where you left off" opens a new conversation, not the answer to a question.
        opening = (
            ""
            if offline.kind == "answer" or kinds_asked.is_question(message.content)
            else (left_off(conversation, message))
        )
        content = opening + offline.text + (note if explanation else "")
        used = [_used(hit, found) for hit in offline.used]
        explanation = (explanation + "so the offline engine did. " if explanation else "") + (
            offline.reason
        )
    read_as = f"Read as {reading.label} (confidence {reading.confidence:.2f}): {reading.reasoning}"
    return _write(
        conversation, message, content, engine, used, f"{read_as} {explanation}", found.recall_id
    )


def _learn(owner, earlier, meant: str, not_meant: str) -> tuple:
    learnt = reasoning.store_immediate_correction(owner, earlier, meant=meant, not_meant=not_meant)
    content = f"Understood: by “{learnt['said']}” you mean {meant}" + (
        f", not {not_meant}" if not_meant else ""
    )
    content += ". I'll read it that way from now on."
    changed = [f"[id:{i}] demoted" for i in learnt["demoted"]]
    if learnt["reinforced"]:
        changed.append(f"[id:{learnt['reinforced']}] reinforced")
    explanation = (
        f"A correction of how I read “{earlier.request[:100]}”: kept at once as "
        f"[id:{learnt['correction_id']}]" + (f"; {', '.join(changed)}" if changed else "") + "."
    )
    used = [{"id": learnt["correction_id"], "recall": None, "conversation": None,
             "why": "your correction"}]  # fmt: skip
    return content, OFFLINE_ENGINE, used, explanation, None


def _write(conversation, message, content, engine, used, explanation, recall_id) -> Message:
    with transaction.atomic():
        if (written := Message.objects.filter(reply_to=message).first()) is not None:
            return written  # another worker got there first
        # The offline engine's reply only gives back the member's own words and memories, so it
        # is no evidence of its own: kept as such, asked again, it would quote itself quoting
        # them. What a model wrote may say something new, and stays findable below them.
        reply = append(
            conversation,
            role=Message.Role.ASSISTANT,
            content=content,
            reply_to=message,
            findable=engine != OFFLINE_ENGINE,
        )
        reply.engine = engine
        reply.memories_used = used
        reply.explanation = explanation.strip()
        reply.recall_id = recall_id
        reply.save(update_fields=["engine", "memories_used", "explanation", "recall"])
        # The running narrative moves on.
        jobs.enqueue(
            "conversations.tasks.advance_narrative", reply.pk, owner_id=conversation.owner_id
        )
    return reply


def _used(hit, found) -> dict[str, Any]:
    return {
        "id": hit.memory_id,
        "recall": found.recall_id,
        "conversation": hit.memory.conversation_id,
        "why": "; ".join(hit.why)[:200],
        "because": hit.because(found.terms),  # in household words, for the page
        "words": shortened(hit.memory.content, words=USED_WORDS),
    }


def offline_answer(owner, text: str, found, reading=None, *, stored: bool = True) -> answers.Answer:
    """A question answered from memory, or a statement acknowledged; when the reading of a
    vague request needs a question first, that question. ``stored``: the text is a message
    already in the member's index (its own words do not count as things they said)."""
    if kinds_asked.is_question(text):
        answer = answers.answer_question(owner, text, found, asked_in_index=stored)
        if answer.kind == "no_memory" and reading is not None and reading.needs_clarification:
            return answers.Answer(reading.clarification, "clarify", reason=answer.reason)
        return answer
    if reading is not None and reading.needs_clarification:
        return answers.Answer(
            reading.clarification, "clarify", reason="The request is vague; asking first."
        )
    noted = answers.acknowledge(text)
    if reading is not None and (meaning := reasoning.resolved(reading)):
        noted.text = f"{noted.text} (I take it that {meaning.rstrip('.')}.)"
    return noted


def left_off(conversation: Conversation, message: Message) -> str:
    """On a new conversation's first message, where the last one left off (session recovery)."""
    earlier = conversation.messages.filter(role=Message.Role.USER, position__lt=message.position)
    if earlier.exists():
        return ""
    latest = narratives.latest(conversation.owner)
    if latest is None or latest.conversation_id == conversation.pk:
        return ""
    return f"Where you left off: {latest.summary}\n\n"


CHARS_PER_TOKEN = 4  # the budget's estimate: English runs about four characters a token


def _narrative_config(name: str):
    return settings.TALKINGROCK_NARRATIVES[name]


def where_things_stand(owner) -> str:
    """The running narrative, as ``narrative_search()`` answers it: in a new conversation this is
    where the member left off last time (session recovery)."""
    found = narratives.search_narratives(owner)
    if not found.narratives:
        return "There is no narrative yet: this is the start of the thread."
    latest = narratives.as_result(found.narratives[0])
    ids = ", ".join(f"id:{pk}" for pk in latest["memory_ids"]) or "none"
    return (
        f"Where things stand (narrative {latest['id']}, topic: {latest['topic'] or 'none'}): "
        f"{latest['summary']} Memories it rests on: {ids}. narrative_search walks the chain."
    )


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: max(limit - 1, 0)] + "…"


def compose(
    conversation: Conversation, message: Message, hits, observed=()
) -> list[dict[str, Any]]:
    """The messages sent to the model, under the token budget however long the conversation:
    the instructions, the running narrative, the memories recalled for this turn (and the most
    recent ones), then as many of the last exchanges as fit, newest first. Older turns are
    left out: the narrative carries them (seed 000's incremental compaction)."""
    owner = conversation.owner
    budget = _narrative_config("context_token_budget") * CHARS_PER_TOKEN
    name = owner.get_short_name() or owner.get_username()
    system = SYSTEM.format(name=name) + "\n\n" + where_things_stand(owner)
    if themes := reasoning.identity_context(owner)["text"]:
        system += f"\n\nWhat {name} keeps coming back to (Your Story's themes): {themes}."
    current = {"role": message.role, "content": _clip(message.content, budget // 3)}
    left = budget - len(system) - len(current["content"])

    shown = {hit.memory_id for hit in hits}
    recent = (
        Memory.objects.filter(owner=owner, status=Memory.Status.CONFIRMED, archived_at=None)
        .exclude(pk__in=shown)
        .order_by("-created_at")[: _config("recent_memories")]
    )
    memory_lines = [f"- [id:{hit.memory_id}] {line_of(hit)}" for hit in hits]
    memory_lines += [f"- [id:{memory.pk}] (recent) {memory.content}" for memory in recent]
    header = "Memories that bear on the message:" if hits else "No memory matched the message."
    kept, room = [header], min(left, budget * 2 // 5) - len(header)
    for line in memory_lines:
        line = _clip(line, 600)
        if len(line) + 1 > room:
            break
        kept.append(line)
        room -= len(line) + 1
    system += "\n\n" + "\n".join(kept)
    if observations := _clip(observation_context.block(list(observed)), budget // 5):
        system += "\n\n" + observations  # what the facts add up to, with what changed
    left = budget - len(system) - len(current["content"])

    earlier = (
        conversation.messages.exclude(role=Message.Role.SYSTEM)
        .filter(position__lt=message.position)
        .order_by("-position")[: 2 * _narrative_config("recent_exchanges")]
    )
    turns: list[dict[str, Any]] = []
    for turn in earlier:  # newest first, until the budget is spent
        content = _clip(turn.content, 1500)
        if len(content) > left:
            break
        turns.append({"role": turn.role, "content": content})
        left -= len(content)
    return [{"role": "system", "content": system}, *turns[::-1], current]


def _model_reply(
    conversation: Conversation, message: Message, hits, deadline: float, observed=()
) -> tuple[str, list[dict]]:
    owner = conversation.owner
    messages = compose(conversation, message, hits, observed)
    tools = [REGISTRY[tool].as_schema() for tool in CHAT_TOOLS]
    used: list[dict] = []
    for round_ in range(_config("tool_rounds") + 1):
        offered = tools if round_ < _config("tool_rounds") else None
        left = deadline - time.monotonic()
        if left <= 0:
            raise llm.LLMError("timeout", f"no answer within {_config('reply_timeout'):g} s")
        reply = llm.chat(messages, tools=offered, read_timeout=left)
        if not reply.tool_calls:
            return reply.content.strip(), used
        messages.append(
            {
                "role": "assistant",
                "content": reply.content,
                "tool_calls": [
                    {"function": {"name": call.name, "arguments": call.arguments}}
                    for call in reply.tool_calls
                ],
            }
        )
        for call in reply.tool_calls:
            if call.name not in CHAT_TOOLS:
                result: dict[str, Any] = {"error": f"No tool named '{call.name}' here."}
            else:
                try:
                    result = call_tool(owner, call.name, **call.arguments)
                except ToolError as error:
                    result = {"error": error.message}
            if call.name == "memory_query" and "results" in result:
                used += _record_query(conversation, message, call.arguments, result["results"])
            messages.append(
                {"role": "tool", "content": json.dumps(result)[:6000], "tool_name": call.name}
            )
    return "", used


def _record_query(conversation, message, arguments, results) -> list[dict]:
    """The model's own searches leave the same trail as recall()."""
    with transaction.atomic():
        trail = Recall.objects.create(
            owner=conversation.owner,
            query=str(arguments.get("query", ""))[:2000],
            purpose="chat:memory_query",
            conversation=conversation,
            message=message,
            parameters={key: value for key, value in arguments.items() if key != "query"},
        )
        RecallHit.objects.bulk_create(
            RecallHit(
                recall=trail,
                memory_id=row["id"],
                rank=rank,
                score=row["rank"],
                components={"keywords": row["factors"]},
                influence="found by the model's memory_query",
            )
            for rank, row in enumerate(results, start=1)
        )
    return [
        {"id": row["id"], "recall": trail.pk, "why": f"the model searched “{trail.query}”"}
        for row in results
    ]
