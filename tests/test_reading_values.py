"""Reading the value a sentence gives (issue 22): where it says a thing is, a value said as no
longer so ("3:30 now, not 3pm"), the words that say a value changed, and figures kept whole when
a run-on is read a clause at a time."""

from __future__ import annotations

from datetime import date

import pytest

from conversations import candidates, sentence_values, terms
from talkingrock.language import amounts, dates, names, places, spoken, tense, values
from talkingrock.language.offline.lexicon import normalise

SAID_ON = date(2026, 6, 3)


@pytest.mark.parametrize(
    ("sentence", "found"),
    [
        ("its sept 8 + 9 in penzance this year", ["penzance"]),
        ("moved to sheffield now, sat 23rd", ["sheffield"]),
        ("the do is at the bowls club pavilion now", ["bowls club pavilion"]),
        ("we're going to Madeira instead, 14th to 21st", ["Madeira"]),
        ("spare key is behind the meter box by the porch", ["meter box"]),
        ("pick them up at school then on to Aldi", ["school", "Aldi"]),
        ("i'll be there in a bit, on the phone till 6", []),
        ("see you in the morning at 5", []),
        # a word the tokenizer splits at its hyphens is one word
        ("got the cake from the big Co-op on the ring road", ["big Co-op"]),
        ("grabbed lunch at the drive-thru", ["drive-thru"]),
    ],
)
def test_a_place_is_what_follows_where_words_but_not_a_time(sentence, found):
    assert [p.words for p in places.places_in(sentence)] == found


@pytest.mark.parametrize(
    ("sentence", "kind", "value"),
    [
        ("swimming is 5:15 now, not 4:45", "time", "5:15pm"),
        ("the rent's going up from £640 to £685", "amount", "£685"),
        ("she's charging €520 now not 450 bc of the receipts", "amount", "€520"),
        ("hes not starting the 8th 🙄", "date", ""),
        ("the party's at the cricket club now, not the Fox", "place", "cricket club"),
        (
            "adjustments every 6 weeks, always tues first thing",
            "schedule",
            "every 6 weeks, on Tuesday",
        ),
        (
            "taking her on the 3rd at 9:15 … wait no, 9:45. wrote it down wrong",
            "date",
            "Wednesday 3 June 2026 at 9:45am",
        ),
        ("the quote was 640 … sorry i mean 460", "amount", "460"),
        # A figure and shorthand after "at" name no place.
        ("pots at 1250 btw", "place", ""),
        ("we are at the town hall btw", "place", "town hall"),
        # A correction said as "wait, it's …" or "actually it's …", in the month said before.
        (
            "the recital is thurs 10 dec at st marys … wait its fri 11th, thurs is the dress run",
            "date",
            "Friday 11 December 2026",
        ),
        ("vet said 9:30 … actually it's 10:15", "time", "10:15am"),
        # A change told beside days said of other things: the day said as the one now.
        (
            "quiz night got moved … the hall has the craft fair july 4 + 5 … so its the 11th now",
            "date",
            "Saturday 11 July 2026",
        ),
        ("grace oduya is playing for us now, paul broke his wrist", "name", "Grace Oduya"),
        # Someone who can no longer do a day strikes it, typed with or without the apostrophe.
        ("sam cant do mondays anymore", "schedule", ""),
        ("oh n glenn can't do thurs anymore", "date", ""),
        (
            "tues n thurs now, sam cant do mondays anymore",
            "schedule",
            "weekly on Tuesday and Thursday",
        ),
        ("we can't make the 3pm one so 4:30", "time", "4:30pm"),
        # "want" and "rent" end in "nt" and strike nothing
        ("the rent is 640", "amount", "640"),
        # a rate, as a bare figure with its decimals, the one struck out not given
        ("lender repriced. 5yr is 4.19 now not 4.09", "rate", "4.19%"),
        ("the rate went UP. 4.79 now, not 4.49", "rate", "4.79%"),
        ("locked in at 3.85% for five years", "rate", "3.85%"),
        ("she charges £35 an hour, was £30", "rate", "£35 an hour"),
        ("the rate went up again", "rate", ""),
    ],
)
def test_a_value_said_as_no_longer_so_is_not_the_one_given(sentence, kind, value):
    assert sentence_values.value_in(sentence, kind, said_on=SAID_ON) == value


@pytest.mark.parametrize(
    ("sentence", "kind", "value"),
    [
        ("tues is off now, doing thurs instead", "date", "Thursday 4 June 2026"),
        ("the red lion fell through so drinks at the crown", "place", "crown"),
        ("St Marys hall is closed for repairs, rehearsal moved to the library", "place", "library"),
        ("Camden venue cancelled last minute, gig is at the Roundhouse now", "place", "Roundhouse"),
        ("the fox double booked us, partys at the cricket club now", "place", "cricket club"),
        # What is called off in the next sentence is the next sentence's subject.
        (
            "han has moved the wedding … sat 19 sept. the quinta double booked them",
            "date",
            "Saturday 19 September 2026",
        ),
        # The place it is now, typed lower-case after "its" or "doing", once another is off.
        ("liverpool place cancelled on them so its manchester now", "place", "manchester"),
        ("the barn venue cancelled on us, its the golf club now", "place", "golf club"),
        ("lisbon flights got cancelled so were doing porto instead", "place", "porto"),
        ("the hall is closed so its thursday now", "place", ""),
        ("its bin day now", "place", ""),
        # A sum off is no sum called off.
        ("farquharson approved it, + 150 off may rent for the hot water", "amount", "150"),
        # Asked what is coming, a day still ahead comes before the day something was told.
        (
            "the garage rang on Monday, they can fit the tyres the 12th instead",
            "date",
            "Friday 12 June 2026",
        ),
    ],
)
def test_a_value_called_off_after_it_is_said_is_not_the_one_given(sentence, kind, value):
    """ "X cancelled", "X fell through", "X is off", "X double booked", "X closed": what
    replaced it holds."""
    assert sentence_values.value_in(sentence, kind, said_on=SAID_ON) == value


