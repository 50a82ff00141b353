"""Where a sentence says a thing is or happens: "in truro", "at the cricket club pavilion",
"the trade counter on Felix Road", "liverpool".

A place is a named place spaCy's small pipeline recognises (a town, a country, a building, a
road), or what follows a preposition of place ("in", "at", "to", "from", "near", "behind"…) when
it is a thing, not a time ("in the morning", "at 5", "on the 8th"), a person ("to jess") or a
word that only stands for something else ("in a bit", "at it"). Lower-case chat is read the
same: the small pipeline tags "truro" after "in" as the object of the preposition, not as a
town, and the phrase is taken as said. Read with the one English parser (``talkingrock.nlp``);
nothing here reads dates itself — spaCy's date and time entities are left out.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from talkingrock import nlp
from talkingrock.language import names

# Prepositions that say where ("meet at the station", "moved to manchester").
_LOCATIVE = frozenset("in at to from near behind outside inside".split())
_NAMED_PLACE = frozenset({"GPE", "LOC", "FAC"})
# Entity kinds that are never a place, wherever they stand ("at 5", "in May", "to Sam").
_NOT_A_PLACE = frozenset(
    {"DATE", "TIME", "CARDINAL", "ORDINAL", "MONEY", "PERCENT", "QUANTITY", "PERSON"}
)
# Nouns that, after a preposition, tell how or when rather than where: "in a bit", "on the
# way", "at the end", "in total", "on the phone".
_NOT_WHERE = frozenset(
    (
        "bit while way end total moment time times minute minutes hour hours day days week weeks "
        "month months year years morning afternoon evening night weekend future past meantime "
        "phone text email call loss rate price cost mind case fact general particular least most "
        "all lot one ones thing things stuff rest half start beginning middle"
    ).split()
)
# Words of a noun phrase kept with its head: "the cricket club pavilion", "high st".
_PHRASE_DEPS = frozenset({"compound", "amod", "nmod", "poss", "case", "nummod"})


@dataclass(frozen=True)
class Place:
    start: int  # character offset in the text
    words: str  # as said, without a leading article


def _leftmost(token):
    """The first word of the noun phrase ``token`` heads, without its article."""
    first = token
    for child in token.lefts:
        if child.dep_ in _PHRASE_DEPS:
            first = min(first, _leftmost(child), key=lambda t: t.i)
    return first


def _phrase(head) -> tuple[int, str]:
    """The noun phrase ``head`` ends ("cricket club pavilion"), with the place it is "on"
    ("trade counter on Felix Road")."""
    first, last = _hyphenated(head)
    left = min(_leftmost(head).i, first)
    words = head.doc[left : last + 1].text
    for child in head.rights:
        if (
            child.dep_ == "prep"
            and child.lower_ in ("on", "in", "off")
            and (objects := [c for c in child.children if c.dep_ == "pobj"])
        ):
            end = objects[0]
            if end.ent_type_ not in _NOT_A_PLACE and end.lower_ not in _NOT_WHERE:
                words = head.doc[left : end.i + 1].text
    return head.doc[left].idx, words


def _hyphenated(token) -> tuple[int, int]:
    """The first and last token (their indexes) of the word ``token`` is in, which the tokenizer
    split at its hyphens ("Co-op", "drive-thru", "Stoke-on-Trent")."""
    doc = token.doc

    def joined(left: int) -> bool:  # doc[left], "-" and doc[left + 2] written as one word
        return (
            0 <= left
            and left + 2 < len(doc)
            and doc[left + 1].text == "-"
            and not doc[left].whitespace_
            and not doc[left + 1].whitespace_
            and doc[left].is_alpha
            and doc[left + 2].is_alpha
        )

    start = end = token.i
    while joined(start - 2):
        start -= 2
    while joined(end):
        end += 2
    return start, end


def _misread_to(token) -> bool:
    """ "moved to sheffield": the small pipeline reads a lower-case town after "to" as a verb
    ("to sheffield" like "to go"); a word that is no English verb is where it went."""
    return (
        token.dep_ in ("xcomp", "advcl")
        and any(c.lower_ == "to" and c.dep_ == "aux" for c in token.lefts)
        and not nlp.is_verb(token.lower_)
    )


@lru_cache(maxsize=4096)
def places_in(text: str) -> tuple[Place, ...]:
    """The places ``text`` names, in the order said."""
    if not text.strip():
        return ()
    doc = nlp.parse_one(text)
    found: dict[int, str] = {}
    covered: set[int] = set()
    for entity in doc.ents:
        if entity.label_ in _NAMED_PLACE:
            start = entity[0]
            if start.lower_ in ("the", "a"):
                entity = entity[1:]
            if len(entity):
                found[entity.start_char] = entity.text
                covered.update(range(entity.start, entity.end))
    for token in doc:
        if (
            token.i in covered
            or token.is_punct
            or not ((token.dep_ == "pobj" and token.head.lower_ in _LOCATIVE) or _misread_to(token))
            or (token.pos_ not in ("NOUN", "PROPN") and not _misread_to(token))
            or token.ent_type_ in _NOT_A_PLACE
            or token.lower_ in _NOT_WHERE
            or token.like_num
        ):
            continue
        if token.lower_ in names.first_names() and token.lower_ not in names.common_words():
            continue  # "talked to jess"
        start, words = _phrase(token)
        found[start] = max(found.get(start, ""), words, key=len)
    places = [Place(start, words) for start, words in sorted(found.items())]
    # A named place inside a longer one said ("Felix Road" in "trade counter on Felix Road").
    return tuple(
        p
        for p in places
        if not any(
            o is not p and o.start <= p.start and p.start + len(p.words) <= o.start + len(o.words)
            for o in places
        )
    )
