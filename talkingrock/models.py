from __future__ import annotations

import hashlib
import secrets

from django.conf import settings
from django.db import models
from django.utils import timezone

from talkingrock.fields import CleanCharField

TOKEN_PREFIX = "tr_"


def hash_token(raw: str) -> str:
    # Tokens carry 256 bits of randomness, so a plain SHA-256 is enough: there is nothing for a
    # slow password hash to protect against.
    return hashlib.sha256(raw.encode()).hexdigest()


class ApiToken(models.Model):
    """A member's bearer token for the tool API; only its hash is stored."""

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens"
    )
    name = CleanCharField(max_length=100)
    token_hash = models.CharField(max_length=64, unique=True, editable=False)
    hint = models.CharField(
        max_length=12, editable=False, help_text="First characters, to tell tokens apart."
    )
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    last_used_at = models.DateTimeField(null=True, blank=True, editable=False)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.name} ({self.hint}…)"

    @classmethod
    def issue(cls, *, owner, name: str) -> tuple[ApiToken, str]:
        """Create a token and return it with the raw secret, which is never stored."""
        raw = TOKEN_PREFIX + secrets.token_urlsafe(32)
        token = cls.objects.create(
            owner=owner, name=name, token_hash=hash_token(raw), hint=raw[: len(TOKEN_PREFIX) + 5]
        )
        return token, raw


class PasswordReset(models.Model):
    """A household admin reset a member's password: the member's own record of it.

    Written once by ``household.passwords.reset`` and never edited: no page and no admin
    changes it (only ``used_at`` is stamped, when a password is set with the link). The admin's
    name is kept as text, so the record outlives the admin's account."""

    member = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="password_resets"
    )
    reset_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    reset_by_name = models.CharField(max_length=150)
    created_at = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField()  # the one-time link's last moment
    tokens_revoked = models.PositiveIntegerField(default=0)
    used_at = models.DateTimeField(null=True, blank=True)  # a new password set with the link

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"reset by {self.reset_by_name} on {self.created_at:%Y-%m-%d}"
