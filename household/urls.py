from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

from conversations import views as conversation_views
from household import api, find_views
from household import members as household

urlpatterns = [
    path("", conversation_views.home, name="home"),
    path("setup/", household.setup, name="setup"),
    path("members/", household.members, name="members"),
    path("members/<int:pk>/reset/", household.member_reset, name="member-reset"),
    path("members/<int:pk>/remove/", household.member_remove, name="member-remove"),
    path("settings/", household.settings_page, name="settings"),
    path("find/", find_views.find, name="find"),
    path("engine/", household.engine, name="engine"),
    path("settings/tokens/<int:pk>/revoke/", household.token_revoke, name="token-revoke"),
    path("settings/export/<str:fmt>/", household.export_download, name="export"),
    path("accounts/login/", household.SignInView.as_view(), name="login"),
    path("accounts/password/", household.PasswordChangeView.as_view(), name="password-change"),
    path(
        "accounts/reset/<str:uidb64>/<str:token>/",
        household.ResetLinkView.as_view(),
        name="reset-link",
    ),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("api/tools", api.list_tools, name="api-tools"),
    path("api/tools/<str:name>", api.run_tool, name="api-tool"),
    path("admin/", admin.site.urls),
    path("", include("conversations.urls")),
    path("", include("memories.urls")),
    path("", include("narratives.urls")),
]
