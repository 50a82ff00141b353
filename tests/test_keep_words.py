"""Keep people's words (issue 22, point 2): a fact or item is the member's own clause, cleaned,
never rewritten into a template; dates, times, amounts and schedules are parsed into fields
beside the words and shown next to them; a recurring schedule stays recurring; "we" is not a
list of household members. Sentences written for these tests, in the voices the households type
in (lower case, shorthand, run-ons), none taken from an evaluation set."""

from __future__ import annotations

from datetime import date, datetime

import pytest
from dateutil.rrule import rrulestr

from memories.models import MemoryItem
from talkingrock.language import amounts, dates, offline, parsed

WEDNESDAY = date(2026, 11, 25)


def extract(*lines: str, household=("Maya", "Sam")):
    return offline.extract(
        [("user", line) for line in lines],
        today=WEDNESDAY,
        member=household[0],
        household=list(household),
    )


@pytest.mark.parametrize(
    ("said", "rule", "words"),
    [
        ("maya does mon tue thu", [(11, 26), (11, 30), (12, 1), (12, 3)], "Monday, Tuesday and"),
        ("swimming every other saturday", [(11, 28), (12, 12), (12, 26)], "every other"),
        ("book club is the first saturday of the month", [(12, 5), (1, 2), (2, 6)], "first"),
        ("bins go out every tues", [(12, 1), (12, 8)], "Tuesday"),
        ("the bins go out sunday nights", [(11, 29), (12, 6)], "Sunday nights"),
        # "every" before a run of days is every one of them
        (
            "physio every Monday and Thursday at quarter to four",
            [(11, 26), (11, 30), (12, 3)],
            "Monday and Thursday",
        ),
    ],
)
def test_a_schedule_stays_a_schedule(said, rule, words):
    found = parsed.parse(said, said_on=WEDNESDAY)

    assert found.recurs is not None
    start = datetime(2026, 11, 25, 12)
    days = [(d.month, d.day) for d in rrulestr(found.recurs["rule"], dtstart=start)[: len(rule)]]
    assert days == rule
    assert words.casefold() in found.recurs["words"].casefold()
    assert found.day is None  # not turned into single dates
    assert dates.find("maya does mon tue thu", today=WEDNESDAY)[0].day is None


def test_a_weekly_schedule_is_kept_in_the_words_with_the_rule_beside_it():
    found = extract("school pickup: maya does mon tue thu, sam does wed")

    [fact] = [f for f in found.facts if "pickup" in f.text.casefold()]
    assert "mon tue thu" in fact.text  # the words as said, no dates written in
    assert "2026" not in fact.text and "December" not in fact.text
    assert fact.text.startswith("School pickup: Maya does")  # names capitalised
    details = parsed.parse(fact.text, said_on=WEDNESDAY).as_dict()
    assert details["recurs"]["rule"].endswith("BYDAY=MO,TU,TH")


def test_a_day_and_time_are_parsed_beside_the_words_not_spliced_into_them():
    found = extract("maya has the dentist on the 8th at 10:30")

    [fact] = found.facts
    assert fact.text == "Maya has the dentist on the 8th at 10:30."
    beside = parsed.parse(fact.text, said_on=WEDNESDAY)
    assert beside.day == date(2026, 12, 8)
    assert beside.moment().hour == 10 and beside.moment().minute == 30
    assert parsed.said(beside.as_dict()) == ["Tue 8 Dec 2026, 10:30am"]


@pytest.mark.parametrize(
    ("said", "beside", "day"),
    [
        ("school pickup is at 3pm this year", ["3pm"], None),  # no 1 January
        ("next month the rent goes up", [], None),
        ("last year the roof leaked", [], None),
        ("this weekend we paint the fence", ["Sat 28 Nov 2026"], date(2026, 11, 28)),
        ("dentist on the 8th at 10:30", ["Tue 8 Dec 2026, 10:30am"], date(2026, 12, 8)),
    ],
)
def test_a_month_or_a_year_said_as_a_whole_gives_no_day(said, beside, day):
    found = parsed.parse(said, said_on=WEDNESDAY)

    assert parsed.said(found.as_dict()) == beside
    assert found.day == day


