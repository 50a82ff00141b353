"""Whether a message asks at all, and the kind of value a question asks for: a day or a time
for "when", an amount for "how much", a count for "how many", a name, a place, what someone would
rather (conversations/questions.py reads the rest of what a question asks: its asking part, its
words and their weights)."""

from __future__ import annotations

import re

from conversations.terms import AUXILIARIES, words_of
from talkingrock.language.offline.lexicon import normalise

QUESTION_WORDS = frozenset(
    "what whats when whens where wheres who whos whom whose which why how".split()
)


# A question asked after something said first, with no question mark: "theresa says she can't
# find our deposit when did I pay that", "vet form wants the date. when was it".
_ASKS_AFTER = re.compile(
    r"(?<=\w)[.,;!]?\s+(?P<asks>(?:what|when|where|who|which|how)"
    r"(?:\s+(?:much|many|long|often|time|day|date))?\s+(?:did|does|do|is|was|are|were|will|would|"
    r"can|could|should|has|have|had)\s+(?:i|we|you|he|she|they|it|that|this)\b)"
)
_WHEN_FIRST = re.compile(r"^\W*(?:(?:um|so|ok|okay|oh|and|remind me|tell me)\W+)*(?:when|wen)\b")
# Words said before a question starts: "um so what's our number per year".
_SPOKEN_FIRST = frozenset("um umm uh erm er so ok okay oh right well and hey".split())


# A pronoun's contraction, which read without its apostrophe can look like an auxiliary: "we're"
# (not "were"), "she'd".
_PRONOUN_CONTRACTED = re.compile(r"^(?:i|you|we|they|he|she|it)['’]")


def is_question(text: str) -> bool:
    """A question mark, a question word or auxiliary first, or "remind me"; also a question
    word followed by "again" ("gems hen do when n where again")."""
    plain = normalise(text).strip().lower()
    if "?" in plain:
        return True
    words = words_of(plain)
    while words[:1] and words[0] in _SPOKEN_FIRST:  # "um so what's our number"
        words = words[1:]
    if not words:
        return False
    first = words[0].replace("'", "").replace("’", "")
    if (
        first in QUESTION_WORDS
        or (first in AUXILIARIES and not _PRONOUN_CONTRACTED.match(words[0]))
        or plain.startswith(("remind me", "tell me"))
        or _ASKS_AFTER.search(plain)
    ):
        return True
    return words[-1] == "again" and any(w.replace("'", "") in QUESTION_WORDS for w in words)


