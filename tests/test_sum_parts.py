"""A sum of the parts a question names ("entry + trainers"), or less a part taken off ("once the
rebate comes through"): the parts read from the question as typed, each part's figure from the
sentence that names it, worked out with real SQLite, the real embedder and recall."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.utils import timezone

from conversations import answers, services
from conversations.models import Conversation, Message
from conversations.sum_parts import parts_of, taken_off
from memories.models import Memory
from memories.recall import recall

NOW = timezone.now()


@pytest.mark.parametrize(
    ("question", "heads"),
    [
        ("what did the skip n the scaffolding come to", ["skip", "scaffolding"]),
        ("how much was the mot + the new wipers altogether", ["mot", "wipers"]),
        ("total 4 the tent, the sleeping bags and the stove?", ["tent", "bags", "stove"]),
        ("the taxi plus the tip, how much", ["taxi", "tip"]),
        ("what did the uniform & the shoes come to all in", ["uniform", "shoes"]),
        # Not a list of things to add up.
        ("so far, flights + hotel, what's it come to", ["flights", "hotel"]),
        # A period said in the list is when, not a thing bought.
        ("what have we spent on scouts so far this yr, dues + camp", ["dues", "camp"]),
        ("what did we spend last month, the gas and the electric combined", ["gas", "electric"]),
        ("how much did we spend on the garden this year in total", []),
        ("when is the plumber coming and what time", []),
        ("how much more was the plumber than he quoted", []),
    ],
)
def test_the_parts_a_question_adds_up_are_read_as_typed(question, heads):
    assert [part.head for part in parts_of(question)] == heads


@pytest.mark.parametrize(
    ("question", "heads"),
    [
        ("whats the boiler come to once the grant comes thru", ["grant"]),
        ("how much do i still owe on the sofa after the deposit", ["deposit"]),
        ("price of the course minus the early bird discount?", ["discount"]),
        ("what's the trip costing less the voucher", ["voucher"]),
        # Not a part taken off: nothing asks how much, or "less" is the difference asked.
        ("what did we do after the wedding", []),
        ("how much less was the second quote", []),
    ],
)
def test_a_part_taken_off_is_read_only_when_the_question_asks_how_much(question, heads):
    assert [part.head for part in taken_off(question)] == heads


def _said(owner, days_ago: int, *lines: str):
    """A past conversation, its messages said ``days_ago`` (kept as evidence as they are stored)."""
    when = NOW - timedelta(days=days_ago)
    talk = Conversation.objects.create(
        owner=owner, status=Conversation.Status.ARCHIVED, started_at=when, archived_at=when
    )
    for line in lines:
        message = services.append(talk, role=Message.Role.USER, content=line)
        Memory.everything.filter(message=message).update(created_at=when, happened_at=when)


def _talk(owner, days_ago: int, *turns: tuple[str, str]):
    """A past conversation of (role, text) turns, said ``days_ago``."""
    when = NOW - timedelta(days=days_ago)
    talk = Conversation.objects.create(
        owner=owner, status=Conversation.Status.ARCHIVED, started_at=when, archived_at=when
    )
    for role, line in turns:
        message = services.append(talk, role=role, content=line)
        Memory.everything.filter(message=message).update(created_at=when, happened_at=when)


def ask(owner, question: str) -> answers.Answer:
    return answers.answer_question(owner, question, recall(owner, question, k=10), now=NOW)


def test_a_total_of_named_parts_adds_each_part_said_in_its_own_conversation(alice, index):
    _said(alice, 60, "signed up for the half marathon in october!!", "entry was £42")
    _said(alice, 30, "went to the running shop, new trainers £119 ouch")
    _said(alice, 20, "bought a new kettle, £35")
    index(alice)

    answer = ask(alice, "whats the half cost me so far, entry + trainers")

    assert answer.kind == "answer"
    lines = answer.text.splitlines()
    assert lines[0] == "£161: £42 (entry) + £119 (trainers)"
    assert any("entry was £42" in line for line in lines[1:])
    assert any("trainers £119" in line for line in lines[1:])
    assert "kettle" not in answer.text


def test_a_total_is_not_given_when_a_part_was_never_priced(alice, index):
    _said(alice, 60, "signed up for the half marathon in october!!", "entry was £42")
    _said(alice, 30, "need new trainers before the half")
    index(alice)

    answer = ask(alice, "whats the half cost me so far, entry + trainers")

    assert not answer.text.startswith("£42:")
    assert "(trainers)" not in answer.text


def test_each_part_takes_its_own_figure_from_a_sentence_that_names_several(alice, index):
    _said(
        alice,
        40,
        "so the piano was $1,200 from sylvie and the movers charged $380 to bring it over",
    )
    _said(alice, 10, "rejean came to do the first tuning, $140")
    index(alice)

    answer = ask(
        alice, "all in, what did the piano cost me: the piano itself, the movers and the tuning?"
    )

    assert answer.text.splitlines()[0] == ("$1,720: $1,200 (piano) + $380 (movers) + $140 (tuning)")


def test_a_part_taken_off_is_subtracted_from_what_the_thing_came_to(alice, index):
    _said(alice, 50, "solar panels are in, final bill from sunvolt is $9,210")
    _said(alice, 20, "applied for the solar rebate, its $1,500 back once they approve it")
    index(alice)

    answer = ask(alice, "so once the rebate comes through what's the solar actually cost us")

    assert answer.kind == "answer"
    assert answer.text.splitlines()[0] == "$7,710: $9,210 less $1,500 (rebate)"
    assert "final bill" in answer.text and "solar rebate" in answer.text


def test_a_part_priced_in_the_next_message_takes_the_figure_after_but(alice, index):
    """ "got new trainers", then "were 140 but 119 w/ club discount": what was paid is 119."""
    _said(alice, 60, "signed up for the half!!", "entry was £42")
    _said(alice, 30, "got new trainers", "were 140 but 119 w/ club discount")
    index(alice)

    answer = ask(alice, "whats the half cost me so far, entry + trainers")

    assert answer.text.splitlines()[0] == "£161: £42 (entry) + £119 (trainers)"


def test_a_rate_is_not_what_a_part_came_to(alice, index):
    _said(alice, 40, "piano lessons with therese are $55 a lesson")
    _said(alice, 30, "the movers charged $380 to bring the piano over")
    index(alice)

    answer = ask(alice, "what did the piano and the movers come to")

    # The piano's only figure is a rate: no total is made up from it.
    assert "$55" not in answer.text.splitlines()[0]
    assert "(piano)" not in answer.text


def test_one_figure_for_two_parts_gives_no_total(alice, index):
    """The best figure for the flights is the one the hotel took: which it is of is unclear."""
    _said(alice, 20, "booked the hotel and the flights, £640 all in")
    index(alice)

    answer = ask(alice, "what did the flights and the hotel come to")

    assert not answer.text.startswith("£1,280")
    assert "(flights)" not in answer.text


@pytest.mark.parametrize(
    "question",
    [
        "+ + +",
        "what did + and & plus come to",
        "total " + "the tent, " * 400 + "and the stove",
        "how much minus minus less after once once",
        "whats the half cost me so far, entry + trainers",
        "\x00 entry + trainers \u202e total",
        "how much after the " + "9" * 400,
    ],
)
def test_a_hostile_sum_question_gets_an_answer_not_an_error(alice, index, question):
    _said(
        alice,
        10,
        "entry was " + "9" * 40,
        "got new trainers",
        "were £" + "9" * 40 + " but " + "1" * 30 + " w/ discount",
        "+ + + and and , , minus less after once",
    )
    index(alice)

    answer = ask(alice, question)

    assert answer.kind in {"answer", "no_memory"}
    assert answer.text


def test_a_budget_said_after_a_list_of_things_is_no_one_things_figure(alice, index):
    _said(alice, 60, "formal budget: dress hair makeup shoes car tix … its 1.2k all up")
    _said(alice, 20, "DRESS BOUGHT!! the green satin one, 395")
    index(alice)

    answer = ask(alice, "what have the dress n hair come to all up")

    assert "(hair)" not in answer.text


def test_every_sentence_a_sum_less_a_part_quotes_is_a_memory_it_used(alice, index):
    """ "Why?" has an answer: what the reply quotes (the bill, the quote it replaced, the
    rebate) is among the memories the answer rests on."""
    _said(alice, 80, "solar quote from sunvolt is $8,950 for the panels")
    _said(alice, 50, "solar panels are in, final bill from sunvolt is $9,210")
    _said(alice, 20, "applied for the rebate, its $1,500 back once they approve it")
    index(alice)

    answer = ask(alice, "so once the rebate comes through what's the solar actually cost us")

    assert answer.text.splitlines()[0] == "$7,710: $9,210 less $1,500 (rebate)"
    used = " ".join(hit.memory.content for hit in answer.used)
    for quoted in re.findall(r"“([^”]+)”", answer.text):
        assert quoted.rstrip(".") in used, quoted


def test_my_half_is_half_the_sum_said(alice, index):
    _said(alice, 40, "booked the cottage in the lakes with jen, £840 for the week")
    index(alice)

    answer = ask(alice, "what does my half of the cottage come to")

    assert answer.kind == "answer"
    assert answer.text.splitlines()[0] == "£420: half of £840"
    assert "£840 for the week" in answer.text


def test_a_figure_already_said_as_a_share_is_not_halved_again(alice, index):
    _said(alice, 40, "cottage in the lakes with jen, my half of it is £420 for the week")
    index(alice)

    answer = ask(alice, "what does my half of the cottage come to")

    assert answer.kind == "answer" and answer.text.startswith("£420")
    assert "£210" not in answer.text


def test_a_running_total_adds_what_each_conversation_paid(alice, index):
    _said(alice, 90, "paid jo the deposit for the deck today, 2k by transfer")
    _said(alice, 40, "jo quoted 4k for the steps as well, not sure yet")
    _said(alice, 20, "paid jo for the second stage, 3,500")
    index(alice)

    answer = ask(alice, "how much have we paid jo so far")

    assert answer.kind == "answer"
    lines = answer.text.splitlines()
    assert lines[0] == "5,500: 2,000 + 3,500", answer.text
    assert "2k by transfer" in lines[1] and "second stage, 3,500" in lines[2]
    assert "4k" not in answer.text  # a quote is not a payment
    assert "in each conversation" in answer.reason


def test_a_running_total_needs_a_payment_in_more_than_one_conversation(alice, index):
    _said(alice, 90, "paid jo the deposit for the deck today, 2k by transfer")
    _said(alice, 20, "jo quoted 4k for the steps as well")
    index(alice)

    answer = ask(alice, "how much have we paid jo so far")

    assert "+" not in answer.text and "in each conversation" not in answer.reason


def test_a_part_priced_in_other_words_takes_the_one_figure_said_in_answer_to_it(alice, index):
    """The sentence that prices the hair names no hair ("145 for an updo"), but it answers the
    assistant's "What about hair?" and says one sum."""
    _said(alice, 90, "formal stuff to sort, dress and hair")
    _talk(
        alice,
        60,
        (Message.Role.USER, "still looking for a dress"),
        (Message.Role.ASSISTANT, "What about hair?"),
        (Message.Role.USER, "booked jade at loose ends for the day, 145 for an updo"),
    )
    _said(alice, 20, "DRESS BOUGHT, the green satin one, 395 in the sale")
    index(alice)

    answer = ask(alice, "what have the dress n hair come to all up")

    assert answer.kind == "answer"
    assert answer.text.splitlines()[0] == "540: 395 (dress) + 145 (hair)", answer.text