@pytest.mark.parametrize(
    ("sentence", "changed"),
    [
        ("they dropped us to £121 from August", True),
        ("put the basic service up to £30", True),
        ("prices came down a bit", True),
        ("shes charging £410 now bc of the receipts", True),
        ("swimming is now at 5:15", True),
        ("now sat 12 dec at the scout hut", True),
        ("its now tuesdays after school", True),
        ("I am now at work", False),
        ("we cut the grass on sunday", False),
        ("I put it in the drawer next to the door", False),
        ("pickup is at 3pm", False),
    ],
)
def test_the_words_that_say_a_value_changed(sentence, changed):
    assert values.says_it_changed(sentence) is changed


def test_a_run_on_read_a_clause_at_a_time_keeps_its_figures_whole():
    """Commas and colons inside "$2,300" and "10:30" do not end a clause."""
    run_on = (
        "got three quotes, the first lot wanted $2,300 which lol no, the second said $900 cash "
        "which also no, and the third came in at $1,850 for three guys, here at 10:30 on the day"
    )
    pieces = candidates.in_pieces(run_on)
    assert len(pieces) > 1
    joined = " | ".join(pieces)
    assert "$2,300" in joined and "$1,850" in joined and "10:30" in joined
    assert "$2 " not in joined and "$2," not in joined.replace("$2,300", "")


@pytest.mark.parametrize(
    ("sentence", "pieces"),
    [
        (
            "She says ten weeks for the cheque), and, fyi, our first month of hydro was $186",
            ["She says ten weeks for the cheque)", "fyi, our first month of hydro was $186"],
        ),
        (
            "the rebate is 4300, btw the hydro was 186",
            ["the rebate is 4300", "btw the hydro was 186"],
        ),
        ("fyi the bank asked", ["fyi the bank asked"]),
        ("no other subject here, just a clause", ["no other subject here, just a clause"]),
    ],
)
def test_a_clause_that_opens_another_subject_is_read_on_its_own(sentence, pieces):
    """However short the sentence, and in a fact kept as well as a message: what follows "fyi"
    or "btw" is not what the words before it go on to say."""
    assert candidates.by_subject(sentence) == pieces
    assert candidates.in_pieces(sentence) == pieces


def test_a_value_is_read_from_its_own_clause_first():
    """ "$900 cash, also no. Buckeye came in at $1,850": the figure said with the thing asked
    about, not the one nearer in letters across a clause boundary."""
    sentence = "the other guy said $900 cash which, also no. harbour movers came in at $1,850"
    about = frozenset({"harbour", "mover"})
    assert sentence_values.value_in(sentence, "amount", said_on=SAID_ON, about=about) == "$1,850"


def test_a_colon_ends_the_clause_a_value_is_read_from():
    """ "the hospital called today: my op has been moved to …": the day said of the op, not the
    day of the call, though the call's is nearer in letters."""
    sentence = "the hospital called today: my op has been moved to Thursday 18 June"
    about = frozenset({"op"})
    assert sentence_values.value_in(sentence, "date", said_on=SAID_ON, about=about) == (
        "Thursday 18 June 2026"
    )


@pytest.mark.parametrize(
    ("said", "value"),
    [
        ("jo wants 60 deposit by the 20th", "60"),
        ("paid 45 for the parking", "45"),
        ("20 more people are coming", None),
        ("we have 12 kids coming", None),
    ],
)
def test_a_two_digit_number_is_a_sum_only_beside_a_word_of_money(said, value):
    found = [str(a.value) for a in amounts.find(said)]
    assert found == ([value] if value else [])


@pytest.mark.parametrize(
    ("said", "shown"),
    [
        ("tickets are R450 each", ["R450 each"]),
        ("the levy is R9,850 a month", ["R9,850 a month"]),
        ("Dad accepted R3.05 million for the house", ["R3,050,000"]),
        # the rand's R only right against its figure, and only as a capital
        ("R&B night at the club", []),
        ("are r 2 of them coming", []),
        ("row R 12 in the stand", []),
    ],
)
def test_a_rand_amount_is_money(said, shown):
    """ "R450": the rand's sign is a capital R right against the figure."""
    assert [a.said() for a in amounts.find(said)] == shown


@pytest.mark.parametrize(
    ("said", "shown"),
    [
        ("she charges £35 an hour", ["£35 an hour"]),
        ("the rent's £900 a month", ["£900 a month"]),
        ("$5 an item at the sale", ["$5 an item"]),
    ],
)
def test_a_price_per_hour_is_said_an_hour(said, shown):
    """The article before what a price is per follows its sound: "an hour", "a month"."""
    assert [a.said() for a in amounts.find(said)] == shown


def test_a_rand_amount_said_as_no_longer_so_is_struck():
    said = "price went up again, R560 each not R450"
    assert sentence_values.value_in(said, "amount", said_on=SAID_ON) == "R560 each"
    assert sentence_values.replaced_in(said, "amount", said_on=SAID_ON) == "R450"


@pytest.mark.parametrize(
    ("said", "shown"),
    [
        ("its a fiver per 10 mins late", ["£5", "10 minutes"]),
        ("lent dan a tenner for the taxi", ["£10"]),
        ("£5 in coins and a fiver", ["£5", "£5"]),
        ("the fivers team won", []),
        ("its a tenner a week for the paper round", ["£10 a week"]),
    ],
)
def test_a_banknote_named_for_a_sum_is_that_sum(said, shown):
    assert [a.said() for a in amounts.find(said)] == shown


