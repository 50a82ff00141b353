"""The people page's groups: the member's entities by what they are (the view has left out the
days and the "X and Y" pairs stored before the extraction rules did: memories/entities.py).

A filter, because the page lists what its view paginates: ``{% with groups=page|people %}``.
"""

from __future__ import annotations

from django import template

register = template.Library()

# Headings, in the page's order, and the entity kinds under each.
GROUPS = (
    ("People", ("person",)),
    ("Places", ("place",)),
    ("Projects and organisations", ("project", "organisation")),
    ("Other names", ("other",)),
)


@register.filter
def people(entities) -> list[tuple[str, list]]:
    """(heading, entities) for each group that has any, the entities in the order given."""
    groups = [(heading, [e for e in entities if e.kind in kinds]) for heading, kinds in GROUPS]
    return [(heading, rows) for heading, rows in groups if rows]
