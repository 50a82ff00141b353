"""Whether a sentence tells of what has happened or of what is ahead, from its verbs: how a
weekday or a day of the month said without a month is read (talkingrock/language/dates.py reads
it either way; the caller says which)."""

from __future__ import annotations

import re

from talkingrock.text import lowered

# How a sentence tells time: a past form ("came", "paid", "picked up") without a word that looks
# ahead means what it says happened before the day it was said.
_PAST_FORMS = frozenset(
    """was were had did came went got paid said told rang sent gave took made left found bought
    brought met saw heard knew put set thought kept sold spent wrote chose drove ran flew fell
    felt won lost began became""".split()
)
_AHEAD = re.compile(
    r"\b(will|won't|going to|gonna|'ll|shall|next|tomorrow|tmrw|coming|upcoming|booked for|"
    r"due|until|till)\b"
)
_ED = re.compile(r"\b[a-z]{3,}ed\b")
_NOT_PAST_ED = frozenset("need needed bed red shed seed feed speed indeed hundred".split())


def lean_of(text: str, at: int | None = None) -> str:
    """ "past" when the words tell of what has happened, else "future" (how ``find`` reads a
    weekday or a day of the month said without a month). ``at``: the place of a date in the
    text; the verb nearest before it decides ("I'm taking her on the 2nd because Freya's got a
    thing" looks ahead; "it came through on Tuesday" looks back)."""
    low = lowered(text or "")
    if at is not None:
        # Within the sentence the date is said in: "sami made the swim meet!! its aug 8".
        sentence_start = max((m.end() for m in _SENTENCE_END.finditer(low[:at])), default=0)
        before = re.findall(r"[a-z']+", low[sentence_start:at])[-6:]
        for word in reversed(before):
            if word in _PAST_FORMS or (_ED.fullmatch(word) and word not in _NOT_PAST_ED):
                return "past"
            if word.endswith("ing") or word in _AHEAD_WORDS:
                return "future"
    if _AHEAD.search(low):
        return "future"
    words = set(re.findall(r"[a-z']+", low))
    if words & _PAST_FORMS or any(w not in _NOT_PAST_ED for w in _ED.findall(low)):
        return "past"
    return "future"


_AHEAD_WORDS = frozenset("will 'll shall going gonna is are am 'm 're 's its booked due".split())
_SENTENCE_END = re.compile(r"[.!?…]+\s")
