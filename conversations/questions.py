"""What a question asks (conversations/answers.py answers it): its words and their weights in the
member's own index, the kind of thing it asks for ("when" a date or a time, "how much" an
amount), the names it uses, and whether a message is a question at all."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import date, timedelta
from difflib import SequenceMatcher

from memories import search
from memories.models import Memory
from talkingrock.language import amounts, dates, names, places, spoken, tense, values
from talkingrock.language import words as words_in_english
from talkingrock.language.mentions import MON, WD
from talkingrock.language.names import common_words, first_names
from talkingrock.language.offline.lexicon import normalise

QUESTION_WORDS = frozenset(
    "what whats when whens where wheres who whos whom whose which why how".split()
)
AUXILIARIES = frozenset(
    "do does did is isnt are arent was were can could will would should shall have has had am".split()
)
# Words a question is made of that say nothing about what it asks for.
FILLER = frozenset(
    """
    a an the and or but of to in on at for with by from about into as is are was were be been
    being am do does did doing done have has had i me my mine we us our ours you your yours he
    him his she her hers they them their it its this that these those there here what whats
    when whens where wheres who whos whom whose which why how again wait actually exactly now
    then still ever already just really so also any anything some something tell remind know
    remember said say says think thought end ended up going go get got can could will would
    should shall lets let please ok okay oh um hmm again also n r u ur ya yeah
    """.split()
)
GREETINGS = frozenset(
    "hello hi hey hiya good morn even night thank cheer bye goodby great cool nice lovely much".split()
)
_WORD = re.compile(r"[a-z0-9£$€][a-z0-9£$€,.'’-]*", re.I)
_NAME = re.compile(r"(?<=[a-z,;:] )[A-Z][a-z]+")

TYPO_SIMILARITY = 0.8  # difflib's ratio above which an unseen word is a misspelling
# A question word the sentence lacks but the sentences said around it hold counts this much.
AROUND_WEIGHT = 0.5


def stem(word: str) -> str:
    """A crude English stem, enough to match "measure" with "measured" and "weddings" with
    "wedding": the possessive, a plural and the commonest inflections off."""
    word = word.lower().strip(".,'’-").removesuffix("'s").removesuffix("’s")
    if word.endswith("ies") and len(word) > 4:
        word = word[:-3] + "y"
    elif word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        word = word[:-1]
    if word.endswith("ing") and len(word) > 5:
        word = word[:-3]
    elif word.endswith("ed") and len(word) > 4:
        word = word[:-2]
    return word.rstrip("e") if len(word) > 3 else word


def words_of(text: str) -> list[str]:
    return [w.strip(".,'’-").lower() for w in _WORD.findall(text)]


def content_terms(text: str) -> frozenset[str]:
    stems = ((w, stem(w)) for w in words_of(normalise(text)) if len(w) > 1 and not w.isdigit())
    return frozenset(
        s
        for w, s in stems
        if w not in FILLER and s not in FILLER and re.sub(r"['’]s$", "", w) not in FILLER
    )


def is_question(text: str) -> bool:
    """A question mark, a question word or auxiliary first, or "remind me"; also a question
    word followed by "again" ("gems hen do when n where again")."""
    plain = normalise(text).strip().lower()
    if "?" in plain:
        return True
    words = words_of(plain)
    if not words:
        return False
    first = words[0].replace("'", "").replace("’", "")
    if (
        first in QUESTION_WORDS
        or first in AUXILIARIES
        or plain.startswith(("remind me", "tell me"))
    ):
        return True
    return words[-1] == "again" and any(w.replace("'", "") in QUESTION_WORDS for w in words)


# --- what a question asks for -------------------------------------------------------------------

# Each kind of value a question can ask for, and how it is asked.
_ASKS = (
    ("schedule", re.compile(r"\bhow often\b|\b(?:what|which) (?:days|nights|evenings|mornings|weekends)\b")),
    ("time", re.compile(r"\bwhat\s?(?:r\s)?time\b|\bwhat hour\b|\bhow early\b|\bhow late\b")),
    ("duration", re.compile(r"\bhow long\b(?! ago)|\bhow far\b|\bhow many (?:min|hour|day|week|month|year|mile|km)")),
    ("count", re.compile(r"\bhow many\b")),
    # the number a thing goes by: "whats our plot no", "what's the flight number again"
    ("number", re.compile(r"^\s*(?:what|which)\b.*\b[a-z]+\s+(?:no|number|num|#)(?!\w)")),
    ("amount", re.compile(r"\bhow much\b|\bcost(?:s|ing)?\b|\bprice\b|\bpa(?:y|ys|ying|id)\b|\bowe\b|\bquote[ds]?\b|\bbudget\b|\bfees?\b|\brent\b|\bcharg(?:e|es|ed|ing)\b|\bbill\b")),
    ("date", re.compile(r"\bwhen\b|\bwhat (?:date|day)s?\b|\bwhich (?:date|day)\b|\bhow long ago\b")),
    ("place", re.compile(r"^\s*where\b|\bwhere(?:['’]?s| is| are| r| was| were| do| does| did| will| should| can)\b")),
    ("name", re.compile(r"\bwho\b|\bwhose\b|\bname of\b|\bwhat'?s .*\bname\b|\bcalled\b")),
)  # fmt: skip


# The words that only say what kind of value is asked for ("how LONG is the drive"): no
# sentence that answers repeats them, so they do not count towards coverage.
FRAME_WORDS = {
    "duration": frozenset({"long", "far"}),
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
        }
    ),
    "number": frozenset({"no", "number", "num"}),
    "schedule": frozenset({"often", "day", "days"}),
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
_HAPPENED = re.compile(r"\b(?:when|what (?:date|day)|which day)\s+(?:did|was|were|had)\b")


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
    r"\b(?:is it|would it be|is that|which is|what's|whats) better\b",
    re.I,
)
# How a sentence says what someone wants or would rather: "I'd rather run the raffle", "he can't
# stand DJs", "morning appointments are way better for dad", "no early flights".
_PREFERS = re.compile(
    r"\b(?:rather|prefer\w*|(?:don['’]?t|do not|doesn['’]?t|never) want|"
    r"(?:i|we|he|she|they|you)(?: really| just| only)? want(?:s|ed)?(?! to (?:ask|say|tell|know))|"
    r"not one of (?:those|them)|"
    r"can['’]?t stand|cannot stand|hate[sd]?|love[sd]?|(?:way |much |far )?better|worse|"
    r"avoid\w*|no way|never again|not a fan|fan of|keen|happy to|refus\w*|turn(?:s|ed)? down|"
    r"(?:not|never) (?:doing|having|going)|sick of|fed up)\b",
    re.I,
)


def prefers(sentence: str) -> str:
    """The words by which ``sentence`` says what someone wants or would rather ("" if none)."""
    found = _PREFERS.search(sentence)
    return found.group(0) if found else ""


def asks_for(question: str) -> str | None:
    """The kind of value that answers: "preference", "schedule", "time", "duration", "count",
    "amount", "date", "place" or "name" (None: any sentence that covers the question, and a
    yes-or-no question)."""
    text = normalise(question).lower()
    if not (_YES_OR_NO.search(text) and not _ASKS_ON.search(text)):
        for kind, pattern in _ASKS:
            if pattern.search(text):
                return kind
    return "preference" if _ASKS_PREFERENCE.search(text) else None


# What is asked, without what the asker adds after it: "which days am i wfh again, need to tell
# a client", "what's the stall fee? bev's asking".
_REASON = re.compile(
    r",\s*(?:(?:(?:i|we)\s+)?(?:need|needs|because|cos|coz|so i can|so we can)\b"
    # or who wants the answer ("…, vet form wants it", "…, the school needs it")
    r"|(?:[\w'’]+\s+){1,3}(?:wants|needs|is asking)\s+(?:it|to know)\b"
    # or about the asker ("…, I've confused myself"), when it asks nothing itself
    r"|(?:i|i['’]ve|ive|i['’]m|im|i['’]d)\s(?!.*\b(?:what|when|where|who|which|how)\b)).*$",
    re.I,
)


def asked_part(question: str) -> str:
    """The sentences that ask (those with a question mark, when some have one), without a
    reason added after a comma ("…, need it for a form")."""
    parts = [p for p in re.split(r"(?<=\?)\s+", question.strip()) if p.strip()]
    asking = [p for p in parts if "?" in p] or parts
    return _REASON.sub("", " ".join(asking)).strip() or question


def value_in(
    sentence: str,
    kind: str | None,
    *,
    said_on: date,
    happened: bool = False,
    about: frozenset[str] = frozenset(),
) -> str:
    """The value of the kind asked for that ``sentence`` states, in plain words, read against
    the day it was said ("the 8th at 10:30" → "Tuesday 8 December 2026 at 10:30am"); "" when it
    states none. Of several, the one nearest the words the question is ``about`` ("her bill was
    1400 + the 850 consumer unit" → 850 for the consumer unit). ``happened``: the question asks
    when something happened, and a sentence that tells it happened without naming a day tells
    it on the day it was said."""
    if kind is None:
        return ""
    if kind == "name":
        # Someone the sentence names who is not the one the question asks about ("what did lee
        # say": not Lee).
        people = [
            (at, name)
            for at, name in names.people_in(sentence)
            if not {stem(part) for part in name.split()} & about
        ]
        found_people = nearest_first(people, sentence, about)
        return found_people[0][1] if found_people else named_as(sentence, about)
    if kind == "preference":
        return prefers(sentence)
    if kind == "place":
        found_places = nearest_first(
            still_held([(p.start, p) for p in places.places_in(sentence)], sentence),
            sentence,
            about,
        )
        return found_places[0][1].words if found_places else ""
    if kind in ("schedule", "time", "date"):
        return _time_value(sentence, kind, said_on=said_on, happened=happened, about=about)
    if kind == "count":
        return _count_value(sentence, said_on=said_on, about=about)
    if kind == "number":
        return _number_of(sentence, about)
    return _sum_value(sentence, kind, said_on=said_on, about=about)


# A figure a thing goes by, said right after its name: "plot 27", "room no. 12", "gate #4".
_NUMBERED = re.compile(
    r"\b([a-z][\w'’-]*)\s+(?:no\.?\s*|number\s+|#\s*)?(\d{1,6})\b(?![.,:/]?\d)", re.I
)


def _number_of(sentence: str, about: frozenset[str]) -> str:
    """The figure ``sentence`` gives right after a word the question is ``about`` ("its plot
    27, a half plot" → "plot 27"); "" when there is none."""
    for m in _NUMBERED.finditer(sentence):
        if stem(m.group(1)) in about:
            return f"{m.group(1)} {m.group(2)}"
    return ""


# A name given as one: "racing name sandgate mischief", "his name's walt", "it's called
# Rosebank". The words after it, up to one that is no part of a name (see named_as).
_NAMED_AS = re.compile(
    r"\b(?:name|called)\b(?:\s+(?:is|was)\b|['’]s\b)?[:\s]+([^\W\d_][\w'’-]*(?:\s+[^\W\d_][\w'’-]*){0,3})"
)


def named_as(sentence: str, about: frozenset[str] = frozenset()) -> str:
    """The name ``sentence`` gives something in so many words ("racing name sandgate mischief
    lol" → "sandgate mischief"): the words after "name" or "called", up to the first that is
    no part of a name ("lol", "he", "but"); not one the question is ``about`` ("call name
    pretzel", asked for Pretzel's racing name); "" when there is none."""
    for m in _NAMED_AS.finditer(sentence):
        name = []
        for word in m.group(1).split():
            if word.lower() in FILLER or normalise(word).strip() == "":
                break
            name.append(word)
        if name and not {stem(word.lower()) for word in name} & about:
            return " ".join(name)
    return ""


def replaced_in(sentence: str, kind: str | None, *, said_on: date) -> str:
    """The value of the kind asked for that ``sentence`` says no longer holds: in plain words
    ("it's the 24th at 9:40 now, not the 10th": Friday 10 April 2026), or in the member's own
    when it is a bare figure that takes its measure from the value it gave way to ("maybe 18
    months total not 22": 22); "" when it says none."""
    if kind in (None, "name", "preference"):
        return ""
    for start in values.strikes(sentence):
        clause = _CLAUSE_END.split(sentence[start:], maxsplit=1)[0]
        if not _STRUCK_VALUE.match(clause):
            continue  # "not up to reg … 850": what is struck out is no value
        if value := value_in(clause, kind, said_on=said_on):
            return value
        said = _SAID_FIGURE.match(clause)
        if said:
            return said.group(0)
    return ""


# What a value struck out starts with, after the words that lead to it: a figure, a day or a
# month ("not the 10th", "instead of £142", "not fri", "not may 5").
_STRUCK_VALUE = re.compile(rf"{values.TO_THE_VALUE}(?:[£$€]?\d|(?:{MON}|{WD})\b)", re.I)
# A figure said bare, or a day with its month: "22", "8th-15th", "may 5".
_SAID_FIGURE = re.compile(rf"(?:(?:{MON})\s+)?[£$€]?\d[\w:.,–-]*(?<![.,])", re.I)


def _time_value(
    sentence: str, kind: str, *, said_on: date, happened: bool, about: frozenset[str]
) -> str:
    """A schedule, a time of day or a day (the kind "date"), as ``value_in`` reads it."""
    # Each date is read the way the verb before it tells time: "it came through on Tuesday"
    # looks back, "I'm taking her on the 2nd" ahead.
    ahead = {m.start: m for m in dates.find(sentence, today=said_on)}
    back = {m.start: m for m in dates.find(sentence, today=said_on, lean="past")}
    found: list[tuple[int, dates.Mention]] = []
    lean = "future"
    for start, mention in ahead.items():
        if tense.lean_of(sentence, at=start) == "past":
            lean = "past"
            mention = back.get(start, mention)
        found.append((start, mention))
    if not found:
        lean = tense.lean_of(sentence)
    said_days = [m for _, m in found if m.day is not None and m.said_as in DAY_SAID_AS]
    found = nearest_first(still_held(found, sentence), sentence, about)
    mentions = [m for _, m in found]
    if kind == "schedule":
        schedule = next((m.recurs for m in mentions if m.recurs), None)
        if schedule is None:
            return ""
        # "every 6 weeks, always tues first thing": the interval and the day said beside it.
        day = next((m.day for m in mentions if m.said_as == "weekday" and m.day), None)
        if "BYDAY" not in schedule.rule and day is not None:
            return f"{schedule.words}, on {day:%A}"
        return schedule.words
    if kind == "time":
        return next((spoken.spoken_time(m.time) for m in mentions if m.time), "")
    corrected = values.corrected_from(sentence)
    for mention in mentions:
        at = f" at {spoken.spoken_time(mention.time)}" if mention.time else ""
        if mention.day is None and mention.time and corrected and mention.start >= corrected:
            # "on the 2nd at 9:15 … wait no, 9:45": the time of the day said before
            day = next((m.day for m in said_days if m.start < corrected), None)
            if day is not None:
                return spoken.spoken(day, weekday=True) + at
        if mention.recurs is not None:
            return mention.recurs.words + at
        if mention.said_as == "date" and mention.period is not None:
            # "14-21 sept": the span, as said
            return spoken.spoken_span(mention.day, mention.period[1] - timedelta(days=1)) + at
        if mention.day is not None and mention.said_as in DAY_SAID_AS:
            return spoken.spoken(mention.day, weekday=True) + at
        if mention.said_as == "ago":
            return f"around {spoken.spoken(mention.day)}" + at  # "3 weeks ago": about then
    if happened and lean == "past":
        # Done in a month it names ("the roof was done back in april"), else on the day told.
        month = next((m for m in mentions if m.said_as == "month" and m.period), None)
        return _month_said(month) if month else spoken.spoken(said_on, weekday=True)
    return next((spoken.spoken_time(m.time) for m in mentions if m.time), "")


# How a month said alone is said back: "by April 2026", "end of April 2026"; "in", "next",
# "last" and "this" are in the year it resolves to.
_MONTH_LEADS = ("by", "since", "from", "until", "till", "before", "after", "early", "late", "mid")


def _month_said(mention: dates.Mention) -> str:
    """A month said alone ("back in april", "by end of march"), in plain words."""
    month = spoken.spoken_month(mention.period[0])
    lead = " ".join(mention.lead.split())
    keep = lead in _MONTH_LEADS or lead.endswith(" of")
    return f"{lead} {month}" if keep else month


def _sum_value(sentence: str, kind: str, *, said_on: date, about: frozenset[str]) -> str:
    """A length of time or a sum, as ``value_in`` reads it, outside the dates said."""
    skip = [(m.start, m.end) for m in dates.find(sentence, today=said_on)]
    found_amounts = still_held(
        [(a.start, a) for a in amounts.find(sentence, skip=skip, asked_for_a_sum=kind == "amount")],
        sentence,
    )
    found_amounts = [a for _, a in nearest_first(found_amounts, sentence, about)]
    if kind == "duration":
        units = ("minutes", "hours", "days", "weeks", "months", "years", "miles", "km")
        return next((a.said() for a in found_amounts if a.unit in units), "")
    if kind == "amount":
        money = [a for a in found_amounts if a.is_money or not a.unit]
        return money[0].said() if money else ""
    return ""


def counts_said(
    sentence: str, *, said_on: date, in_words: bool = False
) -> list[tuple[int, int, int]]:
    """The counts ``sentence`` says, as (start, end, how many), outside the dates, times and
    sums it says ("told Mel 68 on the 3rd": 68)."""
    skip = [(m.start, m.end) for m in dates.find(sentence, today=said_on)]
    skip += [(a.start, a.end) for a in amounts.find(sentence, skip=skip)]
    return amounts.counts(sentence, skip=skip, in_words=in_words)


def _count_value(sentence: str, *, said_on: date, about: frozenset[str]) -> str:
    """How many, as ``value_in`` reads it: a count said in figures or words ("32 now",
    "sixteen panels"), outside the dates, times and sums said; the one said right before a word
    asked about ("sixteen panels, fourteen on the north side"), else the nearest such word."""
    spans = counts_said(sentence, said_on=said_on, in_words=True)
    held = {at for at, _ in still_held([(at, n) for at, _, n in spans], sentence)}
    for at, end, count in spans:
        following = re.match(r"\s+([\w'’]+)", sentence[end:])
        if at in held and following and stem(following.group(1)) in about:
            return str(count)
    found = nearest_first([(at, n) for at, _, n in spans if at in held], sentence, about)
    return str(found[0][1]) if found else ""


def still_held(found: list[tuple[int, object]], sentence: str) -> list[tuple[int, object]]:
    """The values of ``found`` (each with where it is said) that still hold: not said as no
    longer so ("not 3pm"), nor said before a correction that gives another ("at 9:15 … wait
    no, 9:45")."""
    held = [(at, value) for at, value in found if not values.struck_out(sentence, at)]
    corrected = values.corrected_from(sentence)
    if corrected is not None and any(at >= corrected for at, _ in held):
        held = [(at, value) for at, value in held if at >= corrected]
    return held


DAY_SAID_AS = ("date", "day", "weekday", "relative")


def nearest_first(found: list[tuple[int, object]], sentence: str, about: frozenset[str]):
    """Values in order of how near they are said to the words the question is about (in the
    order said, when it names none of them here)."""
    places = [m.start() for m in re.finditer(r"[\w'’]+", sentence) if stem(m.group(0)) in about]
    if not places:
        return sorted(found, key=lambda pair: pair[0])

    def distance(at: int, place: int) -> int:
        # A value in another clause than the word is further off than it looks: "$900 cash,
        # also no. Buckeye came in at $1,850" gives Buckeye's $1,850; "Priya emailed today: my
        # start date has moved to Monday 27 April" gives the 27th for the start.
        between = sentence[min(at, place) : max(at, place)]
        return abs(at - place) + CLAUSE_APART * len(_CLAUSE_END.findall(between))

    return sorted(found, key=lambda pair: (min(distance(pair[0], p) for p in places), pair[0]))


# Characters a clause boundary between a value and the word it is near counts as.
CLAUSE_APART = 40
_CLAUSE_END = re.compile(r"[.;:!?](?:\s|$)|,(?!\d)|\s[-–—]\s")


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

    def at_another_place(self, sentence: str, terms: frozenset[str]) -> bool:
        """Whether ``sentence`` (its content words ``terms``) says something is at a place, not
        one the question asks about, and names none of those: "Sandra, my manager at
        Kellaway's" for "who will my manager be at Greenhaven"."""
        if not self.places or terms & self.places:
            return False
        named = places_at(sentence)
        return bool(named) and not named & self.places

    def covers(self, term: str, terms: frozenset[str]) -> bool:
        if term in terms:
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
    past = values.asks_about_the_past(question)
    if past:
        frame = frame | values.PAST_WORDS
    words = {}
    for word in words_of(text):
        term = stem(word)
        if (
            len(word) > 1
            and not word.isdigit()
            and word not in FILLER
            and term not in FILLER
            and re.sub(r"['’]s$", "", word) not in FILLER
            and word not in frame
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
    names = first_names() - common_words()
    weights, unseen, unknown = {}, set(), []
    for (term, word), count in zip(words.items(), counts, strict=True):
        weights[term] = math.log((members + 1) / (count + 0.5))
        if not count:
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
    )
