"""A household admin's password reset is never silent and never hands the admin a password.

The attack it closes: alice (an admin) set bob's password, signed in as bob and read his memories,
and bob was never told. Now a reset signs bob out and revokes his tokens, alice gets a one-time
link (never a password), and bob is told who reset it and when, at sign-in and on Settings, from
a record alice cannot edit.
"""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.tokens import default_token_generator
from django.contrib.messages import get_messages
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from talkingrock.models import ApiToken, PasswordReset
from tests.conftest import PASSWORD

User = get_user_model()
NEW = "a kettle in the orchard"
LINK = re.compile(r'<code id="reset-link">https?://[^/]+(/accounts/reset/[^<]+)</code>')


def reset(alice_client, member) -> str:
    """Alice resets ``member``'s password; the path of the one-time link she is shown."""
    response = alice_client.post(reverse("member-reset", args=[member.pk]))
    assert response.status_code == 200
    return LINK.search(response.content.decode()).group(1)


def use_link(client, path: str, password: str = NEW):
    """Open the link and choose a password, as the member would."""
    page = client.get(path, follow=True)
    assert "Choose a new password" in page.content.decode()
    return client.post(
        page.redirect_chain[-1][0] if page.redirect_chain else path,
        {"new_password1": password, "new_password2": password},
        follow=True,
    )


def sign_in(client, username: str, password: str):
    return client.post(reverse("login"), {"username": username, "password": password}, follow=True)


def said(response) -> list[str]:
    return [str(m) for m in get_messages(response.wsgi_request)]


@pytest.fixture
def admin_client_(alice):
    browser = Client()
    browser.force_login(alice)
    return browser


def test_the_members_page_offers_a_reset_for_others_only(admin_client_, alice, bob):
    page = admin_client_.get(reverse("members")).content.decode()

    assert reverse("member-reset", args=[bob.pk]) in page
    assert reverse("member-reset", args=[alice.pk]) not in page


def test_asking_changes_nothing_and_says_what_a_reset_does(admin_client_, bob):
    ApiToken.issue(owner=bob, name="bob's phone")

    page = admin_client_.get(reverse("member-reset", args=[bob.pk])).content.decode()

    bob.refresh_from_db()
    assert bob.check_password(PASSWORD) and ApiToken.objects.filter(owner=bob).count() == 1
    assert "signs <strong>bob</strong> out everywhere" in page
    assert "revokes their API tokens (1)" in page
    assert 'type="password"' not in page  # the admin never types a password for a member


def test_a_reset_signs_the_member_out_and_revokes_their_tokens(admin_client_, alice, bob):
    bobs_browser = Client()
    assert sign_in(bobs_browser, "bob", PASSWORD).redirect_chain
    ApiToken.issue(owner=bob, name="bob's phone")

    done = admin_client_.post(reverse("member-reset", args=[bob.pk])).content.decode()

    bob.refresh_from_db()
    assert not bob.has_usable_password() and not bob.check_password(PASSWORD)
    assert not ApiToken.objects.filter(owner=bob).exists()
    assert bobs_browser.get(reverse("settings")).status_code == 302  # signed out
    record = PasswordReset.objects.get(member=bob)
    assert (record.reset_by, record.reset_by_name, record.tokens_revoked) == (alice, "alice", 1)
    assert record.expires_at - record.created_at <= timedelta(days=1)
    assert "their 1 API token was revoked" in done and "works once" in done
    assert 'type="password"' not in done


def test_the_member_sets_their_own_password_with_the_link_and_is_told(admin_client_, bob):
    path = reset(admin_client_, bob)
    bobs_browser = Client()

    landed = use_link(bobs_browser, path)

    bob.refresh_from_db()
    assert bob.check_password(NEW)
    assert landed.wsgi_request.user == bob  # signed in, on Settings
    told = " ".join(said(landed))
    assert "Your password was reset by alice on" in told
    assert "A new password was set with its one-time link on" in told
    assert "Your password was reset by alice on" in landed.content.decode()  # Settings keeps it
    assert PasswordReset.objects.get(member=bob).used_at is not None


def test_the_link_works_once(admin_client_, bob):
    path = reset(admin_client_, bob)
    use_link(Client(), path)

    again = Client().get(path, follow=True)

    assert "This link no longer works" in again.content.decode()
    bob.refresh_from_db()
    assert bob.check_password(NEW)


