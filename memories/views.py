"""Memory browser: thin views over memories.services. Every page works without JavaScript;
with HTMX, actions swap just the memory card or the results list."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_POST

from conversations.models import Act
from conversations.services import ensure_your_story
from memories import services
from memories.forms import MemoryForm, SearchForm
from memories.models import Memory

PAGE_SIZE = 20


def get_memory_for_user(request: HttpRequest, pk: int) -> Memory:
    return get_object_or_404(Memory.objects.select_related("act"), pk=pk, owner=request.user)


def get_act_for_user(request: HttpRequest, pk: int) -> Act:
    return get_object_or_404(Act, pk=pk, owner=request.user)


def _page(request: HttpRequest, queryset):
    return Paginator(queryset, PAGE_SIZE).get_page(request.GET.get("page"))


@login_required
def home(request: HttpRequest) -> HttpResponse:
    return redirect("memories:act", pk=ensure_your_story(owner=request.user).pk)


@login_required
def act_memories(request: HttpRequest, pk: int) -> HttpResponse:
    """Your Story's timeline, or one act's memories, newest first."""
    act = get_act_for_user(request, pk)
    memories = Memory.objects.filter(owner=request.user, act=act, archived_at=None).select_related(
        "act"
    )
    context = {
        "act": act,
        "acts": Act.objects.filter(owner=request.user),
        "page": _page(request, memories),
        "form": MemoryForm(owner=request.user, initial={"act": act}),
        "search_form": SearchForm(),
    }
    if request.htmx and request.GET.get("page"):
        return render(request, "memories/act.html#memory-page", context)
    return render(request, "memories/act.html", context)


@login_required
def search(request: HttpRequest) -> HttpResponse:
    form = SearchForm(request.GET)
    result = None
    if form.is_valid() and form.cleaned_data["q"]:
        result = services.memory_query(
            owner=request.user,
            query=form.cleaned_data["q"],
            limit=25,
            include_archived=form.cleaned_data["archived"],
        )
    context = {"search_form": form, "result": result}
    if request.htmx:
        return render(request, "memories/search.html#results", context)
    return render(request, "memories/search.html", context)


@login_required
def archive(request: HttpRequest) -> HttpResponse:
    memories = Memory.objects.filter(owner=request.user, archived_at__isnull=False).select_related(
        "act"
    )
    return render(
        request,
        "memories/archive.html",
        {"page": _page(request, memories.order_by("-archived_at", "-id"))},
    )


@login_required
def detail(request: HttpRequest, pk: int) -> HttpResponse:
    return render(request, "memories/detail.html", {"memory": get_memory_for_user(request, pk)})


@login_required
@require_POST
def create(request: HttpRequest) -> HttpResponse:
    form = MemoryForm(request.POST, owner=request.user)
    if form.is_valid():
        try:
            memory = services.memory_store(
                owner=request.user,
                content=form.cleaned_data["content"],
                tags=form.cleaned_data["tags"],
                source=Memory.Source.MANUAL,
                act=form.cleaned_data["act"],
            )
        except ValidationError as error:
            form.add_error("content", error)
        else:
            messages.success(request, f"Remembered [id:{memory.pk}].")
            return redirect("memories:act", pk=memory.act_id)
    act = form.cleaned_data.get("act") or ensure_your_story(owner=request.user)
    memories = Memory.objects.filter(owner=request.user, act=act, archived_at=None)
    context = {
        "act": act,
        "acts": Act.objects.filter(owner=request.user),
        "page": _page(request, memories),
        "form": form,
        "search_form": SearchForm(),
    }
    return render(request, "memories/act.html", context, status=400)


@login_required
def edit(request: HttpRequest, pk: int) -> HttpResponse:
    memory = get_memory_for_user(request, pk)
    form = MemoryForm(
        request.POST or None,
        owner=request.user,
        initial={"content": memory.content, "tags": memory.tags, "act": memory.act},
    )
    if request.method == "POST" and form.is_valid():
        try:
            services.memory_update(
                owner=request.user,
                memory_id=memory.pk,
                content=form.cleaned_data["content"],
                tags=form.cleaned_data["tags"],
                act=form.cleaned_data["act"],
            )
        except ValidationError as error:
            form.add_error("content", error)
        else:
            messages.success(request, f"Updated [id:{memory.pk}].")
            return redirect("memories:detail", pk=memory.pk)
    return render(request, "memories/edit.html", {"memory": memory, "form": form})


def _card_or_back(request: HttpRequest, memory: Memory, note: str) -> HttpResponse:
    """After an action: the updated card for HTMX, else back where the member was."""
    if request.htmx:
        return render(request, "memories/_card.html", {"memory": memory})
    messages.success(request, note)
    next_url = request.POST.get("next", "")
    if not url_has_allowed_host_and_scheme(next_url, {request.get_host()}):
        next_url = memory.get_absolute_url()
    return redirect(next_url)


@login_required
@require_POST
def reinforce(request: HttpRequest, pk: int) -> HttpResponse:
    memory = get_memory_for_user(request, pk)
    memory = services.memory_reinforce(owner=request.user, memory_id=memory.pk)
    return _card_or_back(request, memory, f"Reinforced [id:{memory.pk}]: score {memory.score}.")


@login_required
@require_POST
def demote(request: HttpRequest, pk: int) -> HttpResponse:
    memory = get_memory_for_user(request, pk)
    memory = services.memory_demote(owner=request.user, memory_id=memory.pk)
    return _card_or_back(request, memory, f"Demoted [id:{memory.pk}]: score {memory.score}.")


@login_required
@require_POST
def archive_memory(request: HttpRequest, pk: int) -> HttpResponse:
    memory = get_memory_for_user(request, pk)
    memory = services.memory_archive(owner=request.user, memory_id=memory.pk)
    return _card_or_back(
        request, memory, f"Archived [id:{memory.pk}]; restore it from the archive."
    )


@login_required
@require_POST
def restore(request: HttpRequest, pk: int) -> HttpResponse:
    memory = get_memory_for_user(request, pk)
    memory = services.memory_restore(owner=request.user, memory_id=memory.pk)
    return _card_or_back(request, memory, f"Restored [id:{memory.pk}].")


@login_required
def delete(request: HttpRequest, pk: int) -> HttpResponse:
    """GET asks for confirmation; POST deletes for real (the member's own explicit choice)."""
    memory = get_memory_for_user(request, pk)
    if request.method == "POST":
        act_id = memory.act_id
        services.memory_delete(owner=request.user, memory_id=memory.pk)
        messages.success(request, f"Deleted [id:{pk}] for good.")
        if request.htmx:
            return HttpResponse("")
        return redirect("memories:act", pk=act_id)
    return render(request, "memories/delete.html", {"memory": memory})
