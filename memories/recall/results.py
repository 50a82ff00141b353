"""What a recall returns: the hits, each with the parts of its score, and those parts said two
ways: in household words on the page ("found because you mentioned “Dave” and “quote”") and in
full, with the numbers, for the details fold and the trail ("keywords #1 (BM25 3.20)")."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from memories.consolidation.context import ObservedHit
from memories.consolidation.context import block as observation_block
from memories.models import Memory
from talkingrock.language import spoken
from talkingrock.language.dates import Window


@dataclass
class Hit:
    memory_id: int
    memory: Memory
    score: float
    components: dict[str, Any]
    weak: bool = False  # below the relevance floor (floor.py): shown apart, if at all

    @property
    def why(self) -> list[str]:
        """The components as short phrases with their numbers: the details behind a hit."""
        return explain(self.components)

    def because(self, terms: tuple[str, ...] = ()) -> str:
        """Why it was found, in household words, from the query's words it holds."""
        return found_because(self.components, words_in(self.memory, terms))


@dataclass
class RecallResult:
    query: str
    hits: list[Hit]
    window: Window | None = None
    message: str = ""
    recall_id: int | None = None
    terms: tuple[str, ...] = ()
    entities: list[str] = field(default_factory=list)
    # Consolidation's observations that bear on the query (memories/consolidation/context.py).
    observations: list[ObservedHit] = field(default_factory=list)

    @property
    def strong(self) -> list[Hit]:
        """The hits that clear the relevance floor, best first."""
        return [hit for hit in self.hits if not hit.weak]

    @property
    def weak(self) -> list[Hit]:
        """The hits below the floor: the least bad of what there is, not an answer."""
        return [hit for hit in self.hits if hit.weak]

    @property
    def explained(self) -> list[tuple[Hit, str]]:
        """The strong hits, each with why it was found in household words (the search page)."""
        return [(hit, hit.because(self.terms)) for hit in self.strong]

    @property
    def context(self) -> str:
        """The hits as a context block for a language model, each with its [id:N]."""
        observed = observation_block(self.observations)
        if not self.hits:
            return "\n\n".join(filter(None, ["No memories bear on this.", observed]))
        lines = ["Memories that may bear on this (most relevant first):"]
        for hit in self.hits:
            memory = hit.memory
            when = (memory.happened_at or memory.created_at).date().isoformat()
            lines.append(f"- [id:{memory.pk}] ({when}) {line_of(hit)}")
        return "\n\n".join(filter(None, ["\n".join(lines), observed]))


def line_of(hit: Hit) -> str:
    """A hit's text for a model's context, with what it replaced or what replaced it:
    "Quartz worktops (previously: “butcher block”, changed 2026-11-12)"."""
    text = " ".join(hit.memory.content.split())
    if hit.memory.kind == Memory.Kind.SAID:
        text = f"The member said: “{text}”"
    elif hit.memory.kind == Memory.Kind.REPLY:
        text = f"You replied: “{text}”"
    for earlier in hit.components.get("replaces", [])[:1]:
        text += f" (previously: “{earlier['previously']}”, changed {earlier['changed']})"
    if replaced := hit.components.get("replaced"):
        text += f" (no longer current: replaced on {replaced['on']} by [id:{replaced['by']}])"
    elif changed := hit.components.get("changed_later"):
        text += f" (what it decided changed later: see [id:{changed['by']}])"
    return text


def explain(components: dict[str, Any]) -> list[str]:
    """Why a hit matched, as short phrases: which lists and ranks, the entity path, the time."""
    reasons = []
    if said := components.get("said"):
        who = "you said" if said["by"] == "you" else "the assistant said"
        on = f", {_day(said['on'])}" if said.get("on") else ""
        reasons.append(f"{who} it in conversation {said['conversation']}{on}")
    if keywords := components.get("keywords"):
        reasons.append(f"keywords #{keywords['rank']} (BM25 {keywords['bm25']:.2f})")
    if meaning := components.get("meaning"):
        similarity = meaning.get("similarity")
        rank = f" #{meaning['rank']}" if "rank" in meaning else ""
        if similarity is not None:
            reasons.append(f"meaning{rank} (similarity {similarity:.2f})")
    if neighbours := components.get("neighbours"):
        if neighbours.get("joined"):
            reasons.append("said right before or after a match")
        elif source := neighbours.get("from_1"):
            reasons.append(f"next to [id:{source}]")
    if conversation := components.get("conversation"):
        group = "session" if str(conversation["id"]).startswith("session:") else "conversation"
        reasons.append(f"same {group} as [id:{conversation['best']}]")
    if window := components.get("time"):
        reasons.append(f"in the time asked about ({window['phrase']})")
    if named := components.get("named"):
        reasons.append(f"mentions {', '.join(named)}")
    if entity := components.get("entity"):
        reasons.append(f"shares {entity['via']} with [id:{entity['from'][0]}]")
    if link := components.get("link"):
        reasons.append(f"recalled together with [id:{link['from']}] before")
    for earlier in components.get("replaces", []):
        reasons.append(f"previously: “{earlier['previously']}”, changed {earlier['changed']}")
    if older := components.get("older_value"):
        reasons.append(f"an older value of {older['subject']} than [id:{older['newer']}]")
    if replaced := components.get("replaced"):
        reasons.append(f"replaced on {replaced['on']} by [id:{replaced['by']}]")
    if again := components.get("told_again"):
        reasons.append(f"below [id:{again['by']}], a later word on the same thing")
    if kept := components.get("kept_first"):
        reasons.append(f"below [id:{kept['by']}], which you kept and answers as well")
    if changed := components.get("changed_later"):
        reasons.append(f"below [id:{changed['by']}], which changed what it decided")
    return reasons


