"""Benchmark of ``memory_query`` end to end, and of the store rate (issue 2, "Measure").

Usage (from the project root; ``make bench`` runs the defaults)::

    .venv/bin/python bench/memory_query.py [--sizes 10000 100000] [--queries 200] [--seed N]
        [--profile] [--keep] [--reuse DIR] [--variant NAME] [--json FILE]
        [--autocommit-sample 2000] [--batch 1000]

For every size the script starts a child process with a fresh temporary ``TALKINGROCK_DATA_DIR``
(removed afterwards unless ``--keep``), so the real settings, backend (pysqlite3 + sqlite-vec, WAL,
IMMEDIATE transactions) and migrations are used, and nothing touches ``var/``. The child:

1. runs ``migrate`` quietly and creates four members;
2. generates N household-like memories from the seed (no data files): people, appointments,
   places, projects, preferences, decisions and household facts, with detail clauses drawn from a
   Zipf–Mandelbrot vocabulary of 6,000 words (real function and household words at the head,
   generated pseudo-words in the tail), tags, sources, ``created_at`` spread over two years
   before the day of the run, some reinforced/demoted scores, a few archived and draft rows.
   Members hold 40/30/20/10 % of the memories;
3. stores them one ``memories.services.memory_store`` call each (the FTS5 triggers fire on every
   insert): all but the last ``--autocommit-sample`` in ``transaction.atomic()`` batches of
   ``--batch``, the rest in autocommit (one transaction per memory, as the tool API does);
4. warms up (40 queries), then runs ``--queries`` mixed queries (rare words, mid-frequency words,
   agent phrasing with common words, names, punctuation/hyphens/URLs/FTS operators, nothing to
   match), each for a random member, through
   ``talkingrock.tools.call_tool(user, "memory_query", query=..., limit=5)`` and prints
   p50/p95/p99/max overall and per kind of query, with the mean number of FTS matches;
5. with ``--profile``: times the phases separately (sanitise, the ranking SQL alone, the ORM
   fetch), prints ``EXPLAIN QUERY PLAN`` and times alternative versions of the ranking SQL on the
   same queries (copies kept in this file, run on a ``VACUUM INTO`` copy of the database, before
   and after an FTS ``'optimize'``), with how much of the current top 5 they keep and a relevance
   proxy (the share of the query's content words found in the results).

``--variant NAME`` replaces ``memories.search.keyword_search`` inside the benchmark process by one
of the prototypes below, to measure it end to end; ``memories/search.py`` is never changed.
``--reuse DIR`` runs the query phase again on a database kept with ``--keep`` (one size only).
Timestamps follow the day of the run; texts and queries depend only on ``--seed``.
"""

from __future__ import annotations

