"""Where in a sentence a value is said against the words a question is about: the value said
nearest them first, a clause boundary between them counting as distance, and the clause that
holds a position. Used by the value readers (sentence_values) and the sums (sums)."""

from __future__ import annotations

import re

from conversations.terms import stem

# Characters a clause boundary between a value and the word it is near counts as.
CLAUSE_APART = 40
_CLAUSE_END = re.compile(r"[.;:!?](?:\s|$)|,(?!\d)|\s[-–—]\s")
# A clause's end, or the end of a message read with the next (" … ").
MESSAGE_CLAUSE_END = re.compile(rf"{_CLAUSE_END.pattern}|…")


def clause_around(sentence: str, at: int) -> tuple[int, int]:
    """Where the clause of ``sentence`` that holds position ``at`` starts and stops."""
    ends = [0] + [m.end() for m in MESSAGE_CLAUSE_END.finditer(sentence)] + [len(sentence)]
    start = max(end for end in ends if end <= at)
    stop = min((end for end in ends if end > at), default=len(sentence))
    return start, stop


def nearest_first(found: list[tuple[int, object]], sentence: str, about: frozenset[str]):
    """Values in order of how near they are said to the words the question is about (in the
    order said, when it names none of them here)."""
    if not named_at(sentence, about):
        return sorted(found, key=lambda pair: pair[0])
    return sorted(found, key=lambda pair: (how_far(pair[0], sentence, about), pair[0]))


def named_at(sentence: str, about: frozenset[str]) -> list[tuple[int, str]]:
    """Where ``sentence`` says each of the words ``about`` (by stem), with the stem said."""
    said = ((m.start(), stem(m.group(0))) for m in re.finditer(r"[\w'’]+", sentence))
    return [(at, word) for at, word in said if word in about]


def how_far(at: int, sentence: str, about: frozenset[str]) -> int | None:
    """How far a value said at ``at`` is from the nearest of the words ``about`` in
    ``sentence``, in characters (None when it names none of them). A value in another clause
    than the word is further off than it looks: "$900 cash, also no. Buckeye came in at
    $1,850" gives Buckeye's $1,850; "Priya emailed today: my start date has moved to Monday 27
    April" gives the 27th for the start."""
    places = [at for at, _ in named_at(sentence, about)]
    if not places:
        return None

    def distance(place: int) -> int:
        between = sentence[min(at, place) : max(at, place)]
        return abs(at - place) + CLAUSE_APART * len(_CLAUSE_END.findall(between))

    return min(distance(place) for place in places)
