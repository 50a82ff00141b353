"""Hostile input gets a clear refusal or is cleaned, and never a server error: control characters
in every text argument of every tool and every text field of every form, integers of any size
in every integer argument, and bodies sent chunked. Afterwards no stored text anywhere holds a
control character (talkingrock/text.py: one rule at every write boundary)."""

from __future__ import annotations

import io
import json
from datetime import date
from typing import Any

import pytest
from django.apps import apps
from django.db import models
from django.test import RequestFactory
from django.urls import reverse

from conversations import questions, review, sentence_values, services
from household import api
from memories.models import Act, Memory, MemoryItem, Recall, RecallHit
from narratives import services as narratives
from talkingrock.language import amounts, dates
from talkingrock.models import ApiToken
from talkingrock.text import has_control, shortened
from talkingrock.tools import REGISTRY, ToolError, call_tool
from tests.support import page_form

# NUL, bell, escape (a terminal colour code), DEL, a C1 control, a lone surrogate, a BOM-free
# mixture of line endings, with real text around them.
HOSTILE = "fix the \x00 fence\x07 \x1b[31mred\x1b[0m \x7f\x85 \ud800 then\r\nnext\rline\ttab"
# A form arrives as UTF-8 bytes, which cannot hold a lone surrogate.
FORM_HOSTILE = HOSTILE.replace("\ud800", "")
HUGE = [2**63, 10**30, -(2**63) - 1, -1, 0]
APPS = ("memories", "conversations", "narratives", "talkingrock")
SAID_ON = date(2026, 9, 1)