import argparse
import bisect
import itertools
import json
import math
import os
import platform
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MEMBERS = ("maya", "tom", "priya", "leo")
MEMBER_SHARE = (0.4, 0.3, 0.2, 0.1)
# Timestamps are relative to the day of the run, so recency factors look like a live household's.
NOW = datetime.now(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
VOCABULARY_SIZE = 6000

# --- vocabulary ------------------------------------------------------------------------------

FUNCTION_WORDS = """the and to of a in is for on at with that it be was we he she they our his her
their this from by are not but or as have has will after before about every next last when up out
so if all no more new one two can should would also only then than into over back still just now
again each some other there which what who how been were had do does did its them us him me my
your you get got make made said say see go going went need needs want like use used keep kept
take much many most very well first same both any because while until during between since""".split()

CONTENT_WORDS = """appointment dentist doctor school teacher homework birthday party present cake
garden kitchen bathroom bedroom garage roof boiler heating radiator window door key keys lock
car bike train bus ticket passport holiday flight hotel booking insurance bank account mortgage
rent bill bills electricity water gas internet router wifi password laptop phone tablet printer
charger battery shopping groceries milk bread eggs cheese butter coffee tea sugar flour rice pasta
tomatoes onions garlic potatoes apples bananas chicken fish vegetarian vegan allergy allergic
peanuts gluten lactose medicine prescription pharmacy vaccine vet dog cat hamster fish tank walk
football swimming piano guitar violin lessons club practice match training gym yoga running race
marathon project deadline meeting client invoice report presentation budget plan plans decision
decided agreed prefer prefers favourite dislikes hates loves likes recipe dinner lunch breakfast
weekend morning evening night monday tuesday wednesday thursday friday saturday sunday january
february march april may june july august september october november december spring summer autumn
winter christmas easter anniversary wedding funeral visit visiting grandma grandpa aunt uncle
cousin neighbour neighbours friend friends colleague boss nanny babysitter plumber electrician
builder cleaner gardener mechanic garage service mot tyres oil paint wallpaper shelves curtains
sofa table chairs bed mattress pillow blanket washing machine dishwasher fridge freezer oven
microwave kettle toaster vacuum hoover bin bins recycling compost collection council tax parking
permit library books reading book club film cinema theatre concert tickets museum zoo park beach
camping tent caravan cottage village town city station airport hospital clinic surgery practice
nurse therapist physio optician glasses lenses braces tooth teeth check checkup results scan blood
pressure diet exercise sleep headache cold flu fever cough rash ear eye knee back shoulder
subscription netflix spotify streaming tv remote console games homework maths science history
english french spanish art music drama exam exams revision grades report parents evening uniform
shoes coat jacket boots umbrella bag backpack lunchbox bottle water pension savings loan credit
card receipt warranty guarantee refund return order delivery parcel courier post letter email
form forms application renewal expires expiry deadline reminder remind call phone number address
postcode street road lane avenue close drive house flat loft cellar shed fence gate hedge lawn
mower hose plants flowers roses tomatoes herbs seeds compost greenhouse pond bird feeder chickens
budgeting spreadsheet taxes accountant payslip salary raise promotion interview job contract
notice leave sick holiday allowance commute office remote hybrid desk monitor keyboard mouse
software update backup cloud photos album printer ink paper stamps envelope gift wrapping card
""".split()

PEOPLE = """Alice Ben Chloe Daniel Ella Finn Grace Harry Isla Jack Kate Liam Mia Noah Olivia Oscar
Poppy Quinn Ruby Sam Theo Uma Victor Willow Xander Yasmin Zoe Amir Bea Carlos Dina Emil Fatima
George Hana Ivan Jonas Keiko Lars Marta Nadia Omar Pia Rosa Sven Tariq Ursula Vera Wen Yusuf
Anika Bruno Celine Dev Esme Farid Gemma Hugo Ines Joel Kofi Lena Milo Nina Otto Paula Rafael
Sofia Tom Ulla Vikram Wanda Yara Zack Agnes Basil Clara Dmitri""".split()

SURNAMES = """Smith Jones Patel Okafor Nguyen Garcia Muller Rossi Kowalski Haddad Tanaka Silva
Murphy Brown Wilson Taylor Khan Ahmed Novak Larsen Costa Dubois Fischer Romano Yilmaz Chen Kim
Singh Evans Walker Hughes Green Hall Wood Clarke Lewis Price Bennett Fraser Reid""".split()

RELATIONS = """sister brother mother father aunt uncle cousin grandmother grandfather friend
colleague neighbour godmother godfather niece nephew""".split()

PLACES = """Riverside Elm Oakwood Hillcrest Meadowbank Kingsway Harbour Victoria Station Market
Castle Abbey Bridge Mill Orchard Greenfield Northgate Southbank Westfield Eastbrook Parkside
Brookside Ashford Belmont Camden Denholm Fairview Glenmore Hawthorn Ivybridge Juniper Larkspur
Millbrook Newhaven Pinewood Redhill Stonebridge Thornbury Willowdale""".split()

TITLES = ("Dr", "Dr", "Mrs", "Mr", "Ms", "Prof")
APPOINTMENTS = """dentist doctor optician physio vet hairdresser orthodontist dermatologist
therapist mechanic accountant solicitor""".split()
ROOMS = ("kitchen", "loft", "garage", "hallway", "study", "living room", "spare room", "shed")
SOURCES = (("agent", 50), ("conversation", 25), ("extraction", 15), ("manual", 8), ("migration", 2))

_ONSETS = "b br c ch d dr f fl g gr h j k kl l m n p pl pr qu r s sh sk st t th tr v w z".split()
_VOWELS = "a e i o u ai ea oo ou ie".split()
_CODAS = ["", "", "n", "r", "s", "l", "t", "nd", "st", "ck", "m", "x", "rt"]


def pseudo_word(rng: random.Random, syllables: int) -> str:
    return "".join(
        rng.choice(_ONSETS) + rng.choice(_VOWELS) + rng.choice(_CODAS) for _ in range(syllables)
    )


class Vocabulary:
    """A Zipf–Mandelbrot distribution over function words, household words and pseudo-words."""

    def __init__(self, rng: random.Random, size: int = VOCABULARY_SIZE, s: float = 1.05):
        content = list(dict.fromkeys(CONTENT_WORDS))
        known = set(FUNCTION_WORDS) | set(content)
        pseudo: list[str] = []
        seen = set(known)
        while len(FUNCTION_WORDS) + len(content) + len(pseudo) < size:
            word = pseudo_word(rng, rng.choice((2, 2, 2, 3)))
            if word not in seen and len(word) >= 4:
                seen.add(word)
                pseudo.append(word)
        # Household words lean towards the head, pseudo-words (names of things, jargon) to the tail.
        head = content + pseudo[: len(content)]
        rng.shuffle(head)
        tail = pseudo[len(content) :]
        self.words = list(FUNCTION_WORDS) + head + tail
        weights = [1.0 / (rank + 2.7) ** s for rank in range(len(self.words))]
        total = 0.0
        self.cumulative = []
        for weight in weights:
            total += weight
            self.cumulative.append(total)
        self.total = total
        self.household = content[:]
        rng.shuffle(self.household)
        self.household_cumulative = list(
            itertools.accumulate(1.0 / (rank + 1.5) for rank in range(len(self.household)))
        )
        self.household_total = self.household_cumulative[-1]

    def word(self, rng: random.Random) -> str:
        index = bisect.bisect_left(self.cumulative, rng.random() * self.total)
        return self.words[min(index, len(self.words) - 1)]

    def content_word(self, rng: random.Random) -> str:
        while (word := self.word(rng)) in FUNCTION_WORDS:
            pass
        return word

    def household_word(self, rng: random.Random) -> str:
        """A slot filler: mostly a real household word, sometimes a tail word (a brand, a name)."""
        if rng.random() < 0.7:
            index = bisect.bisect_left(
                self.household_cumulative, rng.random() * self.household_total
            )
            return self.household[min(index, len(self.household) - 1)]
        return self.content_word(rng)

    def clause(self, rng: random.Random, low: int, high: int) -> str:
        words = [self.word(rng) for _ in range(rng.randint(low, high))]
        return " ".join(words).capitalize() + "."


# --- memories --------------------------------------------------------------------------------


MONTHS = (
    "January February March April May June July August September October November December".split()
)


def _date(rng: random.Random) -> str:
    return f"{rng.randint(1, 28)} {rng.choice(MONTHS)}"


def _time(rng: random.Random) -> str:
    return f"{rng.randint(7, 19)}:{rng.choice(('00', '15', '30', '45'))}"


def _person(rng: random.Random) -> str:
    return rng.choice(PEOPLE)


class Corpus:
    """Deterministic household memories for four members."""

    def __init__(self, seed: int):
        self.rng = random.Random(seed)
        self.vocab = Vocabulary(random.Random(seed + 1))
        self.projects = [
            f"{pseudo_word(self.rng, 2).title()} {self.rng.choice(('renovation', 'trip', 'move', 'plan', 'app', 'fund', 'party'))}"
            for _ in range(60)
        ]

    def text(self, member: str) -> tuple[str, list[str]]:
        rng, v = self.rng, self.vocab
        m = member.title()
        p, q = _person(rng), _person(rng)
        kind = rng.choices(
            ("person", "appointment", "place", "project", "preference", "decision", "fact", "tech"),
            weights=(14, 16, 10, 14, 14, 12, 14, 6),
        )[0]
        w1, w2, w3 = v.household_word(rng), v.household_word(rng), v.household_word(rng)
        if kind == "person":
            relation = rng.choice(RELATIONS)
            text = rng.choice(
                (
                    f"{p} {rng.choice(SURNAMES)} is {m}'s {relation}; birthday on {_date(rng)}.",
                    f"{p}'s new phone number is 07{rng.randint(100, 999)} {rng.randint(100000, 999999)}.",
                    f"{p} and {q} are coming to stay in {rng.choice(('spring', 'summer', 'autumn', 'winter'))}; {p} is allergic to {w1}.",
                    f"{m} met {p} {rng.choice(SURNAMES)} at the {w1} {rng.choice(('club', 'group', 'meeting', 'party'))}; {p} works in {w2}.",
                )
            )
            tags = [p.lower(), relation, "people"]
        elif kind == "appointment":
            appt = rng.choice(APPOINTMENTS)
            doctor = f"{rng.choice(TITLES)} {rng.choice(SURNAMES)}"
            text = rng.choice(
                (
                    f"{m} has a {appt} appointment with {doctor} at {rng.choice(PLACES)} on {_date(rng)} at {_time(rng)}.",
                    f"{appt.title()} for {p} moved to {_date(rng)}, {_time(rng)}; bring the {w1} and the {w2}.",
                    f"Next {appt} check-up for {m} is due in {rng.randint(2, 12)} months; {doctor} prefers mornings.",
                )
            )
            tags = [appt, "appointment", member]
        elif kind == "place":
            place = rng.choice(PLACES)
            text = rng.choice(
                (
                    f"The {w1} shop on {place} Road closes at {_time(rng)} on {rng.choice(('Sundays', 'Saturdays', 'Mondays'))}.",
                    f"{place} {rng.choice(('Park', 'Library', 'Surgery', 'Station', 'Market'))} has free parking after {_time(rng)}; the {w1} entrance is round the back.",
                    f"{m} likes the {w1} café in {place}; ask for the table by the {w2}.",
                )
            )
            tags = [place.lower(), "places"]
        elif kind == "project":
            project = rng.choice(self.projects)
            text = rng.choice(
                (
                    f"Project {project}: {m} will {rng.choice(('order', 'fix', 'book', 'paint', 'sort', 'plan'))} the {w1} before {_date(rng)}; budget £{rng.randint(50, 5000)}.",
                    f"{project} status: {w1} done, {w2} waiting on {p}, {w3} not started.",
                    f"For the {project}, {p} recommended {rng.choice(SURNAMES)} {w1} (quote £{rng.randint(100, 9000)}).",
                )
            )
            tags = [project.split()[0].lower(), "project", w1]
        elif kind == "preference":
            text = rng.choice(
                (
                    f"{m} prefers {w1} over {w2} and dislikes {w3}.",
                    f"{m}'s favourite {rng.choice(('dinner', 'breakfast', 'snack', 'film', 'game', 'book'))} is {w1} with {w2}.",
                    f"{m} does not eat {w1}; {p} is vegetarian.",
                )
            )
            tags = ["preference", member, w1]
        elif kind == "decision":
            text = rng.choice(
                (
                    f"Decided: {m} and {p} will share the {w1} on {rng.choice(('weekdays', 'weekends', 'alternate weeks'))}.",
                    f"We agreed the {w1} budget is £{rng.randint(20, 800)} a month from {_date(rng)}.",
                    f"Decision: no more {w1} until the {w2} is paid off.",
                )
            )
            tags = ["decision", w1]
        elif kind == "fact":
            text = rng.choice(
                (
                    f"The {w1} warranty expires in {_date(rng)} {rng.randint(2026, 2030)}; receipt is in the {rng.choice(ROOMS)} drawer.",
                    f"Spare {w1} keys are with {p} at number {rng.randint(1, 120)}.",
                    f"The {w1} needs servicing every {rng.randint(2, 24)} months; last done by {p} {rng.choice(SURNAMES)}.",
                    f"Bin collection: {w1} and recycling on {rng.choice(('Monday', 'Tuesday', 'Thursday'))}s, garden waste fortnightly.",
                )
            )
            tags = [w1, "house"]
        else:
            text = rng.choice(
                (
                    f"Wi-Fi password for the {rng.choice(ROOMS)} router is on the card in the {w1} box.",
                    f"{m}'s laptop backup runs to the {w1} drive every {rng.choice(('night', 'Sunday', 'week'))}; see https://{w2}.example.net/{w3}.",
                    f"The {w1} app login uses {m.lower()}.{p.lower()}@example.org; 2FA on {m}'s phone.",
                )
            )
            tags = ["tech", w1]
        extra = rng.choices((0, 1, 2), weights=(35, 45, 20))[0]
        for _ in range(extra):
            text += " " + v.clause(rng, 4, 12)
        return text, tags

    def memories(self, count: int, now: datetime):
        """Yield (member, store kwargs) in creation order, oldest first."""
        rng = self.rng
        span = 730 * 86400
        # More memories lately: a household uses the assistant more once it is useful.
        ages = sorted((span * (1 - rng.random() ** 0.8) for _ in range(count)), reverse=True)
        source_names, source_weights = zip(*SOURCES, strict=True)
        for age in ages:
            member = rng.choices(MEMBERS, weights=MEMBER_SHARE)[0]
            text, tags = self.text(member)
            created = now - timedelta(seconds=age)
            fields = {
                "content": text,
                "tags": tags + [self.vocab.content_word(rng)] * rng.choice((0, 0, 1)),
                "source": rng.choices(source_names, weights=source_weights)[0],
                "created_at": created,
            }
            roll = rng.random()
            if roll < 0.14:  # reinforced 1-5 times, recency clock restarted
                times = rng.choice((1, 1, 1, 2, 2, 3, 5))
                fields["score"] = 3 * times - (rng.random() < 0.2)
                fields["hit_count"] = times
                fields["last_hit_at"] = created + (now - created) * rng.random()
            elif roll < 0.22:  # demoted
                fields["score"] = -rng.choice((1, 1, 1, 2, 3, 5))
            if rng.random() < 0.015:
                fields["archived_at"] = created + (now - created) * rng.random()
            elif rng.random() < 0.01:
                fields["status"] = "draft"
            yield member, fields


_TOKEN = re.compile(r"\w+")


def document_frequencies(corpus_items) -> Counter:
    df: Counter = Counter()
    for _, fields in corpus_items:
        df.update(
            {t.lower() for t in _TOKEN.findall(fields["content"] + " " + " ".join(fields["tags"]))}
        )
    return df


# --- queries ---------------------------------------------------------------------------------

QUERY_MIX = (
    ("rare 1-2", 20),
    ("mid 3-5", 25),
    ("common words", 15),
    ("name", 15),
    ("punctuation/url", 15),
    ("no match", 10),
)


def make_queries(rng: random.Random, count: int, df: Counter, size: int, corpus: Corpus):
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
                    f"when is the {t1} for {_person(rng)}",
                    f"the {t1} {t2} that we have to do before {rng.choice(('friday', 'christmas', 'june'))}",
                    f"{t1} {t2} {rng.choice(common)} {rng.choice(common)}",
                )
            )
        elif kind == "name":
            p = _person(rng)
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
            p = _person(rng)
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


