"""The value of a kind a sentence states, read for a question that asks for it: a day, a
time, a schedule, an amount, a count, a place, a name, what someone would rather, or the number
a thing goes by, in plain words beside the member's own; of several, the one said nearest what
the question is about, and not one the sentence says no longer holds."""

from __future__ import annotations

import itertools
import re
from datetime import date, timedelta

from conversations.kinds_asked import NAMES
from conversations.names_given import named_as, thing_named
from conversations.nearness import MESSAGE_CLAUSE_END, clause_around, nearest_first
from conversations.terms import FILLER, content_terms, stem
from talkingrock.language import (
    amounts,
    dates,
    names,
    places,
    schedules,
    spoken,
    tense,
    values,
)
from talkingrock.language.mentions import MON, WD
from talkingrock.language.offline.lexicon import normalise

# How a sentence says what someone wants or would rather: "I'd rather run the raffle", "he can't
# stand DJs", "morning appointments are way better for dad", "no early flights".
_PREFERS = re.compile(
    r"\b(?:rather|prefer\w*|(?:don['’]?t|do not|doesn['’]?t|never) want|"
    r"(?:i|we|he|she|they|you)(?: really| just| only)? want(?:s|ed)?(?! to (?:ask|say|tell|know))|"
    r"not one of (?:those|them)|"
    r"can['’]?t stand|cannot stand|hate[sd]?|love[sd]?|(?:way |much |far )?better|worse|"
    r"avoid\w*|no way|never again|not a fan|fan of|keen|happy to|refus\w*|turn(?:s|ed)? down|"
    r"(?:not|never) (?:doing|having|going)|sick of|fed up)\b",
    re.I,
)


def prefers(sentence: str) -> str:
    """The words by which ``sentence`` says what someone wants or would rather ("" if none)."""
    found = _PREFERS.search(sentence)
    return found.group(0) if found else ""


def value_in(
    sentence: str,
    kind: str | None,
    *,
    said_on: date,
    happened: bool = False,
    about: frozenset[str] = frozenset(),
    plan: date | None = None,
) -> str:
    """The value of the kind asked for that ``sentence`` states, in plain words, read against
    the day it was said ("the 8th at 10:30" → "Tuesday 8 December 2026 at 10:30am"); "" when it
    states none. Of several, the one nearest the words the question is ``about`` ("her bill was
    1400 + the 850 consumer unit" → 850 for the consumer unit). ``happened``: the question asks
    when something happened, and a sentence that tells it happened without naming a day tells
    it on the day it was said. ``plan``: the day of a plan the sentence may change, in whose
    month a day said alone is read ("moved to the 20th", dates.find)."""
    if kind is None:
        return ""
    if kind == "name":
        # Someone the sentence names who is not the one the question asks about ("what did lee
        # say": not Lee).
        people = [
            (at, name)
            for at, name in names.people_in(sentence)
            if not {stem(part) for part in name.split()} & about
            and not _named_for_their_own(sentence, at, name)
        ]
        found_people = nearest_first(people, sentence, about)
        return found_people[0][1] if found_people else named_as(sentence, about)
    if kind == "called":
        return thing_named(sentence, about)  # "whats betos shop called": a thing's name
    if kind == "preference":
        return prefers(sentence)
    if kind in MEASURES:
        return measure_in(sentence, kind)
    if kind == "who":
        return described(sentence, about, said_on=said_on)
    if kind == "which":
        return which_of(sentence, about)
    if kind == "place":
        said = [(p.start, p) for p in places.places_in(sentence) if _names_a_place(p.words)]
        found_places = nearest_first(still_held(said, sentence), sentence, about)
        if not found_places and values.calls_something_off(sentence):
            # Every place said is called off, or none is read: the one it is now, however it is
            # typed ("lisbon flights got cancelled so were doing porto instead").
            return _place_now(sentence, said_on=said_on)
        return found_places[0][1].words if found_places else ""
    if kind in ("schedule", "time", "date"):
        return _time_value(
            sentence, kind, said_on=said_on, happened=happened, about=about, plan=plan
        )
    if kind == "count":
        return _count_value(sentence, said_on=said_on, about=about)
    if kind == "number":
        return _number_of(sentence, about)
    if kind == "rate":
        skip = [(m.start, m.end) for m in dates.find(sentence, today=said_on)]
        held = still_held([(a.start, a) for a in amounts.rates(sentence, skip=skip)], sentence)
        return nearest_first(held, sentence, about)[0][1].said() if held else ""
    return _sum_value(sentence, kind, said_on=said_on, about=about)