def strings(value) -> list[str]:
    """Every string in a JSON value, keys included."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [text for key, item in value.items() for text in (*strings(key), *strings(item))]
    if isinstance(value, list):
        return [text for item in value for text in strings(item)]
    return []


def dirty_text() -> list[str]:
    """Every stored text (char, text and JSON columns of the project's models) that still holds
    a control character: none but newline and tab where a text may have lines, none at all in
    one-line (char) columns."""
    found = []
    for model in apps.get_models():
        if model._meta.app_label not in APPS:
            continue
        fields = [
            f
            for f in model._meta.concrete_fields
            if isinstance(f, models.CharField | models.TextField | models.JSONField)
        ]
        for row in model.objects.values_list("pk", *(f.name for f in fields)):
            for field, value in zip(fields, row[1:], strict=True):
                oneline = isinstance(field, models.CharField)
                for text in strings(value):
                    if has_control(text, multiline=not oneline):
                        found.append(f"{model.__name__}.{field.name} #{row[0]}: {text[:80]!r}")
    return found


@pytest.fixture
def household(alice, remember, index, django_capture_on_commit_callbacks):
    """A memory, an act, an archived conversation with a kept memory and items, an open
    conversation waiting for review with a draft, and a narrative."""
    act = Act.objects.create(owner=alice, title="Kitchen")
    memory = remember("The boiler hums", tags="heating")
    conversation, _ = services.add_message(owner=alice, content="We chose quartz for the kitchen.")
    services.add_message(owner=alice, content="Waiting on Dave for the quote.")
    services.request_close(conversation=conversation)
    with django_capture_on_commit_callbacks(execute=True):
        services.confirm_close(conversation=conversation)
    kept = review.confirm(conversation=conversation)[0]
    pending, _ = services.add_message(owner=alice, content="Should we tile the floor?")
    services.request_close(conversation=pending)
    with django_capture_on_commit_callbacks(execute=True):
        services.confirm_close(conversation=pending)
    draft = review.draft_of(pending)
    narrative = narratives.create(owner=alice, summary="Quartz won.", memory_ids=[kept.pk])
    index(alice)
    return {
        "id": memory.pk,
        "memory_id": draft.pk,
        "conversation_id": pending.pk,
        "act_id": act.pk,
        "destination_act_id": act.pk,
        "previous_narrative_id": narrative.pk,
        "memory_ids": [memory.pk],
        "items_to_remove": [draft.items.first().pk] if draft.items.exists() else [],
        "kept": kept,
        "draft": draft,
        "pending": pending,
        "act": act,
    }


def sane(schema: dict[str, Any], name: str, ids: dict[str, Any]) -> Any:
    """A valid value for one argument, so that the hostile one is what gets tested."""
    if name in ids:
        return ids[name]
    kinds = schema.get("type")
    kind = kinds[0] if isinstance(kinds, list) else kinds
    if "enum" in schema:
        return schema["enum"][0]
    return {
        "string": "kitchen",
        "integer": 1,
        "boolean": False,
        "array": [],
        "object": {},
    }.get(kind)


def arguments(tool, ids, **override) -> dict[str, Any]:
    properties = tool.parameters["properties"]
    args = {name: sane(properties[name], name, ids) for name in tool.parameters["required"]}
    return args | override


def text_arguments():
    for tool in REGISTRY.values():
        for name, schema in tool.parameters["properties"].items():
            kinds = schema.get("type")
            kinds = kinds if isinstance(kinds, list) else [kinds]
            if "string" in kinds and "enum" not in schema:
                yield pytest.param(tool.name, name, id=f"{tool.name}.{name}")
            if name == "items_to_add":
                yield pytest.param(tool.name, name, id=f"{tool.name}.{name}")


@pytest.mark.parametrize(("tool_name", "argument"), list(text_arguments()))
def test_control_characters_in_every_text_argument_are_cleaned_or_refused(
    alice, household, tool_name, argument
):
    tool = REGISTRY[tool_name]
    value: Any = HOSTILE
    if argument == "items_to_add":
        value = [{"type": "task", "text": HOSTILE, "detail": HOSTILE}]
    if argument == "summary":
        value = "Quartz \x00won\x1b over \ud800 butcher block."
    try:
        answer = call_tool(alice, tool_name, **arguments(tool, household, **{argument: value}))
    except ToolError as error:
        assert 400 <= error.status < 500, error.message
    else:
        json.dumps(answer)  # every answer is plain JSON
    assert dirty_text() == []


def integer_arguments():
    """(tool, argument, inside a list, a number out of its bounds) for every integer argument."""
    for tool in REGISTRY.values():
        for name, schema in tool.parameters["properties"].items():
            kinds = schema.get("type")
            kinds = kinds if isinstance(kinds, list) else [kinds]
            listed = "array" in kinds and "integer" in str(schema.get("items", {}).get("type"))
            if "integer" not in kinds and not listed:
                continue
            bounds = schema["items"] if listed else schema
            for number in HUGE:
                if not bounds["minimum"] <= number <= bounds["maximum"]:  # offset 0 is fine
                    yield pytest.param(
                        tool.name, name, listed, number, id=f"{tool.name}.{name}={number}"
                    )


@pytest.mark.parametrize(("tool_name", "argument", "listed", "number"), list(integer_arguments()))
def test_integers_of_any_size_are_refused_with_400(alice, tool_name, argument, listed, number):
    # Refused by the schema before any row is looked at: the other arguments need only be valid.
    household = {name: 1 for name in ("id", "memory_id", "conversation_id", "act_id")}
    tool = REGISTRY[tool_name]
    with pytest.raises(ToolError) as refused:
        call_tool(
            alice,
            tool_name,
            **arguments(tool, household, **{argument: [number] if listed else number}),
        )
    assert refused.value.status == 400
    assert argument in refused.value.message


def test_every_integer_of_every_tool_is_bounded():
    for tool in REGISTRY.values():
        for name, schema in tool.parameters["properties"].items():
            inner = schema.get("items", schema)
            if "integer" in str(inner.get("type")):
                assert {"minimum", "maximum"} <= set(inner), f"{tool.name}.{name}"


def test_an_unknown_item_type_is_a_bad_argument(alice, household):
    with pytest.raises(ToolError) as refused:
        call_tool(
            alice,
            "edit_memory",
            memory_id=household["kept"].pk,
            items_to_add=[{"type": "wish", "text": "a pony"}],
        )
    assert refused.value.status == 400
    assert "'items_to_add[0].type' must be one of" in refused.value.message


def test_a_chunked_body_is_read(alice, alice_token):
    body = json.dumps({"content": "Sent in chunks, read whole"}).encode()
    request = RequestFactory().post(
        "/api/tools/memory_store",
        HTTP_AUTHORIZATION=f"Bearer {alice_token}",
        HTTP_TRANSFER_ENCODING="chunked",
        content_type="application/json",
    )
    # As gunicorn hands it over: no Content-Length, the decoded stream, and the flag saying so.
    del request.META["CONTENT_LENGTH"]
    request.META["wsgi.input"] = io.BytesIO(body)
    request.META["wsgi.input_terminated"] = True

    response = api.run_tool(request, "memory_store")

    assert response.status_code == 200, response.content
    assert json.loads(response.content)["content"] == "Sent in chunks, read whole"


def test_a_chunked_body_a_server_cannot_read_is_refused_not_taken_as_empty(alice, alice_token):
    request = RequestFactory().post(
        "/api/tools/memory_store",
        HTTP_AUTHORIZATION=f"Bearer {alice_token}",
        HTTP_TRANSFER_ENCODING="chunked",
        content_type="application/json",
    )
    del request.META["CONTENT_LENGTH"]

    response = api.run_tool(request, "memory_store")

    assert response.status_code == 411
    assert "Content-Length" in json.loads(response.content)["error"]


# --- every text field of every form -------------------------------------------------------


def form_posts(household, client):
    """(url, data) for every form that writes text."""
    draft, act = household["draft"], household["act"]
    item = draft.items.first()
    review_url = reverse("conversations:review", args=[household["pending"].pk])
    review = page_form.form_data(client.get(review_url).content, "review-form")
    new = page_form.new_row(review, "item")
    review |= {"action": "save", "narrative": FORM_HOSTILE, f"{new}-type": "task"}
    review |= {f"{new}-main": FORM_HOSTILE, f"{new}-detail": FORM_HOSTILE}
    if item is not None:
        at = page_form.row(review, "item", item.pk)
        review |= {f"{at}-main": FORM_HOSTILE, f"{at}-detail": FORM_HOSTILE}
    return [
        (
            reverse("memories:create"),
            {"content": FORM_HOSTILE, "tags": FORM_HOSTILE, "act": act.pk},
        ),
        (
            reverse("memories:edit", args=[household["id"]]),
            {"content": FORM_HOSTILE, "tags": FORM_HOSTILE, "act": act.pk},
        ),
        (reverse("conversations:acts"), {"title": FORM_HOSTILE, "description": FORM_HOSTILE}),
        (
            # Another title than the act just made: two acts of one name are refused.
            reverse("conversations:act-edit", args=[act.pk]),
            {"title": FORM_HOSTILE + " 2", "description": FORM_HOSTILE},
        ),
        (review_url, review),
        (reverse("settings"), {"name": FORM_HOSTILE}),
        (
            reverse("members"),
            {"username": "x\x00y", "password1": FORM_HOSTILE, "password2": FORM_HOSTILE},
        ),
        (reverse("conversations:resume", args=[household["pending"].pk]), {}),
        (reverse("conversations:send"), {"content": FORM_HOSTILE}),
    ]


def test_control_characters_in_every_form_field_are_cleaned_or_refused(alice_client, household):
    for url, data in form_posts(household, alice_client):
        response = alice_client.post(url, data)
        assert response.status_code < 500, url
        assert dirty_text() == [], url
        if "review" in url:  # cleaned, not dropped: the words around them were kept
            assert MemoryItem.objects.filter(data__description__icontains="fence").exists()
    assert Memory.objects.filter(content__startswith="fix the  fence").count() == 2  # new, edited
    assert Act.objects.filter(title__startswith="fix the  fence").count() == 2
    assert ApiToken.objects.filter(name__startswith="fix the  fence").exists()


def test_the_recall_trail_and_a_replys_memory_list_store_clean_json(alice):
    # The model's own tool arguments land in these: an escape code there made a backup unrestorable.
    trail = Recall.objects.create(
        owner=alice, query="boiler\x1b", purpose="chat", parameters={"limit\x00": "5\x1b"}
    )
    RecallHit.objects.create(recall=trail, rank=1, score=1.0, components={"why": "\x07bell"})

    assert dirty_text() == []
    trail.refresh_from_db()
    assert trail.parameters == {"limit": "5"} and trail.query == "boiler"


@pytest.mark.parametrize(
    ("text", "kwargs", "shown"),
    [
        ("the boiler\n\thums  in winter", {"chars": 60}, "the boiler hums in winter"),
        ("a" * 80, {"chars": 10}, "a" * 9 + "…"),
        ("one two three four five", {"words": 3}, "one two three…"),
    ],
)
def test_a_text_named_in_a_line_is_one_line_and_cut_with_an_ellipsis(text, kwargs, shown):
    assert shortened(text, **kwargs) == shown


# A message at its cap (10,000 characters) of one phrase pasted over and over. The readers of
# language read such a run in a time that grows with its length (bench/hostile_text.py prints
# the figures); these tests hold what they make of it.
AT_THE_CAP = 1_200


def test_a_run_of_number_words_at_the_cap_is_no_amount_and_no_room():
    run = "room " + "two " * (AT_THE_CAP * 2) + "and a half hours"

    assert amounts.find(run) == []
    assert sentence_values.value_in(run, "number", said_on=SAID_ON, about=frozenset({"room"})) == ""


def test_a_run_of_days_at_the_cap_is_read_day_by_day():
    run = "aug 8 then " + "the 3rd " * AT_THE_CAP

    found = dates.find(run, today=SAID_ON, lean="past")

    assert [m.said_as for m in found] == ["date"] + ["day"] * AT_THE_CAP
    assert {m.day for m in found[1:]} == {date(2026, 8, 3)}  # the month named before them


def test_a_run_of_whitespace_and_asides_at_the_cap_leaves_the_question():
    question = "what room is gran in" + " " * 9_000 + "now im posting her a parcel"

    assert questions.asked_part(question) == "what room is gran in"
