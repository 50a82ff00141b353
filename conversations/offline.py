"""The offline engine: deterministic rules for every compression stage, with no model.

It is always available, so the whole lifecycle works when Ollama is not running. Pure Python,
standard library only, no Django: ``tests/test_offline_engine.py`` runs it without a database.

* ``extract`` finds the seed's entities (seed 003, stage 1) in a transcript of (role, content).
  Only the member's turns state facts. An assistant turn is used as context only: a yes/no
  question it asked that the member answered, or an answer the member acknowledged. The rules
  split the text into sentences, look for cue phrases ("decided to", "waiting on … to",
  "I need to", a question mark…) and keep the clause after the cue.
* ``narrative`` writes 2–4 sentences that lead with what was decided (stage 2). Given the
  optional ``first_message``, a conversation with nothing in it is summed up by its topic.
* ``deltas`` compares the entities with the member's open items (stage 3) and resolves an item
  only when the conversation says so.
* ``route`` suggests the act that shares the most people and words, else Your Story.

docs/extraction.md gives precision and recall on hand-written transcripts, and the phrasings
the rules miss. A sentence longer than ``MAX_SENTENCE`` is cut into pieces and every rule looks
at most ``WINDOW`` characters around its cue, so the work grows about linearly with the text:
even adversarial 10,000-character messages ("I need to I need to …") take a fraction of a second.
"""

from __future__ import annotations

import re
from datetime import date, timedelta

MAX_ITEMS = 20
MAX_TEXT = 300
MAX_SENTENCE = 1_000
# Rules look at most this far before or after a cue: every match costs a bounded amount of work.
WINDOW = 2 * MAX_TEXT

KINDS = (
    "people",
    "tasks",
    "decisions",
    "waiting_on",
    "questions_resolved",
    "questions_opened",
    "blockers_cleared",
    "insights",
)
FIELDS = {
    "people": ("name", "context", "relation"),
    "tasks": ("description", "status", "priority"),
    "decisions": ("what", "why"),
    "waiting_on": ("who", "what", "since"),
    "questions_resolved": ("question", "answer"),
    "questions_opened": ("question",),
    "blockers_cleared": ("what", "unblocks"),
    "insights": ("insight", "context"),
}
TASK_STATUSES = ("decided", "in_progress", "blocked", "completed")

# --- words -----------------------------------------------------------------------------------------

STOPWORDS = frozenset(
    """a an the and or but if of to in on at for with about from by as is are was were be been
    being it its it's this that that's these those i i'm i've i'll i'd me my we we're we've we'll
    we'd our you you're your he he's she she's they they're them his her their do does did don't
    didn't doesn't done have has had haven't hasn't will would won't shall should can can't could
    may might must not no so just really very also too then than there here what which who whom
    whose when where why how all any some more most other into over again up down out off only
    own same such get got going go gonna let let's us one thing things bit lot yeah yes ok okay
    maybe probably actually honestly still now need needs want think know like say said see
    tell told ask asked sure well oh um uh""".split()
)
# Common irregular past forms, so "sent the quote" and "send the quote" share their words.
IRREGULAR = {
    "sent": "send",
    "got": "get",
    "gotten": "get",
    "paid": "pay",
    "bought": "buy",
    "made": "make",
    "went": "go",
    "gone": "go",
    "took": "take",
    "taken": "take",
    "gave": "give",
    "given": "give",
    "told": "tell",
    "done": "do",
    "did": "do",
    "wrote": "write",
    "written": "write",
    "chose": "choose",
    "chosen": "choose",
    "found": "find",
    "heard": "hear",
    "left": "leave",
    "met": "meet",
    "spent": "spend",
    "thought": "think",
    "brought": "bring",
    "kept": "keep",
    "ran": "run",
    "rang": "ring",
    "sold": "sell",
}


def stem(word: str) -> str:
    """A crude stemmer that only has to be consistent: "tiles"/"tile", "booked"/"booking"."""
    word = word.casefold().strip("'")
    word = word.removesuffix("'s")
    if word in IRREGULAR:
        return IRREGULAR[word]
    if len(word) > 4 and word.endswith("ies"):
        word = word[:-3] + "y"
    elif len(word) > 4 and word.endswith(("sses", "xes", "ches", "shes", "zes")):
        word = word[:-2]
    elif len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    for suffix in ("ing", "ed"):
        if len(word) > len(suffix) + 2 and word.endswith(suffix):
            word = word[: -len(suffix)]
            if len(word) > 2 and word[-1] == word[-2] and word[-1] not in "lsfz":
                word = word[:-1]  # planned → plan, but called → call
            break
    if len(word) > 3 and word.endswith("e"):
        word = word[:-1]  # make/making → mak, tile/tiles → til
    return word


def content_words(text: str) -> set[str]:
    """The stemmed words of a text that carry meaning: no stopwords, no single letters."""
    words = set()
    for word in re.findall(r"[a-z0-9£$€]+(?:'[a-z]+)?", (text or "").casefold().replace("’", "'")):
        if word in STOPWORDS or (len(word) < 2 and not word.isdigit()):
            continue
        stemmed = stem(word)
        if stemmed and stemmed not in STOPWORDS:
            words.add(stemmed)
    return words


def overlap(a: str, b: str) -> float:
    """The share of the shorter text's content words that the other text has."""
    left, right = content_words(a), content_words(b)
    if not left or not right:
        return 0.0
    return len(left & right) / min(len(left), len(right))


def covers(target: str, text: str) -> bool:
    """Whether ``text`` holds at least half of ``target``'s content words (two, when it has 3+)."""
    wanted = content_words(target)
    if not wanted:
        return False
    shared = len(wanted & content_words(text))
    return shared * 2 >= len(wanted) and shared >= (2 if len(wanted) >= 3 else 1)


# --- sentences and phrases -------------------------------------------------------------------------

PLACEHOLDER = "\u2024"  # ONE DOT LEADER: the dot of "Dr." while sentences are split
_ABBREVIATION = re.compile(
    r"\b(?:Dr|Mr|Mrs|Ms|Mx|Prof|Rev|Sr|Jr|St|Mt|Capt|Sgt|approx|appt|dept|tel|ext|vs|e\.g|i\.e)"
    r"\.(?=\s)|\bNo\.(?=\s*\d)|\b[ap]\.m\.(?=\s+[a-z])|\b[A-Z]\.(?=\s?[A-Z]\.)|(?<=[A-Z]\. )[A-Z]\.",
    re.I,
)
_SPLIT = re.compile(r"(?<=[.!?…])[\"'”’)\]]*\s+|\s*\n\s*")


def _protected_sentences(text: str) -> list[str]:
    text = (text or "").replace("’", "'").replace("‘", "'").replace("\r", "")
    text = _ABBREVIATION.sub(lambda m: m.group(0)[:-1] + PLACEHOLDER, text)
    found = []
    for part in _SPLIT.split(text):
        part = part.strip(" \t-*•")
        while len(part) > MAX_SENTENCE:  # no punctuation for a long stretch: cut at a space
            cut = part.rfind(" ", 0, MAX_SENTENCE)
            cut = cut if cut > 0 else MAX_SENTENCE
            found.append(part[:cut])
            part = part[cut:].strip()
        if part:
            found.append(part)
    return found


def sentences(text: str) -> list[str]:
    """The sentences of a text; "Dr. Patel", "e.g. this" and "J. K. Rowling" do not split."""
    return [part.replace(PLACEHOLDER, ".") for part in _protected_sentences(text)]


_FILLER = re.compile(
    r"\b(?:u+m+|u+h+|e+r+m*|hmm+|you know|i mean|just|basically|actually|honestly|literally|"
    r"kind of|sort of|lol|haha+)\b,?\s*|\blike,\s*",
    re.I,
)
_LEADING = re.compile(
    r"^(?:so|well|ok(?:ay)?|anyway|and|but|also|then|right|yeah|yes|oh|to|that|now)\b[,:]?\s+",
    re.I,
)
_TRAILING = re.compile(r"(?:[\s,;:.!?…\-—–]+|\s+(?:though|lol|haha+|now)\b)+$", re.I)
_SYMBOLS_AT_END = re.compile(r"[^\w)\]'\"%]+$")  # emoji and other symbols after the words


def clean(phrase: str) -> str:
    """A phrase without filler, leading connectives or trailing punctuation, at most 300 chars."""
    phrase = (phrase or "").replace(PLACEHOLDER, ".")
    phrase = _FILLER.sub("", phrase)
    phrase = re.sub(r"\s+", " ", phrase).strip(" ,;:-—–")
    while (shorter := _LEADING.sub("", phrase)) != phrase:
        phrase = shorter
    previous = None
    while previous != phrase:
        previous = phrase
        phrase = _TRAILING.sub("", _SYMBOLS_AT_END.sub("", phrase)).strip()
    return phrase[:MAX_TEXT].strip()


