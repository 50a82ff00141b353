"""The household: first-run setup, signing in, members (added, removed, a password reset by a
link), and each member's settings (tokens, export, password resets, background work, and when
consolidation last ran for them)."""

from __future__ import annotations

from functools import wraps

from django.contrib import messages
from django.contrib.auth import get_user_model, login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse, reverse_lazy
from django.views.decorators.http import require_POST

from household import backup, passwords, throttle
from household.forms import MemberForm, SetupForm, TokenForm
from memories import insights
from talkingrock import jobs
from talkingrock.models import ApiToken

# Where the web server mounts MCP's streamable HTTP transport (household/asgi.py), shown on
# Settings beside the tokens. Here, not in mcp_server.py: this module loads in every process (its
# middleware), and the MCP SDK takes half a second to import.
MCP_PATH = "/mcp"

User = get_user_model()

_EXEMPT_PREFIXES = ("/setup/", "/static/", "/api/")


def household_exists() -> bool:
    return User.objects.exists()


def onboarding_middleware(get_response):
    """Until the first member exists, every page leads to the one-time setup page.

    A signed-in visitor proves the household exists, so their requests cost nothing extra (the
    session and user are loaded for the view anyway); only anonymous requests ask the database.
    Nothing is cached per process: a cached "ready" went stale when the members were removed
    behind a running server (a test server whose database is flushed between tests).
    """

    def middleware(request: HttpRequest) -> HttpResponse:
        if (
            not request.path.startswith(_EXEMPT_PREFIXES)
            and not request.user.is_authenticated
            and not household_exists()
        ):
            return redirect("setup")
        return get_response(request)

    return middleware


def setup(request: HttpRequest) -> HttpResponse:
    """Create the first member, an admin. Gone for good once anyone exists."""
    if household_exists():
        raise Http404("This household is already set up.")
    form = SetupForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        # IMMEDIATE transactions serialise writers: of two first visits submitting at once, the
        # second sees the first member here and gets the 404, not a second admin.
        with transaction.atomic():
            if household_exists():
                raise Http404("This household is already set up.")
            user = form.save()
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        messages.success(request, f"Welcome, {user.username}. Your Story starts here.")
        return redirect("home")
    return render(request, "household/setup.html", {"form": form})


def admin_required(view):
    """Household admins only. Signed-out visitors go to the login page; signed-in members who
    are not admins get 403 (sending them to a login page they are already past would loop)."""

    @login_required
    @wraps(view)
    def wrapper(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        if not (request.user.is_active and request.user.is_superuser):
            raise PermissionDenied("Only household admins manage members.")
        return view(request, *args, **kwargs)

    return wrapper


@admin_required
def members(request: HttpRequest) -> HttpResponse:
    """Who is in the household. Not what they stored: that is private to each member, admins
    included, so the page shows no counts of anyone's rows."""
    form = MemberForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        member = form.save()
        messages.success(request, f"{member.username} has joined the household.")
        return redirect("members")
    household = User.objects.order_by("username")
    return render(
        request,
        "household/members.html",
        {"form": form, "members": household},
        status=400 if form.errors else 200,
    )


@admin_required
def member_reset(request: HttpRequest, pk: int) -> HttpResponse:
    """GET says what a reset does; POST does it and shows the one-time link, once
    (household/passwords.py). Never the admin's own: that one is changed with the current
    password, so an open session cannot be used to take an account over."""
    member = get_object_or_404(User, pk=pk)
    if member == request.user:
        messages.error(request, "Change your own password with your current one.")
        return redirect("members")
    if request.method != "POST":
        tokens = ApiToken.objects.filter(owner=member).count()
        return render(request, "household/member_reset.html", {"member": member, "tokens": tokens})
    link = passwords.reset(member=member, by=request.user)
    url = request.build_absolute_uri(reverse("reset-link", args=[link.uidb64, link.token]))
    return render(
        request, "household/member_reset_done.html", {"member": member, "link": link, "url": url}
    )


class SignInView(auth_views.LoginView):
    """Django's sign-in, which also marks this browser as one the member uses (throttle.py)."""

    def form_valid(self, form):
        response = super().form_valid(form)
        throttle.remember_device(self.request, response, form.get_user().get_username())
        return response


class PasswordChangeView(auth_views.PasswordChangeView):
    """A member changes their own password with their current one (every member, not only
    staff, who also have the admin's page for it)."""

    template_name = "registration/password_change.html"
    success_url = reverse_lazy("settings")

    def form_valid(self, form):
        messages.success(self.request, "Your password was changed.")
        return super().form_valid(form)


class ResetLinkView(auth_views.PasswordResetConfirmView):
    """The member's one-time page from an admin's reset: they choose their own password and are
    signed in; the record notes that the link was used."""

    template_name = "registration/reset_link.html"
    post_reset_login = True
    post_reset_login_backend = "django.contrib.auth.backends.ModelBackend"
    success_url = reverse_lazy("settings")

    def form_valid(self, form):
        passwords.link_used(self.user)
        return super().form_valid(form)


@admin_required
def member_remove(request: HttpRequest, pk: int) -> HttpResponse:
    """GET asks for confirmation; POST removes the member with everything they stored."""
    member = get_object_or_404(User, pk=pk)
    if member == request.user:
        messages.error(request, "You cannot remove yourself; another admin can.")
        return redirect("members")
    if request.method == "POST":
        member.delete()
        messages.success(request, f"{member.username} and everything they stored were removed.")
        return redirect("members")
    return render(request, "household/member_remove.html", {"member": member})


@login_required
def settings_page(request: HttpRequest) -> HttpResponse:
    form = TokenForm(request.POST or None)
    new_token = None
    if request.method == "POST" and form.is_valid():
        _, new_token = ApiToken.issue(owner=request.user, name=form.cleaned_data["name"])
        form = TokenForm()
    health = jobs.health(request.user.pk)
    return render(
        request,
        "household/settings.html",
        {
            "form": form,
            "new_token": new_token,  # shown once, never again
            "tokens": ApiToken.objects.filter(owner=request.user),
            "api_url": request.build_absolute_uri(reverse("api-tools")),
            # MCP is served beside the app by household/asgi.py, not by a Django URL.
            "mcp_url": request.build_absolute_uri(MCP_PATH),
            "passes": insights.pass_status(request.user.pk),
            "health": health,
            "resets": [passwords.describe(record) for record in request.user.password_resets.all()],
            "last_error": health.last_failure and jobs.error_line(health.last_failure),
        },
    )


@login_required
def engine(request: HttpRequest) -> HttpResponse:
    """The header's engine badge alone: the page polls it, so a started Ollama shows up."""
    return render(request, "_engine.html")


@login_required
@require_POST
def token_revoke(request: HttpRequest, pk: int) -> HttpResponse:
    token = get_object_or_404(ApiToken, pk=pk, owner=request.user)
    token.delete()
    messages.success(request, f"Token “{token.name}” revoked.")
    return redirect("settings")


@login_required
def export_download(request: HttpRequest, fmt: str) -> HttpResponse:
    """JSON: everything the member owns, restorable; Markdown: their memories, to read. Only
    ever the signed-in member's own rows (household/backup.py)."""
    if fmt not in backup.EXPORT_FORMATS:
        raise Http404("Unknown export format.")
    body, content_type, extension = backup.export_memories(owner=request.user, fmt=fmt)
    response = HttpResponse(body, content_type=content_type)
    filename = f"talkingrock-{request.user.username}.{extension}"
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response
