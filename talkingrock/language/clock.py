"""Times of day as people say them ("3pm", "10:30", "at 9", "til 6", "half 3", "quarter past
9", "noon") or dictate them ("at six", "at eleven fifteen", "thursdays nine thirty"), spans of
hours from their first to their last ("two till four", "the party is four to nine"), and a time
said next to a day or a schedule taken as its time ("tmrw at 10:30", "every other saturday at
10").
Run by talkingrock/language/dates.py's ``find``; a time without am or pm is in the afternoon
from 1 to 7 and in the morning from 8 to 11, as household times are, and in the evening when
the text is about one ("dinner at 8")."""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import time

from talkingrock.language.amounts import SPOKEN_NUMBER, spoken_value
from talkingrock.language.mentions import MON, WD, Finder, Mention, alternation

_HOURS_IN_WORDS = {
    word: n
    for n, word in enumerate(
        "one two three four five six seven eight nine ten eleven twelve".split(), start=1
    )
}

_TIME_AMPM = re.compile(
    r"\b(?:(at|@|around|about|by|from|till|until|before|after)\s*)?(\d{1,2})(?:[:.](\d{2}))?"
    r"\s*(a\.?m\.?|p\.?m\.?)(?![a-z])"
)
# Not a pace: "at 11:30 pace", "8:45/mile", "5:10 per km" are minutes and seconds.
_TIME_CLOCK = re.compile(
    r"\b(?:(at|@|around|about|by|from|till|until)\s*)?(\d{1,2}):(\d{2})\b"
    r"(?!\s*(?:pace|(?:min(?:ute)?s?\s*)?(?:/|per\s)\s*(?:mile|mi|km|k)\b))"
)
# What a number after "at" or "by" counts when it is no hour: "by 5 September", "at 40 quid".
# Or any other thing counted in the plural ("we are now at ten tables"): a word of four letters
# or more ending in "s" that is not one of the few such words said after an hour ("at 7 tues",
# "at ten this morning", "at 8 downstairs"): the function words and the words said to whoever
# reads it ("dinner at 8 guys", "see you at 7 cheers"), and contractions typed without their
# apostrophe ("two till four thats the plan").
_SAID_AFTER_AN_HOUR = (
    r"this|thus|tues|weds|thurs|does|plus|less|unless|always|sometimes|mornings|afternoons|"
    r"evenings|nights|thanks|cheers|towards|afterwards|downstairs|upstairs|indoors|outdoors|"
    r"besides|guys|lads|folks|girls|boys|ladies|mates|peeps|everyones|thats|whats|lets|heres|"
    r"theres|wheres|hows|whos|shes|yours|ours|theirs|hers"
)
_NOT_AN_HOUR = (
    r"%|k\b|grand|quid|pounds|dollars|euros|mins?\b|minutes|hours?|hrs?\b|days?|weeks?|months?|"
    rf"years?|yrs?\b|people|kids|percent|miles?|km|st\b|nd\b|rd\b|th\b|(?:of\s+)?(?:{MON})\b|"
    rf"(?!(?:{_SAID_AFTER_AN_HOUR})\b)[a-z]{{3,}}s\b"
)
_LEADS = r"at|@|around|by|til|till|until"
_TIME_AT = re.compile(rf"\b({_LEADS})\s+(\d{{1,2}})\b(?![:.,/]?\d)(?!\s*(?:{_NOT_AN_HOUR}))")
# Dictated: "swimming is at six now", "at eleven fifteen", "two till four". Not "one" ("at one
# point"), nor a count ("at two of them", "by three or four days", "at six months").
_HOURS_AFTER_ONE = alternation(word for word, n in _HOURS_IN_WORDS.items() if n > 1)
_TIME_AT_WORDS = re.compile(
    rf"\b({_LEADS})\s+({_HOURS_AFTER_ONE})(?:\s+(o'?clock|{SPOKEN_NUMBER}))?\b"
    rf"(?!\s*(?:of\b|or\b|and\b|-|{_NOT_AN_HOUR}))"
)
# Dictated right after a day, with no "at": "mondays and thursdays nine thirty", "tues 14th ten
# fifteen". The minutes must be said, so "sat two of them" is no time. The day is a weekday's
# name, a day of the month ("the 14th"), or a schedule or date read already (blanked with NULs).
_TIME_AFTER_DAY_WORDS = re.compile(
    rf"\b({_HOURS_AFTER_ONE})\s+({SPOKEN_NUMBER})\b(?!\s*(?:{_NOT_AN_HOUR}))"
)
_DAY_JUST_BEFORE = re.compile(rf"(?:\b(?:{WD})s?|\b\d{{1,2}}(?:st|nd|rd|th)|\x00)\s*,?\s*$")
# Or a departure named by its time: "i get the nine forty one from queen street", "the seven
# thirty bus". Its minutes are said as tens ("the two one" is no time).
_THE_JUST_BEFORE = re.compile(r"\bthe\s+$")
# A span of hours starts at its first and ends at its last: "two till four", "from 9 to 5:30",
# "eight till half five", "the party is four to nine", "sat 9-2, I'm on 11-1" (a dash only where
# the text tells of a day or the span is led by "from"). Not a sum, a count or a measure ("£5 to
# 10", "2 to 3 weeks", "14-21 sept").
_HOUR = rf"\d{{1,2}}|{alternation(_HOURS_IN_WORDS)}"
_TIME_SPAN = re.compile(
    rf"(?<![£$€\d.,:/-])\b(?:(?P<lead>from)\s+)?(?P<first>{_HOUR})(?:[:.](?P<first_min>[0-5]\d))?"
    rf"(?:\s*(?P<first_ampm>[ap]\.?m\.?))?(?:\s+(?:to|till|til|until)\s+|\s*(?P<dash>-|–)\s*)"
    rf"(?P<half>half\s+(?:past\s+)?)?(?P<last>{_HOUR})(?:[:.](?P<last_min>[0-5]\d))?"
    rf"(?:\s*(?P<ampm>[ap]\.?m\.?))?(?![a-z])(?![:.,/]?\d)(?!\s*(?:{_NOT_AN_HOUR}))"
)
_TIME_HALF = re.compile(
    rf"\b(?:(at|around|by)\s+)?half\s+(?:past\s+)?({alternation(_HOURS_IN_WORDS)}|\d{{1,2}})\b"
)
# "quarter past nine", "at quarter to 3", "a quarter after four".
_TIME_QUARTER = re.compile(
    rf"\b(?:(at|around|by)\s+)?(?:a\s+)?quarter\s+(past|after|to|till|til)\s+"
    rf"({alternation(_HOURS_IN_WORDS)}|\d{{1,2}})\b(?![:.,/]?\d)"
)
# Minutes past or to the hour, as said aloud: "ten past six", "twenty five past nine", "sign on
# ten to two", "twenty to 8". A dictated count of minutes (five, ten, twenty, twenty-five)
# before "to" and an hour is the time before it, not a span of hours ("ten to two" is 1:50),
# unless led as a span is ("from ten to two").
_TIME_MINUTES = re.compile(
    rf"(?<!from )(?<!between )\b(?:(at|around|by|about)\s+)?(five|ten|twenty(?:[\s-]+five)?)"
    rf"\s+(past|after|to|till|til)\s+({alternation(_HOURS_IN_WORDS)}|\d{{1,2}})\b"
    rf"(?![:.,/]?\d)(?!\s*(?:[ap]\.?m\b|of\b|or\b|-|{_NOT_AN_HOUR}))"
)
_MINUTES_SAID = {"five": 5, "ten": 10, "twenty": 20}
_TIME_NAMED = re.compile(r"\b(?:(at|around|by)\s+)?(noon|midday|midnight)\b")
# A time typed with a dot ("4.15", "at 9.40"), where the text tells of a day: a lead before it,
# or a weekday, a month or a day's word anywhere in it ("training mon n wed after school 4.15",
# "thurs 13 aug 9.40"). Not a sum: no currency before it, no unit or "each" after it.
_TIME_DOTTED = re.compile(
    r"(?<![£$€\d.,])\b(?:(at|@|around|about|by|from|till|until)\s*)?(\d{1,2})\.([0-5]\d)\b"
    r"(?![.,]?\d)(?!\s*(?:%|k\b|m\b|[a-z]*\s*(?:quid|pounds?|dollars?|euros?|rand|bucks|each|"
    r"per\b|an?\s+(?:hour|hr|week|wk|month|lesson|session|head|night|day)|kg|kms?\b|mi\b|miles?|"
    r"litres?|liters?|l\b|hours?|hrs?\b|mins?\b|minutes?|percent)))"
)
_DAY_TOLD = re.compile(
    rf"\b(?:(?:{WD})s?|(?:{MON})|today|tomorrow|tmrw|tonight|morning|afternoon|evening|arvo)\b",
    re.I,
)


