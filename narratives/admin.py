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

    def has_view_permission(self, request, obj=None):
        # ``obj`` is the parent narrative. Staff hold no model permission on the through
        # table, so without this only superusers saw the links; the owner sees them as
        # OwnedRowsAdmin lets them see the narrative itself.
        if request.user.is_superuser:
            return True
        owns = obj is None or obj.owner_id == request.user.pk
        return request.user.is_active and request.user.is_staff and owns


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
