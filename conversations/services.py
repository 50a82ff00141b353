from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser

from conversations.models import Act

YOUR_STORY_TITLE = "Your Story"


def ensure_your_story(*, owner: AbstractBaseUser) -> Act:
    """Return the member's permanent Your Story act, creating it the first time."""
    act, _ = Act.objects.get_or_create(
        owner=owner,
        is_your_story=True,
        defaults={
            "title": YOUR_STORY_TITLE,
            "description": "Who you are, across everything you do.",
        },
    )
    return act


def give_new_member_a_story(sender, instance, created: bool, raw: bool = False, **kwargs) -> None:
    """post_save receiver: every member starts with their permanent Your Story."""
    if created and not raw:
        ensure_your_story(owner=instance)
