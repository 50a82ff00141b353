"""Dates as people say them ("tmrw", "friday-ish", "next tues", "the 14th", "3rd march"), written
out against the day of the conversation: "Friday 20 March 2026".

A weekday on its own means the next one (today's counts when it is today); "last" turns it back.
A day of the month without a month is this month's, or next month's when it has passed. Nothing
that does not parse is touched.
"""

from __future__ import annotations

import calendar
import re
from datetime import date, timedelta

_DAYS = {name.lower(): n for n, name in enumerate(calendar.day_name)}
_DAYS.update({"mon": 0, "tue": 1, "tues": 1, "wed": 2, "weds": 2, "thu": 3, "thur": 3,
              "thurs": 3, "fri": 4, "sat": 5, "sun": 6})  # fmt: skip
_MONTHS = {name.lower(): n for n, name in enumerate(calendar.month_name) if name}
_MONTHS.update({name.lower(): n for n, name in enumerate(calendar.month_abbr) if name})
_MONTHS["sept"] = 9
_DAY_WORDS = "|".join(sorted(_DAYS, key=len, reverse=True))
_MONTH_WORDS = "|".join(sorted(_MONTHS, key=len, reverse=True))
_ORDINAL = r"(\d{1,2})(?:st|nd|rd|th)?"

_RELATIVE = re.compile(r"\b(today|tonight|tomorrow|yesterday)\b", re.I)
_WEEKDAY = re.compile(
    rf"\b(?:(next|this|last|on|by|from|till|until)\s+)?({_DAY_WORDS})\b(?:-ish)?", re.I
)
_DAY_MONTH = re.compile(
    rf"\b(?:(?:{_DAY_WORDS})\.?,?\s+)?(?:the\s+)?{_ORDINAL}(?:\s+of)?\s+({_MONTH_WORDS})\b\.?"
    rf"(?:\s+(\d{{4}}))?",
    re.I,
)
_MONTH_DAY = re.compile(rf"\b({_MONTH_WORDS})\.?\s+{_ORDINAL}\b(?:,?\s+(\d{{4}}))?", re.I)
# "thurs 28th", "sat the 30th": a weekday with a day of the month and no month.
_WEEKDAY_DAY = re.compile(
    rf"\b(?:(?:on|by|from|till|until)\s+)?({_DAY_WORDS})\.?,?\s+(?:the\s+)?(\d{{1,2}})(?:st|nd|rd|th)\b",
    re.I,
)
_DAY_ONLY = re.compile(r"\bthe\s+(\d{1,2})(?:st|nd|rd|th)\b", re.I)
_IN_UNITS = re.compile(r"\bin\s+(\d{1,2}|a|one|two|three|four)\s+(day|week)s?\b", re.I)
_NEXT_WEEK = re.compile(r"\bnext\s+(week|month)\b", re.I)
_SMALL = {"a": 1, "one": 1, "two": 2, "three": 3, "four": 4}
# Ordinals said in words, as dictation writes them: "the third of December", "by the fifteenth".
_UNITS = "first second third fourth fifth sixth seventh eighth ninth".split()
_TEENS = (
    "tenth eleventh twelfth thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth "
    "nineteenth"
).split()
_ORDINAL_WORDS = {word: n for n, word in enumerate(_UNITS, 1)}
_ORDINAL_WORDS.update({word: n for n, word in enumerate(_TEENS, 10)})
_ORDINAL_WORDS.update({"twentieth": 20, "thirtieth": 30, "thirty first": 31})
_ORDINAL_WORDS.update({f"twenty {word}": 20 + n for n, word in enumerate(_UNITS, 1)})
_SAID = "|".join(
    word.replace(" ", r"[\s-]+") for word in sorted(_ORDINAL_WORDS, key=len, reverse=True)
)
_SAID_ORDINAL = re.compile(
    rf"\b(the\s+)?({_SAID})(?=\s+of\s+(?:{_MONTH_WORDS})\b|\s*(?:$|[,.;:!?)])|"
    r"\s+(?:at|and|or|so|to|for|because|then|till|until|before|after)\b)",
    re.I,
)


def _said_ordinals(text: str) -> str:
    """ "the third of December" → "the 3rd of December"; "by the fifteenth" → "by the 15th". A
    word ordinal counts before "of <month>", or after "the" where a phrase ends ("the third
    time" and "first of all" stay)."""

    def digits(m: re.Match) -> str:
        before_month = re.match(r"\s+of\s", text[m.end() :]) is not None
        if not m[1] and not before_month:
            return m[0]
        n = _ORDINAL_WORDS[" ".join(m[2].lower().replace("-", " ").split())]
        suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
        return f"{m[1] or ''}{n}{suffix}"

    return _SAID_ORDINAL.sub(digits, text)