# --- measurements ----------------------------------------------------------------------------


def percentile(values: list[float], pct: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return math.nan
    k = (len(ordered) - 1) * pct / 100
    low, high = math.floor(k), math.ceil(k)
    return ordered[low] + (ordered[high] - ordered[low]) * (k - low)


def summary(values: list[float]) -> dict:
    return {
        "n": len(values),
        "p50": percentile(values, 50),
        "p95": percentile(values, 95),
        "p99": percentile(values, 99),
        "max": max(values) if values else math.nan,
        "mean": statistics.fmean(values) if values else math.nan,
    }


def timed(function, *args, **kwargs):
    start = time.perf_counter()
    result = function(*args, **kwargs)
    return (time.perf_counter() - start) * 1000, result


def machine_facts() -> dict:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT sqlite_version(), vec_version()")
        sqlite_version, vec_version = cursor.fetchone()
    import django

    cpu_model = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu_model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "cpu_count": os.cpu_count(),
        "cpu_model": cpu_model,
        "python": platform.python_version(),
        "django": django.get_version(),
        "driver": connection.Database.__name__,
        "sqlite": sqlite_version,
        "sqlite_vec": vec_version,
        "platform": platform.platform(),
    }


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


# --- alternatives of the ranking SQL (copies; memories/search.py is not changed) --------------

