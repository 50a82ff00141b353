"""Schedules as people say them, read into iCalendar rules (python-dateutil reads them): a run
of weekdays ("mon tue thu", "tue and thu"), a plural weekday ("fridays", "sunday nights"),
"every other saturday", "the first saturday of the month", "the 1st of every month", "every 6
weeks", "weekdays". A schedule is not a date: each becomes a ``Mention`` with its ``Recurrence``.
Run by talkingrock/language/dates.py's ``find`` before anything else reads the text."""

from __future__ import annotations

import calendar
import re
from datetime import date, datetime, timedelta

from dateutil.rrule import rrulestr

from talkingrock.language.mentions import (
    COUNTS,
    DAYNUM,
    WD,
    WEEKDAYS,
    WORDLIKE_DAYS,
    Finder,
    Recurrence,
    alternation,
    count_of,
    ordinal_of,
)
from talkingrock.language.spoken import ordinal

# Not "-": "fri-sun" is a span of days, not a schedule.
_RUN_SEPARATOR = r"(?:\s*(?:,|/|&|\+|\band\b|\bn\b|\bor\b)\s*|\s+)"
_WEEKDAY_RUN = re.compile(rf"\b({WD})\b\.?(?:{_RUN_SEPARATOR}({WD})\b\.?)+")
# Plurals of the full names only: "tues" and "thurs" are abbreviations, not plurals.
_FULL_DAYS = alternation(name.lower() for name in calendar.day_name)
_PLURAL_DAYS = re.compile(
    rf"\b(?:(?:on|every|all)\s+)?((?:{_FULL_DAYS})s)\b(?:{_RUN_SEPARATOR}((?:{_FULL_DAYS})s)\b)*"
)
_EVERY_OTHER = re.compile(
    rf"\b(?:every|each)\s+(other|second|2nd|alternate|third|3rd)\s+({WD})s?\b|"
    rf"\b(fortnightly|biweekly)(?:\s+on\s+({WD})s?)?\b|\balternate\s+({WD})s\b"
)
_NTH_OF_MONTH = re.compile(
    rf"\b(?:the\s+)?(first|1st|second|2nd|third|3rd|fourth|4th|last)\s+({WD})\s+"
    rf"(?:of|in)\s+(?:the|every|each|a)\s+month\b"
)
# "every monday", "every Monday and Thursday", "each tue/thu"
_EVERY_WEEKDAY = re.compile(
    rf"\b(?:every|each)\s+({WD})\b(?:\s*(?:,|/|&|\+|\band\b|\bn\b)\s*(?:{WD})\b)*"
)
# A weekday with a part of the day in the plural: "sunday nights", "tuesday mornings".
_DAY_PARTS = re.compile(rf"\b(?:on\s+)?({WD})\s+(mornings|afternoons|evenings|nights)\b")
_DAY_OF_EVERY_MONTH = re.compile(rf"\b(?:on\s+)?the\s+{DAYNUM}\s+of\s+(?:every|each|the)\s+month\b")
_EVERY_UNIT = re.compile(
    r"\b(every\s+day|daily|every\s+(?:morning|evening|night)|every\s+weekday|weekdays|"
    r"every\s+weekend|weekends|every\s+week|weekly|once\s+a\s+week|twice\s+a\s+week|"
    r"every\s+month|monthly|once\s+a\s+month|every\s+year|yearly|annually|once\s+a\s+year|"
    r"every\s+(\d+|two|three|four)\s+weeks)\b"
)

_RRULE_DAYS = ("MO", "TU", "WE", "TH", "FR", "SA", "SU")
_NTH = {"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4,
        "4th": 4, "last": -1}  # fmt: skip
_INTERVALS = {"other": 2, "second": 2, "2nd": 2, "alternate": 2, "third": 3, "3rd": 3}


def _schedule(rule: str, words: str) -> dict:
    rrulestr(rule, dtstart=datetime(2000, 1, 3))  # dateutil reads it, or this is a bug here
    return {"recurs": Recurrence(rule, words)}


def _days_words(days: list[int]) -> str:
    names = [calendar.day_name[d] for d in days]
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def _weekly(days: list[int], interval: int = 1) -> str:
    byday = ",".join(_RRULE_DAYS[d] for d in days)
    return f"FREQ=WEEKLY;INTERVAL={interval};BYDAY={byday}"


# Repeating phrases without a day, as rules and as said back.
_EVERY = {
    "every day": ("FREQ=DAILY", "every day"),
    "daily": ("FREQ=DAILY", "every day"),
    "every morning": ("FREQ=DAILY", "every morning"),
    "every evening": ("FREQ=DAILY", "every evening"),
    "every night": ("FREQ=DAILY", "every night"),
    "every weekday": (_weekly([0, 1, 2, 3, 4]), "every weekday"),
    "weekdays": (_weekly([0, 1, 2, 3, 4]), "every weekday"),
    "every weekend": (_weekly([5, 6]), "every weekend"),
    "weekends": (_weekly([5, 6]), "every weekend"),
    "every week": ("FREQ=WEEKLY", "every week"),
    "weekly": ("FREQ=WEEKLY", "every week"),
    "once a week": ("FREQ=WEEKLY", "once a week"),
    "twice a week": ("FREQ=WEEKLY", "twice a week"),
    "every month": ("FREQ=MONTHLY", "every month"),
    "monthly": ("FREQ=MONTHLY", "every month"),
    "once a month": ("FREQ=MONTHLY", "once a month"),
    "every year": ("FREQ=YEARLY", "every year"),
    "yearly": ("FREQ=YEARLY", "every year"),
    "annually": ("FREQ=YEARLY", "every year"),
    "once a year": ("FREQ=YEARLY", "once a year"),
}


