"""The one text-cleaning rule, applied at every write boundary.

People paste from terminals, PDFs and chat apps; tools send whatever JSON allows. A NUL or an
escape character that reaches the database later breaks JSON and Markdown export, the edit form
and the FTS tokenizer's idea of a word. So every text that is stored goes through ``clean_text``:
tool arguments (talkingrock/validation.py), forms and services, and — as the last line — the
model fields themselves (talkingrock/fields.py), so no write path can skip it.

The rule: line endings become ``\\n``; C0 and C1 control characters go, except tab and newline
where a text may have lines; unpaired surrogates (which JSON can spell but UTF-8 cannot store) go.
Nothing else is touched: emoji, accents, zero-width joiners and right-to-left text are text.
"""

from __future__ import annotations

import re

from django.utils.text import Truncator

# Searches travel in the URL (GET: a result page can be bookmarked, reloaded and gone back to),
# and the web server refuses a request line longer than 8,190 bytes (gunicorn's ceiling, which
# scripts/serve.sh sets) with a bare 414 page. 500 characters of any script fit percent-encoded
# (CJK: 9 bytes each, 4,500 in all), and no search needs more: only the first 16 distinct words
# are searched. Longer text is cut here, and the page says so.
MAX_SEARCH_CHARS = 500


def search_text(value: str) -> tuple[str, bool]:
    """(the text to search for, whether it was cut to MAX_SEARCH_CHARS)."""
    value = clean_text(value, multiline=False).strip()
    return value[:MAX_SEARCH_CHARS], len(value) > MAX_SEARCH_CHARS


# C0 controls but tab and newline, DEL, C1 controls, and lone surrogates.
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]")
_CONTROL_OR_BREAK = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff\u2028\u2029]")
_BREAKS = re.compile("\r\n?|[\u2028\u2029]")


def clean_text(value: str, *, multiline: bool = True) -> str:
    """``value`` without control characters; single-line text gets spaces for line breaks."""
    if multiline:
        return _CONTROL.sub("", _BREAKS.sub("\n", value))
    return _CONTROL_OR_BREAK.sub(_space_or_nothing, value)


def _space_or_nothing(match: re.Match) -> str:
    return " " if match.group() in "\t\n\r\u2028\u2029" else ""


def has_control(value: str, *, multiline: bool = True) -> bool:
    return clean_text(value, multiline=multiline) != value


def clean_json(value):
    """Every string in a JSON value (keys included) cleaned, the structure unchanged."""
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, dict):
        return {clean_json(key): clean_json(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [clean_json(item) for item in value]
    return value


# --- sentences --------------------------------------------------------------------------------

# A full stop that ends an abbreviation or an initial, not a sentence: "Dr.", "e.g.", "incl.",
# "J. K. Rowling".
_ABBREVIATED = re.compile(
    r"(?:\b(?:dr|mr|mrs|ms|mx|st|prof|approx|vs|etc|no|incl|inc|ltd|jr|sr|dept|est|ave|rd|mt|"
    r"tel|ref|min|max)|\be\.g|\bi\.e|\bcf|\bp\.s)\.$",
    re.I,
)
_INITIAL = re.compile(r"(?:^|\s)[A-Z]\.$")
_SENTENCE_END = re.compile(r"(?<=[.!?…])[\"')\]]*\s+")


def sentences(text: str) -> list[str]:
    """Split on . ! ? … and line breaks, keeping "Dr." and "3.5" whole (a full stop inside a
    number is not followed by a space). The offline engine parses sentence by sentence, and a
    narrative's summary must be one."""
    pieces: list[str] = []
    for line in text.splitlines():
        start = 0
        for match in _SENTENCE_END.finditer(line):
            piece = line[start : match.start()].strip()
            if _ABBREVIATED.search(piece) or _INITIAL.search(piece):
                continue
            pieces.append(piece)
            start = match.end()
        pieces.append(line[start:].strip())
    return [piece for piece in pieces if piece]


def lowered(text: str) -> str:
    """Lower case with the same length, so that spans found in it stay where they were in the
    text (a character whose lower case is longer, like "İ", is left as it is)."""
    low = text.lower()
    if len(low) != len(text):  # no character's lower case is shorter: one grew, find which
        low = "".join(c.lower() if len(c.lower()) == 1 else c for c in text)
    return low.translate(_QUOTES)


_QUOTES = str.maketrans("’‘", "''")


def shortened(text: str, *, chars: int = 0, words: int = 0) -> str:
    """``text`` on one line, cut at ``words`` words or ``chars`` characters with "…" (Django's
    Truncator): how a memory or a message is named in a line of a page."""
    cut = Truncator(" ".join(str(text).split()))
    return cut.words(words) if words else cut.chars(chars)
