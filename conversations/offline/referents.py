"""Who "he", "she", "him" and "her" mean: the person most recently named who could be meant,
and only when no one else could be.

A pronoun is given a name when exactly one person named in the clause so far, or in the two
clauses before it, agrees with it (Faker's lists of male and female first names decide, a name on
neither or both agrees with either); failing that, the last agreeing person named earlier, when no
one was named by a role ("dad", "the builder") since. When two people could be meant ("talked it
through with dad and Declan … he's staying"), the pronoun is left as it is: a wrong name in a
memory is worse than a pronoun.
"""

from __future__ import annotations

import importlib
from collections import deque
from dataclasses import dataclass, field
from functools import cache

from conversations.offline.names import LOCALES, ROLES, Known, key

MALE = frozenset({"he", "him", "his", "himself"})
FEMALE = frozenset({"she", "her", "hers", "herself"})
PRONOUNS = MALE | FEMALE
# Roles that say who they are: "dad … he", "my sister … she".
_MALE_ROLES = frozenset(
    "dad daddy father grandad grandpa brother son husband boyfriend uncle nephew".split()
)
_FEMALE_ROLES = frozenset(
    "mum mom mummy mother nan nana gran granny grandma sister daughter wife girlfriend auntie "
    "aunt niece landlady".split()
)
WINDOW = 2  # clauses before this one in which a second candidate makes a pronoun ambiguous


@cache
def _gendered() -> tuple[frozenset[str], frozenset[str]]:
    male: set[str] = set()
    female: set[str] = set()
    for locale in LOCALES:
        try:
            provider = importlib.import_module(f"faker.providers.person.{locale}").Provider
        except (ImportError, AttributeError):
            continue
        male |= {str(n).casefold() for n in getattr(provider, "first_names_male", ()) or ()}
        female |= {str(n).casefold() for n in getattr(provider, "first_names_female", ()) or ()}
    return frozenset(male - female), frozenset(female - male)


def gender(name: str) -> str:
    """ "m", "f" or "" (unknown, or a name given to both)."""
    first = key(name).split()[0] if key(name) else ""
    male, female = _gendered()
    return "m" if first in male else "f" if first in female else ""


def _agrees(pronoun: str, mention: Known | str) -> bool:
    if isinstance(mention, str):  # a role
        if pronoun in MALE:
            return mention not in _FEMALE_ROLES
        return mention not in _MALE_ROLES
    said = gender(mention.name)
    return not said or said == ("m" if pronoun in MALE else "f")


@dataclass
class Referents:
    """Reads a conversation's mentions in order; ``meant`` answers for each pronoun."""

    recent: deque = field(default_factory=lambda: deque(maxlen=WINDOW + 1))  # one list per clause
    last_person: Known | None = None

    def new_clause(self) -> None:
        self.recent.append([])

    def named(self, person: Known) -> None:
        self.recent[-1].append(person)
        self.last_person = person

    def role(self, word: str) -> None:
        """Someone named by their role ("my dad"): a later pronoun may mean them."""
        if word in ROLES:
            self.recent[-1].append(word)
            self.last_person = None

    def meant(self, pronoun: str) -> Known | None:
        pronoun = pronoun.lower()
        candidates: list[Known | str] = []
        for mentions in self.recent:
            for mention in mentions:
                if _agrees(pronoun, mention) and mention not in candidates:
                    candidates.append(mention)
        if len(candidates) == 1:
            return candidates[0] if isinstance(candidates[0], Known) else None
        if candidates:
            return None  # more than one could be meant
        if self.last_person is not None and _agrees(pronoun, self.last_person):
            return self.last_person
        return None
