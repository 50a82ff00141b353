"""The memories app's models, by what they hold: acts (act.py), the memory itself (memory.py), the entity graph
and co-recall links (graph.py), recall trails (recall.py), items and state deltas (items.py)."""

from memories.models.act import Act
from memories.models.graph import Entity, MemoryLink, Mention
from memories.models.items import MemoryItem, StateDelta
from memories.models.memory import Memory, VectorClock, content_hash
from memories.models.recall import InfluenceType, Recall, RecallHit

__all__ = [
    "Act",
    "Entity",
    "InfluenceType",
    "Memory",
    "MemoryItem",
    "MemoryLink",
    "Mention",
    "Recall",
    "RecallHit",
    "StateDelta",
    "VectorClock",
    "content_hash",
]
