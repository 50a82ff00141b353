"""Whether a sentence tells of what has happened or of what is ahead, from its verbs: how a
weekday or a day of the month said without a month is read (talkingrock/language/dates.py reads
it either way; the caller says which)."""

from __future__ import annotations

import functools
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
_LOOK_BACK = 300  # characters before a date read for its verb; six words fit with room to spare
_ED = re.compile(r"\b[a-z]{3,}ed\b")
_NOT_PAST_ED = frozenset("need needed bed red shed seed feed speed indeed hundred".split())


def lean_of(text: str, at: int | None = None) -> str:
    """ "past" when the words tell of what has happened, else "future" (how ``find`` reads a
    weekday or a day of the month said without a month). ``at``: the place of a date in the
    text; the verb nearest before it decides ("I'm taking her on the 2nd because Freya's got a
    thing" looks ahead; "it came through on Tuesday" looks back)."""
    low = lowered(text or "")
    if at is not None:
        before, own = _words_at(low, at)
        if _moved_to(before + own):
            return "future"
        for place, word in reversed(list(enumerate(before))):
            if word == "its" and set(before[place + 1 :]) - _LINKING:
                continue  # "failed its mot on 30 december": whose, not "it's"
            if _past(word):
                return "past"
            if word.endswith("ing") and place and before[place - 1] in _DETERMINERS:
                continue  # a thing, not a doing: "the wedding on the 3rd"
            if word.endswith(("'s", "’s")) and not set(before[place + 1 :]) - _LINKING:
                if place and before[place - 1] in _TO_A_PLACE:
                    continue  # a place, whose it is: "we went to mum's on the 3rd"
                return "future"  # "is", said with its date: "the install's now the 22nd"
            if word.endswith("ing") or word in _AHEAD_WORDS:
                return "future"
            if word in _SUBJECTS and place < len(before) - 1:
                # A subject whose verb is no past form: "booked the fitters, they start on
                # the 4th" is told in the present, of what is ahead.
                return "future"
        # No verb before it: the verb just after it ("the operation on the third went fine",
        # "the wedding on sat was lovely", "dinner on the 3rd is booked").
        for word in _words_after(low, at):
            if _past(word):
                return "past"
            if word in _AHEAD_WORDS:
                return "future"
    return _lean_of_the_whole(low)


def _past(word: str) -> bool:
    """Whether ``word`` is a past form ("came", "picked")."""
    return word in _PAST_FORMS or bool(_ED.fullmatch(word) and word not in _NOT_PAST_ED)


_AFTER = 5  # words read after a date for its verb: the date's own few, then the verb


def _words_after(low: str, at: int) -> list[str]:
    """The first ``_AFTER`` words of its sentence from position ``at`` of ``low``."""
    end = _SENTENCE_END.search(low, at)
    return re.findall(r"[a-z']+", low[at : end.start() if end else len(low)])[:_AFTER]


@functools.lru_cache(maxsize=32)
def _lean_of_the_whole(low: str) -> str:
    """The lean of a whole (lower-cased) text, by all its words: kept for the text's other
    dates."""
    if _AHEAD.search(low):
        return "future"
    words = set(re.findall(r"[a-z']+", low))
    if words & _PAST_FORMS or any(w not in _NOT_PAST_ED for w in _ED.findall(low)):
        return "past"
    return "future"


# A day a plan was moved to (or booked for) is where it stands now, ahead of the telling:
# "dentist got moved to tuesday", "they pushed it to the 14th", "rescheduled for friday",
# "appointment booked for the 2nd".
_MOVED = frozenset(
    "moved pushed changed rescheduled postponed shifted switched brought put booked".split()
)
_TO = frozenset("to for till until til".split())


def moved_to(text: str, at: int) -> bool:
    """Whether the words just before position ``at`` of ``text`` move a plan there ("the move
    is pushed to the 28th", "moved it back to the 3rd")."""
    before, own = _words_at(lowered(text or ""), at)
    return _moved_to(before + own)


def _words_at(low: str, at: int) -> tuple[list[str], list[str]]:
    """The words of its sentence just before position ``at`` of ``low`` (at most six), and the
    first word at ``at`` when it is a preposition of a date ("for tues"). Only the words just
    before are read, so a text of many dates is read in a time that grows with its length, not
    with its square: "sami made the swim meet!! its aug 8"."""
    window = max(at - _LOOK_BACK, 0)
    ends = _SENTENCE_END.finditer(low, window, at)
    sentence_start = max((m.end() for m in ends), default=window)
    before = re.findall(r"[a-z']+", low[sentence_start:at])[-6:]
    own = [w for w in re.findall(r"[a-z']+", low[at : at + 8])[:1] if w in _TO]
    return before, own


def _moved_to(before: list[str]) -> bool:
    """Whether the words just before a date are a change of plan and its "to" ("moved to", "pushed
    it back to the"), so that the date is where the plan was moved."""
    words = [word for word in before if word not in ("the", "it", "back", "forward", "on")]
    return len(words) >= 2 and words[-1] in _TO and words[-2] in _MOVED


_SUBJECTS = frozenset("i we they he she you".split())
_DETERMINERS = frozenset("the a an my our your his her their this that".split())
_AHEAD_WORDS = frozenset("will 'll shall going gonna is are am 'm 're 's its due".split())
_SENTENCE_END = re.compile(r"[.!?…]+\s")
# Words that may stand between "it's" and its date ("its on the 3rd", "its aug 8").
_LINKING = frozenset("on the at for in now".split())
# Words before a place named by whose it is ("to mum's", "at nan's").
_TO_A_PLACE = frozenset("to at from round around by near into over".split())
