"""One household member's facts over six months, for bench/consolidation.py.

``facts(count, seed)`` returns ``count`` dicts of ``memory_store`` keyword arguments (``content``,
``kind="fact"``, ``subject``, ``relation``, ``happened_at``, ``created_at``), oldest told first.
The facts come from a household's recurring subjects, each in several voices (tidy third-person
sentences as the extraction writes them, and lowercase chat shorthand):

- parkrun times (Saturdays, drifting up or down per runner) and hours slept, per person;
- the school pickup time, which moves once (3:15 to 3:30) partway through;
- bills with amounts, each on its own day of the month, rising or changing once;
- projects whose state moves on (quotes, builder booked, fitted, done);
- weekly lessons on a fixed weekday and time (piano on Tuesdays, swimming on Thursdays, …);
- people: jobs and shifts that change once, preferences, choices, appointments;
- and a quarter of noise (chores, shopping, passing remarks) that names nothing recurring.

Names are capitalised or not as people type them ("Sam", "sam"). The relation is one of the
extraction's (time, amount, choice, preference, state) or empty. Everything depends on the seed
only: no data files, and END is a fixed date so the weekdays fall the same way every run.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

END = datetime(2026, 11, 23, 21, tzinfo=UTC)  # a Monday evening; the facts span DAYS before it
DAYS = 182

RUNNERS = {"Sam": (29.0, 24.0), "Tom": (26.0, 29.0), "Maya": (32.0, 28.0)}  # start → end, mins
SLEEPERS = {"Sam": (8.0, 6.5), "Mia": (9.0, 9.5), "Maya": (7.5, 6.0), "Tom": (6.5, 7.5)}
BILLS = {  # subject: (company, day of the month, amount at the start, at the end)
    "electricity bill": ("Octopus", 14, 72, 118),
    "gas bill": ("British Gas", 3, 38, 126),
    "council tax": ("Camden Council", 1, 142, 142),
    "broadband": ("Virgin", 22, 38, 45),
    "water bill": ("Thames Water", 9, 31, 31),
}
PROJECTS = {
    "kitchen renovation": ["getting quotes", "quote from Kowalski Builders in", "builder booked",
                           "units ordered", "worktops fitted", "finished, just painting left"],
    "loft conversion": ["plans drawn up", "waiting on planning permission", "planning approved",
                        "steels going in", "stairs in"],
    "garden office": ["base laid", "frame up", "roof on", "electrics done"],
    "Project Juniper": ["kicked off", "behind schedule", "in testing", "launched"],
    "treehouse": ["wood bought", "platform built", "walls up", "rope ladder on"],
}  # fmt: skip
LESSONS = (  # kid, activity, weekday (0 = Monday), time, teacher, place
    ("Mia", "piano", 1, "4pm", "Mrs Kaur", "Hillcrest"),
    ("Leo", "swimming", 3, "5:30pm", "Coach Reid", "Riverside pool"),
    ("Sam", "football training", 2, "6pm", "Coach Okafor", "Parkside"),
    ("Mia", "ballet", 5, "10am", "Miss Dubois", "the Abbey hall"),
)
PEOPLE = {  # name: (state before, state after, preference)
    "Priya": ("leads the mobile app team", "moved to the backend rewrite", "hates phone calls"),
    "Tom": ("works nights at the depot", "switched to day shifts", "prefers the window seat"),
    "Grandma Rose": ("lives in Ashford", "moved into Willow Court", "likes Earl Grey"),
    "Aunt Jo": ("is training for a half marathon", "hurt her knee", "is vegetarian"),
    "Dev": ("has our spare key", "gave the spare key back", "loves the allotment"),
    "Nina": ("childminds on Mondays", "childminds on Wednesdays", "prefers texts to calls"),
    "Dr Novak": ("is Leo's asthma doctor", "retired, Dr Patel took over", "prefers mornings"),
    "Carlos": ("is the new neighbour at number 12", "is renovating number 12", "plays drums"),
    "Hana": ("is Mia's best friend", "moved to Mia's class", "is allergic to peanuts"),
    "Kofi": ("runs the Saturday market stall", "opened a café on Mill Lane", "makes great bread"),
}
CHOICES = ("Cornwall for the summer holiday", "the oak worktops", "the blue tiles",
           "Riverside Primary for Leo", "a second-hand Skoda", "the cheaper broadband deal",
           "Octopus for the electricity", "a Christmas at Grandma Rose's")  # fmt: skip
CHORES = ("milk", "bread", "the bins", "printer ink", "dishwasher tablets", "the recycling",
          "bin bags", "cat food", "the washing", "the hoover", "batteries", "lightbulbs",
          "the car wash", "the lawn", "the gutters", "school shoes", "birthday cards")  # fmt: skip


def _name(rng: random.Random, name: str) -> str:
    """As people type it: usually capitalised, sometimes all lowercase."""
    return name.lower() if rng.random() < 0.3 else name


def _clock(minutes_after_three: int, rng: random.Random) -> str:
    return rng.choice(("3:{:02d}", "3.{:02d}", "3:{:02d}pm", "15:{:02d}")).format(
        minutes_after_three
    )


class Household:
    """Each thread answers (text, subject, relation, weekday, day of the month) for a moment
    ``t`` (0 = start, 1 = END); the weekday or the day, when not None, is when it happened."""

    def __init__(self, seed: int):
        self.rng = random.Random(seed)
        self.threads: list[tuple[int, Callable]] = [
            (8, self.run),
            (8, self.sleep),
            (5, self.pickup),
            (6, self.bill),
            (8, self.project),
            (10, self.lesson),
            (14, self.person),
            (6, self.appointment),
            (25, self.noise),
        ]
        # When each person's state changes (a share of the six months).
        self.changes = {name: self.rng.uniform(0.3, 0.7) for name in PEOPLE}

    def run(self, t: float):
        rng = self.rng
        who = rng.choice(list(RUNNERS))
        start, end = RUNNERS[who]
        mins = round(start + (end - start) * t + rng.uniform(-0.8, 0.8))
        n = _name(rng, who)
        text = rng.choice((
            f"{n}'s parkrun time was {mins} mins",
            f"{n} ran {mins} minutes at parkrun, {rng.choice(('v happy', 'knee sore', 'windy'))}",
            f"parkrun w {n} this morning, {mins}mins",
            f"{n} did the 5k in {mins} min",
            f"{n}: {mins} minutes at the Riverside parkrun.",
        ))  # fmt: skip
        return text, "parkrun", rng.choice(("state", "state", "")), 5, None  # Saturdays

    def sleep(self, t: float):
        rng = self.rng
        who = rng.choice(list(SLEEPERS))
        start, end = SLEEPERS[who]
        hours = round(2 * (start + (end - start) * t + rng.uniform(-0.4, 0.4))) / 2
        n = _name(rng, who)
        text = rng.choice((
            f"{n} slept {hours:g} hours",
            f"{n}'s sleep tracker says {hours:g} hrs",
            f"{n} sleeping badly - {hours:g}hrs",
            f"{n} got {hours:g} hours of sleep last night.",
            f"only {hours:g}h sleep for {n}",
        ))  # fmt: skip
        return text, "sleep", "state", None, None

    def pickup(self, t: float):
        rng = self.rng
        at = _clock(15 if t < 0.45 else 30, rng)
        text = rng.choice((
            f"school pickup is at {at}",
            f"pickup still {at} today",
            f"Leo's school pickup at {at}",
            f"pick up {_name(rng, 'Leo')} at {at}",
            f"The school pickup is at {at}.",
        ))  # fmt: skip
        return text, "pickup", "time", rng.randrange(5), None

    def bill(self, t: float):
        rng = self.rng
        subject = rng.choice(list(BILLS))
        company, _, start, end = BILLS[subject]
        amount = round(start + (end - start) * t + rng.uniform(-3, 3) * (start != end))
        text = rng.choice((
            f"{subject} came to £{amount}",
            f"the {company} bill is £{amount} this month",
            f"paid the {subject}, £{amount}",
            f"{company} took £{amount} for the {subject}",
            f"The {subject} is £{amount}.",
        ))  # fmt: skip
        return text, subject, "amount", None, BILLS[subject][1]

    def project(self, t: float):
        rng = self.rng
        name = rng.choice(list(PROJECTS))
        stages = PROJECTS[name]
        stage = stages[min(len(stages) - 1, int(t * len(stages) + rng.uniform(-0.3, 0.3)))]
        text = rng.choice((
            f"{name}: {stage}",
            f"update on the {name} - {stage}",
            f"the {name} is {stage} now",
            f"{name[0].upper() + name[1:]} status: {stage}.",
        ))  # fmt: skip
        return text, name.lower(), "state", None, None

    def lesson(self, t: float):
        rng = self.rng
        kid, activity, weekday, at, teacher, place = rng.choice(LESSONS)
        k = _name(rng, kid)
        text = rng.choice((
            f"{k}'s {activity} lesson w {teacher}, {at}",
            f"{activity} for {k} today at {at}",
            f"{k} had {activity} after school, {teacher} pleased",
            f"{k} has {activity} at {place} at {at}.",
            f"{activity} at {place}: {k} {rng.choice(('loved it', 'tired', 'moved up a group'))}",
        ))  # fmt: skip
        return text, activity, "time" if at in text else "state", weekday, None

    def person(self, t: float):
        rng = self.rng
        who = rng.choice(list(PEOPLE))
        before, after, likes = PEOPLE[who]
        n = _name(rng, who)
        roll = rng.random()
        if roll < 0.55:
            state = before if t < self.changes[who] else after
            text = rng.choice((f"{n} {state}", f"{n} {state}.", f"apparently {n} {state} now"))
            return text, "", "state", None, None
        if roll < 0.8:
            return rng.choice((f"{n} {likes}", f"{n} {likes}.")), "", "preference", None, None
        choice = rng.choice(CHOICES)
        text = rng.choice((f"We chose {choice}", f"decided on {choice} with {n}"))
        return text, "", "choice", None, None

    def appointment(self, t: float):
        rng = self.rng
        who, kind = rng.choice((("Leo", "asthma review"), ("Mia", "dentist"), ("Maya", "physio"),
                                ("Sam", "orthodontist"), ("Tom", "eye test")))  # fmt: skip
        day = f"{rng.randint(1, 28)} {rng.choice(('March', 'April', 'June', 'October'))}"
        at = f"{rng.randint(8, 17)}:{rng.choice(('00', '20', '40'))}"
        text = rng.choice((
            f"{_name(rng, who)}'s {kind} is on {day} at {at}",
            f"{kind} for {_name(rng, who)} moved to {day}, {at}",
            f"{who} has a {kind} with Dr Patel on {day} at {at}.",
        ))  # fmt: skip
        return text, kind, "time", None, None

    def noise(self, t: float):
        rng = self.rng
        a, b = rng.sample(CHORES, 2)
        text = rng.choice((
            f"need {a} and {b}",
            f"remember {a} tomorrow",
            f"out of {a} again",
            f"sorted {a}, {b} next",
            f"{a} done. {b} still to do",
            f"bought {a} on the way home",
        ))  # fmt: skip
        return text, "", rng.choice(("", "", "state")), None, None


def facts(count: int, seed: int) -> list[dict]:
    """``count`` memory_store keyword dicts, in the order they were told (``created_at``)."""
    household = Household(seed)
    rng = household.rng
    threads = [thread for _, thread in household.threads]
    weights = [weight for weight, _ in household.threads]
    found = []
    for _ in range(count):
        day = rng.randrange(DAYS)
        text, subject, relation, weekday, monthday = rng.choices(threads, weights)[0](day / DAYS)
        moment = END - timedelta(days=DAYS - day, hours=rng.randint(0, 13))
        if weekday is not None and rng.random() < 0.85:  # mostly on its day, not always
            moment -= timedelta(days=(moment.weekday() - weekday) % 7)
        if monthday is not None and rng.random() < 0.6:
            moment = moment.replace(day=monthday)
        told = min(moment + timedelta(hours=rng.uniform(0, 36)), END)
        found.append(
            {
                "content": text,
                "kind": "fact",
                "subject": subject,
                "relation": relation,
                "happened_at": min(moment, told),
                "created_at": told,
            }
        )
    return sorted(found, key=lambda fields: fields["created_at"])
