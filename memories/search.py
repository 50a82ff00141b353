"""The raw SQL of the memories app's keyword search (its sanitiser, the per-member FTS5 query, the
prune ranking) and the conversation order. The entity graph's SQL is in memories/graph_search.py,
the vectors' in memories/vector_search.py, the DDL in memories/sql.py.

Ranking (seed 001):  rank = bm25 × exp(score × SCORE_FACTOR) × 1 / (1 + days × RECENCY_PER_DAY)
where bm25 is FTS5's relevance negated (higher is better) and days counts from ``last_hit_at``,
else ``created_at``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import wraps

from django.db import OperationalError, connection
from django.db.models.expressions import RawSQL
from django.utils import timezone

from memories import housekeeping, sql

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
        match=match_expression(tuple(terms)),
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


def utc_text(moment: datetime) -> str:
    """A moment as SQLite stores Django's datetimes: naive UTC text."""
    return timezone.make_naive(moment, UTC).isoformat(" ")


# The cost of a keyword query grows with the rows it scores (about 1 µs each, most of it
# bm25()): FTS5 has no top-k pruning. A query made of words found in most memories ("when is
# the …") scored 87k rows at 100k memories, p95 109 ms. Terms are therefore probed first and the
# rarest kept while their matches add up to at most MATCH_BUDGET rows; the words dropped are the
# ones bm25 barely weighs (IDF ≤ 2.2 above 10 % of rows, against 7–9 for the deciding words) and
# the result's message names them. The rarest term is always kept. The probe counts the member's
# own rows (their own index), so what is dropped depends on nothing another member stores.
MATCH_BUDGET = 5000


def _on_member_index(run):
    """Run ``run(owner_id, table, ...)`` on the member's keyword index; a member whose index is
    missing (created behind the signals' back, or dropped by hand) gets it built first."""

    @wraps(run)
    def wrapper(*, owner_id: int, **kwargs):
        table = sql.member_fts(owner_id)
        # No savepoint around it: a SELECT that fails leaves nothing to undo, and an atomic block
        # here would start an IMMEDIATE transaction (the write lock) for every search.
        try:
            return run(owner_id=owner_id, table=table, **kwargs)
        except OperationalError as error:
            if f"no such table: {table}" not in str(error):
                raise
        housekeeping.ensure_member_index(owner_id)
        return run(owner_id=owner_id, table=table, **kwargs)

    return wrapper


@_on_member_index
def term_match_counts(*, owner_id: int, table: str, terms: tuple[str, ...], cap: int) -> list[int]:
    """How many of the member's rows each quoted term matches, counting no further than ``cap``."""
    probe = f"(SELECT count(*) FROM (SELECT 1 FROM {table} WHERE {table} MATCH %s LIMIT %s))"
    params: list = []
    for term in terms:
        params += [f'"{term}"', cap]
    with connection.cursor() as cursor:
        cursor.execute("SELECT " + ", ".join([probe] * len(terms)), params)
        return list(cursor.fetchone())


@_on_member_index
def ids_naming(*, owner_id: int, table: str, name: str, limit: int) -> list[int]:
    """The member's newest ``limit`` memories whose words hold ``name`` as a phrase, however
    it is capitalised ("priya" for Priya): the keyword index answers, no row is scanned."""
    terms = sanitise(name).terms
    if not terms:
        return []
    phrase = '"' + " ".join(terms) + '"'
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT rowid FROM {table} WHERE {table} MATCH %s ORDER BY rowid DESC LIMIT %s",
            [phrase, limit],
        )
        return [row[0] for row in cursor.fetchall()]