# B: the same ranking, but bm25() is evaluated after the owner filter instead of for every FTS
#    match of every member: a plain CROSS JOIN (FTS first, pinned by CROSS JOIN) with the whole
#    computation in one SELECT. Same rows, same order.
OWNER_FIRST_QUERY = """
SELECT id, bm25, score_weight, 1.0 / (1 + days * ?) AS recency, days,
       bm25 * score_weight / (1 + days * ?) AS rank
FROM (
    SELECT m.id AS id, -bm25(memory_fts, ?, ?, ?) AS bm25,
           exp(m.score * ?) AS score_weight,
           max(julianday(?) - julianday(coalesce(m.last_hit_at, m.created_at)), 0) AS days
    FROM memory_fts CROSS JOIN memories_memory AS m ON m.id = memory_fts.rowid
    WHERE memory_fts MATCH ? AND m.owner_id = ? AND m.status = 'confirmed' {archived_filter}
)
ORDER BY rank DESC, id DESC
LIMIT ?
"""


def owner_first_sql(include_archived: bool = False) -> str:
    return OWNER_FIRST_QUERY.format(
        archived_filter="" if include_archived else "AND m.archived_at IS NULL"
    )


def owner_first_params(terms, owner_id: int, now_text: str, limit: int) -> list:
    from memories import search

    return [
        search.RECENCY_PER_DAY,
        search.RECENCY_PER_DAY,
        *search.BM25_WEIGHTS,
        search.SCORE_FACTOR,
        now_text,
        " OR ".join(f'"{t}"' for t in terms),
        owner_id,
        limit,
    ]


# The probe behind the common-term variants: how many rows a term matches, counted only up to
# the cap, so a term in 60 % of the rows costs ~0.2 ms to recognise rather than a full scan.
_PROBE = "(SELECT count(*) FROM (SELECT 1 FROM memory_fts WHERE memory_fts MATCH ? LIMIT ?))"


# A conventional English stop-word list, for comparison only: seed 001 rules static lists out.
STOP_WORDS = frozenset(
    """a about above after again against all am an and any are as at be because been before
    being below between both but by can could did do does doing down during each few for from
    further had has have having he her here hers him his how i if in into is it its just me more
    most my no nor not now of off on once only or other our ours out over own same she should so
    some such than that the their them then there these they this those through to too under
    until up very was we were what when where which while who whom why will with would you your""".split()
)


def drop_stop_words(terms: tuple[str, ...]) -> tuple[str, ...]:
    kept = tuple(t for t in terms if t.casefold() not in STOP_WORDS)
    return kept or terms


def drop_common_terms(cursor, terms: tuple[str, ...], share: float) -> tuple[str, ...]:
    """Keep the terms that match at most ``share`` of the rows; all of them if none does.

    FTS5's bm25 gives such a term an IDF of log((N − n + ½)/(n + ½)): ≤ 2.2 at 10 % of the rows,
    clamped to 1e-6 above 50 %, against 7–9 for the rare words that decide the ranking. They add
    little to the order and almost all of the cost (every matching row is scored).
    """
    if len(terms) < 2:
        return terms
    cursor.execute("SELECT max(id) FROM memories_memory")
    rows = cursor.fetchone()[0] or 0
    cap = max(int(rows * share), 1)
    params: list = []
    for term in terms:
        params += [f'"{term}"', cap + 1]
    cursor.execute("SELECT " + ", ".join([_PROBE] * len(terms)), params)
    counts = cursor.fetchone()
    kept = tuple(t for t, n in zip(terms, counts, strict=True) if n <= cap)
    return kept or terms


