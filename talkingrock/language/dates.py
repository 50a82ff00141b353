"""Dates, times and schedules as people say them: the one date parser of Talking Rock.

``find(text, today=...)`` returns every date, time and schedule a text names, each with where it
is in the text and what it means against the day it was said: "tmrw at 10:30", "on the 8th",
"friday-ish", "next tues", "the fifteenth of december", "3:30 now, not 3pm", "in 2 weeks",
"last monday", "mon tue thu", "every other saturday", "first saturday of the month". The text is
never changed: what is found goes into fields beside it (a fact's ``happened_at``, a task's due
date, a schedule's rule), and pages show it next to the words.

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
- a time without am or pm is in the afternoon from 1 to 7 ("pickup at 3:30") and in the morning
  from 8 to 11, as household times are;
- a run of weekdays ("mon tue thu", "tue and thu"), a plural weekday ("fridays"), "every …" and
  "the first … of the month" are schedules, not dates.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import date, datetime, time, timedelta

from dateutil.relativedelta import relativedelta
from dateutil.rrule import rrulestr

from talkingrock.text import lowered

WEEKDAYS: dict[str, int] = {name.lower(): n for n, name in enumerate(calendar.day_name)}
WEEKDAYS.update(mon=0, tue=1, tues=1, wed=2, weds=2, thu=3, thur=3, thurs=3, fri=4, sat=5, sun=6)
MONTHS: dict[str, int] = {name.lower(): n for n, name in enumerate(calendar.month_name) if name}
MONTHS.update({name.lower(): n for n, name in enumerate(calendar.month_abbr) if name})
MONTHS["sept"] = 9
# Weekday abbreviations that are also common English words: days only in company.
_WORDLIKE_DAYS = frozenset({"sat", "sun", "wed"})
# Month names that are also English words: months only in company ("in may", "may 3rd").
_WORDLIKE_MONTHS = frozenset({"may", "march", "mar", "jan", "sep", "dec", "aug"})

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
_HOURS_IN_WORDS = {
    word: n
    for n, word in enumerate(
        "one two three four five six seven eight nine ten eleven twelve".split(), start=1
    )
}


def _alternation(words) -> str:
    return "|".join(word.replace(" ", r"[\s-]+") for word in sorted(words, key=len, reverse=True))


_WD = _alternation(WEEKDAYS)
_MON = _alternation(MONTHS)
_ORDW = _alternation(ORDINAL_WORDS)
_COUNT = r"\d{1,3}|" + _alternation(COUNTS)
_DAYNUM = rf"(?:(\d{{1,2}})(?:st|nd|rd|th)?|({_ORDW}))"
_SUFFIXED_DAY = rf"(?:(\d{{1,2}})(?:st|nd|rd|th)|({_ORDW}))"
_LEAD = r"on|by|from|till|until|before|after|for|since"
_TOMORROW = r"tomorrow|tmrw|tmr|tmw|tomoz|2moro|2morrow"
_TODAY = r"today|2day|tonight|tonite|2nite|this morning|this afternoon|this evening"
_YESTERDAY = r"yesterday|yday|yest"

_ISO = re.compile(
    rf"\b(?:(?:{_LEAD})\s+)?(\d{{4}})-(\d{{2}})-(\d{{2}})(?:[t ](\d{{2}}):(\d{{2}}))?\b"
)
_NUMERIC = re.compile(rf"\b(?:(?:{_LEAD})\s+)?(\d{{1,2}})/(\d{{1,2}})(?:/(\d{{2}}|\d{{4}}))?\b")
_DAY_MONTH = re.compile(
    rf"\b(?:({_WD})\.?,?\s+)?(?:the\s+)?{_DAYNUM}(?:\s+of)?\s+({_MON})\b\.?(?:,?\s+(\d{{4}})\b)?"
)
_MONTH_DAY = re.compile(rf"\b({_MON})\.?\s+(?:the\s+)?{_DAYNUM}\b(?![:.]\d)(?:,?\s+(\d{{4}})\b)?")
_WEEKDAY_DAY = re.compile(
    rf"\b(?:(?:{_LEAD})\s+)?({_WD})\.?,?\s+(?:the\s+)?(\d{{1,2}})(?:st|nd|rd|th)\b"
)
_AROUND_DAYS = re.compile(
    rf"\b(?:the\s+)?(day\s+after\s+(?:{_TOMORROW})|day\s+before\s+(?:{_YESTERDAY}))\b"
)
_RELATIVE = re.compile(rf"\b(?:(?:{_LEAD})\s+)?({_TOMORROW}|{_TODAY}|{_YESTERDAY})\b")
_IN_UNITS = re.compile(rf"\b(?:with)?in\s+(?:the\s+next\s+)?({_COUNT})\s+(day|week|month)s?\b")
_AGO = re.compile(rf"\b({_COUNT})\s+(day|week|weekend|month|year)s?\s+ago\b")
_UNIT_PERIOD = re.compile(r"\b(next|this|last|coming|past)\s+(week|weekend|month|year)\b")
_WEEKDAY = re.compile(
    rf"\b(?:(next|this|last|coming|{_LEAD})\s+)?({_WD})\b\.?(?:-ish)?(?!\s*(?:s\b|'s\b))"
)
_DAY_ONLY = re.compile(rf"\b(?:(?:{_LEAD})\s+)?the\s+{_SUFFIXED_DAY}\b")
_MONTH_ALONE = re.compile(
    rf"\b(?:(in|by|since|during|from|until|till|before|after|early|late|mid|end\s+of|"
    rf"start\s+of|beginning\s+of|next|last|this)\s+)?({_MON})\b(?:\s+(\d{{4}})\b)?"
)
_YEAR_ALONE = re.compile(r"\b(in|during|since)\s+((?:19|20)\d{2})\b")
_RECENTLY = re.compile(r"\b(recently|lately|these\s+days)\b")

_TIME_AMPM = re.compile(
    r"\b(?:(at|@|around|about|by|from|till|until|before|after)\s*)?(\d{1,2})(?:[:.](\d{2}))?"
    r"\s*(a\.?m\.?|p\.?m\.?)(?![a-z])"
)
# Not a pace: "at 11:30 pace", "8:45/mile", "5:10 per km" are minutes and seconds.
_TIME_CLOCK = re.compile(
    r"\b(?:(at|@|around|about|by|from|till|until)\s*)?(\d{1,2}):(\d{2})\b"
    r"(?!\s*(?:pace|(?:min(?:ute)?s?\s*)?(?:/|per\s)\s*(?:mile|mi|km|k)\b))"
)
_TIME_AT = re.compile(
    r"\b(at|@|around|by)\s+(\d{1,2})\b(?![:.,/]?\d)(?!\s*(?:%|k\b|grand|quid|pounds|dollars|"
    r"euros|mins?\b|minutes|hours?|hrs?\b|days?|weeks?|months?|years?|yrs?\b|people|kids|"
    r"percent|miles?|km|st\b|nd\b|rd\b|th\b))"
)
_TIME_HALF = re.compile(
    rf"\b(?:(at|around|by)\s+)?half\s+(?:past\s+)?({_alternation(_HOURS_IN_WORDS)}|\d{{1,2}})\b"
)
_TIME_NAMED = re.compile(r"\b(?:(at|around|by)\s+)?(noon|midday|midnight)\b")

# Not "-": "fri-sun" is a span of days, not a schedule.
_RUN_SEPARATOR = r"(?:\s*(?:,|/|&|\+|\band\b|\bor\b)\s*|\s+)"
_WEEKDAY_RUN = re.compile(rf"\b({_WD})\b\.?(?:{_RUN_SEPARATOR}({_WD})\b\.?)+")
# Plurals of the full names only: "tues" and "thurs" are abbreviations, not plurals.
_FULL_DAYS = _alternation(name.lower() for name in calendar.day_name)
_PLURAL_DAYS = re.compile(
    rf"\b(?:(?:on|every|all)\s+)?((?:{_FULL_DAYS})s)\b(?:{_RUN_SEPARATOR}((?:{_FULL_DAYS})s)\b)*"
)
_EVERY_OTHER = re.compile(
    rf"\b(?:every|each)\s+(other|second|2nd|alternate|third|3rd)\s+({_WD})s?\b|"
    rf"\b(fortnightly|biweekly)(?:\s+on\s+({_WD})s?)?\b|\balternate\s+({_WD})s\b"
)
_NTH_OF_MONTH = re.compile(
    rf"\b(?:the\s+)?(first|1st|second|2nd|third|3rd|fourth|4th|last)\s+({_WD})\s+"
    rf"(?:of|in)\s+(?:the|every|each|a)\s+month\b"
)
_EVERY_WEEKDAY = re.compile(rf"\b(?:every|each)\s+({_WD})\b")
# A weekday with a part of the day in the plural: "sunday nights", "tuesday mornings".
_DAY_PARTS = re.compile(rf"\b(?:on\s+)?({_WD})\s+(mornings|afternoons|evenings|nights)\b")
_DAY_OF_EVERY_MONTH = re.compile(
    rf"\b(?:on\s+)?the\s+{_DAYNUM}\s+of\s+(?:every|each|the)\s+month\b"
)
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


@dataclass(frozen=True)
class Mention:
    """A date, time or schedule said in a text, and what it means."""

    text: str  # the words as said, from the text
    start: int
    end: int
    day: date | None = None  # the day it names
    time: time | None = None  # the time of day it names
    lead: str = ""  # how it was said: "by", "on", "from", "until", "at"… or ""
    recurs: Recurrence | None = None
    # The span of days it names (a month, a week, "two months ago"): [first, last + 1).
    period: tuple[date, date] | None = None
    # How the day was said: "date" (a day and a month), "weekday", "day" (of this month),
    # "relative" ("tmrw", "in 2 weeks"), "period" (a week, a month, a year), "time" alone, or
    # "schedule".
    said_as: str = ""

    @property
    def is_due(self) -> bool:
        """Said as a deadline ("by friday", "before the 8th")."""
        return self.lead in ("by", "before", "till", "until")

    def moment(self, tzinfo=None) -> datetime | None:
        """The day (at its time, or midnight) as a datetime."""
        if self.day is None:
            return None
        return datetime.combine(self.day, self.time or time.min, tzinfo=tzinfo)

    def as_dict(self) -> dict[str, str]:
        """The stored form, beside the words: {"text", "date", "time", "lead", "rule", "words"}."""
        found: dict[str, str] = {"text": self.text}
        if self.day is not None:
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


# --- finding ------------------------------------------------------------------------------------


def _ordinal(digits: str | None, words: str | None) -> int:
    if digits:
        return int(digits)
    return ORDINAL_WORDS[" ".join((words or "").replace("-", " ").split())]


def _count(word: str) -> int:
    word = " ".join(word.split())
    return int(word) if word.isdigit() else COUNTS[word]


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


_EVENING = re.compile(r"\b(tonight|tonite|2nite|evening|night|dinner|supper|drinks|pub)\b")


def _clock(hour: int, minute: int, half: str = "", *, evening: bool = False) -> time | None:
    half = half.replace(".", "")[:1]
    if half == "p" and hour < 12:
        hour += 12
    elif half == "a" and hour == 12:
        hour = 0
    elif not half and (1 <= hour <= 7 or (evening and 5 <= hour <= 11)):
        # "pickup at 3:30": household times without am or pm are the afternoon's; "dinner at 8"
        # is the evening's.
        hour += 12
    if not (0 <= hour <= 23 and 0 <= minute <= 59):
        return None
    return time(hour, minute)


@dataclass
class _Finder:
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


def _read_schedules(f: _Finder) -> None:
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
        number = _ordinal(m[1], m[2])
        suffix = (
            "th" if 10 <= number % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(number % 10, "th")
        )
        return _schedule(
            f"FREQ=MONTHLY;BYMONTHDAY={number}", f"the {number}{suffix} of every month"
        )

    def run(m: re.Match) -> dict | None:
        words = re.findall(rf"\b({_WD})\b", m.group(0))
        if any(w in _WORDLIKE_DAYS for w in words) and len(words) < 3:
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
        day = WEEKDAYS[m[1]]
        return _schedule(_weekly([day]), f"every {calendar.day_name[day]}")

    def day_parts(m: re.Match) -> dict:
        day = WEEKDAYS[m[1]]
        return _schedule(_weekly([day]), f"weekly on {calendar.day_name[day]} {m[2]}")

    def every_unit(m: re.Match) -> dict:
        said = " ".join(m[1].split())
        if m[2]:
            interval = _count(m[2]) if m[2].isdigit() else COUNTS[m[2]]
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


def _read_numeric_days(f: _Finder) -> None:
    """ISO and numeric dates, read before times so that "12/12" is not "at 12"."""
    today, lean = f.today, f.lean

    def iso(m: re.Match) -> dict | None:
        day = _safe(int(m[1]), int(m[2]), int(m[3]))
        if day is None:
            return {}
        moment = _clock(int(m[4]), int(m[5]), "a") if m[4] else None
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

    def __init__(self, today: date, lean: str):
        self.today, self.lean = today, lean

    def day_month(self, m: re.Match) -> dict | None:
        day = _day_month(_ordinal(m[2], m[3]), MONTHS[m[4]], m[5], self.today, self.lean)
        return {} if day is None else {"day": day}

    def month_day(self, m: re.Match) -> dict | None:
        if m[1] in _WORDLIKE_MONTHS and not (m[2] or m[4]):
            return None
        if m[1] in ("may", "march") and m[2] and len(m[2]) == 1 and not m[4]:
            # "we may 2 of them" is not a date; "may 2nd" or "may 2 2026" is.
            if not re.match(r"\d(st|nd|rd|th)", m.group(0).split()[-1]):
                return None
        day = _day_month(_ordinal(m[2], m[3]), MONTHS[m[1]], m[4], self.today, self.lean)
        return None if day is None else {"day": day}

    def weekday_day(self, m: re.Match) -> dict | None:
        wanted, number = WEEKDAYS[m[1]], int(m[2])
        # The first month from this one whose day ``number`` falls on that weekday; the day of
        # the month wins when none does within a year (the weekday was a slip).
        step = -1 if self.lean == "past" else 1
        for months in range(0, 12 * step, step):
            first = self.today.replace(day=1) + relativedelta(months=months)
            day = _safe(first.year, first.month, number)
            if day is None or (day < self.today if step > 0 else day > self.today):
                continue
            if day.weekday() == wanted:
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
        count, unit = _count(m[1]), m[2]
        step = {"day": relativedelta(days=count), "week": relativedelta(weeks=count)}.get(
            unit, relativedelta(months=count)
        )
        return {"day": self.today + step, "lead": "by"}

    def ago(self, m: re.Match) -> dict:
        count, unit = _count(m[1]), m[2]
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

    def weekday_alone(self, m: re.Match) -> dict | None:
        modifier, word = m[1] or "", m[2]
        if word in _WORDLIKE_DAYS and not modifier:
            return None
        day = _weekday_from(word, modifier, self.today, self.lean)
        return {"day": day, "lead": modifier if re.fullmatch(_LEAD, modifier) else ""}

    def day_only(self, m: re.Match) -> dict | None:
        day = _day_only(_ordinal(m[1], m[2]), self.today, self.lean)
        return None if day is None else {"day": day, "lead": _lead_of(m.group(0))}

    def month_alone(self, m: re.Match) -> dict | None:
        lead, word, year = m[1] or "", m[2], m[3]
        if not lead and not year and (word in _WORDLIKE_MONTHS or len(word) < 4):
            return None  # "may", "march" and "jan" alone are words (or a name)
        month = MONTHS[word]
        if year:
            first = date(int(year), month, 1)
        elif lead == "next" or (self.lean != "past" and lead != "last"):
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


def _read_days(f: _Finder) -> None:
    days = _Days(f.today, f.lean)
    f.each(_DAY_MONTH, days.day_month, "date")
    f.each(_MONTH_DAY, days.month_day, "date")
    f.each(_WEEKDAY_DAY, days.weekday_day, "date")
    f.each(_AROUND_DAYS, days.around, "relative")
    f.each(_RELATIVE, days.relative, "relative")
    f.each(_IN_UNITS, days.in_units, "relative")
    f.each(_AGO, days.ago, "period")
    f.each(_UNIT_PERIOD, days.unit_period, "period")
    f.each(_WEEKDAY, days.weekday_alone, "weekday")
    f.each(_DAY_ONLY, days.day_only, "day")
    f.each(_MONTH_ALONE, days.month_alone, "month")
    f.each(_YEAR_ALONE, days.year_alone, "year")
    f.each(_RECENTLY, days.recently, "period")


def _lead_of(said: str) -> str:
    first = said.split(maxsplit=1)[0].lower() if said.strip() else ""
    return first if re.fullmatch(_LEAD, first) else ""


def _read_times(f: _Finder) -> list[Mention]:
    times = _Finder(f.text, f.today, f.lean)
    times.low = f.low
    evening = _EVENING.search(f.low) is not None

    def ampm(m: re.Match) -> dict | None:
        moment = _clock(int(m[2]), int(m[3] or 0), m[4])
        return None if moment is None else {"time": moment, "lead": m[1] or ""}

    def clock(m: re.Match) -> dict | None:
        hour, minute = int(m[2]), int(m[3])
        if 13 <= hour <= 23 and minute < 60:
            moment = time(hour, minute)
        else:
            moment = _clock(hour, minute, evening=evening)
        return None if moment is None else {"time": moment, "lead": m[1] or ""}

    def at(m: re.Match) -> dict | None:
        hour = int(m[2])
        if not 1 <= hour <= 12:
            return None
        return {"time": _clock(hour, 0, evening=evening), "lead": m[1]}

    def half(m: re.Match) -> dict | None:
        hour = int(m[2]) if m[2].isdigit() else _HOURS_IN_WORDS[m[2]]
        moment = _clock(hour, 30, evening=evening) if 1 <= hour <= 12 else None
        return None if moment is None else {"time": moment, "lead": m[1] or ""}

    def named(m: re.Match) -> dict:
        return {"time": time(0, 0) if m[2] == "midnight" else time(12, 0), "lead": m[1] or ""}

    times.each(_TIME_AMPM, ampm, "time")
    times.each(_TIME_CLOCK, clock, "time")
    times.each(_TIME_AT, at, "time")
    times.each(_TIME_HALF, half, "time")
    times.each(_TIME_NAMED, named, "time")
    f.low = times.low
    return times.found


_JOIN = re.compile(r"^\s*(?:,|at|@|from|around|about|-|on)?\s*(?:at\s*)?$")


def _attach_times(mentions: list[Mention], times: list[Mention], text: str) -> list[Mention]:
    """A time said next to a day or a schedule is its time: "tmrw at 10:30", "10:30 on the
    8th", "every other saturday at 10"."""
    days = sorted(mentions, key=lambda m: m.start)
    loose = []
    for moment in times:
        owner = None
        for i, mention in enumerate(days):
            if mention.time is not None or (mention.day is None and mention.recurs is None):
                continue
            between = text[mention.end : moment.start] if mention.end <= moment.start else ""
            before = text[moment.end : mention.start] if moment.end <= mention.start else ""
            if (mention.end <= moment.start and _JOIN.match(between)) or (
                moment.end <= mention.start and _JOIN.match(before)
            ):
                owner = i
                break
        if owner is None:
            loose.append(moment)
            continue
        mention = days[owner]
        start, end = min(mention.start, moment.start), max(mention.end, moment.end)
        days[owner] = replace(mention, text=text[start:end], start=start, end=end, time=moment.time)
    return days + loose


def find(text: str, *, today: date, lean: str = "future") -> list[Mention]:
    """Every date, time and schedule ``text`` names, in the order they are said, read against
    ``today`` (the day it was said). ``lean="past"``: what is said happened (or is asked
    about) before today, so "the 3rd", "monday" and "3 march" are read backwards."""
    finder = _Finder(text or "", today, lean)
    try:
        _read_schedules(finder)
        _read_numeric_days(finder)
        times = _read_times(finder)
        _read_days(finder)
    except (ValueError, OverflowError):  # 31 February, year 10000: not a date, nothing read
        return []
    return sorted(_attach_times(finder.found, times, finder.text), key=lambda m: m.start)


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
