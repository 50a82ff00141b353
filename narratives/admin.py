from django.contrib import admin

from narratives.models import Narrative, NarrativeMemory
from talkingrock.admin_mixins import OwnedRowsAdmin


class LinkedMemories(admin.TabularInline):
    model = NarrativeMemory
    fields = ["position", "memory"]
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False


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

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
