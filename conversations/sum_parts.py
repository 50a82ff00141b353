"""What sum a question asks for (conversations/sums.py works it out): a difference, a total, and
the parts it asks to add up or take off:
"entry + trainers", "the piano itself, the movers and the first tuning", "the dress n hair";
"once the rebate comes through", "minus the early bird discount", "after the deposit".

A part is the few words of a thing named in a list the question joins with "and", "+", "plus"
or "&" (its commas too), read from the words as typed: a parse of a question this short and
this loosely typed is no surer (spaCy reads "entry + trainers" as a verb's conjunct, and "dress
and hair" not at all). It is read only in a question that asks for a total or joins its things
with "+"; a part taken off, only in one that asks how much."""

from __future__ import annotations

import re
from dataclasses import dataclass

from django.utils import timezone

from conversations.kinds_asked import asks_for
from conversations.terms import FILLER, content_terms
from talkingrock.language import dates
from talkingrock.language.offline.lexicon import normalise

_TOKEN = re.compile(r"[+&,:;?!()]|[^\s+&,:;?!()]+")
JOINS = frozenset({"and", "+", "plus", "&"})
# What ends a list's chunk on its left: the list's own punctuation, or the start.
_BREAKS = frozenset({",", ":", ";", "?", "!", "(", ")"})
# The words a named thing follows: "the vet", "for cake", "of the paint".
_DETERMINERS = frozenset("the a an my our your his her their this that these those".split())
_LEADS = _DETERMINERS | frozenset("for of on with from to at".split())
# The words of asking for a sum, which end a part ("the hotel come to", "the armchair cost").
_SUM_WORDS = frozenset(
    """
    cost costs costing costed come comes came coming total totals altogether all pay paid pays
    paying spend spent spending price priced much many bring brought raise raised owe owed
    gonna going knocked knock taken take off through make makes made making earn earns earned
    earning between combined together
    """.split()
)
# Words that say which, not what: "the piano itself", "the hotel alone".
_NOT_THE_THING = frozenset("itself themselves alone only just".split())
MOST_WORDS = 3  # a part is a thing's few words: "the pe kit", "the early bird discount"

# Questions that ask for a sum worked out from what was said: a difference ("how much under
# budget", "how much did switching save", "how much do I still owe") or a total of so many at a
# price each ("how much will 40 planters at $22 each come to").
DIFFERENCE = re.compile(
    r"\bhow much (?:more|less|extra|over|under|cheaper|dearer|higher|lower)\b|"
    r"\b(?:under|over) (?:the )?(?:budget|quote|estimate)\b|\bsave[ds]?\b|\bsaving\b|"
    r"\bstill owe\b|\bleft to pay\b|\bdifference\b",
    re.I,
)
# A total: "in total", "come to", "all in", "all up", "all told", or what so many brought in
# ("how much did the tables bring in").
TOTAL = re.compile(
    r"\b(?:in total|altogether|all together|come to|total|all (?:in|up|told)|in all|combined|"
    r"between (?:them|the two|us)|"
    r"br(?:ing|ings|inging|ought) in)\b",
    re.I,
)
# A half share of a cost: "my half of the boat", "half of the bill" (not "half term", "half
# past", "half board").
HALF = re.compile(
    r"\b(?:my|our|your|his|her|their) half\b|\bhalf of (?:the|it|that|what|our)\b", re.I
)
# Things joined to be added: "entry + trainers", "tyres plus the service".
_JOINED = re.compile(r"\+|\bplus\b", re.I)
# A part taken off: "minus the …", "less the …" (not "how much less"), "after the …", "once
# the … (comes through / is taken off)".
_TAKEN_OFF = re.compile(r"\b(?:minus|(?<!much )less|after|once)\s+(?P<rest>.+)", re.I)


@dataclass(frozen=True)
class Part:
    words: str  # as typed, past its determiners: "first tuning"
    terms: frozenset[str]  # its content words' stems

    @property
    def head(self) -> str:
        """Its last word, the thing itself: "tuning" of "first tuning"."""
        return self.words.split()[-1]


def _tokens(question: str) -> list[str]:
    return _TOKEN.findall(normalise(question).lower())


def _without_dates(text: str) -> str:
    """``text`` with each period it names ("this year", "last month") read as a break: "so far
    this year, dues + camp" asks for the dues and the camp, not for a year."""
    said = dates.find(text, today=timezone.localdate())
    for mention in reversed([m for m in said if m.said_as == "period"]):
        text = f"{text[: mention.start]},{text[mention.end :]}"
    return text