@pytest.mark.parametrize(
    ("said", "shown"),
    [
        ("the inspector was here about two and a half hours", ["2.5 hours"]),
        ("its an hour and a half each way", ["1.5 hours"]),
        ("took 3 and a half weeks in the end", ["3.5 weeks"]),
        ("the roof was two and a half grand", ["£2,500"]),
        ("she's two and a half now", []),
        ("I wrote it down ten minutes ago and lost it", []),
        ("paid it 3 weeks back, took 20 mins", ["20 minutes"]),
        ("20 mins there and 20 mins back", ["20 minutes", "20 minutes"]),
        ("rent is two and a half grand a month", ["£2,500 a month"]),
        ("the quote was $3 and a half grand", ["$3,500"]),
        ("she rang two and a half hours ago", []),
    ],
)
def test_a_half_said_in_words_is_half_of_the_unit(said, shown):
    assert [a.said() for a in amounts.find(said, default_currency="£")] == shown


def test_a_run_of_number_words_with_no_end_is_no_amount():
    """Hostile input: a spoken number is a dozen words at most, so a run of thousands is read
    word by word (the pattern had backtracked over the whole run from every word)."""
    assert amounts.find("two " * 20_000 + "and a half hours") == []


@pytest.mark.parametrize(
    ("said", "counted"),
    [
        ("mi run the food four the cookout and wi say eighty people", [80]),
        ("went two the shops, got four chairs", [4]),
        ("the two of them are coming", [2]),
    ],
)
def test_four_and_two_dictated_for_for_and_to_count_nothing(said, counted):
    """Before a determiner or a pronoun, "four" is a dictated "for" and "two" a "to"."""
    assert [n for _, _, n in amounts.counts(said, in_words=True)] == counted


@pytest.mark.parametrize(
    ("said", "shown", "per", "each_of"),
    [
        ("the disco is £6 a ticket, under 5s free", "£6 a ticket", "each", "ticket"),
        ("she charges 30 euro per lesson", "€30 a lesson", "each", "lesson"),
        ("the b&b is £90 a night w breakfast", "£90 a night", "each", "night"),
        ("£14 a head for the buffet", "£14 each", "each", ""),
        # a word after "a" that is no thing a price is each of
        ("$120 a bit steep for a hoodie tbh", "$120", "", ""),
        ("paid £200 a couple of weeks ago", "£200", "", ""),
        ("sent him £30 a minute ago", "£30", "", ""),
        ("£75 a month for the gym", "£75 a month", "month", ""),
    ],
)
def test_a_price_each_is_of_the_thing_named_after_it(said, shown, per, each_of):
    [amount] = amounts.find(said)
    assert (amount.said(), amount.per, amount.each_of) == (shown, per, each_of)


def test_a_date_is_read_by_the_verb_of_its_own_sentence():
    """ "sami made the swim meet!! its aug 8": "made" is another sentence's; the date is ahead."""
    said = "cabin news … sami made the regional swim meet!! its aug 8 + 9 in truro"
    assert tense.lean_of(said, at=said.find("aug")) == "future"
    assert sentence_values.value_in(said, "date", said_on=SAID_ON).endswith("8 August 2026")


@pytest.mark.parametrize(
    ("said", "day"),
    [("booked the tiler, he starts on the 4th", "Thursday 4 June 2026"),
     ("rang the school, we go back the 4th", "Thursday 4 June 2026"),
     ("sorted the van, we leave on the 4th at 9", "Thursday 4 June 2026 at 9am")],
)  # fmt: skip
def test_a_day_told_in_the_present_after_a_past_verb_lies_ahead(said, day):
    """A subject and a verb that is no past form, nearer the day than "booked": ahead."""
    assert tense.lean_of(said, at=said.find("the 4th")) == "future"
    assert sentence_values.value_in(said, "date", said_on=SAID_ON) == day


@pytest.mark.parametrize(
    ("said", "day"),
    [
        ("the physio got moved to friday at 4", "Friday 5 June 2026 at 4pm"),
        ("they pushed it back to the 14th, same time", "Sunday 14 June 2026"),
        ("parents evening was rescheduled for tues", "Tuesday 9 June 2026"),
        ("the parcel came on the 1st", "Monday 1 June 2026"),  # what happened still looks back
        ("we moved to leeds on the 1st", "Monday 1 June 2026"),  # moved house: it happened
        ("appointment booked for the 2nd at 9:15", "Thursday 2 July 2026 at 9:15am"),
    ],
)
def test_a_day_a_plan_was_moved_to_lies_ahead(said, day):
    """ "moved to friday": a past verb, but the day is where the plan stands now."""
    assert sentence_values.value_in(said, "date", said_on=SAID_ON) == day


@pytest.mark.parametrize(
    ("said", "kind", "value"),
    [
        # a time typed with a dot, where the text tells of a day, is a time; the days joined
        # by "n" are one schedule, and its time is said with it
        ("training mon n wed after school 4.15 at the park", "schedule",
         "weekly on Monday and Wednesday at 4:15pm"),
        ("tues and thurs now 5.30 under lights", "schedule", "weekly on Tuesday and Thursday at 5:30pm"),
        ("booked her test thurs 13 aug 9.40 at porirua", "date", "Thursday 13 August 2026 at 9:40am"),
        ("the 10.30 train tomorrow", "time", "10:30am"),
        # the time of a slot, said after "on the" or ", the"
        ("moved to tue thu sat on the 12.30pm slot", "schedule",
         "weekly on Tuesday, Thursday and Saturday at 12:30pm"),
        ("she goes tue thu sat, the 12.30pm slot", "schedule",
         "weekly on Tuesday, Thursday and Saturday at 12:30pm"),
        # no day told, a sum, or a measure: no time
        ("it came to 4.30 in the end", "time", ""),
        ("£4.50 on tuesday", "time", ""),
        ("paid 3.50 each on monday", "time", ""),
        ("ran 10.25 km on sunday", "time", ""),
    ],
)  # fmt: skip
def test_a_time_typed_with_a_dot_is_a_time_where_a_day_is_told(said, kind, value):
    assert sentence_values.value_in(said, kind, said_on=SAID_ON) == value