# Where a clause ends: the phrase after a cue stops here.
_CLAUSE_END = re.compile(
    r"\s*;|:\s|\s[—–]\s|\s-{1,2}\s|\s*\((?!\s*(?:my|our|his|her)\b)|,?\s+but\b|,?\s+(?:lol|haha)\b"
    r"|,\s*(?:so|which|though|although|whereas|while|then|cos|because|since|otherwise)\b"
    r"|,\s*and\s+(?=(?:i|we|he|she|they|it|then|also|that|there)\b)|,\s*(?=(?:i|we)\s)"
    r"|\s+and\s+(?=(?:i|we|they|he|she)\s+(?!both\b|all\b))"
    r"|\s+(?:because|since|cos|'cause|although|though|unless|otherwise|so that|given that)\b"
    r"|\s+as\s+(?=(?:it|they|we|she|he|that|there)\b)"
    r"|\s+so\s+(?=(?:i|we|he|she|they|it|that|now)\b)"
    r"|,\s*(?=(?:it|they|she|he|that|this)(?:'s|'re|'ll|\s+(?:is|was|are|will|won't|doesn't|"
    r"can|can't|has|makes|packs|costs|means)\b))",
    re.I,
)
_REASON = re.compile(
    r"\s+(?:because|since|cos|'cause|given that|so that)\s+|\s+as\s+(?=(?:it|they|we|she|he|the|"
    r"that|there)\b)|,\s*(?=(?:it|they|she|he|that|this)(?:'s|'re|'ll|\s+(?:is|was|are|will|"
    r"won't|doesn't|can|can't|has|makes|packs|costs|means)\b))",
    re.I,
)


def phrase_after(text: str) -> str:
    """The clause at the start of ``text``, cleaned."""
    text = text[:WINDOW]
    end = _CLAUSE_END.search(text)
    return clean(text[: end.start()] if end else text)


def clause_before(text: str) -> str:
    """The clause at the end of ``text``, cleaned."""
    text = text[-WINDOW:]
    start = 0
    for boundary in _CLAUSE_END.finditer(text):
        start = boundary.end()
    return clean(text[start:])


def _strip_leads(text: str, leads: tuple[str, ...]) -> tuple[str, str]:
    """``text`` without any of ``leads`` at its start; also the first lead removed."""
    first = ""
    text = text.lstrip(" ,:-")
    changed = True
    while changed:
        changed = False
        lowered = text.casefold()
        for lead in leads:
            if lowered.startswith(lead):
                first = first or lead.strip()
                text = text[len(lead) :].lstrip(" ,:-")
                changed = True
                break
    return text, first


# --- names -----------------------------------------------------------------------------------------

TITLES = {
    "dr": "doctor",
    "mr": "",
    "mrs": "",
    "ms": "",
    "mx": "",
    "prof": "",
    "aunt": "aunt",
    "auntie": "aunt",
    "uncle": "uncle",
    "grandma": "grandmother",
    "granny": "grandmother",
    "nana": "grandmother",
    "nan": "grandmother",
    "grandpa": "grandfather",
    "grandad": "grandfather",
    "cousin": "cousin",
}
KIN_NAMES = {
    "mum": "mother",
    "mom": "mother",
    "mummy": "mother",
    "mommy": "mother",
    "dad": "father",
    "daddy": "father",
    "granny": "grandmother",
    "grandma": "grandmother",
    "nana": "grandmother",
    "nan": "grandmother",
    "grandpa": "grandfather",
    "grandad": "grandfather",
}
RELATIONS = (
    "wife husband partner fiancé fiancée boyfriend girlfriend son daughter kid child mother mum "
    "mom father dad brother sister sibling stepmum stepdad friend colleague coworker co-worker "
    "boss manager neighbour neighbor teacher headteacher doctor gp dentist nurse vet plumber "
    "electrician builder decorator landlord landlady cousin aunt uncle nephew niece grandma "
    "grandpa granny grandmother grandfather client accountant lawyer solicitor coach nanny "
    "childminder babysitter cleaner recruiter mechanic therapist physio midwife tutor"
).split()
# Who can owe the member something without being named: "the school", "our landlord".
AGENT_NOUNS = (
    RELATIONS
    + "school nursery council office surgery practice clinic hospital bank insurer insurance "
    "agency agent garage company firm airline hotel university college estate lab team hr "
    "supplier shop store contractor surveyor architect recruiters landlords builders".split()
)
NOT_NAMES = frozenset(
    """I I'm I've I'll I'd The A An And But So Or If Then When While What Which Who Why How Where
    Yes No Ok Okay Thanks Thank Hi Hello Hey Well Also Maybe Perhaps Just Actually Anyway Today
    Tomorrow Yesterday Tonight Monday Tuesday Wednesday Thursday Friday Saturday Sunday Mon Tue
    Tues Wed Thu Thur Thurs Fri Sat Sun January February March April May June July August
    September October November December Jan Feb Mar Apr Jun Jul Aug Sep Sept Oct Nov Dec We
    We're We'll We've Our Ours You You're Your He He's She She's They They're Them It It's Its
    That That's This These Those There Here Let Let's Sure Good Great Right Fine Done Oh Um Uh Er
    Hmm Please Not Still Now Next Last Both Every Each Some Any All Most Many Much More Less Few
    My Mine His Her Hers Their Theirs Me Us Him Is Are Was Were Be Do Does Did Have Has Had Can
    Could Should Would Will Must Might Shall Need Got Get Going Gonna Wanna Yeah Yep Yup Nope Nah
    Ugh Lol Haha Wow Cool Nice Brilliant Perfect Exactly Honestly Basically Apparently Hopefully
    Luckily Unfortunately Quick Quickly Morning Afternoon Evening Night Update Note Todo Re Fwd
    English French Spanish German Christmas Easter Halloween Ramadan Diwali Eid Xmas New Year
    God Lord Sir Madam Miss Dear Mr Mrs Ms Dr Prof Mx St Mt Ltd Inc Plc Co AM PM Turns Turned
    Decided Waiting Booked Sorted Finished Called Rang Emailed Texted Sent Paid Took Went Had
    Made Found Figured Realised Realized Thinking Think Looks Sounds Seems Feels Guess Even
    Only Really Very Too Another Other Same First Second Third Half Anything Everything Nothing
    Something Someone Anyone Everyone Nobody Lots Loads Plus Instead Meanwhile Otherwise Though
    Although Because Since Until After Before During Without Within Around About Above Below
    Over Under Between Against Towards Onto Into From With For Of At In On By To Up Down Out Off
    Google Zoom Amazon WhatsApp Facebook Instagram Twitter Netflix Uber Gmail Excel Word
    Teams Slack Spotify Apple Android iPhone LinkedIn Ikea IKEA Tesco Sainsbury's Waitrose Aldi
    Lidl Asda Boots NHS""".split()
)
# A capitalised run ending with one of these names a place or an organisation, not a person.
PLACE_WORDS = frozenset(
    """Road Street Lane Avenue Way Close Drive Park Square Museum Station Hospital School Primary
    Academy College University Surgery Clinic Centre Center Practice Council Airport Bank Gas
    Energy Water Insurance Ltd Limited Group Fit Hall Church Library Market Mall Court Hotel
    Bridge Gardens Green Hill House Kitchen Garden Office Pay Club Team Trust Board""".split()
)
_PLACE_BEFORE = re.compile(
    r"\b(?:the|in|at|near|into|around|across|outside|inside|via|towards|visit|visiting|"
    r"to|from|flying|flight|fly|drive|driving|moved|moving|live|lives|living|staying|stay)\s+$",
    re.I,
)
_PERSON_TO = re.compile(
    r"\b(?:talk|talked|talking|speak|spoke|speaking|say|said|write|wrote|send|sent|give|gave|"
    r"lend|lent|explain|explained|mention|mentioned|went|go|going|passed|pass|over|up|back|"
    r"hand|handed|thanks|thank|got|get|reply|replied|married|engaged|introduced|next|similar"
    r"|close|letter|email|note|message|text|due|known|invite|invited)\s+to\s+$",
    re.I,
)
_SURNAME_OR_NAME = r"[A-Z][a-z]+(?:-[A-Z]?[a-z]+|'[A-Z][a-z]+)?"  # Anne-Marie, O'Brien; not "'s"
_TITLE_RE = r"(?:Dr|Mr|Mrs|Ms|Mx|Prof|Aunt|Auntie|Uncle|Grandma|Granny|Nana|Nan|Grandpa|Grandad)"
_CAPITALISED = re.compile(
    rf"(?<![\w'])(?:(?P<title>{_TITLE_RE})[.{PLACEHOLDER}]?\s+)?"
    rf"(?P<name>{_SURNAME_OR_NAME}(?:\s+{_SURNAME_OR_NAME})?)(?![\w])"
)
_NAME_VERB_AFTER = re.compile(
    r"^(?:'s\b|,\s*(?:my|our|the)\s|\s+\((?:my|our)\s|\s+and\s+(?:i|me)\b|\s+(?:(?:still|just|"
    r"finally|never|already|also|always|really)\s+)?(?:said|says|told|tells|asked|asks|thinks|"
    r"reckons|wants|called|calls|rang|rings|texted|texts|emailed|emails|sent|sends|"
    r"will|would|can|can't|could|couldn't|won't|isn't|wasn't|hasn't|doesn't|didn't|owes|"
    r"got|gets|needs|mentioned|suggested|recommended|offered|promised|agreed|hates|loves|likes|"
    r"works|turns|starts|finishes|came|comes|left|went|goes|picked|dropped|booked|paid|replied|"
    r"might|should|must|'ll|'s|'d)\b)"
)
_RELATION_BEFORE = re.compile(
    r"\b(?:my|our|his|her|their|the)\s+(?:(?:[a-z]+)\s+)?(?P<relation>"
    + "|".join(RELATIONS)
    + r")\s*,?\s*$",
    re.I,
)
_RELATION_AFTER = re.compile(
    r"^\s*(?:,|\(|-|—)?\s*(?:is\s+)?(?:my|our|the)\s+(?:(?:[a-z]+)\s+)?(?P<relation>"
    + "|".join(RELATIONS)
    + r")\b",
    re.I,
)


