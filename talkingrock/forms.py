from __future__ import annotations

from django import forms
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import SetPasswordForm, UserCreationForm

from talkingrock.fields import CleanFormField


class MemberForm(UserCreationForm):
    is_admin = forms.BooleanField(
        required=False,
        label="Household admin",
        help_text=(
            "Admins add and remove members and reset their passwords. Like everyone, they see "
            "only their own memories, conversations and narratives."
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


class MemberPasswordForm(SetPasswordForm):
    """A household admin sets a new password for a member who forgot theirs.

    Never the admin's own: that one is changed with the current password (the admin's "Change
    password"), so this form cannot sign an admin out or lock them out of their account, and a
    session left open cannot be used to take the account over.
    """

    member = forms.ModelChoiceField(
        queryset=get_user_model().objects.none(), empty_label="Choose a member"
    )
    field_order = ["member", "new_password1", "new_password2"]

    def __init__(self, admin, *args, **kwargs):
        super().__init__(None, *args, **kwargs)  # the member is chosen in the form
        others = get_user_model().objects.exclude(pk=admin.pk).order_by("username")
        self.fields["member"].queryset = others

    def clean(self):
        self.user = self.cleaned_data.get("member")  # validators compare it with the password
        return super().clean()


class TokenForm(forms.Form):
    name = CleanFormField(
        max_length=100, initial="My assistant", help_text="Where you will use it."
    )
