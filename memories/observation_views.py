"""Observations and dreams, for the member to read and correct: the Observations page (each with
its history and source facts; confirm, edit, dismiss and bring back) with the consolidation
passes' status in its header, and the Dreams page (keep, dismiss, bring back).

Thin views over memories/insights.py. Every action is a POST form with CSRF that redirects back
(post/redirect/get) with a message; every page works without JavaScript. Another member's id
answers 404, as one that never was."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_POST

from memories import insights
from memories.forms import ObservationFilterForm, ObservationForm
from memories.models import Dream, Observation
from talkingrock.navigation import next_url
from talkingrock.text import shortened

PAGE_SIZE = 20


def get_observation_for_user(request: HttpRequest, pk: int) -> Observation:
    try:
        return insights.get_observation(request.user.pk, pk)
    except Observation.DoesNotExist:
        raise Http404("No such observation.") from None


def get_dream_for_user(request: HttpRequest, pk: int) -> Dream:
    try:
        return insights.get_dream(request.user.pk, pk)
    except Dream.DoesNotExist:
        raise Http404("No such dream.") from None


SHORT_CHARS = 120


def _short(text: str) -> str:
    return shortened(text, chars=SHORT_CHARS)


def _page(request: HttpRequest, rows, *, observed: bool = False):
    page = Paginator(rows, PAGE_SIZE).get_page(request.GET.get("page"))
    if observed:
        page.object_list = insights.with_previously(page.object_list)
    return page


@login_required
def observations(request: HttpRequest) -> HttpResponse:
    """The member's live observations, newest change first, by kind or entity."""
    owner_id = request.user.pk
    form = ObservationFilterForm(request.GET, owner_id=owner_id)
    kind, entity = "", None
    if form.is_valid():
        kind, entity = form.cleaned_data["kind"], form.cleaned_data["entity"]
    context = {
        "form": form,
        "page": _page(
            request, insights.observations(owner_id, kind=kind, entity=entity), observed=True
        ),
        "filtered": bool(kind or entity),
        "dismissed": insights.recently_dismissed(owner_id),
        "passes": insights.pass_status(owner_id),
    }
    # A filter that is not one of the member's choices says so, and lists everything.
    return render(
        request, "memories/observations.html", context, status=400 if form.errors else 200
    )


def _act(request: HttpRequest, pk: int, action, note: str) -> HttpResponse:
    """One action on an observation, then back where the member was, saying what happened."""
    observation = get_observation_for_user(request, pk)
    try:
        action(observation)
    except insights.InsightError as error:
        messages.error(request, error.message)
    else:
        messages.success(request, note.format(text=_short(observation.text)))
    return HttpResponseRedirect(
        next_url(request, f"{reverse('memories:observations')}#observation-{pk}")
    )


@login_required
@require_POST
def confirm(request: HttpRequest, pk: int) -> HttpResponse:
    return _act(request, pk, insights.confirm, "Confirmed: “{text}”.")


@login_required
@require_POST
def dismiss(request: HttpRequest, pk: int) -> HttpResponse:
    return _act(
        request,
        pk,
        insights.dismiss,
        "Dismissed “{text}”. It is under “Dismissed lately” on the Observations page, to bring "
        "back.",
    )


@login_required
@require_POST
def bring_back(request: HttpRequest, pk: int) -> HttpResponse:
    return _act(request, pk, insights.bring_back, "Brought back: “{text}”.")


@login_required
def edit(request: HttpRequest, pk: int) -> HttpResponse:
    observation = get_observation_for_user(request, pk)
    back = next_url(request, f"{reverse('memories:observations')}#observation-{pk}")
    form = ObservationForm(request.POST or None, initial={"text": observation.text})
    if request.method == "POST" and form.is_valid():
        try:
            insights.edit(observation, form.cleaned_data["text"])
        except insights.InsightError as error:
            messages.error(request, error.message)
        else:
            messages.success(request, "Saved in your words; what it said before is in its history.")
        return HttpResponseRedirect(back)
    status = 400 if form.errors else 200
    context = {"observation": observation, "form": form, "next": back}
    return render(request, "memories/observation_edit.html", context, status=status)


# --- dreams -------------------------------------------------------------------------------------


@login_required
def dreams(request: HttpRequest) -> HttpResponse:
    owner_id = request.user.pk
    context = {
        "page": _page(request, insights.dreams(owner_id)),
        "dismissed": insights.dismissed_dreams(owner_id),
    }
    return render(request, "memories/dreams.html", context)


def _dream_act(request: HttpRequest, pk: int, action, note: str) -> HttpResponse:
    dream = action(get_dream_for_user(request, pk))
    messages.success(request, note.format(text=_short(dream.text)))
    return HttpResponseRedirect(next_url(request, f"{reverse('memories:dreams')}#dream-{pk}"))


@login_required
@require_POST
def keep_dream(request: HttpRequest, pk: int) -> HttpResponse:
    return _dream_act(request, pk, insights.keep_dream, "Kept: “{text}”.")


@login_required
@require_POST
def dismiss_dream(request: HttpRequest, pk: int) -> HttpResponse:
    note = "Dismissed “{text}”. It is under “Dismissed lately”, to bring back."
    return _dream_act(request, pk, insights.dismiss_dream, note)


@login_required
@require_POST
def bring_back_dream(request: HttpRequest, pk: int) -> HttpResponse:
    return _dream_act(request, pk, insights.bring_back_dream, "Brought back: “{text}”.")