def spoken(day: date, *, weekday: bool = False) -> str:
    text = f"{day.day} {calendar.month_name[day.month]} {day.year}"
    return f"{calendar.day_name[day.weekday()]} {text}" if weekday else text


def _weekday(word: str, modifier: str, today: date) -> date:
    target = _DAYS[word.lower()]
    ahead = (target - today.weekday()) % 7
    if modifier.lower() == "last":
        return today - timedelta(days=(today.weekday() - target) % 7 or 7)
    if modifier.lower() == "next" and ahead == 0:
        ahead = 7
    return today + timedelta(days=ahead)


def _safe(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


def resolve(text: str, today: date) -> tuple[str, list[date]]:
    """``text`` with its date phrases written out, and the dates found (in order)."""
    found: list[tuple[int, date]] = []
    written: list[str] = []  # what each placeholder stands for, so no pattern reads it again

    def keep(match: re.Match, day: date | None, *, weekday: bool = False, lead: str = "") -> str:
        if day is None:
            return match.group(0)
        found.append((match.start(), day))
        written.append(f"{lead}{spoken(day, weekday=weekday)}")
        return f"\x01{chr(0xE000 + len(written) - 1)}\x02"

    def relative(m: re.Match) -> str:
        word = m[1].lower()
        shift = {"today": 0, "tonight": 0, "tomorrow": 1, "yesterday": -1}[word]
        lead = "on " if word != "tonight" else "on the evening of "
        return keep(m, today + timedelta(days=shift), lead=lead)

    def day_month(m: re.Match) -> str:
        year = int(m[3]) if m[3] else today.year
        day = _safe(year, _MONTHS[m[2].lower()], int(m[1]))
        if day and not m[3] and (today - day).days > 180:
            day = _safe(year + 1, day.month, day.day)
        return keep(m, day, weekday=m[0][:1].isalpha() and not m[0].lower().startswith("the"))

    def month_day(m: re.Match) -> str:
        year = int(m[3]) if m[3] else today.year
        return keep(m, _safe(year, _MONTHS[m[1].lower()], int(m[2])))

    def weekday(m: re.Match) -> str:
        modifier = (m[1] or "").lower()
        lead = f"{modifier} " if modifier in ("on", "by", "from", "till", "until") else ""
        return keep(m, _weekday(m[2], modifier, today), weekday=True, lead=lead)

    def day_only(m: re.Match, number: int | None = None) -> str:
        number = number if number is not None else int(m[1])
        day = _safe(today.year, today.month, number)
        if day and day < today:
            month = today.month % 12 + 1
            day = _safe(today.year + (month == 1), month, number)
        return keep(m, day)

    def weekday_day(m: re.Match) -> str:
        # The first month from this one in which that day falls on that weekday; the day of the
        # month wins when none does within a year (the weekday was a slip).
        wanted, number = _DAYS[m[1].lower()], int(m[2])
        candidates = []
        for ahead in range(12):
            month = (today.month - 1 + ahead) % 12 + 1
            day = _safe(today.year + (today.month - 1 + ahead) // 12, month, number)
            if day and day >= today:
                candidates.append(day)
        day = next((d for d in candidates if d.weekday() == wanted), None)
        if day is None:
            return day_only(m, number)
        lead = m[0][: m[0].lower().index(m[1].lower())]
        return keep(m, day, weekday=True, lead=lead.lower())

    def in_units(m: re.Match) -> str:
        count = int(m[1]) if m[1].isdigit() else _SMALL[m[1].lower()]
        days = count * (7 if m[2].lower() == "week" else 1)
        return keep(m, today + timedelta(days=days), lead="by ")

    text = _said_ordinals(text)
    text = _RELATIVE.sub(relative, text)
    text = _DAY_MONTH.sub(day_month, text)
    text = _MONTH_DAY.sub(month_day, text)
    text = _WEEKDAY_DAY.sub(weekday_day, text)
    text = _WEEKDAY.sub(weekday, text)
    text = _DAY_ONLY.sub(day_only, text)
    text = _IN_UNITS.sub(in_units, text)
    text = _NEXT_WEEK.sub(lambda m: f"the {m[1].lower()} after {spoken(today)}", text)
    text = re.sub("\x01(.)\x02", lambda m: written[ord(m[1]) - 0xE000], text)
    return text, [day for _, day in sorted(found, key=lambda pair: pair[0])]
