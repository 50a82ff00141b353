from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin

from talkingrock.admin_mixins import OwnedRowsAdmin
from talkingrock.models import ApiToken

User = get_user_model()
admin.site.site_header = "Talking Rock administration"
admin.site.unregister(User)


@admin.register(User)
class MemberAdmin(OwnedRowsAdmin, UserAdmin):
    """Members: staff see and edit only themselves; superusers manage the household."""

    owner_field = "pk"
    list_display = ["username", "email", "is_staff", "is_superuser", "last_login"]


@admin.register(ApiToken)
class ApiTokenAdmin(OwnedRowsAdmin, admin.ModelAdmin):
    list_display = ["name", "hint", "owner", "created_at", "last_used_at"]
    list_select_related = ["owner"]
    readonly_fields = ["hint", "created_at", "last_used_at"]

    def has_add_permission(self, request):
        return False  # tokens are issued on the settings page, where the secret is shown once
