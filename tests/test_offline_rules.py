"""The offline engine's rules one by one, on sentences written for these tests (none taken from an
evaluation household): who is a name, whom a pronoun means, who owes what, where one clause holds
several tasks, dates said in words, what surrounds a choice, and what replaces what."""

from __future__ import annotations

from datetime import date

import pytest

from talkingrock import nlp
from talkingrock.language import dates, offline
from talkingrock.language.names import Gazetteer, Known, names_in
from talkingrock.language.offline import phrases
from talkingrock.language.offline.referents import Referents

TODAY = date(2026, 3, 12)  # a Thursday


def named(text: str, known=()) -> list[str]:
    doc = nlp.parse_one(text)
    return [person.name for _, _, person in names_in(doc, Gazetteer(list(known)))]


def extract(*messages: str, known=(), member="Maya", household=("Maya", "Tom")):
    return offline.extract(
        [("user", message) for message in messages],
        today=TODAY,
        member=member,
        household=list(household),
        known=list(known),
    )


# Names ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "will you grab milk on the way home",  # "will" the verb
        "the job is done and the guy left",  # common words that are also first names
        "Said I would ring back later",  # a verb opening the sentence
        "floors went down last week",
    ],
)
def test_common_words_and_inflected_forms_are_not_names(text):
    assert named(text) == []


def test_a_title_makes_a_name_and_a_family_title_a_relation():
    assert "Dr Okoye" in named("doctor okoye said the pacemaker went fine")
    assert "Roy" in named("uncle roy is coming to the party")


@pytest.mark.parametrize("text", ["so nan update, she's home", "auntie news: she's moving"])
def test_an_everyday_word_after_a_family_title_is_no_name(text):
    assert named(text) == []
    assert "Tunde" in named("uncle tunde rang about the car")  # a rare word is a name


def test_someone_who_says_or_is_asked_is_a_person_though_no_list_names_them():
    assert "Jonno" in named("jonno reckons 400 plus flights")
    assert "Bernie" in named("going to ask bernie tomorrow")


def test_a_possessive_without_its_apostrophe_is_still_the_person():
    assert "Marek" in named("mareks quote came in high")


# Pronouns ------------------------------------------------------------------------------------


def test_a_pronoun_means_the_one_person_who_agrees_and_nobody_when_two_do():
    referents = Referents()
    referents.new_clause()
    referents.named(Known("Dave"))
    referents.named(Known("Sarah"))
    assert referents.meant("she").name == "Sarah"
    assert referents.meant("he").name == "Dave"

    referents.new_clause()
    referents.named(Known("Tom"))
    assert referents.meant("he") is None  # Dave or Tom: not guessed
    assert referents.likely("he").name == "Tom"  # the guess, for where a name is needed


# Waiting-ons ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("said", "who", "what"),
    [
        ("still waiting on the council for the permit", "the council", "permit"),
        ("chasing gerry about the part", "Gerry", "part"),
        ("I'm waiting on Alex to send the contract for the kitchen", "Alex", "contract"),
        ("the school said they'd let us know if there's a place", "the school", "place"),
    ],
)
def test_a_waiting_on_says_who_owes_what(said, who, what):
    [waiting] = extract(said, known=[Known("Gerry"), Known("Alex")]).items["waiting_on"]
    assert waiting["who"] == who and what in waiting["what"]


def test_a_clause_that_names_no_one_who_owes_anything_is_not_a_waiting_on():
    assert extract("waiting for the paint to dry").items["waiting_on"] == []


# Tasks, decisions, questions -----------------------------------------------------------------


def test_a_run_on_of_several_actions_is_one_task_each_without_its_reasons():
    found = extract(
        "need to get him pyjamas because he cant lift his arm and pack him a bag and book the "
        "day off"
    )
    described = [task["description"] for task in found.items["tasks"]]
    assert len(described) == 3, described
    assert not any("because" in text or "lift his arm" in text for text in described)
    assert any(text.startswith("book the day off") for text in described)


