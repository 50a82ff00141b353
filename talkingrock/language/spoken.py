"""Dates and times said back in words ("Tuesday 8 December 2026", "3:30pm", "every other
Saturday"): how pages, answers and stored details show what talkingrock/language/dates.py read."""

from __future__ import annotations

import calendar
from datetime import date, time


def spoken(day: date, *, weekday: bool = False, year: bool = True) -> str:
    """ "Tuesday 8 December 2026", "8 December", "Tue 8 Dec" style words for a day."""
    text = f"{day.day} {calendar.month_name[day.month]}"
    if year:
        text += f" {day.year}"
    return f"{calendar.day_name[day.weekday()]} {text}" if weekday else text


def ordinal(number: int) -> str:
    """ "1st", "2nd", "3rd", "11th", "23rd"."""
    suffix = (
        "th" if 11 <= number % 100 <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(number % 10, "th")
    )
    return f"{number}{suffix}"


def spoken_month(day: date) -> str:
    """ "April 2026": the month ``day`` is in."""
    return f"{calendar.month_name[day.month]} {day.year}"


# How a month said alone is said back: "by April 2026", "end of April 2026"; "in", "next",
# "last" and "this" are in the year it resolves to.
_MONTH_LEADS = ("by", "since", "from", "until", "till", "before", "after", "early", "late", "mid")


def month_said(lead: str, day: date) -> str:
    """A month said alone ("back in april", "by end of march"), in plain words: the month
    ``day`` is in, after the words that led it when they say where in or around it."""
    lead = " ".join(lead.split())
    keep = lead in _MONTH_LEADS or lead.endswith(" of")
    return f"{lead} {spoken_month(day)}" if keep else spoken_month(day)


def spoken_span(first: date, last: date) -> str:
    """ "14 to 21 September 2026": days of one month, from ``first`` to ``last``."""
    return f"{first.day} to {spoken(last)}"


def spoken_days(days: list[date]) -> str:
    """ "Tuesday 14 and Wednesday 15 April 2026": days said together, a month and a year said
    once for the days next to each other that share them."""
    words = []
    for day, after in zip(days, [*days[1:], None], strict=True):
        if after is not None and (day.month, day.year) == (after.month, after.year):
            words.append(f"{calendar.day_name[day.weekday()]} {day.day}")
        else:
            words.append(spoken(day, weekday=True, year=after is None or after.year != day.year))
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} and {words[-1]}"


def spoken_time(moment: time) -> str:
    """ "3:30pm", "10am", "noon"."""
    if moment.hour == 12 and moment.minute == 0:
        return "noon"
    hour = moment.hour % 12 or 12
    minutes = f":{moment.minute:02d}" if moment.minute else ""
    return f"{hour}{minutes}{'am' if moment.hour < 12 else 'pm'}"


def hours(start: time, until: time | None = None) -> str:
    """ "3:30pm", or "4pm to 9pm" for a span of hours."""
    if until is None:
        return spoken_time(start)
    return f"{spoken_time(start)} to {spoken_time(until)}"


def spoken_hours(start: time, until: time | None = None) -> str:
    """ "at 3:30pm", or "from 4pm to 9pm": how a time of day is said after a day."""
    return f"at {spoken_time(start)}" if until is None else f"from {hours(start, until)}"


def said(found: dict[str, str]) -> str:
    """A stored mention (``Mention.as_dict``) in words: "Tue 8 Dec, 10:30am", "every other
    Saturday", "3:30pm"."""
    if found.get("words"):
        return found["words"]
    parts = []
    if found.get("date"):
        day = date.fromisoformat(found["date"])
        parts.append(f"{day:%a} {day.day} {day:%b} {day.year}")
    if found.get("time"):
        parts.append(spoken_time(time.fromisoformat(found["time"])))
    text = ", ".join(parts)
    lead = found.get("lead", "")
    return f"{lead} {text}" if lead in ("by", "before", "until", "from") and text else text