def budget_terms(cursor, terms: tuple[str, ...], budget: int) -> tuple[str, ...]:
    """Keep the rarest terms while their summed match counts stay within ``budget`` rows.

    The rarest term is always kept. A query whose words are all specific keeps every word; only
    broad queries (common words) are narrowed, and only as far as the cost requires. The cost of
    the ranking is proportional to the rows it scores, so this bounds it at any database size.
    """
    if len(terms) < 2:
        return terms
    params: list = []
    for term in terms:
        params += [f'"{term}"', budget + 1]
    cursor.execute("SELECT " + ", ".join([_PROBE] * len(terms)), params)
    counts = cursor.fetchone()
    kept: set[int] = set()
    total = 0
    for index in sorted(range(len(terms)), key=lambda i: counts[i]):
        if kept and total + counts[index] > budget:
            break
        kept.add(index)
        total += counts[index]
    return tuple(term for index, term in enumerate(terms) if index in kept)


def alternatives() -> dict:
    """name → function(raw cursor, owner_id, terms, now_text, limit) → ranked ids."""
    from memories import search

    current_sql = search._keyword_sql(include_archived=False).replace("%s", "?").replace("%%", "%")

    def match_of(terms):
        return " OR ".join(f'"{t}"' for t in terms)

    def current(cursor, owner_id, terms, now_text, limit):
        params = search._keyword_params(match_of(terms), owner_id, NOW, limit)
        return [row[0] for row in cursor.execute(current_sql, params)]

    def owner_first(cursor, owner_id, terms, now_text, limit):
        cursor.execute(owner_first_sql(), owner_first_params(terms, owner_id, now_text, limit))
        return [row[0] for row in cursor.fetchall()]

    def narrowing(ranker, narrow):
        """Run ``ranker`` on the terms ``narrow`` keeps; count the queries it narrowed."""

        def run(cursor, owner_id, terms, now_text, limit):
            kept = narrow(cursor, terms)
            run.last = kept != terms
            run.narrowed += run.last
            return ranker(cursor, owner_id, kept, now_text, limit)

        run.narrowed, run.last = 0, False
        return run

    def without_common(ranker, share):
        return narrowing(ranker, lambda cursor, terms: drop_common_terms(cursor, terms, share))

    def within_budget(ranker, budget):
        return narrowing(ranker, lambda cursor, terms: budget_terms(cursor, terms, budget))

    return {
        "A current (materialised CTE, bm25 for every match)": current,
        "B bm25 after the owner filter (plain CROSS JOIN)": owner_first,
        "S = B, English stop words dropped": narrowing(
            owner_first, lambda cursor, terms: drop_stop_words(terms)
        ),
        "C = B, terms in > 10 % of rows dropped": without_common(owner_first, 0.10),
        "C = B, terms in > 5 % of rows dropped": without_common(owner_first, 0.05),
        "D = B, rarest terms within 10,000 matches": within_budget(owner_first, 10_000),
        "D = B, rarest terms within 5,000 matches": within_budget(owner_first, 5_000),
        "D = B, rarest terms within 2,500 matches": within_budget(owner_first, 2_500),
    }


PROTOTYPES = {  # name → how the terms are narrowed before the owner-first query
    "current": None,
    "owner-first": lambda cursor, terms: terms,
    "owner-first+budget5000": lambda cursor, terms: budget_terms(cursor, terms, 5_000),
    "owner-first+budget10000": lambda cursor, terms: budget_terms(cursor, terms, 10_000),
    "owner-first+stopwords": lambda cursor, terms: drop_stop_words(terms),
}


def install_prototype(name: str) -> None:
    """Replace ``memories.search.keyword_search`` in this process only, to measure end to end.

    The service calls it with the sanitised MATCH expression ("a" OR "b" ...); the prototype
    recovers the terms from it, optionally narrows them to the match budget, and runs the
    owner-first query. Nothing on disk changes.
    """
    if name == "current":
        return
    from django.db import connection

    from memories import search

    narrow = PROTOTYPES[name]

    def keyword_search(*, owner_id, match, limit, include_archived, now):
        if not match:
            return []
        terms = tuple(term[1:-1] for term in match.split(" OR "))
        with connection.cursor() as cursor:
            terms = narrow(cursor, terms)
            cursor.execute(
                owner_first_sql(include_archived),
                owner_first_params(terms, owner_id, search._utc_text(now), limit),
            )
            return [search.RankedHit(*row) for row in cursor.fetchall()]

    search.keyword_search = keyword_search


def raw_connection(path: Path):
    """A connection to a copy of the database, configured like the app's (driver, PRAGMAs)."""
    from django.db import connection

    raw = connection.Database.connect(str(path))
    raw.enable_load_extension(True)
    import sqlite_vec

    sqlite_vec.load(raw)
    raw.enable_load_extension(False)
    for pragma in connection.settings_dict["OPTIONS"]["init_command"].split(";"):
        if pragma.strip() and "journal_mode" not in pragma:
            raw.execute(pragma)
    return raw


def coverage(cursor, ids: list[int], terms: tuple[str, ...]) -> float | None:
    """Relevance proxy: the share of the query's content words (stop words aside) that the
    average result contains, as whole words of its content or tags. Same for every variant."""
    if not ids:
        return None
    wanted = {t.casefold() for t in terms if t.casefold() not in STOP_WORDS}
    wanted = wanted or {t.casefold() for t in terms}
    marks = ", ".join("?" * len(ids))
    cursor.execute(f"SELECT content, tags FROM memories_memory WHERE id IN ({marks})", ids)
    shares = []
    for content, tags in cursor.fetchall():
        words = {w.casefold() for w in _TOKEN.findall(f"{content} {tags}")}
        shares.append(len(wanted & words) / len(wanted))
    return statistics.fmean(shares)