def _name_ok(name: str) -> bool:
    first = name.split()[0]
    return (
        first not in NOT_NAMES
        and first.removesuffix("'s") not in NOT_NAMES
        and first.casefold() not in STOPWORDS
        and name.split()[-1] not in PLACE_WORDS
    )


def normalise_who(who: str) -> str:
    """ "Dr. Lewis", "the GP surgery's", "Lewis" → comparable keys ("lewis", "gp surgery")."""
    who = (who or "").casefold().replace(PLACEHOLDER, ".").replace("’", "'")
    who = re.sub(r"'s\b", "", who)
    who = re.sub(
        r"^(?:(?:the|my|our|his|her|their)\s+)+|^(?:dr|mr|mrs|ms|mx|prof)\.?\s+", "", who.strip()
    )
    return " ".join(re.findall(r"[a-z0-9]+", who))


def same_who(a: str, b: str) -> bool:
    """Same person or organisation: equal keys, or one key is a whole word of the other."""
    left, right = normalise_who(a), normalise_who(b)
    if not left or not right:
        return False
    return (
        left == right
        or set(left.split()) <= set(right.split())
        or (set(right.split()) <= set(left.split()))
    )


# --- dates -----------------------------------------------------------------------------------------

_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
_SINCE = re.compile(
    r"\b(?P<yesterday>yesterday)\b|\blast\s+week\b(?P<lastweek>)|\b(?:last|since|on)\s+"
    r"(?P<weekday>monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b|"
    r"\b(?P<n>\d{1,2}|a|an|one|two|three|four|five|six)\s+(?P<unit>day|week|month)s?\s+ago\b|"
    r"\bit's\s+been\s+(?P<n2>\d{1,2}|a|one|two|three|four|five|six)\s+(?P<unit2>day|week|month)s?",
    re.I,
)


def since_date(text: str, today: date) -> date:
    """When a waiting-on started, from "last Tuesday", "three weeks ago"…; else today."""
    match = _SINCE.search(text or "")
    if not match:
        return today
    if match["yesterday"]:
        return today - timedelta(days=1)
    if match["lastweek"] is not None:
        return today - timedelta(days=7)
    if match["weekday"]:
        back = (today.weekday() - _WEEKDAYS.index(match["weekday"].casefold())) % 7 or 7
        return today - timedelta(days=back)
    number = match["n"] or match["n2"]
    count = int(number) if number.isdigit() else _NUMBERS[number.casefold()]
    unit = (match["unit"] or match["unit2"]).casefold()
    return today - timedelta(days=count * {"day": 1, "week": 7, "month": 30}[unit])


# --- stage 1: entities -----------------------------------------------------------------------------

_NEGATED_BEFORE = re.compile(
    r"(?:\b(?:not|never|yet\s+to|if|whether|once|until|unless|when)|n't)\s+(?:[\w']+\s+){0,2}$",
    re.I,
)

DECISION = re.compile(
    r"\b(?:decided|settled\s+on|agreed|opted\s+for|(?:we|i)\s+(?:chose|picked)|"
    r"(?:we'll|we\s+will|let's|let\s+us|i'll|i\s+will|going\s+to|gonna)\s+go\s+with|"
    r"(?:i'm|i\s+am|we're|we\s+are)\s+going\s+with|the\s+(?:final\s+)?decision\s+is|"
    r"our\s+decision\s+is)\b",
    re.I,
)
_DECISION_LEADS = (
    "to ",
    "that ",
    "we'll ",
    "we will ",
    "we should ",
    "we would ",
    "we'd ",
    "we're going to ",
    "we are going to ",
    "we're ",
    "i'll ",
    "i will ",
    "i should ",
    "i'm going to ",
    "i'd ",
    "he'll ",
    "she'll ",
    "they'll ",
    "he will ",
    "she will ",
    "they will ",
    "it's ",
    "it is ",
    "is ",
    "on ",
    "for ",
    "against ",
)

WHO_NAME = rf"(?:{_TITLE_RE}[.{PLACEHOLDER}]?\s+)?{_SURNAME_OR_NAME}(?:\s+[A-Z][a-z]+)?"
WHO_AGENT = (
    r"(?i:the|my|our|his|her|their)\s+(?:[A-Za-z]+\s+){0,2}(?i:"
    + "|".join(sorted(set(AGENT_NOUNS), key=len, reverse=True))
    + r")\b(?:\s+(?:on|in|at)\s+[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?)?"
)
WHO = rf"(?:{WHO_AGENT}|{WHO_NAME})"

WAITING = re.compile(rf"(?i:\bwaiting\s+(?:on|for)\s+)(?P<who>{WHO})(?P<possessive>'s\b)?")
WAITING_FROM = re.compile(
    rf"(?i:\bwaiting\s+(?:on|for)\s+)(?P<what>[^.!?;]{{1,120}}?)\s+(?i:from)\s+(?P<who>{WHO})"
)
WAITING_HEAR = re.compile(
    rf"(?i:\bwaiting\s+to\s+hear(?:\s+back)?\s+from\s+)(?P<who>{WHO})"
    r"(?:\s+(?i:about|on|re|regarding)\s+(?P<what>[^.!?;]+))?"
)
WAITING_TO = re.compile(
    r"(?i:\bwaiting\s+(?:on|for)\s+)(?P<who>[a-z][\w' ]{1,40}?)\s+to\s+(?P<what>[^.!?;]+)"
)
WAITING_THING = re.compile(
    r"(?i:\bwaiting\s+(?:on|for)\s+)(?P<what>(?i:the|my|our|his|her|their|a|an)\s+[^.!?;]+)"
)
OWED = re.compile(
    rf"(?P<who>{WHO})(?:,\s*(?P<appos>{WHO_NAME}),)?\s+(?P<still>(?i:still|yet)\s+)?"
    r"(?P<cue>(?i:hasn't|has\s+not|haven't|have\s+not|has\s+yet\s+to|have\s+yet\s+to|owes\s+(?:me|us)|"
    r"(?:is|are|was|were)\s+(?:supposed|meant)\s+to|promised\s+to|promised\s+(?:me|us)|"
    r"said\s+(?:she|he|they)(?:'d|'ll|\s+would|\s+will)|(?:is|are)\s+going\s+to\s+get\s+back|"
    r"will\s+get\s+back))\s+(?P<rest>[^.!?;]*)"
)
_REPLY_VERBS = re.compile(
    r"^(?:yet\s+)?(?:got(?:ten)?\s+back|replied|responded|sent|paid|called|rung|rang|come\s+back|"
    r"returned|confirmed|signed|answered|refunded|delivered|given|emailed|written|booked|done|"
    r"finished|fixed|sorted|told|let)\b",
    re.I,
)
BLOCKED_UNTIL = re.compile(
    r"\b(?:i|we)\s+(?:can't|cannot|can\s+not|couldn't)\s+(?P<what>[^.!?;]{3,120}?)\s+"
    r"(?:until|till|til|unless)\s+(?P<on>[^.!?;]+)",
    re.I,
)
BLOCKED_ON = re.compile(
    r"(?P<what>(?i:the|my|our)\s+[^.!?;]{2,80}?)\s+(?i:is|are)\s+(?i:still\s+)?(?i:blocked|stuck)"
    r"\s+(?i:on|by)\s+(?P<on>[^.!?;]+)"
)

