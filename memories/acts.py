"""Acts as services: Your Story (one per member, permanent, the default home of a memory), and
the acts a member creates, renames and archives. Refusals are ``ActError`` with a message."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Count, Q

from memories.models import Act, Memory
from talkingrock.text import clean_text

YOUR_STORY_TITLE = "Your Story"


def live_count() -> Count:
    """An annotation: each act's live memories, as its pages list them. Not a draft waiting for
    review, not one archived, and not what was said in its conversations (evidence rows live in
    the act too, for recall: memories/evidence.py). Distinct, so a join beside it (items) does
    not count a memory twice."""
    return Count(
        "memories",
        filter=Q(memories__archived_at=None, memories__status=Memory.Status.CONFIRMED)
        & ~Q(memories__kind__in=Memory.EVIDENCE),
        distinct=True,
    )


class ActError(Exception):
    """A change an act does not allow (a title missing, Your Story renamed); ``message`` says
    why."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


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


def same_title(one: str, other: str) -> bool:
    """Whether two act titles are the same name, whatever their case and spacing ("Été" as
    "été"; casefold, not SQLite's ASCII-only iexact)."""
    return " ".join(one.split()).casefold() == " ".join(other.split()).casefold()


def act_of_title(owner, title: str, *, besides: int | None = None) -> Act | None:
    """The member's act of that name, an active one before an archived one (a member has a
    handful of acts)."""
    return next(
        (
            act
            for act in Act.objects.filter(owner=owner, is_your_story=False)
            .exclude(pk=besides)
            .order_by("status", "created_at", "pk")
            if same_title(act.title, title)
        ),
        None,
    )


def create_act(*, owner, title: str, description: str = "") -> Act:
    title = clean_text(title, multiline=False).strip()[:200]
    description = clean_text(description)
    if not title:
        raise ActError("An act needs a title.")
    if same_title(title, YOUR_STORY_TITLE):
        raise ActError("Your Story already exists; choose another title.")
    if (same := act_of_title(owner, title)) is not None:
        raise ActError(f"You already have an act called “{same.title}”; choose another title.")
    return Act.objects.create(owner=owner, title=title, description=description.strip())


def rename_act(*, act: Act, title: str, description: str | None = None) -> Act:
    if act.is_your_story:
        raise ActError("Your Story keeps its name.")
    title = clean_text(title, multiline=False).strip()[:200]
    if not title:
        raise ActError("An act needs a title.")
    if same_title(title, YOUR_STORY_TITLE):
        raise ActError("Your Story already exists; choose another title.")
    if (same := act_of_title(act.owner, title, besides=act.pk)) is not None:
        raise ActError(f"You already have an act called “{same.title}”; choose another title.")
    act.title = title
    if description is not None:
        act.description = clean_text(description).strip()
    act.save(update_fields=["title", "description"])
    return act


def set_act_archived(*, act: Act, archived: bool) -> Act:
    if act.is_your_story:
        raise ActError("Your Story is permanent and cannot be archived.")
    act.status = Act.Status.ARCHIVED if archived else Act.Status.ACTIVE
    act.save(update_fields=["status"])
    return act