_EVENING = re.compile(r"\b(tonight|tonite|2nite|evening|night|nite|dinner|supper|drinks|pub)\b")


def clock_time(hour: int, minute: int, half: str = "", *, evening: bool = False) -> time | None:
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


def read_times(f: Finder) -> list[Mention]:
    times = Finder(f.text, f.today, f.lean)
    times.low = f.low
    evening = _EVENING.search(f.low) is not None
    days_told = _DAY_TOLD.search(f.text) is not None  # the text as typed: days read are masked

    def ampm(m: re.Match) -> dict | None:
        moment = clock_time(int(m[2]), int(m[3] or 0), m[4])
        return None if moment is None else {"time": moment, "lead": m[1] or ""}

    def clock(m: re.Match) -> dict | None:
        hour, minute = int(m[2]), int(m[3])
        if 13 <= hour <= 23 and minute < 60:
            moment = time(hour, minute)
        else:
            moment = clock_time(hour, minute, evening=evening)
        return None if moment is None else {"time": moment, "lead": m[1] or ""}

    def at(m: re.Match) -> dict | None:
        hour = int(m[2])
        if not 1 <= hour <= 12:
            return None
        return {"time": clock_time(hour, 0, evening=evening), "lead": m[1]}

    def span(m: re.Match) -> dict | None:
        if m["dash"] and not (m["lead"] or days_told):
            return None
        first, last = (
            int(h) if h.isdigit() else _HOURS_IN_WORDS[h] for h in (m["first"], m["last"])
        )
        if not (1 <= first <= 12 and 1 <= last <= 12):
            return None
        start = clock_time(first, int(m["first_min"] or 0), m["first_ampm"] or "", evening=evening)
        end = clock_time(last, 30 if m["half"] else int(m["last_min"] or 0), m["ampm"] or "")
        if start is None or end is None:
            return None
        if end <= start and end.hour < 12 and not m["ampm"]:  # "four to nine": 4pm till 9pm
            end = end.replace(hour=end.hour + 12)
        return {"time": start, "until": end if end > start else None, "lead": m["lead"] or ""}

    def at_words(m: re.Match) -> dict | None:
        minutes = 0 if not m[3] or m[3].endswith("clock") else spoken_value(m[3])
        if minutes is None or not 0 <= minutes < 60:
            return None  # "at six thousand" is no time
        moment = clock_time(_HOURS_IN_WORDS[m[2]], int(minutes), evening=evening)
        return None if moment is None else {"time": moment, "lead": m[1]}

    def after_day(m: re.Match) -> dict | None:
        before = m.string[: m.start()]
        departure = _THE_JUST_BEFORE.search(before) is not None
        if not (departure or _DAY_JUST_BEFORE.search(before)):
            return None
        minutes = spoken_value(m[2])
        if minutes is None or not (10 if departure else 1) <= minutes < 60:
            return None
        moment = clock_time(_HOURS_IN_WORDS[m[1]], int(minutes), evening=evening)
        return None if moment is None else {"time": moment, "lead": ""}

    def half(m: re.Match) -> dict | None:
        hour = int(m[2]) if m[2].isdigit() else _HOURS_IN_WORDS[m[2]]
        moment = clock_time(hour, 30, evening=evening) if 1 <= hour <= 12 else None
        return None if moment is None else {"time": moment, "lead": m[1] or ""}

    def quarter(m: re.Match) -> dict | None:
        hour = int(m[3]) if m[3].isdigit() else _HOURS_IN_WORDS[m[3]]
        if not 1 <= hour <= 12:
            return None
        minute = 15
        if m[2] not in ("past", "after"):  # a quarter to the hour
            hour, minute = (hour - 1) or 12, 45
        moment = clock_time(hour, minute, evening=evening)
        return None if moment is None else {"time": moment, "lead": m[1] or ""}

    def dotted(m: re.Match) -> dict | None:
        if not (m[1] or days_told):
            return None
        hour, minute = int(m[2]), int(m[3])
        if 13 <= hour <= 23:
            moment = time(hour, minute)
        elif 1 <= hour <= 12:
            moment = clock_time(hour, minute, evening=evening)
        else:
            return None
        return None if moment is None else {"time": moment, "lead": m[1] or ""}

    def minutes(m: re.Match) -> dict | None:
        hour = int(m[4]) if m[4].isdigit() else _HOURS_IN_WORDS[m[4]]
        if not 1 <= hour <= 12:
            return None
        minute = 25 if m[2].endswith("five") and m[2] != "five" else _MINUTES_SAID[m[2]]
        if m[3] not in ("past", "after"):  # minutes to the hour
            hour, minute = (hour - 1) or 12, 60 - minute
        moment = clock_time(hour, minute, evening=evening)
        return None if moment is None else {"time": moment, "lead": m[1] or ""}

    def named(m: re.Match) -> dict:
        return {"time": time(0, 0) if m[2] == "midnight" else time(12, 0), "lead": m[1] or ""}

    times.each(_TIME_MINUTES, minutes, "time")  # before spans: "ten to two" is 1:50
    times.each(_TIME_SPAN, span, "time")  # its end may be a clock time ("9 to 5pm")
    times.each(_TIME_AMPM, ampm, "time")
    times.each(_TIME_CLOCK, clock, "time")
    times.each(_TIME_DOTTED, dotted, "time")
    times.each(_TIME_AT, at, "time")
    times.each(_TIME_AT_WORDS, at_words, "time")
    times.each(_TIME_AFTER_DAY_WORDS, after_day, "time")
    times.each(_TIME_HALF, half, "time")
    times.each(_TIME_QUARTER, quarter, "time")
    times.each(_TIME_NAMED, named, "time")
    f.low = times.low
    return [_in_the_part_of_the_day(f.text, moment) for moment in times.found]