# Which one of its kind, and the thing it is one of: "which knee is dad getting done" (knee),
# "which bin goes out"; not "which of the quotes", "which one".
WHICH = re.compile(r"\bwhich\s+(?!(?:one|ones|of|is|was|are|were|do|does|did)\b)([a-z]+)\b")
# Each kind of value a question can ask for, and how it is asked.
# The kinds that ask a name: a person's ("who's our accompanist", "the banquet lady's name") and
# a thing's ("whats betos shop called", read so by questions.names_a_thing).
NAMES = frozenset({"name", "called"})
_ASKS = (
    ("schedule", re.compile(r"\bhow often\b|\b(?:what|which) (?:days|nights|evenings|mornings|weekends)\b")),
    ("time", re.compile(r"\bwhat\s?(?:r\s)?time\b|\bwhat hour\b|\bhow early\b|\bhow late\b")),
    # a measure of a thing: its age, weight or size ("how old is pretzel", "how big is the sunroom")
    ("age", re.compile(r"\bhow old\b")),
    ("weight", re.compile(r"\bhow heavy\b|\bweigh\b")),
    ("size", re.compile(r"\bhow (?:tall|big|wide|high|deep|large)\b|\bwhat size\b")),
    ("duration", re.compile(r"\bhow long\b(?! ago)|\bhow far\b|\bhow many (?:min|hour|day|week|month|year|mile|km)")),
    # "how much people are we now": people are counted, however the question is put
    ("count", re.compile(r"\bhow many\b|\bhow much (?:people|persons|ppl)\b")),
    # the number a thing goes by: "whats our plot no", "what room number is she in"; not a
    # phone number ("the number for the plumber"), nor "no" said as no ("which room has no heat")
    ("number", re.compile(
        r"^\s*(?:what|which)\b.*\b(?!(?:the|a|his|her|their|phone|mobile|contact)\b)[a-z]+\s+"
        r"(?:no\.?|number|num|#)(?=\s*(?:$|\?|,|(?:at|for|on|in|of|again|pls|please|is|was|are|r)\b))")),
    # a rate: "what rate did we lock in", "the interest on the loan", "what's her day rate"
    ("rate", re.compile(r"\brates?\b|\binterest\b|\bper ?cent(?:age)?\b|%|\bapr\b")),
    # "what did the job come to in the end": a total asked for
    ("amount", re.compile(r"\b(?:put|listed|sell|sold|selling|go|went|going)\b(?:\s+[\w'’]+){0,4}?\s+(?:up\s+)?for(?:\s+(?:in the end|again|then|eventually))?\W*$|\b(?:come|comes|came) to\b(?=\s*(?:$|[?!.,]|in (?:the end|total|all)\b|all (?:in|up|told)\b|altogether\b|so far\b|now\b|(?:minus|less|after|once)\b))|\bhow much\b|\basking (?:for|from|price)\b|\bsalar(?:y|ies)\b|\bwages?\b|\bcost(?:s|ing)?\b|\bspen(?:d|ds|t|ding)\b|\bprice\b|\bpa(?:y|ys|ying|id)\b|\bowe[ds]?\b|\bbalance\b|\bquote[ds]?\b|\bquotations?\b|\bestimates?\b|\binvoices?\b|\bbudget\b|\bfees?\b|\brent\b|\bcharg(?:e|es|ed|ing)\b|\bbill\b|\bco-?pays?\b|\bpremiums?\b|\bdeductibles?\b|\bexcess\b|\bfares?\b|\btuition\b")),
    # "what was my closing date originally", "what's the due date"
    ("date", re.compile(r"\bwhen\b|\bwhat (?:[\w'’-]+ )?(?:date|day)s?\b|\bwhich (?:date|day)\b|\bhow long ago\b|"
                        r"^\W*what(?:['’]?s| is| was| are| were)\s+(?:[\w'’-]+\s+){0,3}?dates?\b")),
    ("place", re.compile(r"^\s*where\b|\bwhere(?:['’]?s| is| are| r| was| were| do| does| did| will| should| can)\b")),
    # who someone is: "who's teagan again", "who is dr fenn"; not "who's coming", "who's next"
    # nor "who's the plumber" (a name asked for)
    ("who", re.compile(
        r"^\s*who(?:'s|’s|s|\s+is|\s+was|\s+r)\s+(?!(?:next|in|out|free|left|up|there|here|on|off|"
        r"around|home|back|it|that|this|he|she|they|we|you|i|me|him|her|them|the|a|an|my|our|"
        r"your|his|their|its|doing|going|coming|paying|taking|driving|bringing)\b)"
        r"[a-z][\w'’-]*(?<!ing)(?:\s+[a-z][\w'’-]*(?<!ing))?(?:\s+again)?\s*\??\s*$")),
    # "called" as named, not as rang ("the garage called to confirm", "she called me back")
    ("name", re.compile(
        # "what the name of the caterer lady", as it is said with no verb
        r"\bwho\b|\bwhose\b|\bname of\b|\bwhat(?:'?s|\s+is|\s+was|\s+were)?\b.*\bname\b|"
        # a name asked last, with at most two words after it: "the sergeant's name again?",
        # "his name what ah?"
        r"\bnames?\b(?:\s+[\w'’]+){0,2}\W*$|"
        r"\bcalled\b(?!\s+(?:to|me|him|her|us|them|you|back|about|round|in|by|today|yesterday)\b)")),
    ("which", WHICH),
)  # fmt: skip
# Every kind a question may ask: those above, a thing's name (questions.read_question) and a
# preference.
KINDS = (*dict.fromkeys(kind for kind, _ in _ASKS), "called", "preference")


