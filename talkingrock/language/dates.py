"""Dates, times and schedules as people say them: the one date parser of Talking Rock.

``find(text, today=...)`` returns every date, time and schedule a text names, each with where it
is in the text and what it means against the day it was said: "tmrw at 10:30", "on the 8th",
"friday-ish", "next tues", "the fifteenth of december", "3:30 now, not 3pm", "in 2 weeks",
"last monday", "mon tue thu", "every other saturday", "first saturday of the month". The text is
never changed: what is found goes into fields beside it (a fact's ``happened_at``, a task's due
date, a schedule's rule), and pages show it next to the words.

It is read in parts, each its own module: schedules first (talkingrock/language/schedules.py),
then the days and spans of days here, and times of day (clock.py), which are then joined to the
day beside them; what they find, and the calendar's words, are mentions.py.

``window(query, at=...)`` is the time window a question names ("what happened in March", "last
week", "two months ago"), for recall. Saying a date back in words is talkingrock/language/spoken.py;
whether a sentence tells of the past or what is ahead (which way to read "the 3rd") is
talkingrock/language/tense.py.

Calendar arithmetic and schedules are python-dateutil's (``relativedelta``, ``rrule``), a
maintained library. The phrases themselves are read by the grammar below: the free-text
searches of dateparser and parsedatetime were measured on household chat and misread it
("on the 8th at 10:30" as 25 August next year, "thursday at 9" as September, "we may go" as May;
parsedatetime missed "the 8th", "tmrw" and ordinal words and read "3:30" as 3:30 in the night).

How a phrase is read:
- a weekday alone means the next one (today's counts when it is today; "next" skips today,
  "last" goes back); "sat", "sun" and "wed" count only with a word that makes them days ("on
  sat", "sat the 4th", "next wed"), being English words too;
- a day of the month without a month is this month's, or next month's when it has passed; a
  day and month without a year is this year's, or next year's when it is over half a year gone;
  ``lean="past"`` (what has happened, what a question asks about) reads both backwards;
- a day of the month said after the text has named a month is in that month ("its aug 8 + 9 so
  we're doing the 15th": 15 August; "thurs 19 nov … wait its fri 20th": 20 November, as the
  weekday fits), unless it is a deadline ("by the 20th") or the month would put it the other
  way from today than the sentence leans;
- "tuesday week" and "a week on tuesday" are a week after the next Tuesday ("a fortnight on
  tuesday", two);
- a weekday said with its day ("monday 22nd", "Monday 27 April") is a day that fits both: the
  first the way the sentence leans when it is within two months, else the nearest either way;
  so the weekday also picks the year of a day and month;
- a time without am or pm is in the afternoon from 1 to 7 ("pickup at 3:30") and in the morning
  from 8 to 11, as household times are;
- a span of days in one month ("14-21 sept", "aug 15 to 22") is its first day, with the span;
- a run of weekdays ("mon tue thu", "tue and thu"), a plural weekday ("fridays"), "every …" and
  "the first … of the month" are schedules, not dates.
"""

from __future__ import annotations

import bisect
import re
from datetime import date, datetime, time, timedelta
from operator import itemgetter

from dateutil.relativedelta import relativedelta

from talkingrock.language.clock import attach_times, clock_time, read_times
from talkingrock.language.mentions import (
    COUNT,
    DAYNUM,
    DUE_LEADS,
    LEAD,
    MON,
    MONTHS,
    SUFFIXED_DAY,
    WD,
    WEEKDAYS,
    WORDLIKE_DAYS,
    WORDLIKE_MONTHS,
    Finder,
    Mention,
    Recurrence,
    Window,
    count_of,
    ordinal_of,
)
from talkingrock.language.schedules import read_schedules

_TOMORROW = r"tomorrow|tmrw|tmr|tmw|tomoz|2moro|2morrow"
_TODAY = r"today|2day|tonight|tonite|2nite|this morning|this afternoon|this evening"
# "last night", not "the last night of the trip".
_YESTERDAY = r"yesterday|yday|yest|last\s+(?:night|nite)(?!\s+of\b)"