# The part of the day said after a time: "five past seven in the morning" is 7:05am, "finish
# round quarter to ten a night" 9:45pm, whatever the household's hours would make of it.
_PART_OF_DAY = re.compile(
    r"\s*,?\s*(?:(?P<am>in the morning|(?:this|tomorrow|that|the next) morning)|"
    r"(?P<pm>in the (?:afternoon|evening)|(?:this|tomorrow|that) (?:afternoon|evening)|"
    r"at night|a night|tonight))\b",
    re.I,
)


def _in_the_part_of_the_day(text: str, moment: Mention) -> Mention:
    """``moment`` in the morning or the evening its text says right after it (``_PART_OF_DAY``),
    the end of a span of hours with it."""
    said = _PART_OF_DAY.match(text, moment.end)
    if said is None or moment.time is None:
        return moment
    hour = moment.time.hour
    if said["am"] and 12 < hour:
        hour -= 12
    elif said["pm"] and hour < 12:
        hour += 12
    if hour == moment.time.hour:
        return moment
    until = moment.until
    if until is not None and said["pm"] and until.hour < 12:
        until = until.replace(hour=until.hour + 12)
    return replace(moment, time=moment.time.replace(hour=hour), until=until)


# What may stand between a day and its time: "tmrw at 10:30", "tues n thurs now 5.30", "mon n
# wed after school 4.15".
_JOIN = re.compile(
    r"^\s*(?:now\s*|(?:after|before)\s+(?:school|work)\s*)?(?:,|at|@|from|around|about|-|on)?"
    r"\s*(?:at\s*)?(?:the\s*)?$"  # "tue thu sat on the 12.30pm slot"
)


def attach_times(mentions: list[Mention], times: list[Mention], text: str) -> list[Mention]:
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
        days[owner] = replace(
            mention,
            text=text[start:end],
            start=start,
            end=end,
            time=moment.time,
            until=moment.until,
        )
    return days + loose
