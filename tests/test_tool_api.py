"""The HTTP tool API: JSON in and out, bearer tokens, and a JSON error for every bad request."""

from __future__ import annotations

import hashlib
import json
import re
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.urls import reverse

from memories.models import Memory
from talkingrock.models import ApiToken
from talkingrock.tools import REGISTRY

MEMORY_TOOLS = {
    "memory_store",
    "memory_query",
    "memory_reinforce",
    "memory_demote",
    "memory_update",
}


def url(name: str) -> str:
    return reverse("api-tool", args=[name])


def call(client, name: str, body, *, token: str | None = None, **headers):
    """POST a tool call; ``body`` is JSON-encoded unless it is already bytes."""
    if token is not None:
        headers["HTTP_AUTHORIZATION"] = f"Bearer {token}"
    data = body if isinstance(body, bytes) else json.dumps(body)
    return client.post(url(name), data=data, content_type="application/json", **headers)


def error_of(response) -> str:
    assert response["Content-Type"] == "application/json"
    body = response.json()
    assert list(body) == ["error"] and body["error"]
    return body["error"]


# --- Listing -------------------------------------------------------------------------------


def test_the_tool_list_describes_every_tool_with_a_json_schema(client):
    response = client.get(reverse("api-tools"))

    assert response.status_code == 200
    tools = {tool["name"]: tool for tool in response.json()["tools"]}
    assert set(tools) == set(REGISTRY) >= MEMORY_TOOLS
    for tool in tools.values():
        assert tool["description"]
        assert tool["parameters"]["type"] == "object"
        assert tool["parameters"]["additionalProperties"] is False
    assert tools["memory_query"]["parameters"]["required"] == ["query"]
    assert tools["memory_store"]["parameters"]["properties"]["content"]["type"] == "string"
    assert tools["memory_reinforce"]["parameters"]["properties"]["id"]["type"] == "integer"


def test_posting_to_the_tool_list_is_a_json_405(client):
    response = client.post(reverse("api-tools"), data="{}", content_type="application/json")

    assert response.status_code == 405
    assert "GET" in response["Allow"]
    assert "GET" in error_of(response)


# --- Calling every tool ----------------------------------------------------------------------


def test_every_memory_tool_works_with_a_valid_token(client, alice, alice_token):
    stored = call(client, "memory_store", {"content": "Bins go out on Tuesday"}, token=alice_token)
    assert stored.status_code == 200
    memory_id = stored.json()["id"]

    found = call(client, "memory_query", {"query": "bins tuesday"}, token=alice_token)
    reinforced = call(client, "memory_reinforce", {"id": memory_id}, token=alice_token)
    demoted = call(client, "memory_demote", {"id": memory_id}, token=alice_token)
    updated = call(
        client,
        "memory_update",
        {"id": memory_id, "content": "Bins go out on Wednesday"},
        token=alice_token,
    )

    assert [r["id"] for r in found.json()["results"]] == [memory_id]
    assert reinforced.json()["score"] == 3
    assert demoted.json()["score"] == 2
    assert updated.json()["content"] == "Bins go out on Wednesday"
    assert updated.json()["score"] == 2
    for response in (found, reinforced, demoted, updated):
        assert response.status_code == 200
        assert response["Content-Type"] == "application/json"
    assert Memory.objects.get(pk=memory_id).owner == alice


def test_a_call_records_when_the_token_was_last_used(client, alice, alice_token):
    token = ApiToken.objects.get(owner=alice)
    assert token.last_used_at is None

    call(client, "memory_query", {"query": "anything"}, token=alice_token)

    token.refresh_from_db()
    assert token.last_used_at is not None


def test_the_bearer_scheme_is_case_insensitive_and_spaces_are_forgiven(client, alice_token):
    response = call(
        client, "memory_query", {"query": "x"}, HTTP_AUTHORIZATION=f"bearer   {alice_token}  "
    )

    assert response.status_code == 200


