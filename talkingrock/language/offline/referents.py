"""Who "he", "she", "him" and "her" mean: the person most recently named who could be meant,
and only when no one else could be.

A pronoun is given a name when exactly one person named in the clause so far, or in the two
clauses before it, agrees with it (Faker's lists of male and female first names decide, a name on
neither or both agrees with either); failing any, the one who agrees in the nearest earlier clause
that names someone who does. A role ("dad", "the builder") is someone too. When two people could be meant ("talked it
through with dad and Declan … he's staying"), the pronoun is left as it is: a wrong name in a
memory is worse than a pronoun.
"""

from __future__ import annotations

import importlib
from collections import deque
from dataclasses import dataclass, field
from functools import cache

from talkingrock.language.names import LOCALES, ROLES, Known, key

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
HISTORY = 12  # how far back a pronoun may reach for the person it means


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

    clauses: deque = field(default_factory=lambda: deque(maxlen=HISTORY))  # mentions per clause

    def new_clause(self) -> None:
        self.clauses.append([])

    def named(self, person: Known) -> None:
        self.clauses[-1].append(person)

    def role(self, word: str) -> None:
        """Someone named by their role ("my dad"): a later pronoun may mean them."""
        if word in ROLES:
            self.clauses[-1].append(word)

    def meant(self, pronoun: str) -> Known | None:
        """The one person who agrees with ``pronoun`` in this clause and the WINDOW before it;
        failing any, in the nearest earlier clause that names someone who agrees."""
        pronoun = pronoun.lower()
        recent = list(self.clauses)
        groups = [[m for clause in recent[-(WINDOW + 1) :] for m in clause]]
        groups += [clause for clause in reversed(recent[: -(WINDOW + 1)])]
        for mentions in groups:
            candidates = []
            for mention in mentions:
                if _agrees(pronoun, mention) and mention not in candidates:
                    candidates.append(mention)
            if candidates:
                only = candidates[0] if len(candidates) == 1 else None
                return only if isinstance(only, Known) else None
        return None

    def likely(self, pronoun: str | None = None) -> Known | None:
        """A guess where ``meant`` will not commit: the last person named who agrees with the
        pronoun (anyone, for a clause with no subject at all), roles aside. Used only where a
        name is needed to make sense at all (who owes a waiting-on)."""
        for clause in reversed(self.clauses):
            for mention in reversed(clause):
                if isinstance(mention, Known) and (pronoun is None or _agrees(pronoun, mention)):
                    return mention
        return None
