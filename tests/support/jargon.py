"""What a member must not read outside a "Details" fold (issue 24): ids, scores, engines'
failures, stage and type names as the code spells them. One list for the page tests
(tests/test_plain_words.py) and the browser's walk (tests/browser/test_household_week.py)."""

from __future__ import annotations

import re

JARGON = re.compile(
    r"\[id:\d+\]|BM25|similarity|confidence|Question Opened|stream ×|not available|"
    r"Stage: |\bQueued\b|\bquestion_opened\b|\bwaiting_on\b",
    re.I,
)


def jargon_in(text: str) -> list[str]:
    """The jargon ``text`` holds, as it is written there."""
    return [found.group(0) for found in JARGON.finditer(text)]
