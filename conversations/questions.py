"""What a question asks (conversations/answers.py answers it): its asking part without what the
asker adds, its words and their weights in the member's own index, the names it uses, and the
kind of thing it asks for (read by conversations/kinds_asked.py)."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from difflib import SequenceMatcher

from conversations.kinds_asked import (
    FRAME_WORDS,
    QUESTION_WORDS,
    WHICH,
    asks_for,
    is_question,
    names_a_question_word,
)
from conversations.terms import FILLER, derived, either_way, is_filler, stem, words_of
from memories import search
from memories.models import Memory
from talkingrock import nlp
from talkingrock.language import places, values
from talkingrock.language import words as words_in_english
from talkingrock.language.names import NOT_NAMES, PERSON_WORDS, common_words, first_names
from talkingrock.language.offline.lexicon import normalise

GREETINGS = frozenset(
    "hello hi hey hiya good morn even night thank cheer bye goodby great cool nice lovely much".split()
)
_NAME = re.compile(r"(?<=[a-z,;:] )[A-Z][a-z]+")

TYPO_SIMILARITY = 0.8  # difflib's ratio above which an unseen word is a misspelling
# A question word the sentence lacks but the sentences said around it hold counts this much.
AROUND_WEIGHT = 0.5


# "when did", "what day did": the day something happened, which is the day it was told of when
# the telling names none ("stu came round to look at the roof").
_HAPPENED = re.compile(
    r"\b(?:when|(?:what|which) (?:date|day))(?:\s+(?:exactly|again|actually|roughly))?"
    r"\s+(?:did|was|were|had)\b"
)


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


# What is said after "again," when it asks nothing: the asker's own aside ("whats betos shop
# called again, coworkers explorer slippin gears n i told him go to my guy"), but not a
# description of what is asked ("…again, the place with the discount"), nor the change a
# question about the past names ("…again, b4 we went w sipho").
_AFTER_AGAIN = re.compile(
    r"(?<=\bagain),\s*+(?!(?:the|a|an|that|this|b4|before|not|or|and|but|only|just|from|at|in|on|"
    r"for|with|of|would|should|could|can|do|does|did|is|are|was|were|will|shall|have|has|may|"
    rf"might|must)\b|\d){_NO_QUESTION_AFTER}.*$",
    re.I,
)


def _without_aside_after_again(question: str) -> str:
    """``question`` without the aside after "again," (``_AFTER_AGAIN``), when what comes
    before it asks ("the committee asked again, would i be up for it" keeps its question)."""
    aside = _AFTER_AGAIN.search(question)
    if aside is None or not names_a_question_word(question[: aside.start()]):
        return question
    return question[: aside.start()]


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
    rf"{_NO_QUESTION_AFTER}.*"
    # and what the asker adds of it ("… Tariq's brother is asking and I don't want to say the
    # wrong number")
    rf"|\s+(?:and|so|but)\s+(?:i|we)\b{_NO_QUESTION_AFTER}.*)?\W*$"
    # or who is asking, said with where they are, and for what ("how many are we now the lady at
    # the party store is asking me for the count")
    r"|(?:the|my|our|a|an)\s+[\w'’]+\s+(?:at|from|in|on)\s+(?:[\w'’]+\s+){1,3}?"
    r"(?:is\s+|s\s+|keeps\s+)?(?:asking|askin)\b"
    rf"(?:\s+(?:me|us))?(?:\s+(?:for|about|bout|abt)\b{_NO_QUESTION_AFTER}.*)?\W*$"
    # or what someone wants of the asker ("how much is mom paying, she wants me to set up
    # autopay")
    rf"|(?:he|she|they|[\w'’]+)\s+(?:wants|needs)\s+(?:me|us)\s+to\s{_NO_QUESTION_AFTER}"
    # or who asks it of the asker, and what they ask in their own words, run on after what is
    # asked ("when did Shabir first come to measure the building control man is asking me how
    # long we have been planning it")
    r"|(?:(?:the|my|our|his|her|their)\s+)?(?:[\w'’]+\s+){1,3}(?:is\s+|s\s+)?(?:asking|askin)"
    r"(?:\s+(?:me|us))?\s+(?:how|what|when|where|who|which|if|whether)\b.*$"
    # or why it is asked, with no comma ("which days do i have physio cause i want to book the
    # barber"; not "because of the rain")
    rf"|(?:because|cause|cos|coz|cuz)\s+(?!of\b){_NO_QUESTION_AFTER}"
    # or what the asker will do with the answer, whatever it asks of someone else ("how much
    # people Norma cooking for now mi need fi tell Brother Clive how much chair fi set out")
    r"|(?:i|mi|me|we)\s+(?:need|have|got|gotta|must|want|wan)\s+(?:to\s+|fi\s+)?"
    r"(?:tell|let|give|send|book|ring|call|text|email|phone|message)\b"
    # or someone named who wants something of it ("what time is the party Sarah wants to bring
    # a cake", "… Brother Delroy want fi get her for his daughter's wedding")
    rf"|(?:(?-i:[A-Z])[\w'’]*\s+){{1,2}}(?:wants?|needs?)\s+(?:to|fi)\s{_NO_QUESTION_AFTER})",
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
            and names_a_question_word(before)
        ):
            # whose the one asking is ("… for the extension now Tariq's brother is asking")
            whose = _WHOSE_LAST.search(before)
            if (
                whose
                and len(words) > 3
                and not _ENDS_ON_PREPOSITION.search(before[: whose.start()])
            ):
                return before[: whose.start()]
            return before
    return question


# Whose the one asking is, said last ("… Tariq's brother is asking"); not a place said after its
# preposition ("what time do we need to be at Sam's my wife is asking").
_WHOSE_LAST = re.compile(r"\s+[\w]+['’]s\s*$")


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
    return names_a_question_word(rest) and not re.search(
        r"\b(?:is|are|was|were|does|do|did|s)\s*$", rest, re.I
    )


# A request to be told, which asks as a question does: "Kindly remind me of Lorna's salary",
# "please tell me the name of the hall", "can you remind me what the rate is".
_REQUEST = re.compile(
    r"(?:(?:kindly|please|pls|plz)\s+)?(?:(?:can|could|would)\s+you\s+(?:please\s+)?)?"
    r"(?:remind|tell)\s+me\b|(?:kindly|please|pls)\s+let\s+me\s+know\b"
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
        return bool(words) and (words[0] in QUESTION_WORDS or bool(_REQUEST.match(" ".join(words))))

    if len(said) > 1 and opens_asking(said[0]) and not any(map(opens_asking, said[1:])):
        return said[:1]
    return parts


def asked_part(question: str) -> str:
    """The sentences that ask (those with a question mark, when some have one), without a
    reason added after a comma ("…, need it for a form") or an aside run on after it."""
    parts = [p for p in re.split(r"(?<=\?)\s+", question.strip()) if p.strip()]
    asking = [p for p in parts if "?" in p] or _asking_first(parts)
    asked = _without_run_on(_without_aside_after_again(_REASON.sub("", " ".join(asking))).strip())
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
        if any(derived(term, other) for other in terms):
            return True  # "operated" finds "the operation"
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
    r"\bthese days\b|\bat the moment\b|\bnowadays\b|\bcurrently\b|\bright now\b|"
    r"\bat present\b|\bas (?:it stands|of now|things stand)\b",
    re.I,
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
    r"reckons|thinks|wants|asked|is asking|keeps asking|has got)\b"
    # or theirs is what they want it for: "my comadre Nelly her daughter is having the quince"
    r"|\s+(?:her|his|their)\s)"
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
    if wanted == "name" and names_a_thing(text):
        wanted = "called"  # "whats betos shop called again": a thing's name, not a person's
    text = _NOW_FRAME.sub(" ", text)
    if wanted not in _WHEN_KINDS:
        # "what's orla charging this year": the current value, not a thing said with "year".
        text = _CURRENT_FRAME.sub(" ", text)
    frame = FRAME_WORDS.get(wanted or "", frozenset())
    past = values.asks_about_the_past(normalise(question))  # "b4 i got him down"
    if past:
        frame = frame | values.PAST_WORDS
        text = _without_the_change(text)
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
    capitalised = {w.lower() for w in re.findall(r"(?<=[\w,] )[^\W\d_]+", text) if w.istitle()}
    introduced = {m.group("name").lower() for m in _INTRODUCED.finditer(text)}
    names = first_names() - common_words()
    # A name never mentioned means nothing was said of it only where it is asked about: not in
    # a sentence said before the question ("My cousin Wangari would like to join. How much is
    # our contribution now?"), and never a month or a day ("for Roy's birthday in August").
    asking = {
        word.replace("’", "'").split("'")[0] for word in words_of(_asking_sentence(text))
    } - NOT_NAMES
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
            if word in asking and (word in capitalised or word.removesuffix("s") in names):
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


def _asking_sentence(question: str) -> str:
    """The sentences of ``question`` that ask: those with a question mark, else those from the
    first that names a question word, else the whole."""
    said = [s for s in re.split(r"(?<=[.!?])\s+", question) if s.strip()]
    marked = [s for s in said if "?" in s]
    if marked:
        return " ".join(marked)
    for at, sentence in enumerate(said):
        if names_a_question_word(sentence):
            return " ".join(said[at:])
    return question


# What a question about the past says changed it, after "before": "what was my closing date
# originally, before the sellers pushed it", "what did he charge b4 i argued him down".
_BEFORE_CLAUSE = re.compile(r"\b(?:before|b4)\s+(?P<clause>[^,.;:?!]+)", re.I)


def _without_the_change(text: str) -> str:
    """``text`` without the clause that tells what changed the value asked for: its words name
    the change, and the value before it was said without them. A time said after "before" ("the
    budget before the wedding") has no verb that tells something done, and stays."""

    def change(match: re.Match) -> str:
        words = words_of(match.group("clause"))
        done = any(nlp.is_verb_form(w) and not w.endswith("ing") for w in words[1:])
        return " " if done else match.group(0)

    return _BEFORE_CLAUSE.sub(change, text)


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


# What a name question asks the name of: "what's our boat called", "the name of the hall for
# Divya's function", "dr yip clinic name": the few words before "called" or "name", or after
# "name of".
_CALLED = re.compile(
    r"(?<![\w&'’-])((?:[\w&'’-]+\s+){1,3})(?:(?:is|was|s)\s+)?(?:called|calld|named)\b", re.I
)
_NAME_OF = re.compile(
    r"\bname\s+(?:of|a)\s+((?:(?!(?:for|at|in|on|that|who|which|we|i|again)\b)[\w'’-]+\s*){1,3})",
    re.I,
)
_NAMED = re.compile(r"(?<![\w&'’-])((?:[\w&'’-]+\s+){1,3})names?\b", re.I)
# Words of a name question that say nothing of whose name it is.
_NOT_WHOSE = frozenset("the a an that this full first last real actual proper again".split())
_PRONOUNS = frozenset("his her their your my our its him them".split())
_TITLE_WORDS = frozenset("dr mr mrs ms miss sir doctor señora senora señor senor doña dona".split())
_PERSON_STEMS = frozenset(stem(word) for word in PERSON_WORDS)
# The endings of the words for someone by what they do: physician, therapist, officer,
# instructor. (Some things end so too, a boiler, a printer: a name asked of one is read as a
# person's, as before.)
_WHO_DOES = ("ian", "ians", "ist", "ists", "er", "ers", "or", "ors")


def names_a_thing(text: str) -> bool:
    """Whether a question that asks a name asks a thing's (a boat, a shop, a hall, a clinic),
    not a person's: the word it names the one asked of by (the last before "called" or "name",
    the last after "name of") is no word for a person, no pronoun, no title and has no title
    just before it ("the banquet manager", "dr h's", "her" are people; "betos shop" and "dr yip
    clinic" are not)."""
    found = _CALLED.search(text) or _NAME_OF.search(text) or _NAMED.search(text)
    if not found:
        return False
    words = [re.sub(r"['’]s?$", "", w.lower()) for w in found.group(1).split()]
    words = [w for w in words if w and w not in _NOT_WHOSE and w not in FILLER]
    if not words:
        return False
    # the word that names it: the last before "called" or "name", the last after "name of"
    *before, head = words
    if head in _PRONOUNS | _TITLE_WORDS | PERSON_WORDS or stem(head) in _PERSON_STEMS:
        return False
    if head.endswith(_WHO_DOES):
        return False  # "the renal physician", "the planning officer": who does it
    return not (before and before[-1] in _TITLE_WORDS)  # "dr h's name": Dr H


def _thing_asked(text: str, wanted: str | None) -> str:
    """The stem of the thing a "which" question asks which one of ("knee" in "which knee is dad
    getting done"); "" for any other question."""
    found = WHICH.search(text.lower()) if wanted == "which" else None
    return stem(found.group(1)) if found else ""
