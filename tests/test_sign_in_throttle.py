"""Guessing is slowed down: wrong passwords lock a (username, address) out for a while, with a
clear page; guessed bearer tokens lock an address out of the tool API; weak passwords are
refused when a member is added."""

from __future__ import annotations

from datetime import timedelta

import pytest
from axes.models import AccessAttempt
from django.conf import settings
from django.urls import reverse

from talkingrock.forms import MemberForm
from tests.conftest import PASSWORD

LIMIT = settings.AXES_FAILURE_LIMIT


def sign_in(client, username: str, password: str, address: str = "127.0.0.1"):
    return client.post(
        reverse("login"), {"username": username, "password": password}, REMOTE_ADDR=address
    )


def signed_in(client) -> bool:
    return "_auth_user_id" in client.session


def test_thirty_wrong_passwords_then_the_right_one_does_not_sign_in(client, alice):
    for _ in range(30):
        sign_in(client, "alice", "wrong")

    response = sign_in(client, "alice", PASSWORD)

    assert response.status_code == 429
    assert "Too many wrong passwords" in response.content.decode()
    assert "Try again in 15 minutes" in response.content.decode()
    assert not signed_in(client)


def test_fewer_wrong_passwords_than_the_limit_still_let_the_member_in(client, alice):
    for _ in range(LIMIT - 1):
        sign_in(client, "alice", "wrong")

    assert sign_in(client, "alice", PASSWORD).status_code == 302
    assert signed_in(client)
    assert not AccessAttempt.objects.exists()  # a good sign-in clears the count


def test_a_lockout_is_per_username_and_address(client, alice, bob):
    for _ in range(LIMIT):
        sign_in(client, "alice", "wrong")

    assert sign_in(client, "alice", PASSWORD).status_code == 429  # locked here
    assert sign_in(client, "alice", PASSWORD, address="10.0.0.7").status_code == 302  # not there
    client.logout()
    assert sign_in(client, "bob", PASSWORD).status_code == 302  # bob at the same address is fine


def test_the_lockout_ends_after_the_cool_off(client, alice):
    for _ in range(LIMIT):
        sign_in(client, "alice", "wrong")
    assert sign_in(client, "alice", PASSWORD).status_code == 429

    for attempt in AccessAttempt.objects.all():  # the cool-off passes
        attempt.attempt_time -= settings.AXES_COOLOFF_TIME + timedelta(seconds=1)
        attempt.save()

    assert sign_in(client, "alice", PASSWORD).status_code == 302


def call(client, token: str, address: str = "127.0.0.1"):
    return client.post(
        "/api/tools/memory_query",
        {"query": "boiler"},
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {token}",
        REMOTE_ADDR=address,
    )


def test_guessed_tokens_lock_the_address_out_of_the_tool_api(client, alice_token):
    for n in range(LIMIT - 1):
        assert call(client, f"tr_guess{n}").status_code == 401
    assert call(client, "tr_guess_last").status_code == 429  # the one that reaches the limit

    locked = call(client, alice_token)

    assert locked.status_code == 429
    assert "Too many invalid tokens from this address" in locked.json()["error"]
    assert call(client, alice_token, address="10.0.0.7").status_code == 200


@pytest.mark.parametrize(
    ("username", "password", "why"),
    [
        ("maya", "maya1234", "too similar to the username"),
        ("maya", "7318290456", "entirely numeric"),
        ("maya", "password123", "too common"),
        ("maya", "short1", "too short"),
    ],
)
def test_weak_passwords_are_refused_for_a_new_member(db, username, password, why):
    form = MemberForm({"username": username, "password1": password, "password2": password})

    assert not form.is_valid()
    assert why in " ".join(form.errors["password2"])


def test_a_good_password_is_accepted(db):
    form = MemberForm(
        {"username": "maya", "password1": "plum-cake-on-sunday", "password2": "plum-cake-on-sunday"}
    )
    assert form.is_valid(), form.errors
