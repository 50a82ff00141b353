"""The synthetic household the timing benchmarks share: four members and their memories.

``Corpus(seed).memories(count, now)`` yields ``(member, memory_store kwargs)`` oldest first:
people, appointments, places, projects, preferences, decisions, household facts and tech notes,
padded with detail clauses drawn from a Zipf–Mandelbrot vocabulary of 6,000 words (real function
and household words at the head, generated pseudo-words in the tail), with tags, sources,
``created_at`` spread over the two years before ``now``, some reinforced or demoted scores and a
few archived and draft rows. Members hold 40/30/20/10 % of the memories. No data files: the texts
depend only on the seed.

Used by bench/memory_query.py, bench/recall_latency.py and bench/load.py.
"""

from __future__ import annotations

import bisect
import itertools
import random
from datetime import datetime, timedelta

MEMBERS = ("maya", "tom", "priya", "leo")
MEMBER_SHARE = (0.4, 0.3, 0.2, 0.1)
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


def person(rng: random.Random) -> str:
    """A first name from PEOPLE."""
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
        p, q = person(rng), person(rng)
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