TASK = re.compile(
    r"^(?:\w+,\s*)?(?P<bare>need\s+to|have\s+to|gotta|got\s+to|gonna|must)\s+|"
    r"\b(?:i'm|we're|i\s+am|we\s+are)\s+gonna\b|"
    r"\b(?:i|we)(?:\s+(?:really|still|also|definitely|probably|just|then|both|all|first|now|"
    r"absolutely|seriously|totally))*(?P<modal>'ll|\s+will|\s+need\s+to|\s+have\s+to|"
    r"\s+have\s+got\s+to|'ve\s+got\s+to|\s+got\s+to|\s+must|\s+should|'d\s+better|\s+had\s+better|"
    r"'m\s+going\s+to|\s+am\s+going\s+to|'re\s+going\s+to|\s+are\s+going\s+to|\s+plan\s+to|"
    r"'m\s+planning\s+to|\s+am\s+planning\s+to)\b(?!\s+(?:have|'ve)\b)|"
    r"\b(?:to-?do|to\s+do)\s*:\s*(?P<list>)|\bremind\s+me\s+to\b|\bdon't\s+let\s+me\s+forget\s+to\b|"
    r"\bnote\s+to\s+self\s*[:,-]?",
    re.I,
)
_TASK_LEADS = (
    "try to ",
    "try and ",
    "need to ",
    "have to ",
    "go and ",
    "remember to ",
    "make sure to ",
    "make sure i ",
    "also ",
    "then ",
    "first ",
    "probably ",
    "definitely ",
    "get round to ",
    "get around to ",
)
_REPORTED = re.compile(
    r"\b(?:thinks|says|said|reckons|suggested|suggests|wants|feels|told\s+me|asked\s+if|"
    r"asked\s+whether)\s+(?:that\s+)?$",
    re.I,
)
_FOLLOW_ON = re.compile(r"^(?:and|also|plus|then)\s+(?P<verb>[a-z]+)\b", re.I)
_NOT_A_TASK = re.compile(
    r"^(?:be\b|see\b|wait|let\s+you\s+know|keep\s+you\s+posted|get\s+back\s+to\s+you|have\s+a\s+"
    r"think|think\b|say\b|admit\b|go\s+with\b|probably\s+be\b|never\b|not\b)",
    re.I,
)
# A second task in the same clause: "sign the form and pay the £18".
_TASK_VERBS = frozenset(
    """pay book call ring phone send buy order sign email text ask check pick drop get make fix
    finish write update renew cancel take bring set sort clean empty tidy print post fill submit
    chase remind look find arrange organise organize plan pack prepare return move collect feed
    walk confirm register apply request tell invite speak talk visit wash charge top put hang
    paint order measure label record read review research compare""".split()
)
DONE = re.compile(
    r"\b(?:(?:i|we)(?:'ve|\s+have)?(?:\s+(?:just|finally|already|now|also|actually))*\s+"
    r"(?P<verb>finished|completed|booked|paid|sent|ordered|fixed|cancell?ed|submitted|renewed|"
    r"returned|posted|signed|bought|sorted(?:\s+out)?|handed\s+in|dropped\s+off|picked\s+up|"
    r"filed|done)|(?P<with>done|finished)\s+with)\b(?!\s+(?:it|that|this)\b(?:[.!?]|$))",
    re.I,
)
DONE_SUBJECTLESS = re.compile(
    r"^(?:just\s+|finally\s+|also\s+|and\s+)?(?P<verb>finished|completed|booked|paid|sent|ordered|"
    r"fixed|sorted(?:\s+out)?|submitted|renewed|signed|posted|bought|cancell?ed|returned)\s+"
    r"(?=(?:the|my|our|a|an|his|her|their|\w+'s)\s)",
    re.I,
)
DONE_PASSIVE = re.compile(
    r"(?P<what>(?i:the|my|our)\s+[^.!?;,]{2,60}?)\s+(?i:is|are|'s)\s+(?i:now\s+|all\s+|finally\s+)*"
    r"(?i:done|finished|sorted|booked|paid|submitted|sent\s+off)\b(?!\s+(?:so|to|by|with|for)\b)"
)
IN_PROGRESS = re.compile(
    r"\b(?:(?:i'm|i\s+am|we're|we\s+are)\s+(?:still\s+|currently\s+|now\s+)?(?:working\s+on|in\s+"
    r"the\s+middle\s+of|halfway\s+through|busy\s+with)|(?:i've|we've|i\s+have|we\s+have)\s+"
    r"(?:just\s+)?started(?:\s+on)?)\s+",
    re.I,
)
_HIGH = re.compile(
    r"\b(?:urgent(?:ly)?|asap|today|tonight|tomorrow|first\s+thing|right\s+away|immediately|"
    r"top\s+priority|straight\s+away)\b",
    re.I,
)
_LOW = re.compile(
    r"\b(?:no\s+rush|at\s+some\s+point|eventually|some\s?day|when\s+i\s+get\s+a\s+chance|"
    r"not\s+urgent|low\s+priority|whenever)\b",
    re.I,
)

WONDER = re.compile(
    r"\b(?:i\s+wonder|i'm\s+wondering|i\s+was\s+wondering|wondering|(?:i'm\s+|i\s+am\s+|we're\s+|"
    r"still\s+)?not\s+sure|unsure|i\s+don't\s+know|(?:i\s+have\s+|i've\s+got\s+)?no\s+idea|"
    r"(?:i|we)\s+can't\s+decide|(?:i|we)\s+(?:haven't|have\s+not)\s+decided(?:\s+yet)?|"
    r"(?:an?\s+|the\s+)?open\s+question(?:\s+is)?|the\s+(?:big\s+)?question\s+is|"
    r"(?:find|work|figure)\s+out|check)\s*[:,]?\s*"
    r"(?P<q>(?:whether|if|how|what|when|where|who|which|why|between)\b[^.!?;]*)",
    re.I,
)
_NOT_A_QUESTION = re.compile(
    r"^(?:(?:can|could|shall)\s+we\s+(?:plan|talk|go\s+over|look\s+at|run\s+through|chat|"
    r"discuss|think\s+through|brainstorm|start|do\s+a)|(?:can|could|would|will)\s+you\s+(?:help|remind|note|remember|tell|add|save|make|write|"
    r"set|check|look|give|list|draft|summari[sz]e|keep)|how\s+are\s+you|what\s+do\s+you\s+think|"
    r"any\s+(?:ideas|thoughts|tips|suggestions)|thoughts|right|ok|okay|yeah|really|seriously|"
    r"you\s+know|does\s+that\s+make\s+sense|make\s+sense|sound\s+good|sounds\s+good|isn't\s+it|"
    r"what\s+about\s+you)\b",
    re.I,
)
ANSWER = re.compile(
    r"\b(?:figured\s+out|found\s+out|turns\s+out|it\s+turned\s+out|the\s+answer\s+is|"
    r"worked\s+out|it's\s+settled|that's\s+settled|so\s+it's\s+fine|answer:)\b[:,]?\s*"
    r"(?:that\s+)?",
    re.I,
)
_ACKNOWLEDGED = re.compile(
    r"^(?:ok(?:ay)?\s+then|oh\s+good|good|great|brilliant|perfect|got\s+it|makes\s+sense|"
    r"that's\s+sorted|sorted|fine|right\s+then|ah\s+(?:ok|right|good))\b",
    re.I,
)
_DEFLECTION = re.compile(
    r"\b(?:question\s+for|ask\s+(?:your|the|dr|him|her|them)|i\s+don't\s+(?:have|know)|"
    r"not\s+in\s+your\s+notes|can't\s+(?:say|predict|tell|know)|no\s+way\s+to\s+know|"
    r"i'm\s+not\s+sure)\b",
    re.I,
)
_ASSISTANT_OFFER = re.compile(
    r"^(?:do\s+you\s+(?:want|need)|would\s+you\s+like|shall\s+i|should\s+i|want\s+me|"
    r"is\s+there\s+anything|anything\s+else|can\s+i|may\s+i)\b",
    re.I,
)
_YES_NO_QUESTION = re.compile(
    r"^(?:did|have|has|is|are|was|were|do|does|will|can)\s+(?:you|the|your|(?-i:[A-Z][a-z]))",
    re.I,
)
_YES_NO_ANSWER = re.compile(r"^(?:yes|yeah|yep|yup|no|nope|nah)\b[,.!]?\s*", re.I)

BLOCKER_SO = re.compile(
    r",?\s+so\s+(?:that\s+)?(?:now\s+)?(?P<subj>(?:[\w']+\s+){0,3}?)(?:can|could)\s+"
    r"(?:now\s+|finally\s+)?",
    re.I,
)
_CLEARED_STATE = re.compile(
    r"\b(?:sorted|fixed|approved|resolved|cleared|clear|signed\s+off|through|granted|confirmed|"
    r"arrived|came\s+back|back|in\s+place|working|repaired|paid|received|done|finished|"
    r"out\s+of\s+the\s+way|unblocked)\b",
    re.I,
)
NOW_THAT = re.compile(
    r"\bnow\s+that\s+(?P<what>[^,;.!?]{3,120}?),?\s+(?P<subj>(?:[\w']+\s+){0,3}?)(?:can|could)\s+",
    re.I,
)
UNBLOCKS = re.compile(r"\b(?:unblocks|unblocked)\s+(?P<rest>[^.!?;]+)", re.I)
UNBLOCKED = re.compile(
    r"\b(?:(?:is|are|'s|'re|we're|i'm)\s+(?:now\s+|finally\s+)?unblocked|no\s+longer\s+blocked|"
    r"not\s+blocked\s+any\s?more|isn't\s+blocked\s+any\s?more)\b(?:\s+(?:on|by)\s+)?",
    re.I,
)
INSIGHT = re.compile(
    r"\b(?:i(?:'ve)?\s+(?:just\s+|finally\s+|now\s+)?reali[sz]ed|it\s+turns\s+out|turns\s+out|"
    r"it\s+turned\s+out|the\s+(?:big\s+)?lesson(?:\s+here)?\s+is|lesson\s+learn[et]d?|"
    r"i(?:'ve)?\s+learn[et]d?|what\s+i\s+learn[et]d?\s+is|the\s+takeaway\s+is)\b\s*[:,-]?\s*"
    r"(?:that\s+)?|(?=\b(?:i|we)\s+(?:should\s+have|should've)\s)",
    re.I,
)


class _Found:
    """Entities in the order found: deduplicated by normalised text, capped, strings cut."""

    def __init__(self) -> None:
        self.rows: dict[str, list[dict[str, str]]] = {kind: [] for kind in KINDS}
        self.keys: dict[str, list[str]] = {kind: [] for kind in KINDS}

    def add(self, kind: str, key: str, **values: str) -> dict[str, str] | None:
        norm = " ".join(sorted(content_words(key)))
        if not norm or norm in self.keys[kind] or len(self.rows[kind]) >= MAX_ITEMS:
            return None
        row = {name: str(values.get(name) or "")[:MAX_TEXT] for name in FIELDS[kind]}
        self.rows[kind].append(row)
        self.keys[kind].append(norm)
        return row

    def add_task(self, description: str, status: str, priority: str) -> None:
        """A task, or a new status for a task already found ("I need to X" … "done with X")."""
        for row in self.rows["tasks"]:
            if status != "decided" and overlap(row["description"], description) >= 0.6:
                if status in ("completed", "blocked") and row["status"] != "completed":
                    row["status"] = status
                if priority and not row["priority"]:
                    row["priority"] = priority
                return
        self.add("tasks", description, description=description, status=status, priority=priority)

    def add_person(self, name: str, context: str, relation: str) -> None:
        key = normalise_who(name)
        for row in self.rows["people"]:
            known = normalise_who(row["name"])
            if key == known or key in known.split() or known in key.split():
                if len(name) > len(row["name"]) and key != known:
                    row["name"] = name[:MAX_TEXT]  # "Joe", then "Grandpa Joe": keep the longer
                row["relation"] = row["relation"] or relation
                return
        if len(self.rows["people"]) < MAX_ITEMS:
            self.rows["people"].append(
                {"name": name[:MAX_TEXT], "context": context[:200], "relation": relation}
            )


