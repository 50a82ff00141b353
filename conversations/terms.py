"""The terms a text is matched by: its words without those that say nothing ("the", "what",
"can't"), each cut to a crude stem, so that a question's words find a sentence's however either
is inflected ("measure" and "measured", "weddings" and "wedding", "bought" and "buy")."""

from __future__ import annotations

import functools
import re
from itertools import pairwise

from talkingrock import nlp
from talkingrock.language.offline.lexicon import normalise

AUXILIARIES = frozenset(
    "do does did is isnt are arent was were can could will would should shall have has had am".split()
)
# Words a question is made of that say nothing about what it asks for.
FILLER = frozenset(
    """
    a an the and or but of to in on at for with by from about into as is are was were be been
    being am do does did doing done have has had i me my mine we us our ours you your yours he
    him his she her hers they them their it its this that these those there here what whats
    when whens where wheres who whos whom whose which why how again wait actually exactly now
    then still ever already just really so also any anything some something tell remind know
    remember said say says think thought end ended up going go get got can could will would
    should shall lets let please kindly ok okay oh um hmm again also n r u ur ya yeah
    """.split()
)
# A word in any alphabet: "apá's" and "Adrián" are whole words, not "ap" and "adri".
_WORD = re.compile(r"(?:[^\W_]|[£$€])(?:[^\W_]|[£$€,.'’-])*")


def stem(word: str) -> str:
    """A crude English stem, enough to match "measure" with "measured" and "weddings" with
    "wedding": the possessive, a plural and the commonest inflections off; an irregular verb
    form is its base form's ("bought" as "buy")."""
    word = word.lower().strip(".,'’-").removesuffix("'s").removesuffix("’s")
    word = nlp.irregular_verb_base(word) or word
    if word.endswith("ies") and len(word) > 4:
        word = word[:-3] + "y"
    elif word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        word = word[:-1]
    if word.endswith("ing") and len(word) > 5:
        word = word[:-3]
    elif word.endswith("ed") and len(word) > 4:
        word = word[:-2]
    return word.rstrip("e") if len(word) > 3 else word


def either_way(term: str) -> frozenset[str]:
    """The stems ``term`` may also stand for, said another way: an irregular verb form that is a
    noun too keeps its own stem ("sent", "left", "given"), and the question "have I given her"
    still finds "gave it to maeve", as "did I send" finds "sent maeve the statements"."""
    return _either_way().get(term, frozenset())


@functools.cache
def _either_way() -> dict[str, frozenset[str]]:
    pairs: dict[str, set[str]] = {}
    for form, base in nlp.noun_like_verb_forms().items():
        one, other = stem(form), stem(base)
        if one != other:
            pairs.setdefault(one, set()).add(other)
            pairs.setdefault(other, set()).add(one)
    return {term: frozenset(others) for term, others in pairs.items()}


# The endings that make a noun of a verb: "operated" and "operation", "installed" and
# "installation", "renewed" and "renewal", "appointed" and "appointment".
_NOUN_ENDINGS = ("ion", "ation", "ment", "al", "ance", "ence")
# letters the shorter stem has at least, one more before "al": "operat", "renew", not "sign"
_DERIVED_FROM = 4


def derived(term: str, other: str) -> bool:
    """Whether one of two stems is the other made a noun ("operat" and "operation")."""
    short, long = sorted((term, other), key=len)
    return len(short) >= _DERIVED_FROM + (long.endswith("al")) and any(
        long == short + end for end in _NOUN_ENDINGS
    )


def words_of(text: str) -> list[str]:
    return [w.strip(".,'’-").lower() for w in _WORD.findall(text)]


# A contraction of words that say nothing is one too: "can't", "didn't", "I'm", "that's".
_CONTRACTED = re.compile(r"^(?P<base>\w+?)(?:n['’]t|['’](?:s|re|ve|ll|d|m))$", re.I)
_NEGATED_BASE = {"ca": "can", "wo": "will", "sha": "shall"}  # "can't", "won't", "shan't"
_CONTRACTED_FILLER = FILLER | AUXILIARIES  # what a contraction's first word may be


def is_filler(word: str) -> bool:
    """Whether ``word`` says nothing a question asks about: a word of ``FILLER``, or a
    contraction of them ("can't", "it's", "we're")."""
    if word in FILLER:
        return True
    contracted = _CONTRACTED.match(word.lower())
    if contracted is None:
        return False
    base = contracted["base"]
    return _NEGATED_BASE.get(base, base) in _CONTRACTED_FILLER


def content_terms(text: str) -> frozenset[str]:
    stems = ((w, stem(w)) for w in words_of(normalise(text)) if len(w) > 1 and not w.isdigit())
    return frozenset(s for w, s in stems if not is_filler(w) and s not in FILLER)


_CLAUSE_BREAK = re.compile(r"[.,;:!?…()\[\]\"“”—–/+&]+")


def said_terms(text: str) -> frozenset[str]:
    """The terms of something said, as ``content_terms``, with each pair of words it writes apart
    also by the stem of the pair written as one ("pick up" also as "pickup", "key worker" as
    "keyworker"): a question that writes a compound closed finds it written open. A pair is
    two words of one clause ("the car. pet food" says no "carpet")."""
    joined = (
        stem(a + b)
        for clause in _CLAUSE_BREAK.split(normalise(text))
        for a, b in pairwise(re.sub(r"['’]s$", "", w.lower()) for w in words_of(clause))
        if len(a) >= 3 and len(b) >= 2 and a.isalpha() and b.isalpha()
    )
    return content_terms(text) | frozenset(joined)
