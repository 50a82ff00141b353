"""Time phrases in a query, turned into a window relative to a moment ("yesterday", "last week",
"in March", "two months ago", "8 May 2023", ISO dates).

Rules, not a model: the first phrase that parses wins, and text with no time phrase (or one that
does not parse, such as "the 31st of February") gives no window rather than an error.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta

from django.utils import timezone

MONTHS = {name.lower(): n for n, name in enumerate(calendar.month_name) if name}
MONTHS.update({name.lower(): n for n, name in enumerate(calendar.month_abbr) if name})
MONTHS["sept"] = 9
WEEKDAYS = {name.lower(): n for n, name in enumerate(calendar.day_name)}
NUMBERS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "couple of": 2,
    "few": 3, "a few": 3, "several": 3,
}  # fmt: skip
_MONTH = "|".join(sorted(MONTHS, key=len, reverse=True))
_NUMBER = r"\d{1,3}|" + "|".join(sorted(NUMBERS, key=len, reverse=True))
_UNIT = r"day|week|weekend|month|year"


@dataclass(frozen=True)
class Window:
    start: datetime  # inclusive
    end: datetime  # exclusive
    phrase: str

    def as_dict(self) -> dict[str, str]:
        return {"phrase": self.phrase, "from": self.start.isoformat(), "to": self.end.isoformat()}


def _at_midnight(day: date, tz) -> datetime:
    return timezone.make_aware(datetime.combine(day, time.min), tz)


def _month_window(year: int, month: int) -> tuple[date, date]:
    start = date(year, month, 1)
    end = date(year + (month == 12), month % 12 + 1, 1)
    return start, end


def _parse(text: str, today: date) -> tuple[date, date, str] | None:
    s = text.lower()
    s = re.sub(r"(\d)(st|nd|rd|th)\b", r"\1", s)

    # ISO date: 2023-05-08
    if m := re.search(r"\b(\d{4})-(\d{2})-(\d{2})\b", s):
        day = date(int(m[1]), int(m[2]), int(m[3]))
        return day, day + timedelta(days=1), m[0]
    # 8 May 2023, 8 of May, 2023 / May 8, 2023 / May 8
    if m := re.search(rf"\b(\d{{1,2}})(?: of)? ({_MONTH})\b,?(?: (\d{{4}}))?", s):
        day = date(int(m[3]) if m[3] else today.year, MONTHS[m[2]], int(m[1]))
        if not m[3] and day > today:
            day = day.replace(year=day.year - 1)
        return day, day + timedelta(days=1), m[0]
    if m := re.search(rf"\b({_MONTH}) (\d{{1,2}})\b(?:,? (\d{{4}}))?", s):
        day = date(int(m[3]) if m[3] else today.year, MONTHS[m[1]], int(m[2]))
        if not m[3] and day > today:
            day = day.replace(year=day.year - 1)
        return day, day + timedelta(days=1), m[0]
    # May 2023 / in May (the most recent May up to today)
    if m := re.search(rf"\b({_MONTH}),? (\d{{4}})\b", s):
        start, end = _month_window(int(m[2]), MONTHS[m[1]])
        return start, end, m[0]
    if m := re.search(rf"\b(?:in|during|since|last) ({_MONTH})\b", s):
        month = MONTHS[m[1]]
        year = today.year if month <= today.month else today.year - 1
        if m[0].startswith("last") and month == today.month:
            year -= 1
        start, end = _month_window(year, month)
        return start, end, m[0]
    if m := re.search(r"\b(?:in|during) (\d{4})\b", s):
        return date(int(m[1]), 1, 1), date(int(m[1]) + 1, 1, 1), m[0]

    # Relative to today.
    if m := re.search(r"\b(today|tonight|this morning|this evening)\b", s):
        return today, today + timedelta(days=1), m[0]
    if m := re.search(r"\b(?:the )?day before yesterday\b", s):
        day = today - timedelta(days=2)
        return day, day + timedelta(days=1), m[0]
    if m := re.search(r"\byesterday\b", s):
        day = today - timedelta(days=1)
        return day, today, m[0]
    if m := re.search(rf"\b({_NUMBER}) ({_UNIT})s? ago\b", s):
        count = int(m[1]) if m[1].isdigit() else NUMBERS[m[1]]
        days = {"day": 1, "week": 7, "weekend": 7, "month": 30, "year": 365}[m[2]]
        centre = today - timedelta(days=count * days)
        # "Two months ago" is not a precise day: allow a quarter of the distance either side.
        slack = timedelta(days=max(1, count * days // 4))
        return centre - slack, centre + slack + timedelta(days=1), m[0]
    if m := re.search(r"\blast (week|weekend|month|year)\b", s):
        unit = m[1]
        if unit in ("week", "weekend"):
            monday = today - timedelta(days=today.weekday() + 7)
            start = monday + timedelta(days=5) if unit == "weekend" else monday
            return start, monday + timedelta(days=7), m[0]
        if unit == "month":
            year, month = (
                (today.year - 1, 12) if today.month == 1 else (today.year, today.month - 1)
            )
            start, end = _month_window(year, month)
            return start, end, m[0]
        return date(today.year - 1, 1, 1), date(today.year, 1, 1), m[0]
    if m := re.search(r"\bthis (week|month|year)\b", s):
        start = {
            "week": today - timedelta(days=today.weekday()),
            "month": today.replace(day=1),
            "year": today.replace(month=1, day=1),
        }[m[1]]
        return start, today + timedelta(days=1), m[0]
    if m := re.search(r"\b(?:last|on) (" + "|".join(WEEKDAYS) + r")\b", s):
        back = (today.weekday() - WEEKDAYS[m[1]]) % 7 or 7
        day = today - timedelta(days=back)
        return day, day + timedelta(days=1), m[0]
    if m := re.search(r"\b(?:recently|lately|these days)\b", s):
        return today - timedelta(days=14), today + timedelta(days=1), m[0]
    return None


def find_window(text: str, *, at: datetime | None = None) -> Window | None:
    """The time window ``text`` refers to, relative to ``at`` (default now), or None."""
    at = at or timezone.now()
    tz = timezone.get_current_timezone()
    today = timezone.localtime(at, tz).date()
    try:
        parsed = _parse(text or "", today)
    except (ValueError, OverflowError):  # 31 February, year 0: not a date, so no window
        return None
    if parsed is None:
        return None
    start, end, phrase = parsed
    return Window(_at_midnight(start, tz), _at_midnight(end, tz), phrase)