def test_a_price_each_is_kept_beside_the_words_with_what_it_is_each_of():
    beside = parsed.parse("the face painter wants £4 a child", said_on=WEDNESDAY).as_dict()
    assert beside["amounts"][0]["each_of"] == "child"
    assert parsed.said(beside) == ["£4 a child"]


@pytest.mark.parametrize(
    ("said", "kept"),
    [
        ("pickup is at 3pm", "3pm"),
        ("he thinks we can reface them, saves like 6k", "6,000"),
        ("the quote came in at $38,000 all in", "$38,000"),
        ("the drive takes about 40 mins each way", "40"),
    ],
)
def test_numbers_times_and_amounts_survive(said, kept):
    found = extract(said)

    texts = " ".join(f.text for f in found.facts)
    assert kept in texts, [f.text for f in found.facts]


def test_a_greeting_and_so_open_a_decision_and_give_no_reason_for_it():
    found = extract(
        "hey so we're finally doing the kitchen remodel, contractor is a guy named dave"
    )

    [decision] = found.items["decisions"]
    assert decision["what"] == "finally doing the kitchen remodel" and "why" not in decision
    assert (
        extract("we're going with oak so it matches the floor")
        .items["decisions"][0]["why"]
        .startswith("it matches")
    )


@pytest.mark.parametrize("said", ["ok thats it for now, i'm done", "lol ok that's all for today"])
def test_a_sign_off_is_no_fact(said):
    assert extract("the plumber comes thursday at 9", said).facts[0].text.startswith("The plumber")
    assert len(extract("the plumber comes thursday at 9", said).facts) == 1


def test_we_is_not_the_household_and_only_a_named_person_is_an_item():
    found = extract(
        "we decided to reface the cabinets, dave the contractor came by today",
        household=("Maya", "Sam"),
    )

    people = [row["name"] for row in found.items["people"]]
    assert people == ["Dave"]  # not Sam, who was not named; not "Dave The Contractor"
    texts = " ".join(f.text for f in found.facts)
    assert "Maya and Sam" not in texts and "We decided" in texts
    assert "The cabinets" not in texts  # nothing but names capitalised


def test_a_task_keeps_its_words_and_its_day_beside_them():
    found = extract("need to call the plumber by friday about the leak")

    [task] = found.items["tasks"]
    assert "decided" not in task.values()
    assert task["description"].startswith("call the plumber by friday")
    assert task["due"] == "2026-11-27"
    item = MemoryItem(type="task", data=task)
    assert item.when_in_words == "due Fri 27 Nov 2026"


@pytest.mark.parametrize(
    "said",
    ["wont be done till the second week", "we're on the 3rd floor now", "the first time round",
     "the 2nd half was better"],
)  # fmt: skip
def test_an_ordinal_that_counts_what_follows_is_no_day(said):
    assert not [m for m in dates.find(said, today=WEDNESDAY) if m.day]


@pytest.mark.parametrize(
    ("said", "day"),
    [("its the 11th now … of february i mean, not the 4th", date(2027, 2, 11)),
     ("moved to the 9th, of january", date(2027, 1, 9))],
)  # fmt: skip
def test_a_month_said_as_an_afterthought_is_the_days(said, day):
    assert dates.find(said, today=WEDNESDAY)[0].day == day


@pytest.mark.parametrize(
    "said", ["kept the long runs at 9:15 pace", "ran 8:40/mile today", "did 5:10 per km"]
)
def test_a_pace_is_not_a_time_of_day(said):
    assert not [m for m in dates.find(said, today=WEDNESDAY) if m.time]


@pytest.mark.parametrize(
    ("said", "hour"),
    [("swim at 5:30 and aftercare til 6", 18), ("the chemist is open until 9", 9),
     ("cant leave till 4, school run", 16)],
)  # fmt: skip
def test_a_bare_hour_after_until_is_a_time_of_day(said, hour):
    assert hour in [m.time.hour for m in dates.find(said, today=WEDNESDAY) if m.time]


