"""All raw SQL of the memories app: the keyword query, its sanitiser and the prune ranking.

Ranking (seed 001):  rank = bm25 × exp(score × SCORE_FACTOR) × 1 / (1 + days × RECENCY_PER_DAY)
where bm25 is FTS5's relevance negated (higher is better) and days counts from ``last_hit_at``,
else ``created_at``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime

from django.db import connection
from django.utils import timezone

# exp(0.2 × score): score 3 → 1.82×, −1 → 0.82×, −5 → 0.37×. Demotion really pushes down.
SCORE_FACTOR = 0.2
# A memory untouched for 100 days ranks at half the weight of one touched today.
RECENCY_PER_DAY = 0.01
# bm25 column weights for (content, tags, source): tags are keywords the writer chose on purpose,
# the source column is provenance and only breaks ties.
BM25_WEIGHTS = (1.0, 2.0, 0.2)
# An OR of hundreds of terms costs a scan per term and ranks no better; longer queries keep the
# first MAX_TERMS distinct words and say so.
MAX_TERMS = 16

_URL = re.compile(r"\b(?:[a-z][a-z0-9+.-]*://|www\.)\S+", re.IGNORECASE)
_NOT_WORD = re.compile(r"[^\w\s]|_")


@dataclass(frozen=True)
class SanitisedQuery:
    match: str  # the FTS5 MATCH expression, empty when nothing is left to search for
    terms: tuple[str, ...]
    truncated: bool


def sanitise(text: str) -> SanitisedQuery:
    """Turn any text into a safe FTS5 expression: the seed's six steps, de-duplicated.

    1. strip URLs; 2. split hyphens; 3. drop punctuation and FTS5 operators' characters;
    4. drop one-character tokens; 5. quote each word; 6. join with OR.
    """
    text = _URL.sub(" ", text or "")
    text = text.replace("-", " ")
    text = _NOT_WORD.sub(" ", text)
    terms: list[str] = []
    seen: set[str] = set()
    for token in text.split():
        if len(token) < 2 or token.casefold() in seen:
            continue
        seen.add(token.casefold())
        terms.append(token)
    truncated = len(terms) > MAX_TERMS
    terms = terms[:MAX_TERMS]
    return SanitisedQuery(
        match=" OR ".join(f'"{term}"' for term in terms),
        terms=tuple(terms),
        truncated=truncated,
    )


@dataclass(frozen=True)
class RankedHit:
    memory_id: int
    bm25: float
    score_weight: float
    recency: float
    days: float
    rank: float

    @property
    def factors(self) -> dict[str, float]:
        return {
            "bm25": _significant(self.bm25),
            "score_weight": _significant(self.score_weight),
            "recency": _significant(self.recency),
            "days": round(self.days, 3),
        }


def _significant(value: float, digits: int = 6) -> float:
    return float(f"{value:.{digits}g}")


def _utc_text(moment: datetime) -> str:
    return timezone.make_naive(moment, UTC).isoformat(" ")


# FTS-first: the MATCH runs once inside a materialised CTE and the memories are looked up by
# primary key. Letting the planner drive from the owner index instead re-runs the FTS query per
# row: 5.4 s against 8 ms on 20k rows (TECH_NOTES §2.2). tests/test_memory_query.py pins the plan.
KEYWORD_QUERY = """
WITH hits AS MATERIALIZED (
    SELECT rowid AS id, -bm25(memory_fts, %s, %s, %s) AS bm25
    FROM memory_fts
    WHERE memory_fts MATCH %s
),
ranked AS (
    SELECT m.id AS id, hits.bm25 AS bm25,
           exp(m.score * %s) AS score_weight,
           max(julianday(%s) - julianday(coalesce(m.last_hit_at, m.created_at)), 0) AS days
    FROM hits CROSS JOIN memories_memory AS m ON m.id = hits.id
    WHERE m.owner_id = %s AND m.status = 'confirmed' {archived_filter}
)
SELECT id, bm25, score_weight, 1.0 / (1 + days * %s) AS recency, days,
       bm25 * score_weight / (1 + days * %s) AS rank
FROM ranked
ORDER BY rank DESC, id DESC
LIMIT %s
"""


def _keyword_sql(*, include_archived: bool) -> str:
    return KEYWORD_QUERY.format(
        archived_filter="" if include_archived else "AND m.archived_at IS NULL"
    )


def _keyword_params(match, owner_id, now, limit) -> list:
    return [
        *BM25_WEIGHTS,
        match,
        SCORE_FACTOR,
        _utc_text(now),
        owner_id,
        RECENCY_PER_DAY,
        RECENCY_PER_DAY,
        limit,
    ]


def keyword_search(
    *, owner_id: int, match: str, limit: int, include_archived: bool, now: datetime
) -> list[RankedHit]:
    """Rank the owner's memories matching an already-sanitised FTS5 expression."""
    if not match:
        return []
    with connection.cursor() as cursor:
        cursor.execute(
            _keyword_sql(include_archived=include_archived),
            _keyword_params(match, owner_id, now, limit),
        )
        return [RankedHit(*row) for row in cursor.fetchall()]


def explain_keyword_search(
    *, owner_id: int, match: str, include_archived: bool = False
) -> list[str]:
    """The query plan of ``keyword_search``, one detail string per step, for the plan test."""
    with connection.cursor() as cursor:
        cursor.execute(
            "EXPLAIN QUERY PLAN " + _keyword_sql(include_archived=include_archived),
            _keyword_params(match, owner_id, timezone.now(), 5),
        )
        return [row[-1] for row in cursor.fetchall()]


PRUNE_CANDIDATES = """
SELECT id FROM memories_memory
WHERE archived_at IS NULL AND status = 'confirmed'
ORDER BY exp(score * %s) / (1 + max(julianday(%s) - julianday(coalesce(last_hit_at, created_at)), 0) * %s) ASC,
         id ASC
LIMIT %s
"""


def prune_candidates(*, count: int, now: datetime) -> list[int]:
    """Ids of the ``count`` live memories with the lowest score-weight × recency, all members."""
    with connection.cursor() as cursor:
        cursor.execute(PRUNE_CANDIDATES, [SCORE_FACTOR, _utc_text(now), RECENCY_PER_DAY, count])
        return [row[0] for row in cursor.fetchall()]


def database_size() -> int:
    """Bytes used by the main database: page count × page size (free pages included)."""
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA page_count")
        pages = cursor.fetchone()[0]
        cursor.execute("PRAGMA page_size")
        return pages * cursor.fetchone()[0]
