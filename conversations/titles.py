"""A conversation's title: a few words saying what it was about, so the list of past
conversations is not six rows of the same date.

It is set once, when the conversation is compressed (``suggest``), from the topic its running
narrative gave it when a topic started there, else from the member's first message as the offline
engine reads a topic out of it ("Hi! Can you help me plan Leo's party?" → "help me plan Leo's
party"). Nothing is invented: both are the member's own words or the label of what they said.
The member can change it on the conversation's page (``clean`` is the rule for what they type).

A conversation with no title yet (still open, or archived before titles existed) is shown by the
first words of the member's first message (``shown``, over ``with_first_said``'s annotation).
"""

from __future__ import annotations

from django.db.models import OuterRef, QuerySet, Subquery
from django.db.models.functions import Substr

from conversations.models import Conversation, Message
from talkingrock import nlp
from talkingrock.language import offline
from talkingrock.text import clean_text

MAX_TITLE = Conversation._meta.get_field("title").max_length
FALLBACK_WORDS = 8  # of the first message, for a conversation with no title
# How much of the first message a list loads for that fallback: enough for eight words.
_FIRST_SAID_CHARS = 200
UNTITLED = "A conversation with nothing said"
# Words a title does not end on: "…moved to Tuesday 3pm at" reads as cut off. spaCy's parts of
# speech, and its tags too: a word left dangling at the end is often misread ("the" as a pronoun).
_LOOSE_ENDS = {"ADP", "DET", "CCONJ", "SCONJ", "PART", "AUX", "PUNCT"}
_LOOSE_TAGS = {"DT", "IN", "CC", "TO", "PRP$", "WDT", "WRB"}


def clean(value: str) -> str:
    """One line, no control characters, single spaces, at most MAX_TITLE characters (cut at a
    word when there is one to cut at)."""
    text = " ".join(clean_text(value or "", multiline=False).split())
    if len(text) <= MAX_TITLE:
        return text
    cut = text[: MAX_TITLE - 1]
    if " " in cut:
        cut = cut.rsplit(" ", 1)[0]
    return cut.rstrip(" ,;:-") + "…"


def first_words(text: str, count: int = FALLBACK_WORDS) -> str:
    words = clean(text).split()
    if len(words) <= count:
        return " ".join(words)
    return " ".join(words[:count]).rstrip(" ,;:-") + "…"


def suggest(conversation: Conversation) -> str:
    """The title a compressed conversation gets: the topic of the first topic its talk started,
    else the topic of the member's first message, else ""."""
    topic = (
        conversation.narratives.filter(starts_topic=True)
        .exclude(topic="")
        .order_by("created_at", "id")
        .values_list("topic", flat=True)
        .first()
    )
    if not topic:
        first = (
            conversation.messages.filter(role=Message.Role.USER)
            .order_by("position")
            .values_list("content", flat=True)
            .first()
        )
        topic = offline.topic_of(first or "")
    words = _without_loose_end(clean(topic or ""))
    return words[:1].upper() + words[1:]


def _loose(token) -> bool:
    return (
        token.pos_ in _LOOSE_ENDS
        or token.tag_ in _LOOSE_TAGS
        or (token.is_stop and token.pos_ == "ADV")
    )


def _without_loose_end(title: str) -> str:
    """``title`` without the words at its end that only lead on to what was cut."""
    if not title:
        return title
    tokens = list(nlp.parse([title], one_sentence=True)[0])
    while len(tokens) > 1 and _loose(tokens[-1]):
        tokens.pop()
    return title[: tokens[-1].idx + len(tokens[-1].text)]


def with_first_said(conversations: QuerySet) -> QuerySet:
    """The conversations with the start of the member's first message (``first_said``), for the
    fallback title: one query for a whole list."""
    first = (
        Message.objects.filter(conversation=OuterRef("pk"), role=Message.Role.USER)
        .order_by("position")
        .annotate(start=Substr("content", 1, _FIRST_SAID_CHARS))
        .values("start")[:1]
    )
    return conversations.annotate(first_said=Subquery(first))


def shown(conversation: Conversation) -> str:
    """What a page calls the conversation: its title, else the first words the member said
    (``with_first_said`` loads them), else that nothing was said."""
    if conversation.title:
        return conversation.title
    said = first_words(getattr(conversation, "first_said", None) or "")
    return f"“{said}”" if said else UNTITLED
