"""Who is who: the people a conversation names, spelt as people spell them ("dave", "Dave K",
"the builder Dave"), resolved to one capitalised name.

A gazetteer of names already known (the household's members, the member's own entity graph,
names seen earlier in the conversation) is matched case-insensitively, so "dave" is Dave once he
is known. New names come from spaCy's named entities, from capitalised proper nouns, and — since
people type "marek said" and "asked jess" in lower case, which the small model rarely tags — from
first names: the lists Faker keeps for many locales, taken only where the word stands as a
person would (a subject, an object, after "from"/"with"/"to", possessive) and not as the common
word it may also be ("the bill", "may", "will"). "he"/"she"/"him"/"her" refer to the last person
named before them.
"""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass, field
from functools import cache

# Words spaCy's small model sometimes tags as a person or a proper noun in lowercase chat, and
# relations people use instead of a name ("mum" is a role here, not a name).
NOT_NAMES = frozenset(
    """i im i'm ive okay ok yes no hi hey thanks christmas easter monday tuesday wednesday thursday
    friday saturday sunday january february march april may june july august september october
    november december today tomorrow tonight yesterday mondays tuesdays wednesdays thursdays
    fridays saturdays sundays weekend weekends mum mom dad mummy daddy nan nana gran
    granny grandma grandpa grandad auntie aunt uncle baby boss landlord plumber builder
    electrician doctor dr gp nurse vet teacher council bank mot vat gp's am pm eta""".split()
)
PRONOUNS = frozenset({"he", "him", "his", "she", "her", "hers"})
# People named by their role: after one of these, "he" or "she" may mean them, so a pronoun is
# left as it is rather than given the last name mentioned.
ROLES = frozenset(
    """mum mom dad mummy daddy nan nana gran granny grandma grandpa grandad auntie aunt uncle
    brother sister son daughter husband wife partner boyfriend girlfriend boss manager landlord
    landlady plumber builder electrician sparky roofer mechanic doctor gp nurse vet teacher coach
    neighbour neighbor friend mate dentist surgeon consultant accountant solicitor agent""".split()
)
SEASONS_AND_SUCH = frozenset("spring summer autumn fall winter holly ivy sunny".split())
# Faker's person providers for the languages a household in Britain, Ireland, the US or India is
# likely to name people in.
_LOCALES = (
    "en_US", "en_GB", "en_IE", "en_IN", "en_NZ", "pl_PL", "fr_FR", "de_DE", "es_ES", "it_IT",
    "pt_PT", "nl_NL", "tw_GH", "yo_NG", "uk_UA", "ro_RO", "hi_IN",
)  # fmt: skip
# Where a person stands in a clause: subject, object, object of a preposition, conjoined,
# possessive, apposition, or a name-like modifier ("marek quote" for "marek's quote").
_PERSON_DEPS = frozenset(
    "nsubj nsubjpass dobj iobj pobj conj poss appos npadvmod compound dative attr intj oprd "
    "ROOT".split()
)


@cache
def first_names() -> frozenset[str]:
    names: set[str] = set()
    for locale in _LOCALES:
        try:
            provider = importlib.import_module(f"faker.providers.person.{locale}").Provider
        except (ImportError, AttributeError):
            continue
        for attribute in ("first_names", "first_names_male", "first_names_female"):
            values = getattr(provider, attribute, None) or ()
            names |= {str(value).casefold() for value in values}
    return frozenset(name for name in names if name.isalpha() and len(name) > 1)


_TITLE = re.compile(r"^(?:mr|mrs|ms|miss|dr|prof|auntie|aunt|uncle)\.?\s+", re.I)


def title_case(name: str) -> str:
    """ "dave kowalski" → "Dave Kowalski"; "o'brien" → "O'Brien"; "McKay" stays."""
    parts = []
    for word in name.split():
        if (word.isupper() and len(word) > 1) or any(ch.isupper() for ch in word[1:]):
            parts.append(word)  # an acronym or deliberate casing: keep it
            continue
        parts.append("-".join(_cap(piece) for piece in word.split("-")))
    return " ".join(parts)


def _cap(word: str) -> str:
    if word.lower().startswith(("o'", "d'")) and len(word) > 2:
        return word[:2].upper() + word[2:].capitalize()
    return word[:1].upper() + word[1:].lower()


def key(name: str) -> str:
    return " ".join(_TITLE.sub("", name).casefold().replace("'s", "").split())