def _named_for_their_own(sentence: str, at: int, name: str) -> bool:
    """Whether the person named at ``at`` is named only as the one whose relation or helper
    the sentence is about ("Dennis's mother, our Mama, was admitted"): not the one asked for."""
    own = re.match(rf"{re.escape(name)}['’]s\s+([a-z]+)", sentence[at:], re.I)
    return own is not None and own.group(1).lower() in names.PERSON_WORDS


# The place a change of place lands on: "so its manchester now", "were doing porto instead".
_PLACE_NOW = re.compile(
    r"\b(?:it['’]?s|its|doing|going to|off to|back to|switched to|moved to)\s+(?:the\s+)?"
    r"(?P<place>[a-z][\w'’-]*(?:\s+[a-z][\w'’-]*)?)\s+(?:now|instead)\b",
    re.I,
)


def _place_now(sentence: str, *, said_on: date) -> str:
    """The place a sentence says it is now, after calling another off ("its the old mill
    now"); "" when it says none, or what it says is a day or a time ("its thursday now")."""
    for match in _PLACE_NOW.finditer(sentence):
        words = match.group("place")
        if content_terms(words) and not dates.find(words, today=said_on):
            return words
    return ""


def _names_a_place(words: str) -> bool:
    """Whether a place read holds a word of its own: not only figures and shorthand for a
    phrase ("pots at 1250 btw" names no place)."""
    return any(word.isalpha() and normalise(word).lower() == word.lower() for word in words.split())


# A measure of a thing, with its unit as said: an age ("4yo", "6 months old"), a weight ("28kg",
# "11 stone"), a size ("4m x 5m", "20 sq m", "6.6kw"). The money and counts readers leave these
# alone: "4m" there is four million.
_FIGURE = r"\d+(?:\.\d+)?"
_UNITS_OF = {
    "age": r"y/?o|years?\s+old|yrs?\s+old|months?\s+old|weeks?\s+old",
    "weight": r"kgs?|kilos?|lbs?|stone|st|grams?|g",
    "size": r"sq\.?\s?m|square\s+met(?:re|er)s?|m2|cm|mm|m|metres?|meters?|ft|feet|foot|"
    r"inch(?:es)?|kw",
}
MEASURES = frozenset(_UNITS_OF)
_MEASURE = {
    kind: re.compile(
        # "4m x 5m", "4 by 5 metres", "28kg"
        rf"(?<![\w.£$€])(?:{_FIGURE}\s?(?:{units})?\s?(?:x|by)\s?{_FIGURE}\s?(?:{units})|"
        rf"{_FIGURE}\s?(?:{units}))(?![\w/])",
        re.I,
    )
    for kind, units in _UNITS_OF.items()
}


def measure_in(sentence: str, kind: str) -> str:
    """The first age, weight or size (``kind``) ``sentence`` gives, as said ("4m x 5m"); ""
    when it gives none."""
    found = _MEASURE[kind].search(sentence)
    return " ".join(found.group().split()) if found else ""