# --- Authentication --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "header",
    [
        None,
        "",
        "Bearer",
        "Bearer ",
        "Token {token}",
        "Basic YWxpY2U6cGFzc3dvcmQ=",
        "Bearer not-a-token",
        "Bearer {token}x",
        "Bearer tr_été",
        "{token}",
    ],
)
def test_a_missing_or_malformed_or_wrong_token_is_a_json_401(client, alice_token, header):
    headers = {} if header is None else {"HTTP_AUTHORIZATION": header.format(token=alice_token)}

    response = call(client, "memory_store", {"content": "Sneaky"}, **headers)

    assert response.status_code == 401
    assert response["WWW-Authenticate"].startswith("Bearer")
    assert error_of(response)
    assert not Memory.objects.exists()


def test_a_revoked_token_is_a_json_401(client, alice, alice_token):
    ApiToken.objects.filter(owner=alice).delete()

    response = call(client, "memory_query", {"query": "x"}, token=alice_token)

    assert response.status_code == 401
    assert "revoked" in error_of(response)


def test_the_token_of_a_deactivated_member_is_a_json_401(client, alice, alice_token):
    alice.is_active = False
    alice.save()

    response = call(client, "memory_query", {"query": "x"}, token=alice_token)

    assert response.status_code == 401


def test_a_logged_in_session_is_not_a_token(alice_client):
    response = call(alice_client, "memory_query", {"query": "x"})

    assert response.status_code == 401


# --- Bad requests ----------------------------------------------------------------------------


ODD_BODIES = [
    b"",
    b"null",
    b"[]",
    b"42",
    b'"a string"',
    b"{",
    b'{"query": null}',
    b'{"id": null, "content": null}',
    b"\xff\xfe\x00i\x00d",
    b'{"query": "x", "limit": 100000000000000000000000000}',
    b'{"id": 100000000000000000000000000, "content": "x"}',
    b'{"query": {"nested": {"deeper": [1, {"id": 2}]}}}',
    b'{"id": {"id": 1}, "content": ["x"]}',
    b'{"query": "x", "limit": NaN}',
    b'{"query": "x", "limit": Infinity}',
    b'{"content": "\\ud800", "query": "\\udfff"}',
    b"[" * 100_000,
    b'{"a": ' * 100_000,
]


@pytest.mark.parametrize("name", sorted(MEMORY_TOOLS))
def test_odd_bodies_never_cause_a_500(client, alice, alice_token, name):
    for body in ODD_BODIES:
        response = call(client, name, body, token=alice_token)

        assert response.status_code in (400, 404), (body[:40], response.content[:200])
        assert error_of(response)
    assert not Memory.objects.exists()


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"not json at all", "JSON object"),
        (b"[1, 2]", "JSON object"),
        (b'{"content": 5}', "'content' must be of type string"),
        (b'{"content": "x", "tags": 3}', "'tags' must be of type string or array"),
        (b'{"content": "x", "colour": "red"}', "Unknown argument(s) for memory_store: colour"),
        (b'{"content": "x", "user": "bob", "name": "y"}', "Unknown argument(s)"),
    ],
)
def test_a_bad_body_is_a_json_400_with_a_message(client, alice_token, body, message):
    response = call(client, "memory_store", body, token=alice_token)

    assert response.status_code == 400
    assert message in error_of(response)