class _Unit:
    """One of the member's sentences, with where it sits in the conversation."""

    def __init__(self, turn: int, text: str, turn_text: str) -> None:
        self.turn = turn
        self.text = text
        self.turn_text = turn_text
        self.question = text.rstrip().endswith("?")
        self.has_task = False
        self.after_task = False  # the sentence before, in the same turn, set a task


def extract(transcript: list[tuple[str, str]], *, today: date) -> dict:
    """The seed's entity JSON from a transcript of (role, content): every key present."""
    found = _Found()
    turns: list[tuple[str, str]] = []
    for row in transcript or []:
        try:
            role, content = row
        except (TypeError, ValueError):
            continue
        if isinstance(content, str) and content.strip():
            turns.append((str(role), content))
    units = [
        _Unit(index, sentence, content)
        for index, (role, content) in enumerate(turns)
        if role == "user"
        for sentence in _protected_sentences(content)
    ]
    known_names = _mid_sentence_names(units)
    questions: list[tuple[int, str, _Unit]] = []
    for position, unit in enumerate(units):
        if position and units[position - 1].turn == unit.turn:
            unit.after_task = units[position - 1].has_task
        _decisions(unit.text, found)
        _waiting(unit, found, today)
        _tasks(unit, found)
        _blockers(unit.text, found)
        _insights(unit.text, found)
        _people(unit.text, found, known_names)
        for match in WONDER.finditer(unit.text):
            question = _question_text(match["q"])
            if question:
                questions.append((position, question, unit))
        if unit.question and not _NOT_A_QUESTION.match(clean(unit.text)):
            question = _asked(unit.text)
            if question and len(content_words(question)) >= 2:
                questions.append((position, question, unit))
    _settle_questions(questions, units, turns, found)
    _assistant_questions(turns, found)
    return found.rows


def _mid_sentence_names(units: list[_Unit]) -> set[str]:
    """Capitalised words seen after the start of a sentence: names to trust at the start too."""
    names = set()
    for unit in units:
        for match in _CAPITALISED.finditer(unit.text):
            if re.search(r"\w", unit.text[: match.start()]) and _name_ok(match["name"]):
                names.add(match["name"].split()[0])
    return names


def _decisions(sentence: str, found: _Found) -> None:
    if sentence.rstrip().endswith("?"):
        return
    for match in DECISION.finditer(sentence):
        if _NEGATED_BEFORE.search(sentence[max(0, match.start() - 30) : match.start()]):
            continue
        cue = " ".join(match.group(0).casefold().split())
        tail, lead = _strip_leads(sentence[match.end() : match.end() + WINDOW], _DECISION_LEADS)
        reason = _REASON.search(tail)
        what = phrase_after(tail[: reason.start()] if reason else tail)
        why = phrase_after(tail[reason.end() :]) if reason else ""
        if not content_words(what) or re.match(r"(?:whether|if|between)\b", what, re.I):
            continue
        if lead == "against":
            what = f"against {what}"
        elif "go with" in cue or "going with" in cue or lead in ("on", "for"):
            what = f"go with {what}"
        elif cue.startswith(("settled", "opted", "we chose", "i chose", "we picked", "i picked")):
            what = f"go with {what}"
        found.add("decisions", what, what=what, why=why)


def _waiting(unit: _Unit, found: _Found, today: date) -> None:
    sentence = unit.text
    if sentence.rstrip().endswith("?"):
        return
    since = since_date(sentence, today)
    if since == today:
        since = since_date(unit.turn_text, today)
    since_iso = since.isoformat()

    def add(who: str, what: str) -> None:
        who = clean(who).removesuffix("'s")
        what = clean(what)
        if who.split()[0] in NOT_NAMES and not re.match(r"(?i:the|my|our)\b", who):
            return
        found.add("waiting_on", f"{who} {what}", who=who, what=what, since=since_iso)

    taken = False
    for match in WAITING_HEAR.finditer(sentence):
        if not _negated(sentence, match.start()):
            add(match["who"], match["what"] or "hear back")
            taken = True
    for match in WAITING_FROM.finditer(sentence):
        if not _negated(sentence, match.start()) and not taken:
            add(match["who"], phrase_after(match["what"]))
            taken = True
    for match in WAITING.finditer(sentence):
        if taken or _negated(sentence, match.start()):
            continue
        rest = sentence[match.end() :]
        if match["possessive"]:
            what = phrase_after(rest)
        else:
            what = phrase_after(re.sub(r"^\s*(?:to|for|about|on)\s+", "", rest, flags=re.I))
        add(match["who"], what)
        taken = True
    if not taken:
        for match in WAITING_TO.finditer(sentence):
            if not _negated(sentence, match.start()) and content_words(match["who"]):
                add(match["who"], phrase_after(match["what"]))
                taken = True
    if not taken:
        for match in WAITING_THING.finditer(sentence):
            if not _negated(sentence, match.start()):
                what = phrase_after(match["what"])
                if content_words(what):
                    found.add("waiting_on", what, who="", what=what, since=since_iso)
    for match in OWED.finditer(sentence):
        cue = match["cue"].casefold()
        rest = match["rest"]
        if cue.startswith(("hasn't", "has not", "haven't", "have not")) and not (
            match["still"] or _REPLY_VERBS.match(rest)
        ):
            continue
        who = match["appos"] or match["who"]
        if _is_pronoun_or_member(who):
            continue
        what = phrase_after(rest)
        if "owes" in cue and not content_words(what):
            continue
        add(who, what or "get back")
    for match in BLOCKED_UNTIL.finditer(sentence):
        on = match["on"].strip()
        who = re.match(rf"(?P<who>{WHO})\s+(?P<rest>.+)", on)
        if who and not _is_pronoun_or_member(who["who"]):
            add(who["who"], _base_verb(phrase_after(who["rest"])))


def _base_verb(phrase: str) -> str:
    """ "confirms her dates" → "confirm her dates", "replies" → "reply", "does" → "do"."""
    first, _, rest = phrase.partition(" ")
    lowered = first.casefold()
    if lowered in {"does", "has", "is", "goes"}:
        first = {"does": "do", "has": "have", "is": "be", "goes": "go"}[lowered]
    elif lowered.endswith("ies") and len(lowered) > 4:
        first = first[:-3] + "y"
    elif lowered.endswith(("ches", "shes", "sses", "xes")):
        first = first[:-2]
    elif lowered.endswith("s") and not lowered.endswith(("ss", "us", "is")) and len(lowered) > 3:
        first = first[:-1]
    return f"{first} {rest}".strip()


def _negated(sentence: str, start: int) -> bool:
    before = sentence[max(0, start - 20) : start].casefold()
    return bool(re.search(r"\b(?:not|no\s+longer|stopped|without|never)\s*$|n't\s*$", before))


def _is_pronoun_or_member(who: str) -> bool:
    return who.split()[0].casefold() in {"i", "we", "he", "she", "they", "it", "you", "that"}


def _tasks(unit: _Unit, found: _Found) -> None:
    sentence = unit.text
    if unit.question:
        return
    priority = "high" if _HIGH.search(sentence) else "low" if _LOW.search(sentence) else ""
    decisions = [m.span() for m in DECISION.finditer(sentence)]
    for match in DONE.finditer(sentence):
        before = sentence[max(0, match.start() - 40) : match.start()]
        if re.search(r"\b(?:once|when|after|if|until|before)\s+$", before, re.I):
            continue
        if match["with"] and re.search(r"\b(?:them|it|get|got|be|been|have)\s+$", before, re.I):
            continue  # "get them done with the MOT" is a plan, not a finished task
        tail = _done_object(sentence[match.end() :])
        verb = (match["verb"] or "").casefold()
        if match["with"] or verb in ("finished", "completed", "done"):
            description = tail
        else:
            description = clean(f"{verb} {tail}")
        if content_words(tail):
            found.add_task(description, "completed", "")
    if match := DONE_SUBJECTLESS.match(clean(sentence)):
        body = clean(sentence)
        description = clean(f"{match['verb'].casefold()} {_done_object(body[match.end() :])}")
        if content_words(description):
            found.add_task(description, "completed", "")
    for match in DONE_PASSIVE.finditer(sentence):
        description = clean(match["what"])
        if content_words(description) and not BLOCKER_SO.search(
            sentence[match.end() : match.end() + WINDOW]
        ):
            found.add_task(description, "completed", "")
    for match in IN_PROGRESS.finditer(sentence):
        description = phrase_after(sentence[match.end() :])
        if content_words(description):
            found.add_task(description, "in_progress", priority)
    for match in BLOCKED_UNTIL.finditer(sentence):
        description = clean(match["what"])
        if content_words(description):
            found.add_task(description, "blocked", priority)
    for match in BLOCKED_ON.finditer(sentence):
        found.add_task(clean(match["what"]), "blocked", priority)
    for match in TASK.finditer(sentence):
        start, end = match.span()
        if any(d_start <= end + 12 and start <= d_end for d_start, d_end in decisions):
            continue  # "we'll go with …", "I've decided I'll …": a decision, not a task
        before = sentence[max(0, start - 40) : start]
        if re.search(r"\b(?:if|whether|unless|when|once|what|how)\s+$", before, re.I):
            continue
        if _REPORTED.search(before):
            continue  # "Jess thinks we should sell the car": her idea, not the member's task
        if re.match(r"\s*(?:n't|not)\b", sentence[end:], re.I):
            continue
        if re.search(r"\bcan't\s+\S+", sentence[end : end + 40], re.I) and BLOCKED_UNTIL.search(
            sentence
        ):
            continue
        tail, _ = _strip_leads(sentence[end : end + WINDOW], _TASK_LEADS)
        if _NOT_A_TASK.match(tail):
            continue
        items = (
            [clean(part) for part in re.split(r"\s*[,;]\s*|\s+and\s+", tail)]
            if match["list"] is not None
            else _split_tasks(phrase_after(tail))
        )
        for description in items:
            if content_words(description) and not WAITING.search(description):
                found.add_task(description, "decided", priority)
                unit.has_task = True
    if not unit.has_task and unit.after_task:
        follow = _FOLLOW_ON.match(sentence)
        if follow and follow["verb"].casefold() in _TASK_VERBS:
            description = phrase_after(sentence[follow.start("verb") :])
            if content_words(description):
                found.add_task(description, "decided", priority)
                unit.has_task = True