@dataclass
class Known:
    """One person the gazetteer knows: the name to use and every spelling that means them."""

    name: str
    spellings: set[str] = field(default_factory=set)
    relation: str = ""


class Gazetteer:
    """Names known so far, matched case-insensitively by full name or by first name (when only
    one known person has it)."""

    def __init__(self, known: list[Known] = ()):
        self.people: list[Known] = []
        for person in known:
            self.add(person.name, relation=person.relation, spellings=person.spellings)

    def add(self, name: str, *, relation: str = "", spellings=()) -> Known:
        found = self.find(name)
        if found is None:
            found = Known(title_case(name), relation=relation)
            self.people.append(found)
        found.spellings |= {key(name), *(key(s) for s in spellings)}
        if relation and not found.relation:
            found.relation = relation
        return found

    def find(self, text: str) -> Known | None:
        wanted = key(text)
        if not wanted:
            return None
        exact = [p for p in self.people if wanted in p.spellings or wanted == key(p.name)]
        if exact:
            return exact[0]
        first = wanted.split()[0]
        by_first = [p for p in self.people if key(p.name).split()[0] == first]
        return by_first[0] if len(by_first) == 1 else None

    def spellings(self) -> list[tuple[str, Known]]:
        """Every spelling with its person, longest first (so "dave k" wins over "dave")."""
        pairs = {(spelling, id(p)): (spelling, p) for p in self.people for spelling in p.spellings}
        return sorted(pairs.values(), key=lambda pair: -len(pair[0]))


def is_name_like(token) -> bool:
    """A token that could be a person's name: a proper noun or a person entity, alphabetic,
    not a day, month, role or greeting."""
    text = token.text
    if not text.isalpha() or text.lower() in NOT_NAMES or len(text) < 2:
        return False
    return token.ent_type_ == "PERSON" or (token.pos_ == "PROPN" and text[0].isupper())


def is_first_name(token) -> bool:
    """A lower-case first name standing where a person stands ("marek said", "asked jess",
    "from stu", "mareks quote"), not a common word that happens to be a name."""
    word = token.lower_
    if token.text.isupper() and len(token.text) > 1:
        return False  # "BOOKED", "STILL": shouting, not a name
    if word.endswith("s") and word not in first_names() and word[:-1] in first_names():
        word = word[:-1]  # "mareks quote": a possessive typed without its apostrophe
    if word not in first_names() or word in NOT_NAMES or word in SEASONS_AND_SUCH:
        return False
    if token.is_stop or not token.is_alpha or token.pos_ in ("VERB", "AUX", "ADJ", "ADV", "ADP"):
        return False
    if any(child.dep_ in ("det", "poss", "amod") for child in token.children):
        return False  # "the bill", "my mark", "a rose"
    return token.dep_ in _PERSON_DEPS


def names_in(doc, gazetteer: Gazetteer) -> list[tuple[int, int, Known]]:
    """(start, end, person) token spans naming people: the gazetteer's spellings first, then
    person entities, capitalised proper nouns and lower-case first names, which join the
    gazetteer."""
    lower = [t.lower_ for t in doc]
    taken: set[int] = set()
    found: list[tuple[int, int, Known]] = []
    for spelling, person in gazetteer.spellings():
        words = spelling.split()
        for start in range(len(lower) - len(words) + 1):
            span = range(start, start + len(words))
            if lower[start : start + len(words)] == words and not taken & set(span):
                if len(words) == 1 and doc[start].lower_ in NOT_NAMES:
                    continue
                taken |= set(span)
                found.append((start, start + len(words), person))
    for ent in doc.ents:
        if ent.label_ != "PERSON" or taken & set(range(ent.start, ent.end)):
            continue
        tokens = [t for t in ent if t.text.isalpha() and t.lower_ not in NOT_NAMES]
        tokens = [t for t in tokens if not (t.text.isupper() and len(t.text) > 1)]
        if not tokens:
            continue
        person = gazetteer.add(" ".join(t.text for t in tokens))
        taken |= set(range(ent.start, ent.end))
        found.append((ent.start, ent.end, person))
    for token in doc:
        if token.i in taken:
            continue
        if is_first_name(token):
            name = token.text
            if token.lower_ not in first_names() and token.lower_[:-1] in first_names():
                name = name[:-1]
            person = gazetteer.add(name)
            taken.add(token.i)
            found.append((token.i, token.i + 1, person))
    return sorted(found, key=lambda hit: hit[0])