def _is_part_word(token: str) -> bool:
    return (
        token not in _BREAKS
        and token not in JOINS
        and token not in _SUM_WORDS
        and token not in _NOT_THE_THING
        and token not in FILLER
    )


def _right(tokens: list[str], start: int) -> tuple[int, int]:
    """The span of the part that begins at ``start``, past its determiners."""
    while start < len(tokens) and tokens[start] in _DETERMINERS:
        start += 1
    end = start
    while end < len(tokens) and end - start < MOST_WORDS and _is_part_word(tokens[end]):
        end += 1
    return start, end


def _left(tokens: list[str], end: int) -> tuple[int, int] | None:
    """The span of the part that ends just before ``end``, when what comes before it starts a
    named thing (a determiner, "for", a comma or the start): not "so far" in "… so far, entry
    + trainers". A word that says which ("the piano itself") is passed over."""
    while end > 0 and tokens[end - 1] in _NOT_THE_THING:
        end -= 1
    start = end
    while start > 0 and end - start < MOST_WORDS and _is_part_word(tokens[start - 1]):
        start -= 1
    if start == end:
        return None
    if start > 0 and tokens[start - 1] not in _LEADS | _BREAKS | JOINS:
        return None
    return start, end


def _part(tokens: list[str], span: tuple[int, int]) -> Part | None:
    words = " ".join(tokens[span[0] : span[1]])
    terms = content_terms(words)
    return Part(words, terms) if terms else None


def parts_of(question: str) -> list[Part]:
    """The things a question asks to add up, each as its content words ("entry + trainers":
    {entry}, {trainer}); [] when it asks for no total or names fewer than two things."""
    text = normalise(question)
    if not (TOTAL.search(text) or _JOINED.search(text)):
        return []
    tokens = _tokens(_without_dates(text))
    spans: list[tuple[int, int]] = []
    for at, token in enumerate(tokens):
        if token not in JOINS:
            continue
        left = _left(tokens, at)
        right = _right(tokens, at + 1)
        if left is None or right[0] == right[1]:
            continue
        found = [left, right]
        # Further back along the list: "the piano itself, the movers and …".
        while True:
            start = found[0][0]
            while start > 0 and tokens[start - 1] in _DETERMINERS:
                start -= 1
            if start < 2 or tokens[start - 1] != ",":
                break
            earlier = _left(tokens, start - 1)
            if earlier is None:
                break
            found.insert(0, earlier)
        for span in found:
            if span not in spans:
                spans.append(span)
    parts = [part for span in sorted(spans) if (part := _part(tokens, span))]
    return parts if len(parts) >= 2 else []


# Where the words of a part taken off end: "once the rebate comes through | what's the solar
# actually cost us".
_PHRASE_END = re.compile(r"[,?!;:]|\b(?:what|whats|what's|how|when|where|who)\b", re.I)


def without_taken_off(question: str) -> str:
    """The question without the words of what it takes off: "so what's the solar actually
    cost us" of "so once the rebate comes through what's the solar actually cost us"."""
    text = normalise(question)
    if asks_for(question) != "amount":
        return text
    for match in reversed(list(_TAKEN_OFF.finditer(text))):
        rest = match.group("rest")
        end = _PHRASE_END.search(rest)
        cut = match.start("rest") + (end.start() if end else len(rest))
        text = text[: match.start()] + text[cut:]
    return text


def taken_off(question: str) -> list[Part]:
    """The things a question asks to take off what something costs ("once the rebate comes
    through": {rebate}), each as its content words; [] when it asks for none."""
    text = normalise(question)
    if asks_for(question) != "amount":
        return []
    parts = []
    for match in _TAKEN_OFF.finditer(text):
        tokens = _TOKEN.findall(match.group("rest").lower())
        start = 0
        while start < len(tokens) and tokens[start] in _DETERMINERS | {"what", "whats"}:
            start += 1
        span = _right(tokens, start)
        if part := _part(tokens, span):
            parts.append(part)
    return parts


def asks_for_a_sum(question: str) -> bool:
    """Whether ``question`` asks for a difference or a total worked out from what was said."""
    text = normalise(question)
    return bool(
        TOTAL.search(text)
        or DIFFERENCE.search(text)
        or HALF.search(text)
        or parts_of(question)
        or taken_off(question)
    )