_WHEN_DONE = re.compile(
    r"\s+(?:last\s+night|this\s+(?:morning|afternoon|evening|week)|yesterday|earlier(?:\s+today)?|"
    r"today|just\s+now|at\s+last|already|finally|now)$",
    re.I,
)


def _done_object(text: str) -> str:
    """What was finished: the clause up to its first comma, without "last night", "today"…"""
    phrase = phrase_after(text).split(",")[0]
    while (shorter := _WHEN_DONE.sub("", phrase)) != phrase:
        phrase = shorter
    return clean(phrase)


def _split_tasks(phrase: str) -> list[str]:
    """ "sign the form and pay the £18" → two tasks, when what follows "and" is a verb."""
    parts = [phrase]
    for match in re.finditer(r"\s+and\s+(?:then\s+|also\s+)?(?P<verb>[a-z]+)\b", phrase):
        if match["verb"] in _TASK_VERBS:
            first, second = phrase[: match.start()], phrase[match.end() - len(match["verb"]) :]
            if len(first.split()) >= 2 and len(second.split()) >= 2:
                parts = [clean(first), *_split_tasks(clean(second))]
            break
    return parts


def _blockers(sentence: str, found: _Found) -> None:
    def add(what: str, unblocks: str) -> None:
        what, unblocks = clean(what), clean(unblocks)
        if content_words(what):
            found.add("blockers_cleared", what, what=what, unblocks=unblocks)

    for match in NOW_THAT.finditer(sentence):
        add(match["what"], _who_can(match["subj"]) + phrase_after(sentence[match.end() :]))
    for match in BLOCKER_SO.finditer(sentence):
        before = clause_before(sentence[: match.start()])
        if _CLEARED_STATE.search(before) and not re.search(r"\bnow\s+that\b", before, re.I):
            add(before, _who_can(match["subj"]) + phrase_after(sentence[match.end() :]))
    for match in UNBLOCKS.finditer(sentence):
        passive = re.search(
            r"(?:\bis|\bare|'s|'re|\bbeen|\bbe|\blonger|\bnot)\s+(?:now\s+|finally\s+)?$",
            sentence[max(0, match.start() - 20) : match.start()],
            re.I,
        )
        if not passive:
            before = re.sub(
                r"^(?:that|which|this|it)\s+", "", clause_before(sentence[: match.start()])
            )
            add(before or "blocker", phrase_after(match["rest"]))
    for match in UNBLOCKED.finditer(sentence):
        subject = clause_before(sentence[: match.start()])
        after = sentence[match.end() :]
        if not content_words(subject):
            subject = ""  # "We're no longer blocked": the member is not what was unblocked
        if re.search(r"\b(?:on|by)\s+$", match.group(0), re.I):
            add(phrase_after(after), subject)
            continue
        reason = re.search(r"\b(?:now\s+that|because|since|as)\s+(?P<why>[^.!?;]+)", after, re.I)
        if reason:
            add(reason["why"], subject)
        elif content_words(subject):
            add(subject, "")


def _who_can(subject: str) -> str:
    subject = (subject or "").strip()
    if not subject or subject.casefold() in {"i", "we", "they", "you", "it"}:
        return ""
    return subject + " "


def _insights(sentence: str, found: _Found) -> None:
    """One insight a sentence: "I realised X, lesson learned" is one lesson, not two."""
    for match in INSIGHT.finditer(sentence):
        insight = phrase_after(sentence[match.end() :])
        if not content_words(insight):
            insight = clause_before(sentence[: match.start()])
        insight = clean(INSIGHT.sub("", insight))
        if content_words(insight):
            found.add("insights", insight, insight=insight, context="")
            return


def _people(sentence: str, found: _Found, known_names: set[str]) -> None:
    context = ""
    for match in _CAPITALISED.finditer(sentence):
        title, name = match["title"], match["name"]
        words = name.split()
        start = match.start()  # of the title, else of the name itself
        if not title and words[0] in NOT_NAMES and len(words) == 2:
            name, words = words[1], words[1:]  # "Yesterday Ana" → "Ana"
            start = match.end() - len(name)
        if not title and not _name_ok(name):
            continue
        before = sentence[max(0, start - 80) : start]
        after = sentence[match.end() :]
        if re.search(r"\b(?:St|Saint)[.\u2024]?\s*$", before):
            continue
        if not title and _PLACE_BEFORE.search(before) and not _PERSON_TO.search(before):
            if not after.startswith("'s"):
                continue
        if not title and re.match(r"\s*\d", after):
            continue  # "Year 5", "Room 3"
        at_start = not re.search(r"\w", before)  # "🎉 Party planning" starts a sentence too
        kin = KIN_NAMES.get(words[0].casefold(), "")
        if at_start and not title and words[0] not in known_names:
            if not _NAME_VERB_AFTER.match(after):
                continue
        relation = kin
        if title:
            relation = TITLES.get(title.casefold(), "")
        if rel := _RELATION_BEFORE.search(before):
            relation = rel["relation"].casefold()
        elif rel := _RELATION_AFTER.match(after):
            relation = rel["relation"].casefold()
        full = f"{title} {name}" if title else name
        context = context or clean(sentence[:WINDOW])[:200]
        found.add_person(full.replace(PLACEHOLDER, "."), context, relation)


_INTERROGATIVE = (
    r"(?:what|what's|when|where|who|who's|whom|whose|why|how|which|whether|should|shall|can|"
    r"could|would|will|do|does|did|is|isn't|are|aren't|was|were|have|has|had|may|might|must|"
    r"any|anyone|anything|am)\b"
)


def _asked(sentence: str) -> str:
    """A member's question as a question, from its interrogative word on ("The other thing,
    should Dad …?" → "Should Dad …?"). "I think it went ok?" is a statement: ""."""
    text = clean(sentence.rstrip().rstrip("?"))
    if re.search(r"\s+or\s+", text) and len(text.split()) <= 8:
        pass  # "Spanish or French?": a choice, however it is phrased
    elif not re.match(_INTERROGATIVE, text, re.I):
        lead_in = re.search(rf"[,:]\s*(?={_INTERROGATIVE})", text, re.I)
        if not lead_in:
            return ""
        text = text[lead_in.end() :]
    return text[0].upper() + text[1:] + "?"


def _question_text(raw: str) -> str:
    text = phrase_after(raw)
    if between := re.match(r"between\s+(?P<a>.+?)\s+and\s+(?P<b>.+)$", text, re.I):
        text = f"{between['a']} or {between['b']}"
    text = re.sub(r"^if\b", "whether", text, flags=re.I)
    if len(content_words(text)) < 1 or len(text.split()) < 2:
        return ""
    return text[0].upper() + text[1:] + "?"


def _settle_questions(questions, units: list[_Unit], turns, found: _Found) -> None:
    """Each question is resolved when a later statement answers it, else it stays open."""
    for position, question, unit in questions:
        answer = ""
        for later in units[position + 1 :]:
            if later.question:
                continue
            cue = ANSWER.search(later.text)
            decision = DECISION.search(later.text)
            if (cue or decision) and covers(question, later.text):
                tail = later.text[cue.end() :] if cue else later.text[decision.end() :]
                answer = phrase_after(tail) or clean(later.text)
                break
        if not answer and unit.question:
            answer = _acknowledged_answer(question, unit, turns)
        if answer:
            found.add("questions_resolved", question, question=question, answer=answer)
        else:
            found.add("questions_opened", question, question=question)


def _acknowledged_answer(question: str, unit: _Unit, turns) -> str:
    """The member asked, the assistant answered and the member's next turn took the answer."""
    if unit.turn + 2 >= len(turns) or turns[unit.turn + 1][0] != "assistant":
        return ""
    asked = [s for s in _protected_sentences(turns[unit.turn][1]) if s.rstrip().endswith("?")]
    if asked[-1:] != [unit.text]:
        return ""  # only the last question of a turn is the one the assistant answered
    reply = turns[unit.turn + 1][1]
    role, following = turns[unit.turn + 2]
    if role != "user" or _DEFLECTION.search(reply):
        return ""
    if all(s.rstrip().endswith("?") for s in _protected_sentences(reply)):
        return ""  # the assistant asked back ("How did it feel?"): no answer to accept
    first = (_protected_sentences(following) or [""])[0].strip()
    acknowledged = _ACKNOWLEDGED.match(first)  # before clean(), which drops "Ok then"
    decided = DECISION.search(first)
    follows = re.search(r"\bthen\b", first, re.I) and content_words(question) & content_words(first)
    if not (acknowledged or decided or follows):
        return ""
    own = clean(first[acknowledged.end() :] if acknowledged else first)
    if len(content_words(own)) >= 2:
        return own
    return clean((sentences(reply) or [""])[0])


