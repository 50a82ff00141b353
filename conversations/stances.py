"""What the member said they will or won't have, for a question that asks whether to take
something put to them.

"lad at the van show reckons i shud stick a porta potti under the bench. worth it?" names a thing
the member may never have mentioned: the offer is new, so its words find little, and the answer
is what the member once said they want or won't have of that kind ("NOT havin a bog in it,
mingin"). Such a sentence is a stance: it says what someone would rather, wants, won't have,
will only have or has ruled out, however it is typed ("NOT goalie", "full face only from now",
"I do not wish to PayNow to anyone's personal mobile number"). Among the stances in what recall
found, the one nearest the question in meaning (MiniLM, sentence by sentence) answers, when it is
near enough; otherwise there is no memory of it.
"""

from __future__ import annotations

import re

import numpy as np

from conversations.candidates import Candidate
from conversations.questions import asked_part
from conversations.sentence_values import prefers
from memories.models import Memory
from talkingrock.embeddings import embed

# How a sentence rules something in or out, besides the words of a preference
# (sentence_values.prefers): "never", "won't", "will not", "do not wish", "not having", "no point",
# "nobody is collecting it without paying", "done w gen. no more", "has to be", "only … from
# now", "nothing that hurts her", and a no or a not typed in capitals for emphasis ("NOT goalie",
# "NO dark colours").
_RULES_OUT = re.compile(
    r"\b(?:never|won['’]?t|wont|will not|(?:do|does|did) not wish|don['’]?t wish|no point|"
    r"nobody|no one|no more|done w(?:ith)?|(?:not|never) (?:\w+ing|havin|takin|doin|goin)|"
    r"has to be|must be|for sure|only\b[^.,;]{0,40}\bfrom now|nothing that)\b",
    re.I,
)
_EMPHATIC = re.compile(r"\b(?:NOT|NO|NEVER)\b")
# A stance this close in meaning to the question answers it (MiniLM cosine, sentence against the
# question's asking part); set on the development households with bench/answers.py.
STANCE_NEAR = 0.3


def is_stance(sentence: str) -> bool:
    """Whether ``sentence`` says what someone wants, would rather or has ruled out."""
    return bool(prefers(sentence) or _RULES_OUT.search(sentence) or _EMPHATIC.search(sentence))


def nearest_stance(question: str, candidates: list[Candidate]) -> tuple[Candidate, float] | None:
    """The member's own stance (not the assistant's) nearest ``question`` in meaning, with its
    similarity, when one is at least ``STANCE_NEAR``; None otherwise."""
    stances = [
        c for c in candidates if c.hit.memory.kind != Memory.Kind.REPLY and is_stance(c.sentence)
    ]
    if not stances:
        return None
    vectors = embed([asked_part(question)] + [c.sentence for c in stances])
    similarities = vectors[1:] @ vectors[0]
    best = int(np.argmax(similarities))
    if similarities[best] < STANCE_NEAR:
        return None
    return stances[best], float(similarities[best])
