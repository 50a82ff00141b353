"""The name a sentence gives a thing or a person in so many words ("it's called Rosebank", "racing
name sandgate mischief"), and the name it gives a thing it names ("booked hanif at H&A Autos",
"Sunday 17th May, at Sri Rama Kalyana Mantapa"): what answers "whats betos shop called"."""

from __future__ import annotations

import re

from conversations.nearness import nearest_first
from conversations.terms import FILLER, stem
from talkingrock import nlp
from talkingrock.language.mentions import WD
from talkingrock.language.offline.lexicon import normalise

# A name given as one: "racing name sandgate mischief", "his name's walt", "it's called
# Rosebank". The words after it, up to one that is no part of a name (see named_as).
_NAMED_AS = re.compile(
    r"\b(?:name|called)\b(?:\s+(?:is|was)\b|['’]s\b)?[:\s]+([^\W\d_][\w'’-]*(?:\s+[^\W\d_][\w'’-]*){0,3})"
)


# "called" as rang: "beto called tues", "the garage called me back"; not said after "is" or
# "was" ("the boat is called Sunday Best"), nor of "name".
_PASSIVE = re.compile(r"\b(?:is|was|are|were|be|been|being|it['’]?s|['’]s)\s*$", re.I)
_RANG = re.compile(
    rf"(?:{WD}|me|him|her|us|them|you|back|about|round|in|by|today|yesterday|tonight|to|this)\b",
    re.I,
)


def named_as(sentence: str, about: frozenset[str] = frozenset()) -> str:
    """The name ``sentence`` gives something in so many words ("racing name sandgate mischief
    lol" → "sandgate mischief"): the words after "name" or "called", up to the first that is
    no part of a name ("lol", "he", "but"); not one the question is ``about`` ("call name
    pretzel", asked for Pretzel's racing name); "" when there is none."""
    for m in _NAMED_AS.finditer(sentence):
        rang = m[0].lower().startswith("called") and not _PASSIVE.search(sentence[: m.start()])
        if rang and _RANG.match(m.group(1)):
            continue  # "beto called tues": rang, not named
        name = []
        words = m.group(1).split()
        if len(words) > 1 and words[0].lower() in ("the", "a", "an"):
            words = words[1:]  # "called the Kingfisher Lass"
        for word in words:
            if word.lower() in FILLER or normalise(word).strip() == "":
                break
            name.append(word)
        if name and not {stem(word.lower()) for word in name} & about:
            return " ".join(name)
    return ""


# What the parser names that is no thing's name: a day, a time, a sum, a count, a people or a
# language ("that Chinese restaurant", "the Polish shop").
_NOT_A_NAME = frozenset("DATE TIME MONEY QUANTITY CARDINAL ORDINAL PERCENT NORP LANGUAGE".split())


def thing_named(sentence: str, about: frozenset[str] = frozenset()) -> str:
    """The name ``sentence`` gives a thing, for a question that asks what one is called: one it
    gives in so many words ("it's called Rosebank"), else one the English parser names, a
    business, a building, a place or a work before a person ("booked hanif at H&A Autos"), the
    nearest the words the question is ``about``; never one made only of those words; "" when
    there is none."""
    if said := named_as(sentence, about):
        return said
    named = [entity for entity in nlp.parse_one(sentence).ents if entity.label_ not in _NOT_A_NAME]
    things = [entity for entity in named if entity.label_ != "PERSON"] or named
    found = nearest_first(
        [(e.start_char, piece) for e in things if (piece := _own_name(e.text, about))],
        sentence,
        about,
    )
    return found[0][1] if found else ""


# Where the parser runs a name on into who or where it is ("Beto at Cantu Transmission on
# Nogalitos"): the name is one of the pieces between.
_RUN_ON_AT = re.compile(r"\s+(?:at|on|in|from|by)\s+", re.I)


def _own_name(text: str, about: frozenset[str]) -> str:
    """Of the pieces of an entity's words, the first that is not made only of what is asked
    about, nor holds a name the question says ("Sent Ryan", asked the name of Ryan's sergeant,
    names Ryan; "pak shek clinic", asked the clinic's name, is its name)."""
    for piece in _RUN_ON_AT.split(text):
        words = piece.split()
        named = {stem(word.lower()) for word in words if word[:1].isupper()}
        if words and not {stem(word.lower()) for word in words} <= about and not named & about:
            return piece
    return ""
