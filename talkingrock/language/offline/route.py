"""Which act a conversation belongs in, by meaning (seed 003's routing, offline).

Each act is described by its title, its description and what it already holds (its latest
memories); the conversation by what the member said and what was extracted from it. The act
whose description is closest in meaning (MiniLM cosine) wins, lifted by the people they share
and the title's words the conversation uses; below a floor, or when Your Story is as close, it is
Your Story. The answer says why.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from talkingrock import embeddings

PERSON_BONUS = 0.05  # per person the conversation and the act share, up to three
TITLE_BONUS = 0.04  # per word of the act's title the conversation uses
FLOOR = 0.1  # below this cosine, no act is close enough: Your Story
MARGIN = 0.02  # an act must beat Your Story's own profile by this much
MEMORIES = 20  # an act's latest memories that describe it
_STOP = frozenset("a an the and or of to in on for my our your with at by".split())


@dataclass
class ActProfile:
    id: int | None  # None: Your Story
    title: str
    description: str = ""
    memories: list[str] = field(default_factory=list)
    people: set[str] = field(default_factory=set)

    def text(self) -> str:
        return " ".join([self.title, self.description, *self.memories[:MEMORIES]])


@dataclass(frozen=True)
class Route:
    act_id: int | None
    title: str
    confidence: float
    reason: str

    def as_dict(self) -> dict:
        return {"act_id": self.act_id, "confidence": self.confidence, "reason": self.reason}


def _title_words(title: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9]+", title.casefold()) if w not in _STOP and len(w) > 2}


def route(
    conversation: str, people: set[str], acts: list[ActProfile], your_story: ActProfile
) -> Route:
    """The act for a conversation whose text (what was said and extracted) is ``conversation``
    and which names ``people``."""
    if not acts or not conversation.strip():
        return Route(None, your_story.title, 0.5, "no act besides Your Story fits")
    vectors = embeddings.embed([conversation, your_story.text(), *(a.text() for a in acts)])
    closeness = vectors[2:] @ vectors[0]
    story = float(vectors[1] @ vectors[0])
    said = set(re.findall(r"[a-z0-9]+", conversation.casefold()))
    scores, reasons = [], []
    for act, cosine in zip(acts, closeness, strict=True):
        shared = sorted(people & act.people)[:3]
        titled = sorted(_title_words(act.title) & said)
        score = float(cosine) + PERSON_BONUS * len(shared) + TITLE_BONUS * len(titled)
        why = [f"closest in meaning to “{act.title}”"]  # the sureness is shown apart
        if shared:
            why.append(f"names {', '.join(shared)} as it does")
        if titled:
            why.append(f"talks of {', '.join(titled)}")
        scores.append(score)
        reasons.append("; ".join(why))
    best = int(np.argmax(scores))
    if scores[best] < FLOOR:
        return Route(None, your_story.title, 0.5, "no act is close enough in meaning")
    if scores[best] < story + MARGIN:
        return Route(None, your_story.title, 0.5, "as close to your life in general as to any act")
    confidence = round(min(0.95, 0.5 + (scores[best] - max(story, FLOOR)) * 2), 2)
    return Route(acts[best].id, acts[best].title, confidence, reasons[best])
