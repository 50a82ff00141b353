"""Talk, close, review, acts and the conversation archive: thin views over the services.

Every page works without JavaScript (forms post and redirect); with HTMX the member's message
appears at once and the reply follows, and compression progress polls in place.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.db.models import Count, Q
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from conversations import chat, compression, reasoning, services, titles
from conversations.forms import ImportForm, TitleForm
from conversations.greeting import greeting
from conversations.models import Classification, Conversation, ConversationImport, Message
from conversations.services import MessageError, TransitionError
from memories import acts as act_services
from memories import sharing
from memories.acts import ActError
from memories.models import Act, Memory, MemoryItem, Recall

Status = Conversation.Status


def _conversation(request: HttpRequest, pk: int) -> Conversation:
    return get_object_or_404(Conversation.objects.select_related("act"), pk=pk, owner=request.user)


def _act(request: HttpRequest, pk: int) -> Act:
    return get_object_or_404(Act, pk=pk, owner=request.user)


def _refuse(
    request: HttpRequest,
    error: TransitionError | MessageError | ValidationError,
    status: int = 409,
):
    text = " ".join(error.messages) if isinstance(error, ValidationError) else error.message
    if request.htmx:
        return render(request, "conversations/_error.html", {"error": text}, status=status)
    messages.error(request, text)
    return redirect("home")


@login_required
def home(request: HttpRequest) -> HttpResponse:
    conversation = services.open_conversation(request.user)
    if conversation is None:
        return render(
            request,
            "conversations/greeting.html",
            {"greeting": greeting(request.user), "open_types": MemoryItem.OPEN_TYPES},
        )
    if services.nudge_due(conversation):
        services.nudge(conversation=conversation)
    transcript = list(
        conversation.messages.select_related("reply_to").prefetch_related(
            "reply_to__classifications"
        )
    )
    context = {
        "conversation": conversation,
        "messages_list": transcript,
        "pending": services.awaiting_reply(transcript),
    }
    if conversation.status == Status.READY_TO_CLOSE:
        context["preview"] = compression.preview(conversation)
    if conversation.status == Status.COMPRESSING:
        if conversation.review_ready:
            return redirect("conversations:review", pk=conversation.pk)
        context["stalled"] = services.is_stalled(conversation)
        context["lost"] = services.is_lost(conversation)
    return render(request, "conversations/chat.html", context)


@login_required
@require_POST
def send(request: HttpRequest) -> HttpResponse:
    """The member's words are stored now; the worker writes the reply, which the page polls for
    (with HTMX) or shows on the next load (without)."""
    try:
        conversation, message = services.add_message(
            owner=request.user, content=request.POST.get("content", "")
        )
    except MessageError as error:
        return _refuse(request, error, status=400)
    except TransitionError as error:
        return _refuse(request, error)
    chat.queue_reply(message)
    if request.htmx:
        return render(
            request,
            "conversations/_sent.html",
            {"message": message, "conversation": conversation},
        )
    return redirect("home")


def _users_message(request: HttpRequest, pk: int) -> Message:
    return get_object_or_404(
        Message.objects.select_related("conversation__owner"),
        pk=pk,
        conversation__owner=request.user,
        role=Message.Role.USER,
    )


@login_required
def reply(request: HttpRequest, pk: int) -> HttpResponse:
    """The reply to a message once it is written, else the "thinking" note that asks again."""
    message = _users_message(request, pk)
    answered = message.replies.first()
    if answered is not None:
        return render(request, "conversations/_message.html", {"message": answered})
    return render(
        request,
        "conversations/_pending.html",
        {"message": message, "overdue": services.reply_overdue(message)},
    )


@login_required
@require_POST
def reply_again(request: HttpRequest, pk: int) -> HttpResponse:
    """Queue the reply once more (the worker that had it stopped); answering stays once."""
    message = _users_message(request, pk)
    if not message.replies.exists():
        chat.queue_reply(message)
    if request.htmx:
        return render(request, "conversations/_pending.html", {"message": message})
    return redirect("home")


def _transition(name: str, action, success: str | None = None):
    @login_required
    @require_POST
    def view(request: HttpRequest, pk: int) -> HttpResponse:
        conversation = _conversation(request, pk)
        try:
            action(conversation)
        except TransitionError as error:
            return _refuse(request, error)
        if success:
            messages.success(request, success)
        return redirect("home")

    view.__name__ = name
    return view


pause = _transition("pause", lambda c: services.set_paused(conversation=c, paused=True))
unpause = _transition("unpause", lambda c: services.set_paused(conversation=c, paused=False))
close = _transition("close", lambda c: services.request_close(conversation=c))
resume = _transition(
    "resume", lambda c: services.resume(conversation=c), "Back to the conversation."
)
retry = _transition("retry", lambda c: services.retry_compression(conversation=c))


@login_required
@require_POST
def confirm_close(request: HttpRequest, pk: int) -> HttpResponse:
    conversation = _conversation(request, pk)
    try:
        conversation = services.confirm_close(conversation=conversation)
    except TransitionError as error:
        return _refuse(request, error)
    if conversation.status == Status.ARCHIVED:
        messages.info(
            request, "Nothing was said, so nothing was remembered; the conversation is archived."
        )
        return redirect("home")
    conversation.refresh_from_db()
    if conversation.review_ready:  # no worker: it ran inline
        return redirect("conversations:review", pk=pk)
    return redirect("home")


@login_required
def progress(request: HttpRequest, pk: int) -> HttpResponse:
    conversation = _conversation(request, pk)
    if conversation.review_ready and request.htmx:
        response = HttpResponse(status=204)
        response["HX-Redirect"] = reverse("conversations:review", args=[pk])
        return response
    return render(
        request,
        "conversations/_progress.html",
        {
            "conversation": conversation,
            "stalled": services.is_stalled(conversation),
            "lost": services.is_lost(conversation),
        },
    )


# --- archive of conversations, acts, why -------------------------------------------------------


@login_required
def archive(request: HttpRequest) -> HttpResponse:
    return archive_page(request)


def archive_page(request: HttpRequest, *, import_form=None, status: int = 200) -> HttpResponse:
    """The member's past conversations, each by its title, and the upload that brings more in."""
    rows = (
        titles.with_first_said(
            Conversation.objects.filter(owner=request.user, status=Status.ARCHIVED)
        )
        .select_related("act")
        .annotate(
            memory_count=Count(
                "memories", filter=Q(memories__status="confirmed", memories__kind="memory")
            ),
            fact_count=Count(
                "memories", filter=Q(memories__status="confirmed", memories__kind="fact")
            ),
        )
        .order_by("-archived_at", "-pk")
    )
    page = Paginator(rows, 20).get_page(request.GET.get("page"))
    for conversation in page:
        conversation.heading = titles.shown(conversation)
    context = {
        "page": page,
        "import_form": import_form or ImportForm(),
        "imports": ConversationImport.objects.filter(owner=request.user)[:5],
    }
    return render(request, "conversations/archive.html", context, status=status)