_ISO = re.compile(
    rf"\b(?:(?:{LEAD})\s+)?(\d{{4}})-(\d{{2}})-(\d{{2}})(?:[t ](\d{{2}}):(\d{{2}}))?\b"
)
_NUMERIC = re.compile(rf"\b(?:(?:{LEAD})\s+)?(\d{{1,2}})/(\d{{1,2}})(?:/(\d{{2}}|\d{{4}}))?\b")
_DAY_MONTH = re.compile(
    rf"\b(?:({WD})\.?,?\s+)?(?:the\s+)?{DAYNUM}(?:\s+of)?\s+({MON})\b\.?(?:,?\s+(\d{{4}})\b)?"
)
# A span of days in one month: "14-21 sept", "the 15th to the 22nd of August", "aug 15-22".
_TO_DAY = r"\s*(?:-|–|—|to|till|until|thru|through)\s*(?:the\s+)?"
_DAY_SPAN = re.compile(
    rf"\b(?:(?:{LEAD})\s+)?(?:the\s+)?{DAYNUM}{_TO_DAY}{DAYNUM}(?:\s+of)?\s+({MON})\b\.?"
    rf"(?:,?\s+(\d{{4}})\b)?"
)
_MONTH_SPAN = re.compile(
    rf"\b({MON})\.?\s+(?:the\s+)?{DAYNUM}{_TO_DAY}{DAYNUM}\b(?![:.]\d)(?:,?\s+(\d{{4}})\b)?"
)
_MONTH_DAY = re.compile(
    rf"\b(?:({WD})\.?,?\s+)?({MON})\.?\s+(?:the\s+)?{DAYNUM}\b(?![:.]\d)(?:,?\s+(\d{{4}})\b)?"
)
_WEEKDAY_DAY = re.compile(
    rf"\b(?:(?:{LEAD})\s+)?({WD})\.?,?\s+(?:the\s+)?(\d{{1,2}})(?:st|nd|rd|th)\b"
)
# "tuesday week", "a week on thursday", "a fortnight on sat": the weekday a week (or two) on from
# the next one.
_WEEKDAY_WEEK = re.compile(rf"\b(?:a\s+(week|fortnight)\s+on\s+({WD})|({WD})\s+(week|fortnight))\b")
_AROUND_DAYS = re.compile(
    rf"\b(?:the\s+)?(day\s+after\s+(?:{_TOMORROW})|day\s+before\s+(?:{_YESTERDAY}))\b"
)
_RELATIVE = re.compile(rf"\b(?:(?:{LEAD})\s+)?({_TOMORROW}|{_TODAY}|{_YESTERDAY})\b")
_IN_UNITS = re.compile(rf"\b(?:with)?in\s+(?:the\s+next\s+)?({COUNT})\s+(day|week|month)s?\b")
_AGO = re.compile(rf"\b({COUNT})\s+(day|week|weekend|month|year)s?\s+ago\b")
_UNIT_PERIOD = re.compile(r"\b(next|this|last|coming|past)\s+(week|weekend|month|year)\b")
_WEEKDAY = re.compile(
    rf"\b(?:(next|this|last|coming|{LEAD})\s+)?({WD})\b\.?(?:-ish)?(?!\s*(?:s\b|'s\b))"
)
# An ordinal that counts what follows it is no day of the month: "till the second week", "the
# 3rd floor", "the first time".
_COUNTED = (
    r"(?:week|weekend|month|year|day|night|time|hour|minute|half|quarter|term|semester|round|"
    r"floor|place|go|attempt)s?"
)
_DAY_ONLY = re.compile(rf"\b(?:(?:{LEAD})\s+)?the\s+{SUFFIXED_DAY}\b(?!\s+{_COUNTED}\b)")
# A day of the month typed as a message of its own, or a piece of a burst read as one text
# (joined by "…"): "moved to when?", "23rd"; "on the 14th!". Figures only: "second" alone is no day.
_DAY_ALONE = re.compile(
    r"(?:^|(?<=…)|(?<=… )|(?<=\.\.\.)|(?<=\.\.\. ))(?:(?:" + LEAD + r")\s+)?(?:the\s+)?"
    r"(\d{1,2})(?:st|nd|rd|th)()(?=\s*[.!]*\s*(?:$|…|\.\.\.))"
)
# A day whose month comes as an afterthought, after a break: "it's the 17th now … of August I
# mean" (a change told in a burst of messages, read as one text).
_DAY_THEN_MONTH = re.compile(
    rf"\b(?:(?:{LEAD})\s+)?the\s+{SUFFIXED_DAY}\b(?:\s+[a-z']+){{0,2}}?\s*(?:…|\.\.\.|[,.;\n-])\s*"
    rf"of\s+({MON})\b"
)
_MONTH_ALONE = re.compile(
    rf"\b(?:(in|by|since|during|from|until|till|before|after|early|late|mid|end\s+of|"
    rf"start\s+of|beginning\s+of|next|last|this)\s+)?({MON})\b(?:\s+(\d{{4}})\b)?"
)
_YEAR_ALONE = re.compile(r"\b(in|during|since)\s+((?:19|20)\d{2})\b")
_RECENTLY = re.compile(r"\b(recently|lately|these\s+days)\b")


