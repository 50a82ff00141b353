"""Turning a clause into the words an item needs: the action of a task ("ring the council about
the vent"), the choice of a decision, the thing owed in a waiting-on, the question held — with
the frame around it ("I need to", "told him", "still don't know if") taken off, names
capitalised and pronouns replaced by the person they mean.
"""

from __future__ import annotations

import re

from talkingrock.language.names import title_case

SUBJECT_PRONOUNS = frozenset("i we you he she they it this that there".split())
# Words that open a clause without carrying its content.
OPENERS = frozenset(
    """so and but also plus oh well anyway right ok okay yes alright then just actually
    honestly basically like um erm hmm tbh though because please thanks hey hiya""".split()
)
# Frames before an action or a choice, longest first: what remains is the action or the choice.
FRAMES = tuple(
    sorted(
        """need to|needs to|have to|has to|had to|got to|gotta|must|should|ought to|will|'ll|
        am going to|'m going to|are going to|'re going to|is going to|going to|gonna|
        want to|wants to|would like to|'d like to|plan to|planning to|try to|trying to|
        remember to|don't forget to|do not forget to|let's|lets|let us|can|could|might|may|
        decided to|decided|agreed to|agreed|chose to|chose|told him to|told her to|told them to|
        told him|told her|told them|said to|said we'd|said|think we'll|think|reckon|guess|
        i'm|i've|we're|we've|we'll|i'll|still|really|definitely|probably|maybe|also|then|now|
        to""".replace("\n", "").split("|"),
        key=len,
        reverse=True,
    )
)
# A frame word is a word of its own: "can" is not the frame of "can't" ("can't really do
# stairs" is not "'t really do stairs").
_FRAME = re.compile(
    r"^(?:" + "|".join(re.escape(f.strip()) for f in FRAMES if f.strip()) + r")\b(?!['’])\s*",
    re.I,
)
_QUESTION_FRAME = re.compile(
    r"^(?:(?:i|we)\s+)?(?:still\s+)?(?:(?:do\s+not|don't|dont)\s+know|not\s+sure|no\s+idea|"
    r"can't\s+decide|cannot\s+decide|(?:am|are|'m|'re)?\s*wondering|wonder|undecided|torn|"
    r"haven't\s+decided|have\s+not\s+decided|not\s+decided|debating|unsure)"
    r"(?:\s+(?:about|on|yet))?\s*(?:whether|if|what|when|where|who|how|which)?\s*",
    re.I,
)
# "the big thing I keep going round in circles on is whether …", "the one I'm unsure about is
# Jean": what is held comes after "is".
_THE_THING_IS = re.compile(
    r"^the\s+(?:\w+\s+)?(?:thing|one|question|bit|issue)\s+(?:that\s+)?(?:i|we)\b[^,.;]*?"
    r"\b(?:is|are)\s+",
    re.I,
)
_HELD_MIDWAY = re.compile(
    r"\b(?:(?:i|we)\s+)?(?:still\s+)?(?:(?:do\s+not|don't|dont)\s+know|not\s+sure|no\s+idea|"
    r"can't\s+decide|unsure)\s+(?:whether|if)\b",
    re.I,
)
_TRAILING = re.compile(
    r"[\s,;:.!?…\-—–]+$|\s+(?:though|tho|lol|haha+|then|so|now|yet|obviously|honestly|"
    r"to be honest|I think|I guess|anyway|as usual|after all|in the end)$",
    re.I,
)
# What people say around a choice without saying it: "the other thing is …", "fine, …",
# "… so yes that's sorted", "… the Fox it is" (the choice is the Fox).
_AROUND_A_CHOICE = re.compile(
    r"^(?:the (?:other |big |main )?thing is|the plan is|update(?: on [\w ]+)?:|(?:\w+ )?caved[,.!]*|"
    r"chang(?:ed|ing) (?:my|our|his|her|their) minds?[,.!]*|"
    r"(?:fine|ok|okay|right|no|yes|yeah|ugh|well|so)[,.!]+)\s*",
    re.I,
)
_CHOICE_TAIL = re.compile(
    r"[,;]?\s*(?:so\s+)?(?:(?:yes|yeah)\s+)?(?:that's|thats|that is)\s+(?:sorted|settled|decided|"
    r"that|done|the plan)\b.*$",
    re.I,
)
_IT_IS = re.compile(r"^(?:.*[,;:.]\s*)?(?P<choice>[^,;:.]+?)\s+it\s+is$", re.I)
_SYMBOLS = re.compile(r"[^\w\s'’£$€%&,.:;!?()/-]+")


def words_of(tokens, referents: dict | None = None, *, names: set[int] = frozenset()) -> str:
    """The tokens' words, pronouns that mean someone replaced by the name, names capitalised."""
    out = []
    for token in tokens:
        text = token.text
        person = (referents or {}).get(token.i)
        if person is not None:
            text = (
                f"{person.name}'s"
                if token.lower_ in ("his", "her") and token.dep_ == "poss"
                else person.name
            )
        elif token.i in names:
            text = title_case(text)
        out.append(text + token.whitespace_)
    return "".join(out).strip()


def tidy(text: str) -> str:
    """No emoji or stray symbols, no trailing filler or punctuation, single spaces."""
    text = _SYMBOLS.sub(" ", text)
    text = " ".join(text.split())
    previous = None
    while previous != text:
        previous, text = text, _TRAILING.sub("", text).strip()
    return text


def strip_frame(text: str) -> str:
    """ "we need to order the tiles" → "order the tiles"; "told him go with the oak" → "go with
    the oak"."""
    text = text.strip()
    words = text.split()
    while words and words[0].lower().strip(",") in OPENERS:
        words = words[1:]
    text = " ".join(words)
    if words and words[0].lower() in SUBJECT_PRONOUNS - {"it", "this", "that", "there"}:
        text = " ".join(words[1:])
    previous = None
    while previous != text:
        previous, text = text, _FRAME.sub("", text)
    return text.strip()


def question_of(text: str) -> str:
    """ "still don't know if we do the floors now or after Christmas" → "do we do the floors now
    or after Christmas?" (the frame off, a question mark on)."""
    text = _THE_THING_IS.sub("", strip_openers(text)).strip()
    held = _HELD_MIDWAY.search(text)
    if held and held.start() > 0:
        text = text[held.start() :]  # "she's 78, so I don't know whether she'll manage it"
    body = _QUESTION_FRAME.sub("", text).strip()
    # "if we do the floors now" → "do the floors now": the holder is the member.
    body = re.sub(r"^(?:we|i|you)\s+(?=\w)", "", body, flags=re.I)
    body = re.sub(r"^(?:should|to)\s+(?=\w)", "", body, flags=re.I)
    body = tidy(body)
    if not body:
        return ""
    return body[0].upper() + body[1:] + "?"


def strip_openers(text: str) -> str:
    words = text.split()
    while words and words[0].lower().strip(",") in OPENERS:
        words = words[1:]
    return " ".join(words)


def capitalised(text: str) -> str:
    return text[:1].upper() + text[1:] if text else text


def choice_of(text: str) -> str:
    """A decision's words without what surrounds the choice: "fine, quartz it is" → "quartz";
    "the other thing is we'll do Mondays so yes that's sorted" → "we'll do Mondays"."""
    previous = None
    while previous != text:
        previous, text = text, _AROUND_A_CHOICE.sub("", text.strip())
    text = _CHOICE_TAIL.sub("", text).strip()
    text = tidy(text)
    if found := _IT_IS.match(text):
        text = found["choice"]
    return text
