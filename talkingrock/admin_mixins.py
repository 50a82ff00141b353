from __future__ import annotations


class OwnedRowsAdmin:
    """Staff curate only their own rows; superusers see the whole household."""

    owner_field = "owner"

    def get_queryset(self, request):
        queryset = super().get_queryset(request)
        if request.user.is_superuser:
            return queryset
        return queryset.filter(**{self.owner_field: request.user})

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        field = super().formfield_for_foreignkey(db_field, request, **kwargs)
        if not request.user.is_superuser:
            model = db_field.related_model
            if db_field.name == self.owner_field:
                field.queryset = field.queryset.filter(pk=request.user.pk)
            elif any(f.name == "owner" for f in model._meta.fields):
                field.queryset = field.queryset.filter(owner=request.user)
        return field