def within_budget(
    terms: tuple[str, ...], *, owner_id: int, budget: int | None = None
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Split terms into (kept, dropped): the rarest first, while their matches fit ``budget``."""
    if len(terms) < 2:
        return terms, ()
    budget = MATCH_BUDGET if budget is None else budget
    counts = term_match_counts(owner_id=owner_id, terms=terms, cap=budget + 1)
    kept: set[int] = set()
    total = 0
    for index in sorted(range(len(terms)), key=lambda i: counts[i]):
        if kept and total + counts[index] > budget:
            break
        kept.add(index)
        total += counts[index]
    return (
        tuple(t for i, t in enumerate(terms) if i in kept),
        tuple(t for i, t in enumerate(terms) if i not in kept),
    )


def match_expression(terms: tuple[str, ...]) -> str:
    """Steps 5 and 6 of the sanitiser: each word quoted, all of them OR-ed."""
    return " OR ".join(f'"{term}"' for term in terms)


def match_prefixes(terms: tuple[str, ...]) -> str:
    """Each word as the start of one, all of them OR-ed: a stem cut shorter than the index's
    own ("clos" of "closing", which the index keeps as "close") still finds its words."""
    return " OR ".join(f'"{term}"*' for term in terms)


def match_figures(figures: tuple[str, ...]) -> str:
    """All the figures of one value required, each as it may be written: "1,200" is "1" and
    "200" to the tokenizer, or "1200" written without the comma; "3" and "30" of "3:30"."""
    both = []
    for figure in figures:
        parts = [part for part in figure.split(",") if part]
        if len(parts) > 1:
            both.append("(" + " AND ".join(f'"{p}"' for p in parts) + f' OR "{"".join(parts)}")')
        else:
            both.append(f'"{"".join(parts)}"')
    return " AND ".join(both)


# memory_query (seed 001's keyword tool) ranks the memories a member keeps; what was said is
# recall's evidence, not a memory to reinforce or demote.
# FTS-first: the member's index drives the join (CROSS JOIN pins the order) and each match is
# looked up by primary key. Letting the planner drive from the owner index instead re-runs the FTS
# query per row: 5.4 s against 8 ms on 20k rows (TECH_NOTES §2.2); tests/test_memory_query.py
# pins the plan. bm25() sits in the select list of the filtered rows, so drafts and archived rows
# are never scored. The index holds only the member's rows, so bm25's document frequencies and
# average lengths are the member's own; the owner test stays as a second lock.
KEYWORD_QUERY = """
SELECT id, bm25, score_weight, 1.0 / (1 + days * %s) AS recency, days,
       bm25 * score_weight / (1 + days * %s) AS rank
FROM (
    SELECT m.id AS id, -bm25({fts}, %s, %s, %s) AS bm25,
           exp(m.score * %s) AS score_weight,
           max(julianday(%s) - julianday(coalesce(m.last_hit_at, m.created_at)), 0) AS days
    FROM {fts} CROSS JOIN memories_memory AS m ON m.id = {fts}.rowid
    WHERE {fts} MATCH %s AND m.owner_id = %s AND m.status = 'confirmed' {archived_filter}
          AND m.kind IN {kinds}
)
ORDER BY rank DESC, id DESC
LIMIT %s
"""


KEPT_KINDS = "('memory', 'fact')"
SAID_KINDS = "('said', 'reply')"  # what was said, for the search page's "what was said"


def _keyword_sql(table: str, *, include_archived: bool, said: bool = False) -> str:
    return KEYWORD_QUERY.format(
        fts=table,
        archived_filter="" if include_archived else "AND m.archived_at IS NULL",
        kinds=SAID_KINDS if said else KEPT_KINDS,
    )


def _keyword_params(match, owner_id, now, limit) -> list:
    return [
        RECENCY_PER_DAY,
        RECENCY_PER_DAY,
        *BM25_WEIGHTS,
        SCORE_FACTOR,
        utc_text(now),
        match,
        owner_id,
        limit,
    ]


@_on_member_index
def keyword_search(
    *,
    owner_id: int,
    table: str,
    match: str,
    limit: int,
    include_archived: bool,
    now: datetime,
    said: bool = False,
) -> list[RankedHit]:
    """Rank the owner's memories (``said``: what they said and were told in conversations)
    matching an already-sanitised FTS5 expression."""
    if not match:
        return []
    with connection.cursor() as cursor:
        cursor.execute(
            _keyword_sql(table, include_archived=include_archived, said=said),
            _keyword_params(match, owner_id, now, limit),
        )
        return [RankedHit(*row) for row in cursor.fetchall()]


@_on_member_index
def keyword_candidates(
    *, owner_id: int, table: str, match: str, limit: int, include_archived: bool
) -> list[tuple[int, float]]:
    """The owner's confirmed memories matching ``match``, best BM25 first: (id, bm25). The
    FTS list of hybrid recall, which weighs score and time itself, after fusion."""
    if not match:
        return []
    archived = "" if include_archived else "AND m.archived_at IS NULL"
    with connection.cursor() as cursor:
        cursor.execute(
            f"""
            SELECT m.id, -bm25({table}, %s, %s, %s) AS bm25
            FROM {table} CROSS JOIN memories_memory AS m ON m.id = {table}.rowid
            WHERE {table} MATCH %s AND m.owner_id = %s AND m.status = 'confirmed' {archived}
            ORDER BY bm25 DESC, m.id DESC
            LIMIT %s
            """,
            [*BM25_WEIGHTS, match, owner_id, limit],
        )
        return cursor.fetchall()


@_on_member_index
def explain_keyword_search(
    *, owner_id: int, table: str, match: str, include_archived: bool = False
) -> list[str]:
    """The query plan of ``keyword_search``, one detail string per step, for the plan test."""
    with connection.cursor() as cursor:
        cursor.execute(
            "EXPLAIN QUERY PLAN " + _keyword_sql(table, include_archived=include_archived),
            _keyword_params(match, owner_id, timezone.now(), 5),
        )
        return [row[-1] for row in cursor.fetchall()]


@_on_member_index
def indexed_ids(*, owner_id: int, table: str, match: str) -> list[int]:
    """Every row of the member's index matching ``match`` (tests and the integrity checks)."""
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT rowid FROM {table} WHERE {table} MATCH %s ORDER BY rowid", [match])
        return [row[0] for row in cursor.fetchall()]


PRUNE_CANDIDATES = """
SELECT id FROM memories_memory
WHERE archived_at IS NULL AND status = 'confirmed' AND kind IN ('memory', 'fact')
ORDER BY exp(score * %s) / (1 + max(julianday(%s) - julianday(coalesce(last_hit_at, created_at)), 0) * %s) ASC,
         id ASC
LIMIT %s
"""


def hours_since(at: datetime) -> dict[str, RawSQL]:
    """Hours since each memory was last useful and since it happened, computed by SQLite: a few
    hundred candidates' dates as Python datetimes cost more than the rest of the weighing."""
    now = utc_text(at)
    return {
        "hours_since_use": RawSQL(
            "(julianday(%s) - julianday(coalesce(last_hit_at, memories_memory.created_at))) * 24",
            [now],
        ),
        "hours_old": RawSQL(
            "(julianday(%s) - julianday(coalesce(happened_at, memories_memory.created_at))) * 24",
            [now],
        ),
    }


def prune_candidates(*, count: int, now: datetime) -> list[int]:
    """Ids of the ``count`` live memories with the lowest score-weight × recency, all members."""
    with connection.cursor() as cursor:
        cursor.execute(PRUNE_CANDIDATES, [SCORE_FACTOR, utc_text(now), RECENCY_PER_DAY, count])
        return [row[0] for row in cursor.fetchall()]


def database_size() -> int:
    """Bytes used by the main database: page count × page size (free pages included)."""
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA page_count")
        pages = cursor.fetchone()[0]
        cursor.execute("PRAGMA page_size")
        return pages * cursor.fetchone()[0]


def conversation_order(*, owner_id: int, ids: list[int], include_archived: bool) -> dict:
    """For the memories in ``ids`` that came from a conversation or were stored in a session:
    every confirmed memory of those conversations and sessions, in the order they happened:
    {conversation id or "session:<name>": [memory id, …]}. A memory with a conversation belongs
    to it whatever its session says. Recall uses it to find a hit's neighbours (what was said just
    before and after) and its conversation's best match."""
    if not ids:
        return {}
    with connection.cursor() as cursor:
        cursor.execute(
            _conversation_order_sql(include_archived),
            [json.dumps(ids), owner_id, json.dumps(ids), owner_id, owner_id, owner_id],
        )
        order: dict[int | str, list[int]] = {}
        for group, memory_id, _ in cursor.fetchall():
            order.setdefault(group, []).append(memory_id)
        return order


def _conversation_order_sql(include_archived: bool) -> str:
    archived = "" if include_archived else "AND +m.archived_at IS NULL"
    # Conversations first, then their memories through memory_conversation_told, which holds
    # every column read here: the rows come from the index alone (a conversation of a member
    # whose messages are evidence has dozens). The unary "+" keeps the planner off the owner
    # index, which it otherwise walks once per conversation (39 ms, then 944 ms, for a member
    # with 40k memories, against 1 ms). Sessions go through the (owner, session) index, whose
    # condition the query must state in the index's own words (NOT (session = '')) for SQLite
    # to use it: without it the planner walked every row the member has, once per session.
    return f"""
            WITH talks AS MATERIALIZED (
                SELECT DISTINCT c.conversation_id AS id
                FROM json_each(%s) AS j CROSS JOIN memories_memory AS c ON c.id = j.value
                WHERE c.conversation_id IS NOT NULL AND c.owner_id = %s
            ),
            sessions AS MATERIALIZED (
                SELECT DISTINCT c.session AS name
                FROM json_each(%s) AS j CROSS JOIN memories_memory AS c ON c.id = j.value
                WHERE c.conversation_id IS NULL AND c.session != '' AND c.owner_id = %s
            )
            SELECT m.conversation_id, m.id, coalesce(m.happened_at, m.created_at) AS at
            FROM talks CROSS JOIN memories_memory AS m ON m.conversation_id = talks.id
            WHERE +m.owner_id = %s AND m.status = 'confirmed' {archived}
            UNION ALL
            SELECT 'session:' || m.session, m.id, coalesce(m.happened_at, m.created_at) AS at
            FROM sessions CROSS JOIN memories_memory AS m
                ON m.owner_id = %s AND m.session = sessions.name
            WHERE NOT (m.session = '') AND m.conversation_id IS NULL AND m.status = 'confirmed' {archived}
            ORDER BY 1, 3, 2
            """


def explain_conversation_order(*, owner_id: int, include_archived: bool = False) -> list[str]:
    """The query plan of ``conversation_order``, one detail string per step, for the plan test."""
    with connection.cursor() as cursor:
        cursor.execute(
            "EXPLAIN QUERY PLAN " + _conversation_order_sql(include_archived),
            ["[1]", owner_id, "[1]", owner_id, owner_id, owner_id],
        )
        return [row[-1] for row in cursor.fetchall()]