@pytest.mark.parametrize(
    ("said", "choice"),
    [
        ("fine, quartz it is", "quartz"),
        ("went with the white oak fronts after all", "go with the white oak fronts"),
        # What a framing word frames: past a colon, a dash or a comma when it is not its
        # complement, from the frame on, and the inner frame of two.
        ("I don't think she'd cope so decided: carer twice a day", "carer twice a day"),
        ("right, decision made - we're going with the travelodge", "go with the travelodge"),
        ("sam and i agreed, no more takeaways on weeknights", "no more takeaways on weeknights"),
        ("after all that we decided to keep the old sofa", "keep the old sofa"),
    ],
)
def test_a_decision_is_the_choice_without_what_surrounds_it(said, choice):
    [decision] = extract(said).items["decisions"]
    assert decision["what"] == choice


def test_a_terse_choice_is_written_as_the_clause_that_said_what_it_is_about():
    found = extract("we're swapping the kitchen tap for the brushed brass one", "ok brass it is")
    assert [d["what"] for d in found.items["decisions"]] == [
        "swap the kitchen tap for the brushed brass one"
    ]


def test_a_terse_choice_with_nothing_before_it_stays_as_said():
    found = extract("the weather has been awful", "ok brass it is")
    assert [d["what"] for d in found.items["decisions"]] == ["brass"]


@pytest.mark.parametrize(
    ("said", "kept"),
    [
        ("we can't afford the oak", "can't afford the oak"),
        ("i can’t do the school run thursdays", "can’t do the school run thursdays"),
        ("we can do tuesdays", "do tuesdays"),
        ("don't forget to ring the garage", "ring the garage"),
    ],
)
def test_a_frame_comes_off_only_as_a_word_of_its_own(said, kept):
    """ "can" is the frame of "we can do tuesdays", not of "can't": no "'t afford the oak"."""
    assert phrases.strip_frame(said) == kept


def test_what_surrounds_a_choice_comes_off():
    assert phrases.choice_of("the other thing is we'll do Mondays so yes that's sorted") == (
        "we'll do Mondays"
    )


def test_a_held_question_keeps_the_members_words():
    found = extract("still dont know if i would take a cut on the 8th")
    # The question as held, its frame off; the 8th stays the 8th (no date is written in).
    assert found.items["questions_opened"][0]["question"] == "Would take a cut on the 8th?"
    assert phrases.question_of("still dont know if we do the floors now or after xmas") == (
        "Do the floors now or after xmas?"
    )


# Dates ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("said", "day"),
    [
        ("the fifteenth", date(2026, 3, 15)),
        ("the third of april", date(2026, 4, 3)),
        ("on the twenty fourth", date(2026, 3, 24)),
    ],
)
def test_dates_said_in_words_are_dates(said, day):
    found = dates.find(said, today=TODAY)
    assert [m.day for m in found] == [day]


@pytest.mark.parametrize(
    ("said", "today", "lean", "days"),
    [
        # On Wednesday 3 June 2026 the 22nd that is a Monday is this month's, not December's.
        (
            "hes not starting the 8th, monday 22nd now",
            date(2026, 6, 3),
            "past",
            [date(2026, 5, 8), date(2026, 6, 22)],
        ),
        ("the boiler man came sat 16th", date(2026, 5, 20), "past", [date(2026, 5, 16)]),
        ("party's saturday 13th", date(2026, 5, 20), "future", [date(2026, 6, 13)]),
        # The 27th of April is a Monday in 2026, a Sunday in 2025.
        ("it's been moved to Monday 27 April", date(2026, 4, 2), "past", [date(2026, 4, 27)]),
        ("the op was on Friday 21 November", date(2026, 4, 2), "past", [date(2025, 11, 21)]),
        # Before a month and day: one day, not a Tuesday (the 21st of April) and then 12 May.
        ("hers moved, its tues may 12 at 7:30", date(2026, 4, 21), "future", [date(2026, 5, 12)]),
        ("sat may 2nd works", date(2026, 4, 21), "future", [date(2026, 5, 2)]),
        # The 4th of March is a Wednesday in 2026, a Tuesday in 2025, a Thursday in 2027.
        ("the op was wed, march 4", date(2026, 11, 2), "past", [date(2026, 3, 4)]),
        ("the op was wed march 4", date(2027, 1, 10), "past", [date(2026, 3, 4)]),
        # In the month said before it, as the weekday fits: 11 December, not a Friday 11th
        # nearer to the day it was said (11 September 2026).
        (
            "recital is thurs 10 dec … actually its fri 11th",
            date(2026, 8, 20),
            "future",
            [date(2026, 12, 10), date(2026, 12, 11)],
        ),
    ],
)
def test_a_weekday_said_with_its_day_names_the_nearest_day_that_fits(said, today, lean, days):
    assert [m.day for m in dates.find(said, today=today, lean=lean)] == days


