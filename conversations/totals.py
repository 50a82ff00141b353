"""A running total of what was paid for one thing ("how much have we paid sipho so far", "what
did the classes cost us altogether, both levels"): the figure each conversation gives for it,
added up, with the sentences that say them. conversations/answers.py asks for one only when the
question names no parts to add (conversations/sum_parts.py reads those) and nothing else worked
out a sum."""

from __future__ import annotations

import re
from collections import defaultdict

from conversations.beyond_recall import naming
from conversations.candidates import MIN_COVERAGE, Candidate, coverage_of
from conversations.questions import Question
from conversations.sum_parts import DIFFERENCE, TOTAL, parts_of, taken_off
from conversations.sums import asked_amounts, same_period, sum_said
from memories.models import Memory
from talkingrock.language.offline.lexicon import normalise

# A total of what has gone out so far, asked without naming its parts: a total (``TOTAL``:
# "in total", "all in", "altogether"), or what went out so far or each time.
_SO_FAR = re.compile(r"\bso far\b|\bboth (?:times|levels|payments|of them)\b", re.I)
# A sentence that says money went out: paid, spent, a bill or a fee.
_PAID = re.compile(
    r"\b(?:paid|pay|payment|spent|spend|cost|costs|bill|fee|fees|charged|deposit|came to)\b",
    re.I,
)
# A figure that has not gone out: a quote, a budget, a price asked, money back (not "her
# results came back").
_NOT_PAID = re.compile(
    r"\b(?:quote[ds]?|quoting|estimate[ds]?|est|budget|asking|offer(?:ed)?|listed|sav(?:e|es|ed|"
    r"ing)|refund\w*|(?:got|get|gets|getting|money|cash|give|gave|giving|paid|pay|pays|paying)"
    r"(?: \w+){0,2} back|would|will|gonna|going to)\b",
    re.I,
)
# A question about what went out already: "what have we paid the hall", "how much did we spend".
_ASKS_PAID = re.compile(r"\b(?:paid|spent)\b|\bdid (?:we|i|you) (?:pay|spend)\b", re.I)
# Only what the member said or kept, never what the assistant replied.
_THEIRS = (Memory.Kind.SAID, Memory.Kind.FACT, Memory.Kind.MEMORY)
MIN_CONVERSATIONS = 2  # a total "so far" adds what more than one conversation paid
MIN_BARE = 20  # a bare number below this is a count ("3 of them"), not a sum paid


def _paid(candidate: Candidate, asked: Question) -> list:
    """The sums ``candidate`` says went out, nearest the question's words first."""
    sentence = candidate.sentence
    if _NOT_PAID.search(sentence):
        return []
    paid = bool(_PAID.search(sentence))
    # A sum said in its currency is what the thing cost ("that one was ninety three dollars");
    # one typed bare ("46.5k by eft", "paid 1450 for the lot") is money when said paid.
    return [
        a
        for a in asked_amounts(candidate, asked)
        if not a.per
        and ((a.is_money and (paid or a.currency)) or (paid and not a.unit and a.value >= MIN_BARE))
    ]


def _of_it(candidate: Candidate, asked: Question, message: frozenset[str]) -> bool:
    """Whether ``candidate`` is said of what the question is about: it names the question's
    key word, or another of its words (in it or elsewhere in its ``message``: "her April ACT
    came back a twenty six … that one was ninety three dollars") with the key word said around
    it ("level 2 is 1,650, paid already" in a talk about Biscuit's classes); not "paid him his
    16.5k", whoever "him" is, in a talk that names Sipho."""
    if asked.covers(asked.key, candidate.terms):
        return True
    said = candidate.terms | message
    return asked.covers(asked.key, candidate.context) and any(
        asked.covers(term, said) for term in asked.weights if term != asked.key
    )


def asks_what_was_paid(question: str) -> bool:
    """Whether ``question`` asks what went out already, not what something comes to."""
    return bool(_ASKS_PAID.search(normalise(question)))


def paid_in_all(
    owner, question: str, asked: Question, scored: list[Candidate], *, now
) -> tuple[str, list[Candidate]] | None:
    """The total of what the member said they paid for what ``question`` is about, one figure
    from each conversation that paid for it, and the sentences that say them; None when the
    question asks for no running total, names its parts, or fewer than two conversations
    paid."""
    text = normalise(question)
    if (
        not asked.key
        or not (TOTAL.search(text) or _SO_FAR.search(text))
        or DIFFERENCE.search(text)
        or parts_of(question)
        or taken_off(question)
    ):
        return None
    # Each payment is looked for by the question's own words, not only by those recall ranked
    # first: "the ACT" paid for in one talk, "Kenzie's ACTs" asked.
    named = [t for t in asked.weights if t not in asked.unseen]
    pool = [*scored, *(c for term in named for c in naming(owner, term, before=now))]
    # The words of each message, all its sentences together.
    messages: dict[int, frozenset[str]] = defaultdict(frozenset)
    for candidate in pool:
        messages[candidate.hit.memory_id] |= candidate.terms
    best: dict[int, tuple[float, Candidate, object]] = {}
    for candidate in pool:
        memory = candidate.hit.memory
        if memory.kind not in _THEIRS or memory.conversation_id is None:
            continue
        coverage = coverage_of(candidate, asked)
        if coverage < MIN_COVERAGE or not _of_it(candidate, asked, messages[memory.pk]):
            continue
        if not (paid := _paid(candidate, asked)):
            continue
        # Of one conversation, the sentence that covers most of the question, and its figure
        # said nearest the question's words.
        held = best.get(memory.conversation_id)
        if held is None or coverage > held[0]:
            best[memory.conversation_id] = (coverage, candidate, paid[0])
    if len(best) < MIN_CONVERSATIONS:
        return None
    found, values = [], set()
    for entry in sorted(best.values(), key=lambda entry: entry[1].said_on):
        # The same sum said again in a later conversation is the same payment told twice.
        if entry[2].value not in values:
            values.add(entry[2].value)
            found.append(entry)
    if len(found) < MIN_CONVERSATIONS:
        return None
    figures = [amount for _, _, amount in found]
    currencies = {a.currency for a in figures if a.currency}
    if len(currencies) > 1 or not all(same_period(a, b) for a in figures for b in figures):
        return None
    total = sum(a.value for a in figures)
    sign = next(iter(currencies), "")
    # A figure typed bare ("paid the 1500 deposit") is in the currency the others are said in.
    line = f"{sum_said(total, sign)}: " + " + ".join(
        a.said() if a.currency else sign + a.said() for a in figures
    )
    return line, [candidate for _, candidate, _ in found]
