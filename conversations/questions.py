"""What a question asks (conversations/answers.py answers it): its words and their weights in the
member's own index, the kind of thing it asks for ("when" a date or a time, "how much" an
amount), the names it uses, and whether a message is a question at all."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from difflib import SequenceMatcher

from conversations.terms import AUXILIARIES, FILLER, either_way, is_filler, stem, words_of
from memories import search
from memories.models import Memory
from talkingrock.language import places, values
from talkingrock.language import words as words_in_english
from talkingrock.language.names import PERSON_WORDS, common_words, first_names
from talkingrock.language.offline.lexicon import normalise

QUESTION_WORDS = frozenset(
    "what whats when whens where wheres who whos whom whose which why how".split()
)
GREETINGS = frozenset(
    "hello hi hey hiya good morn even night thank cheer bye goodby great cool nice lovely much".split()
)
_NAME = re.compile(r"(?<=[a-z,;:] )[A-Z][a-z]+")

TYPO_SIMILARITY = 0.8  # difflib's ratio above which an unseen word is a misspelling
# A question word the sentence lacks but the sentences said around it hold counts this much.
AROUND_WEIGHT = 0.5


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
        or first in AUXILIARIES
        or plain.startswith(("remind me", "tell me"))
        or _ASKS_AFTER.search(plain)
    ):
        return True
    return words[-1] == "again" and any(w.replace("'", "") in QUESTION_WORDS for w in words)


# --- what a question asks for -------------------------------------------------------------------

# Which one of its kind, and the thing it is one of: "which knee is dad getting done" (knee),
# "which bin goes out"; not "which of the quotes", "which one".
_WHICH = re.compile(r"\bwhich\s+(?!(?:one|ones|of|is|was|are|were|do|does|did)\b)([a-z]+)\b")
# Each kind of value a question can ask for, and how it is asked.
_ASKS = (
    ("schedule", re.compile(r"\bhow often\b|\b(?:what|which) (?:days|nights|evenings|mornings|weekends)\b")),
    ("time", re.compile(r"\bwhat\s?(?:r\s)?time\b|\bwhat hour\b|\bhow early\b|\bhow late\b")),
    # a measure of a thing: its age, weight or size ("how old is pretzel", "how big is the sunroom")
    ("age", re.compile(r"\bhow old\b")),
    ("weight", re.compile(r"\bhow heavy\b|\bweigh\b")),
    ("size", re.compile(r"\bhow (?:tall|big|wide|high|deep|large)\b|\bwhat size\b")),
    ("duration", re.compile(r"\bhow long\b(?! ago)|\bhow far\b|\bhow many (?:min|hour|day|week|month|year|mile|km)")),
    ("count", re.compile(r"\bhow many\b")),
    # the number a thing goes by: "whats our plot no", "what room number is she in"; not a
    # phone number ("the number for the plumber"), nor "no" said as no ("which room has no heat")
    ("number", re.compile(
        r"^\s*(?:what|which)\b.*\b(?!(?:the|a|his|her|their|phone|mobile|contact)\b)[a-z]+\s+"
        r"(?:no\.?|number|num|#)(?=\s*(?:$|\?|,|(?:at|for|on|in|of|again|pls|please|is|was|are|r)\b))")),
    # "what did the job come to in the end": a total asked for
    ("amount", re.compile(r"\b(?:put|listed|sell|sold|selling|go|went|going)\b(?:\s+[\w'’]+){0,4}?\s+(?:up\s+)?for(?:\s+(?:in the end|again|then|eventually))?\W*$|\b(?:come|comes|came) to\b(?=\s*(?:$|[?!.,]|in (?:the end|total|all)\b|all (?:in|up|told)\b|altogether\b|so far\b|now\b|(?:minus|less|after|once)\b))|\bhow much\b|\basking (?:for|from|price)\b|\bsalar(?:y|ies)\b|\bwages?\b|\bcost(?:s|ing)?\b|\bspen(?:d|ds|t|ding)\b|\bprice\b|\bpa(?:y|ys|ying|id)\b|\bowe[ds]?\b|\bbalance\b|\bquote[ds]?\b|\bbudget\b|\bfees?\b|\brent\b|\bcharg(?:e|es|ed|ing)\b|\bbill\b|\bco-?pays?\b|\bpremiums?\b|\bdeductibles?\b|\bexcess\b|\bfares?\b|\btuition\b")),
    ("date", re.compile(r"\bwhen\b|\bwhat (?:date|day)s?\b|\bwhich (?:date|day)\b|\bhow long ago\b")),
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
        r"\bwho\b|\bwhose\b|\bname of\b|\bwhat(?:'?s|\s+is|\s+was|\s+were)\b.*\bname\b|"
        # a name asked last, with at most two words after it: "the sergeant's name again?",
        # "his name what ah?"
        r"\bnames?\b(?:\s+[\w'’]+){0,2}\W*$|"
        r"\bcalled\b(?!\s+(?:to|me|him|her|us|them|you|back|about|round|in|by|today|yesterday)\b)")),
    ("which", _WHICH),
)  # fmt: skip


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
        }
    ),
    "number": frozenset({"no", "number", "num"}),
    "who": frozenset({"again"}),
    "schedule": frozenset(
        "often day days night nights evening evenings morning mornings weekday weekdays".split()
    ),
    "time": frozenset({"time", "hour", "early", "late"}),
    "date": frozenset({"date", "day"}),
    "name": frozenset({"name", "called"}),
    # what says a preference, not what it is about: the sentence that answers may put it in
    # other words ("I can't stand DJs" for "did I want a DJ")
    "preference": frozenset(
        "preference prefer rather view consider keen want wanted like mind better avoid up".split()
    ),
}
# "when did", "what day did": the day something happened, which is the day it was told of when
# the telling names none ("stu came round to look at the roof").
_HAPPENED = re.compile(
    r"\b(?:when|what (?:date|day)|which day)(?:\s+(?:exactly|again|actually|roughly))?"
    r"\s+(?:did|was|were|had)\b"
)


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
    r"\bwhat do you think)\W*$"
)


# "when all was said and done" is "in the end", not "when".
_IN_THE_END = re.compile(r"\bwhen all(?:\s+(?:was|is)|['’]s)?\s+said and done\b")


def asks_for(question: str) -> str | None:
    """The kind of value that answers: "preference", "schedule", "time", "duration", "count",
    "number", "amount", "date", "place" or "name" (None: any sentence that covers the question, and a
    yes-or-no question)."""
    text = _IN_THE_END.sub("in the end", normalise(question).lower())
    if _ADVICE_LAST.search(text):
        return "preference"
    if not (_YES_OR_NO.search(text) and not _ASKS_ON.search(text)):
        asking = _ASKS_AFTER.search(text)
        if asking and not _names_a_question_word(text[: asking.start()]):
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


# What asks nothing more after it: no question word follows ("…, I've confused myself", not
# "…, I want to know what it cost").
_NO_QUESTION_AFTER = r"(?!.*\b(?:what|when|where|who|which|how)\b)"
# What is asked, without what the asker adds after it: "which days am i wfh again, need to tell
# a client", "what's the stall fee? bev's asking".
_REASON = re.compile(
    r"(?:,\s*(?:(?:(?:i|we)\s+)?(?:need|needs|because|cos|coz|so i can|so we can)\b"
    # or who wants the answer ("…, vet form wants it", "…, the school needs it"); what else
    # someone wants is left out only of a question about a value (``_SOMEONE_WANTS``)
    r"|(?:[\w'’]+\s+){1,3}(?:wants|needs|is asking)\s+(?:it|to know)\b"
    # or what the asker's memory is doing ("…, her name's gone right out of my head")
    r"|[^,]*\b(?:my (?:head|mind|memory)|forg[eo]t(?:ten)?|can['’]?t remember)\b"
    rf"{_NO_QUESTION_AFTER}"
    # or who asked for it ("…, kev askin bout summer", "…, fyi the bank asked"); what the
    # asker asked is what they ask about ("…, we asked about the rash")
    r"|(?:fyi\s+)?(?!(?:[\w'’]+\s+)?(?:i|we)\s)(?:[\w'’]+\s+){1,2}(?:is\s+|s\s+|keeps\s+)?"
    rf"(?:asking|askin|asked)\b{_NO_QUESTION_AFTER}"
    # or about the asker ("…, I've confused myself"), when it asks nothing itself
    rf"|(?:i|i['’]ve|ive|i['’]m|im|i['’]d)\s{_NO_QUESTION_AFTER})"
    # a reason run on without a comma: "now (that) I…" ("what room is gran in now im posting her
    # a parcel"), as "because" is
    rf"|(?<!\s)\s+now\s+(?:that\s+)?(?:i|i['’]ve|ive|i['’]m|im)\s{_NO_QUESTION_AFTER}"
    # someone who wants to know, run on at the end ("where are we staying again mum wants to
    # know", "… the insurance form wants the date")
    r"|\s+(?:(?:the|my|our|his|her|their|a|an)\s+)?(?:[\w'’]+\s+){1,2}(?:wants|needs)\s+(?:to know|the (?:date|time|day|name|number))\b"
    r"(?=\W*$))"
    r".*$",
    re.I,
)


# What someone else wants, after a comma: an aside to a question about a value ("how much are
# the tickets now, her gran wants to chip in"), but maybe the other choice in one about what the
# member would rather ("did i want the blue one, tom wants the red"), where it stays.
_SOMEONE_WANTS = re.compile(
    rf",\s*(?:[\w'’]+\s+){{1,3}}(?:wants|needs)\b{_NO_QUESTION_AFTER}.*$",
    re.I,
)

# An aside run on after the question with no comma: about the asker ("whats the name of
# kenzie's counselor again I want to send her a card", "what date did we land on I keep saying
# the third"), or who is asking and for what ("what was the price before they raised it renee
# is asking", "how many are we now my mam's asking for the table plan").
_RUN_ON = re.compile(
    rf"\s+(?:(?:i|i['’]m|im|i['’]ve|ive|i['’]d|i['’]ll)\s{_NO_QUESTION_AFTER}"
    r"|(?!(?:i|we|you)\s)(?:(?:my|me|our|the|his|her|their)\s+)?[\w'’]+\s+(?:is\s+|s\s+|keeps\s+)?"
    r"(?:asking|askin|asked)(?:\s+(?:for|about|bout|abt)\s+(?:the|a|an|my|our|it|this|that)\b"
    rf"{_NO_QUESTION_AFTER}.*)?\W*$"
    # or what someone wants of the asker ("how much is mom paying, she wants me to set up
    # autopay")
    rf"|(?:he|she|they|[\w'’]+)\s+(?:wants|needs)\s+(?:me|us)\s+to\s{_NO_QUESTION_AFTER})",
    re.I,
)
# Words a clause does not end on: after them an "I …" is part of the question ("what did I say
# I wanted", "do you know if I booked it", "when did we decide I would go").
_GOES_ON = frozenset(
    """
    a an the and or but of to in on at for with by from about into as n r u so is are was were be
    been being am do does did doing have has had will would can could should i we you he she they my
    our your his her their its it that what whats when where who which why how if whether because
    cos coz bc since until till til unless while before b4 after than once say said says think
    thought know knew remember wonder mean guess hope wish ask asked decide decided agree agreed
    tell told
    """.split()
)
# A clause that ends on its preposition is a relative one: "the lady i must send the forms to".
_ENDS_ON_PREPOSITION = re.compile(r"\b(?:to|for|with|at|on|in|from|about|of|by)\W*$", re.I)


def _names_a_question_word(text: str) -> bool:
    """Whether ``text`` holds a question word ("what's", "whens", "how")."""
    return any(w.replace("'", "").replace("’", "") in QUESTION_WORDS for w in words_of(text))


def _without_run_on(question: str) -> str:
    """``question`` up to an aside run on after it with no comma (``_RUN_ON``), when what comes
    before it asks something and ends where a clause can end; else ``question``."""
    for aside in _RUN_ON.finditer(question):
        before = question[: aside.start()]
        words = before.split()
        if (
            len(words) >= 3
            # "how much was that workstand I wanted?": the question mark ends it, so it asks
            and "?" not in question[aside.start() :]
            # "who's the lady i must send the forms to": who the clause is of
            and not _ENDS_ON_PREPOSITION.search(question[aside.start() :])
            and words[-1].lower().strip(",.'’") not in _GOES_ON
            and _names_a_question_word(before)
        ):
            return before
    return question


# Who wants the answer, said first: "vet form wants the date of pickles surgery. when was it",
# "the bank needs the date the plans went in".
# Who wants it: "vet form", "the insurance guy", "my CA", "wade's".
_WHO_FIRST = r"^\s*(?:(?:the|my|our|his|her|their|a|an)\s+)?(?:[\w'’]+\s+){1,3}"
_WANTS_FIRST = re.compile(
    rf"{_WHO_FIRST}(?:wants|needs)\s+(?:to know\s+)?(?=the (?:date|time|day|name|number)\b)"
    # or who wants to know, and then what ("the insurance guy wants to know what day it
    # started", "my CA is asking how much we spent", "wade's asking what I owe him")
    rf"|{_WHO_FIRST}(?:(?:wants|needs) to know|(?:is\s+|s\s+)?(?:asking|askin))\s+"
    r"(?=(?:what|when|where|who|which|how|if|whether)\b)"
    # or who needs a thing, and then asks what it is ("mortgage guy needs my base salary,
    # what is it exactly")
    rf"|{_WHO_FIRST}(?:wants|needs)\s+"
    r"(?=[^,?]+,\s*(?:what|when|where|how much)\s+(?:is|was|were|are|r)\s+(?:it|that|they|this)\b)",
    re.I,
)


# Who wants to know and why, run on after the question: "what time does the plane get in
# Saturday Bev wants to know when she ought to leave the house", "when did I drop the boat off
# the insurance fella wants the date for the claim".
_ASKERS = "|".join(sorted(PERSON_WORDS | {"office"}, key=len, reverse=True))
_KNOWS_WHY = re.compile(
    rf"\s+(?:(?:the|my|our|his|her|their|a|an)\s+(?:[\w'’]+\s+)?(?:{_ASKERS})\s+|"
    r"(?-i:[A-Z])[\w'’]*\s+)(?:wants|needs)\s+(?:to know|the (?:date|time|day|name|number))\s+"
    r"(?:when|what|where|if|whether|how|for)\b"
    r"[^?]*$",
    re.I,
)


def _asks_without(rest: str) -> bool:
    """Whether ``rest`` asks on its own: a question word, and not cut off after its verb ("what
    time is", of "what time is the party mum wants to know if she can come")."""
    return _names_a_question_word(rest) and not re.search(
        r"\b(?:is|are|was|were|does|do|did|s)\s*$", rest, re.I
    )


def _asking_first(parts: list[str]) -> list[str]:
    """With no question mark, the first sentence when it opens with a question word and no
    later one does: "wat is d duty on d camry now. obinna askin", "wen did d camry finaly come
    out of tin can. insurance form" (a list after it, "total wat d camry cost me. duty ike n
    all", is part of what a sentence that opens otherwise asks)."""
    said = [s for s in re.split(r"(?<=[.!])\s+", " ".join(parts)) if s.strip()]

    def opens_asking(sentence: str) -> bool:
        words = re.sub(r"['’]", "", normalise(sentence).lower()).split()
        if words[:1] and words[0] in ("and", "or", "also", "plus", "n", "+"):
            words = words[1:]
        return bool(words) and words[0] in QUESTION_WORDS

    if len(said) > 1 and opens_asking(said[0]) and not any(map(opens_asking, said[1:])):
        return said[:1]
    return parts


def asked_part(question: str) -> str:
    """The sentences that ask (those with a question mark, when some have one), without a
    reason added after a comma ("…, need it for a form") or an aside run on after it."""
    parts = [p for p in re.split(r"(?<=\?)\s+", question.strip()) if p.strip()]
    asking = [p for p in parts if "?" in p] or _asking_first(parts)
    asked = _without_run_on(_REASON.sub("", " ".join(asking)).strip())
    if (run_on := _KNOWS_WHY.search(asked)) and _asks_without(asked[: run_on.start()]):
        asked = asked[: run_on.start()]
    if len((rest := _WANTS_FIRST.sub("", asked)).split()) >= 3:  # "the date of the op"
        asked = rest
    if asks_for(asked) != "preference":
        asked = _SOMEONE_WANTS.sub("", asked).strip()
    return asked or question


def recalled_for(message: str) -> str:
    """What recall looks for, for a message: a question's asking part ("What's our boat
    called again?" without "Rhys wants to look it up"), any other message whole."""
    return asked_part(message) if is_question(message) else message


@dataclass(frozen=True)
class Question:
    """What a question asks: its content words (by stem) with their weight, the kind of thing
    that answers it, the words none of the member's words holds (typos, or things never
    mentioned) and, among those, the names."""

    weights: dict[str, float]
    wanted: str | None
    unseen: frozenset[str] = frozenset()
    unknown_names: tuple[str, ...] = ()
    about_the_past: bool = False
    happened: bool = False  # asks when something happened ("when did …")
    # the places it names, by the stems of their words ("my manager at Greenhaven")
    places: frozenset[str] = frozenset()
    thing: str = ""  # for "which": the stem of the thing it asks which one of ("knee")
    persons: frozenset[str] = frozenset()  # its words that are first names ("arjun")
    # Of its words the member has written, the one least common in English: what it is about
    # ("hockey" in "how much have i spent on hockey this yr"), not how it asks.
    key: str = ""
    # The two things it asks the member to choose between, as typed ("a DJ", "a playlist")
    options: tuple[str, ...] = ()

    @property
    def about(self) -> frozenset[str]:
        """The words a value it asks for is read beside: the thing a "which" question names,
        else all its words."""
        return frozenset({self.thing}) if self.thing else frozenset(self.weights)

    def at_another_place(self, sentence: str, terms: frozenset[str]) -> bool:
        """Whether ``sentence`` (its content words ``terms``) says something is at a place, not
        one the question asks about, and names none of those: "Sandra, my manager at
        Kellaway's" for "who will my manager be at Greenhaven"."""
        if not self.places or terms & self.places:
            return False
        named = places_at(sentence)
        return bool(named) and not named & self.places

    def covers(self, term: str, terms: frozenset[str]) -> bool:
        if term in terms or either_way(term) & terms:
            return True
        # A word the member never wrote may be a typo of one they did ("deliverd").
        return term in self.unseen and any(_alike(term, other) for other in terms)

    def coverage(self, terms: frozenset[str], around: frozenset[str] = frozenset()) -> float:
        """The share of the question's weight the sentence covers; a word only the sentences
        said around it hold ("loon lake" two messages up) counts ``AROUND_WEIGHT``."""
        total = sum(self.weights.values())
        found = 0.0
        for term, weight in self.weights.items():
            if self.covers(term, terms):
                found += weight
            elif around and self.covers(term, around):
                found += AROUND_WEIGHT * weight
        return found / total if total else 0.0


def _alike(word: str, other: str) -> bool:
    return (
        min(len(word), len(other)) >= 4
        and SequenceMatcher(None, word, other).ratio() >= TYPO_SIMILARITY
    )


# Words that ask for the value as it is now, and name nothing the answer says ("how much is
# the rent these days", "when does bernie come these days"); a period ("this year", "this
# week") is one only for a question that is not about when.
_NOW_FRAME = re.compile(
    r"\bthese days\b|\bat the moment\b|\bnowadays\b|\bcurrently\b|\bright now\b", re.I
)
_CURRENT_FRAME = re.compile(r"\b(?:this|these) (?:year|yr|month|week|time)\b", re.I)
_WHEN_KINDS = frozenset({"date", "time", "schedule", "duration"})


_AT = re.compile(r"\b(?:at|in)\s*$", re.I)
_AT_ANY = re.compile(r"\b(?:at|in)\b", re.I)


def places_at(text: str) -> frozenset[str]:
    """The stems of the words of the places ``text`` says something is at or in ("my manager
    at Greenhaven", "the coach at Westfield"), not a place it only names."""
    if not _AT_ANY.search(text):
        return frozenset()  # no "at" or "in": no parse
    return frozenset(
        stem(word)
        for place in places.places_in(text)
        if _AT.search(text[: place.start])
        for word in words_of(place.words.lower())
    )


# Someone the asker introduces by who they are to them, as the one who says or wants something:
# "my neighbor Sal's got a Yamaha acting up", "My sister Beverly says I should …". They are
# telling who is asking, not asking about them: a name never mentioned is not why there is
# nothing to say.
_INTRODUCED = re.compile(
    r"\b(?i:my|our|me)\s+(?:[a-z]+\s+)?[a-z]+\s+(?P<name>[A-Z][a-z]+)(?:['’]s\s+got\b|\s+(?:says|said|"
    r"reckons|thinks|wants|asked|is asking|keeps asking|has got)\b)"
)


def read_question(owner, question: str, *, asked_in_index: bool = False) -> Question:
    """A word weighs by how rare it is among the member's own words (IDF over their keyword
    index, which holds their memories and what they said: "playlist" decides, "want" hardly
    does); a word none of them holds weighs the most, and a sentence covers it only by a near
    spelling. A name none of them holds (a word capitalised inside the question, or a first name
    that is not also a common word) means there is no memory of it. ``asked_in_index``: the
    question is itself a message in the index, and its own words do not count."""
    question = asked_part(question)
    text = normalise(question)
    wanted = asks_for(question)
    text = _NOW_FRAME.sub(" ", text)
    if wanted not in _WHEN_KINDS:
        # "what's orla charging this year": the current value, not a thing said with "year".
        text = _CURRENT_FRAME.sub(" ", text)
    frame = FRAME_WORDS.get(wanted or "", frozenset())
    past = values.asks_about_the_past(normalise(question))  # "b4 i got him down"
    if past:
        frame = frame | values.PAST_WORDS
    frame = frame | {stem(word) for word in frame}  # "what dates" as "what date"
    words = {}
    for word in words_of(text):
        term = stem(word)
        if (
            len(word) > 1
            and not word.isdigit()
            and not is_filler(word)
            and term not in FILLER
            and word not in frame
            and term not in frame
        ):
            words.setdefault(term, word.replace("'", " ").replace("’", " ").split()[0])
    if not words:
        return Question({}, wanted)
    members = max(Memory.everything.filter(owner=owner).count(), 1)
    counts = search.term_match_counts(
        owner_id=owner.pk, terms=tuple(words.values()), cap=members + 1
    )
    if asked_in_index:
        counts = [max(count - 1, 0) for count in counts]
    capitalised = {w.lower() for w in re.findall(r"(?<=[\w,] )[A-Z][a-z]+", text)}
    introduced = {m.group("name").lower() for m in _INTRODUCED.finditer(text)}
    names = first_names() - common_words()
    weights, unseen, unknown, seen = {}, set(), [], {}
    for (term, word), count in zip(words.items(), counts, strict=True):
        if word in introduced:
            continue  # who is asking, not what is asked
        weights[term] = math.log((members + 1) / (count + 0.5))
        if count:
            seen[term] = words_in_english.zipf(word)
        else:
            weights[term] *= words_in_english.telling(word)
            unseen.add(term)
            if word in capitalised or word.removesuffix("s") in names:
                unknown.append(word.title())
    return Question(
        weights,
        wanted,
        frozenset(unseen),
        tuple(unknown),
        past,
        bool(_HAPPENED.search(text.lower())),
        places_at(question) & weights.keys(),
        _thing_asked(text, wanted),
        # a name as written, or with its possessive's "s" ("nadias"), not by its stem ("jak")
        frozenset(
            term for term, word in words.items() if {word, word.removesuffix("s"), term} & names
        ),
        min(seen, key=seen.__getitem__, default=""),
        options_of(question),
    )


# Two things to choose between: "did I want a DJ or a playlist", "wood or vinyl??", "bath or
# shower up in the loft", "after work or first thing"; each a word, with the article,
# preposition or ordinal before it when it has one.
_LEADS_OPTION = r"(?:a|an|the|after|before|in|at|on|by|with|first|last|next)\s+"
_CHOICE = re.compile(
    rf"(?P<left>\b(?:{_LEADS_OPTION})?[\w'’-]+)\s+or\s+(?P<right>(?:{_LEADS_OPTION})?[\w'’-]+)",
    re.I,
)
# Words that are no thing to choose: "every Saturday or every other one", "now or later".
_NO_OPTION = FILLER | frozenset(
    "other one ones else not something anything later sooner every".split()
)


def options_of(question: str) -> tuple[str, ...]:
    """The two things ``question`` asks to choose between, as typed; () when it offers none."""
    found = _CHOICE.search(question)
    if found is None:
        return ()
    options = (found.group("left"), found.group("right"))
    if any(o.split()[-1].lower() in _NO_OPTION or o.split()[-1].isdigit() for o in options):
        return ()
    return options


def _thing_asked(text: str, wanted: str | None) -> str:
    """The stem of the thing a "which" question asks which one of ("knee" in "which knee is dad
    getting done"); "" for any other question."""
    found = _WHICH.search(text.lower()) if wanted == "which" else None
    return stem(found.group(1)) if found else ""