# Porter stemming lets "quotes" find "quote": a query word counts as one a memory holds when a
# word of the memory starts with the word's stem (cut to this many letters at most from its end).
_STEM_CUT = 3
_WORD = re.compile(r"\w+")
# Words that carry no subject: "you mentioned “is” and “the”" would say nothing.
_SMALL_WORDS = frozenset(
    """a about all an and any are as at be been but by can could did do does for from had has
    have he her his how i if in is it its me my no not of on or our she so some that the their
    them then there they this to us was we were what when where which who why will with would
    you your""".split()
)


def words_in(memory: Memory, terms: tuple[str, ...]) -> list[str]:
    """The query's words (as typed) that the memory's words or tags hold, for "you mentioned"."""
    held = {word.casefold() for word in _WORD.findall(f"{memory.content} {memory.tags or ''}")}
    found = []
    for term in terms:
        if term.casefold() in _SMALL_WORDS:
            continue
        stem = term.casefold()
        stem = stem[: max(len(stem) - _STEM_CUT, 3)] if len(stem) > 4 else stem
        if any(word.startswith(stem) for word in held):
            found.append(term)
    return found


def _and(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else f"{', '.join(parts[:-1])} and {parts[-1]}"


def found_because(components: dict[str, Any], words: list[str] = ()) -> str:
    """Why a hit was found, as a household sentence with no numbers or ids: "Found because you
    mentioned “Dave” and “quote”; it is close in meaning to what you asked." """
    reasons = []
    named = list(components.get("named") or [])
    mentioned = named + [w for w in words if w.casefold() not in " ".join(named).casefold()]
    if mentioned:
        reasons.append("you mentioned " + _and([_quoted(word, named) for word in mentioned]))
    elif components.get("keywords"):
        reasons.append("it has words you used")
    if said := components.get("said"):
        who = "you said it" if said.get("by") == "you" else "Talking Rock said it"
        reasons.append(
            f"{who} in a conversation" + (f", {_day(said['on'])}" if said.get("on") else "")
        )
    if components.get("meaning"):
        reasons.append("it is close in meaning to what you asked")
    if neighbours := components.get("neighbours"):
        reasons.append(
            "it was said right before or after a match"
            if neighbours.get("joined")
            else "it sits next to another match"
        )
    if components.get("conversation"):
        reasons.append("it comes from the same conversation as another match")
    if window := components.get("time"):
        reasons.append(f"it is from the time you asked about (“{window.get('phrase', '')}”)")
    if entity := components.get("entity"):
        reasons.append(f"it also mentions {entity.get('via', 'a name')}, as another match does")
    if components.get("link"):
        reasons.append("it was found together with another match before")
    if not reasons:
        return ""
    notes = _notes(components)
    return f"Found because {'; '.join(reasons)}." + (f" {notes}" if notes else "")


def keyword_because(memory: Memory, terms: tuple[str, ...]) -> str:
    """Why a keyword search found a memory, in words: the query's words it holds."""
    return found_because({"keywords": True}, words_in(memory, terms))


def _quoted(word: str, named: list[str]) -> str:
    return word if word in named else f"“{word}”"


def _notes(components: dict[str, Any]) -> str:
    """What the ranking knows beside why: it was replaced, or a later word comes first."""
    if earlier := components.get("replaces"):
        return f"Previously “{earlier[0]['previously']}”, changed {_day(earlier[0]['changed'])}."
    if replaced := components.get("replaced"):
        return f"It was replaced on {_day(replaced['on'])} by a later one."
    if components.get("older_value") or components.get("told_again"):
        return "A later word on the same thing comes first."
    if components.get("changed_later"):
        return "What it decided changed later."
    if components.get("kept_first"):
        return "One you kept answers as well, and comes first."
    return ""


def _day(iso: str) -> str:
    try:
        return spoken.spoken(date.fromisoformat(iso))
    except ValueError:
        return iso
