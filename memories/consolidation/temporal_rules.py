"""The temporal pass's offline rules (seed 002): what an entity's recent facts, in time order, say
together that no single fact does. Each rule is deterministic, states its numbers in the text it
writes, and knows nothing of any particular sentence:

- trend: the same kind of quantity (a number with the same unit word, or an amount of money) in
  three or more facts, the newest of them moving one way (never back) with at least two moves;
- transition: facts on the same relation whose value changes: the earlier fact was superseded, or
  two facts in a row are far apart in meaning;
- cycle: dated facts on the same weekday (or day of the month) in three or more different weeks
  (or months), two thirds of the dated facts or more;
- correlation: two entities (or two relations of one) whose facts come in the same weeks: three
  or more shared weeks, more than half of each one's weeks, and half again as many as chance.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass
from datetime import datetime
from itertools import pairwise

import numpy as np
from django.utils import timezone

from memories.consolidation import store
from memories.entities import COMMON, WEEKDAYS_AND_MONTHS
from memories.models import Memory, Observation
from talkingrock.language.spoken import ordinal

Kind = Observation.Kind

# Two facts on one relation this far apart in meaning state different values. Measured with
# all-MiniLM-L6-v2 on household sentences: restatements of one value ("leads the mobile team" /
# "still running the mobile team") scored 0.70-0.82, changed values 0.34-0.85; below 0.6 only
# changes were seen, so the rule misses some changes (supersession catches those the member
# reviewed) rather than inventing any.
DIFFERENT_BELOW = 0.6
# A cycle: this share of the dated facts on one weekday. By chance, all of 3 facts share a
# weekday 2 % of the time and 3 of 4 about 7 %; a bare majority (3 of 5) would be 16 %.
CYCLE_SHARE = 2 / 3
MIN_REPEATS = 3  # facts, weeks or months: two could be a coincidence
# A correlation: shared weeks at least this many times what two unrelated series would share,
# given how many weeks each has facts in, out of the weeks the member wrote anything in (a
# member who writes every week would otherwise see everything "correlate").
MIN_LIFT = 1.5
MAX_CORRELATIONS = 10  # per member per pass, strongest first
QUOTE_CHARS = 80

_AMOUNT = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
# A price ("£40", "$ 1,200", "£2k"), or a number followed by its unit word ("28 mins", "6hrs",
# "7.5 hours", "12%"), not inside a word, a clock time, a date or a range ("7:30", "3/2",
# "2026-02-03", "3-4 hours").
_QUANTITY = re.compile(
    rf"(?P<currency>[£$€])\s?(?P<price>{_AMOUNT})(?P<thousands>k\b)?"
    rf"|(?<![\w.,:/'’£$€-])(?P<number>{_AMOUNT})(?![:/-]?\d)\s?(?P<unit>%|[^\W\d_]+)"
)
# Words after a number that are not what it counts: times of day, ordinals, dates, small words.
_NOT_UNITS = COMMON | WEEKDAYS_AND_MONTHS | {"am", "pm", "p", "st", "nd", "rd", "th", "ish", "x"}
# Abbreviations household text uses for the same unit, after dropping a plural "s".
_UNIT_ALIASES = {"min": "minute", "hr": "hour", "h": "hour", "sec": "second", "quid": "£"}
_CURRENCIES = {"£", "$", "€"}


@dataclass(frozen=True)
class Series:
    """Facts about one thing, oldest first: an entity's (or a subject's) recent facts, or those
    of one of its relations."""

    label: str  # "Sam", "piano lessons"
    subject: str  # the key's subject: the entity's normalised name, or the facts' subject
    entity_id: int | None
    facts: tuple[Memory, ...]
    relation: str = ""

    @property
    def name(self) -> str:
        return f"{possessive(self.label)} {self.relation}" if self.relation else self.label

    @property
    def key(self) -> str:
        return f"{self.subject}/{self.relation}"


@dataclass(frozen=True)
class Pattern:
    kind: str
    text: str
    facts: tuple[Memory, ...]
    subject: str
    entity_id: int | None
    # What tells two patterns of one kind about one entity apart, so that a re-run finds its own:
    # the unit of a trend, the relation of a transition or a cycle, the other side of a
    # correlation.
    relation: str
    reason: str = ""

    def draft(self) -> store.Draft:
        return store.Draft(self.text, self.kind, self.subject, self.relation, self.entity_id)


def possessive(label: str) -> str:
    return f"{label}'" if label.endswith("s") else f"{label}'s"


def local(fact: Memory) -> datetime:
    return timezone.localtime(store.when(fact))


def day(moment: datetime, *, year: bool = True) -> str:
    return f"{moment.day} {moment:%b %Y}" if year else f"{moment.day} {moment:%b}"


def week(moment: datetime) -> tuple[int, int]:
    return tuple(moment.isocalendar())[:2]


def _figure(value: float) -> str:
    return f"{value:,.0f}" if value.is_integer() else f"{value:,.2f}".rstrip("0")


def _unit_key(word: str) -> str:
    word = word.casefold()
    if len(word) > 2 and word.endswith("s") and not word.endswith("ss"):
        word = word[:-1]
    return _UNIT_ALIASES.get(word, word)


def _unit_name(unit: str, written: list[str]) -> str:
    """How a trend writes its unit: a known abbreviation's full word ("mins" → "minutes"),
    otherwise as the facts wrote it most often."""
    if unit in _UNIT_ALIASES.values() and unit not in _CURRENCIES:
        return f"{unit}s"
    return Counter(written).most_common(1)[0][0]


def quantities(text: str) -> dict[str, list[tuple[float, str]]]:
    """unit key → [(value, the unit as written)] for each quantity the text states."""
    found: dict[str, list[tuple[float, str]]] = defaultdict(list)
    for match in _QUANTITY.finditer(text):
        if match["currency"]:
            value = float(match["price"].replace(",", ""))
            found[match["currency"]].append(
                (value * 1000 if match["thousands"] else value, match["currency"])
            )
        elif match["unit"].casefold() not in _NOT_UNITS:
            unit = _unit_key(match["unit"])
            found[unit].append((float(match["number"].replace(",", "")), match["unit"]))
    return found


# --- trend ---------------------------------------------------------------------------------------


def _current_run(values: list[float]) -> tuple[int, int, int]:
    """The longest stretch ending at the newest value that never moves against its direction:
    (its first index, its direction +1/-1/0, how many moves it makes)."""
    start, direction, moves = len(values) - 1, 0, 0
    for i in range(len(values) - 1, 0, -1):
        step = (values[i] > values[i - 1]) - (values[i] < values[i - 1])
        if step and direction and step != direction:
            break
        direction = direction or step
        moves += bool(step)
        start = i - 1
    return start, direction, moves


def trends(series: Series) -> list[Pattern]:
    points: dict[str, list[tuple[Memory, float, str]]] = defaultdict(list)
    for fact in series.facts:
        for unit, stated in quantities(fact.content).items():
            if len({value for value, _ in stated}) == 1:  # two different figures: which one?
                points[unit].append((fact, stated[0][0], stated[-1][1]))
    found = []
    for unit, rows in sorted(points.items()):
        start, direction, moves = _current_run([value for _, value, _ in rows])
        rows = rows[start:]
        if len(rows) < MIN_REPEATS or moves < 2:  # one move is a change, not a trend
            continue
        facts = tuple(fact for fact, _, _ in rows)
        first, last = rows[0][1], rows[-1][1]
        written = _unit_name(unit, [surface for _, _, surface in rows])
        if unit in _CURRENCIES:
            span, what = f"{unit}{_figure(first)} to {unit}{_figure(last)}", "amounts"
        else:
            gap = "" if written == "%" else " "
            span, what = f"{_figure(first)} to {_figure(last)}{gap}{written}", "figures"
        relations = {fact.relation for fact in facts}
        what = relations.pop() if len(relations) == 1 and "" not in relations else what
        began, ended = local(facts[0]), local(facts[-1])
        text = (
            f"{possessive(series.label)} {what} {'rose' if direction > 0 else 'fell'} from "
            f"{span} between {day(began, year=began.year != ended.year)} and {day(ended)} "
            f"({len(facts)} facts)."
        )
        reason = f"{len(facts)} figures in {unit}, each {'≥' if direction > 0 else '≤'} the last."
        found.append(
            Pattern(Kind.TREND, text, facts, series.subject, series.entity_id, unit, reason)
        )
    return found


# --- transition ----------------------------------------------------------------------------------


def _quote(fact: Memory) -> str:
    text = " ".join(fact.content.split())
    return f"“{text[: QUOTE_CHARS - 1]}…”" if len(text) > QUOTE_CHARS else f"“{text}”"


def _changed(earlier: Memory, later: Memory, vectors: dict[int, np.ndarray]) -> bool:
    if earlier.superseded_by_id is not None or earlier.valid_to is not None:
        return True
    a, b = vectors.get(earlier.pk), vectors.get(later.pk)
    return a is not None and b is not None and float(a @ b) < DIFFERENT_BELOW


def transitions(series: Series, vectors: dict[int, np.ndarray]) -> list[Pattern]:
    found = []
    for thread in relation_series(series, min_facts=2):
        relation, facts = thread.relation, thread.facts
        starts = [facts[0]] + [
            later for earlier, later in pairwise(facts) if _changed(earlier, later, vectors)
        ]
        if len(starts) < 2:
            continue
        origin = starts[max(len(starts) - 4, 0)]  # the value before the last three changes
        steps = [f"to {_quote(fact)} (changed {local(fact):%b %Y})" for fact in starts[1:][-3:]]
        text = (
            f"{possessive(series.label)} {relation} went from {_quote(origin)} "
            f"{', then '.join(steps)}."
        )
        reason = f"{len(starts) - 1} change(s) across {len(facts)} facts on {relation}."
        pattern = Pattern(
            Kind.TRANSITION, text, facts, series.subject, series.entity_id, relation, reason
        )
        found.append(pattern)
    return found


# --- cycle ---------------------------------------------------------------------------------------


def _cycle(series: Series) -> Pattern | None:
    # Only facts that say when they happened: a fact's creation is when it was told, and a
    # member who writes on Sundays would otherwise find everything "falls on Sundays".
    dated = [fact for fact in series.facts if fact.happened_at is not None]
    if len(dated) < MIN_REPEATS:
        return None
    moments = {fact.pk: timezone.localtime(fact.happened_at) for fact in dated}
    by_weekday: dict[str, list[Memory]] = defaultdict(list)
    by_monthday: dict[int, list[Memory]] = defaultdict(list)
    for fact in dated:
        by_weekday[f"{moments[fact.pk]:%A}"].append(fact)
        by_monthday[moments[fact.pk].day].append(fact)
    what = f"{series.name} falls" if series.relation else f"Facts about {series.label} fall"
    weekday, facts = max(by_weekday.items(), key=lambda item: (len(item[1]), item[0]))
    weeks = {week(moments[fact.pk]) for fact in facts}
    if len(weeks) >= MIN_REPEATS and len(facts) >= CYCLE_SHARE * len(dated):
        text = (
            f"{what} on {weekday}s ({len(facts)} of {len(dated)} dated facts, "
            f"in {len(weeks)} different weeks)."
        )
        return _cycle_pattern(series, text, facts)
    monthday, facts = max(by_monthday.items(), key=lambda item: (len(item[1]), item[0]))
    months = {(moments[fact.pk].year, moments[fact.pk].month) for fact in facts}
    if len(months) >= MIN_REPEATS and len(facts) >= CYCLE_SHARE * len(dated):
        text = (
            f"{what} on the {ordinal(monthday)} of the month ({len(facts)} of {len(dated)} "
            f"dated facts, in {len(months)} different months)."
        )
        return _cycle_pattern(series, text, facts)
    return None


def _cycle_pattern(series: Series, text: str, facts: list[Memory]) -> Pattern:
    reason = f"{len(facts)} dated facts on the same day."
    return Pattern(
        Kind.CYCLE, text, tuple(facts), series.subject, series.entity_id, series.relation, reason
    )


def cycles(series: Series) -> list[Pattern]:
    """Each relation's cycle; the entity's as a whole only when none of its relations has one
    (a weekly lesson among an entity's other facts still shows)."""
    found = [
        pattern
        for thread in relation_series(series, min_facts=MIN_REPEATS)
        if (pattern := _cycle(thread)) is not None
    ]
    return found or [pattern for pattern in [_cycle(series)] if pattern is not None]


# --- correlation ---------------------------------------------------------------------------------


def relation_series(series: Series, *, min_facts: int) -> list[Series]:
    by_relation: dict[str, list[Memory]] = defaultdict(list)
    for fact in series.facts:
        if fact.relation:
            by_relation[fact.relation].append(fact)
    return [
        Series(series.label, series.subject, series.entity_id, tuple(facts), relation)
        for relation, facts in sorted(by_relation.items())
        if len(facts) >= min_facts
    ]


def correlations(groups: list[Series], active_weeks: int) -> list[Pattern]:
    """Across the member's entities: each entity is one series, or, when it has two or more
    relations with enough facts, each of those relations is."""
    series: list[Series] = []
    for group in groups:
        threads = relation_series(group, min_facts=MIN_REPEATS)
        series += threads if len(threads) >= 2 else [group]
    weeks = {s.key: {week(local(fact)) for fact in s.facts} for s in series}
    found = []
    series.sort(key=lambda s: s.key)
    for i, a in enumerate(series):
        for b in series[i + 1 :]:
            shared = weeks[a.key] & weeks[b.key]
            na, nb = len(weeks[a.key]), len(weeks[b.key])
            expected = na * nb / max(active_weeks, 1)
            if (
                len(shared) < MIN_REPEATS
                or 2 * len(shared) <= max(na, nb)
                or len(shared) < MIN_LIFT * expected
            ):
                continue
            facts = tuple(
                sorted(
                    (f for f in (*a.facts, *b.facts) if week(local(f)) in shared),
                    key=lambda f: (store.when(f), f.pk),
                )
            )
            text = (
                f"{a.name} and {b.name} come up in the same weeks: {len(shared)} shared "
                f"weeks, of {na} and {nb} (about {expected:.1f} if they were unrelated, "
                f"over {active_weeks} weeks with facts)."
            )
            reason = f"Lift {len(shared) / expected:.1f} over {active_weeks} active weeks."
            pattern = Pattern(
                Kind.CORRELATION, text, facts, a.subject, a.entity_id, f"with {b.key}"[:100], reason
            )
            found.append((len(shared) / expected, len(shared), pattern))
    found.sort(key=lambda row: (-row[0], -row[1], row[2].text))
    return [pattern for _, _, pattern in found[:MAX_CORRELATIONS]]


def patterns_of(series: Series, vectors: dict[int, np.ndarray]) -> list[Pattern]:
    """The offline rules for one entity (correlations look across entities: see above)."""
    return [*trends(series), *transitions(series, vectors), *cycles(series)]