@pytest.mark.parametrize(
    ("said", "day"),
    [("new date for the hen … 23rd … same price", "Tuesday 23 June 2026"),
     ("23rd", "Tuesday 23 June 2026"),
     ("when is it now? … on the 9th!", "Tuesday 9 June 2026")],
)  # fmt: skip
def test_a_day_of_the_month_typed_as_a_message_of_its_own_is_a_day(said, day):
    """ "Moved to when?" "23rd": a day of the month alone in its message (a burst's messages
    are read joined by "…") is a day, though no "the" or "on" comes before it."""
    assert sentence_values.value_in(said, "date", said_on=SAID_ON) == day


@pytest.mark.parametrize(
    "said",
    ["she came 2nd … lol", "he was 23rd in the race", "the 3rd floor … by the lift", "second"],
)
def test_a_place_in_a_race_or_a_floor_is_no_day(said):
    assert sentence_values.value_in(said, "date", said_on=SAID_ON) == ""


@pytest.mark.parametrize(
    ("said", "plan", "day"),
    [
        # a test booked for 13 August, moved in June: the 20th of August, not of June
        ("mias test moved to the 20th", date(2026, 8, 13), "Thursday 20 August 2026"),
        ("hen moved … 23rd", date(2026, 7, 18), "Thursday 23 July 2026"),
        # the nearest month's: the 2nd after a plan for the 30th is the next month's
        ("pushed back to the 2nd", date(2026, 7, 30), "Sunday 2 August 2026"),
        # a plan's month that has passed when it was said is no guide
        ("moved to the 20th", date(2026, 5, 13), "Saturday 20 June 2026"),
    ],
)
def test_a_day_said_alone_as_a_change_is_read_in_the_month_of_the_plan(said, plan, day):
    """ "moved to the 20th", said in June of a test booked for 13 August, is 20 August: a day
    of the month said without one is read in the month nearest the day of the plan it changes,
    when that plan was still ahead."""
    assert sentence_values.value_in(said, "date", said_on=SAID_ON, plan=plan) == day


def test_a_weekday_and_day_said_as_a_change_is_the_one_nearest_the_plan():
    """ "put us on thurs 9th instead", said in April of a flight on Wednesday 8 July: 9 July
    (a Thursday too), not 9 April."""
    said = "put us on thurs 9th instead same time"
    assert (
        sentence_values.value_in(said, "date", said_on=date(2026, 4, 24), plan=date(2026, 7, 8))
        == "Thursday 9 July 2026"
    )


@pytest.mark.parametrize(
    ("said", "struck"),
    [("air nz emailed, our flight on the 8th got cancelled", "Monday 8 June 2026"),
     ("the thursday 11th slot fell through", "Thursday 11 June 2026"),
     ("pickup on the 8th, we're all set", "")],
)  # fmt: skip
def test_a_day_called_off_after_it_is_said_is_the_one_replaced(said, struck):
    assert sentence_values.replaced_in(said, "date", said_on=SAID_ON) == struck


def test_a_month_the_text_names_comes_before_the_plans():
    said = "its aug 8 + 9 in truro so were doing the 15th now"
    found = dates.find(said, today=SAID_ON, plan=date(2026, 7, 1))
    assert [m.day for m in found] == [date(2026, 8, 8), date(2026, 8, 15)]


def test_a_day_a_plan_is_moved_to_is_its_day_now_not_the_day_it_was_told():
    """ "phoned on Thursday, the move is pushed to the 28th": the move is on the 28th."""
    said = "Charmaine phoned on Thursday the move is pushed to the 28th because of the painters"
    assert sentence_values.value_in(said, "date", said_on=SAID_ON) == "Sunday 28 June 2026"


@pytest.mark.parametrize(
    ("said", "kind", "value"),
    [("got him down … 850 … sorry 875 not 850", "amount", "875"),
     ("pickup at 4pm … sorry 4:30 not 4pm", "time", "4:30pm")],
)  # fmt: skip
def test_a_value_struck_out_is_struck_where_it_was_said_before(said, kind, value):
    assert sentence_values.value_in(said, kind, said_on=SAID_ON) == value


def test_a_span_of_days_is_said_as_a_span():
    assert sentence_values.value_in("we're away 15-22 aug now", "date", said_on=SAID_ON) == (
        "15 to 22 August 2026"
    )


def test_so_long_ago_is_about_that_day():
    said = "her op was 3 weeks ago"
    assert (
        sentence_values.value_in(said, "date", said_on=SAID_ON, happened=True)
        == "around 13 May 2026"
    )


@pytest.mark.parametrize(
    ("said", "when"),
    [
        ("the roof was done back in april", "April 2026"),
        ("she moved out last march", "March 2026"),
        ("we got the boiler fitted by end of february", "end of February 2026"),
    ],
)
def test_what_was_done_in_a_month_it_names_happened_then(said, when):
    """Asked when it happened, a month said alone is the answer, not the day it was told."""
    assert sentence_values.value_in(said, "date", said_on=SAID_ON, happened=True) == when


