"""The one-field form that renames a conversation (its page, conversations/views.py)."""

from __future__ import annotations

from django import forms

from conversations import titles
from talkingrock.fields import CleanFormField


class TitleForm(forms.Form):
    # Control characters are removed, not refused (talkingrock/text.py); blank goes back to the
    # first words the member said.
    title = CleanFormField(
        max_length=titles.MAX_TITLE,
        required=False,
        strip=True,
        label="Title",
        help_text="A few words to find it by. Leave it empty to show its first words.",
        widget=forms.TextInput(attrs={"autocomplete": "off"}),
    )

    def clean_title(self) -> str:
        return titles.clean(self.cleaned_data["title"])
