"""What the member said beyond what recall found, looked up in their own indexes for the sentence
that answers best (conversations/candidates.py): a later word on the same thing, a later message
that strikes its very value, and everything said in the conversations a sum's subject is named
in. What is found ranks after recall's own candidates (``LATER_RANK``)."""

from __future__ import annotations

import re
from dataclasses import replace

from django.db.models import Q
from django.utils import timezone

from conversations.candidates import Candidate, candidates_of, value_of
from conversations.models import Message
from conversations.questions import Question
from conversations.said_next import continued
from conversations.sentence_values import day_of_month, replaced_in, same_day
from conversations.terms import said_terms
from memories import search
from memories.models import Memory
from memories.recall import Hit
from talkingrock.language import values
from talkingrock.language.mentions import ORDINAL_WORDS
from talkingrock.language.spoken import ordinal

# "Is there a later word on it?": the question's heaviest words the best sentence holds, looked
# up in the member's keyword index (at most this many rows); what is found ranks last.
LATER_TERMS = 2
LATER_SCAN = 30
LATER_RANK = 15
# The kinds of value whose figures are said as they are given (not a day, given with its year)
FIGURES_SAID = frozenset({"amount", "rate", "count", "time", "duration"})
BURST_BEFORE = 3  # positions back: the member's messages a bare "not 590" is read after
SAID_IN_SCAN = 200  # messages read from the conversations a sum's subject is named in
NAMING_SCAN = 30  # rows read, best keyword match first, that name a part of a sum


def said_later(
    owner, best: Candidate, question: Question, subject: set[str], *, earlier: bool = False
) -> list[Candidate]:
    """What the member said or kept after ``best`` that names the same thing (its heaviest
    words, searched in their own keyword index): the later word a question about "now" needs,
    even when recall ranked it out of sight ("moved the under 8s to wednesdays at 5").
    ``earlier``: what they said before it instead, the first word a question about the past
    needs ("what was my closing date originally", when recall found only the later talk)."""
    # Any of the words for the first word: a question about the past names the change too
    # ("before the sellers pushed it"), and the first word did not.
    terms = sorted(subject, key=lambda t: -question.weights[t])[: None if earlier else LATER_TERMS]
    # The stems ("quot") are matched by the index's own stemmer, which reads "quoted" as "quot".
    words = search.sanitise(" ".join(terms)).terms
    if not words:
        return []
    naming = _naming_any(owner, words, LATER_SCAN, prefixes=earlier)
    if earlier:
        found = naming.filter(created_at__lt=best.said_on)
    else:
        found = naming.filter(created_at__gt=best.said_on)
    hits = [Hit(memory.pk, memory, 0.0, {}) for memory in found.exclude(pk=best.hit.memory_id)]
    return candidates_of(hits, rank_from=LATER_RANK)


def struck_later(owner, best: Candidate, question: Question) -> list[Candidate]:
    """What the member said after ``best`` that says its very value no longer holds ("ailsa
    says 200 off june rent not 150 off may"), found by the value's figures in their own keyword
    index. A change told in a burst names the value it replaced more surely than the thing ("ya
    roy emailed", "640 now", "not 590. fuel costs or w/e"): a message that gives no value of its
    own is read with the member's messages just before it (``BURST_BEFORE``), up to the
    assistant's last turn."""
    value = value_of(best, question)
    if question.wanted == "date":
        match = _match_day(value)
    elif question.wanted in FIGURES_SAID:
        figures = tuple(dict.fromkeys(re.findall(r"\d(?:[\d,]*\d)?", value)))
        match = search.match_figures(figures) if figures else ""
    elif question.wanted == "place":
        words = search.sanitise(value).terms
        match = search.match_expression(tuple(words)) if words else ""
    else:
        match = ""
    if not match:
        return []
    found = search.keyword_candidates(
        owner_id=owner.pk,
        match=match,
        limit=LATER_SCAN,
        include_archived=False,
    )
    later = (
        Memory.everything.select_related("act", "message")
        .filter(owner=owner, pk__in=[pk for pk, _ in found], created_at__gt=best.said_on)
        .exclude(kind=Memory.Kind.REPLY)
    )
    striking = [
        c
        for c in candidates_of([Hit(m.pk, m, 0.0, {}) for m in later], rank_from=LATER_RANK)
        if _strikes(c, value, question)
    ]
    given = {id(c): _another(c, value, question) for c in striking}
    bare = [c for c in striking if not given[id(c)] and c.hit.memory.message is not None]
    before = _said_just_before(owner, [c.hit.memory.message for c in bare])
    read = []
    for c in striking:
        message = c.hit.memory.message
        if message is None or given[id(c)]:
            read.append(c)
        elif said := before.get(message.pk):
            text = " … ".join([*said, c.sentence])
            read.append(replace(c, sentence=text, terms=said_terms(text)))
    # or the new value comes a message on: "our akl-raro on the 8th got cancelled", then "put
    # us on thurs 9th instead"
    return read + continued(bare, question, named=True)