def time_alternatives(raw, queries, users, now_text, repeat: int = 1) -> dict:
    from memories import search

    results: dict[str, dict] = {}
    reference: dict[int, list[int]] = {}
    reference_coverage: dict[int, float | None] = {}
    for name, function in alternatives().items():
        times: list[float] = []
        overlap: list[float] = []
        overlap_narrowed: list[float] = []
        covered: list[float] = []
        covered_narrowed: list[float] = []
        same_top1: list[bool] = []
        by_kind: dict[str, list[float]] = {}
        cursor = raw.cursor()
        for index, (kind, query, member_index) in enumerate(queries):
            terms = search.sanitise(query).terms
            if not terms:
                continue
            function(cursor, users[member_index].pk, terms, now_text, 5)  # warm this query
            best = math.inf
            for _ in range(repeat):
                ms, ids = timed(function, cursor, users[member_index].pk, terms, now_text, 5)
                best = min(best, ms)
            times.append(best)
            by_kind.setdefault(kind, []).append(best)
            narrowed = getattr(function, "last", False)
            share = coverage(cursor, ids, terms)
            if name.startswith("A "):
                reference_coverage[index] = share
            if share is not None:
                covered.append(share)
            if narrowed and reference_coverage.get(index) is not None:
                covered_narrowed.append((reference_coverage[index], share or 0.0))
            if name.startswith("A "):
                reference[index] = ids
            elif reference.get(index):
                shared = len(set(ids) & set(reference[index])) / len(reference[index])
                overlap.append(shared)
                same_top1.append(ids[:1] == reference[index][:1])
                if narrowed:
                    overlap_narrowed.append(shared)
        results[name] = {
            "narrowed": getattr(function, "narrowed", 0) / (1 + repeat) / max(len(times), 1),
            "all": summary(times),
            "by_kind": {k: summary(v) for k, v in by_kind.items()},
            "coverage": statistics.fmean(covered) if covered else None,
            "coverage_narrowed": [
                statistics.fmean(a for a, _ in covered_narrowed),
                statistics.fmean(b for _, b in covered_narrowed),
            ]
            if covered_narrowed
            else None,
            "top5_overlap": statistics.fmean(overlap) if overlap else None,
            "top5_overlap_narrowed": statistics.fmean(overlap_narrowed)
            if overlap_narrowed
            else None,
            "same_top1": statistics.fmean(same_top1) if same_top1 else None,
        }
    return results


# --- the child: one size -----------------------------------------------------------------------


def setup_django() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "talkingrock.settings")
    os.environ.setdefault("TALKINGROCK_SECRET_KEY", "bench-not-secret")
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)


