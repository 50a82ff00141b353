"""The raw SQL of the entity graph that recall walks: the member's entities a query names, the
entities of a few memories, the memories that mention an entity, and which memories speak of
which entities (memories/recall/steps.py). The keyword search's SQL is in memories/search.py,
the vectors' in memories/vector_search.py.
"""

from __future__ import annotations

import json

from django.db import connection

# --- the entity graph, for recall ---------------------------------------------------------------
# Each is one statement over memories_mention's (entity_id, memory_id) index: recall asks these
# for every query, where the ORM's joins and per-entity queries cost a few milliseconds.


def entities_named(*, owner_id: int, keys: list[str]) -> list[tuple[int, str, str, int]]:
    """The owner's entities whose normalised name is one of ``keys``: (id, name, key, mentions)."""
    if not keys:
        return []
    with connection.cursor() as cursor:
        cursor.execute(
            """
            SELECT e.id, e.name, e.normalized,
                   (SELECT count(*) FROM memories_mention AS m WHERE m.entity_id = e.id)
            FROM memories_entity AS e
            WHERE e.owner_id = %s AND e.normalized IN (SELECT value FROM json_each(%s))
            """,
            [owner_id, json.dumps(keys)],
        )
        return cursor.fetchall()


def entities_of(*, owner_id: int, memory_ids: list[int]) -> list[tuple[int, str, int, int]]:
    """The entities these memories mention: (entity id, name, mentions in all, memory id)."""
    if not memory_ids:
        return []
    with connection.cursor() as cursor:
        cursor.execute(
            """
            SELECT e.id, e.name,
                   (SELECT count(*) FROM memories_mention AS a WHERE a.entity_id = e.id),
                   s.memory_id
            FROM json_each(%s) AS j
            CROSS JOIN memories_mention AS s ON s.memory_id = j.value
            CROSS JOIN memories_entity AS e ON e.id = s.entity_id
            WHERE e.owner_id = %s
            """,
            [json.dumps(memory_ids), owner_id],
        )
        return cursor.fetchall()


def mentioning(*, entity_ids: list[int], per_entity: int) -> list[tuple[int, int]]:
    """Up to ``per_entity`` memories (newest first) that mention each entity: (entity, memory)."""
    if not entity_ids:
        return []
    with connection.cursor() as cursor:
        cursor.execute(
            """
            SELECT entity_id, memory_id FROM (
                SELECT entity_id, memory_id,
                       row_number() OVER (PARTITION BY entity_id ORDER BY memory_id DESC) AS n
                FROM memories_mention
                WHERE entity_id IN (SELECT value FROM json_each(%s))
            ) WHERE n <= %s
            """,
            [json.dumps(entity_ids), per_entity],
        )
        return cursor.fetchall()


def mentions_among(*, memory_ids: list[int], entity_ids: list[int]) -> list[tuple[int, int]]:
    """Which of ``memory_ids`` speak of which of ``entity_ids``: (memory, entity). A memory
    that only speaks to them ("Thanks, Mel!") does not count."""
    if not memory_ids or not entity_ids:
        return []
    with connection.cursor() as cursor:
        cursor.execute(
            """
            SELECT m.memory_id, m.entity_id
            FROM json_each(%s) AS j CROSS JOIN memories_mention AS m ON m.memory_id = j.value
            WHERE m.entity_id IN (SELECT value FROM json_each(%s)) AND NOT m.addressed
            """,
            [json.dumps(memory_ids), json.dumps(entity_ids)],
        )
        return cursor.fetchall()