def test_a_body_over_the_upload_limit_is_a_json_400(client, alice_token, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1_000

    response = call(client, "memory_store", {"content": "x" * 2_000}, token=alice_token)

    assert response.status_code == 400
    assert "too large" in error_of(response)


def test_an_unknown_tool_is_a_json_404(client, alice_token):
    response = call(client, "memory_forget", {"id": 1}, token=alice_token)

    assert response.status_code == 404
    assert "memory_forget" in error_of(response)


@pytest.mark.parametrize("method", ["get", "put", "delete"])
def test_a_tool_answers_other_methods_with_a_json_405(client, alice_token, method):
    response = getattr(client, method)(
        url("memory_query"), HTTP_AUTHORIZATION=f"Bearer {alice_token}"
    )

    assert response.status_code == 405
    assert response["Allow"] == "POST"
    assert "POST" in error_of(response)


def test_a_missing_memory_is_a_json_404(client, alice_token):
    response = call(client, "memory_reinforce", {"id": 987654}, token=alice_token)

    assert response.status_code == 404
    assert error_of(response) == "Memory 987654 not found."


def test_another_members_memory_is_a_json_404_like_a_missing_one(client, bob, remember):
    alices = remember("Alice's diary entry")
    bobs_token = ApiToken.issue(owner=bob, name="bob's assistant")[1]

    response = call(client, "memory_demote", {"id": alices.pk}, token=bobs_token)

    assert response.status_code == 404
    assert error_of(response) == f"Memory {alices.pk} not found."
    alices.refresh_from_db()
    assert alices.score == 0


# --- Tokens: hashed, printed by the command, managed on the settings page --------------------


def test_tokens_are_stored_hashed(alice, alice_token):
    with connection.cursor() as cursor:
        cursor.execute("SELECT * FROM talkingrock_apitoken")
        rows = cursor.fetchall()

    assert len(rows) == 1
    stored = " ".join(str(value) for value in rows[0])
    assert alice_token not in stored
    assert alice_token[len("tr_") :] not in stored
    assert hashlib.sha256(alice_token.encode()).hexdigest() in stored


def test_two_tokens_are_different(alice):
    first = ApiToken.issue(owner=alice, name="one")[1]
    second = ApiToken.issue(owner=alice, name="two")[1]

    assert first != second
    assert len(first) >= 40


def test_the_token_command_prints_a_working_token_as_its_last_line(client, alice):
    out = StringIO()

    call_command("token", "create", "--user", "alice", stdout=out, stderr=StringIO())

    token = out.getvalue().strip().splitlines()[-1]
    assert ApiToken.objects.get(owner=alice).name == "command line"
    response = call(client, "memory_store", {"content": "Stored from a script"}, token=token)
    assert response.status_code == 200
    assert Memory.objects.get(pk=response.json()["id"]).owner == alice


def test_the_token_list_command_shows_hints_never_tokens(alice, alice_token):
    out = StringIO()

    call_command("token", "list", "--user", "alice", stdout=out)

    assert ApiToken.objects.get(owner=alice).hint in out.getvalue()
    assert alice_token not in out.getvalue()


def test_the_token_command_refuses_an_unknown_member(db):
    with pytest.raises(CommandError, match="No member named 'carol'"):
        call_command("token", "create", "--user", "carol", stdout=StringIO())


def test_the_settings_page_shows_a_new_token_once(client, alice_client, alice):
    response = alice_client.post(reverse("settings"), {"name": "Laptop assistant"})

    assert response.status_code == 200
    token = ApiToken.objects.get(owner=alice)
    assert token.name == "Laptop assistant"
    # One token, shown on its own and in the MCP client block beside it.
    [raw] = set(re.findall(rf"{re.escape(token.hint)}[\w-]+", response.content.decode()))
    assert hashlib.sha256(raw.encode()).hexdigest() == token.token_hash
    reload = alice_client.get(reverse("settings")).content.decode()
    assert raw not in reload
    assert "Laptop assistant" in reload
    assert call(client, "memory_query", {"query": "x"}, token=raw).status_code == 200


def test_a_member_revokes_a_token_on_the_settings_page(client, alice_client, alice, alice_token):
    token = ApiToken.objects.get(owner=alice)

    response = alice_client.post(reverse("token-revoke", args=[token.pk]))

    assert response.status_code == 302
    assert response.url == reverse("settings")
    assert not ApiToken.objects.exists()
    assert call(client, "memory_query", {"query": "x"}, token=alice_token).status_code == 401


def test_revoking_needs_a_post(alice_client, alice, alice_token):
    token = ApiToken.objects.get(owner=alice)

    assert alice_client.get(reverse("token-revoke", args=[token.pk])).status_code == 405
    assert ApiToken.objects.filter(pk=token.pk).exists()


def test_a_member_cannot_revoke_another_members_token(bob_client, alice, alice_token):
    token = ApiToken.objects.get(owner=alice)

    response = bob_client.post(reverse("token-revoke", args=[token.pk]))

    assert response.status_code == 404
    assert ApiToken.objects.filter(pk=token.pk).exists()


def test_the_settings_page_lists_only_the_members_own_tokens(bob_client, alice, bob):
    ApiToken.issue(owner=alice, name="Alice's phone")
    ApiToken.issue(owner=bob, name="Bob's laptop")

    html = bob_client.get(reverse("settings")).content.decode()

    assert "Bob&#x27;s laptop" in html
    assert "Alice&#x27;s phone" not in html