def _assistant_questions(turns, found: _Found) -> None:
    """A yes/no question the assistant asked and the member answered yes or no."""
    for index in range(len(turns) - 1):
        role, content = turns[index]
        if role != "assistant" or turns[index + 1][0] != "user":
            continue
        asked = (sentences(content) or [""])[-1]
        if not asked.endswith("?") or _ASSISTANT_OFFER.match(asked):
            continue
        if not _YES_NO_QUESTION.match(asked) or len(content_words(asked)) < 3:
            continue
        reply = (sentences(turns[index + 1][1]) or [""])[0]
        if yes_no := _YES_NO_ANSWER.match(reply):  # "Yes, Leo moves up": keep the yes or no
            word = yes_no.group(0).strip(" ,.!").capitalize()
            rest = clean(reply[yes_no.end() :])
            answer = f"{word}, {rest}" if rest else word
            found.add("questions_resolved", asked, question=asked, answer=answer)


# --- stage 2: narrative ----------------------------------------------------------------------------

_TOPIC_LEADS = re.compile(
    r"^(?:(?:hi|hey|hello|morning|evening|ok(?:ay)?|so|right|quick\s+one|quick\s+question)\b"
    r"[,!.:]?\s*)+|^(?:can|could)\s+(?:you|we)\s+(?:help\s+(?:me\s+)?(?:with\s+)?|talk\s+about\s+)?"
    r"|^(?:i\s+want\s+to|i'd\s+like\s+to|let's|i\s+need\s+to)\s+(?:talk\s+about\s+|think\s+about\s+)?"
    r"|^(?:i've\s+been\s+thinking\s+about|thinking\s+about)\s+",
    re.I,
)


def topic_of(message: str) -> str:
    """A short topic from a first message: "Hi! Can you help me plan Leo's party?" → "plan …"."""
    for sentence in sentences(message or ""):
        text = clean(sentence.rstrip("?"))
        while (shorter := _TOPIC_LEADS.sub("", text)) != text:
            text = shorter
        text = clean(text)
        if content_words(text):
            words = text.split()
            return " ".join(words[:12]) + ("…" if len(words) > 12 else "")
    return ""


def narrative(
    entities: dict,
    *,
    act_title: str | None,
    date: date,
    person: str,
    first_message: str = "",
) -> str:
    """2–4 sentences on what the conversation changed, most important first. Deterministic.

    Decisions lead, then who is being waited on for what, then the questions left open; any
    room left goes to what was finished, cleared or learned. ``first_message`` (optional) gives
    the topic for a conversation in which nothing was found."""
    rows = {kind: list(entities.get(kind) or []) for kind in KINDS}
    person = person or "They"
    parts: list[str] = []
    decisions = [row for row in rows["decisions"] if row.get("what")]
    if decisions:
        first = decisions[0]
        because = f" because {first['why']}" if first.get("why") else ""
        lead = f"{person} {_decided(first['what'])}{because}"
        others = [_decided(row["what"]) for row in decisions[1:3]]
        parts.append(lead + (f", and {_join(others)}" if others else "") + ".")
    waiting = [row for row in rows["waiting_on"] if row.get("who") or row.get("what")]
    if waiting:
        described = [_waiting_on(row) for row in waiting[:3]]
        more = f" (and {len(waiting) - 3} more)" if len(waiting) > 3 else ""
        parts.append(f"{person} is waiting on {_join(described)}{more}.")
    opened = [
        _unquestion(row["question"]) for row in rows["questions_opened"] if row.get("question")
    ]
    if opened:
        label = "Open question" if len(opened) == 1 else "Open questions"
        parts.append(f"{label}: {_join([_quoted(q) for q in opened[:2]], 'and')}.")
    tasks = [row for row in rows["tasks"] if row.get("description")]
    done = [r["description"] for r in tasks if r.get("status") == "completed"]
    todo = [r["description"] for r in tasks if r.get("status") != "completed"]
    resolved = [row for row in rows["questions_resolved"] if row.get("question")]
    cleared = [row for row in rows["blockers_cleared"] if row.get("what")]
    insights = [row["insight"] for row in rows["insights"] if row.get("insight")]
    extras = []
    if cleared:
        row = cleared[0]
        unblocks = f" (unblocks: {row['unblocks']})" if row.get("unblocks") else ""
        extras.append(f"Cleared: {row['what']}{unblocks}.")
    if resolved:
        row = resolved[0]
        extras.append(
            f"Settled: {_quoted(_unquestion(row['question']))} ({row.get('answer', '')})."
        )
    if insights:
        extras.append(f"Learned: {insights[0]}.")
    if done:
        extras.append(f"Done: {_join(done[:3])}.")
    if todo:
        extras.append(f"Next: {_join(todo[:3])}.")
    for extra in extras:
        if len(parts) >= 4 or (len(parts) >= 2 and extra.startswith(("Done", "Next"))):
            break
        parts.append(extra.replace(" ().", "."))
    if not parts:
        return _nothing_found(
            rows, act_title=act_title, date=date, person=person, first_message=first_message
        )
    if len(parts) == 1:
        act = f" in {act_title}" if act_title and act_title != "Your Story" else ""
        parts.append(f"Talked on {date.isoformat()}{act}.")
    return _third_person(" ".join(parts[:4]), person)


_FIRST_PERSON = (
    (re.compile(r"\bI'm\b"), "{p} is"),
    (re.compile(r"\bI've\b"), "{p} has"),
    (re.compile(r"\bI'll\b"), "{p} will"),
    (re.compile(r"\bI'd\b"), "{p} would"),
    # "I" only where the verb after it reads the same in the third person ("I can" → "Kel
    # can"); "I care" stays a quotation rather than becoming "Kel care".
    (
        re.compile(
            r"\bI\b(?=\s+(?:can|could|will|would|should|must|might|had|did|was|"
            r"can't|won't|didn't|wasn't|[a-z]+ed)\b)"
        ),
        "{p}",
    ),
    (re.compile(r"\bme\b"), "{p}"),
    (re.compile(r"\b[Mm]y\b"), "{p}'s"),
    (re.compile(r"\b[Mm]yself\b"), "{p}"),
)


def _third_person(text: str, person: str) -> str:
    """The member's own words inside the narrative: "get back to me" → "get back to Kel"."""
    for pattern, replacement in _FIRST_PERSON:
        text = pattern.sub(replacement.replace("{p}", person), text)
    return text


def _nothing_found(rows, *, act_title, date, person, first_message) -> str:
    topic = topic_of(first_message)
    people = [row["name"] for row in rows["people"] if row.get("name")]
    if topic:
        about = f"{person} talked about {_quoted(topic)} on {date.isoformat()}"
    elif people:
        about = f"{person} talked about {_join(people[:3])} on {date.isoformat()}"
    else:
        about = f"{person} had a conversation on {date.isoformat()}"
    if act_title and act_title != "Your Story":
        about += f" ({act_title})"
    return f"{about}. Nothing was decided, nobody is being waited on and no question was left open."


def _decided(what: str) -> str:
    what = what.rstrip(". ")
    if what.casefold().startswith("against "):
        return f"decided {what}"
    return f"decided to {what}"


def _waiting_on(row: dict) -> str:
    who, what = row.get("who", ""), row.get("what", "")
    if re.match(r"(?:The|My|Our|His|Her|Their)\s", who):
        who = who[0].lower() + who[1:]  # "waiting on the garage", mid-sentence
    if not who:
        return what
    if not what:
        return who
    first = what.split()[0].casefold()
    linker = "to"
    if first in {"the", "a", "an", "his", "her", "their", "my", "our", "some"} or re.match(
        r"[£$€\d]", first
    ):
        linker = "for"
    elif first.endswith("ed") or first in {"sent", "got", "paid", "replied", "done", "given"}:
        linker = "who has not yet"
    return f"{who} {linker} {what}"


def _unquestion(question: str) -> str:
    return question.strip().rstrip("?").strip()


def _quoted(text: str) -> str:
    return f"“{text}”"


def _join(items: list[str], word: str = "and") -> str:
    items = [item.rstrip(". ") for item in items if item]
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + f" {word} " + items[-1]


# --- stage 3: state deltas -------------------------------------------------------------------------

HEARD_BACK = re.compile(
    rf"(?P<who>{WHO})\s+(?:(?i:finally|eventually|just|already|has|have)\s+)*"
    r"(?P<cue>(?i:got\s+back\s+to\s+(?:me|us)|came\s+back\s+to\s+(?:me|us)|sent(?:\s+over|"
    r"\s+through|\s+back)?|replied|responded|answered|called\s+(?:me\s+|us\s+)?back|"
    r"rang\s+(?:me\s+|us\s+)?back|emailed(?:\s+me|\s+us)?|confirmed|delivered|paid(?:\s+me|"
    r"\s+us)?|returned|dropped\s+off|signed\s+off|approved|refunded))\b(?P<obj>[^.!?;]*)"
    rf"|(?i:heard\s+(?:back\s+)?from)\s+(?P<who2>{WHO})(?P<obj2>[^.!?;]*)"
    r"|(?i:received|got)\s+(?P<obj3>(?i:the|a|an|our|my|his|her|their)\s[^.!?;]{0,80}?)\s+"
    rf"(?i:from)\s+(?P<who3>{WHO})",
)


