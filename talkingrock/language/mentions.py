"""What the date reader finds in a text, and the words it reads days by: each ``Mention`` (a
date, time or schedule, where it is said and what it means), a ``Recurrence`` (a schedule's rule),
a ``Window`` (the span a question names), the ``Finder`` every reader of a text shares (it masks
each span read, so nothing is read twice), and the calendar's words (weekdays, months, ordinals,
counts) with the patterns made of them. The readers are talkingrock/language/dates.py (days and
spans of days, and ``find``, which runs them all), schedules.py (what repeats) and clock.py
(times of day)."""

from __future__ import annotations

import calendar
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime, time

from dateutil.rrule import rrulestr

from talkingrock.text import lowered

WEEKDAYS: dict[str, int] = {name.lower(): n for n, name in enumerate(calendar.day_name)}
WEEKDAYS.update(mon=0, tue=1, tues=1, wed=2, weds=2, thu=3, thur=3, thurs=3, fri=4, sat=5, sun=6)
MONTHS: dict[str, int] = {name.lower(): n for n, name in enumerate(calendar.month_name) if name}
MONTHS.update({name.lower(): n for n, name in enumerate(calendar.month_abbr) if name})
MONTHS["sept"] = 9
# Weekday abbreviations that are also common English words: days only in company.
WORDLIKE_DAYS = frozenset({"sat", "sun", "wed"})
# Month names that are also English words: months only in company ("in may", "may 3rd").
WORDLIKE_MONTHS = frozenset({"may", "march", "mar", "jan", "sep", "dec", "aug"})

_UNITS = "first second third fourth fifth sixth seventh eighth ninth".split()
_TEENS = (
    "tenth eleventh twelfth thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth "
    "nineteenth"
).split()
ORDINAL_WORDS: dict[str, int] = {word: n for n, word in enumerate(_UNITS, 1)}
ORDINAL_WORDS.update({word: n for n, word in enumerate(_TEENS, 10)})
ORDINAL_WORDS.update({"twentieth": 20, "thirtieth": 30, "thirty first": 31})
ORDINAL_WORDS.update({f"twenty {word}": 20 + n for n, word in enumerate(_UNITS, 1)})
COUNTS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "couple of": 2,
    "a couple of": 2, "few": 3, "a few": 3, "several": 3,
}  # fmt: skip


def alternation(words) -> str:
    return "|".join(word.replace(" ", r"[\s-]+") for word in sorted(words, key=len, reverse=True))


WD = alternation(WEEKDAYS)
MON = alternation(MONTHS)
ORDW = alternation(ORDINAL_WORDS)
COUNT = r"\d{1,3}|" + alternation(COUNTS)
DAYNUM = rf"(?:(\d{{1,2}})(?:st|nd|rd|th)?|({ORDW}))"
SUFFIXED_DAY = rf"(?:(\d{{1,2}})(?:st|nd|rd|th)|({ORDW}))"
LEAD = r"on|by|from|till|until|before|after|for|since"


@dataclass(frozen=True)
class Recurrence:
    """A schedule: an iCalendar RRULE (dateutil reads it) and how to say it."""

    rule: str
    words: str

    def next_after(self, moment: datetime) -> datetime | None:
        """The first occurrence after ``moment`` (None when the rule names no day)."""
        if "BYDAY" not in self.rule and "BYMONTHDAY" not in self.rule and "DAILY" not in self.rule:
            return None
        start = moment.replace(hour=0, minute=0, second=0, microsecond=0)
        return rrulestr(self.rule, dtstart=start).after(moment, inc=False)


# The words that make a day a deadline ("by friday", "before the 8th").
DUE_LEADS = frozenset({"by", "before", "till", "until"})


DAYS_IN_A_WEEK = 7


@dataclass(frozen=True)
class Mention:
    """A date, time or schedule said in a text, and what it means."""

    text: str  # the words as said, from the text
    start: int
    end: int
    day: date | None = None  # the day it names
    time: time | None = None  # the time of day it names
    until: time | None = None  # the time a span of hours ends ("four to nine": 9pm)
    lead: str = ""  # how it was said: "by", "on", "from", "until", "at"… or ""
    recurs: Recurrence | None = None
    # The span of days it names (a month, a week, "two months ago"): [first, last + 1).
    period: tuple[date, date] | None = None
    # How the day was said: "date" (a day and a month), "weekday", "day" (of this month),
    # "relative" ("tmrw", "in 2 weeks"), "ago" ("three weeks ago": about that day), "period" (a
    # week, a month, a year), "time" alone, or "schedule".
    said_as: str = ""

    @property
    def is_due(self) -> bool:
        """Said as a deadline ("by friday", "before the 8th")."""
        return self.lead in DUE_LEADS

    def moment(self, tzinfo=None) -> datetime | None:
        """The day (at its time, or midnight) as a datetime."""
        if self.day is None:
            return None
        return datetime.combine(self.day, self.time or time.min, tzinfo=tzinfo)

    @property
    def names_a_day(self) -> bool:
        """Whether ``day`` is a day the words name: not the first of a month or a year said as a
        whole ("at 3pm this year" names no 1 January); a week or a weekend starts on a day worth
        giving ("this weekend": Saturday)."""
        if self.day is None:
            return False
        return not (
            self.said_as == "period"
            and self.period is not None
            and (self.period[1] - self.period[0]).days > DAYS_IN_A_WEEK
        )

    def as_dict(self) -> dict[str, str]:
        """The stored form, beside the words: {"text", "date", "time", "lead", "rule", "words"}."""
        found: dict[str, str] = {"text": self.text}
        if self.names_a_day:
            found["date"] = self.day.isoformat()
        if self.time is not None:
            found["time"] = self.time.strftime("%H:%M")
        if self.lead:
            found["lead"] = self.lead
        if self.recurs is not None:
            found["rule"], found["words"] = self.recurs.rule, self.recurs.words
        return found


@dataclass(frozen=True)
class Window:
    """A span of time a question names: [start, end)."""

    start: datetime
    end: datetime
    phrase: str

    def as_dict(self) -> dict[str, str]:
        return {"phrase": self.phrase, "from": self.start.isoformat(), "to": self.end.isoformat()}


def ordinal_of(digits: str | None, words: str | None) -> int:
    if digits:
        return int(digits)
    return ORDINAL_WORDS[" ".join((words or "").replace("-", " ").split())]


def count_of(word: str) -> int:
    word = " ".join(word.split())
    return int(word) if word.isdigit() else COUNTS[word]


@dataclass
class Finder:
    text: str
    today: date
    lean: str
    low: str = ""
    found: list[Mention] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.low = lowered(self.text)

    def take(self, match: re.Match, said_as: str, **meaning) -> None:
        start, end = match.span()
        self.found.append(Mention(self.text[start:end], start, end, said_as=said_as, **meaning))
        # Masked with a character no pattern reads, so that nothing reads the span twice.
        self.low = self.low[:start] + "\x00" * (end - start) + self.low[end:]

    def each(
        self, pattern: re.Pattern, read: Callable[[re.Match], dict | None], said_as: str
    ) -> None:
        for match in list(pattern.finditer(self.low)):
            if "\x00" in match.group(0):
                continue
            meaning = read(match)
            if meaning == {}:  # a date that is no date ("31 February"): nothing, and read once
                start, end = match.span()
                self.low = self.low[:start] + "\x00" * (end - start) + self.low[end:]
            elif meaning is not None:
                self.take(match, said_as, **meaning)