# Who someone is, said beside their name: "her son Colm", "met the foster lady tonite, teagan",
# "nisha's my sister", "Craig from SunVolt", "deirdre whos doing the drawings".
_WHOSE = ("my", "our", "her", "his", "their", "the", "your")
_OWNER = rf"(?:{'|'.join(_WHOSE)})"
_OWNERS = frozenset(_WHOSE) | {"a", "an", "this", "that", "its"}  # before "the right knee"
# Before a name, the words end in a word for a person ("the foster lady", "our neighbour"): not
# "the solar" in "yeah the solar Craig rang".
_PERSON = "|".join(sorted(names.PERSON_WORDS, key=len, reverse=True))
# ("my manager there will be Priya": one word and a "will be" may come between)
_DESCRIBED_BEFORE = re.compile(
    rf"\b({_OWNER}\s+(?:[a-z][\w'’-]*\s+){{0,2}}?(?:{_PERSON}))(?:\s+[a-z][\w'’-]*)?"
    r"(?:\s+(?:is|was|will\s+be))?\s*,?\s*$",
    re.I,
)
_DESCRIBED_AFTER = (
    # "Colm, her son", "nisha's my sister": after a comma or "is", to the word for a person, or
    # two words on; not "send Farah his last school report"
    re.compile(
        rf"^\s*(?:,\s*|\s(?:is|was)\s+)((?:{_OWNER}|a|an)\s+(?:[a-z][\w'’-]*\s+){{0,2}}?"
        rf"(?:{_PERSON}))\b",
        re.I,
    ),
    re.compile(
        rf"^\s*(?:,\s*|\s(?:is|was)\s+)((?:{_OWNER}|a|an)\s+[a-z][\w'’-]*(?:\s+[a-z][\w'’-]*)?)",
        re.I,
    ),
    # from or at a place, after a surname perhaps: "Pawdrig Walsh from the national school"
    re.compile(
        r"^(?:\s+[a-z][\w'’-]*)?\s+((?:from|at)\s+(?:the\s+[a-z][\w'’-]*(?:\s+[a-z][\w'’-]*)?|"
        r"[a-z][\w'’-]*))",
        re.I,
    ),
    re.compile(
        r"^\s*,?\s*who(?:'s|’s|s|\s+is|\s+was)?\s+([a-z][\w'’-]*(?:\s+[a-z][\w'’-]*){0,2})", re.I
    ),
)
_WORD_AT = re.compile(r"[A-Za-z][\w'’-]*")


def described(sentence: str, about: frozenset[str], *, said_on: date) -> str:
    """Who the one the question names is, in the sentence's words: "her son" for "who's colm"
    in "her son Colm rang me"; "" when it says nothing of who they are."""
    for word in _WORD_AT.finditer(sentence):
        if stem(re.sub(r"['’]s$", "", word.group().lower())) not in about:
            continue
        if found := _DESCRIBED_BEFORE.search(sentence[max(0, word.start() - 40) : word.start()]):
            return found.group(1)
        rest = sentence[word.end() : word.end() + 60]
        if word.group().lower().endswith(("'s", "’s")):
            rest = " is " + rest  # "nisha's my sister"
        for pattern in _DESCRIBED_AFTER:
            found = pattern.search(rest)
            # not a day said after the name ("farah from tomorrow", "sal at 5 on mondays")
            if found and not dates.find(found.group(1), today=said_on):
                return found.group(1)
    return ""


def which_of(sentence: str, about: frozenset[str]) -> str:
    """Which one of the thing asked about the sentence says: the word said right before it
    ("the right knee" → "right knee"), not a word that says whose it is ("dads knee")."""
    words = list(_WORD_AT.finditer(sentence))
    for at, (before, word) in enumerate(itertools.pairwise(words)):
        if stem(word.group().lower()) not in about:
            continue
        if sentence[before.end() : word.start()].strip():
            continue  # a comma or a figure between them
        opens = at == 0 or sentence[words[at - 1].end() : before.start()].strip()
        if not opens and words[at - 1].group().lower() not in _OWNERS:
            continue  # "test drove Fabia": the word before is no word of which one
        said = before.group().lower()
        plain = re.sub(r"['’]?s$", "", said)
        if (
            said in FILLER
            or said.endswith(("'s", "’s"))
            or plain in names.ROLES
            or stem(said) in about
        ):
            continue
        return f"{before.group()} {word.group()}"
    return ""


