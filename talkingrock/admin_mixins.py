from __future__ import annotations


class OwnedRowsAdmin:
    """Staff curate only their own rows; superusers see the whole household.

    A staff member needs no Django model permissions for their own rows: being staff in this
    household means "may curate what I own in the admin". Rows of others are outside the
    queryset, so the admin answers their change pages as if they did not exist.
    """

    owner_field = "owner"
    # What a non-superuser staff member may do with their own rows.
    staff_may_add = True
    staff_may_change = True
    staff_may_delete = True

    def _is_own(self, request, obj) -> bool:
        if obj is None:
            return True
        owner_id = obj.pk if self.owner_field == "pk" else getattr(obj, f"{self.owner_field}_id")
        return owner_id == request.user.pk

    def _staff(self, request) -> bool:
        return request.user.is_active and request.user.is_staff

    def get_queryset(self, request):
        queryset = super().get_queryset(request)
        if request.user.is_superuser:
            return queryset
        # The pk, not request.user: a lazy user object is fine for a foreign key lookup but
        # not for owner_field = "pk" (the members admin), where it raised a TypeError.
        return queryset.filter(**{self.owner_field: request.user.pk})

    def has_module_permission(self, request):
        return request.user.is_superuser or self._staff(request)

    def has_view_permission(self, request, obj=None):
        if request.user.is_superuser:
            return super().has_view_permission(request, obj)
        return self._staff(request) and self._is_own(request, obj)

    def has_add_permission(self, request):
        if request.user.is_superuser:
            return super().has_add_permission(request)
        return self.staff_may_add and self._staff(request)

    def has_change_permission(self, request, obj=None):
        if request.user.is_superuser:
            return super().has_change_permission(request, obj)
        return self.staff_may_change and self._staff(request) and self._is_own(request, obj)

    def has_delete_permission(self, request, obj=None):
        if request.user.is_superuser:
            return super().has_delete_permission(request, obj)
        return self.staff_may_delete and self._staff(request) and self._is_own(request, obj)

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        field = super().formfield_for_foreignkey(db_field, request, **kwargs)
        if not request.user.is_superuser:
            model = db_field.related_model
            if db_field.name == self.owner_field:
                field.queryset = field.queryset.filter(pk=request.user.pk)
            elif any(f.name == "owner" for f in model._meta.fields):
                field.queryset = field.queryset.filter(owner=request.user)
        return field
