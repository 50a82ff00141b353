"""A member's memories over time, for the timeline page: what they kept each week by act, their
open and resolved threads week by week, and their dated memories on a time axis around today.

Each function reads one member's rows (``owner=``) and returns plain numbers with the drawing
already worked out (coordinates in the SVG's own units), so the template only places them.

The words used here:

- **the window**: the last ``weeks`` ISO weeks (Monday to Sunday, in the household's time
  zone) up to and including the week holding ``now``.
- **kept**: a memory the member keeps: confirmed (a draft waiting for review is not kept yet),
  not archived, and not what was said in a conversation (messages are evidence, and the
  default manager leaves them out). A memory that a later one replaced (``valid_to``) still
  counts: it was kept that week, and is history now, not gone.
- **a thread**: a task, waiting-on or question held (``MemoryItem.OPEN_TYPES``) in a confirmed
  memory: the same threads the greeting lists (``threads.kept_items``), so archiving a memory
  does not close its thread here either.
- **open at a week's end**: made before the week ended (before ``now`` for this week) and either
  still open, or resolved at or after that moment. An item only knows its latest closing: one
  closed and reopened counts as open from the day it was made.
- **resolved that week**: closed (done, dismissed or by a later conversation) with its
  ``resolved_at`` inside the week. An item closed without a time (none are, today) cannot be
  placed, and counts as neither open nor resolved.
- **dated**: a kept memory that names a day (``Memory.named_day``: not a conversation's own
  memory, nor a fact dated only by when it was said) whose ``happened_at`` falls from the
  window's first Monday to four weeks after the window's last Sunday: behind and ahead of today.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta

from django.db.models import Count, Q
from django.db.models.functions import TruncWeek
from django.utils import dateformat, timezone

from memories import threads
from memories.models import Act, Memory, MemoryItem
from talkingrock.text import shortened

DEFAULT_WEEKS = 12
MIN_WEEKS = 4
MAX_WEEKS = 52
WEEK_CHOICES = (4, 8, 12, 26, 52)
AHEAD_WEEKS = 4  # dated memories are drawn this far past the window, for what is coming
TOP_ACTS = 5  # acts beyond the five busiest are drawn together as "Other"
EVENTS_DRAWN = 40  # past this many dated memories, the ones nearest today are drawn
LABEL_CHARS = 34  # a dated memory's words on the axis, cut to fit a phone's width

# The drawings' own units: the SVGs scale to the page (viewBox), so these are proportions.
VIEW_W = 480
BARS_H = 220
LEFT, RIGHT, TOP, BOTTOM = 34, 6, 10, 26  # room for the count axis and the week labels

# Colours dark enough for 3:1 against the page (WCAG's non-text contrast), each with its own
# pattern so colour is never the only way to tell the bars apart.
PALETTE = (
    ("#2f5575", "solid"),
    ("#a1470d", "diagonal"),
    ("#2e6b30", "dots"),
    ("#7a3b7d", "horizontal"),
    ("#7a5c00", "cross"),
)
OTHER = ("#5f6670", "vertical")
OPEN_LOOK = ("#2f5575", "solid")
RESOLVED_LOOK = ("#2e6b30", "diagonal")


@dataclass(frozen=True)
class Window:
    """The weeks on the page: their Mondays, oldest first, and the moment the page was asked."""

    now: datetime
    mondays: tuple[date, ...]

    @classmethod
    def ending(cls, now: datetime, weeks: int) -> Window:
        today = timezone.localtime(now).date()
        this_monday = today - timedelta(days=today.weekday())
        mondays = tuple(this_monday - timedelta(weeks=n) for n in range(weeks - 1, -1, -1))
        return cls(now=now, mondays=mondays)

    @property
    def start(self) -> datetime:
        return midnight(self.mondays[0])

    @property
    def end(self) -> datetime:
        """The Monday after the last week: the window's upper bound, exclusive."""
        return midnight(self.mondays[-1] + timedelta(weeks=1))

    def week(self, index: int) -> tuple[datetime, datetime]:
        monday = self.mondays[index]
        return midnight(monday), midnight(monday + timedelta(weeks=1))

    @property
    def first_label(self) -> str:
        return day_month(self.mondays[0], year=True)


def midnight(day: date) -> datetime:
    return timezone.make_aware(datetime.combine(day, time.min))


def day_month(day: date, *, year: bool = False) -> str:
    return dateformat.format(day, "j M Y" if year else "j M")


def weeks_from(raw) -> int:
    """The ``?weeks=`` asked for, kept to 4–52; anything that is not a whole number gives the
    default (int() refuses a number thousands of digits long too)."""
    try:
        weeks = int(raw)
    except (TypeError, ValueError):
        return DEFAULT_WEEKS
    return min(max(weeks, MIN_WEEKS), MAX_WEEKS)


