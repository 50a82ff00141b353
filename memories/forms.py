from __future__ import annotations

from django import forms
from django.conf import settings

from memories import insights
from memories.models import Act, Entity, Observation
from talkingrock.fields import CleanFormField, RowChoiceField, RowsChoiceField
from talkingrock.text import MAX_SEARCH_CHARS, search_text


class MemoryForm(forms.Form):
    content = CleanFormField(
        multiline=True,
        widget=forms.Textarea(attrs={"rows": 3}),
        max_length=settings.TALKINGROCK_MEMORY["max_content_length"],
        strip=True,
        label="What to remember",
    )
    tags = CleanFormField(
        required=False,
        max_length=500,
        help_text="Optional, comma-separated: they weigh more than the text when searching.",
    )
    act = forms.ModelChoiceField(
        queryset=Act.objects.none(), required=False, empty_label=None, label="Act"
    )

    def __init__(self, *args, owner, content_rows: int = 3, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["content"].widget.attrs["rows"] = content_rows
        # Only the member's own acts can be chosen: another member's act id fails validation.
        act = self.fields["act"]
        act.queryset = Act.objects.filter(owner=owner, status=Act.Status.ACTIVE)
        # Rendering a <select> walks its choices twice (the options, and whether the first is
        # empty); a list makes that one query instead of two. Validation still uses the queryset.
        # (iter() first: list() would ask the iterator's len(), which is a COUNT query.)
        act.widget.choices = list(iter(act.choices))


class SearchForm(forms.Form):
    # No max_length validator: a longer query (typed past a browser that ignores maxlength, or a
    # link) is cut to MAX_SEARCH_CHARS and searched, and the page says so.
    q = forms.CharField(
        required=False,
        label="Search",
        widget=forms.TextInput(
            attrs={
                "type": "search",
                "placeholder": "Words to look for",
                "aria-label": "Search your memories",
                "autocomplete": "off",
                "maxlength": MAX_SEARCH_CHARS,
            }
        ),
    )
    mode = forms.ChoiceField(
        choices=[("keywords", "by keywords"), ("meaning", "by meaning")],
        required=False,
        initial="keywords",
        widget=forms.RadioSelect,
        label="Search",
    )
    archived = forms.BooleanField(required=False, label="Include archived")

    def clean_q(self) -> str:
        query, self.cut = search_text(self.cleaned_data["q"])
        return query

    def clean_mode(self) -> str:
        return self.cleaned_data["mode"] or "keywords"


class ObservationForm(forms.Form):
    """The member's own words for an observation (the old ones stay in its history)."""

    text = CleanFormField(
        multiline=True,
        widget=forms.Textarea(attrs={"rows": 3}),
        max_length=settings.TALKINGROCK_MEMORY["max_content_length"],
        strip=True,
        label="What it says",
    )


class ObservationFilterForm(forms.Form):
    """Which observations to list: one kind, about one of the member's entities, or all."""

    kind = forms.ChoiceField(
        choices=[("", "Every kind"), *Observation.Kind.choices], required=False, label="Kind"
    )
    entity = forms.ModelChoiceField(
        queryset=Entity.objects.none(),
        required=False,
        empty_label="Anyone or anything",
        label="About",
    )

    def __init__(self, *args, owner_id: int, **kwargs):
        super().__init__(*args, **kwargs)
        # Only the member's entities that an observation is about: another member's id, or one
        # of theirs with nothing observed, is "not one of the choices".
        entity = self.fields["entity"]
        entity.queryset = insights.entities_observed(owner_id).order_by("name")
        entity.widget.choices = list(iter(entity.choices))  # one query (see MemoryForm)


class MembersForm(forms.Form):
    """Members of the household to share an act with (ids checked against the household)."""

    members = RowsChoiceField(queryset=Act.objects.none(), required=False)

    def __init__(self, *args, household, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["members"].queryset = household


class SharedActForm(MembersForm):
    title = CleanFormField(max_length=200, required=False)


class PlaceForm(forms.Form):
    """One of the member's places in a shared act, to share something into."""

    place = RowChoiceField(queryset=Act.objects.none())

    def __init__(self, *args, places, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["place"].queryset = places
