"""Which of two things a question offers ("did I want a DJ or a playlist", "wood or
vinyl??") the sentence that answers it chose: the one it names without turning it down. The
reply leads with that one, as the question typed it ("A playlist — “I can't stand DJs …”")."""

from __future__ import annotations

import re

from conversations.terms import stem, words_of
from talkingrock.language.values import struck_out

# Words that turn a thing down when said just before it: "I can't stand DJs", "not a bath",
# "rather X than Y", "hates the tuna kind".
_AGAINST = re.compile(
    r"\b(?:not|no|never|hate[sd]?|can['’]?t stand|cannot stand|don['’]?t (?:want|like|do)|"
    r"dont (?:want|like|do)|instead of|rather than|than|without|sick of|fed up (?:of|with))"
    r"\s+(?:[\w'’]+\s+){0,3}$",
    re.I,
)
NEAR = 40  # characters before a thing that are read for words turning it down


_ARTICLES = frozenset({"a", "an", "the"})


def _stem(word: str) -> str:
    word = word.lower()
    return stem(word[:-1] if word.endswith("s") and len(word) > 2 else word)  # "DJs": "DJ"


def _where(option: str, sentence: str) -> list[int]:
    """Where ``sentence`` names ``option``: its words in a row, past an article ("DJs" for "a
    DJ")."""
    wanted = [_stem(w) for w in words_of(option) if w not in _ARTICLES]
    words = list(re.finditer(r"[\w'’-]+", sentence))
    return [
        words[at].start()
        for at in range(len(words) - len(wanted) + 1)
        if [_stem(w.group()) for w in words[at : at + len(wanted)]] == wanted
    ]


def _turned_down(sentence: str, at: int) -> bool:
    before = sentence[max(0, at - NEAR) : at]
    return bool(_AGAINST.search(before)) or struck_out(sentence, at)


# Words that choose, said right before the thing chosen: "going vinyl", "went with the oak",
# "want a shower", "I'll just do a playlist".
_CHOOSES = re.compile(
    r"\b(?:go|going|gone|went|chose|choose|picked|decided on|landed on|prefer\w*|rather|want\w*|"
    r"booked|ordered|getting|get|sticking with|stick with|do|doing|have|having)"
    r"\s+(?:(?:with|for|on|a|an|the|just|my|our|some)\s+){0,2}$",
    re.I,
)


def picked(options: tuple[str, ...], sentence: str) -> str:
    """The one of ``options`` that ``sentence`` chose: named and not turned down, while the
    other is turned down, or named right after a word that chooses ("going vinyl") while the
    other is not named at all; "" when it does not choose."""
    if len(options) != 2:
        return ""
    found = {option: _where(option, sentence) for option in options}
    named = {o for o, at in found.items() if at and not any(_turned_down(sentence, a) for a in at)}
    down = {o for o, at in found.items() if at and any(_turned_down(sentence, a) for a in at)}
    if len(named) != 1:
        return ""
    (choice,) = named
    (other,) = set(options) - named
    if other in down:
        return choice
    said_choosing = any(_CHOOSES.search(sentence[max(0, at - NEAR) : at]) for at in found[choice])
    return choice if not found[other] and said_choosing else ""