# A figure a thing goes by, said right after its name: "plot 27", "room no. 12", "gate #4",
# or dictated ("room twenty two").
_NUMBERED = re.compile(
    r"\b([a-z][\w'’-]*)\s+(?:no\.?\s*|number\s+|#\s*)?"
    rf"(\d{{1,6}}\b(?![.,:/]?\d)|{amounts.SPOKEN_NUMBER}\b)",
    re.I,
)


# A reference given as one: "the claim number is T I four zero…", "booking ref: KX4471".
_CODE_GIVEN = re.compile(
    r"\b([a-z][\w'’-]*)\s+(?:number|no\.?|ref(?:erence)?|code)(?:\s+(?:is|was)|['’]s)?[:\s]+", re.I
)


def _number_of(sentence: str, about: frozenset[str]) -> str:
    """The figure ``sentence`` gives right after a word the question is ``about`` ("its plot
    27, a half plot" → "plot 27"; "room twenty two" → "room 22"; "claim number is T I four
    zero nine one seven" → "claim TI40917"); "" when there is none."""
    for m in _CODE_GIVEN.finditer(sentence):
        if stem(m.group(1).lower()) in about and (code := amounts.code_at(sentence, m.end())):
            return f"{m.group(1)} {code}"
    for m in _NUMBERED.finditer(sentence):
        figure = m.group(2)
        if amounts.measure_follows(sentence, m.end(2)):
            continue  # "room twenty minutes ago": a span of time, not a room
        if not figure.isdigit():
            # said in words, from two ("one" is too often no figure: "room one of the three")
            value = amounts.spoken_value(figure)
            figure = "" if value is None or value < 2 else str(int(value))
        if figure and stem(m.group(1)) in about:
            return f"{m.group(1)} {figure}"
    return ""


def replaced_in(sentence: str, kind: str | None, *, said_on: date) -> str:
    """The value of the kind asked for that ``sentence`` says no longer holds: in plain words
    ("it's the 24th at 9:40 now, not the 10th": Friday 10 April 2026), or in the member's own
    when it is a bare figure that takes its measure from the value it gave way to ("maybe 18
    months total not 22": 22); "" when it says none."""
    if kind is None or kind in NAMES or kind == "preference":
        return ""
    for start in values.strikes(sentence):
        clause = MESSAGE_CLAUSE_END.split(sentence[start:], maxsplit=1)[0]
        if kind in ("count", "amount") and (spoken_number := _STRUCK_SPOKEN.match(clause)):
            number = amounts.spoken_value(spoken_number.group(1))
            if number is not None and number > 1:
                return f"{number:,}"  # "ten tables, not eight": 8
        if not _STRUCK_VALUE.match(clause):
            continue  # "not up to reg … 850": what is struck out is no value
        if kind == "date" and (beside := _struck_day(sentence, start, clause, said_on=said_on)):
            return beside
        if value := value_in(clause, kind, said_on=said_on):
            return value
        said = _SAID_FIGURE.match(clause)
        if said:
            return said.group(0)
    if kind in ("date", "time", "schedule"):
        # A day called off after it is said: "our akl-raro on the 8th got cancelled".
        for mention in dates.find(sentence, today=said_on):
            if values.called_off(sentence, mention.end):
                return value_in(mention.text, kind, said_on=said_on)
    return ""