def test_a_second_reset_voids_the_first_link(admin_client_, bob):
    first = reset(admin_client_, bob)
    reset(admin_client_, bob)

    assert "This link no longer works" in Client().get(first, follow=True).content.decode()


def test_the_link_expires_within_a_day(admin_client_, bob, monkeypatch):
    path = reset(admin_client_, bob)
    later = default_token_generator._now() + timedelta(days=1, minutes=1)
    monkeypatch.setattr(default_token_generator, "_now", lambda: later)

    assert "This link no longer works" in Client().get(path, follow=True).content.decode()


def test_an_admin_who_uses_the_link_cannot_hide_it_from_the_member(admin_client_, alice, bob):
    """The takeover the issue measured, tried again: alice resets bob's password and opens the
    link herself. She is in, but bob's own password stops working, and the next time bob signs
    in (with a new link) he reads both resets, and that a password was set with the first."""
    hers = Client()
    use_link(hers, reset(admin_client_, bob), password="alice was here 1")
    # Whatever alice does as bob, the notice is not something she can dismiss: sign in again.
    sign_in(hers, "bob", "alice was here 1")

    assert not sign_in(Client(), "bob", PASSWORD).wsgi_request.user.is_authenticated
    bobs = Client()
    landed = use_link(bobs, reset(admin_client_, bob))

    told = said(landed)
    assert len(told) == 2 and all("reset by alice" in line for line in told)
    assert sum("A new password was set with its one-time link" in line for line in told) == 2
    settings_page = bobs.get(reverse("settings")).content.decode()
    assert settings_page.count("Your password was reset by alice") == 2


def test_the_notice_is_said_at_every_sign_in_for_a_month_and_kept_on_settings(admin_client_, bob):
    use_link(Client(), reset(admin_client_, bob))

    for _ in range(2):
        assert any("reset by alice" in line for line in said(sign_in(Client(), "bob", NEW)))
    PasswordReset.objects.update(created_at=timezone.now() - timedelta(days=31))
    browser = Client()
    assert not said(sign_in(browser, "bob", NEW))
    assert "Your password was reset by alice" in browser.get(reverse("settings")).content.decode()


def test_the_record_is_on_no_admin_page_and_no_url_changes_it(admin_client_):
    assert PasswordReset not in admin.site._registry
    assert not any("passwordreset" in str(p.pattern) for p in admin.site.get_urls())


def test_the_admins_own_password_form_for_a_member_leads_to_the_reset(admin_client_, alice, bob):
    url = reverse("admin:auth_user_password_change", args=[bob.pk])
    typed = {"password1": "taken over now", "password2": "taken over now"}

    got = admin_client_.get(url)
    posted = admin_client_.post(url, typed)
    own = admin_client_.get(reverse("admin:auth_user_password_change", args=[alice.pk]))

    bob.refresh_from_db()
    assert got.status_code == posted.status_code == 302
    assert got.url == posted.url == reverse("member-reset", args=[bob.pk])
    assert bob.check_password(PASSWORD) and not PasswordReset.objects.exists()
    assert own.url == reverse("password-change")  # with the current password


def test_an_admin_cannot_reset_their_own_password_there(admin_client_, alice):
    response = admin_client_.post(reverse("member-reset", args=[alice.pk]))

    alice.refresh_from_db()
    assert response.status_code == 302 and response.url == reverse("members")
    assert alice.check_password(PASSWORD) and not PasswordReset.objects.exists()


def test_only_household_admins_reset_passwords(client, alice, bob):
    client.force_login(bob)
    assert client.get(reverse("member-reset", args=[alice.pk])).status_code == 403
    assert client.post(reverse("member-reset", args=[alice.pk])).status_code == 403
    client.logout()
    signed_out = client.post(reverse("member-reset", args=[alice.pk]))

    alice.refresh_from_db()
    assert signed_out.status_code == 302 and signed_out.url.startswith(reverse("login"))
    assert alice.check_password(PASSWORD) and not PasswordReset.objects.exists()


def test_a_member_changes_their_own_password_with_the_current_one(client, bob):
    client.force_login(bob)
    wrong = client.post(
        reverse("password-change"),
        {"old_password": "not it", "new_password1": NEW, "new_password2": NEW},
    )
    right = client.post(
        reverse("password-change"),
        {"old_password": PASSWORD, "new_password1": NEW, "new_password2": NEW},
    )

    bob.refresh_from_db()
    assert wrong.status_code == 200 and right.status_code == 302
    assert bob.check_password(NEW)
    assert client.get(reverse("settings")).status_code == 200  # still signed in
