from django.contrib import admin

from memories.models import (
    Act,
    ConsolidationRun,
    Dream,
    Entity,
    Memory,
    MemoryLink,
    Observation,
    ObservationChange,
    Recall,
    RecallHit,
)
from talkingrock.admin_mixins import OwnedInline, OwnedRowsAdmin


@admin.register(Act)
class ActAdmin(OwnedRowsAdmin, admin.ModelAdmin):
    list_display = ["title", "owner", "status", "is_your_story", "created_at"]
    list_filter = ["status", "is_your_story"]
    list_select_related = ["owner"]
    search_fields = ["title", "description"]

    def has_delete_permission(self, request, obj=None):
        if obj is not None and obj.is_your_story:
            return False  # Your Story is permanent
        return super().has_delete_permission(request, obj)

    def get_readonly_fields(self, request, obj=None):
        readonly = list(super().get_readonly_fields(request, obj))
        if obj is not None and obj.is_your_story:
            # Your Story is never archived. The database refuses it; the form would not catch
            # it first, because is_your_story is not a form field (its check is skipped).
            readonly.append("status")
        return readonly


class ArchivedFilter(admin.SimpleListFilter):
    title = "archived"
    parameter_name = "archived"

    def lookups(self, request, model_admin):
        return [("yes", "Archived"), ("no", "Live")]

    def queryset(self, request, queryset):
        if self.value() == "yes":
            return queryset.filter(archived_at__isnull=False)
        if self.value() == "no":
            return queryset.filter(archived_at__isnull=True)
        return queryset


@admin.register(Memory)
class MemoryAdmin(OwnedRowsAdmin, admin.ModelAdmin):
    list_display = [
        "id",
        "short_content",
        "owner",
        "act",
        "source",
        "score",
        "created_at",
        "archived_at",
    ]
    list_display_links = ["id", "short_content"]
    # "act" lists only the acts of the member's own memories (OwnedRowsAdmin.get_list_filter).
    list_filter = ["source", "act", ArchivedFilter, "status"]
    list_select_related = ["owner", "act"]
    search_fields = ["content", "tags"]
    readonly_fields = ["content_hash", "original_content", "created_at", "last_hit_at", "hit_count"]
    raw_id_fields = ["conversation", "narrative"]
    date_hierarchy = "created_at"

    @admin.display(description="content")
    def short_content(self, memory: Memory) -> str:
        return memory.content[:80]


@admin.register(Entity)
class EntityAdmin(OwnedRowsAdmin, admin.ModelAdmin):
    list_display = ["name", "kind", "owner", "created_at"]
    list_filter = ["kind"]
    list_select_related = ["owner"]
    search_fields = ["name", "normalized"]
    readonly_fields = ["normalized", "created_at"]


class RecallHitInline(OwnedInline, admin.TabularInline):
    model = RecallHit
    fields = ["rank", "memory", "score", "influence", "components"]
    readonly_fields = fields


@admin.register(Recall)
class RecallAdmin(OwnedRowsAdmin, admin.ModelAdmin):
    """The transparency trail: read-only, it records what happened."""

    list_display = ["query", "purpose", "owner", "created_at", "duration_ms"]
    list_filter = ["purpose"]
    list_select_related = ["owner"]
    search_fields = ["query"]
    readonly_fields = [
        "owner",
        "query",
        "purpose",
        "conversation",
        "message",
        "parameters",
        "duration_ms",
        "created_at",
    ]
    inlines = [RecallHitInline]
    may_add = may_change = False


@admin.register(MemoryLink)
class MemoryLinkAdmin(OwnedRowsAdmin, admin.ModelAdmin):
    list_display = ["memory", "related", "strength", "owner", "updated_at"]
    list_select_related = ["owner", "memory", "related"]
    raw_id_fields = ["memory", "related"]


# --- consolidation (seed 002) -------------------------------------------------------------------


class ObservationChangeInline(OwnedInline, admin.TabularInline):
    """An observation's history: what happened, so read-only."""

    model = ObservationChange
    fields = ["changed_at", "kind", "previous_text", "new_text", "reason", "happened_at"]
    readonly_fields = fields
    ordering = ["-changed_at", "-id"]


@admin.register(Observation)
class ObservationAdmin(OwnedRowsAdmin, admin.ModelAdmin):
    """Observations are written by consolidation (memories/consolidation/store.py, which also
    keeps their vectors): here a member corrects the flags, not the words; an edit of the words
    goes through the Observations page, so that it is kept in the history and re-embedded."""

    list_display = ["short_text", "kind", "entity", "evidence_count", "owner", "updated_at"]
    list_display_links = ["short_text"]
    list_filter = ["kind", "dismissed", "user_edited", "entity"]
    list_select_related = ["owner", "entity"]
    search_fields = ["text", "subject", "relation"]
    raw_id_fields = ["entity", "merged_into"]
    # Its facts and their count change together, by consolidation: shown, not edited here.
    readonly_fields = [
        "text",
        "facts",
        "kind",
        "subject",
        "relation",
        "evidence_count",
        "engine",
        "created_at",
        "updated_at",
        "hit_count",
        "last_hit_at",
        "user_edited",
    ]
    date_hierarchy = "updated_at"
    inlines = [ObservationChangeInline]
    may_add = False

    @admin.display(description="text")
    def short_text(self, observation: Observation) -> str:
        return observation.text[:80]


@admin.register(Dream)
class DreamAdmin(OwnedRowsAdmin, admin.ModelAdmin):
    list_display = ["short_text", "score", "engine", "owner", "created_at", "kept_at", "dismissed"]
    list_display_links = ["short_text"]
    list_filter = ["dismissed"]
    list_select_related = ["owner"]
    search_fields = ["text", "reason"]
    readonly_fields = ["text", "facts_a", "facts_b", "reason", "score", "engine", "created_at"]
    may_add = False

    @admin.display(description="text")
    def short_text(self, dream: Dream) -> str:
        return dream.text[:80]


@admin.register(ConsolidationRun)
class ConsolidationRunAdmin(OwnedRowsAdmin, admin.ModelAdmin):
    """What each pass did: a record, read-only."""

    list_display = ["kind", "owner", "started_at", "finished_at", "engine", "error"]
    list_filter = ["kind"]
    list_select_related = ["owner"]
    search_fields = ["error"]
    readonly_fields = ["owner", "kind", "started_at", "finished_at", "engine", "summary", "error"]
    may_add = may_change = False