_TIME_WORDS = frozenset(
    {
        stem(word)
        for word in """yesterday today tonight morning afternoon evening night week weekend last
        finally earlier ago day days weeks monday tuesday wednesday thursday friday saturday
        sunday""".split()
    }
)


def _what_words(text: str) -> set[str]:
    """Content words of what someone sent, without when they sent it."""
    return content_words(text) - _TIME_WORDS


def _heard_back(texts: list[str]) -> list[tuple[str, str]]:
    """(who, what they sent or answered) for every "X got back to me" in the member's words."""
    heard = []
    for text in texts:
        for sentence in _protected_sentences(text):
            if sentence.rstrip().endswith("?"):
                continue
            for match in HEARD_BACK.finditer(sentence):
                who = match["who"] or match["who2"] or match["who3"]
                if _is_pronoun_or_member(who) or who.split()[0] in NOT_NAMES - {"The", "My", "Our"}:
                    continue
                if _negated(sentence, match.start()) or re.search(
                    r"\b(?:hasn't|haven't|didn't|never|not|still\s+waiting)\b",
                    sentence[match.start() : match.end()],
                    re.I,
                ):
                    continue
                obj = phrase_after(match["obj"] or match["obj2"] or match["obj3"] or "")
                heard.append((who, obj if _what_words(obj) else ""))
    return heard


def deltas(entities: dict, open_items: list[dict], transcript_text: str = "") -> dict:
    """What changed against the member's open items, by rules only and conservatively.

    ``open_items``: ``[{"id", "type": "waiting_on"|"question_opened"|"task", "data"}]``.
    A waiting-on is resolved when the member says its person got back ("Alex sent the
    contract", "heard back from the school"); when the person owes more than one thing, what
    they sent must match. A question is resolved by a new answered question or decision that
    holds at least half of its content words; a task by a completed task that does. The member's
    own words (``transcript_text``, optional) are the evidence for waiting-ons; without them
    the people's contexts are. Resolved rows carry ``why`` for the review screen."""
    rows = {kind: list(entities.get(kind) or []) for kind in KINDS}
    open_items = [item for item in open_items or [] if isinstance(item, dict)]
    open_waiting = [item for item in open_items if item.get("type") == "waiting_on"]
    open_questions = [item for item in open_items if item.get("type") == "question_opened"]
    open_tasks = [item for item in open_items if item.get("type") == "task"]

    result: dict[str, list[dict]] = {
        "new_waiting_ons": [],
        "resolved_waiting_ons": [],
        "new_open_threads": [],
        "resolved_threads": [],
        "priority_changes": [],
    }
    evidence = [transcript_text] if transcript_text else []
    evidence += [row.get("context", "") for row in rows["people"]]
    heard = _heard_back(evidence)
    for item in open_waiting:
        data = item.get("data") or {}
        who, what = str(data.get("who", "")), str(data.get("what", ""))
        mine = [(w, obj) for w, obj in heard if same_who(w, who)]
        if not mine:
            continue
        owes_more = sum(
            same_who(who, str((o.get("data") or {}).get("who", ""))) for o in open_waiting
        )
        fits = [
            (w, obj)
            for w, obj in mine
            if (not content_words(obj) and owes_more == 1)
            or (content_words(obj) and content_words(what) and covers(obj, what))
            or (content_words(obj) and covers(what, obj))
        ]
        if fits:
            w, obj = fits[0]
            result["resolved_waiting_ons"].append(
                {
                    "who": who,
                    "what": what,
                    "item_id": item["id"],
                    "why": f"{w} got back" + (f" ({obj})" if obj else ""),
                }
            )
    answers = [
        f"{row.get('question', '')} {row.get('answer', '')}" for row in rows["questions_resolved"]
    ] + [f"{row.get('what', '')} {row.get('why', '')}" for row in rows["decisions"]]
    for item in open_questions:
        question = str((item.get("data") or {}).get("question", ""))
        for answer in answers:
            if covers(question, answer):
                result["resolved_threads"].append(
                    {"thread": question, "item_id": item["id"], "why": f"answered: {answer[:120]}"}
                )
                break
    finished = [r.get("description", "") for r in rows["tasks"] if r.get("status") == "completed"]
    for item in open_tasks:
        description = str((item.get("data") or {}).get("description", ""))
        for done in finished:
            if covers(description, done):
                result["resolved_threads"].append(
                    {"thread": description, "item_id": item["id"], "why": f"done: {done[:120]}"}
                )
                break

    resolved_ids = {row["item_id"] for row in result["resolved_waiting_ons"]}
    for row in rows["waiting_on"]:
        if not (row.get("who") or row.get("what")):
            continue
        already = any(
            same_who(row.get("who", ""), (o.get("data") or {}).get("who", ""))
            and covers(str((o.get("data") or {}).get("what", "")) or "-", row.get("what", ""))
            and o["id"] not in resolved_ids
            for o in open_waiting
        )
        if not already:
            result["new_waiting_ons"].append(
                {"who": row.get("who", ""), "what": row.get("what", "")}
            )
    for row in rows["questions_opened"]:
        question = row.get("question", "")
        if question and not any(
            covers(str((o.get("data") or {}).get("question", "")), question) for o in open_questions
        ):
            result["new_open_threads"].append({"thread": question, "act": ""})
    for row in rows["tasks"]:
        new = row.get("priority", "")
        if not new or not row.get("description") or row.get("status") == "completed":
            continue
        match = next(
            (
                o
                for o in open_tasks
                if covers(str((o.get("data") or {}).get("description", "")), row["description"])
            ),
            None,
        )
        old = str((match.get("data") or {}).get("priority", "")) if match else ""
        if old != new:
            result["priority_changes"].append({"item": row["description"], "old": old, "new": new})
    return result


# --- routing ---------------------------------------------------------------------------------------

ROUTE_THRESHOLD = 3.0  # a shared person counts 3, a title word 2, any other shared word 1
ROUTE_NAME_WEIGHT = 3
ROUTE_TITLE_WEIGHT = 2


def route(entities: dict, narrative: str, acts: list[dict]) -> dict:
    """The act this conversation belongs to, when it clearly shares people or words with one.

    ``acts``: ``[{"id", "title", "description", "entity_names"}]`` without Your Story. A person
    of the conversation who is also one of the act's entities counts 3; a content word shared
    with the act's title counts 2 and with its description or entity names 1. Below
    ``ROUTE_THRESHOLD``, or when two acts tie, the answer is Your Story (``act_id`` None)."""
    rows = {kind: list(entities.get(kind) or []) for kind in KINDS}
    names = {normalise_who(row.get("name", "")) for row in rows["people"]} - {""}
    words = content_words(narrative or "")
    for kind in KINDS:
        if kind == "people":
            continue
        for row in rows[kind]:
            for value in row.values():
                words |= content_words(str(value))
    for row in rows["people"]:
        words -= content_words(row.get("name", ""))
    scored = []
    for act in acts or []:
        act_names = [n for n in act.get("entity_names") or [] if normalise_who(n)]
        shared_names = sorted(
            {other for name in names for other in act_names if same_who(name, other)}
        )
        title_words = content_words(act.get("title", ""))
        other_words = content_words(act.get("description", "")) | {
            word for name in act.get("entity_names") or [] for word in content_words(name)
        }
        spelled = _spellings(
            f"{act.get('title', '')} {act.get('description', '')} "
            + " ".join(act.get("entity_names") or [])
        )
        shared_title = sorted(spelled[word] for word in words & title_words)
        shared_other = sorted(spelled[word] for word in (words & other_words) - title_words)
        score = (
            ROUTE_NAME_WEIGHT * len(shared_names)
            + ROUTE_TITLE_WEIGHT * len(shared_title)
            + len(shared_other)
        )
        scored.append((score, act, shared_names, shared_title + shared_other))
    scored.sort(key=lambda entry: -entry[0])  # stable: ties keep the acts' order
    if not scored:
        return {"act_id": None, "confidence": 1.0, "reason": "There is no act besides Your Story."}
    best, act, shared_names, shared_words = scored[0]
    if best < ROUTE_THRESHOLD:
        detail = (
            f"the closest, “{act['title']}”, shares only {_shared(shared_names, shared_words)}"
            if best
            else "no act shares a person or a word with it"
        )
        return {
            "act_id": None,
            "confidence": round(max(0.5, 0.9 - 0.1 * best), 2),
            "reason": f"Your Story: {detail}.",
        }
    if len(scored) > 1 and scored[1][0] == best:
        return {
            "act_id": None,
            "confidence": 0.5,
            "reason": f"Your Story: “{act['title']}” and “{scored[1][1]['title']}” fit equally well.",
        }
    runner_up = scored[1][0] if len(scored) > 1 else 0
    confidence = min(0.95, 0.4 + 0.06 * best + 0.04 * (best - runner_up))
    return {
        "act_id": act["id"],
        "confidence": round(confidence, 2),
        "reason": f"It shares {_shared(shared_names, shared_words)} with “{act['title']}”.",
    }


def _spellings(text: str) -> dict[str, str]:
    """Stem → the word as the act spells it, for a readable reason."""
    spelled: dict[str, str] = {}
    for word in re.findall(r"[A-Za-z0-9£$€]+(?:'[a-z]+)?", text):
        for stemmed in content_words(word):
            spelled.setdefault(stemmed, word.casefold())
    return spelled


def _shared(names: list[str], words: list[str]) -> str:
    bits = []
    if names:
        bits.append(("the person " if len(names) == 1 else "the people ") + ", ".join(names[:3]))
    if words:
        bits.append(("the word " if len(words) == 1 else "the words ") + ", ".join(words[:5]))
    return " and ".join(bits) or "nothing"