def _detail_page(
    request: HttpRequest, conversation: Conversation, form: TitleForm, status: int = 200
) -> HttpResponse:
    return render(
        request,
        "conversations/detail.html",
        {
            "conversation": conversation,
            "heading": titles.shown(conversation),
            "title_form": form,
            "messages_list": conversation.messages.all(),
            "memories": conversation.memories.filter(status=Memory.Status.CONFIRMED).select_related(
                "act"
            ),
        },
        status=status,
    )


def _titled_conversation(request: HttpRequest, pk: int) -> Conversation:
    return get_object_or_404(
        titles.with_first_said(Conversation.objects.select_related("act")),
        pk=pk,
        owner=request.user,
    )


@login_required
def detail(request: HttpRequest, pk: int) -> HttpResponse:
    conversation = _titled_conversation(request, pk)
    return _detail_page(request, conversation, TitleForm(initial={"title": conversation.title}))


@login_required
@require_POST
def rename(request: HttpRequest, pk: int) -> HttpResponse:
    """The member's own title for a conversation (blank: its first words again)."""
    conversation = _titled_conversation(request, pk)
    form = TitleForm(request.POST)
    if not form.is_valid():
        return _detail_page(request, conversation, form, status=400)
    conversation.title = form.cleaned_data["title"]
    conversation.save(update_fields=["title"])
    messages.success(request, "Title saved." if conversation.title else "Title cleared.")
    return redirect("conversations:detail", pk=pk)


@login_required
def acts(request: HttpRequest) -> HttpResponse:
    if request.method == "POST":
        try:
            act = act_services.create_act(
                owner=request.user,
                title=request.POST.get("title", ""),
                description=request.POST.get("description", ""),
            )
        except ActError as error:
            messages.error(request, error.message)
            return redirect("conversations:acts")
        messages.success(request, f"Act “{act.title}” created.")
        return redirect("memories:act", pk=act.pk)
    # One query. Both counts walk the same join (act → memories → items), so each is counted
    # distinct: without it an act of 4 memories with 19 items said "19 memories".
    rows = (
        Act.objects.filter(owner=request.user)
        .annotate(
            live_count=act_services.live_count(),
            open_count=Count(
                "memories__items",
                filter=Q(
                    memories__items__is_active=True,
                    memories__items__type__in=MemoryItem.OPEN_TYPES,
                    memories__status="confirmed",
                ),
                distinct=True,
            ),
        )
        .order_by("-is_your_story", "status", "title")
    )
    others = sharing.household().exclude(pk=request.user.pk)
    return render(request, "conversations/acts.html", {"acts": rows, "others": others})


@login_required
@require_POST
def act_edit(request: HttpRequest, pk: int) -> HttpResponse:
    act = _act(request, pk)
    try:
        if "archived" in request.POST:
            act_services.set_act_archived(act=act, archived=request.POST["archived"] == "1")
        else:
            if act.shared_id is not None:  # one title for everyone in it; the rest is each's own
                sharing.rename(place=act, title=request.POST.get("title", ""))
                act.refresh_from_db()
            act_services.rename_act(
                act=act,
                title=act.title if act.shared_id else request.POST.get("title", ""),
                description=request.POST.get("description"),
            )
    except (ActError, sharing.ShareError) as error:
        messages.error(request, error.message)
    return redirect("memories:act", pk=act.pk)


@login_required
def reading(request: HttpRequest, pk: int) -> HttpResponse:
    """How a request was read, and the memories that shaped each stage (seed 003's "why did you
    interpret it that way?")."""
    get_object_or_404(Classification, pk=pk, owner=request.user)
    explained = reasoning.explain_classification(request.user, pk)
    return render(request, "conversations/reading.html", {"reading": explained})


@login_required
def why(request: HttpRequest, pk: int) -> HttpResponse:
    trail = get_object_or_404(Recall, pk=pk, owner=request.user)
    hits = trail.hits.select_related("memory").order_by("rank")
    return render(request, "conversations/why.html", {"trail": trail, "hits": hits})