@pytest.mark.parametrize(
    ("said", "when"),
    [
        # SAID_ON is Wednesday 3 June: the run is the days of it last gone by
        ("denis guys tues n wed", "Tuesday 2 and Wednesday 3 June 2026"),
        ("plumber mon and tue.", "Monday 1 and Tuesday 2 June 2026"),
        ("painters fri sat sun", "Friday 29, Saturday 30 and Sunday 31 May 2026"),
        # a schedule said as one stays a schedule, and is no day of what happened
        ("we go tuesdays and thursdays", ""),
        ("every tue and thu", ""),
    ],
)
def test_a_bare_run_of_days_told_of_what_happened_is_the_days_just_gone(said, when):
    assert sentence_values.value_in(said, "date", said_on=SAID_ON, happened=True) == when


def test_a_bare_run_of_days_asked_of_what_is_coming_stays_a_schedule():
    said = "denis guys tues n wed"
    assert sentence_values.value_in(said, "date", said_on=SAID_ON) == (
        "weekly on Tuesday and Wednesday"
    )


@pytest.mark.parametrize(
    ("days", "said"),
    [
        ([date(2026, 4, 14), date(2026, 4, 15)], "Tuesday 14 and Wednesday 15 April 2026"),
        ([date(2026, 3, 31), date(2026, 4, 1)], "Tuesday 31 March and Wednesday 1 April 2026"),
        ([date(2025, 12, 31), date(2026, 1, 1)], "Wednesday 31 December 2025 and Thursday 1 January 2026"),
        ([date(2026, 4, 14)], "Tuesday 14 April 2026"),
    ],
)  # fmt: skip
def test_days_said_together_say_their_month_and_year_once(days, said):
    assert spoken.spoken_days(days) == said


@pytest.mark.parametrize(
    ("sentence", "goes_on"),
    [
        ("It is now Tuesday, April 21st, not the 14th", True),
        ("and it's the 14th", True),
        ("That's 45 quid", True),
        ("wait no mon 11th.", True),
        ("sorry i mean the 14th", True),
        ("Italy is nice", False),
        ("itinerary is done", False),
        ("The vote has been moved.", False),
    ],
)
def test_a_sentence_that_points_back_or_corrects_goes_on_about_the_one_before(sentence, goes_on):
    assert candidates.goes_on(sentence) is goes_on


@pytest.mark.parametrize(
    ("words", "derived"),
    [("operated operation", True), ("renewed renewal", True), ("appointed appointment", True),
     ("confirm confirmation", True), ("sign signal", False), ("part party", False),
     ("form formal", False), ("car career", False)],
)  # fmt: skip
def test_a_verb_finds_the_noun_made_of_it(words, derived):
    first, second = (terms.stem(word) for word in words.split())
    assert terms.derived(first, second) is derived


@pytest.mark.parametrize(
    ("said", "date_word", "lean"),
    [
        # no verb before the date: the one just after it tells the time
        ("the operation on the third went fine, home the next day", "third", "past"),
        ("the wedding on sat was lovely", "sat", "past"),
        ("the vet on tuesday said she's fine. next one is in june", "tuesday", "past"),
        ("dinner on the 3rd is booked", "3rd", "future"),
        ("party on the 14th will be big", "14th", "future"),
        # a verb before it still decides
        ("im taking her on the 2nd, it went well last time", "2nd", "future"),
        # "'s" said with the date is "is", after a past word for another thing
        ("craig rang this morning the install's now the twenty second", "twenty", "future"),
        # whose place it is, after "to" or "at", is no "is"
        ("we went to mum's on the 3rd", "the 3rd", "past"),
        ("we had dinner at nan's on sunday", "sunday", "past"),
    ],
)
def test_a_date_with_no_verb_before_it_is_read_by_the_verb_after_it(said, date_word, lean):
    assert tense.lean_of(said, at=said.find(date_word)) == lean


@pytest.mark.parametrize(
    ("said", "hour"),
    [
        ("we are now at ten tables, not eight", None),
        ("by 5 guests we'll need the big room", None),
        ("meet at ten sharp", 10),
        ("pickup at 3 thurs", 15),
        ("see you at ten this morning", 10),
        # said to whoever reads it, or a contraction without its apostrophe: an hour
        ("dinner at 8 guys", 20),
        ("kickoff at 3 lads", 15),
        ("pub from two till four thats the plan", 14),
    ],
)
def test_a_number_after_at_that_counts_a_thing_is_no_hour(said, hour):
    times = [m.time.hour for m in dates.find(said, today=SAID_ON) if m.time]
    assert times == ([hour] if hour else [])


def test_a_thing_counted_after_at_is_the_count():
    said = "We are now at ten tables, not eight."
    assert (
        sentence_values.value_in(said, "count", said_on=SAID_ON, about=frozenset({"tabl"})) == "10"
    )


@pytest.mark.parametrize(
    ("said", "about", "name"),
    [
        # in so many words, else what the parser names, a business or a building before a person
        ("it's called Rosebank, the one by the station", {"hous"}, "Rosebank"),
        ("booked hanif at H&A Autos on thornton road for friday", {"hanif", "garag"}, "H&A Autos"),
        ("Sunday 17th May, at Sri Rama Kalyana Mantapa in Hanumanthanagar.", {"hall"}, "Sri Rama Kalyana Mantapa"),
        ("we went with Eikenlaan Studios in the end, 610 a month", {"hous"}, "Eikenlaan Studios"),
        # a people or a language is no thing's name
        ("took mum to that Chinese restaurant by the station, Golden Dragon", {"restaur"}, "Golden Dragon"),
        # "called" after "is" names, whatever word the name starts with; "called" alone rang
        ("the boat is called Sunday Best", {"boat"}, "Sunday Best"),
        ("beto called tues about the truck", {"beto", "shop"}, ""),
        # nothing named: no name; nor one that names what is asked about
        ("the fence guy came round tuesday", {"fenc"}, ""),
        ("Sent Ryan to tekong last tues.", {"ryan", "sergeant"}, ""),
    ],
)  # fmt: skip
def test_the_name_a_sentence_gives_a_thing(said, about, name):
    assert sentence_values.value_in(said, "called", said_on=SAID_ON, about=frozenset(about)) == name


