"""The values a sentence states, by kind: times, dates, years, months, weekdays, numbers and
whether it is negated. The merge's offline rule weighs two observations' values against each
other ("5pm" against "6pm" is a conflict, "5pm" against "17:00" is not), and the model's merged
text and dreams are checked for values none of their sources state (an invented figure).

Deliberately small and English-only, like the rest of the offline engine: a value this misses
only makes the merge rule less cautious for that sentence, never wrong about the others."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_MONTH_NUMBERS = {
    "jan": 1,
    "feb": 2,
    "mar": 3,
    "apr": 4,
    "may": 5,
    "jun": 6,
    "jul": 7,
    "aug": 8,
    "sep": 9,
    "oct": 10,
    "nov": 11,
    "dec": 12,
}
_MONTH = (
    r"(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
_ORDINAL = r"(?:st|nd|rd|th)?"
_ISO_DATE = re.compile(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b")
_DAY_MONTH = re.compile(rf"\b(\d{{1,2}}){_ORDINAL}\s+(?:of\s+)?{_MONTH}\b\.?(?:,?\s+(\d{{4}})\b)?")
_MONTH_DAY = re.compile(rf"\b{_MONTH}\.?\s+(\d{{1,2}}){_ORDINAL}\b(?:,?\s+(\d{{4}})\b)?")
_CLOCK = re.compile(r"\b(\d{1,2})(?:[:.](\d{2}))?\s*([ap])\.?m\b\.?")
_TIME_24 = re.compile(r"\b([01]?\d|2[0-3]):([0-5]\d)\b")
_NAMED_TIME = {"noon": "12:00", "midday": "12:00", "midnight": "00:00"}
# A month on its own only by its full name, and never "may" (the verb) or "march" (the verb).
_MONTH_ALONE = re.compile(
    r"\b(january|february|april|june|july|august|september|october|november|december)\b"
)
_YEAR = re.compile(r"\b(19\d{2}|20\d{2})\b")
_WEEKDAY = re.compile(r"\b(mon|tues|wednes|thurs|fri|satur|sun)days?\b")
_NUMBER = re.compile(r"\d+(?:,\d{3})*(?:\.\d+)?")
# "one" is left out: it is a pronoun as often as a number ("the blue one").
_NUMBER_WORDS = {
    word: value
    for value, word in enumerate(
        "zero _ two three four five six seven eight nine ten eleven twelve".split()
    )
    if word != "_"
} | {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "hundred": 100, "dozen": 12}
_WORD = re.compile(r"[a-z]+(?:'[a-z]+)?")
_NEGATIONS = frozenset(
    "not no never nobody nothing none cannot without stopped quit anymore".split()
)


@dataclass
class Values:
    """What a sentence states, by kind; each kind a set of normalised strings."""

    by_kind: dict[str, set[str]] = field(default_factory=dict)
    negated: bool = False

    def add(self, kind: str, value: str) -> None:
        self.by_kind.setdefault(kind, set()).add(value)

    def all(self) -> set[tuple[str, str]]:
        return {(kind, value) for kind, found in self.by_kind.items() for value in found}


def _month(name: str) -> int:
    return _MONTH_NUMBERS[name[:3]]


def _clock(hour: int, minute: int, half: str = "") -> str:
    if half == "p" and hour < 12:
        hour += 12
    elif half == "a" and hour == 12:
        hour = 0
    return f"{hour:02d}:{minute:02d}"


def _number(text: str) -> str:
    value = float(text.replace(",", ""))
    return str(int(value)) if value.is_integer() else f"{value:g}"


def _consume(pattern: re.Pattern, text: str, on_match) -> str:
    """Call ``on_match`` for each match and blank it out, so that later patterns (plain
    numbers) do not count the same digits again."""

    def blank(match: re.Match) -> str:
        on_match(match)
        return " " * len(match.group(0))

    return pattern.sub(blank, text)


def values_of(sentence: str) -> Values:
    found = Values()
    text = sentence.casefold().replace("’", "'")

    def iso(m: re.Match) -> None:
        found.add("year", m.group(1))
        found.add("date", f"{int(m.group(2)):02d}-{int(m.group(3)):02d}")

    def day_month(m: re.Match) -> None:
        found.add("date", f"{_month(m.group(2)):02d}-{int(m.group(1)):02d}")
        if m.group(3):
            found.add("year", m.group(3))

    def month_day(m: re.Match) -> None:
        found.add("date", f"{_month(m.group(1)):02d}-{int(m.group(2)):02d}")
        if m.group(3):
            found.add("year", m.group(3))

    text = _consume(_ISO_DATE, text, iso)
    text = _consume(_DAY_MONTH, text, day_month)
    text = _consume(_MONTH_DAY, text, month_day)
    text = _consume(
        _CLOCK,
        text,
        lambda m: found.add("time", _clock(int(m.group(1)), int(m.group(2) or 0), m.group(3))),
    )
    text = _consume(
        _TIME_24, text, lambda m: found.add("time", _clock(int(m.group(1)), int(m.group(2))))
    )
    text = _consume(_MONTH_ALONE, text, lambda m: found.add("month", str(_month(m.group(1)))))
    text = _consume(_YEAR, text, lambda m: found.add("year", m.group(1)))
    text = _consume(_WEEKDAY, text, lambda m: found.add("weekday", m.group(1)))
    text = _consume(_NUMBER, text, lambda m: found.add("number", _number(m.group(0))))
    for word in _WORD.findall(text):
        if word in _NAMED_TIME:
            found.add("time", _NAMED_TIME[word])
        elif word in _NUMBER_WORDS:
            found.add("number", str(_NUMBER_WORDS[word]))
        elif word in _NEGATIONS or word.endswith("n't"):
            found.negated = True
    return found


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
