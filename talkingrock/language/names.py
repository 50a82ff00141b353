"""Who is who: the people a conversation names, spelt as people spell them ("dave", "Dave K",
"the builder Dave"), resolved to one capitalised name.

A gazetteer of names already known (the household's members, the member's own entity graph,
names seen earlier in the conversation) is matched case-insensitively, so "dave" is Dave once he
is known. New names come from spaCy's named entities, from capitalised proper nouns, and — since
people type "marek said" and "asked jess" in lower case, which the small model rarely tags — from
first names: the lists Faker keeps for many locales, taken only where the word stands as a
person would (a subject, an object, after "from"/"with"/"to", possessive) and not as the common
word it may also be ("the bill", "may", "will", "the floors": a lower-case word that is one of
the thousand commonest English words, or an inflected form of a word, is that word). A short
form of a known name ("han" for Hannah, "trev" for Trevor) means that person when it means no
one else. A role the member has named someone by ("my dad Pat", "sian the sparky") means that
person afterwards ("dad rang"). "he"/"she"/"him"/"her" refer to the last person named before
them.
"""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass, field
from datetime import date
from functools import cache, lru_cache
from itertools import takewhile

from faker.providers.lorem.en_US import Provider as EnglishWords

from talkingrock import nlp
from talkingrock.language import dates
from talkingrock.language.mentions import MONTHS
from talkingrock.language.words import EVERYDAY, zipf