def test_its_before_a_thing_is_whose_not_it_is():
    """ "failed its mot on 30 december", said in June: what happened, last December."""
    said = "the car failed its mot on 30 december"
    assert tense.lean_of(said, at=said.find("30")) == "past"
    assert tense.lean_of("its on the 3rd", at=7) == "future"


def test_a_name_asked_for_is_not_the_one_the_question_names():
    """ "what did lee say": the person the answer names is someone else, when there is one."""
    said = "lee said ruth will do the tiling, shes coming tues"
    assert (
        sentence_values.value_in(said, "name", said_on=SAID_ON, about=frozenset({"lee"})) == "Ruth"
    )


@pytest.mark.parametrize(
    ("sentence", "name", "who"),
    [
        ("met the foster lady tonite, teagan. shes had the girl 5 wks", "teagan", "the foster lady"),
        ("Her son Colm rang me from Boston last night", "colm", "Her son"),
        ("nisha's my sister, rakesh is sanjay's younger brother", "nisha", "my sister"),
        ("Pawdrig Walsh from the national school said he'd do it", "pawdrig", "from the national school"),
        ("deirdre whos doing the drawings said the same", "deirdre", "doing the drawings"),
        # the words before a name say who it is only when they end in a word for a person
        ("yeah the solar Craig rang this morning", "craig", ""),
        ("Craig rang", "craig", ""),
        ("send Farah his last school report", "farah", ""),
        ("My manager there will be Priya Nandakumar.", "priya", "My manager"),
        # a day said after the name is not where they are from
        ("back to twice a week with Farah from tomorrow, mon weds at 5", "farah", ""),
    ],
)  # fmt: skip
def test_who_someone_is_is_read_from_the_words_beside_their_name(sentence, name, who):
    about = frozenset({terms.stem(name)})
    assert sentence_values.described(sentence, about, said_on=SAID_ON) == who


@pytest.mark.parametrize(
    ("sentence", "thing", "which"),
    [
        ("its the right knee by the way", "knee", "right knee"),
        ("black bin this week, green next", "bin", "black bin"),
        ("dads knee we finally got the date", "knee", ""),
        ("sanjay's car is in for its mot", "car", ""),
        ("the bin men came", "bin", ""),
        # the word before must open the sentence or follow "the", "my" …: not a verb
        ("test drove fabia sat", "fabia", ""),
        ("we went for the blue fabia in the end", "fabia", "blue fabia"),
    ],
)
def test_which_one_is_the_word_said_before_the_thing(sentence, thing, which):
    assert sentence_values.which_of(sentence, frozenset({terms.stem(thing)})) == which


@pytest.mark.parametrize(
    ("sentence", "kind", "measure"),
    [
        ("4yo, black brindle, 28kg, raced 31 times", "age", "4yo"),
        ("4yo, black brindle, 28kg, raced 31 times", "weight", "28kg"),
        ("its 4 by 5 metres off the back", "size", "4 by 5 metres"),
        ("the rug is 2x3m", "size", "2x3m"),
        # four million is money, not a size; a count is no measure
        ("the loan is £1.2m", "size", ""),
        ("we have 3 by the door", "size", ""),
    ],
)
def test_an_age_a_weight_or_a_size_is_read_with_its_unit(sentence, kind, measure):
    assert sentence_values.value_in(sentence, kind, said_on=SAID_ON) == measure


@pytest.mark.parametrize(
    ("said", "said_on", "struck"),
    [
        # the 14th has passed when it is said: it is this month's, beside the 21st, not next
        ("garage rang, collection is saturday the 21st now not the 14th", date(2026, 11, 17),
         "Saturday 14 November 2026"),
        ("not the 14th but the 21st", date(2026, 11, 17), "Saturday 14 November 2026"),
        # across the turn of a month: the 30th nearest the 2nd (of December) is November's
        ("its the 2nd now not the 30th", date(2026, 11, 20), "Monday 30 November 2026"),
        # a struck day that names its month keeps it
        ("its tues may 12 at 7:30 not may 5", date(2026, 4, 21), "may 5"),
    ],
)  # fmt: skip
def test_a_day_struck_out_is_read_in_the_month_of_the_day_that_replaced_it(said, said_on, struck):
    assert sentence_values.replaced_in(said, "date", said_on=said_on) == struck


@pytest.mark.parametrize(
    ("number", "near", "day"),
    [
        (14, date(2026, 11, 21), date(2026, 11, 14)),
        (30, date(2026, 12, 2), date(2026, 11, 30)),
        (2, date(2026, 11, 29), date(2026, 12, 2)),
        (31, date(2026, 3, 2), date(2026, 3, 31)),  # February has none: March's, the nearest
    ],
)
def test_a_day_of_the_month_near_another_is_the_nearest_of_three_months(number, near, day):
    assert dates.day_of_month_near(number, near) == day


@pytest.mark.parametrize(
    ("said", "kind", "value"),
    [
        # a quarter past, after or to the hour is a time, dictated or typed
        ("dentist friday at quarter past nine", "date", "Friday 5 June 2026 at 9:15am"),
        ("pick him up at a quarter to 4", "time", "3:45pm"),
        ("swim club's a quarter after six on tuesdays", "schedule", "weekly on Tuesday at 6:15pm"),
        ("quarter to twelve at the latest", "time", "11:45am"),
        # a quarter of something is no time
        ("a quarter of the budget went on tiles by friday", "time", ""),
    ],
)  # fmt: skip
def test_a_quarter_past_or_to_the_hour_is_a_time(said, kind, value):
    assert sentence_values.value_in(said, kind, said_on=SAID_ON) == value