# The words that only say what kind of value is asked for ("how LONG is the drive"): no
# sentence that answers repeats them, so they do not count towards coverage.
FRAME_WORDS = {
    "duration": frozenset({"long", "far"}),
    "age": frozenset({"old"}),
    "weight": frozenset({"heavy", "weigh", "weighs"}),
    "size": frozenset("tall big wide high deep large size".split()),
    "count": frozenset({"many", "total", "altogether", "together"}),
    "amount": frozenset(
        {
            "much",
            "many",
            "come",
            "total",
            "altogether",
            "together",
            "more",
            "less",
            "extra",
            "over",
            "under",
            "than",
            "still",
            # the verbs an amount is asked by ("what are we paying for the insurance"): the
            # sentence that answers gives the amount, not the verb ("renewed it, 412")
            "pay",
            "pays",
            "paying",
            "paid",
            "cost",
            "costs",
            "costing",
            # and the verb that asks for a total ("what did the tickets bring in")
            "bring",
            "brought",
            "bringing",
            # and what asks for a running total ("how much have we spent on it so far, both
            # times, all in")
            "spend",
            "spent",
            "spending",
            "far",
            "all",
            "both",
            "times",
            # and what a seller asks ("what was keith asking for the fabia")
            "asking",
            # and the words of a period, whose unit is what a sentence names ("how much is the
            # insulin every month": "a hundred and twenty a month")
            "every",
            "each",
            "per",
        }
    ),
    "number": frozenset({"no", "number", "num"}),
    "rate": frozenset({"percent", "percentage"}),
    "who": frozenset({"again"}),
    "schedule": frozenset(
        "often day days night nights evening evenings morning mornings weekday weekdays".split()
    ),
    "time": frozenset({"time", "hour", "early", "late"}),
    "date": frozenset({"date", "day"}),
    "name": frozenset({"name", "called"}),
    "called": frozenset({"name", "called", "calld", "named"}),
    # what says a preference, not what it is about: the sentence that answers may put it in
    # other words ("I can't stand DJs" for "did I want a DJ")
    "preference": frozenset(
        "preference prefer rather view consider keen want wanted like mind better avoid up".split()
    ),
}


# "Do I want a courtesy car when it goes in?" asks yes or no: the "when" is of its own clause.
# "Do you know when…", "can you remind me how much…" ask what the clause asks.
_YES_OR_NO = re.compile(rf"^\s*(?:{'|'.join(sorted(AUXILIARIES))})\b")
_ASKS_ON = re.compile(r"\b(?:know|remember|recall|tell me|remind me|say|said)\b")


