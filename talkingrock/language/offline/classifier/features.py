"""What the sentence-type classifier sees of a clause: its meaning (the MiniLM embedding the app
already computes) and a few cheap signals of form — a question mark, who the subject is, a modal,
a tense, the words people use to say "done", "still waiting", "not sure", "after all".

The cue words are general English usage, written down once; the classifier learns how much each
is worth from the labelled sentences (sentences.jsonl), never from an evaluation transcript.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

LABELS = (
    "decision",
    "task",
    "waiting_on",
    "question_held",
    "question_to_assistant",
    "resolution",
    "change_of_mind",
    "preference",
    "fact",
    "small_talk",
)

_CUES = {
    "need": r"need|needs|needed|have to|has to|got to|must|should|ought|remember to|don't forget"
    r"|to do|to-do|todo",
    "future": r"will|'ll|going to|gonna|plan to|planning to|about to",
    "decide": r"decided|decide|going with|go with|went with|chose|choose|chosen|picked|settled|"
    r"agreed|opted|sticking with|it is|let's|we'll do|doing the|gone for|go for|going for",
    "change": r"after all|actually|instead|anymore|any more|scrap|scrapped|switched|switch|changed|"
    r"change|moved|no longer|rather than|swap|swapped|cancel|cancelled|canceled|now|no wait|"
    r"not anymore|ditch|ditched",
    "done": r"done|finally|booked|paid|sorted|arrived|came in|came through|came back|received|got|"
    r"heard back|heard from|fixed|sent|signed|submitted|finished|collected|picked up|delivered|"
    r"confirmed|in!|ready|✅|✔",
    "wait": r"still|waiting|chasing|owes|owe|hasn't|haven't|yet|hear back|get back|promised|"
    r"supposed to|said he'd|said she'd|said they'd|sending|due|nothing from",
    "unsure": r"not sure|don't know|no idea|wondering|wonder|whether|torn|can't decide|undecided|"
    r"debating|unsure|or not|either",
    "like": r"love|loves|hate|hates|prefer|prefers|rather|can't stand|like|likes|dislike|dislikes|"
    r"favourite|favorite|allergic|always|never|only|fussed|keen",
    "social": r"thanks|thank you|cheers|great|cool|nice|okay|morning|night|bye|hi|hello|hey|"
    r"sorry|lovely|brilliant|good",
    "ask_you": r"remind me|tell me|do you know|can you|could you|did I|have I|what was|what's|"
    r"when's|when is|where's|who's|what did|when did|how much was",
}
CUES = {name: re.compile(rf"(?<![\w'])(?:{words})(?![\w'])", re.I) for name, words in _CUES.items()}
QUESTION_WORDS = frozenset(
    "what when where who whom whose which why how do does did is are was were can could will "
    "would should shall have has had am".split()
)
FIRST_PERSON = frozenset("i me my mine we us our ours i'm i've i'll i'd we're we've we'll".split())
_NUMBER = re.compile(r"\d")
_MONEY = re.compile(r"[£$€]\s?\d|\d\s?(?:pounds|quid|dollars|euros|p\b)", re.I)
_TIME = re.compile(
    r"\b(?:\d{1,2}[:.]\d{2}|\d{1,2}\s?(?:am|pm)|monday|tuesday|wednesday|thursday|friday|"
    r"saturday|sunday|mon|tues?|wed|weds|thurs?|fri|sat|sun|today|tomorrow|tonight|yesterday|"
    r"week|month|january|february|march|april|may|june|july|august|september|october|"
    r"november|december|jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec)\b",
    re.I,
)

NAMES = (
    *(f"cue_{name}" for name in _CUES),
    "question_mark",
    "question_word_first",
    "you",
    "first_person",
    "first_person_subject",
    "person_named",
    "number",
    "money",
    "time",
    "length",
    "past_verb",
    "modal",
    "imperative",
    "negation",
    "after_assistant_question",
    "emoji_only",
)


@dataclass(frozen=True)
class Clause:
    """A clause as the classifier reads it: its (normalised) text, its parse, and whether the
    assistant had just asked the member something."""

    text: str
    tokens: tuple  # spaCy tokens of the clause
    after_assistant_question: bool = False


def form(clause: Clause) -> np.ndarray:
    """The cheap features of one clause, in the order of ``NAMES``."""
    text = clause.text
    lower = text.lower()
    words = [t.lower_ for t in clause.tokens if not t.is_punct and not t.is_space]
    values = [1.0 if pattern.search(lower) else 0.0 for pattern in CUES.values()]
    subjects = [t for t in clause.tokens if t.dep_ in ("nsubj", "nsubjpass")]
    root = next((t for t in clause.tokens if t.dep_ == "ROOT"), None)
    values += [
        1.0 if "?" in text else 0.0,
        1.0 if words and words[0] in QUESTION_WORDS else 0.0,
        1.0 if {"you", "your"} & set(words) else 0.0,
        1.0 if FIRST_PERSON & set(words) else 0.0,
        1.0 if any(t.lower_ in FIRST_PERSON for t in subjects) else 0.0,
        1.0 if any(t.ent_type_ == "PERSON" or t.pos_ == "PROPN" for t in clause.tokens) else 0.0,
        1.0 if _NUMBER.search(text) else 0.0,
        1.0 if _MONEY.search(text) else 0.0,
        1.0 if _TIME.search(text) else 0.0,
        math.log1p(len(words)) / 4,
        1.0 if any(t.tag_ in ("VBD", "VBN") for t in clause.tokens) else 0.0,
        1.0 if any(t.tag_ == "MD" for t in clause.tokens) else 0.0,
        1.0 if root is not None and root.tag_ == "VB" and not subjects else 0.0,
        1.0 if any(t.dep_ == "neg" for t in clause.tokens) else 0.0,
        1.0 if clause.after_assistant_question else 0.0,
        1.0 if not any(ch.isalnum() for ch in text) else 0.0,
    ]
    return np.asarray(values, dtype=np.float32)