@pytest.mark.parametrize(
    ("said", "kind", "value"),
    [
        # minutes past or to the hour, as said aloud
        ("meet at twenty past six", "time", "6:20pm"),
        ("sign on ten to two out a the depot now", "time", "1:50pm"),
        ("the bus is at twenty five to nine", "time", "8:35am"),
        ("drop off ten till nine", "time", "8:50am"),
        # a span led as one stays a span; a count or a measure is no time
        ("open from ten to two on saturday", "time", "10am to 2pm"),
        ("five to ten minutes on sunday", "time", ""),
        ("ten to twelve people coming sat", "time", ""),
        # a departure named by its time, its minutes said as tens
        ("i get the nine forty one from queen street", "time", "9:41am"),
        ("the two hundred quid one", "time", ""),
        ("the nine one", "time", ""),
    ],
)  # fmt: skip
def test_minutes_past_or_to_the_hour_and_a_departure_are_times(said, kind, value):
    assert sentence_values.value_in(said, kind, said_on=SAID_ON) == value


def test_a_day_said_twice_takes_the_time_said_beside_either():
    # "Thursday week" and "the 21st" are one day; the time is said with the second, and the
    # verbs before them ("rang") must not read the 21st as last month's
    said = (
        "The hospital rang on Friday with a cancellation, so I'm having them done on the NHS "
        "after all. Thursday week, the 21st, at quarter past nine, at Shrewsbury."
    )
    assert (
        sentence_values.value_in(said, "date", said_on=date(2026, 5, 12))
        == "Thursday 21 May 2026 at 9:15am"
    )


@pytest.mark.parametrize(
    ("said", "kind", "value"),
    [
        # a span of hours, whatever minutes its ends give, from its first to its last
        ("she takes her wednesdays eight till half five", "schedule",
         "weekly on Wednesday from 8am to 5:30pm"),
        ("open from 9 to 5:30 on saturday", "time", "9am to 5:30pm"),
        ("from 10.30 to 12 on sat", "time", "10:30am to noon"),
        ("two till four on sunday", "time", "2pm to 4pm"),
        ("the party is four to nine", "time", "4pm to 9pm"),
        ("9am to 5pm mon to fri", "time", "9am to 5pm"),
        ("sausage sizzle sat 6th 9-2", "date", "Saturday 6 June 2026 from 9am to 2pm"),
        # a dash with no day told, a sum, a count or a measure: no span
        ("it was 2-1 to us", "time", ""),
        ("£5 to 10 each", "time", ""),
        ("2 to 3 weeks on sunday", "time", ""),
        ("ran from 5 to 10k on sunday", "time", ""),
    ],
)  # fmt: skip
def test_a_span_of_hours_runs_from_its_first_to_its_last(said, kind, value):
    assert sentence_values.value_in(said, kind, said_on=SAID_ON) == value


@pytest.mark.parametrize(
    "said",
    ["i am here by 6", "ok ah, can", "amin from the school rang", "then how many towels ah"],
)
def test_a_word_is_not_a_number_run_into_its_unit(said):
    """ "a" is one only as a word of its own: "am" is no million, "ah" no hour."""
    assert amounts.find(said) == []


@pytest.mark.parametrize(
    ("said", "people"),
    [
        ("first book out sat 28 mar!! time dunno yet", []),
        ("dentist may 5th at 10", []),
        ("mar is coming on the 5th", ["Mar"]),
    ],
)
def test_a_month_beside_its_day_is_no_one_s_name(said, people):
    assert [name for _, name in names.people_in(said)] == people


@pytest.mark.parametrize(
    ("said", "each_of"),
    [
        ("2 tables can, $888 nett per table, 10 pax each", "table"),
        ("$988 nett a table", "table"),
        ("£16 a head", ""),
    ],
)
def test_a_price_each_is_read_with_nett_between(said, each_of):
    (found,) = amounts.find(said)
    assert found.per == "each" and found.each_of == each_of


@pytest.mark.parametrize(
    ("said", "shown"),
    [
        ("Mummy says we are doing 300 guests and not one person more.", []),
        ("it wouldn't go over eleven hundred RPMs no matter what I done", []),
        ("400 people coming now", []),
        ("Check number 2214 for $4,050 to the management company.", ["$4,050"]),
        # a sum still, read for "how much": a word after it that is no count
        ("the quote came thru 24,600. thats fitting, cabinets", ["24,600"]),
        ("it was 450 less the deposit", ["450"]),
        ("nine thousand four hundred all in", ["9,400"]),
    ],
)
def test_a_figure_read_for_how_much_is_no_sum_when_it_counts_or_numbers_something(said, shown):
    """ "How much …" reads a bare figure of three digits as a sum, but not one that counts what
    is said after it ("300 guests") or labels a thing ("check number 2214")."""
    assert [a.said() for a in amounts.find(said, asked_for_a_sum=True)] == shown


@pytest.mark.parametrize(
    ("said", "people"),
    [
        ("Ikenna obi, clearing agent, my colleague used him last year.", ["Ikenna Obi"]),
        ("Rusty, the mechanic there", ["Rusty"]),
        # who said it, not who they are; and a day, a word
        ("Sills r shot, the mechanic says", []),
        ("Monday, the plumber came", []),
        ("Right, the builder came round", []),
    ],
)
def test_a_name_said_first_and_then_who_they_are_is_a_person(said, people):
    assert [name for _, name in names.people_in(said)] == people