def test_a_running_total_counts_a_sum_said_in_its_currency_without_saying_paid(alice, index):
    """ "that one was ninety three dollars", in the message that names the ACT in an earlier
    sentence, is what the second sitting cost."""
    _said(alice, 120, "the ACT is april 11th and i paid the sixty eight dollars on friday")
    _said(
        alice,
        30,
        "her ACT came back a 26, she took it again on the 13th with the writing part this time because the nursing school recommends it and that one was ninety three dollars",
    )
    index(alice)

    answer = ask(alice, "how much have we spent on the ACT both times")

    assert answer.kind == "answer"
    assert answer.text.splitlines()[0] == "$161: $68 + $93", answer.text


def test_a_total_at_a_price_each_takes_the_count_said_last_the_same_way(alice, index):
    """ "90 for the day" is the count "85 for the day" was, though it names neither the food nor
    the guests."""
    _said(
        alice,
        150,
        "the food was amazing at the tasting, it's £64 per head for the wedding breakfast and we've said 85 for the day",
    )
    _said(
        alice,
        60,
        "the caterers have put their prices up so it's 69 pound a head now not 64, food costs",
    )
    _said(alice, 10, "sent becky the final numbers yesterday, it's 90 for the day in the end")
    index(alice)

    answer = ask(alice, "how much is the food for the day guests going to come to altogether")

    assert answer.kind == "answer"
    assert answer.text.splitlines()[0] == "£6,210: 90 at £69 each", answer.text


def test_what_was_paid_altogether_is_what_each_conversation_paid_not_a_price_each(alice, index):
    """ "what have we paid the hall altogether" adds the deposit and the balance; the £64 a head
    said of the food beside them is no total of what was paid."""
    _said(
        alice,
        150,
        "booked the barn, paid the hall the 1500 deposit today, food is £64 a head for 90",
    )
    _said(alice, 10, "paid the hall the rest today, £3,950 for the barn")
    index(alice)

    answer = ask(alice, "what have we paid the hall altogether for the barn")

    assert answer.kind == "answer"
    assert answer.text.splitlines()[0] == "£5,450: £1,500 + £3,950", answer.text
