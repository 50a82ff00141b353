"""The memories app's models, by what they hold: acts (act.py), the memory itself (memory.py), the entity graph
and co-recall links (graph.py), recall trails (recall.py), items and state deltas (items.py),
consolidation's observations, their history and dreams (observations.py), what the household
shares (sharing.py)."""

from memories.models.act import Act
from memories.models.graph import Entity, MemoryLink, Mention
from memories.models.items import MemoryItem, StateDelta
from memories.models.memory import Memory, VectorClock, content_hash
from memories.models.observations import ConsolidationRun, Dream, Observation, ObservationChange
from memories.models.recall import InfluenceType, Recall, RecallHit
from memories.models.sharing import Share, ShareChange, SharedAct

__all__ = [
    "Act",
    "ConsolidationRun",
    "Dream",
    "Entity",
    "InfluenceType",
    "Memory",
    "MemoryItem",
    "MemoryLink",
    "Mention",
    "Observation",
    "ObservationChange",
    "Recall",
    "RecallHit",
    "Share",
    "ShareChange",
    "SharedAct",
    "StateDelta",
    "VectorClock",
    "content_hash",
]
