"""The greeting when no conversation is open (seed 003, "Startup Greeting"; issue 24): what is
coming up in the next two weeks, what was closed or changed this week (with a way back), the
open threads, the waiting-ons and the tasks still to do, each in one line linked to the memory
it came from.

Days are read from the fields kept beside the member's words (an item's ``due``, ``on`` and
``at``; a memory's ``happened_at`` and ``details``), never from the words again; the one
exception is a ``due`` a model wrote in words ("next Monday"), read by the project's one date
parser against the day the item was written."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta

from django.conf import settings
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone

from conversations.models import Conversation
from conversations.terms import content_terms
from memories import threads
from memories.models import Memory, MemoryItem
from narratives import services as narratives
from narratives.models import Narrative
from talkingrock.language import parsed, spoken

COMING_UP_DAYS = 14  # "the next two weeks": today and the fourteen days after it
THIS_WEEK_DAYS = 7
LIMIT = 20  # lines a list shows; a household with more has bigger problems than a long page
# Dated rows read to find the next two weeks' lines: far more than any household has open.
DATED_READ = 500
# A fact tells what a dated item tells when it holds this share of the item's content words.
SAME_WORDS = 0.5


@dataclass(frozen=True)
class Upcoming:
    """One line of "Coming up": when, in the member's words, and the memory it came from.
    ``item`` is set for an item (an open thread the member can tick off here)."""

    day: date
    at: time | None
    when: str  # "Today, 9am", "Tomorrow", "by Mon 7 Dec"
    words: str
    memory_id: int
    item: MemoryItem | None = None
    shared_by: str = ""  # another member shared it (a shared act, issue 25)

    @property
    def sort_key(self) -> tuple:
        return (self.day, self.at is not None, self.at or time.min)


@dataclass(frozen=True)
class Change:
    """One line of "This week": a thread closed (``item``, shown with how it closed and Undo),
    or something replaced ("now quartz, previously butcher block")."""

    at: datetime
    memory_id: int
    item: MemoryItem | None = None
    now: str = ""
    previously: str = ""
    undo: str = ""  # where to post to make what was replaced hold again


@dataclass
class Greeting:
    coming_up: list[Upcoming]
    this_week: list[Change]
    open_threads: list[MemoryItem]
    waiting_ons: list[MemoryItem]
    recent_decisions: list[MemoryItem]
    stale_tasks: list[MemoryItem]  # "Still to do": untouched for stale_days, or past their day
    stale_days: int
    left_off: Narrative | None = None  # the latest narrative: where the member left off
    first_visit: bool = False  # nothing said or kept yet: welcome, not "welcome back"

    @property
    def empty(self) -> bool:
        return not (
            self.coming_up
            or self.this_week
            or self.open_threads
            or self.waiting_ons
            or self.recent_decisions
            or self.stale_tasks
        )


def greeting(owner, *, now=None) -> Greeting:
    now = now or timezone.now()
    today = timezone.localtime(now).date()
    config = settings.TALKINGROCK_CONVERSATIONS
    items = threads.kept_items(owner)
    stale_days = config["stale_task_days"]
    dated = _dated_items(items)
    coming_up = coming_up_of(owner, now=now, dated=dated)
    # An item is listed once: in "Coming up" when it has a day there, else in its own list.
    shown = {line.item.pk for line in coming_up if line.item is not None}
    active = items.filter(is_active=True, valid_to=None).exclude(pk__in=shown)
    # The current decisions: one a later conversation replaced is history, shown beside
    # the decision that replaced it ("previously: butcher block, changed 12 Nov").
    recent_decisions = list(
        items.filter(
            type="decision",
            valid_to=None,
            created_at__gte=now - timedelta(days=config["recent_decision_days"]),
        )
        .prefetch_related("supersedes")
        .order_by("-created_at")[:LIMIT]
    )
    return Greeting(
        coming_up=coming_up,
        this_week=this_week_of(
            owner, now=now, decided={decision.pk for decision in recent_decisions}
        ),
        open_threads=list(active.filter(type="question_opened").order_by("-created_at")[:LIMIT]),
        waiting_ons=list(active.filter(type="waiting_on").order_by("created_at")[:LIMIT]),
        recent_decisions=recent_decisions,
        stale_tasks=_still_to_do(
            dated,
            active.filter(type="task", created_at__lte=now - timedelta(days=stale_days)),
            today=today,
            shown=shown,
        ),
        stale_days=stale_days,
        left_off=narratives.latest(owner),
        # Nothing said and nothing kept yet (an import or an agent may have kept memories).
        first_visit=not (
            Conversation.objects.filter(owner=owner).exists()
            or Memory.objects.filter(owner=owner).exists()
        ),
    )


def coming_up_of(owner, *, now, dated: list[MemoryItem] | None = None) -> list[Upcoming]:
    """The member's items and kept memories on (or due by) a day from today to fourteen days
    on, soonest first: nothing past, replaced, archived, closed or still a draft."""
    today = timezone.localtime(now).date()
    last = today + timedelta(days=COMING_UP_DAYS)
    if dated is None:
        dated = _dated_items(threads.kept_items(owner))
    lines = []
    for item in dated:
        found = item_day(item)
        if found is None or not today <= found[0] <= last or _past(found, now):
            continue
        day, at, due = found
        lines.append(
            Upcoming(day, at, _when(day, at, today=today, due=due), item.text, item.memory_id, item)
        )
    # A fact written from the same conversation as a dated item, on its day and in its words,
    # says the same thing again ("the plumber Thursday at 9"; not "call the dentist by Monday"
    # beside "the plumber is coming Monday", said in one breath). So does one beside an item
    # already settled: done, dismissed or answered ("Dave's sending the quote by friday", once
    # the quote came), which is not coming up any more.
    said: dict[tuple[int, date], list[frozenset[str]]] = {}
    for line in lines:
        said.setdefault((line.memory_id, line.day), []).append(content_terms(line.words))
    settled: dict[tuple[int, date], list[frozenset[str]]] = {}
    for item in _settled_items(owner):
        if (found := item_day(item)) is not None:
            settled.setdefault((item.memory_id, found[0]), []).append(content_terms(item.text))
    for memory in _dated_memories(owner, today=today, last=last):
        if (found := memory.named_day()) is None:
            continue
        day, at = found
        words = content_terms(memory.content)
        key = (memory.derived_from_id, day)
        # Beside something settled, only a fact of the same words, most of its own among them
        # ("Dave said he's sending the quote by friday"; not "the dentist on the 8th" beside
        # "call the dentist", done).
        if (
            _past((day, at, False), now)
            or any(len(item & words) >= SAME_WORDS * len(item) for item in said.get(key, []))
            or any(
                len(item & words) >= SAME_WORDS * max(len(item), len(words))
                for item in settled.get(key, [])
            )
        ):
            continue
        share = memory.share if memory.share_id else None
        by = share.sharer_name if share and share.shared_by_id != memory.owner_id else ""
        lines.append(
            Upcoming(day, at, _when(day, at, today=today), memory.content, memory.pk, None, by)
        )
    return sorted(lines, key=lambda line: line.sort_key)[:LIMIT]


def this_week_of(owner, *, now, decided: Collection[int] = ()) -> list[Change]:
    """What was closed (done, dismissed, answered by a conversation) or replaced in the last
    seven days, newest first. A decision replaced by one of ``decided`` (the decisions shown
    with their "previously") is not said twice."""
    since = now - timedelta(days=THIS_WEEK_DAYS)
    items = threads.kept_items(owner)
    closed = (
        items.filter(
            type__in=MemoryItem.OPEN_TYPES,
            is_active=False,
            resolved_at__gte=since,
            resolved_at__lte=now,
        )
        .select_related("resolved_by__act", "resolved_by__conversation")
        .order_by("-resolved_at")[:LIMIT]
    )
    changes = [Change(item.resolved_at, item.memory_id, item=item) for item in closed]
    replaced_items = (
        items.filter(valid_to__gte=since, valid_to__lte=now)
        .exclude(superseded_by__in=decided)
        .select_related("superseded_by")
        .order_by("-valid_to")[:LIMIT]
    )
    changes += [
        Change(
            item.valid_to,
            item.superseded_by.memory_id if item.superseded_by else item.memory_id,
            now=item.superseded_by.main if item.superseded_by else "",
            previously=item.main,
            undo=reverse("memories:thread-make-current", args=[item.pk]),
        )
        for item in replaced_items
    ]
    replaced_memories = (
        Memory.objects.filter(
            owner=owner,
            status=Memory.Status.CONFIRMED,
            valid_to__gte=since,
            valid_to__lte=now,
        )
        .select_related("superseded_by")
        .order_by("-valid_to")[:LIMIT]
    )
    changes += [
        Change(
            memory.valid_to,
            memory.superseded_by_id or memory.pk,
            now=memory.superseded_by.content if memory.superseded_by else "",
            previously=memory.content,
            undo=reverse("memories:make-current", args=[memory.pk]),
        )
        for memory in replaced_memories
    ]
    return sorted(changes, key=lambda change: change.at, reverse=True)[:LIMIT]


def item_day(item: MemoryItem) -> tuple[date, time | None, bool] | None:
    """(day, time or None, whether it is a deadline) from the fields beside an item's words."""
    data = item.data if isinstance(item.data, dict) else {}
    if due := data.get("due"):
        day = _day(due)
        if day is None:  # a model's "due": "next Monday", read against the day it was written
            said_on = timezone.localtime(item.created_at).date()
            day = parsed.parse(str(due)[:200], said_on=said_on).day
        return (day, None, True) if day else None
    if item.type == MemoryItem.Type.WAITING_ON:
        # Only a due date: an "on" beside a waiting-on is the day it was said, not a day owed.
        return None
    day = _day(data.get("on"))
    return (day, _time(data.get("at")), False) if day else None