def _struck_day(sentence: str, start: int, clause: str, *, said_on: date) -> str:
    """A day of the month struck out with no month ("not the 14th"), read in the month of the
    day that replaced it, the one said nearest it: "saturday the 21st now not the 14th", said on
    17 November, struck 14 November, not 14 December. "" when the clause names more than a day
    of the month, or no other day is said."""
    struck = dates.first_day(clause, today=said_on)
    if struck is None or struck.said_as != "day" or struck.day is None:
        return ""
    at = start + struck.start
    others = [
        m
        for m in dates.find(sentence, today=said_on)
        if m.day is not None and not m.recurs and not m.start <= at < m.end
    ]
    if not others:
        return ""
    # the nearest, and of two as near, the one said before it
    replaced_by = min(others, key=lambda m: (abs(m.start - at), m.start > at))
    day = dates.day_of_month_near(struck.day.day, replaced_by.day)
    return spoken.spoken(day, weekday=True) if day else ""


# What a value struck out starts with, after the words that lead to it: a figure, a day or a
# month ("not the 10th", "instead of £142", "not fri", "not may 5").
_STRUCK_VALUE = re.compile(
    rf"{values.TO_THE_VALUE}(?:(?:{amounts.SIGN})?\d|(?:{MON}|{WD})\b)", re.I
)
# A count or a sum said in words: "not eight", "instead of twelve hundred".
_STRUCK_SPOKEN = re.compile(rf"{values.TO_THE_VALUE}({amounts.SPOKEN_NUMBER})\b(?![-\w])", re.I)
# A figure said bare, or a day with its month: "22", "8th-15th", "may 5".
_SAID_FIGURE = re.compile(rf"(?:(?:{MON})\s+)?(?:{amounts.SIGN})?\d[\w:.,–-]*(?<![.,])", re.I)


# A day as a value gives it: "Monday 3 August 2026".
_FULL_DAY = re.compile(r"\b(\d{1,2}) [A-Z][a-z]+ \d{4}\b")


def day_of_month(value: str) -> int | None:
    """The day of the month a value gives ("Monday 3 August 2026": 3), or None."""
    found = _FULL_DAY.search(value)
    return int(found.group(1)) if found else None


def same_day(struck: str, value: str) -> bool:
    """Whether a day struck out is the day a value gives. It is told by its day of the month
    ("not the 3rd"), read against the day it was said on, so its month and year are the reader's
    guess, not the member's."""
    day = day_of_month(struck)
    return day is not None and day == day_of_month(value)


