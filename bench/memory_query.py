"""Benchmark of ``memory_query`` end to end, and of the store rate (issue 2, "Measure").

Usage (from the project root; ``make bench`` runs the defaults)::

    .venv/bin/python bench/memory_query.py [--sizes 10000 100000] [--queries 200] [--seed N]
        [--batch 1000] [--autocommit-sample 2000] [--keep] [--reuse DIR] [--profile]
        [--json FILE]

For every size the script starts a child process with a fresh temporary ``TALKINGROCK_DATA_DIR``
(removed afterwards unless ``--keep``), so the real settings, backend (pysqlite3 + sqlite-vec, WAL,
IMMEDIATE transactions) and migrations are used, and nothing touches ``var/``. The child:

1. runs ``migrate`` quietly and creates four members, each with their own keyword index
   (``memory_fts_<owner id>``, see ``memories/sql.py``);
2. generates N household-like memories from the seed (no data files): people, appointments,
   places, projects, preferences, decisions and household facts, with detail clauses drawn from a
   Zipf–Mandelbrot vocabulary of 6,000 words (real function and household words at the head,
   generated pseudo-words in the tail), tags, sources, ``created_at`` spread over two years
   before the day of the run, some reinforced/demoted scores, a few archived and draft rows.
   Members hold 40/30/20/10 % of the memories;
3. stores them one ``memories.services.memory_store`` call each (the owner's FTS5 trigger fires
   on every insert): all but the last ``--autocommit-sample`` in ``transaction.atomic()`` batches
   of ``--batch``, the rest in autocommit (one transaction per memory, as the tool API does);
4. warms up (40 queries), then runs ``--queries`` mixed queries (rare words, mid-frequency words,
   agent phrasing with common words, names, punctuation/hyphens/URLs/FTS operators, nothing to
   match), each for a random member, through
   ``talkingrock.tools.call_tool(user, "memory_query", query=..., limit=5)`` and prints
   p50/p95/p99/max overall and per kind of query, with the mean number of rows the member's own
   index matches for all the query's words and for the words kept within the match budget
   (``search.within_budget``: the rows the ranking SQL walks);
5. with ``--profile``: runs the same queries again, timing the phases of
   ``memories.services.memory_query`` separately (sanitise, the budget probe, the ranking SQL,
   the ORM fetch), and prints the ``EXPLAIN QUERY PLAN`` of ``search.explain_keyword_search``.

``--reuse DIR`` runs the query phase again on a database kept with ``--keep`` (one size only).
The report starts with the command, the date and the load average. Timestamps follow the day of
the run; texts and queries depend only on ``--seed``. ``bench/recall_latency.py`` and
``bench/load.py`` import the household generator from here.
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
import shlex
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


def fts_counts(cursor, terms: tuple[str, ...], owner_id: int) -> tuple[int, int]:
    """Rows of the member's own index that match all the query's words, and the words kept within
    the match budget: the rows the ranking SQL walks (drafts and archived rows included)."""
    from memories import search, sql

    table = sql.member_fts(owner_id)
    counts = []
    for words in (terms, search.within_budget(terms, owner_id=owner_id)[0]):
        if not words:
            counts.append(0)
            continue
        match = search.match_expression(words)
        cursor.execute(f"SELECT count(*) FROM {table} WHERE {table} MATCH %s", [match])
        counts.append(cursor.fetchone()[0])
    return counts[0], counts[1]


def run_queries(queries, users) -> list[dict]:
    from django.db import connection

    from memories import search
    from talkingrock.tools import call_tool

    results = []
    for kind, query, member_index in queries:
        user = users[member_index]
        ms, answer = timed(call_tool, user, "memory_query", query=query, limit=5)
        hits = len(answer["results"])
        results.append({"kind": kind, "query": query, "ms": ms, "hits": hits, "user": user.pk})
    # Counted after the timed pass, so that counting warms nothing for a query still to come.
    with connection.cursor() as cursor:
        for row in results:
            terms = search.sanitise(row["query"]).terms
            row["fts_member"], row["fts_kept"] = fts_counts(cursor, terms, row["user"])
    return results


PHASES = ("sanitise", "budget probe", "ranking SQL", "ORM fetch", "tool end to end")


def profile(queries, users) -> dict:
    """The phases of ``memories.services.memory_query`` timed one by one, on the same queries."""
    from django.utils import timezone

    from memories import search
    from memories.models import Memory
    from talkingrock.tools import call_tool

    by_kind: dict[str, dict[str, list[float]]] = {}
    for kind, query, member_index in queries:
        owner_id = users[member_index].pk
        spent = by_kind.setdefault(kind, {phase: [] for phase in PHASES})
        ms, sanitised = timed(search.sanitise, query)
        spent["sanitise"].append(ms)
        if sanitised.terms:
            ms, (kept, _) = timed(search.within_budget, sanitised.terms, owner_id=owner_id)
            spent["budget probe"].append(ms)
            match, now = search.match_expression(kept), timezone.now()
            ms, rows = timed(
                search.keyword_search,
                owner_id=owner_id,
                match=match,
                limit=5,
                include_archived=False,
                now=now,
            )
            spent["ranking SQL"].append(ms)
            ids = [row.memory_id for row in rows]
            ms, _ = timed(Memory.objects.select_related("act").in_bulk, ids)
            spent["ORM fetch"].append(ms)
        ms, _ = timed(call_tool, users[member_index], "memory_query", query=query, limit=5)
        spent["tool end to end"].append(ms)

    plans = {}
    for kind in ("mid 3-5", "common words"):
        for _, query, member_index in [q for q in queries if q[0] == kind][:1]:
            owner_id = users[member_index].pk
            kept, _ = search.within_budget(search.sanitise(query).terms, owner_id=owner_id)
            match = search.match_expression(kept)
            plans[match] = search.explain_keyword_search(owner_id=owner_id, match=match)
    return {
        "phases": {p: summary([ms for s in by_kind.values() for ms in s[p]]) for p in PHASES},
        "by_kind": {k: {p: summary(v) for p, v in s.items()} for k, s in by_kind.items()},
        "plans": plans,
    }


def child(args) -> None:
    size = args.sizes[0]
    setup_django()
    from django.contrib.auth import get_user_model
    from django.db import connection

    corpus = Corpus(args.seed)
    log(f"[{size}] generating {size} memories (seed {args.seed}) …")
    items = list(corpus.memories(size, NOW))
    df = document_frequencies(items)
    result: dict = {"size": size, "seed": args.seed, "machine": machine_facts()}
    result["load_before"] = os.getloadavg()
    User = get_user_model()
    if User.objects.filter(username__in=MEMBERS).count() == len(MEMBERS):
        log(f"[{size}] reusing the database in {os.environ['TALKINGROCK_DATA_DIR']}")
        result["store"] = None
    else:
        result["store"] = build(size, corpus, items, args)
    users = [User.objects.get(username=name) for name in MEMBERS]
    with connection.cursor() as cursor:
        cursor.execute("SELECT owner_id, count(*) FROM memories_memory GROUP BY owner_id")
        result["per_member"] = dict(cursor.fetchall())
    db_file = Path(os.environ["TALKINGROCK_DATA_DIR"]) / "talkingrock.sqlite3"
    result["db_bytes"] = db_file.stat().st_size

    warmup = make_queries(random.Random(args.seed - 1), 40, df, size, corpus)
    queries = make_queries(random.Random(args.seed + size), args.queries, df, size, corpus)
    log(f"[{size}] warming up ({len(warmup)} queries) …")
    run_queries(warmup, users)
    result["load_queries"] = os.getloadavg()
    log(f"[{size}] running {len(queries)} queries …")
    result["queries"] = run_queries(queries, users)
    result["load_after"] = os.getloadavg()
    if args.profile:
        log(f"[{size}] profiling …")
        result["profile"] = profile(queries, users)
    Path(args.result_file).write_text(json.dumps(result, default=str))


# --- the parent: orchestration and report -----------------------------------------------------


def fmt(value: float | None) -> str:
    return "–" if value is None or math.isnan(value) else f"{value:.2f}"


def loads(values) -> str:
    return "(" + ", ".join(f"{x:.2f}" for x in values) + ")"


def table(header: str, rows: list[list]) -> list[str]:
    columns = header.split(" | ")
    return [
        f"| {header} |",
        "|---" * len(columns) + "|",
        *("| " + " | ".join(str(cell) for cell in row) + " |" for row in rows),
    ]


def report(result: dict) -> str:
    size, rows, store = result["size"], result["queries"], result["store"]
    lines = [
        f"\n## {size:,} memories  (db {result['db_bytes'] / 1e6:.0f} MB, per member "
        f"{sorted(result['per_member'].values(), reverse=True)})",
        "load average (1, 5, 15 min) before / at the query phase / after: "
        + " / ".join(loads(result[k]) for k in ("load_before", "load_queries", "load_after")),
        f"store rate: {store['batched_rate']:,.0f} memories/s in transaction.atomic() batches "
        f"({store['batched_count']:,} in {store['batched_seconds']:.1f} s); "
        f"{store['autocommit_rate']:,.0f} memories/s autocommit, one transaction each "
        f"({store['autocommit_count']:,} in {store['autocommit_seconds']:.1f} s, last ones stored)"
        if store
        else "store rate: – (database reused)",
    ]
    groups = [("all", rows)] + [(k, [r for r in rows if r["kind"] == k]) for k, _ in QUERY_MIX]
    stats = []
    for name, group in groups:
        if group:
            s = summary([r["ms"] for r in group])
            stats.append(
                [name, s["n"], *(fmt(s[p]) for p in ("p50", "p95", "p99", "max"))]
                + [
                    f"{statistics.fmean(r[k] for r in group):,.0f}"
                    for k in ("fts_member", "fts_kept")
                ]
                + [f"{statistics.fmean(r['fts_kept'] < r['fts_member'] for r in group):.0%}"]
                + [f"{statistics.fmean(r['hits'] for r in group):.1f}"]
            )
    lines += table(
        "queries | n | p50 ms | p95 ms | p99 ms | max ms | member's FTS matches, all words"
        " | within budget | narrowed | mean hits",
        stats,
    )
    slow = sorted(rows, key=lambda r: -r["ms"])[:5]
    lines.append(
        "slowest: "
        + "; ".join(
            f"{r['ms']:.1f} ms {r['query']!r} ({r['fts_member']:,} → {r['fts_kept']:,} matches)"
            for r in slow
        )
    )
    if "profile" in result:
        prof = result["profile"]
        lines.append("\nphases of memory_query (each query again, phase by phase):")
        lines += table(
            "phase | n | p50 ms | p95 ms | p99 ms | max ms",
            [
                [p, s["n"], *(fmt(s[q]) for q in ("p50", "p95", "p99", "max"))]
                for p, s in prof["phases"].items()
            ],
        )
        lines.append("\np50 / p95 ms per kind of query:")
        lines += table(
            "queries | " + " | ".join(PHASES),
            [
                [k] + [f"{fmt(s[p]['p50'])} / {fmt(s[p]['p95'])}" for p in PHASES]
                for k, s in ((k, prof["by_kind"].get(k)) for k, _ in QUERY_MIX)
                if s
            ],
        )
        for match, plan in prof["plans"].items():
            lines.append(f"\nEXPLAIN QUERY PLAN of keyword_search for {match!r}:")
            lines += [f"    {step}" for step in plan]
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
    parser.add_argument("--profile", action="store_true", help="time the phases of the query")
    parser.add_argument("--keep", action="store_true", help="keep the temporary data directories")
    parser.add_argument("--reuse", type=Path, help="query a database kept with --keep (one size)")
    parser.add_argument("--json", type=Path, help="also write all results to this JSON file")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--result-file", help=argparse.SUPPRESS)
    return parser.parse_args(argv)


def command_line(argv: list[str]) -> str:
    """The command as typed from the project root, for the report."""
    python = os.path.relpath(sys.executable, ROOT)
    python = sys.executable if python.startswith("..") else python
    return shlex.join([python, os.path.relpath(Path(__file__).resolve(), ROOT), *argv])


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = parse_args(argv)
    if args.child:
        child(args)
        return 0
    if args.reuse and len(args.sizes) != 1:
        sys.exit("--reuse takes exactly one --sizes value")
    started = datetime.now(UTC)
    print(f"command: {command_line(argv)}")
    print(
        f"date: {started:%Y-%m-%d %H:%M} UTC; load average at the start: {loads(os.getloadavg())}"
    )
    results = []
    for size in args.sizes:
        data_dir = args.reuse or Path(tempfile.mkdtemp(prefix=f"talkingrock-bench-{size}-"))
        result_file = Path(tempfile.mkstemp(prefix="talkingrock-bench-", suffix=".json")[1])
        command = [sys.executable, str(Path(__file__).resolve()), "--child", "--sizes", str(size)]
        command += ["--result-file", str(result_file)] + (["--profile"] if args.profile else [])
        for option in ("queries", "seed", "batch", "autocommit_sample"):
            command += [f"--{option.replace('_', '-')}", str(getattr(args, option))]
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
    m = results[0]["machine"]
    print(
        f"\nmachine: {m['cpu_count']} CPUs ({m['cpu_model']}), Python {m['python']}, Django "
        f"{m['django']}, {m['driver']} with SQLite {m['sqlite']}, sqlite-vec {m['sqlite_vec']}, "
        f"{m['platform']}; finished {datetime.now(UTC):%Y-%m-%d %H:%M} UTC, load average "
        f"{loads(os.getloadavg())}"
    )
    if args.json:
        meta = {"command": command_line(argv), "started": started.isoformat()}
        args.json.write_text(json.dumps([{**meta, **r} for r in results], indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
