from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser

from conversations.models import Act

YOUR_STORY_TITLE = "Your Story"


def ensure_your_story(*, owner: AbstractBaseUser) -> Act:
    """Return the member's permanent Your Story act, creating it the first time.

    The act is kept on the member object: it can be neither deleted nor given away, and every
    memory stored without an act asks for it (half the cost of a store, measured in bulk)."""
    if (act := getattr(owner, "_your_story", None)) is not None:
        return act
    act, _ = Act.objects.get_or_create(
        owner=owner,
        is_your_story=True,
        defaults={
            "title": YOUR_STORY_TITLE,
            "description": "Who you are, across everything you do.",
        },
    )
    owner._your_story = act
    return act


def give_new_member_a_story(sender, instance, created: bool, raw: bool = False, **kwargs) -> None:
    """post_save receiver: every member starts with their permanent Your Story."""
    if created and not raw:
        ensure_your_story(owner=instance)