def _another(c: Candidate, value: str, question: Question) -> str:
    """The value ``c`` gives, when it is not the one it strikes: a place left may be read in the
    sentence that leaves it ("Lagoon Pearl can only take 350 seated so we have to move"), and
    the new one comes after."""
    given = value_of(c, question)
    if question.wanted == "place" and given and _names_place(given, value):
        return ""
    return given


def _said_just_before(owner, messages: list[Message]) -> dict[int, list[str]]:
    """For each message, what the member said in the ``BURST_BEFORE`` turns before it, oldest
    first, up to the assistant's last turn: one query for them all."""
    if not messages:
        return {}
    near = Q()
    for message in messages:
        near |= Q(
            conversation_id=message.conversation_id,
            position__lt=message.position,
            position__gte=message.position - BURST_BEFORE,
        )
    turns: dict[int, list[tuple[int, str, str]]] = {}
    rows = Message.objects.filter(near, conversation__owner=owner).values_list(
        "conversation_id", "position", "role", "content"
    )
    for conversation_id, position, role, content in rows:
        turns.setdefault(conversation_id, []).append((position, role, content))
    said = {}
    for message in messages:
        before = []
        for position, role, content in sorted(turns.get(message.conversation_id, []), reverse=True):
            if not message.position - BURST_BEFORE <= position < message.position:
                continue
            if role != Message.Role.USER:
                break
            before.insert(0, " ".join(content.split()))
        said[message.pk] = before
    return said


def _match_day(value: str) -> str:
    """The keyword search for the day of the month a date gives, as a member may say it: "3",
    "3rd", "third" ("Monday 3 August 2026"); "" when it gives none."""
    number = day_of_month(value)
    if number is None:
        return ""
    words = [word for word, n in ORDINAL_WORDS.items() if n == number]
    return search.match_expression((str(number), ordinal(number), *words))


# A place left for another: "we have to move", "they can't take us", "we're moving it".
_LEAVING = re.compile(
    r"\b(?:have|has|had|need|needs|got) to (?:move|change|find)\b|\bmoving (?:it|out)\b|"
    r"\bcan(?:no|['’])?t (?:take|fit|have)\b",
    re.I,
)


def _names_place(sentence: str, place: str) -> bool:
    """Whether ``sentence`` names ``place`` by its first word ("Lagoon Pearl" of "Lagoon Pearl
    Hall")."""
    first = place.split()[:1]
    return bool(first) and re.search(rf"\b{re.escape(first[0])}\b", sentence, re.I) is not None


def _strikes(c: Candidate, value: str, question: Question) -> bool:
    if question.wanted == "place":
        return _names_place(c.sentence, value) and bool(
            values.says_it_changed(c.sentence) or _LEAVING.search(c.sentence)
        )
    struck = replaced_in(c.sentence, question.wanted, said_on=timezone.localtime(c.said_on).date())
    if question.wanted == "date":
        return bool(struck) and same_day(struck, value)
    figures = [set(re.findall(r"\d+", text.replace(",", ""))) for text in (struck, value)]
    return bool(figures[0]) and figures[0] == figures[1]


def said_in(owner, conversation_ids: set[int]) -> list[Candidate]:
    """Everything the member said in these conversations, each sentence with the words of the
    rest of its conversation: a figure said on its own ("final bill came in tho. €42,300") in a
    conversation that is about the thing asked of ("SUNROOM IS DONE")."""
    if owner is None or not conversation_ids:
        return []
    said = (
        Memory.everything.select_related("act")
        .filter(owner=owner, kind=Memory.Kind.SAID, conversation_id__in=conversation_ids)
        .order_by("created_at", "pk")[:SAID_IN_SCAN]
    )
    return candidates_of([Hit(memory.pk, memory, 0.0, {}) for memory in said], rank_from=LATER_RANK)


def naming(owner, word: str, *, before) -> list[Candidate]:
    """What the member said or kept before ``before`` that names ``word`` (found in their own
    keyword index, which reads "tuning" as "tuned" too): each part of a sum asked for ("entry
    + trainers") is looked for by its own word, though recall found the question's others."""
    words = search.sanitise(word).terms
    if owner is None or not words:
        return []
    named = _naming_any(owner, words, NAMING_SCAN).filter(created_at__lte=before)
    return candidates_of([Hit(m.pk, m, 0.0, {}) for m in named], rank_from=LATER_RANK)


def _naming_any(owner, words: list[str], limit: int, *, prefixes: bool = False):
    """The member's rows (not the assistant's replies) that name any of ``words`` (or, with
    ``prefixes``, a word that starts with one), by their own keyword index: its best ``limit``
    matches."""
    match = search.match_prefixes if prefixes else search.match_expression
    found = search.keyword_candidates(
        owner_id=owner.pk,
        match=match(tuple(words)),
        limit=limit,
        include_archived=False,
    )
    return (
        Memory.everything.select_related("act")
        .filter(owner=owner, pk__in=[pk for pk, _ in found])
        .exclude(kind=Memory.Kind.REPLY)
    )
