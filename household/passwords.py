"""A household admin resets a member's password, and it is never silent.

The admin never chooses or learns a password. ``reset`` makes the member's password unusable
(which ends every session they have: Django checks each session against the password's hash),
revokes their API tokens, writes the member's own record of it (``PasswordReset``), and gives the
admin a one-time link to hand over. The member opens it and sets a password of their own; the
link stops working once a password is set with it, when another reset is made, or after
``PASSWORD_RESET_TIMEOUT`` (a day). At every sign-in for ``NOTICE_DAYS`` the member is told who
reset it and when, and Settings keeps saying so for good.

An admin who opened the link themself could sign in as the member, but not quietly: the member's
own password no longer works, and whenever they are given a way back in, the record tells them.
Nothing the admin can do while signed in as the member makes the notice go away: it is not
"dismissed" or "seen", it is shown at every sign-in until it is a month old.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.tokens import default_token_generator
from django.db import transaction
from django.http import HttpRequest
from django.utils import timezone
from django.utils.encoding import force_bytes
from django.utils.formats import date_format
from django.utils.http import urlsafe_base64_encode

from talkingrock.models import ApiToken, PasswordReset

NOTICE_DAYS = 30  # a reset is said at every sign-in for this long; Settings keeps it always


@dataclass(frozen=True)
class Link:
    """What the admin hands over: the path of the member's one-time page, and until when."""

    uidb64: str
    token: str
    record: PasswordReset


def reset(*, member, by) -> Link:
    """Reset ``member``'s password on behalf of the admin ``by`` (never their own)."""
    if member.pk == by.pk:
        raise ValueError("An admin changes their own password with their current one.")
    now = timezone.now()
    with transaction.atomic():
        member.set_unusable_password()
        member.save(update_fields=["password"])
        revoked, _ = ApiToken.objects.filter(owner=member).delete()
        record = PasswordReset.objects.create(
            member=member,
            reset_by=by,
            reset_by_name=by.get_username(),
            created_at=now,
            expires_at=now + timedelta(seconds=settings.PASSWORD_RESET_TIMEOUT),
            tokens_revoked=revoked,
        )
    # The token hashes the password just set: it is void once the member sets another.
    return Link(
        uidb64=urlsafe_base64_encode(force_bytes(member.pk)),
        token=default_token_generator.make_token(member),
        record=record,
    )


def link_used(member) -> None:
    """The member set a new password with the latest reset's link."""
    latest = PasswordReset.objects.filter(member=member, used_at=None).first()
    if latest is not None:
        PasswordReset.objects.filter(pk=latest.pk).update(used_at=timezone.now())


def describe(record: PasswordReset) -> str:
    """The record in the member's words: who, when, and what became of the link."""
    when = date_format(timezone.localtime(record.created_at), "j F Y, H:i")
    said = f"Your password was reset by {record.reset_by_name} on {when}."
    if record.tokens_revoked:
        n = record.tokens_revoked
        said += f" Your {n} API token{'s were' if n != 1 else ' was'} revoked."
    if record.used_at:
        used = date_format(timezone.localtime(record.used_at), "j F Y, H:i")
        said += f" A new password was set with its one-time link on {used}."
    return said


def recent(member) -> list[PasswordReset]:
    since = timezone.now() - timedelta(days=NOTICE_DAYS)
    return list(PasswordReset.objects.filter(member=member, created_at__gte=since))


def tell_at_sign_in(sender, request: HttpRequest | None, user, **kwargs) -> None:
    """``user_logged_in`` receiver: the month's resets, said on the first page after signing in."""
    if request is None or not hasattr(request, "_messages"):
        return  # a test client's force_login, a management command
    for record in recent(user):
        messages.warning(
            request,
            f"{describe(record)} If you did not ask for this, talk to {record.reset_by_name}. "
            "Settings keeps this record.",
        )
