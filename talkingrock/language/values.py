"""The values a sentence states, by kind: times, dates, weekdays, months, years, amounts, other
numbers, and whether it is negated. Read with the one date parser and the one amount parser
(``dates``, ``amounts``), so that every layer agrees on what "3pm", "15:00", "6k" and "the
8th" are.

Used to tell a change from a repetition ("3:30 now, not 3pm" against "pickup is at 3pm": a time
against a time), to weigh two observations before merging them ("5pm" against "6pm" is a
conflict, "5pm" against "17:00" is not), and to check that a model's text states no value its
sources do not (an invented figure). A value this misses only makes those rules less cautious
for that sentence, never wrong about the others.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date

from talkingrock.language import amounts, dates
from talkingrock.language.mentions import WD

# Values do not depend on the day a sentence was said: a day-of-month or weekday is kept as
# said, and a fixed reference day only decides nothing that is stored.
_REFERENCE = date(2000, 1, 3)
_NUMBER = re.compile(r"(?<![\w.,])\d+(?:,\d{3})*(?:\.\d+)?(?![\w])")
_NUMBER_WORDS = {
    word: value
    for value, word in enumerate(
        "zero _ two three four five six seven eight nine ten eleven twelve".split()
    )
    if word != "_"  # "one" is a pronoun as often as a number ("the blue one")
} | {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "hundred": 100, "dozen": 12}
_WORD = re.compile(r"[a-z]+(?:'[a-z]+)?")
NEGATIONS = frozenset(
    "not no never nobody nothing none cannot without stopped quit anymore".split()
)
KINDS = ("time", "date", "weekday", "month", "year", "amount", "number")


@dataclass
class Values:
    """What a sentence states, by kind; each kind a set of normalised strings."""

    by_kind: dict[str, set[str]] = field(default_factory=dict)
    negated: bool = False

    def add(self, kind: str, value: str) -> None:
        self.by_kind.setdefault(kind, set()).add(value)

    def has(self, kind: str) -> bool:
        return bool(self.by_kind.get(kind))

    def all(self) -> set[tuple[str, str]]:
        return {(kind, value) for kind, found in self.by_kind.items() for value in found}


def _number(value) -> str:
    text = format(value.normalize(), "f") if hasattr(value, "normalize") else str(value)
    return text.removesuffix(".0")


def values_of(sentence: str) -> Values:
    found = Values()
    text = sentence or ""
    spans: list[tuple[int, int]] = []
    for mention in dates.find(text, today=_REFERENCE):
        spans.append((mention.start, mention.end))
        if mention.time is not None:
            found.add("time", mention.time.strftime("%H:%M"))
        if mention.said_as == "date" and mention.day is not None:
            found.add("date", mention.day.strftime("%m-%d"))
            if re.search(r"\b(?:19|20)\d{2}\b", mention.text):
                found.add("year", str(mention.day.year))
        elif mention.said_as == "weekday" and mention.day is not None:
            found.add("weekday", f"{mention.day:%A}".lower())
        elif mention.said_as == "day" and mention.day is not None:
            found.add("date", f"--{mention.day.day:02d}")
        elif mention.said_as == "month" and mention.period is not None:
            found.add("month", str(mention.period[0].month))
        elif mention.said_as == "year" and mention.period is not None:
            found.add("year", str(mention.period[0].year))
        elif mention.recurs is not None:
            for day in re.findall(r"BYDAY=([A-Z0-9,+-]+)", mention.recurs.rule):
                for code in day.split(","):
                    found.add("weekday", code[-2:].lower())
    for amount in amounts.find(text, skip=spans):
        spans.append((amount.start, amount.end))
        kind = "amount" if amount.is_money else "number"
        found.add(kind, _number(amount.value) + (f" {amount.unit}" if amount.unit else ""))
    lowered = text.casefold().replace("’", "'")
    for m in _NUMBER.finditer(lowered):
        if any(s < m.end() and m.start() < e for s, e in spans):
            continue
        number = m.group(0).replace(",", "")
        if len(number) == 4 and number[:2] in ("19", "20"):
            found.add("year", number)
        else:
            found.add("number", number.removesuffix(".0"))
    for word in _WORD.findall(lowered):
        if word in _NUMBER_WORDS:
            found.add("number", str(_NUMBER_WORDS[word]))
        elif word in NEGATIONS or word.endswith("n't"):
            found.negated = True
    _weekdays_as_names(found)
    return found


_CODES = {"mo": "monday", "tu": "tuesday", "we": "wednesday", "th": "thursday", "fr": "friday",
          "sa": "saturday", "su": "sunday"}  # fmt: skip


def _weekdays_as_names(found: Values) -> None:
    if "weekday" in found.by_kind:
        found.by_kind["weekday"] = {_CODES.get(day, day) for day in found.by_kind["weekday"]}


def conflicts(first: str, second: str) -> list[str]:
    """Why two sentences cannot both be true of one thing, in words: for each kind of value that
    both state, the values must be the same; and both or neither must be negated. A kind only
    one of them states is extra detail, not a conflict."""
    a, b = values_of(first), values_of(second)
    found = [
        f"{kind} {', '.join(sorted(a.by_kind[kind]))} against {', '.join(sorted(b.by_kind[kind]))}"
        for kind in sorted(a.by_kind.keys() & b.by_kind.keys())
        if a.by_kind[kind] != b.by_kind[kind]
    ]
    if a.negated != b.negated:
        found.append("one is negated and the other is not")
    return found


def invented(text: str, sources: list[str]) -> set[tuple[str, str]]:
    """The values ``text`` states that none of ``sources`` does (an invented figure or date)."""
    known: set[tuple[str, str]] = set()
    for source in sources:
        known |= values_of(source).all()
    return values_of(text).all() - known


def shared_kinds(first: str, second: str) -> set[str]:
    """The kinds of value both sentences state (a time and a time: the same property)."""
    a, b = values_of(first), values_of(second)
    return {kind for kind in a.by_kind.keys() & b.by_kind.keys() if kind != "number"}


# --- what a change, and a question about the past, sound like ---------------------------------

# A later telling replaces an earlier one only when it says the plan changed, or carries a new
# value of a kind the earlier one has: a day for a day, a time for a time, an amount for an
# amount. Telling a topic again without either ("the support group was great again") replaces
# nothing.
_CHANGED = re.compile(
    r"\b(?:moved|changed?|switched|instead|no longer|anymore|cancell?ed|postponed|rescheduled|"
    r"pushed (?:back|to)|brought forward|going with|went with|settled on|not \w+ after all|"
    r"now,? not|now instead|(?:went|gone|goes|going|came|come|comes|coming) (?:up|down)|"
    r"(?:dropped|reduced|lowered|cut|raised|increased|decreased|bumped|upped|put)"
    r"(?: [\w'’]+){0,3}? (?:up |down )?to)\b"
    # a value said as the one that holds now: "£410 now", "monday 22nd now", "now at 5:15",
    # "now thurs 19 nov"
    r"|\d[\w:.,]*\s+now\b|\bnow (?:(?:at|on|is|its|it's|it’s|only|just)\s+)?"
    rf"(?:(?:{amounts.SIGN})?\d|(?:{WD})s?\b)",
    re.I,
)
# How a question asks for the earlier value ("what was the first quote?").
_PAST_PHRASES = (
    "originally", "at first", "first", "initially", "before", "previously", "used to", "old",
    "last time", "back in", "back when", "earlier", "the first time", "to begin with",
    "in the beginning",
)  # fmt: skip
_THE_PAST = re.compile(
    r"\b(?:" + "|".join(p.replace(" ", r"\s+") for p in _PAST_PHRASES) + r")\b", re.I
)
# Their words say which value is asked for (the earlier one), not what it is a value of.
PAST_WORDS = frozenset(word for phrase in _PAST_PHRASES for word in phrase.split())


# A value said as the one that no longer holds: "3:30 now, not 3pm", "hes not starting the
# 8th", "$2,100 instead of the 1850", "up from £112", "18 months not 22", "glenn cant do thurs
# anymore".
_STRIKE = (
    r"(?:\b(?:not|never|no longer|instead of|rather than|(?:up|down|moved|changed|pushed|"
    r"switched|brought forward|back) from)|n['’]t|\b(?:can|don|won|couldn)t|\bcannot)"
    r"\s+(?:[a-z]+ing\s+|(?:do|make|manage)\s+)?"
)
# The little words between those and the value: "not AT 3pm", "instead of THE 1850".
TO_THE_VALUE = r"(?:(?:the|a|an|at|on|in|for|by|until|till|from|to|about|around)\s+)*"
_STRUCK = re.compile(_STRIKE + TO_THE_VALUE + r"[£$€]?$", re.I)
_STRIKES = re.compile(_STRIKE, re.I)


# A correction of what was just said: "wait no, 9:45", "no wait, thursday", "sorry, I mean the
# 14th", "wait its fri 20th", "actually it's the 14th", "*tuesday".
CORRECTION = re.compile(
    r"(?:^|…\s*|[.!?]\s+)(?:wait,?\s+no\b|no,?\s+wait\b|sorry,?\s+i\s+mean\b|i\s+mean\b|"
    r"(?:wait|actually),?\s+(?:it['’]?s|it\s+is)\b|"
    r"correction\b|scratch\s+that\b|oops\b|\*)"
    # "I beg your pardon, I must correct what I just wrote", "let me correct that"
    r"|(?:^|[.!?,]\s*)(?:i\s+)?(?:must|need\s+to|have\s+to|should|let\s+me)\s+correct\b",
    re.I,
)


def corrected_from(text: str) -> int | None:
    """Where the last correction in ``text`` starts ("… wait no, 9:45"): a value said after it
    replaces one of the same kind said before it. None when there is none."""
    found = list(CORRECTION.finditer(text))
    return found[-1].end() if found else None


def struck_out(text: str, start: int) -> bool:
    """Whether the value said at ``start`` of ``text`` is said as the one that no longer
    holds, or never did ("not 3pm", "instead of the 1850", "up from £112")."""
    return bool(_STRUCK.search(text[max(0, start - 60) : start]))


_NEW_SUBJECT = r"(?:the|a|an|they|we|he|she|it|i|you|his|her|their|our|my)\b"
# The words that call a thing off ("is off" is read apart: "150 off may rent" calls nothing off).
_OFF = r"(?:cancell?ed|fell (?:through|thru)|double[- ]booked|closed|shut|full|fully booked|booked up)\b"
_IS_OFF = r"(?:is|was|s)\s+off\b"
# A value said and then called off: "liverpool place cancelled on them", "tues is off now",
# "the red lion fell through", "hessions closed for a refurb", "the fox double booked us",
# "Thursdays are full with Tasha".
_CALLED_OFF = re.compile(
    # by what the value names ("venue", "flights"), in the same sentence: not "sat 19 sept.
    # the quinta double booked them", where something else did
    rf"^[^\w.!?;…]{{0,3}}(?!{_NEW_SUBJECT})(?:[\w'’]+[^\w.!?;…]+){{0,2}}?"
    rf"(?:(?:(?:is|are|was|were|s|got|been|has been)\s+)?{_OFF}|{_IS_OFF})",
    re.I,
)


_CALLS_OFF = re.compile(rf"\b(?:{_OFF}|{_IS_OFF})", re.I)


def calls_something_off(text: str) -> bool:
    """Whether ``text`` says something was called off ("the barn venue cancelled on us")."""
    return bool(_CALLS_OFF.search(text or ""))


def called_off(text: str, end: int) -> bool:
    """Whether the value said just before ``end`` of ``text`` is said to be called off after
    it ("liverpool place cancelled on them so its manchester now": Liverpool)."""
    return bool(_CALLED_OFF.match(text[end : end + 40]))


def strikes(text: str) -> list[int]:
    """Where the words after each "not", "instead of", "up from" … start: what follows is the
    value that no longer holds, if it is a value ("3:30 now, not the 3pm one": at "the")."""
    return [m.end() for m in _STRIKES.finditer(text)]


def says_it_changed(text: str) -> bool:
    """Whether ``text`` says a plan or a value changed ("moved to", "now, not", "went up")."""
    return bool(_CHANGED.search(text or ""))


def tells_a_change(older: str, newer: str) -> bool:
    """Whether ``newer`` says a plan changed, or gives a new value of a kind ``older`` has."""
    if says_it_changed(newer):
        return True
    before, after = values_of(older), values_of(newer)
    return any(
        before.by_kind.get(kind) and after.by_kind.get(kind, set()) - before.by_kind[kind]
        for kind in ("time", "date", "weekday", "amount")
    )


def asks_about_the_past(query: str) -> bool:
    """ "What was the first quote?", "where did we originally book?": the earlier value. Read
    on the query as the lexicon normalises it ("b4" is "before")."""
    return bool(_THE_PAST.search(query or ""))
