"""The keyword query mix of bench/memory_query.py, also sent by bench/load.py.

``make_queries`` draws queries of six kinds (``QUERY_MIX``) from the synthetic household's own
words (``document_frequencies`` of its memories): rare words, mid-frequency words, agent phrasing
full of common words, names, punctuation/URLs/FTS5 operators, and words that match nothing. Each
query comes with the index of the member (in ``MEMBERS``) who asks it.
"""

from __future__ import annotations

import random
import re
from collections import Counter

from synthetic_household import APPOINTMENTS, MEMBERS, RELATIONS, SURNAMES, person, pseudo_word

_TOKEN = re.compile(r"\w+")


def document_frequencies(corpus_items) -> Counter:
    """In how many memories (content and tags) each lower-cased word occurs."""
    df: Counter = Counter()
    for _, fields in corpus_items:
        df.update(
            {t.lower() for t in _TOKEN.findall(fields["content"] + " " + " ".join(fields["tags"]))}
        )
    return df


QUERY_MIX = (
    ("rare 1-2", 20),
    ("mid 3-5", 25),
    ("common words", 15),
    ("name", 15),
    ("punctuation/url", 15),
    ("no match", 10),
)


def make_queries(rng: random.Random, count: int, df: Counter, size: int):
    """``count`` tuples ``(kind, query, member index)``; the word bands scale with ``size``."""
    # Sorted: a Counter built from sets has a per-process order (string hashing is randomised).
    words = sorted(w for w in df if not w.isdigit() and len(w) >= 3)
    rare = [w for w in words if df[w] <= max(3, size // 20000)]
    mid = [w for w in words if size * 0.001 <= df[w] <= size * 0.02]
    common = [w for w in words if df[w] >= size * 0.1]
    topic = [w for w in words if size * 0.0005 <= df[w] <= size * 0.05 and w not in common]
    kinds = [name for name, share in QUERY_MIX for _ in range(share)]
    queries = []
    for _ in range(count):
        kind = rng.choice(kinds)
        if kind == "rare 1-2":
            query = " ".join(rng.sample(rare, rng.choice((1, 2))))
        elif kind == "mid 3-5":
            query = " ".join(rng.sample(mid, rng.randint(3, 5)))
        elif kind == "common words":
            t1, t2 = rng.sample(topic, 2)
            query = rng.choice(
                (
                    f"what did we decide about the {t1} and {t2}",
                    f"{rng.choice(MEMBERS)} {t1} appointment next week",
                    f"when is the {t1} for {person(rng)}",
                    f"the {t1} {t2} that we have to do before {rng.choice(('friday', 'christmas', 'june'))}",
                    f"{t1} {t2} {rng.choice(common)} {rng.choice(common)}",
                )
            )
        elif kind == "name":
            p = person(rng)
            query = rng.choice(
                (
                    p,
                    f"{p} {rng.choice(SURNAMES)}",
                    f"{p} birthday",
                    f"{rng.choice(MEMBERS)} {rng.choice(APPOINTMENTS)}",
                    f"{p} {rng.choice(RELATIONS)} phone number",
                )
            )
        elif kind == "punctuation/url":
            t1, t2, t3 = rng.sample(topic, 3)
            p = person(rng)
            query = rng.choice(
                (
                    f"follow-up: {p}'s {rng.choice(APPOINTMENTS)} appointment (re-scheduled?)",
                    f"see https://docs.example.org/{t1}/{t2}?q=1&x=2 for the {t1}-{t3} notes",
                    f"{t1}/{t2} — e-mail {p.lower()}@example.com; C++ & node.js!!",
                    f'"{t1}" AND NOT {t2}* (col:{t3}) ^{p} NEAR({t1} {t2})',
                    f"#{t1} @{rng.choice(MEMBERS)} [{t2}] {{x}} <b>{t3}</b> wi-fi",
                )
            )
        else:
            query = rng.choice(
                (
                    f"xq{pseudo_word(rng, 2)} zv{pseudo_word(rng, 1)}",
                    f"qx{pseudo_word(rng, 3)}",
                    f"xq{pseudo_word(rng, 2)} zz{pseudo_word(rng, 2)} qj{pseudo_word(rng, 1)}",
                    "?? -- !! a b",
                )
            )
        queries.append((kind, query, rng.randrange(len(MEMBERS))))
    return queries
