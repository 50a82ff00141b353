from django.contrib import admin

from conversations.models import Conversation, Message
from talkingrock.admin_mixins import OwnedInline, OwnedRowsAdmin


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
