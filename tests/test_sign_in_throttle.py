"""Guessing is slowed down: wrong passwords lock a (username, address) out for a while, and a
username out from everywhere once guesses spread over many addresses reach the limit, with a
clear page; a browser the member signed in with before is held only to its own count; bad bearer
tokens are counted per token and address, and a valid token is never refused for someone else's
failures; weak passwords are refused when a member is added."""

from __future__ import annotations

from datetime import timedelta

import pytest
from axes.models import AccessAttempt
from django.conf import settings
from django.test import Client
from django.urls import reverse

from household import throttle
from household.forms import MemberForm
from talkingrock.models import ApiToken
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


def test_a_lockout_from_one_address_does_not_touch_other_members(client, alice, bob):
    for _ in range(LIMIT):
        sign_in(client, "alice", "wrong")

    assert sign_in(client, "alice", PASSWORD).status_code == 429  # locked here
    assert sign_in(client, "bob", PASSWORD).status_code == 302  # bob at the same address is fine


def test_guesses_spread_over_many_addresses_are_limited_per_account(client, alice):
    """The attack: 4 wrong passwords from each of 20 loopback addresses, 80 guesses, were all
    answered, and the right password then signed in. Now the account is paused once the
    guesses reach the limit, wherever they come from."""
    answered = 0
    for n in range(20):
        for _ in range(LIMIT - 1):
            if sign_in(client, "alice", "wrong", address=f"127.0.0.{n + 2}").status_code != 429:
                answered += 1

    right = sign_in(Client(), "alice", PASSWORD, address="127.0.0.99")

    assert answered == LIMIT - 1  # the one that reaches the limit is refused, and all after
    assert right.status_code == 429 and "_auth_user_id" not in right.wsgi_request.session


def test_the_members_usual_browser_is_not_locked_out_by_guesses_elsewhere(alice):
    usual = Client()
    assert sign_in(usual, "alice", PASSWORD).status_code == 302  # the device cookie is set
    usual.post(reverse("logout"))  # signing out keeps the device cookie (Client.logout drops all)
    for n in range(LIMIT * 3):
        sign_in(Client(), "alice", "wrong", address=f"10.0.0.{n + 1}")

    assert sign_in(Client(), "alice", PASSWORD, address="10.0.0.200").status_code == 429
    assert sign_in(usual, "alice", PASSWORD).status_code == 302
    assert signed_in(usual)


def test_a_device_cookie_buys_no_more_than_its_own_count(alice):
    usual = Client()
    assert sign_in(usual, "alice", PASSWORD).status_code == 302
    usual.post(reverse("logout"))  # signing out keeps the device cookie (Client.logout drops all)
    for _ in range(LIMIT):
        sign_in(usual, "alice", "wrong")

    assert sign_in(usual, "alice", PASSWORD).status_code == 429


def test_a_forged_device_cookie_is_not_trusted(client, alice):
    for n in range(LIMIT):
        sign_in(Client(), "alice", "wrong", address=f"10.0.1.{n + 1}")
    client.cookies[throttle.DEVICE_COOKIE] = "alice"  # not signed by the server

    assert sign_in(client, "alice", PASSWORD).status_code == 429


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


def test_a_revoked_token_is_stopped_but_a_valid_one_from_the_same_address_works(
    client, alice, alice_token, bob
):
    """The attack: three bad tokens from 127.0.0.1 made /api and /mcp answer 429 to every
    member's valid token from that address for 15 minutes."""
    revoked = ApiToken.issue(owner=bob, name="old phone")
    revoked[0].delete()
    answers = [call(client, revoked[1]).status_code for _ in range(LIMIT + 2)]

    assert answers == [401] * (LIMIT - 1) + [429] * 3
    assert call(client, alice_token).status_code == 200
    assert "Too many invalid tokens" in call(client, revoked[1]).json()["error"]


def test_many_guessed_tokens_from_one_address_never_block_a_valid_one(client, alice_token):
    answers = [call(client, f"tr_guess{n}").status_code for n in range(LIMIT * 4)]

    assert answers[: LIMIT - 1] == [401] * (LIMIT - 1) and set(answers[LIMIT:]) == {429}
    assert call(client, alice_token).status_code == 200
    assert AccessAttempt.objects.count() <= LIMIT  # the locked-out ones are not recorded


def test_bad_tokens_do_not_lock_anyone_out_of_signing_in(client, alice, alice_token):
    for n in range(LIMIT * 2):
        call(client, f"tr_guess{n}")

    assert sign_in(client, "alice", PASSWORD).status_code == 302


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
