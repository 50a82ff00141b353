"""What the member said they want or won't have answers a question that puts something new to
them (conversations/stances.py), and a question nothing near answers is still declined."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from conversations import answers, services
from conversations.models import Conversation, Message
from conversations.stances import is_stance
from memories.models import Memory
from memories.recall import recall

NOW = timezone.now()


def _said(owner, days_ago: int, *lines: str) -> None:
    """A past conversation, its messages said ``days_ago`` and kept as evidence."""
    when = NOW - timedelta(days=days_ago)
    talk = Conversation.objects.create(
        owner=owner, status=Conversation.Status.ARCHIVED, started_at=when, archived_at=when
    )
    for place, line in enumerate(lines):
        message = services.append(talk, role=Message.Role.USER, content=line)
        said = when + timedelta(minutes=2 * place)
        Memory.everything.filter(message=message).update(created_at=said, happened_at=said)


def _ask(owner, question: str) -> answers.Answer:
    return answers.answer_question(owner, question, recall(owner, question, k=25), now=NOW)


@pytest.mark.parametrize(
    ("sentence", "stance"),
    [
        ("NOT havin a bog in it, mingin.", True),
        ("I do not wish to pay anyone's personal number", True),
        ("full face only from now", True),
        ("Only reward stuff for her from now, nothing that hurts her.", True),
        ("I am NEVER doing that commute again", True),
        ("id rather pay movers", True),
        ("nobody is collecting it from me without paying in full first", True),
        ("im done w gen. no more", True),
        ("I am not sinking that kind of money into a new motor", True),
        ("the van is a 2015 transit, 98k on the clock", False),
        ("Only 20 mins on the bus.", False),
        ("no idea what the grout colour is", False),
    ],
)
def test_a_stance_is_what_someone_wants_or_has_ruled_out(sentence, stance):
    assert is_stance(sentence) is stance


@pytest.fixture
def camper(alice, index):
    _said(
        alice,
        40,
        "bought a camper van today, 2015 transit, 98k on the clock",
        "fixed bed at the back, kitchen down the side. NOT havin a toilet in it, campsites have them",
    )
    _said(alice, 20, "bins go out on thursday now", "dentist moved to the 8th at 10:30")
    index(alice)


def test_an_offer_never_spoken_of_is_answered_by_the_stance_nearest_it(alice, camper):
    """The question names a place the member never mentioned (Leeds): the offer is new, and the
    answer is what they said they won't have, not "I don't have a memory of that"."""
    answer = _ask(
        alice,
        "a dealer in Leeds does a cassette toilet for the van cheap, should we go for it",
    )

    assert answer.kind == "answer", answer.reason
    assert "NOT havin a toilet in it" in answer.text
    assert "won't have" in answer.reason


def test_an_offer_nothing_said_is_near_is_still_declined(alice, camper):
    answer = _ask(alice, "a man in Leeds is selling a rowing machine, should we go for it")

    assert answer.kind == "no_memory"
