"""What a recall returns: the hits, each with the parts of its score, and those parts as the
sentences people read ("keywords #1 (BM25 3.20)", "previously: “butcher block”")."""

from __future__ import annotations

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
        """The components as short sentences, for people."""
        return explain(self.components)


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


def _day(iso: str) -> str:
    try:
        return spoken.spoken(date.fromisoformat(iso))
    except ValueError:
        return iso
