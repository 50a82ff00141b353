"""Memories as reasoning context (seed 003, phases 4 and 5): every request is classified,
decomposed and verified against the member's memories, each stage leaves the memories that
shaped it on its recall trail, corrections are learnt at once, and Your Story's recurring themes
say who the member is.

    context.py   what a stage reads: its recall, the open threads, the corrections
    offline.py   the stages without a model (deterministic rules)
    stages.py    classify / decompose / verify, with Ollama when it answers
    trail.py     the why, read back: explain a reading, a memory's influence chain
    learning.py  corrections and outcomes
    identity.py  the themes of Your Story
"""

from conversations.reasoning.identity import identity_context, refresh_themes
from conversations.reasoning.learning import (
    last_reading,
    learn_from_outcome,
    parse_correction,
    store_immediate_correction,
)
from conversations.reasoning.stages import (
    classify_with_memory,
    decompose_with_memory,
    verify_intent_with_memory,
)
from conversations.reasoning.trail import (
    explain_classification,
    get_classification,
    influence_chain,
    reasoning_context,
    resolved,
)

__all__ = [
    "classify_with_memory",
    "decompose_with_memory",
    "explain_classification",
    "get_classification",
    "identity_context",
    "influence_chain",
    "last_reading",
    "learn_from_outcome",
    "parse_correction",
    "reasoning_context",
    "refresh_themes",
    "resolved",
    "store_immediate_correction",
    "verify_intent_with_memory",
]
