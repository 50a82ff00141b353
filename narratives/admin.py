from django.contrib import admin

from narratives.models import Narrative, NarrativeMemory
from talkingrock.admin_mixins import OwnedInline, OwnedRowsAdmin


class LinkedMemories(OwnedInline, admin.TabularInline):
    # The owner sees the links as OwnedRowsAdmin lets them see the narrative itself; staff
    # hold no model permission on the through table, and need none (OwnedInline).
    model = NarrativeMemory
    fields = ["position", "memory"]
    readonly_fields = fields


@admin.register(Narrative)
class NarrativeAdmin(OwnedRowsAdmin, admin.ModelAdmin):
    """Read-only for everyone: a narrative is a fact about what happened (seed 000)."""

    list_display = ["id", "summary", "topic", "owner", "previous", "starts_topic", "created_at"]
    list_display_links = ["id", "summary"]
    list_select_related = ["owner", "previous"]
    search_fields = ["summary", "topic"]
    date_hierarchy = "created_at"
    inlines = [LinkedMemories]
    fields = [
        "owner",
        "summary",
        "topic",
        "previous",
        "starts_topic",
        "conversation",
        "engine",
        "created_at",
    ]
    readonly_fields = fields
    may_add = may_change = may_delete = False