# A question about what someone wants, likes or would rather, however it is put: "did I want a
# DJ or a playlist", "any flight times I should avoid", "would I be up for quizmaster", "does dad
# do better with mornings". Asked yes-or-no as often as not.
_ASKS_PREFERENCE = re.compile(
    r"\bprefer(?:ence|s|red)?\b|\brather\b|\b(?:do|did|would|does) (?:i|we|he|she|they|you) "
    r"(?:want|like|mind|prefer|do better)\b|\bshould (?:i|we) (?:just )?avoid\b|\bavoid\b|"
    r"\bdo(?:es)? better\b|\bup for\b|\b(?:have|had) a view\b|\bfeel about\b|\bwant(?:ed)? for\b|\bkeen on\b|"
    # "was i ok w diesel", "would she be happy with a bus", "is it better to go first thing"
    r"\b(?:am|is|are|was|were|would) (?:i|we|he|she|they|you)(?: be)? (?:ok|okay|alright|fine|happy)\b|"
    r"\b(?:is it|would it be|is that|which is|what's|whats) better\b|"
    # advice asked on a choice someone put: "would that be better for him", "worth a go for
    # biscuit?", "shd mia do a few lessons in that one", "should we do that for the battery",
    # "did i ever say anything bout playin goalie"
    r"\b(?:would|will) (?:that|this|it) be better\b|\bworth (?:a go|a try|trying)\b|"
    r"\b(?:should|shd|shud) (?:i|we|he|she|they|[a-z]+) (?:just )?(?:do|go|get|try)\b|"
    r"\b(?:did|do) (?:i|we) (?:ever )?say anything (?:about|bout|abt|on)\b|"
    # "shall I tell him go ahead?", "should i even bother calling", "… look quite atas leh. ok
    # or not", "is that all right with me?"
    r"\b(?:shall|should|shd|can) (?:i|we)\b[^.?!]{0,25}\bgo ahead\b|\beven bother\b|\b(?:ok|okay) or not\b|"
    r"\b(?:is|would) (?:that|it)(?: be)? (?:all right|alright|ok|okay|fine)\b|"
    # or a go-ahead asked on an offer put first: "…2 cases for $100. grab it?", "…, just ring
    # her back?"
    r"(?:^|[.!;,]\s*)(?:just\s+)?[a-z]+\s+(?:it|her|him|them|that|one)"
    r"(?:\s+(?:back|up|in|now|then|too))?\s*\?+\s*$",
    re.I,
)


# Advice asked last, on what was put before it: "… pay at month end, she's family after all.
# Should I just give her?", "… wen sun no dey. shud i", "… Do you think I should?", "… what do
# you think". What the sentences before it name (a payment, a day) is what is put, not asked.
_ADVICE_LAST = re.compile(
    r"(?:(?:^|[.!?;,]\s*)(?:so\s+)?(?:(?:should|shd|shud) (?:i|we)(?: just)?(?: \w+)?"
    r"(?: (?:it|her|him|them|that|one))?|(?:do )?you think (?:i|we) should(?: \w+)?)|"
    r"\bwhat (?:do |d )?you think)\W*$"
)


# "when all was said and done" is "in the end", not "when".
_IN_THE_END = re.compile(r"\bwhen all(?:\s+(?:was|is)|['’]s)?\s+said and done\b")


def asks_for(question: str) -> str | None:
    """The kind of value that answers, one of ``KINDS`` ("called" aside, which read_question
    tells from "name"); None: any sentence that covers the question, and a yes-or-no
    question."""
    text = _IN_THE_END.sub("in the end", normalise(question).lower())
    if _ADVICE_LAST.search(text):
        return "preference"
    if not (_YES_OR_NO.search(text) and not _ASKS_ON.search(text)):
        asking = _ASKS_AFTER.search(text)
        if asking and not names_a_question_word(text[: asking.start()]):
            # "theresa cant find our deposit when did I pay that": what the asking clause asks,
            # or, when it names no kind ("…base salary, what is it"), what the whole asks
            kind = _kind_asked(text[asking.start("asks") :])
            if kind is not None:
                return kind
        if (kind := _kind_asked(text)) is not None:
            return kind
    return "preference" if _ASKS_PREFERENCE.search(text) else None


def _kind_asked(text: str) -> str | None:
    for kind, pattern in _ASKS:
        if kind == "amount" and _WHEN_FIRST.match(text):
            continue  # "when did I pay the deposit": a day, though it names a payment
        if pattern.search(text):
            return kind
    return None


def names_a_question_word(text: str) -> bool:
    """Whether ``text`` holds a question word ("what's", "whens", "how")."""
    return any(
        w.replace("'", "").replace("’", "") in QUESTION_WORDS
        for w in words_of(normalise(text).lower())
    )