@pytest.mark.parametrize(
    ("said", "day"),
    [
        # Said on Thursday 12 March 2026: the next Tuesday is the 17th, "tuesday week" the 24th.
        ("vet wants her back tues week", date(2026, 3, 24)),
        # the next Thursday is not today's
        ("parents evening is a week on thursday", date(2026, 3, 26)),
        ("bbq a fortnight on sat", date(2026, 3, 28)),
        ("it's sunday week's match", date(2026, 3, 22)),
    ],
)
def test_a_weekday_a_week_on_is_a_week_after_the_next_one(said, day):
    assert [m.day for m in dates.find(said, today=TODAY)] == [day]


def test_a_month_since_is_behind_not_ahead():
    [since] = dates.find("since january its been 50 a month", today=TODAY)
    assert since.period == (date(2026, 1, 1), date(2026, 2, 1))


@pytest.mark.parametrize(
    "said", ["flights are 14-21 sept", "away the 14th to the 21st of september", "sept 14 - 21"]
)
def test_a_span_of_days_is_its_first_day_and_the_span(said):
    [found] = dates.find(said, today=TODAY)
    assert (found.day, found.period) == (date(2026, 9, 14), (date(2026, 9, 14), date(2026, 9, 22)))


# Facts and supersessions ---------------------------------------------------------------------


def test_a_fact_is_the_members_clause_not_a_rewrite():
    found = extract("we're switching the worktops to quartz", "I've booked the plumber")
    texts = [fact.text for fact in found.facts]
    assert "We're switching the worktops to quartz." in texts
    assert "I've booked the plumber." in texts
    assert not any("Maya" in text or "Tom" in text for text in texts)  # "we" is not a list


def _earlier(key, type_, text, **kwargs):
    return offline.Earlier(key, type_, text, **kwargs)


def test_a_reason_that_names_the_old_choice_does_not_replace_it():
    found = extract("went with quartz worktops after all, butcher block needs too much oiling")
    worktops = _earlier(1, "decision", "go with butcher block worktops", relation="choice")
    [proposal] = offline.supersessions(found, [worktops])
    assert "quartz" in proposal.replacement.casefold()


def test_another_value_of_another_thing_replaces_nothing():
    found = extract("the dentist moved to 4:30 on friday")
    pickup = _earlier(1, "fact", "School pickup is at 3:15.", subject="pickup", relation="time")
    assert offline.supersessions(found, [pickup]) == []


def test_more_about_the_same_thing_without_a_new_value_replaces_nothing():
    found = extract("school pickup is at the side gate, the kids love it")
    pickup = _earlier(1, "fact", "School pickup is at 3:15.", subject="pickup", relation="time")
    assert offline.supersessions(found, [pickup]) == []


def test_a_terse_new_value_is_read_with_what_it_follows():
    found = offline.extract(
        [
            ("assistant", "Has the wedding moved?"),
            ("user", "yep sat 19 sept now"),
        ],
        today=TODAY,
        member="Owen",
        household=["Owen", "Priya"],
    )
    wedding = _earlier(1, "fact", "Hannah's wedding is on Saturday 12 September 2026.")
    assert [p.key for p in offline.supersessions(found, [wedding])] == [1]
