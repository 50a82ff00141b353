from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.management.base import CommandError


def member_named(username: str):
    try:
        return get_user_model().objects.get_by_natural_key(username)
    except get_user_model().DoesNotExist:
        raise CommandError(f"No member named {username!r}.") from None