def _dated_items(items) -> list[MemoryItem]:
    return list(
        items.filter(is_active=True, valid_to=None, memory__archived_at=None)
        .filter(Q(data__has_key="due") | Q(data__has_key="on"))
        .order_by("created_at")[:DATED_READ]
    )


def _settled_items(owner) -> list[MemoryItem]:
    """The member's dated items done, dismissed or answered (not those replaced: what replaced
    them is the word on it)."""
    return list(
        threads.kept_items(owner)
        .filter(is_active=False, valid_to=None)
        .filter(Q(data__has_key="due") | Q(data__has_key="on"))
        .order_by("-resolved_at")[:DATED_READ]
    )


def _dated_memories(owner, *, today: date, last: date):
    """Kept memories and facts whose ``happened_at`` lies from today to ``last``, inclusive."""
    zone = timezone.get_current_timezone()
    start = datetime.combine(today, time.min, tzinfo=zone)
    end = datetime.combine(last + timedelta(days=1), time.min, tzinfo=zone)
    return Memory.objects.filter(
        owner=owner,
        status=Memory.Status.CONFIRMED,
        archived_at=None,
        valid_to=None,
        happened_at__gte=start,
        happened_at__lt=end,
    ).order_by("happened_at")[:DATED_READ]


def _still_to_do(dated, stale, *, today: date, shown: set[int]) -> list[MemoryItem]:
    """Tasks untouched for ``stale_days`` and tasks whose day has passed, oldest first."""
    overdue = [
        item
        for item in dated
        if item.type == "task"
        and item.pk not in shown
        and (found := item_day(item)) is not None
        and found[0] < today
    ]
    rows = {item.pk: item for item in [*overdue, *stale[:LIMIT]]}
    return sorted(rows.values(), key=lambda item: item.created_at)[:LIMIT]


def _past(found: tuple[date, time | None, bool], now) -> bool:
    """A time today that has gone by; a day without a time lasts all day."""
    day, at, _ = found
    if at is None:
        return False
    zone = timezone.get_current_timezone()
    return datetime.combine(day, at, tzinfo=zone) < timezone.localtime(now)


def _when(day: date, at: time | None, *, today: date, due: bool = False) -> str:
    """ "Today, 9am", "Tomorrow", "Thu 3 Dec, 2:30pm", "by Mon 7 Dec"."""
    if day == today:
        words = "today" if due else "Today"
    elif day == today + timedelta(days=1):
        words = "tomorrow" if due else "Tomorrow"
    else:
        words = f"{day:%a} {day.day} {day:%b}"
    if at is not None:
        words += f", {spoken.spoken_time(at)}"
    return f"by {words}" if due else words


def _day(value) -> date | None:
    try:
        return date.fromisoformat(value)
    except (TypeError, ValueError):
        return None


def _time(value) -> time | None:
    try:
        return time.fromisoformat(value)
    except (TypeError, ValueError):
        return None