def kept_memories(owner):
    return Memory.objects.filter(
        owner=owner, status=Memory.Status.CONFIRMED, archived_at=None
    ).order_by()


# -- Axes shared by the two bar charts ---------------------------------------------------------


@dataclass(frozen=True)
class Tick:
    label: str
    x: float = 0.0
    y: float = 0.0
    anchor: str = "middle"


@dataclass(frozen=True)
class Frame:
    """The plot area of a bar chart: one band per week, a count axis from 0 to ``top``."""

    weeks: int
    top: int
    y_ticks: tuple[Tick, ...]
    x_ticks: tuple[Tick, ...]

    @property
    def band(self) -> float:
        return (VIEW_W - LEFT - RIGHT) / self.weeks

    def x(self, index: int) -> float:
        return LEFT + index * self.band

    def y(self, value: float) -> float:
        return TOP + (BARS_H - TOP - BOTTOM) * (1 - value / self.top)

    def height(self, value: float) -> float:
        return (BARS_H - TOP - BOTTOM) * value / self.top

    left = LEFT
    right = VIEW_W - RIGHT
    base = BARS_H - BOTTOM
    view_w = VIEW_W
    view_h = BARS_H


def nice_top(largest: int) -> tuple[int, int]:
    """A round top for a count axis and its step: 7 → (8, 2), 23 → (30, 10), 0 → (1, 1)."""
    if largest <= 0:
        return 1, 1
    magnitude = 10 ** max(0, int(math.log10(largest)) - 1)
    for step in (s * magnitude for s in (1, 2, 5, 10, 20, 50, 100)):
        if math.ceil(largest / step) <= 5:
            return step * math.ceil(largest / step), step
    return largest, largest  # not reached: 100 steps of the magnitude cover any count


def frame(window: Window, largest: int) -> Frame:
    top, step = nice_top(largest)
    weeks = len(window.mondays)
    probe = Frame(weeks, top, (), ())
    y_ticks = tuple(Tick(str(v), y=round(probe.y(v), 1)) for v in range(0, top + 1, step))
    every = math.ceil(weeks / 6)  # about six week labels, whatever the window
    x_ticks = tuple(
        week_tick(day_month(monday), probe.x(i) + probe.band / 2)
        for i, monday in enumerate(window.mondays)
        if (weeks - 1 - i) % every == 0  # always label the latest week
    )
    return Frame(weeks, top, y_ticks, x_ticks)


def week_tick(label: str, x: float) -> Tick:
    """A week's label under its bar; the last one ends at the edge rather than past it."""
    if x + 28 > VIEW_W:
        return Tick(label, x=VIEW_W - 2, anchor="end")
    return Tick(label, x=round(x, 1))


# -- What was kept, week by week, by act -------------------------------------------------------


@dataclass(frozen=True)
class Series:
    key: str  # the pattern's id in the page
    label: str
    colour: str
    pattern: str


@dataclass(frozen=True)
class Bar:
    x: float
    y: float
    width: float
    height: float
    series: Series
    title: str


@dataclass(frozen=True)
class Row:
    """A week's line of a table: its label and its numbers, in the columns' order."""

    week: str
    counts: tuple[int, ...]
    total: int


@dataclass(frozen=True)
class KeptChart:
    series: tuple[Series, ...]
    rows: tuple[Row, ...]
    bars: tuple[Bar, ...]
    frame: Frame
    total: int
    busiest: Row | None


def kept_counts(owner, window: Window) -> dict[tuple[date, int], int]:
    """{(Monday, act id): memories kept that week in that act}, for the window."""
    rows = (
        kept_memories(owner)
        .filter(created_at__gte=window.start, created_at__lt=window.end)
        .annotate(week=TruncWeek("created_at"))
        .values("week", "act_id")
        .annotate(n=Count("pk"))
    )
    return {(timezone.localtime(r["week"]).date(), r["act_id"]): r["n"] for r in rows}