@pytest.mark.parametrize(
    ("said", "people"),
    [
        # a word said after a first name does not make it a word ("all positive" after her)
        ("Trainer bronwyn, all positive.", ["Bronwyn"]),
        ("trainer bronwyn, all positive", ["Bronwyn"]),
        # what stands before it still does: "the bill", "my mark"
        ("the bill came to 40 quid", []),
        ("my mark was good", []),
    ],
)
def test_a_lower_case_first_name_is_one_whatever_follows_it(said, people):
    assert [name for _, name in names.people_in(said)] == people


@pytest.mark.parametrize(
    ("said", "count", "shown"),
    [
        # "a hundred" says its one as "a": a count of what follows it, not a sum
        ("so now is a hundred people not eighty", "100", []),
        ("now its a hundred and twenty people", "120", []),
        # and money when money is said with it
        ("it cost a hundred quid", "", ["£100"]),
        ("a hundred and twenty five quid", "", ["£125"]),
    ],
)
def test_a_hundred_is_one_hundred_counted_or_paid(said, count, shown):
    assert sentence_values.value_in(said, "count", said_on=SAID_ON) == count
    assert [a.said() for a in amounts.find(said)] == shown


@pytest.mark.parametrize(
    ("said", "shown", "for_how_much"),
    [
        # a sum dictated in hundreds, where money is said with it
        ("so it's fourteen twenty five a month now", ["1,425 a month"], ["1,425 a month"]),
        ("the written estimate is eighteen fifty", ["1,850"], ["1,850"]),
        ("the rent is twelve fifty dollars", ["$1,250"], ["$1,250"]),
        # its last word dictated for "for" ends it
        ("it cost one eighty five four the shipping", ["185"], ["185"]),
        # or read for "how much"
        ("it ended up twenty seven eighty not twenty three fifty", [], ["2,780", "2,350"]),
        # but from a thousand up only: "one forty" may be a reading
        ("his sugar is like one forty now not two hundred", ["200"], ["200"]),
        # a year, a count, a measure or two numbers that make no such sum: none
        ("like it's nineteen ninety five", [], []),
        ("we're splitting the money fifty fifty", [], []),
        ("he caught a twenty six inch snook", [], []),
        ("one twenty minutes", [], []),
        ("paid one two", [], []),
    ],
)  # fmt: skip
def test_a_sum_dictated_in_hundreds_is_read_where_money_is_said(said, shown, for_how_much):
    assert [a.said() for a in amounts.find(said)] == shown
    assert [a.said() for a in amounts.find(said, asked_for_a_sum=True)] == for_how_much


@pytest.mark.parametrize(
    ("said", "value"),
    [
        # the part of the day said after a time decides its am or pm
        ("leaving Pearson five past seven in the morning", "7:05am"),
        ("took Tyler out at six thirty in the morning", "6:30am"),
        ("mi finish round quarter to ten a night", "9:45pm"),
        ("at 10 at night", "10pm"),
        ("at 6 this evening", "6pm"),
        # and says nothing new of a time that already gives it
        ("3pm in the afternoon", "3pm"),
        ("at 11 in the morning", "11am"),
    ],
)
def test_the_part_of_the_day_said_after_a_time_gives_its_am_or_pm(said, value):
    assert sentence_values.value_in(said, "time", said_on=SAID_ON) == value


@pytest.mark.parametrize(
    ("said", "people"),
    [
        # a word before a name that says who they are is no part of it
        ("Trainer Bronwyn, all positive.", ["Bronwyn"]),
        ("Brother Clive Walters the president", ["Clive Walters"]),
        # a first name that is also an everyday word is the name
        ("Grace Oduya is playing", ["Grace Oduya"]),
        ("Mark Smith came", ["Mark Smith"]),
    ],
)
def test_who_someone_is_said_before_their_name_is_not_their_name(said, people):
    assert [name for _, name in names.people_in(said)] == people


@pytest.mark.parametrize(
    ("said", "about", "name"),
    [
        # a title takes the whole name after it
        ("Dennis's doctor, Dr Caroline Odhiambo, was lovely", {"doctor"}, "Dr Caroline Odhiambo"),
        # with what a hyphen joins to it, as written
        ("The banquet manager is a Ms Ho Mei-kuen, who was most helpful.", {"manager"}, "Ms Ho Mei-kuen"),
        ("my mother saw Dr Kwok Ka-lok on Tuesday", {"mother"}, "Dr Kwok Ka-lok"),
        ("Please send the forms to Ms Mei-kuen Ho by Friday.", {"form"}, "Ms Mei-kuen Ho"),
        # one named only as whose relation it is, is not who is asked for
        ("Dennis's mother, our Mama, was admitted at Mercy Heights on Monday", {"doctor", "treat"}, ""),
        ("Kenzie's counselor is Mrs Hale", {"counselor"}, "Mrs Hale"),
    ],
)  # fmt: skip
def test_the_name_asked_for_is_the_one_named_not_whose_they_are(said, about, name):
    assert sentence_values.value_in(said, "name", said_on=SAID_ON, about=frozenset(about)) == name


@pytest.mark.parametrize(
    ("said", "shown"),
    [
        ("the pens are a hundred and twenty every month", ["120 a month"]),
        ("£10 every week for the paper", ["£10 a week"]),
    ],
)
def test_every_month_is_a_period_as_a_month_is(said, shown):
    assert [a.said() for a in amounts.find(said)] == shown


@pytest.mark.parametrize(
    ("said", "read"),
    [
        ("bin go sent the photos", "who sent the photos"),
        ("bin go?", "who?"),
        # a bin that goes: after a determiner, or before where it goes
        ("when does the green bin go out", "when does the green bin go out"),
        ("did our bin go missing", "did our bin go missing"),
    ],
)
def test_cantonese_who_is_no_bin_that_goes(said, read):
    assert normalise(said) == read
