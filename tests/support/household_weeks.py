"""A household's facts over eight weeks (February and March 2026), as extraction or an agent
stores them: the day each happened (week, weekday), what was said in the member's own voice,
the relation the extraction gives it, and a subject when the fact names no one. Written for
the consolidation replay (tests/test_consolidation_household.py), in many voices: lowercase,
typos, abbreviations, run-ons.

What a careful reader would find in it: Sam's parkrun times rising week on week (a trend);
Priya moving from the mobile team to the backend rewrite (a transition); Mia's piano on
Tuesdays (a cycle); the school pickup moving from 3pm to 3:30pm (a state with history); the
boiler's banging told twice over (near-duplicates); and the rest of a busy household."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

START = datetime(2026, 2, 2, 9, tzinfo=UTC)  # a Monday
WEEKDAYS = {"mon": 0, "tue": 1, "wed": 2, "thu": 3, "fri": 4, "sat": 5, "sun": 6}

# (week 1-8, weekday, text, relation, subject)
FACTS = [
    (1, "sat", "sam ran the parkrun 5k in 24 mins", "", ""),
    (2, "sat", "Sam's parkrun today: 25 mins, legs heavy he said", "", ""),
    (3, "sat", "parkrun 5k was 27 mins for sam this sat", "", ""),
    (4, "sat", "sam did parkrun in 29 mins, think hes overtraining tbh", "", ""),
    (1, "mon", "Priya leads the mobile app team at work.", "state", ""),
    (3, "wed", "priya got moved to backend, she's on the API rewrite now", "state", ""),
    (6, "thu", "Priya is running the backend rewrite standups every morning", "state", ""),
    (1, "tue", "Mia's piano lesson went well, she's on grade 2 pieces", "", ""),
    (2, "tue", "mia piano tues, practised scales for ages", "", ""),
    (3, "tue", "Piano with Mia - Mrs Okafor says she might be ready for the exam", "", ""),
    (5, "tue", "mia's piano lesson, new piece, she loves it", "", ""),
    (1, "wed", "The school pickup is at 3pm.", "time", "pickup"),
    (2, "thu", "school pickup 3pm as usual, grabbed snacks on the way", "time", "pickup"),
    (5, "mon", "from next week the school pickup moves to 3:30pm", "time", "pickup"),
    (6, "wed", "pickup at 3:30pm now, much easier with work", "time", "pickup"),
    (2, "mon", "the boiler is banging again in the mornings", "state", "boiler"),
    (3, "fri", "boiler still banging every morning, so annoying", "state", "boiler"),
    (7, "mon", "the boiler keeps banging every morning, plumber booked", "state", "boiler"),
    (2, "wed", "Dave the builder started on the kitchen", "", ""),
    (4, "wed", "dave says the kitchen worktops arrive friday", "", ""),
    (6, "fri", "Kitchen worktops fitted, Dave did a great job", "", ""),
    (3, "sun", "grandma rose came for sunday lunch, brought her trifle", "", ""),
    (7, "sun", "Grandma Rose stayed for tea, told the war stories again", "", ""),
    (4, "thu", "council tax bill went up to £168 a month", "amount", "bill"),
    (8, "thu", "water bill is £42 this quarter", "amount", "bill"),
    (5, "sat", "sam's football match got rained off", "", ""),
    (8, "sat", "sam parkrun 5k 30 mins, he's taking a rest week after this", "", ""),
]


def when(week: int, weekday: str) -> datetime:
    return START + timedelta(weeks=week - 1, days=WEEKDAYS[weekday])


def weeks() -> list[list[tuple[datetime, str, str, str]]]:
    """The facts week by week, each as (happened_at, text, relation, subject)."""
    by_week: list[list[tuple[datetime, str, str, str]]] = [[] for _ in range(8)]
    for week, weekday, text, relation, subject in FACTS:
        by_week[week - 1].append((when(week, weekday), text, relation, subject))
    return [sorted(facts) for facts in by_week]
