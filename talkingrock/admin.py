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
    # A staff member may look at their own account but not edit it here: the form would let
    # them tick "superuser". Admins add and remove members on the Members page or here.
    staff_may_add = staff_may_change = staff_may_delete = False


@admin.register(ApiToken)
class ApiTokenAdmin(OwnedRowsAdmin, admin.ModelAdmin):
    list_display = ["name", "hint", "owner", "created_at", "last_used_at"]
    list_select_related = ["owner"]
    readonly_fields = ["hint", "created_at", "last_used_at"]

    def has_add_permission(self, request):
        return False  # tokens are issued on the settings page, where the secret is shown once