def _time_value(
    sentence: str,
    kind: str,
    *,
    said_on: date,
    happened: bool,
    about: frozenset[str],
    plan: date | None = None,
) -> str:
    """A schedule, a time of day or a day (the kind "date"), as ``value_in`` reads it."""
    # Each date is read the way the verb before it tells time: "it came through on Tuesday"
    # looks back, "I'm taking her on the 2nd" ahead.
    ahead = {m.start: m for m in dates.find(sentence, today=said_on, plan=plan)}
    back = {m.start: m for m in dates.find(sentence, today=said_on, lean="past", plan=plan)}
    found: list[tuple[int, dates.Mention]] = []
    lean = "future"
    for start, mention in ahead.items():
        if tense.lean_of(sentence, at=start) == "past":
            lean = "past"
            mention = back.get(start, mention)
        found.append((start, mention))
    if not found:
        lean = tense.lean_of(sentence)
    said_days = [m for _, m in found if m.day is not None and m.said_as in DAY_SAID_AS]
    found = nearest_first(_days_now(still_held(found, sentence), sentence), sentence, about)
    mentions = [m for _, m in found]
    if kind == "schedule":
        said = next((m for m in mentions if m.recurs), None)
        if said is None:
            return ""
        schedule = said.recurs
        at = f" {spoken.spoken_hours(said.time, said.until)}" if said.time else ""
        # "every 6 weeks, always tues first thing": the interval and the day said beside it.
        day = next((m.day for m in mentions if m.said_as == "weekday" and m.day), None)
        if "BYDAY" not in schedule.rule and day is not None:
            return f"{schedule.words}, on {day:%A}{at}"
        return schedule.words + at
    if kind == "time":
        return next((spoken.hours(m.time, m.until) for m in mentions if m.time), "")
    if happened:
        # What happened, happened once: "mondays and thursdays nine thirty" is no day of it; a
        # bare run of days told after ("denis guys tues n wed") is the days just gone.
        gone = next(
            (
                d
                for m in mentions
                if m.recurs and (d := schedules.days_gone(m.text, m.recurs, said_on))
            ),
            None,
        )
        if gone:
            return spoken.spoken_days(gone)
        mentions = [m for m in mentions if m.recurs is None]
    else:
        # Asked what is coming, a day still ahead when it was said comes before one gone: "the
        # hospital rang on Friday, so I'm having them done Thursday week, the 21st".
        mentions.sort(key=lambda m: m.day is not None and m.day < said_on)
    corrected = values.corrected_from(sentence)
    for mention in mentions:
        # One day said twice, its time beside only one of them: "Thursday week, the 21st, at
        # quarter past nine".
        timed = mention
        if mention.time is None and mention.recurs is None and mention.day is not None:
            told = [*ahead.values(), *back.values()]
            timed = next((m for m in told if m.time and m.day == mention.day), mention)
        at = f" {spoken.spoken_hours(timed.time, timed.until)}" if timed.time else ""
        if mention.day is None and mention.time and corrected and mention.start >= corrected:
            # "on the 2nd at 9:15 … wait no, 9:45": the time of the day said before
            day = next((m.day for m in said_days if m.start < corrected), None)
            if day is not None:
                return spoken.spoken(day, weekday=True) + at
        if mention.recurs is not None:
            return mention.recurs.words + at
        if mention.said_as == "date" and mention.period is not None:
            # "14-21 sept": the span, as said
            return spoken.spoken_span(mention.day, mention.period[1] - timedelta(days=1)) + at
        if mention.day is not None and mention.said_as in DAY_SAID_AS:
            return spoken.spoken(mention.day, weekday=True) + at
        if mention.said_as == "ago":
            return f"around {spoken.spoken(mention.day)}" + at  # "3 weeks ago": about then
    if happened and lean == "past":
        # Done in a month it names ("the roof was done back in april"), else on the day told.
        month = next((m for m in mentions if m.said_as == "month" and m.period), None)
        return (
            spoken.month_said(month.lead, month.period[0])
            if month
            else spoken.spoken(said_on, weekday=True)
        )
    return next((spoken.hours(m.time, m.until) for m in mentions if m.time), "")


def _sum_value(sentence: str, kind: str, *, said_on: date, about: frozenset[str]) -> str:
    """A length of time or a sum, as ``value_in`` reads it, outside the dates said."""
    skip = [(m.start, m.end) for m in dates.find(sentence, today=said_on)]
    found_amounts = still_held(
        [(a.start, a) for a in amounts.find(sentence, skip=skip, asked_for_a_sum=kind == "amount")],
        sentence,
    )
    found_amounts = [a for _, a in nearest_first(found_amounts, sentence, about)]
    if kind == "duration":
        units = ("minutes", "hours", "days", "weeks", "months", "years", "miles", "km")
        return next((a.said() for a in found_amounts if a.unit in units), "")
    if kind == "amount":
        money = [a for a in found_amounts if a.is_money or not a.unit]
        return money[0].said() if money else ""
    return ""


def counts_said(
    sentence: str, *, said_on: date, in_words: bool = False
) -> list[tuple[int, int, int]]:
    """The counts ``sentence`` says, as (start, end, how many), outside the dates, times and
    sums it says ("told Mel 68 on the 3rd": 68)."""
    skip = [(m.start, m.end) for m in dates.find(sentence, today=said_on)]
    skip += [(a.start, a.end) for a in amounts.find(sentence, skip=skip)]
    return amounts.counts(sentence, skip=skip, in_words=in_words)