def kept_by_act(owner, window: Window) -> KeptChart:
    counts = kept_counts(owner, window)
    per_act: dict[int, int] = {}
    for (_, act_id), n in counts.items():
        per_act[act_id] = per_act.get(act_id, 0) + n
    titles = dict(Act.objects.filter(owner=owner, pk__in=per_act).values_list("pk", "title"))
    ranked = sorted(per_act, key=lambda act_id: (-per_act[act_id], titles.get(act_id, "")))
    shown = ranked[:TOP_ACTS]
    series = [
        Series(f"kept-{i}", titles.get(act_id, ""), *PALETTE[i]) for i, act_id in enumerate(shown)
    ]
    if len(ranked) > TOP_ACTS:
        series.append(Series("kept-other", "Other acts", *OTHER))
    column = {act_id: min(i, TOP_ACTS) for i, act_id in enumerate(ranked)}
    rows = []
    for monday in window.mondays:
        week = [0] * len(series)
        for (when, act_id), n in counts.items():
            if when == monday:
                week[column[act_id]] += n
        rows.append(Row(day_month(monday, year=True), tuple(week), sum(week)))
    chart_frame = frame(window, max((row.total for row in rows), default=0))
    return KeptChart(
        series=tuple(series),
        rows=tuple(rows),
        bars=stacked_bars(chart_frame, rows, series),
        frame=chart_frame,
        total=sum(row.total for row in rows),
        busiest=max(rows, key=lambda row: row.total) if rows else None,
    )


def stacked_bars(chart: Frame, rows: list[Row], series: list[Series]) -> tuple[Bar, ...]:
    """One rectangle per week and act, stacked from the axis up, a hair apart."""
    bars = []
    width = chart.band * 0.7
    for i, row in enumerate(rows):
        below = 0
        for look, n in zip(series, row.counts, strict=True):
            if not n:
                continue
            y = chart.y(below + n)
            height = max(chart.height(n) - 1, 0.5)  # the gap tells stacked pieces apart
            title = f"Week of {row.week}: {look.label}, {n}"
            bars.append(
                Bar(
                    round(chart.x(i) + (chart.band - width) / 2, 1),
                    round(y, 1),
                    round(width, 1),
                    round(height, 1),
                    look,
                    title,
                )
            )
            below += n
    return tuple(bars)


# -- Open and resolved threads, week by week ---------------------------------------------------


@dataclass(frozen=True)
class ThreadChart:
    series: tuple[Series, Series]
    rows: tuple[Row, ...]  # counts: (open at the week's end, resolved that week)
    bars: tuple[Bar, ...]
    frame: Frame
    resolved: int

    @property
    def anything(self) -> bool:
        return any(row.total for row in self.rows)


def thread_counts(owner, window: Window) -> list[tuple[int, int]]:
    """[(open at the week's end, resolved that week)] per week, in one query."""
    sums = {}
    for i in range(len(window.mondays)):
        start, end = window.week(i)
        at = min(end, window.now)  # this week's "end" is now
        sums[f"open_{i}"] = Count(
            "pk", filter=Q(created_at__lt=at) & (Q(is_active=True) | Q(resolved_at__gte=at))
        )
        sums[f"resolved_{i}"] = Count(
            "pk", filter=Q(is_active=False, resolved_at__gte=start, resolved_at__lt=end)
        )
    items = threads.kept_items(owner).select_related(None).order_by()
    found = items.filter(type__in=MemoryItem.OPEN_TYPES).aggregate(**sums)
    return [(found[f"open_{i}"], found[f"resolved_{i}"]) for i in range(len(window.mondays))]


def threads_by_week(owner, window: Window) -> ThreadChart:
    counts = thread_counts(owner, window)
    series = (
        Series("threads-open", "Open at the week's end", *OPEN_LOOK),
        Series("threads-resolved", "Resolved that week", *RESOLVED_LOOK),
    )
    rows = tuple(
        Row(day_month(monday, year=True), pair, sum(pair))
        for monday, pair in zip(window.mondays, counts, strict=True)
    )
    chart_frame = frame(window, max((max(pair) for pair in counts), default=0))
    bars = []
    width = chart_frame.band * 0.4
    for i, row in enumerate(rows):
        for side, (look, n) in enumerate(zip(series, row.counts, strict=True)):
            if not n:
                continue
            x = chart_frame.x(i) + chart_frame.band * 0.1 + side * width
            bars.append(
                Bar(
                    round(x, 1),
                    round(chart_frame.y(n), 1),
                    round(width - 0.5, 1),
                    round(chart_frame.height(n), 1),
                    look,
                    f"Week of {row.week}: {look.label.lower()}, {n}",
                )
            )
    return ThreadChart(
        series=series,
        rows=rows,
        bars=tuple(bars),
        frame=chart_frame,
        resolved=sum(pair[1] for pair in counts),
    )


# -- Dated memories on a time axis -------------------------------------------------------------

# A vertical axis (time runs down the page, as a phone scrolls), points on it, and each point's
# words beside it, pushed apart so that they never overlap.
AXIS_X = 88
LABEL_X = 114
EVENTS_TOP = 16
EVENTS_BOTTOM = 16
LABEL_GAP = 24  # the height of one label's line
AXIS_MIN = 320  # the axis's shortest length, however few points