# Words spaCy's small model sometimes tags as a person or a proper noun in lowercase chat, and
# relations people use instead of a name ("mum" is a role here, not a name).
NOT_NAMES = frozenset(
    """i im i'm ive okay ok yes no hi hey thanks christmas easter monday tuesday wednesday thursday
    friday saturday sunday january february march april may june july august september october
    november december today tomorrow tonight yesterday mondays tuesdays wednesdays thursdays
    fridays saturdays sundays weekend weekends mum mom dad mummy daddy nan nana gran
    granny grandma grandpa grandad auntie aunt uncle baby boss landlord plumber builder
    electrician doctor dr gp nurse vet teacher council bank mot vat gp's am pm eta god gods lord
    jesus christ ye ya yep nope lol""".split()
)
# People named by their role: after one of these, "he" or "she" may mean them, so a pronoun is
# left as it is rather than given the last name mentioned.
ROLES = frozenset(
    """mum mom dad mummy daddy nan nana gran granny grandma grandpa grandad auntie aunt uncle
    brother sister son daughter husband wife partner boyfriend girlfriend boss manager landlord
    landlady plumber builder electrician sparky roofer mechanic doctor gp nurse vet teacher coach
    neighbour neighbor friend mate dentist surgeon consultant accountant solicitor agent""".split()
)
# Words for a person, any person: a role, or "the foster lady", "the gas guy".
PERSON_WORDS = ROLES | frozenset(
    "lady man guy woman girl boy bloke fella chap lad lass kid person one cousin nephew niece "
    "godmother godfather stepdad stepmum colleague fiance fiancee mother father grandmother "
    "grandfather".split()
)
SEASONS_AND_SUCH = frozenset("spring summer autumn fall winter holly ivy sunny".split())
# Faker's person providers for the languages a household in Britain, Ireland, the US or India is
# likely to name people in.
LOCALES = (
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
def common_words() -> frozenset[str]:
    """About a thousand of the commonest English words (Faker's English word list): in lower
    case, one of these is the word, not a name ("job", "guy", "floor", "will")."""
    return frozenset(word.casefold() for word in EnglishWords.word_list)


@cache
def first_names() -> frozenset[str]:
    names: set[str] = set()
    for locale in LOCALES:
        try:
            provider = importlib.import_module(f"faker.providers.person.{locale}").Provider
        except (ImportError, AttributeError):
            continue
        for attribute in ("first_names", "first_names_male", "first_names_female"):
            values = getattr(provider, attribute, None) or ()
            names |= {str(value).casefold() for value in values}
    return frozenset(name for name in names if name.isalpha() and len(name) > 1)


_TITLE = re.compile(r"^(?:mr|mrs|ms|miss|dr|prof|auntie|aunt|uncle)\.?\s+", re.I)


# Parts of speech that are never part of a person's name: the words after one ("dave the
# contractor", "sam and i", "maya who").
_NOT_IN_A_NAME = frozenset(
    {"DET", "ADP", "CCONJ", "SCONJ", "PRON", "AUX", "VERB", "PART", "PUNCT", "NUM"}
)


def display_name(user) -> str:
    """How a member is named in what is written about them ("Maya")."""
    return title_case(user.get_short_name() or user.get_username())


def title_case(name: str) -> str:
    """ "dave kowalski" → "Dave Kowalski"; "o'brien" → "O'Brien"; "McKay" and "Mei-kuen"
    stay."""
    parts = []
    for word in name.split():
        if (
            (word.isupper() and len(word) > 1)
            or any(ch.isupper() for ch in word[1:])
            or (word[:1].isupper() and "-" in word)
        ):
            parts.append(word)  # an acronym or deliberate casing ("Mei-kuen"): keep it
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

    def short_form(self, word: str) -> Known | None:
        """The one known person a short form means: "han" → Hannah, "trev" → Trevor, "gems" →
        Gemma; a known "Pat" for "patrick". None when it could be more than one person."""
        word = word.casefold()
        if len(word) < 3:
            return None
        stems = {word, word[:-1]} if word.endswith("s") and len(word) > 3 else {word}
        matches = []
        for person in self.people:
            first = key(person.name).split()[0] if key(person.name) else ""
            if len(first) < 3 or first in stems:
                continue  # the same name is an exact match, found elsewhere
            if any(first.startswith(stem) for stem in stems) or word.startswith(first):
                matches.append(person)
        return matches[0] if len(matches) == 1 else None

    def spellings(self) -> list[tuple[str, Known]]:
        """Every spelling with its person, longest first (so "dave k" wins over "dave")."""
        pairs = {(spelling, id(p)): (spelling, p) for p in self.people for spelling in p.spellings}
        return sorted(pairs.values(), key=lambda pair: -len(pair[0]))


def _could_be_short_form(token) -> bool:
    """A word that may be a nickname: alphabetic, not a stop word, role, day or common English
    word, standing where a person stands."""
    word = token.lower_
    return (
        token.is_alpha
        and len(word) >= 3
        and not token.is_stop
        and word not in NOT_NAMES
        and word not in ROLES
        and word not in common_words()
        and word not in SEASONS_AND_SUCH
        and token.pos_ in ("PROPN", "NOUN", "X", "INTJ")
        and token.dep_ in _PERSON_DEPS | {"dep", "nmod"}
    )


def is_name_like(token) -> bool:
    """A token that could be a person's name: a proper noun or a person entity, alphabetic,
    not a day, month, role or greeting."""
    text = token.text
    if not text.isalpha() or text.lower() in NOT_NAMES or len(text) < 2:
        return False
    return token.ent_type_ == "PERSON" or (token.pos_ == "PROPN" and text[0].isupper())


# What people do that things do not: a word that says, texts or reckons is someone ("jonno
# reckons 400", "gerry said"), as is a word one texts, asks or pays ("ask bernie").
_SAYING = frozenset(
    """say tell ask reckon think reply answer text ring call phone email message promise offer
    agree approve admit confirm quote owe reckon help send want""".split()
)
_ADDRESSED = frozenset(
    "tell ask text ring call phone email message thank pay chase invite remind".split()
)
_HEARD = frozenset("hear talk speak check chat".split())
_NOT_PEOPLE_ENTITIES = frozenset(
    "GPE LOC FAC DATE TIME MONEY PERCENT CARDINAL ORDINAL QUANTITY NORP PRODUCT EVENT LAW".split()
)


def is_named_by_what_they_do(token) -> bool:
    """A word no list names that stands as only a person does: the subject of "said",
    "reckons", "texted"; the one asked, rung or paid; the one heard from."""
    word = token.lower_
    if (
        not token.is_alpha
        or len(word) < 2
        or token.is_stop
        or token.ent_type_ in _NOT_PEOPLE_ENTITIES
    ):
        return False
    if word in NOT_NAMES or word in ROLES or word in SEASONS_AND_SUCH or word in common_words():
        return False
    if token.pos_ not in ("PROPN", "NOUN", "X") or token.lemma_.casefold() != word:
        return False
    if any(child.dep_ in ("det", "poss", "amod", "nummod") for child in token.children):
        return False
    head = token.head
    if token.dep_ == "nsubj":
        return head.lemma_.casefold() in _SAYING
    if token.dep_ in ("dobj", "dative"):
        return head.lemma_.casefold() in _ADDRESSED
    if token.dep_ == "pobj" and head.lower_ in ("from", "with", "to"):
        return head.head.lemma_.casefold() in _HEARD
    return False


def is_first_name(token) -> bool:
    """A lower-case first name standing where a person stands ("marek said", "asked jess",
    "from stu", "mareks quote"), not a common word that happens to be a name."""
    word = token.lower_
    if token.text.isupper() and len(token.text) > 1:
        return False  # "BOOKED", "STILL": shouting, not a name
    if _possessive_without_apostrophe(token):
        word = word[:-1]  # "mareks quote"
    elif token.lemma_.casefold() != word:
        return False  # "floors", "said": a form of an English word
    if word not in first_names() or word in NOT_NAMES or word in SEASONS_AND_SUCH:
        return False
    if word in common_words() and token.text.islower():
        return False  # "job", "guy", "will": the word
    if token.is_stop or not token.is_alpha or token.pos_ in ("VERB", "AUX", "ADJ", "ADV", "ADP"):
        return False
    if any(child.dep_ in ("det", "poss", "amod") for child in token.lefts):
        return False  # "the bill", "my mark", "a rose"; not "trainer bronwyn, all positive"
    return token.dep_ in _PERSON_DEPS or _possessive_without_apostrophe(token)


# What cannot follow a possessive: "floors now", "said they'd".
_NOT_OWNED = frozenset("ADP DET PRON AUX CCONJ SCONJ PART ADV PUNCT NUM".split())


def _possessive_without_apostrophe(token) -> bool:
    """ "mareks quote": a first name and an s, standing before what is theirs."""
    word = token.lower_
    following = token.nbor(1) if token.i + 1 < len(token.doc) else None
    return (
        word.endswith("s")
        and word not in first_names()
        and word[:-1] in first_names()
        and following is not None
        and following.is_alpha
        and following.pos_ not in _NOT_OWNED
    )


# A title before a name: "doctor okoye" is Dr Okoye; "uncle roy" is Roy, an uncle.
_TITLES = {"doctor": "Dr", "dr": "Dr", "mr": "Mr", "mrs": "Mrs", "ms": "Ms", "prof": "Prof"}
_FAMILY_TITLES = frozenset(
    "uncle auntie aunt aunty cousin nana nan gran granny grandma grandad".split()
)


def _hyphened(token) -> tuple[str, int]:
    """A name's word with what a hyphen joins to it ("Mei-kuen", "Ka-lok", "Jean-Paul"), and how
    many tokens that takes."""
    doc, at = token.doc, token.i
    text = token.text
    while (
        at + 2 < len(doc)
        and doc[at].whitespace_ == ""
        and doc[at + 1].text == "-"
        and doc[at + 1].whitespace_ == ""
        and doc[at + 2].text.isalpha()
    ):
        text, at = f"{text}-{doc[at + 2].text}", at + 2
    return text, at - token.i + 1


def _titled(token) -> tuple[str, str, int] | None:
    """(name, relation, how many words after the title) when ``token`` is a title and the next
    word a name: "Dr Caroline Odhiambo" is all three, "dr okoye" two."""
    word = token.lower_.rstrip(".")
    following = token.nbor(1)
    if word not in _TITLES and word not in _FAMILY_TITLES:
        return None
    name = following.text
    if (
        not name.isalpha()
        or following.is_stop
        or following.lower_ in NOT_NAMES
        or following.lower_ in ROLES
        or (name.islower() and following.lower_ in common_words())
        or following.lemma_.casefold() != following.lower_
    ):
        return None
    if name.islower() and following.lower_ not in first_names() and zipf(name) > EVERYDAY:
        return None  # "right gran update she had a fall": an everyday word, not her name
    name, words = _hyphened(following)
    after = token.doc[following.i + words] if following.i + words < len(token.doc) else None
    if (
        name.split("-")[0].istitle()  # "Mei-kuen Ho": the first of what a hyphen joins
        and after is not None
        and after.text.isalpha()
        and after.text.istitle()
        and after.lower_ not in NOT_NAMES
        and after.pos_ == "PROPN"
    ):
        rest, more = _hyphened(after)
        name, words = f"{name} {rest}", words + more
    if word in _TITLES:
        return f"{_TITLES[word]} {title_case(name)}", "", words
    return title_case(name), word, words


def _says_who_they_are(token) -> bool:
    """A word before a name that says who they are, not who: a word for a person ("brother",
    "nurse") or an everyday English word that is no first name ("trainer", "pastor")."""
    word = token.lower_
    return word not in first_names() and (word in PERSON_WORDS or zipf(word) > EVERYDAY)


def _opens_sentence(token) -> bool:
    return token.i == 0 or token.is_sent_start or token.nbor(-1).text in (".", "!", "?", "\n")


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
    for token in doc[:-1]:
        titled = _titled(token)
        if titled is not None:
            name, relation, words = titled
            span = set(range(token.i, token.i + 1 + words))
            if span & taken:
                continue
            person = gazetteer.add(name, relation=relation)
            taken |= span
            found.append((token.i, token.i + 1 + words, person))
    for ent in doc.ents:
        if ent.label_ != "PERSON" or taken & set(range(ent.start, ent.end)):
            continue
        # A name ends where the words stop naming: "dave the contractor" is Dave.
        tokens = list(takewhile(lambda t: t.pos_ not in _NOT_IN_A_NAME, ent))
        tokens = [t for t in tokens if t.text.isalpha() and t.lower_ not in NOT_NAMES]
        tokens = [t for t in tokens if not (t.text.isupper() and len(t.text) > 1)]
        while len(tokens) > 1 and _says_who_they_are(tokens[0]):
            tokens = tokens[1:]  # "Trainer Bronwyn", "Brother Delroy": Bronwyn, Delroy
        if all(t.text.islower() and t.lower_ in common_words() for t in tokens):
            continue  # the small model's guess on a lower-case word ("job")
        if len(tokens) == 1 and _opens_sentence(tokens[0]) and nlp.is_verb_form(tokens[0].lower_):
            continue  # "Said he'd text": the verb, capitalised because it starts the sentence
        if not tokens:
            continue
        name = " ".join(t.text for t in tokens)
        person = gazetteer.find(name)
        if person is None and len(tokens) == 1:
            person = gazetteer.short_form(name)
        person = person or gazetteer.add(name)
        taken |= set(range(ent.start, ent.end))
        found.append((ent.start, ent.end, person))
    for token in doc:
        if token.i in taken:
            continue
        person = gazetteer.short_form(token.lower_) if _could_be_short_form(token) else None
        if person is None and _month_of_a_day(token):
            continue  # "sat 28 mar", "may 5th": a month, not Mar or May
        if person is None and (is_first_name(token) or is_named_by_what_they_do(token)):
            name = token.text[:-1] if _possessive_without_apostrophe(token) else token.text
            person = gazetteer.add(name)
        if person is not None:
            taken.add(token.i)
            found.append((token.i, token.i + 1, person))
    return sorted(found, key=lambda hit: hit[0])


def _month_of_a_day(token) -> bool:
    """Whether ``token`` is a month in a date the date reader reads around it ("sat 28 mar",
    "may 5th"), not a name ("mar is coming on the 5th")."""
    if token.lower_ not in MONTHS:
        return False
    doc = token.doc
    around = doc[max(token.i - 2, 0) : token.i + 3]
    start = token.idx - around.start_char
    end = start + len(token.text)
    said = dates.find(around.text, today=date(2000, 1, 3))
    return any(m.start <= start and end <= m.end for m in said)


# A name said first and then who they are: "Ikenna obi, clearing agent, my colleague used him",
# "Rusty, the mechanic there".
_NAMED_THEN_WHO = re.compile(
    r"^\s*((?:[A-Za-z][\w'’-]*\s+){0,2}[A-Za-z][\w'’-]*),\s+(?:(?:the|a|an|my|our|his|her|their)\s+)?"
    rf"(?:[a-z][\w'’-]*\s+)?(?:{'|'.join(sorted(PERSON_WORDS, key=len, reverse=True))})\b"
    # not who said it: "sills r shot, the mechanic says"
    r"(?!\s+(?:says|said|reckons|thinks|told|tells)\b)",
    re.I,
)


@lru_cache(maxsize=4096)
def people_in(text: str) -> tuple[tuple[int, str], ...]:
    """The people ``text`` names, each where it is said and as its name is written ("grace
    oduya is playing for us now" → Grace Oduya), read as a conversation's names are, with no
    one known beforehand."""
    if not text.strip():
        return ()
    doc = nlp.parse_one(text)
    found = tuple((doc[start].idx, known.name) for start, _, known in names_in(doc, Gazetteer()))
    if not found and (first := _NAMED_THEN_WHO.match(text)):
        words = first.group(1).split()
        if not any(
            len(w) < 2 or w.casefold() in common_words() or w.casefold() in NOT_NAMES for w in words
        ):
            return ((first.start(1), title_case(first.group(1))),)
    return found
