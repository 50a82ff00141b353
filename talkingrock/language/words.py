"""How common a word is in English at large: wordfreq's figures (a Zipf value, the base-10
logarithm of a word's uses per billion words: "the" 7.7, "need" 6.0, "roof" 4.6, "pacemaker"
3.0, an unknown word 0).

A member's own index says how often *they* use a word; it cannot say how telling a word they
never used is. "need" or "client", missing from everything they said, is a word they put
another way; "pacemaker", missing, is a thing never mentioned."""

from __future__ import annotations

from functools import lru_cache

from wordfreq import zipf_frequency

# Above this Zipf value (ten uses per million words) a word is everyday English.
EVERYDAY = 4.0
# The most a word can tell: Zipf 9 would be a word that is every word.
ALL_WORDS = 9.0


@lru_cache(maxsize=65536)
def zipf(word: str) -> float:
    return zipf_frequency(word, "en")


def telling(word: str) -> float:
    """How much a word tells, between 0 and 1: 1 for any word rarer than everyday English, down
    to 0 for the commonest ("the"), in proportion to how much more often it is used."""
    common = zipf(word)
    if common <= EVERYDAY:
        return 1.0
    return max(0.0, (ALL_WORDS - common) / (ALL_WORDS - EVERYDAY))