def counted_of(sentence: str, end: int) -> str:
    """The stem of the word said right after a count that ends at ``end`` ("32 tables, …" →
    "tabl"); "" when none follows."""
    following = re.match(r"\s+([\w'’]+)", sentence[end:])
    return stem(following.group(1)) if following else ""


def _count_value(sentence: str, *, said_on: date, about: frozenset[str]) -> str:
    """How many, as ``value_in`` reads it: a count said in figures or words ("32 now",
    "sixteen panels"), outside the dates, times and sums said; the one said right before a word
    asked about ("sixteen panels, fourteen on the north side"), else the nearest such word."""
    spans = counts_said(sentence, said_on=said_on, in_words=True)
    held = {at for at, _ in still_held([(at, n) for at, _, n in spans], sentence)}
    for at, end, count in spans:
        if at in held and counted_of(sentence, end) in about:
            return str(count)
    found = nearest_first([(at, n) for at, _, n in spans if at in held], sentence, about)
    return str(found[0][1]) if found else ""


def still_held(found: list[tuple[int, object]], sentence: str) -> list[tuple[int, object]]:
    """The values of ``found`` (each with where it is said) that still hold: not said as no
    longer so ("not 3pm"), nor said before a correction that gives another ("at 9:15 … wait
    no, 9:45")."""
    gone = [
        values.struck_out(sentence, at)
        or ((end := _end(at, value)) is not None and values.called_off(sentence, end))
        for at, value in found
    ]
    struck = [value for (_, value), off in zip(found, gone, strict=True) if off]
    # "1900 … sorry 1950 not 1900": a value struck out is struck wherever it was said before.
    held = [
        (at, value)
        for (at, value), off in zip(found, gone, strict=True)
        if not off and not any(_alike(value, s) for s in struck)
    ]
    corrected = values.corrected_from(sentence)
    if corrected is not None and any(at >= corrected for at, _ in held):
        held = [(at, value) for at, value in held if at >= corrected]
    return held


def _end(at: int, value: object) -> int | None:
    """Where a value read ends in its sentence (None for a bare count, read without its span)."""
    if isinstance(value, places.Place):
        return at + len(value.words)
    return getattr(value, "end", None)


def _alike(one: object, other: object) -> bool:
    """Whether two values read (amounts, days and times, places, counts) give the same value."""
    if isinstance(one, amounts.Amount) and isinstance(other, amounts.Amount):
        return (one.value, one.per) == (other.value, other.per)
    if isinstance(one, dates.Mention) and isinstance(other, dates.Mention):
        said = (one.day, one.time, one.recurs)
        return any(said) and said == (other.day, other.time, other.recurs)
    if isinstance(one, places.Place) and isinstance(other, places.Place):
        return one.words.casefold() == other.words.casefold()
    return one == other


def _days_now(found: list[tuple[int, dates.Mention]], sentence: str) -> list:
    """Of the days ``sentence`` names where it tells a change, those said as the day now ("its
    aug 8 + 9 in truro … so were doing the 15th to 22nd now") or as the day it moved to
    ("Charmaine phoned on Thursday, the move is pushed to the 28th"), when it says one so; its
    times and schedules stay."""
    if not values.says_it_changed(sentence):
        return found
    days = {at for at, m in found if m.day is not None and m.recurs is None}
    now = {at for at in days if _said_now(sentence, at) or tense.moved_to(sentence, at)}
    return [(at, m) for at, m in found if at in now or at not in days] if now else found


def _said_now(sentence: str, at: int) -> bool:
    """Whether the clause of ``sentence`` that holds position ``at`` says "now"."""
    start, stop = clause_around(sentence, at)
    return re.search(r"\bnow\b", sentence[start:stop], re.I) is not None


DAY_SAID_AS = ("date", "day", "weekday", "relative")
