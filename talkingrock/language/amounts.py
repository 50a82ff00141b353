"""Amounts as people say them: money, durations, distances and plain counts.

``find(text)`` returns every amount a text states, where it is and what it is worth: "6k" is
6,000, "$38,000 all in" 38,000 dollars, "£240 a month" 240 pounds a month, "two grand" 2,000,
"1,100 more" 1,100, "about 40 min" 40 minutes, "3.5 miles". As with dates, the text is never
changed: the value goes beside the words.

A number that is part of a date or a time ("the 8th", "3:30", "2026") is not an amount: callers
that read both find the dates first (talkingrock.language.dates) and pass their spans as
``skip``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from text_to_num import text2num

CURRENCIES = {"£": "GBP", "$": "USD", "€": "EUR", "R": "ZAR"}
# A currency's sign before the figure: "£40", "$38,000", "€520", and the rand's capital R right
# against its figure ("R450", "R4,500"; not "r 2", nor "R&B").
SIGN = r"[£$€]|(?-i:R)(?=\d)"
_CURRENCY_WORDS = {
    "pounds": "£", "quid": "£", "pound": "£", "dollars": "$", "dollar": "$", "bucks": "$",
    "euros": "€", "euro": "€", "p": "£",
}  # fmt: skip
_MULTIPLIERS = {"k": 1000, "grand": 1000, "thousand": 1000, "m": 1_000_000, "mil": 1_000_000,
                "million": 1_000_000, "bn": 1_000_000_000, "hundred": 100}  # fmt: skip
_WORD_NUMBERS = {
    word: n
    for n, word in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
        "fifteen sixteen seventeen eighteen nineteen twenty".split()
    )
} | {"thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80,
     "ninety": 90, "a": 1, "a couple of": 2, "couple of": 2, "half an": Decimal("0.5"),
     "half a": Decimal("0.5")}  # fmt: skip
_UNITS = {
    "min": "minutes", "mins": "minutes", "minute": "minutes", "minutes": "minutes",
    "hr": "hours", "hrs": "hours", "hour": "hours", "hours": "hours", "h": "hours",
    "day": "days", "days": "days", "week": "weeks", "weeks": "weeks", "wk": "weeks",
    "wks": "weeks", "month": "months", "months": "months", "mth": "months", "mths": "months",
    "year": "years", "years": "years",
    "yr": "years", "yrs": "years", "mile": "miles", "miles": "miles", "km": "km",
    "kms": "km", "%": "percent", "percent": "percent", "per cent": "percent",
    "kg": "kg", "kilos": "kg", "lb": "lb", "lbs": "lb",
}  # fmt: skip
_PER = {"a month": "month", "per month": "month", "every month": "month", "pm": "month",
        "a week": "week", "per week": "week", "every week": "week", "pw": "week",
        "a year": "year", "per year": "year", "every year": "year", "pa": "year",
        "an hour": "hour", "per hour": "hour", "ph": "hour", "a day": "day",
        "per day": "day", "each": "each", "a head": "each"}  # fmt: skip
# "€40 a table", "£14 per person": a price each of the thing named after it. Words that follow an
# amount after "a" without naming what it is each of ("£50 a bit steep", "$900 a while back",
# "a couple of days ago") are not such a thing; nor a period, which ``_PER`` reads.
_NOT_EACH = frozenset(
    "bit lot lots while few couple little good great big fair fortune load bunch pretty very "
    "really quite total week month year day hour fortnight half third quarter minute "
    "moment second".split()
)


def _alternation(words) -> str:
    return "|".join(
        re.escape(w).replace(r"\ ", r"\s+") for w in sorted(words, key=len, reverse=True)
    )


# A number dictated in two or more words: "nine thousand four hundred", "two hundred and
# eighty", "twenty two", "sixty-one thousand". Its value is text2num's.
_SCALES = ("hundred", "thousand", "million")
# One number word ("five", "ninety", "thousand"; not "a").
NUMBER_WORD = "(?:{})".format(
    "|".join([w for w in _WORD_NUMBERS if w.isalpha() and w != "a"] + list(_SCALES))
)
# At most a dozen words follow the first (no number said aloud is longer), so a run of number
# words with no end in sight ("two two two …") is read in a time that grows with its length,
# not with its square.
# "a hundred and twenty", "a thousand" say their one as "a".
_SPOKEN = (
    rf"(?:an?\s+(?:{'|'.join(_SCALES)})\b(?:(?:\s+and\s+|\s+|-){NUMBER_WORD}\b){{0,12}}"
    rf"|{NUMBER_WORD}(?:(?:\s+and\s+|\s+|-){NUMBER_WORD}\b){{1,12}})"
)
# A number said in words, one word or more ("fifteen", "forty five"): its value is
# ``spoken_value``'s.
SPOKEN_NUMBER = rf"(?:{_SPOKEN}|{NUMBER_WORD})"


def spoken_value(words: str) -> Decimal | None:
    """The value of a number said in words ("nine thousand four hundred" → 9400, "fifteen" →
    15); None when the words make no number ("eight thousand nine fifty", "one two")."""
    said = words.lower().replace("-", " ").split()
    if said[:1] in (["a"], ["an"]):
        said[0] = "one"  # "a hundred and twenty"
    try:
        return Decimal(text2num(" ".join(said), "en"))
    except ValueError:
        return None


def paired_value(words: str) -> Decimal | None:
    """The value of a sum dictated in hundreds, as prices are said aloud: "fourteen twenty five"
    → 1425, "one eighty five" → 185, "twenty six forty" → 2640. None when the words are not two
    numbers, the first under a hundred and the second from ten to ninety-nine ("one two", "six
    thousand fifty")."""
    said = words.lower().replace("-", " ").split()
    if any(word in _SCALES or word == "and" for word in said):
        return None
    for cut in range(1, len(said)):
        first, second = spoken_value(" ".join(said[:cut])), spoken_value(" ".join(said[cut:]))
        if first is not None and second is not None and 1 <= first < 100 and 10 <= second < 100:
            return first * 100 + second
    return None


# A reference said one character at a time, as dictation writes it ("T I four zero nine one
# seven"), or typed whole ("TI40917", "ti-40917").
_DIGIT_WORDS = {w: str(n) for w, n in _WORD_NUMBERS.items() if w.isalpha() and w != "a" and n < 10}
_DIGIT_WORDS |= {"oh": "0", "nought": "0"}
_CHARACTER = rf"(?:[a-z]|\d|{'|'.join(_DIGIT_WORDS)})"
_CODE = re.compile(rf"{_CHARACTER}(?:[ -]+{_CHARACTER}){{2,}}\b|[a-z]*\d[a-z\d-]*", re.I)
CODE_FIGURES = 2  # a reference holds at least this many figures, and twice as many characters
CODE_MOST = 24  # and at most this many characters (a run of "one one one …" is no reference)


def code_at(text: str, at: int) -> str:
    """The reference said at ``at`` of ``text`` as one would type it ("T I four zero nine one
    seven" → "TI40917"); "" when none starts there."""
    found = _CODE.match(text, at)
    if found is None:
        return ""
    code = "".join(
        _DIGIT_WORDS.get(part.lower(), part.upper()) for part in re.split(r"[ -]+", found.group())
    )
    figures = sum(c.isdigit() for c in code)
    fits = 2 * CODE_FIGURES <= len(code) <= CODE_MOST
    return code if figures >= CODE_FIGURES and fits else ""


_NUMBER = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
_AMOUNT = re.compile(
    rf"(?<![\w.,:/-])({SIGN})?\s?({_NUMBER}|{_SPOKEN}|{_alternation(_WORD_NUMBERS)})"
    rf"(?:\s?({_alternation(_MULTIPLIERS)})\b)?"
    rf"(?:\s?({_alternation(_CURRENCY_WORDS)}|{_alternation(_UNITS)})(?![a-z]))?"
    # a rate said with what is in it between: "$888 nett per table"
    rf"(?:(?:\s+(?:nett?|gross))?(?:\s+({_alternation(_PER)})\b|\s+(?:a|an|per)\s+([a-z]{{3,}})"
    r"(?![\w'’-])))?",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Amount:
    text: str  # the words as said
    start: int
    end: int
    value: Decimal
    currency: str = ""  # "£", "$", "€", "R" or ""
    unit: str = ""  # "minutes", "miles", "percent"… or ""
    per: str = ""  # "month", "week", "year", "hour", "each" or ""
    each_of: str = ""  # what a price each is of, as said: "table" for "€40 a table"

    @property
    def is_money(self) -> bool:
        return bool(self.currency)

    def as_dict(self) -> dict[str, str]:
        found = {"text": self.text, "value": format(self.value.normalize(), "f")}
        for key in ("currency", "unit", "per", "each_of"):
            if value := getattr(self, key):
                found[key] = value
        return found

    def said(self) -> str:
        """The value in plain words: "$38,000", "40 minutes", "£240 a month", "£12.50"."""
        whole = self.value == self.value.to_integral_value()
        if whole:
            number = f"{self.value:,.0f}"
        elif self.currency:
            number = f"{self.value:,.2f}"  # £12.50
        else:
            number = f"{self.value:,.2f}".rstrip("0")  # 3.5 miles
        text = f"{self.currency}{number}" if self.currency else number
        if self.unit:
            text += "%" if self.unit == "percent" else f" {self.unit}"
        if self.each_of:
            text += f" {_article(self.each_of)} {self.each_of}"
        elif self.per:
            text += " each" if self.per == "each" else f" {_article(self.per)} {self.per}"
        return text


def _article(word: str) -> str:
    """ "an hour", "an item", "a month", "a unit"."""
    vowel_sound = word[:1] in "aeio" or word.startswith(("hour", "hono", "heir"))
    return "an" if vowel_sound else "a"


_SPANS_OF_TIME = frozenset({"minutes", "hours", "days", "weeks", "months", "years"})
_AGO = re.compile(r"\s*ago\b", re.IGNORECASE)
# "3 weeks back" is when; "20 mins there and 20 mins back" is how long: "back" says "ago" only
# after a span of days or more.
_BACK = re.compile(r"\s*back\b", re.IGNORECASE)
_LONG_SPANS = frozenset({"days", "weeks", "months", "years"})


def _said_ago(text: str, at: int, unit: str) -> bool:
    """Whether the span of time ending at ``at`` says when ("ten minutes ago"), not how long."""
    if unit not in _SPANS_OF_TIME:
        return False
    return bool(_AGO.match(text, at) or (unit in _LONG_SPANS and _BACK.match(text, at)))


# A half said in words: "two and a half hours", "£3 and a half grand a month", "an hour and a
# half".
_AND_A_HALF = re.compile(
    rf"(?<![\w.,-])(?P<symbol>{SIGN})?\s?(?P<number>{_NUMBER}|{SPOKEN_NUMBER})\s+and\s+a\s+half\s+"
    rf"(?:(?P<multiplier>{_alternation(_MULTIPLIERS)})\b\s*)?"
    rf"(?P<word>{_alternation(_UNITS)}|{_alternation(_CURRENCY_WORDS)})?"
    r"(?![\w'’-])"
    rf"|(?<![\w-])(?:an?|one)\s+(?P<unit_first>{_alternation(_UNITS)})\s+and\s+a\s+half\b",
    re.IGNORECASE,
)
_PER_AFTER = re.compile(rf"\s+({_alternation(_PER)})\b", re.IGNORECASE)


def _per_after(text: str, at: int) -> tuple[str, int]:
    """The period said right after ``at`` ("a month", "per week") and where it ends."""
    said = _PER_AFTER.match(text, at)
    if not said:
        return "", at
    return _PER[" ".join(said[1].lower().split())], said.end()


_MEASURE_AFTER = re.compile(
    rf"\s*(?:{_alternation(_MULTIPLIERS)}|{_alternation(_CURRENCY_WORDS)}|{_alternation(_UNITS)})"
    r"(?![\w'’-])",
    re.IGNORECASE,
)


def measure_follows(text: str, at: int) -> bool:
    """Whether a unit, a currency or a multiplier is said right after ``at``: the figure before
    it is a measure ("twenty minutes", "20 quid"), not a number a thing goes by."""
    return bool(_MEASURE_AFTER.match(text, at))


def _halves(text: str, skip, default_currency: str) -> list[Amount]:
    """The amounts ``text`` says with "and a half": a unit, a currency or a multiplier makes
    the measure ("two and a half" alone is none)."""
    found = []
    for m in _AND_A_HALF.finditer(text):
        symbol, multiplier, word = m["symbol"], m["multiplier"], m["word"]
        if any(s < m.end() and m.start() < e for s, e in skip):
            continue
        if m["unit_first"]:
            value, word = Decimal(1), m["unit_first"]
        else:
            value = _value(m["number"])
            if value is None or not (symbol or multiplier or word):
                continue
        value += Decimal("0.5")
        if multiplier:
            value *= _MULTIPLIERS[multiplier.lower()]
        word = " ".join((word or "").lower().split())
        currency = symbol or _CURRENCY_WORDS.get(word, "")
        unit = "" if currency or not word else _UNITS[word]
        if _said_ago(text, m.end(), unit):
            continue  # "two and a half hours ago" is when, not how long
        if multiplier and not currency and not unit:
            currency = default_currency  # "two and a half grand": money, as "6k" is
        end = m.start() + len(m[0].rstrip())
        per, through = _per_after(text, end) if currency or unit else ("", end)
        if per != "each" or currency:  # "an hour and a half each way" is no price each
            end = through
        else:
            per = ""
        found.append(Amount(text[m.start() : end], m.start(), end, value, currency, unit, per))
    return found


# A banknote named for a sum, as British speech has it: "a fiver per 10 mins late", "a tenner each".
_NOTES = {"fiver": Decimal(5), "tenner": Decimal(10)}
_NOTE = re.compile(rf"(?<![\w-])(?:an?\s+)?({_alternation(_NOTES)})(?![\w-])", re.IGNORECASE)


def _notes(text: str, skip) -> list[Amount]:
    """The banknotes ``text`` names for a sum, with the period after one ("a tenner a week")."""
    found = []
    for m in _NOTE.finditer(text):
        if not any(s < m.end() and m.start() < e for s, e in skip):
            per, end = _per_after(text, m.end())
            found.append(
                Amount(text[m.start() : end], m.start(), end, _NOTES[m[1].lower()], "£", per=per)
            )
    return found


def _value(number: str) -> Decimal | None:
    number = " ".join(number.lower().split())
    if number in _WORD_NUMBERS:
        return Decimal(_WORD_NUMBERS[number])
    if not number[:1].isdigit():
        return spoken_value(number)
    try:
        return Decimal(number.replace(",", ""))
    except InvalidOperation:
        return None


# Words that make a bare number of three or more digits money: "costs 850", "1,100 more".
_MONEY_CUE = re.compile(
    r"\b(cost|costs|costing|quote|quoted|price|priced|pay|paid|paying|budget|bill|billed|"
    r"charge|charged|charges|save|saves|saved|saving|owe|owes|owed|spent|spend|more|less|"
    r"cheaper|dearer|extra|deposit|fee|fees|rent|salary|offered|offer|estimate|invoice)\b",
    re.IGNORECASE,
)


_YEAR = re.compile(r"(?:19|20)\d\d")


def _money_by_context(text: str, start: int, end: int) -> bool:
    before = " ".join(text[max(0, start - 30) : start].split()[-3:])
    after = " ".join(text[end : end + 20].split()[:2])
    return bool(_MONEY_CUE.search(before) or _MONEY_CUE.search(after))


# Said right beside a two-digit number, these make it a sum ("wants 60 deposit", "paid 45 for
# it"); "more" and "less" do not ("20 more people").
_NEAR_MONEY = re.compile(
    r"\b(cost|costs|quoted|paid|pay|owe|owes|owed|charged|charges|deposit|fee|quid|bucks|"
    r"euro|euros|dollars|pounds)\b",
    re.IGNORECASE,
)


def _money_beside(text: str, start: int, end: int) -> bool:
    before = " ".join(text[max(0, start - 20) : start].split()[-1:])
    after = " ".join(text[end : end + 15].split()[:1])
    return bool(_NEAR_MONEY.fullmatch(before) or _NEAR_MONEY.fullmatch(after))


# A bare figure is a count of what is said right after it ("300 guests", "eleven hundred RPMs",
# "400 people"), or a label after "number" ("check number 2214"), not a sum asked for: a plural
# word follows it (not one of these words that only end in "s"), or it is numbered.
_COUNTED = re.compile(
    r"\s+(?:(?!(?:plus|less|thanks|yes|its|this|was|has|is|as|us|cos)\b)[a-z]+s|people|persons|children|men|women)\b",
    re.I,
)
_NUMBERED = re.compile(r"(?:\bnumber|\bno\.?|#)\s*$", re.I)


def _counted_or_numbered(text: str, start: int, end: int) -> bool:
    return bool(_COUNTED.match(text, end) or _NUMBERED.search(text, 0, start))


def find(
    text: str,
    *,
    skip: list[tuple[int, int]] = (),
    default_currency: str = "",
    asked_for_a_sum: bool = False,
) -> list[Amount]:
    """Every amount ``text`` states. A bare number counts only with a multiplier ("6k"), a
    currency, a unit or "a month" after it, or, from three digits up, beside a word of money
    ("costs 850", "1,100 more"); plain counts ("3 kids") are left out. Spans in ``skip``
    (dates and times already read) are not amounts. ``asked_for_a_sum``: the text is read to
    answer "how much", which is the word of money a bare number of three digits or more needs
    ("mareks quote came thru … 24,600. thats fitting, cabinets"); a year is still a year."""
    found = _halves(text or "", skip, default_currency)
    found += _notes(text or "", [*skip, *((a.start, a.end) for a in found)])
    skip = [*skip, *((a.start, a.end) for a in found)]
    for m in _AMOUNT.finditer(text or ""):
        start, end = m.span()
        symbol, number, multiplier, unit_word, per, each_of = m.groups()
        each_of = (each_of or "").lower()
        is_money_word = bool(unit_word) and " ".join(unit_word.lower().split()) in _CURRENCY_WORDS
        if each_of and (each_of in _NOT_EACH or not (symbol or is_money_word)):
            # Not a price each: "£50 a bit steep", or a count ("3 a side").
            each_of, end = "", max(m.end(group) for group in (2, 3, 4) if m.group(group))
        while end > start and text[end - 1].isspace():
            end -= 1
        if any(s < end and start < e for s, e in skip):
            continue
        is_word_number = not number[:1].isdigit()
        # "nine thousand four hundred" holds its multiplier, as "6k" and "six grand" do; so does
        # "a hundred", said with its multiplier in words.
        scaled = is_word_number and any(
            w in _SCALES for w in [*number.lower().split(), (multiplier or "").lower()]
        )
        value = _value(number)
        dictated = None
        if value is None and is_word_number and not multiplier:
            dictated = _dictated_sum(text, m, asked_for_a_sum=asked_for_a_sum)
            if dictated is not None:
                value, end = dictated
        bare = not (symbol or multiplier or scaled or unit_word or per or dictated)
        digits = len(number.replace(",", "").split(".")[0]) if number[:1].isdigit() else 0
        if bare and not (
            (
                digits >= 3
                and (
                    _money_by_context(text, start, end)
                    or (
                        asked_for_a_sum
                        and not _YEAR.fullmatch(number)
                        and not _counted_or_numbered(text, start, end)
                    )
                )
            )
            or (digits == 2 and _money_beside(text, start, end))
        ):
            continue  # a bare number: a count, a house number, a year
        if scaled and not (symbol or unit_word or per) and _counted_or_numbered(text, start, end):
            continue  # "eleven hundred RPMs" is how many
        if is_word_number and not (multiplier or scaled or unit_word or dictated):
            continue  # "£ one" is nothing anyone types; "one a month" is not an amount
        after = m.end(2)
        if is_word_number and after < len(text) and text[after].isalpha():
            continue  # a word, not a number and its unit run together: "am", "ah", "amin"
        if value is None:
            continue
        if multiplier:
            value *= _MULTIPLIERS[multiplier.lower()]
        currency, unit = symbol or "", ""
        if unit_word:
            word = " ".join(unit_word.lower().split())
            if word in _CURRENCY_WORDS:
                if word == "p" and not is_word_number:
                    value /= 100 if not symbol else 1
                currency = currency or _CURRENCY_WORDS[word]
            else:
                unit = _UNITS[word]
                if _said_ago(text, m.end(4), unit):
                    continue  # "ten minutes ago" is when, not how long
        if (multiplier or scaled or bare or dictated) and not currency and not unit:
            currency = default_currency  # "saves like 6k": money, in the household's currency
        per_word = " ".join(per.lower().split()) if per else ("each" if each_of else "")
        if per_word in ("each", "a head") and not currency:
            per_word = ""  # "45 mins each way"
            end = start + len(text[start:end].rsplit(maxsplit=1)[0])
        found.append(
            Amount(
                text[start:end],
                start,
                end,
                value,
                currency,
                unit,
                _PER[per_word] if per_word else "",
                each_of,
            )
        )
    return sorted(found, key=lambda a: a.start)


def _dictated_sum(text: str, m: re.Match, *, asked_for_a_sum: bool) -> tuple[Decimal, int] | None:
    """(value, where it ends) of a sum dictated in hundreds (``paired_value``) where money is
    said with it: a currency before or after it, a period after it ("fourteen twenty five a
    month"), a word of money beside it ("the estimate is eighteen fifty"), or a question of how
    much (from a thousand up). Not a year ("nineteen ninety five"), "fifty fifty", nor a count
    of what follows it ("twenty six inch"). A last word that makes no such sum ends it, when
    nothing is said after it: "cost one eighty five four the shipping" is 185, its "four"
    dictated for "for"."""
    start, end = m.span(2)
    value = paired_value(m[2])
    if value is None and not (m[3] or m[4] or m[5]):
        shorter = m[2].rsplit(maxsplit=1)[0]
        value, end = paired_value(shorter), start + len(shorter)
    if value is None:
        return None
    unit_word = " ".join((m[4] or "").lower().split())
    if unit_word and unit_word not in _CURRENCY_WORDS:
        return None  # a measure: "one twenty minutes" is no sum
    said_as_money = bool(m[1] or unit_word or m[5])
    hundreds, rest = divmod(value, 100)
    if not said_as_money and (
        1900 <= value < 2100 or hundreds == rest or _counted_or_numbered(text, start, end)
    ):
        return None  # a year, "fifty fifty" (half each), or how many of what follows
    # Read for "how much" alone, a pair from a thousand up is a sum; "one forty" may as well be
    # a reading ("his sugar is like one forty now"), a time or small change.
    if said_as_money or _money_by_context(text, start, end) or (asked_for_a_sum and value >= 1000):
        return value, (end if end < m.end(2) else m.end())
    return None


def money(text: str, **kwargs) -> list[Amount]:
    return [a for a in find(text, **kwargs) if a.is_money or (not a.unit and a.value >= 100)]


_COUNT = re.compile(r"(?<![\w£$€.,:/-])(\d{1,4})(?!\s*%)(?![\w.,:/-]*\w)")


# A count said in words, from two ("one" is too often no count: "one of them").
_COUNT_WORDS = re.compile(
    rf"(?<![\w-])(?:{_SPOKEN}|{_alternation(w for w in _WORD_NUMBERS if w.isalpha())})(?![\w-])",
    re.IGNORECASE,
)


# "four" and "two" dictated for "for" and "to": before a determiner or a pronoun they count
# nothing ("the food four the cookout", "went two the shops").
_SLIP = re.compile(r"(?:four|two)$", re.I)
_SLIP_NEXT = re.compile(
    r"\s+(?:the|a|an|my|your|his|her|our|their|this|that|him|me|us|them)\b", re.I
)


def counts(
    text: str, *, skip: list[tuple[int, int]] = (), in_words: bool = False
) -> list[tuple[int, int, int]]:
    """The plain counts ``text`` states, as (start, end, how many): "told Mel 68" → 68, "her 40
    planters" → 40; ``in_words``, also those said in words from two up ("sixteen panels").
    Spans in ``skip`` (dates, times and the amounts of ``find``) are not counts."""
    found = []
    for m in _COUNT.finditer(text or ""):
        if not any(s < m.end() and m.start() < e for s, e in skip):
            found.append((m.start(), m.end(), int(m[1])))
    if in_words:
        for m in _COUNT_WORDS.finditer(text or ""):
            if any(s < m.end() and m.start() < e for s, e in skip):
                continue
            if _SLIP.match(m.group(0)) and _SLIP_NEXT.match(text, m.end()):
                continue  # dictated "for"/"to": "run the food four the cookout"
            value = _value(m.group(0))
            if value is not None and value >= 2 and value == int(value):
                found.append((m.start(), m.end(), int(value)))
    return sorted(found)


# A rate said as a bare figure with its decimals, as a mortgage's is ("5yr is 4.19 now not
# 4.09"): never a time (no "am"/"pm" or colon), a price (no sign) or a measure (no unit).
_BARE_RATE = re.compile(r"(?<![\w.,:/£$€-])(\d{1,2}\.\d{1,3})(?![\w,:/%£$€]|\.\d)")


def rates(text: str, *, skip: list[tuple[int, int]] = ()) -> list[Amount]:
    """The rates ``text`` states, in the order said: a percentage ("4.79%", "ten per cent"),
    money by the hour, day, month or each ("£35 an hour"), and, for a question that asks for a
    rate, a bare figure with decimals ("4.79 now")."""
    said = find(text, skip=skip)
    found = [a for a in said if a.unit == "percent" or (a.is_money and a.per)]
    taken = [*skip, *((a.start, a.end) for a in said)]
    for m in _BARE_RATE.finditer(text or ""):
        start, end = m.span(1)
        if not any(s < end and start < e for s, e in taken):
            found.append(Amount(m[1], start, end, Decimal(m[1]), unit="percent"))
    return sorted(found, key=lambda a: a.start)