@dataclass(frozen=True)
class Event:
    number: int
    memory: Memory
    url: str
    when: str
    words: str
    ahead: bool
    y: float  # the point on the axis
    label_y: float  # its words, pushed apart from their neighbours

    @property
    def label(self) -> str:
        return f"{self.when} · {self.words}"


@dataclass(frozen=True)
class EventChart:
    events: tuple[Event, ...]
    found: int  # dated memories in the stretch, drawn or not
    first: str
    last: str
    ticks: tuple[Tick, ...]
    today_y: float
    height: float
    axis_x: int = AXIS_X
    label_x: int = LABEL_X
    view_w: int = VIEW_W
    top: int = EVENTS_TOP

    @property
    def bottom(self) -> float:
        return self.height - EVENTS_BOTTOM

    @property
    def label_dx(self) -> int:
        return self.label_x - self.axis_x

    @property
    def ahead(self) -> int:
        return sum(1 for event in self.events if event.ahead)


def spread(ideal: list[float], top: float, bottom: float, gap: float) -> list[float]:
    """Label heights as near each point as they can be, at least ``gap`` apart, within
    ``top``–``bottom`` (which must have room for all of them: ``(n - 1) * gap``)."""
    placed: list[float] = []
    for y in ideal:
        placed.append(max(y, top, placed[-1] + gap if placed else top))
    for i in range(len(placed) - 1, -1, -1):
        ceiling = placed[i + 1] - gap if i + 1 < len(placed) else bottom
        placed[i] = min(placed[i], ceiling)
    return placed


def dated_memories(owner, window: Window) -> tuple[list[Memory], int]:
    """The kept memories dated in the stretch, oldest first: the ``EVENTS_DRAWN`` nearest now
    when there are more, and how many there are in all."""
    stretch = kept_memories(owner).filter(
        happened_at__gte=window.start,
        happened_at__lt=window.end + timedelta(weeks=AHEAD_WEEKS),
    )
    # Only what names a day (the greeting's rule, Memory.named_day): not a conversation's own
    # memory, nor a fact dated only by when it was said.
    dated = [memory for memory in stretch.select_related("act") if memory.named_day()]
    nearest = sorted(dated, key=lambda memory: abs(memory.happened_at - window.now))
    chosen = nearest[:EVENTS_DRAWN]
    return sorted(chosen, key=lambda memory: (memory.happened_at, memory.pk)), len(dated)


def dated_events(owner, window: Window) -> EventChart:
    memories, found = dated_memories(owner, window)
    start, end = window.start, window.end + timedelta(weeks=AHEAD_WEEKS)
    length = max(AXIS_MIN, (len(memories) - 1) * LABEL_GAP)
    height = EVENTS_TOP + length + EVENTS_BOTTOM

    def y_of(moment: datetime) -> float:
        return EVENTS_TOP + length * (moment - start) / (end - start)

    ideal = [y_of(m.happened_at) for m in memories]
    placed = spread(ideal, EVENTS_TOP, EVENTS_TOP + length, LABEL_GAP)
    events = tuple(
        Event(
            number=i + 1,
            memory=memory,
            url=memory.get_absolute_url(),
            when=day_month(timezone.localtime(memory.happened_at).date()),
            words=shortened(memory.content, chars=LABEL_CHARS),
            ahead=memory.happened_at > window.now,
            y=round(ideal[i], 1),
            label_y=round(placed[i], 1),
        )
        for i, memory in enumerate(memories)
    )
    today_y = round(y_of(window.now), 1)
    return EventChart(
        events=events,
        found=found,
        first=day_month(window.mondays[0], year=True),
        last=day_month((end - timedelta(days=1)).date(), year=True),
        ticks=month_ticks(start, end, y_of, today_y),
        today_y=today_y,
        height=height,
    )


def month_ticks(start: datetime, end: datetime, y_of, today_y: float) -> tuple[Tick, ...]:
    """The first of each month on the axis ("Dec", and "Jan 2027" where a year begins), but
    none close enough to today's mark to be written over by it."""
    local = timezone.localtime(start).date()
    month = date(local.year, local.month, 1)
    ticks = []
    while True:
        month = date(month.year + month.month // 12, month.month % 12 + 1, 1)
        moment = midnight(month)
        if moment >= end:
            break
        y = round(y_of(moment), 1)
        if abs(y - today_y) >= 14:
            label = dateformat.format(month, "M Y" if month.month == 1 else "M")
            ticks.append(Tick(label, y=y))
    return tuple(ticks)
