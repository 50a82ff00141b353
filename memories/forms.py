from __future__ import annotations

from django import forms
from django.conf import settings

from conversations.models import Act


class MemoryForm(forms.Form):
    content = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3}),
        max_length=settings.TALKINGROCK_MEMORY["max_content_length"],
        strip=True,
    )
    tags = forms.CharField(required=False, max_length=500, help_text="Comma-separated keywords.")
    act = forms.ModelChoiceField(queryset=Act.objects.none(), required=False, empty_label=None)

    def __init__(self, *args, owner, **kwargs):
        super().__init__(*args, **kwargs)
        # Only the member's own acts can be chosen: another member's act id fails validation.
        self.fields["act"].queryset = Act.objects.filter(owner=owner, status=Act.Status.ACTIVE)


class SearchForm(forms.Form):
    q = forms.CharField(required=False, max_length=10_000, label="Search")
    archived = forms.BooleanField(required=False, label="Include archived")
