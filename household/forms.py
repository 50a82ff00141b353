from __future__ import annotations

from django import forms
from django.contrib.auth.forms import UserCreationForm

from talkingrock.fields import CleanFormField


class MemberForm(UserCreationForm):
    is_admin = forms.BooleanField(
        required=False,
        label="Household admin",
        help_text=(
            "Admins add and remove members and can reset a password (the member is told). "
            "Like everyone, they see only their own memories, conversations and narratives."
        ),
    )

    def save(self, commit: bool = True):
        user = super().save(commit=False)
        if self.cleaned_data.get("is_admin"):
            user.is_staff = user.is_superuser = True
        if commit:
            user.save()  # the post_save receiver gives the new member their Your Story
        return user


class SetupForm(MemberForm):
    """The first member: always the household admin, so the choice is not offered."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        del self.fields["is_admin"]

    def clean(self):
        cleaned = super().clean()
        cleaned["is_admin"] = True
        return cleaned


class TokenForm(forms.Form):
    name = CleanFormField(
        max_length=100, initial="My assistant", help_text="Where you will use it."
    )