@pytest.mark.parametrize(
    ("said", "hour"),
    [("league games 10:30 on a school nite ugh", 22), ("quiz nite starts 9:15", 21),
     ("dentist 10:30 tues", 10)],
)  # fmt: skip
def test_a_bare_late_hour_told_of_a_night_is_the_evenings(said, hour):
    assert [m.time.hour for m in dates.find(said, today=WEDNESDAY) if m.time] == [hour]


@pytest.mark.parametrize(
    ("said", "hour", "minute"),
    [("her swimming is at six now on tuesdays", 18, 0),
     ("the check is on the twenty fourth at eleven fifteen", 11, 15),
     ("leaving at five thirty tomorrow", 17, 30),
     # a span of hours is its first hour, not "till four"
     ("the carer comes two till four", 14, 0), ("saturdays from 9 to 1", 9, 0),
     # right after a day, with no "at"
     ("its still tuesdays and fridays ten fifteen at the leisure centre", 10, 15),
     ("booked her in weds, four forty", 16, 40), ("ortho is tues 14th ten fifteen", 10, 15)],
)  # fmt: skip
def test_a_time_dictated_in_words_is_a_time_of_day(said, hour, minute):
    assert [(m.time.hour, m.time.minute) for m in dates.find(said, today=WEDNESDAY) if m.time] == [
        (hour, minute)
    ]


@pytest.mark.parametrize(
    "said",
    ["at one point we nearly sold it", "at two of them", "by three or four days",
     "quoted at six thousand", "monday three twenty people came", "sat two of them",
     "tuesday nine hundred quid",
     "at six months old", "the forms are due by 5 September", "paid by 12 may"],
)  # fmt: skip
def test_a_count_or_a_day_after_at_or_by_is_no_time(said):
    assert not [m for m in dates.find(said, today=WEDNESDAY) if m.time]


@pytest.mark.parametrize(
    ("said", "day"),
    [("flying out jan 9th, back on the 16th", date(2027, 1, 16)),
     ("so um the op is the fourth of february and the follow up is the eighteenth", date(2027, 2, 18)),
     ("xmas at mums, 24 dec thru the 27th", date(2026, 12, 27)),
     # a deadline counts from today, whatever month was named
     ("trip is 3 march but the balance is due by the 14th", date(2026, 12, 14)),
     # and so does a day the month named would put in the past
     ("we went 2 oct and im going back on the 30th", date(2026, 11, 30))],
)  # fmt: skip
def test_a_day_of_the_month_said_alone_is_in_the_month_named_before_it(said, day):
    assert dates.find(said, today=WEDNESDAY)[-1].day == day


@pytest.mark.parametrize("said", ["staying till 12 days", "off until 14 april", "until 20"])
def test_until_a_number_that_is_no_hour_is_no_time(said):
    assert not [m for m in dates.find(said, today=WEDNESDAY) if m.time]


def test_a_bare_sum_is_an_amount_only_when_a_sum_is_asked_for():
    said = "the roofers quote came thru on weds … 4,850. covers scaffolding and the flashing"

    assert amounts.find(said) == []
    [found] = amounts.find(said, asked_for_a_sum=True)
    assert found.value == 4850
    # A year is still a year, whatever is asked.
    assert amounts.find("we moved here in 2019 i think", asked_for_a_sum=True) == []


@pytest.mark.parametrize(
    ("said", "value"),
    [("so um the roofer came back and hes saying six thousand two hundred for the lot", 6200),
     ("the bike was three hundred and forty five which is fine i guess", 345),
     ("um the deposit is twelve hundred and the rest on the day", 1200),
     ("vet says sixty-five quid for the jabs", 65)],
)  # fmt: skip
def test_a_sum_dictated_in_words_is_read_whole(said, value):
    [found] = amounts.find(said, default_currency="£")
    assert found.value == value and found.currency == "£"
    assert found.text in said  # the words as said, beside the value


@pytest.mark.parametrize(
    "said",
    ["one of them said no", "two of the three came", "at five thirty", "eight thousand nine fifty"],
)
def test_number_words_that_make_no_sum_are_none(said):
    assert amounts.find(said) == []