def build(size: int, corpus: Corpus, items, args) -> dict:
    from django.contrib.auth import get_user_model
    from django.db import transaction

    from memories import indexing
    from memories.services import memory_store

    # This measures the keyword path; embedding each memory (which would run inline at every
    # commit, with no worker in this process) is measured by bench/recall_latency.py.
    indexing.request_indexing = lambda **kwargs: None
    User = get_user_model()
    users = {name: User.objects.create_user(username=name) for name in MEMBERS}
    sample = min(args.autocommit_sample, size)
    batched_items, autocommit_items = items[: size - sample], items[size - sample :]
    log(f"[{size}] storing {len(batched_items)} in atomic batches of {args.batch} …")
    start = time.perf_counter()
    for offset in range(0, len(batched_items), args.batch):
        with transaction.atomic():
            for member, fields in batched_items[offset : offset + args.batch]:
                memory_store(owner=users[member], **fields)
        if (offset // args.batch) % 20 == 0:
            log(f"[{size}]   {offset + args.batch} stored")
    batched_seconds = time.perf_counter() - start
    log(f"[{size}] storing the last {len(autocommit_items)} in autocommit …")
    start = time.perf_counter()
    for member, fields in autocommit_items:
        memory_store(owner=users[member], **fields)
    autocommit_seconds = time.perf_counter() - start
    return {
        "batched_count": len(batched_items),
        "batched_seconds": batched_seconds,
        "batched_rate": len(batched_items) / batched_seconds if batched_items else math.nan,
        "autocommit_count": len(autocommit_items),
        "autocommit_seconds": autocommit_seconds,
        "autocommit_rate": len(autocommit_items) / autocommit_seconds
        if autocommit_items
        else math.nan,
    }


def fts_counts(cursor, match: str, owner_id: int) -> tuple[int, int]:
    if not match:
        return 0, 0
    cursor.execute("SELECT count(*) FROM memory_fts WHERE memory_fts MATCH %s", [match])
    total = cursor.fetchone()[0]
    cursor.execute(
        "SELECT count(*) FROM memory_fts CROSS JOIN memories_memory AS m ON m.id = memory_fts.rowid "
        "WHERE memory_fts MATCH %s AND m.owner_id = %s AND m.status = 'confirmed' "
        "AND m.archived_at IS NULL",
        [match, owner_id],
    )
    return total, cursor.fetchone()[0]


def run_queries(queries, users) -> list[dict]:
    from django.db import connection

    from memories import search
    from talkingrock.tools import call_tool

    results = []
    for kind, query, member_index in queries:
        user = users[member_index]
        ms, answer = timed(call_tool, user, "memory_query", query=query, limit=5)
        results.append(
            {
                "kind": kind,
                "query": query,
                "ms": ms,
                "hits": len(answer["results"]),
                "user": user.pk,
            }
        )
    with connection.cursor() as cursor:
        for row in results:
            match = search.sanitise(row["query"]).match
            row["fts_total"], row["fts_owner"] = fts_counts(cursor, match, row["user"])
    return results


def profile(queries, users, now, data_dir: Path) -> dict:
    """Phase timings and alternatives, on the same queries, after the end-to-end pass."""
    from django.db import connection
    from django.utils import timezone

    from memories import search
    from memories.models import Memory
    from talkingrock.tools import call_tool

    phases = {"sanitise": [], "sql": [], "orm_fetch": [], "tool end to end": []}
    per_kind_sql: dict[str, list[float]] = {}
    for kind, query, member_index in queries:
        user = users[member_index]
        ms, sanitised = timed(search.sanitise, query)
        phases["sanitise"].append(ms)
        ms, _ = timed(call_tool, user, "memory_query", query=query, limit=5)
        phases["tool end to end"].append(ms)
        if not sanitised.match:
            continue
        ms, rows = timed(
            search.keyword_search,
            owner_id=user.pk,
            match=sanitised.match,
            limit=5,
            include_archived=False,
            now=timezone.now(),
        )
        phases["sql"].append(ms)
        per_kind_sql.setdefault(kind, []).append(ms)
        ms, _ = timed(
            lambda ids: Memory.objects.select_related("act").in_bulk(ids),
            [row.memory_id for row in rows],
        )
        phases["orm_fetch"].append(ms)

    plans = {}
    for kind in ("mid 3-5", "common words"):
        sample = next((q for q in queries if q[0] == kind), None)
        if sample:
            match = search.sanitise(sample[1]).match
            plans[sample[1]] = search.explain_keyword_search(
                owner_id=users[sample[2]].pk, match=match
            )
            with connection.cursor() as cursor:
                cursor.execute(
                    "EXPLAIN QUERY PLAN " + owner_first_sql(),
                    owner_first_params(
                        search.sanitise(sample[1]).terms,
                        users[sample[2]].pk,
                        search._utc_text(now),
                        5,
                    ),
                )
                plans[f"B: {sample[1]}"] = [row[-1] for row in cursor.fetchall()]

    # Alternatives run on a copy, so that the FTS 'optimize' below leaves the kept database as
    # the app left it. Best of three runs per query, after one warm-up run.
    now_text = search._utc_text(now)
    copy = data_dir / "copy.sqlite3"
    copy.unlink(missing_ok=True)
    with connection.cursor() as cursor:
        cursor.execute("VACUUM INTO %s", [str(copy)])
    raw = raw_connection(copy)
    try:
        segments = raw.execute("SELECT count(*) FROM memory_fts_idx").fetchone()[0]
        alt = time_alternatives(raw, queries, users, now_text, repeat=3)
        start = time.perf_counter()
        raw.execute("INSERT INTO memory_fts(memory_fts) VALUES ('optimize')")
        raw.commit()
        optimize_seconds = time.perf_counter() - start
        segments_after = raw.execute("SELECT count(*) FROM memory_fts_idx").fetchone()[0]
        alt_optimized = time_alternatives(raw, queries, users, now_text, repeat=3)
    finally:
        raw.close()
        copy.unlink(missing_ok=True)
    return {
        "phases": {k: summary(v) for k, v in phases.items()},
        "sql_by_kind": {k: summary(v) for k, v in per_kind_sql.items()},
        "plans": plans,
        "alternatives": alt,
        "fts_idx_rows": [segments, segments_after],
        "optimize_seconds": optimize_seconds,
        "alternatives_optimized": alt_optimized,
    }


def child(args) -> None:
    size = args.sizes[0]
    setup_django()
    from django.contrib.auth import get_user_model
    from django.db import connection

    install_prototype(args.variant)
    corpus = Corpus(args.seed)
    log(f"[{size}] generating {size} memories (seed {args.seed}) …")
    items = list(corpus.memories(size, NOW))
    df = document_frequencies(items)
    result: dict = {
        "size": size,
        "seed": args.seed,
        "variant": args.variant,
        "machine": machine_facts(),
    }
    result["load_before"] = os.getloadavg()
    User = get_user_model()
    if User.objects.filter(username__in=MEMBERS).count() == len(MEMBERS):
        log(f"[{size}] reusing the database in {os.environ['TALKINGROCK_DATA_DIR']}")
        result["store"] = None
    else:
        result["store"] = build(size, corpus, items, args)
    users = [User.objects.get(username=name) for name in MEMBERS]
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM memories_memory")
        result["memories"] = cursor.fetchone()[0]
        cursor.execute("SELECT owner_id, count(*) FROM memories_memory GROUP BY owner_id")
        result["per_member"] = dict(cursor.fetchall())
    db_file = Path(os.environ["TALKINGROCK_DATA_DIR"]) / "talkingrock.sqlite3"
    result["db_bytes"] = db_file.stat().st_size

    rng = random.Random(args.seed + size)
    warmup = make_queries(random.Random(args.seed - 1), 40, df, size, corpus)
    queries = make_queries(rng, args.queries, df, size, corpus)
    log(f"[{size}] warming up ({len(warmup)} queries) …")
    run_queries(warmup, users)
    result["load_queries"] = os.getloadavg()
    log(f"[{size}] running {len(queries)} queries …")
    rows = run_queries(queries, users)
    result["queries"] = rows
    result["load_after"] = os.getloadavg()
    if args.profile:
        log(f"[{size}] profiling …")
        result["profile"] = profile(queries, users, NOW, Path(os.environ["TALKINGROCK_DATA_DIR"]))
    Path(args.result_file).write_text(json.dumps(result, default=str))


# --- the parent: orchestration and report -----------------------------------------------------


def fmt(value: float) -> str:
    return (
        "–" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:.2f}"
    )


def pct(value) -> str:
    return "–" if value is None else f"{value:.0%}"


