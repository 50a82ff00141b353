"""The household: first-run setup, members, and each member's settings (tokens, export)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import get_user_model, login
from django.contrib.auth.decorators import login_required, user_passes_test
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from memories import porting
from talkingrock.forms import MemberForm, TokenForm
from talkingrock.models import ApiToken

User = get_user_model()

_EXEMPT_PREFIXES = ("/setup/", "/static/", "/api/")


def household_exists() -> bool:
    return User.objects.exists()


def onboarding_middleware(get_response):
    """Until the first member exists, every page leads to the one-time setup page."""
    ready = False

    def middleware(request: HttpRequest) -> HttpResponse:
        nonlocal ready
        if not ready and not request.path.startswith(_EXEMPT_PREFIXES):
            ready = household_exists()  # once true it stays true; no query per request
            if not ready:
                return redirect("setup")
        return get_response(request)

    return middleware


def setup(request: HttpRequest) -> HttpResponse:
    """Create the first member, an admin. Gone for good once anyone exists."""
    if household_exists():
        raise Http404("This household is already set up.")
    form = MemberForm(request.POST or None, initial={"is_admin": True})
    if request.method == "POST" and form.is_valid():
        form.cleaned_data["is_admin"] = True
        user = form.save()
        login(request, user)
        messages.success(request, f"Welcome, {user.username}. Your Story starts here.")
        return redirect("home")
    return render(request, "household/setup.html", {"form": form})


def _is_admin(user) -> bool:
    return user.is_active and user.is_superuser


@login_required
@user_passes_test(_is_admin)
def members(request: HttpRequest) -> HttpResponse:
    form = MemberForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        member = form.save()
        messages.success(request, f"{member.username} has joined the household.")
        return redirect("members")
    return render(
        request,
        "household/members.html",
        {"form": form, "members": User.objects.order_by("username")},
    )


@login_required
@user_passes_test(_is_admin)
@require_POST
def member_remove(request: HttpRequest, pk: int) -> HttpResponse:
    member = get_object_or_404(User, pk=pk)
    if member == request.user:
        messages.error(request, "You cannot remove yourself.")
    else:
        member.delete()
        messages.success(request, f"{member.username} and everything they stored were removed.")
    return redirect("members")


@login_required
def settings_page(request: HttpRequest) -> HttpResponse:
    form = TokenForm(request.POST or None)
    new_token = None
    if request.method == "POST" and form.is_valid():
        _, new_token = ApiToken.issue(owner=request.user, name=form.cleaned_data["name"])
        form = TokenForm()
    return render(
        request,
        "household/settings.html",
        {
            "form": form,
            "new_token": new_token,  # shown once, never again
            "tokens": ApiToken.objects.filter(owner=request.user),
            "api_url": request.build_absolute_uri(reverse("api-tools")),
        },
    )


@login_required
@require_POST
def token_revoke(request: HttpRequest, pk: int) -> HttpResponse:
    token = get_object_or_404(ApiToken, pk=pk, owner=request.user)
    token.delete()
    messages.success(request, f"Token “{token.name}” revoked.")
    return redirect("settings")


@login_required
def export_download(request: HttpRequest, fmt: str) -> HttpResponse:
    if fmt not in porting.EXPORT_FORMATS:
        raise Http404("Unknown export format.")
    body, content_type, extension = porting.export_memories(owner=request.user, fmt=fmt)
    response = HttpResponse(body, content_type=content_type)
    filename = f"talkingrock-{request.user.username}.{extension}"
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response
