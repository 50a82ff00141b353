from django.contrib import admin

from conversations.models import Act, Conversation, Message
from talkingrock.admin_mixins import OwnedInline, OwnedRowsAdmin


@admin.register(Act)
class ActAdmin(OwnedRowsAdmin, admin.ModelAdmin):
    list_display = ["title", "owner", "status", "is_your_story", "created_at"]
    list_filter = ["status", "is_your_story"]
    list_select_related = ["owner"]
    search_fields = ["title", "description"]

    def has_delete_permission(self, request, obj=None):
        if obj is not None and obj.is_your_story:
            return False  # Your Story is permanent
        return super().has_delete_permission(request, obj)

    def get_readonly_fields(self, request, obj=None):
        readonly = list(super().get_readonly_fields(request, obj))
        if obj is not None and obj.is_your_story:
            # Your Story is never archived. The database refuses it; the form would not catch
            # it first, because is_your_story is not a form field (its check is skipped).
            readonly.append("status")
        return readonly


class MessageInline(OwnedInline, admin.TabularInline):
    """The transcript, read-only: what was said is a record, like the recall trail."""

    model = Message
    fields = ["position", "role", "content", "engine", "memories_used", "created_at"]
    readonly_fields = fields


@admin.register(Conversation)
class ConversationAdmin(OwnedRowsAdmin, admin.ModelAdmin):
    list_display = ["id", "owner", "status", "started_at", "message_count"]
    list_filter = ["status"]
    list_select_related = ["owner"]
    inlines = [MessageInline]