def _safe(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


def _weekday_from(word: str, modifier: str, today: date, lean: str) -> date:
    target = WEEKDAYS[word]
    ahead = (target - today.weekday()) % 7
    back = (today.weekday() - target) % 7
    if modifier == "last" or (lean == "past" and modifier not in ("next", "this", "coming")):
        # "came through on Tuesday", said on a Tuesday, is last week's: today is "today".
        return today - timedelta(days=back or 7)
    if modifier == "next" and ahead == 0:
        ahead = 7
    return today + timedelta(days=ahead)


def _day_month(day: int, month: int, year: str | None, today: date, lean: str) -> date | None:
    found = _safe(int(year) if year else today.year, month, day)
    if found is None or year:
        return found
    if lean == "past" and found > today:
        return _safe(found.year - 1, month, day)
    if lean != "past" and (today - found).days > 180:
        return _safe(found.year + 1, month, day)
    return found


# A weekday said with its day of the month ("monday 22nd") names a day within weeks of the day
# it was said: the first such day the way the sentence leans, when it is this near.
NAMED_WEEKDAY_DAYS = 62


def _nearest(named: list[date], today: date, lean: str) -> date | None:
    """Of the days that fit a weekday and a day of the month, the one meant: the first the way
    ``lean`` reads (ahead, or back for what happened) when it is within ``NAMED_WEEKDAY_DAYS``,
    else the nearest either way ("hes not starting the 8th … monday 22nd now", said on 3 June
    2026, is 22 June, not 22 December 2025)."""
    if lean == "past":
        leaning = max((d for d in named if d <= today), default=None)
    else:
        leaning = min((d for d in named if d >= today), default=None)
    if leaning is not None and abs((leaning - today).days) <= NAMED_WEEKDAY_DAYS:
        return leaning
    return min(named, key=lambda d: (abs((d - today).days), d != leaning), default=None)


def _day_only(number: int, today: date, lean: str) -> date | None:
    found = _safe(today.year, today.month, number)
    if lean == "past":
        if found is None or found > today:
            earlier = today.replace(day=1) - timedelta(days=1)
            return _safe(earlier.year, earlier.month, number)
        return found
    if found is None or found < today:
        later = today.replace(day=1) + relativedelta(months=1)
        return _safe(later.year, later.month, number)
    return found


def _read_numeric_days(f: Finder) -> None:
    """ISO and numeric dates, read before times so that "12/12" is not "at 12"."""
    today, lean = f.today, f.lean

    def iso(m: re.Match) -> dict | None:
        day = _safe(int(m[1]), int(m[2]), int(m[3]))
        if day is None:
            return {}
        moment = clock_time(int(m[4]), int(m[5]), "a") if m[4] else None
        if m[4] and int(m[4]) >= 12:
            moment = time(int(m[4]), int(m[5])) if int(m[4]) < 24 and int(m[5]) < 60 else None
        return {"day": day, "time": moment, "lead": _lead_of(m.group(0))}

    def numeric(m: re.Match) -> dict | None:
        # Day first, as the household's locale (en-GB) writes it; a year makes it certain.
        if not m[3] and int(m[2]) > 12:
            return None  # "3/15" is not a day/month; read nothing rather than guess
        year = m[3] and (int(m[3]) + 2000 if len(m[3]) == 2 else int(m[3]))
        day = (
            _safe(year, int(m[2]), int(m[1]))
            if year
            else _day_month(int(m[1]), int(m[2]), None, today, lean)
        )
        return None if day is None else {"day": day, "lead": _lead_of(m.group(0))}

    f.each(_ISO, iso, "date")
    f.each(_NUMERIC, numeric, "date")


class _Days:
    """Readers of a day or a span of days, each for one pattern, against the day it was said."""

    def __init__(self, today: date, lean: str, found: list[Mention], plan: date | None = None):
        self.today, self.lean, self.plan = today, lean, plan
        self.found = found  # what the text was read to say so far
        # The days named with their month, by where they end in the text (``in_month_named``):
        # kept up as ``found`` grows, so a text of many days is read in a time that grows with
        # its length, not with its square.
        self._named: list[tuple[int, date]] = []
        self._named_from = 0  # the first of ``found`` not yet looked at for ``_named``

    def day_then_month(self, m: re.Match) -> dict | None:
        day = self.fitting(None, ordinal_of(m[1], m[2]), MONTHS[m[3]], None)
        return {} if day is None else {"day": day, "lead": _lead_of(m.group(0))}

    def day_month(self, m: re.Match) -> dict | None:
        number, month = ordinal_of(m[2], m[3]), MONTHS[m[4]]
        day = self.fitting(m[1], number, month, m[5])
        return {} if day is None else {"day": day}

    def fitting(self, weekday: str | None, number: int, month: int, year: str | None):
        """The day ``number`` of ``month``; said with a weekday and no year ("moved to Monday 27
        April", "its tues may 12"), of the year before, this one and the next, the one in which
        it falls on that weekday (none: the weekday was a slip)."""
        day = _day_month(number, month, year, self.today, self.lean)
        if weekday and not year and day is not None and day.weekday() != WEEKDAYS[weekday]:
            years = (self.today.year - 1, self.today.year, self.today.year + 1)
            named = [_safe(each, month, number) for each in years]
            named = [d for d in named if d is not None and d.weekday() == WEEKDAYS[weekday]]
            day = _nearest(named, self.today, self.lean) or day
        return day

    def span(self, first: int, last: int, month: int, year: str | None) -> dict | None:
        """The days from ``first`` to ``last`` of a month: the first day, and the span."""
        start = _day_month(first, month, year, self.today, self.lean)
        end = _safe(start.year, month, last) if start is not None else None
        if start is None or end is None or end <= start:
            return None  # "3-2 may" is no span: its days are read alone
        return {"day": start, "period": (start, end + timedelta(days=1))}

    def day_span(self, m: re.Match) -> dict | None:
        return self.span(ordinal_of(m[1], m[2]), ordinal_of(m[3], m[4]), MONTHS[m[5]], m[6])

    def month_span(self, m: re.Match) -> dict | None:
        return self.span(ordinal_of(m[2], m[3]), ordinal_of(m[4], m[5]), MONTHS[m[1]], m[6])

    def month_day(self, m: re.Match) -> dict | None:
        weekday, month, number, word, year = m.groups()
        if month in WORDLIKE_MONTHS and not (number or year):
            return None
        if month in ("may", "march") and number and len(number) == 1 and not (year or weekday):
            # "we may 2 of them" is not a date; "may 2nd", "may 2 2026" or "tues may 2" is.
            if not re.match(r"\d(st|nd|rd|th)", m.group(0).split()[-1]):
                return None
        day = self.fitting(weekday, ordinal_of(number, word), MONTHS[month], year)
        return None if day is None else {"day": day}

    def weekday_day(self, m: re.Match) -> dict | None:
        wanted, number = WEEKDAYS[m[1]], int(m[2])
        # In the month the text has named, when the weekday fits it: "now thurs 19 nov … wait
        # its fri 20th" is 20 November.
        named = self.in_month_named(number, m.start())
        if named is not None and named.weekday() == wanted:
            return {"day": named, "lead": _lead_of(m.group(0))}
        # The months within a year either side whose day ``number`` falls on that weekday; the
        # day of the month wins when none does (the weekday was a slip).
        this_month = self.today.replace(day=1)
        named = [
            _safe(first.year, first.month, number)
            for first in (this_month + relativedelta(months=n) for n in range(-12, 13))
        ]
        named = [d for d in named if d is not None and d.weekday() == wanted]
        if self.plan is not None:
            # Of those not past, the nearest the plan a change moves: "put us on thurs 9th
            # instead", of a flight on 8 July, is 9 July.
            ahead = [d for d in named if d >= self.today]
            if ahead:
                day = min(ahead, key=lambda d: abs((d - self.plan).days))
                return {"day": day, "lead": _lead_of(m.group(0))}
        if day := _nearest(named, self.today, self.lean):
            return {"day": day, "lead": _lead_of(m.group(0))}
        day = _day_only(number, self.today, self.lean)
        return None if day is None else {"day": day}

    def around(self, m: re.Match) -> dict:
        shift = 2 if m[1].startswith("day after") else -2
        return {"day": self.today + timedelta(days=shift)}

    def relative(self, m: re.Match) -> dict:
        word = m[1]
        if re.fullmatch(_TOMORROW, word):
            shift = 1
        elif re.fullmatch(_YESTERDAY, word):
            shift = -1
        else:
            shift = 0
        return {"day": self.today + timedelta(days=shift), "lead": _lead_of(m.group(0))}

    def in_units(self, m: re.Match) -> dict:
        count, unit = count_of(m[1]), m[2]
        step = {"day": relativedelta(days=count), "week": relativedelta(weeks=count)}.get(
            unit, relativedelta(months=count)
        )
        return {"day": self.today + step, "lead": "by"}

    def ago(self, m: re.Match) -> dict:
        count, unit = count_of(m[1]), m[2]
        days = {"day": 1, "week": 7, "weekend": 7, "month": 30, "year": 365}[unit] * count
        centre = self.today - timedelta(days=days)
        # "Two months ago" is not a precise day: a quarter of the distance either side.
        slack = timedelta(days=max(1, days // 4))
        return {"day": centre, "period": (centre - slack, centre + slack + timedelta(days=1))}

    def unit_period(self, m: re.Match) -> dict:
        which, unit = m[1], m[2]
        shift = {"next": 1, "coming": 1, "this": 0, "last": -1, "past": -1}[which]
        if unit in ("week", "weekend"):
            monday = self.today - timedelta(days=self.today.weekday()) + timedelta(weeks=shift)
            start = monday + timedelta(days=5) if unit == "weekend" else monday
            return {"day": start, "period": (start, monday + timedelta(days=7))}
        if unit == "month":
            first = self.today.replace(day=1) + relativedelta(months=shift)
            return {"day": first, "period": (first, first + relativedelta(months=1))}
        first = date(self.today.year + shift, 1, 1)
        return {"day": first, "period": (first, date(first.year + 1, 1, 1))}

    def weekday_week(self, m: re.Match) -> dict:
        unit, word = (m[1], m[2]) if m[2] else (m[4], m[3])
        weeks = 2 if unit == "fortnight" else 1
        # The next one is never today: "a week today" would say so.
        return {"day": _weekday_from(word, "next", self.today, "future") + timedelta(weeks=weeks)}

    def weekday_alone(self, m: re.Match) -> dict | None:
        modifier, word = m[1] or "", m[2]
        if word in WORDLIKE_DAYS and not modifier:
            return None
        day = _weekday_from(word, modifier, self.today, self.lean)
        return {"day": day, "lead": modifier if re.fullmatch(LEAD, modifier) else ""}

    def day_only(self, m: re.Match) -> dict | None:
        number, lead = ordinal_of(m[1], m[2]), _lead_of(m.group(0))
        # A deadline ("deposit by the 20th") counts from today, whatever month was named.
        named = None if lead in DUE_LEADS else self.in_month_named(number, m.start())
        day = named or self.near_plan(number) or _day_only(number, self.today, self.lean)
        return None if day is None else {"day": day, "lead": lead}

    def in_month_named(self, number: int, at: int) -> date | None:
        """Day ``number`` of the month the text named last before ``at`` ("its aug 8 + 9 in
        truro so were doing the 15th to 22nd now": 15 August), unless that falls the other way
        from today than the sentence leans (then it is this month's or the next, as alone)."""
        for m in self.found[self._named_from :]:
            if m.said_as == "date" and m.day is not None and not m.recurs:
                bisect.insort(self._named, (m.end, m.day), key=itemgetter(0))
        self._named_from = len(self.found)
        before = bisect.bisect_right(self._named, at, key=itemgetter(0))
        if not before:
            return None
        month = self._named[before - 1][1]
        day = _safe(month.year, month.month, number)
        if day is None or (day < self.today if self.lean == "future" else day > self.today):
            return None
        return day

    def near_plan(self, number: int) -> date | None:
        """Day ``number`` of the month nearest the day of the plan the text may change ("hen
        moved … 23rd", of a hen do on Saturday 16 May: 23 May), unless that has passed."""
        if self.plan is None:
            return None
        day = day_of_month_near(number, self.plan)
        return day if day is not None and day >= self.today else None

    def month_alone(self, m: re.Match) -> dict | None:
        lead, word, year = m[1] or "", m[2], m[3]
        if not lead and not year and (word in WORDLIKE_MONTHS or len(word) < 4):
            return None  # "may", "march" and "jan" alone are words (or a name)
        month = MONTHS[word]
        if year:
            first = date(int(year), month, 1)
        elif lead == "next" or (self.lean != "past" and lead not in ("last", "since")):
            first = date(self.today.year, month, 1)
            if lead == "next" or (first.year, first.month) < (self.today.year, self.today.month):
                if (self.today.year, self.today.month) >= (first.year, first.month):
                    first = date(self.today.year + 1, month, 1)
        else:
            first = date(self.today.year, month, 1)
            if (first.year, first.month) > (self.today.year, self.today.month) or (
                lead == "last" and month == self.today.month
            ):
                first = date(self.today.year - 1, month, 1)
        return {"day": None, "period": (first, first + relativedelta(months=1)), "lead": lead}

    def year_alone(self, m: re.Match) -> dict:
        first = date(int(m[2]), 1, 1)
        return {"period": (first, date(first.year + 1, 1, 1)), "lead": m[1]}

    def recently(self, m: re.Match) -> dict:
        return {"period": (self.today - timedelta(days=14), self.today + timedelta(days=1))}


def _read_days(f: Finder, plan: date | None) -> None:
    days = _Days(f.today, f.lean, f.found, plan)
    f.each(_DAY_SPAN, days.day_span, "date")
    f.each(_MONTH_SPAN, days.month_span, "date")
    f.each(_DAY_MONTH, days.day_month, "date")
    f.each(_MONTH_DAY, days.month_day, "date")
    f.each(_WEEKDAY_DAY, days.weekday_day, "date")
    f.each(_WEEKDAY_WEEK, days.weekday_week, "weekday")
    f.each(_AROUND_DAYS, days.around, "relative")
    f.each(_RELATIVE, days.relative, "relative")
    f.each(_IN_UNITS, days.in_units, "relative")
    f.each(_AGO, days.ago, "ago")
    f.each(_UNIT_PERIOD, days.unit_period, "period")
    f.each(_WEEKDAY, days.weekday_alone, "weekday")
    f.each(_DAY_THEN_MONTH, days.day_then_month, "date")
    f.each(_DAY_ONLY, days.day_only, "day")
    f.each(_DAY_ALONE, days.day_only, "day")
    f.each(_MONTH_ALONE, days.month_alone, "month")
    f.each(_YEAR_ALONE, days.year_alone, "year")
    f.each(_RECENTLY, days.recently, "period")


def _lead_of(said: str) -> str:
    first = said.split(maxsplit=1)[0].lower() if said.strip() else ""
    return first if re.fullmatch(LEAD, first) else ""


def find(
    text: str, *, today: date, lean: str = "future", plan: date | None = None
) -> list[Mention]:
    """Every date, time and schedule ``text`` names, in the order they are said, read against
    ``today`` (the day it was said). ``lean="past"``: what is said happened (or is asked
    about) before today, so "the 3rd", "monday" and "3 march" are read backwards. ``plan``:
    the day of a plan the text may change; a day of the month said without one is read in
    the month nearest it ("moved to the 20th" of a test on 13 August: 20 August)."""
    finder = Finder(text or "", today, lean)
    try:
        read_schedules(finder)
        _read_numeric_days(finder)
        times = read_times(finder)
        _read_days(finder, plan)
    except (ValueError, OverflowError):  # 31 February, year 10000: not a date, nothing read
        return []
    return sorted(attach_times(finder.found, times, finder.text), key=lambda m: m.start)


def day_of_month_near(number: int, near: date) -> date | None:
    """Day ``number`` of the month nearest ``near``: a day said beside another that gave way to
    it ("the 21st now, not the 14th", the 21st being 21 November, struck 14 November; "the 2nd
    now, not the 30th", the 2nd being 2 December, struck 30 November), whether or not it has
    passed on the day it is said."""
    months = (near + relativedelta(months=step) for step in (-1, 0, 1))
    days = [d for m in months if (d := _safe(m.year, m.month, number)) is not None]
    return min(days, key=lambda d: abs((d - near).days), default=None)


def first_day(text: str, *, today: date, lean: str = "future") -> Mention | None:
    """The first mention of ``text`` that names a day (or a span of days)."""
    return next((m for m in find(text, today=today, lean=lean) if m.day or m.period), None)


def window(text: str, *, at: datetime) -> Window | None:
    """The span of time a question names, read backwards from ``at`` ("in March" is the last
    March), or None. A day is that day; a month, a week, a year their span."""
    tzinfo = at.tzinfo
    today = at.date()
    for mention in find(text or "", today=today, lean="past"):
        if mention.period is not None:
            start, end = mention.period
        elif mention.day is not None:
            start, end = mention.day, mention.day + timedelta(days=1)
        else:
            continue
        return Window(
            datetime.combine(start, time.min, tzinfo=tzinfo),
            datetime.combine(end, time.min, tzinfo=tzinfo),
            mention.text.strip(),
        )
    return None


def mentions_a_time(text: str) -> bool:
    """Whether ``text`` states a time of day ("3pm", "10:30", "noon")."""
    return any(m.time is not None for m in find(text, today=date(2000, 1, 3)))


def mentions_a_day(text: str) -> bool:
    """Whether ``text`` names a day, a month or a schedule."""
    return any(m.day or m.period or m.recurs for m in find(text, today=date(2000, 1, 3)))


__all__ = [
    "MONTHS",
    "WEEKDAYS",
    "Mention",
    "Recurrence",
    "Window",
    "find",
    "first_day",
    "mentions_a_day",
    "mentions_a_time",
    "window",
]