def read_schedules(f: Finder) -> None:
    def every_other(m: re.Match) -> dict:
        if m[1]:
            interval, day = _INTERVALS[m[1]], WEEKDAYS[m[2]]
        elif m[3]:
            interval, day = 2, WEEKDAYS[m[4]] if m[4] else None
            if day is None:
                return _schedule("FREQ=WEEKLY;INTERVAL=2", "every other week")
        else:
            interval, day = 2, WEEKDAYS[m[5].removesuffix("s")]
        every = "every other" if interval == 2 else "every third"
        return _schedule(_weekly([day], interval), f"{every} {calendar.day_name[day]}")

    def nth_of_month(m: re.Match) -> dict:
        nth, day = _NTH[m[1]], WEEKDAYS[m[2]]
        rule = f"FREQ=MONTHLY;BYDAY={nth:+d}{_RRULE_DAYS[day]}"
        return _schedule(rule, f"the {m[1]} {calendar.day_name[day]} of every month")

    def day_of_month(m: re.Match) -> dict:
        number = ordinal_of(m[1], m[2])
        return _schedule(
            f"FREQ=MONTHLY;BYMONTHDAY={number}", f"the {ordinal(number)} of every month"
        )

    def run(m: re.Match) -> dict | None:
        words = re.findall(rf"\b({WD})\b", m.group(0))
        if any(w in WORDLIKE_DAYS for w in words) and len(words) < 3:
            # "sat and sun" is a schedule; "sat down on wed" is not two days.
            if not all(w in WEEKDAYS for w in words) or len(set(words)) < 2:
                return None
        before = f.low[max(0, m.start() - 8) : m.start()]
        if re.search(r"\b(next|this|last|coming)\s*$", before):
            return None  # "next tue and thu": two days, read one by one
        days = sorted({WEEKDAYS[w] for w in words})
        if len(days) < 2:
            return None
        return _schedule(_weekly(days), f"weekly on {_days_words(days)}")

    def plural(m: re.Match) -> dict:
        words = re.findall(rf"\b({_FULL_DAYS})s\b", m.group(0))
        days = sorted({WEEKDAYS[w] for w in words})
        return _schedule(_weekly(days), f"weekly on {_days_words(days)}")

    def every_weekday(m: re.Match) -> dict:
        days = sorted({WEEKDAYS[w] for w in re.findall(rf"\b({WD})\b", m.group(0))})
        return _schedule(_weekly(days), f"every {_days_words(days)}")

    def day_parts(m: re.Match) -> dict:
        day = WEEKDAYS[m[1]]
        return _schedule(_weekly([day]), f"weekly on {calendar.day_name[day]} {m[2]}")

    def every_unit(m: re.Match) -> dict:
        said = " ".join(m[1].split())
        if m[2]:
            interval = count_of(m[2]) if m[2].isdigit() else COUNTS[m[2]]
            return _schedule(f"FREQ=WEEKLY;INTERVAL={interval}", f"every {interval} weeks")
        rule, words = _EVERY[said]
        return _schedule(rule, words)

    f.each(_NTH_OF_MONTH, nth_of_month, "schedule")
    f.each(_DAY_OF_EVERY_MONTH, day_of_month, "schedule")
    f.each(_EVERY_OTHER, every_other, "schedule")
    f.each(_EVERY_WEEKDAY, every_weekday, "schedule")
    f.each(_WEEKDAY_RUN, run, "schedule")
    f.each(_PLURAL_DAYS, plural, "schedule")
    f.each(_DAY_PARTS, day_parts, "schedule")
    f.each(_EVERY_UNIT, every_unit, "schedule")


def days_gone(said: str, recurrence: Recurrence, before: date) -> list[date]:
    """A bare run of weekdays ("tues n wed"; not "every tue", "tuesdays") told of what happened,
    read as the last of each day on or before ``before``, the day it was told ("denis guys tues
    n wed", told on Saturday 18 April: 14 and 15 April). [] for any other schedule."""
    if not _WEEKDAY_RUN.fullmatch(said.strip().lower()) or "INTERVAL=1;BYDAY=" not in (
        recurrence.rule
    ):
        return []
    days = [_RRULE_DAYS.index(d) for d in recurrence.rule.split("BYDAY=")[1].split(",")]
    return sorted(before - timedelta(days=(before.weekday() - d) % 7) for d in days)