def report(result: dict) -> str:
    lines = []
    size = result["size"]
    rows = result["queries"]
    lines.append(
        f"\n## {size:,} memories  (db {result['db_bytes'] / 1e6:.0f} MB, per member "
        f"{sorted(result['per_member'].values(), reverse=True)})"
    )
    if result.get("variant", "current") != "current":
        lines.append(
            f"PROTOTYPE: memories.search.keyword_search replaced in the benchmark process by "
            f"{result['variant']!r} (memories/search.py unchanged)"
        )
    lines.append(
        "load average (1, 5, 15 min) before / at the query phase / after: "
        + " / ".join(
            "(" + ", ".join(f"{x:.2f}" for x in result[key]) + ")"
            for key in ("load_before", "load_queries", "load_after")
        )
    )
    store = result["store"]
    if store:
        lines.append(
            f"store rate: {store['batched_rate']:,.0f} memories/s in transaction.atomic() "
            f"batches ({store['batched_count']:,} in {store['batched_seconds']:.1f} s); "
            f"{store['autocommit_rate']:,.0f} memories/s autocommit, one transaction each "
            f"({store['autocommit_count']:,} in {store['autocommit_seconds']:.1f} s, last ones stored)"
        )
    header = "| queries | n | p50 ms | p95 ms | p99 ms | max ms | mean FTS matches (all members) | mean matches (member) | mean hits |"
    lines += [header, "|---|---|---|---|---|---|---|---|---|"]
    groups = [("all", rows)] + [
        (kind, [r for r in rows if r["kind"] == kind]) for kind, _ in QUERY_MIX
    ]
    for name, group in groups:
        if not group:
            continue
        s = summary([r["ms"] for r in group])
        lines.append(
            f"| {name} | {s['n']} | {fmt(s['p50'])} | {fmt(s['p95'])} | {fmt(s['p99'])} | "
            f"{fmt(s['max'])} | {statistics.fmean(r['fts_total'] for r in group):,.0f} | "
            f"{statistics.fmean(r['fts_owner'] for r in group):,.0f} | "
            f"{statistics.fmean(r['hits'] for r in group):.1f} |"
        )
    slow = sorted(rows, key=lambda r: -r["ms"])[:5]
    lines.append(
        "slowest: "
        + "; ".join(f"{r['ms']:.1f} ms {r['query']!r} ({r['fts_total']:,} matches)" for r in slow)
    )
    if "profile" in result:
        prof = result["profile"]
        lines.append("\nphases (each query again, separately):")
        lines.append("| phase | n | p50 ms | p95 ms | max ms |")
        lines.append("|---|---|---|---|---|")
        for name, s in prof["phases"].items():
            lines.append(
                f"| {name} | {s['n']} | {fmt(s['p50'])} | {fmt(s['p95'])} | {fmt(s['max'])} |"
            )
        for kind, s in prof["sql_by_kind"].items():
            lines.append(
                f"| sql: {kind} | {s['n']} | {fmt(s['p50'])} | {fmt(s['p95'])} | {fmt(s['max'])} |"
            )
        for query, plan in prof["plans"].items():
            lines.append(f"\nEXPLAIN QUERY PLAN for {query!r}:")
            lines += [f"    {step}" for step in plan]
        for title, key in (
            ("as built", "alternatives"),
            (
                "after INSERT INTO memory_fts(memory_fts) VALUES('optimize')",
                "alternatives_optimized",
            ),
        ):
            lines.append(
                f"\nalternatives of the ranking SQL, SQL only, best of 3 per query, index {title} "
                f"(memory_fts_idx rows {prof['fts_idx_rows'][0 if key == 'alternatives' else 1]}):"
            )
            kinds = [kind for kind, _ in QUERY_MIX if kind != "no match"]
            lines.append(
                "| variant | p50 ms | p95 ms | p99 ms | max ms | "
                + " | ".join(f"{k} p95" for k in kinds)
                + " | top-5 overlap with A | same top-1 | queries narrowed | overlap on those"
                " | content words covered | on narrowed queries, A → variant |"
            )
            lines.append("|---" * (11 + len(kinds)) + "|")
            for name, a in prof[key].items():
                s = a["all"]
                overlap, top1 = a["top5_overlap"], a["same_top1"]
                lines.append(
                    f"| {name} | {fmt(s['p50'])} | {fmt(s['p95'])} | {fmt(s['p99'])} | "
                    f"{fmt(s['max'])} | "
                    + " | ".join(fmt(a["by_kind"].get(k, {}).get("p95")) for k in kinds)
                    + f" | {'–' if overlap is None else f'{overlap:.1%}'}"
                    f" | {'–' if top1 is None else f'{top1:.1%}'} | {a['narrowed']:.0%}"
                    f" | {pct(a['top5_overlap_narrowed'])}"
                    f" | {pct(a['coverage'])} | "
                    + (
                        "–"
                        if a["coverage_narrowed"] is None
                        else " → ".join(pct(x) for x in a["coverage_narrowed"])
                    )
                    + " |"
                )
        lines.append(f"FTS 'optimize' took {prof['optimize_seconds']:.1f} s.")
    return "\n".join(lines)


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--batch", type=int, default=1000, help="memories per atomic batch")
    parser.add_argument(
        "--autocommit-sample",
        type=int,
        default=2000,
        help="the last N memories are stored in autocommit, to report that rate too",
    )
    parser.add_argument("--profile", action="store_true", help="phase timings and alternatives")
    parser.add_argument("--keep", action="store_true", help="keep the temporary data directories")
    parser.add_argument("--reuse", type=Path, help="query a database kept with --keep (one size)")
    parser.add_argument("--json", type=Path, help="also write all results to this JSON file")
    parser.add_argument(
        "--variant",
        choices=sorted(PROTOTYPES),
        default="current",
        help="measure a prototype of keyword_search end to end (patched in the child only)",
    )
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--result-file", help=argparse.SUPPRESS)
    return parser.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)
    if args.child:
        child(args)
        return 0
    if args.reuse and len(args.sizes) != 1:
        sys.exit("--reuse takes exactly one --sizes value")
    results = []
    started = datetime.now(UTC)
    for size in args.sizes:
        data_dir = args.reuse or Path(tempfile.mkdtemp(prefix=f"talkingrock-bench-{size}-"))
        result_file = Path(tempfile.mkstemp(prefix="talkingrock-bench-", suffix=".json")[1])
        command = [
            sys.executable,
            str(Path(__file__).resolve()),
            "--child",
            "--sizes",
            str(size),
            "--queries",
            str(args.queries),
            "--seed",
            str(args.seed),
            "--batch",
            str(args.batch),
            "--autocommit-sample",
            str(args.autocommit_sample),
            "--result-file",
            str(result_file),
            "--variant",
            args.variant,
        ] + (["--profile"] if args.profile else [])
        env = {**os.environ, "TALKINGROCK_DATA_DIR": str(data_dir)}
        env.pop("DJANGO_SETTINGS_MODULE", None)
        try:
            subprocess.run(command, env=env, check=True, cwd=ROOT)
            result = json.loads(result_file.read_text())
        finally:
            result_file.unlink(missing_ok=True)
            if not args.keep and not args.reuse:
                shutil.rmtree(data_dir, ignore_errors=True)
            elif not args.reuse:
                log(f"[{size}] kept {data_dir}")
        results.append(result)
        print(report(result), flush=True)
    machine = results[0]["machine"]
    print(
        f"\nmachine: {machine['cpu_count']} CPUs ({machine['cpu_model']}), Python {machine['python']}, "
        f"Django {machine['django']}, {machine['driver']} with SQLite {machine['sqlite']}, "
        f"sqlite-vec {machine['sqlite_vec']}, {machine['platform']}; started {started:%Y-%m-%d %H:%M} UTC"
    )
    if args.json:
        args.json.write_text(json.dumps(results, indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
