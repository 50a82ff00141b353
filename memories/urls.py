from django.urls import path

from memories import observation_views, sharing_views, thread_views, timeline_views, views

app_name = "memories"

urlpatterns = [
    path("memories/", views.story, name="story"),
    path("acts/<int:pk>/", views.act_memories, name="act"),
    path("memories/search/", views.search, name="search"),
    path("memories/archive/", views.archive, name="archive"),
    path("memories/new/", views.create, name="create"),
    path("memories/<int:pk>/", views.detail, name="detail"),
    path("memories/<int:pk>/edit/", views.edit, name="edit"),
    path("memories/<int:pk>/reinforce/", views.reinforce, name="reinforce"),
    path("memories/<int:pk>/demote/", views.demote, name="demote"),
    path("memories/<int:pk>/archive/", views.archive_memory, name="archive-memory"),
    path("memories/<int:pk>/restore/", views.restore, name="restore"),
    path("memories/<int:pk>/current/", views.make_current, name="make-current"),
    path("memories/<int:pk>/delete/", views.delete, name="delete"),
    path("threads/<int:pk>/resolve/", thread_views.resolve, name="thread-resolve"),
    path("threads/<int:pk>/reopen/", thread_views.reopen, name="thread-reopen"),
    path("threads/<int:pk>/current/", thread_views.make_current, name="thread-make-current"),
    path("acts/shared/new/", sharing_views.create, name="shared-act-new"),
    path("acts/<int:pk>/members/", sharing_views.add_members, name="shared-act-add"),
    path(
        "acts/<int:pk>/members/<int:member>/remove/",
        sharing_views.remove_member,
        name="shared-act-remove",
    ),
    path("memories/<int:pk>/share/", sharing_views.share_memory, name="share"),
    path("memories/<int:pk>/take-back/", sharing_views.take_back, name="take-back"),
    path("threads/<int:pk>/share/", sharing_views.share_item, name="thread-share"),
    path("threads/<int:pk>/take-back/", sharing_views.take_back_item, name="thread-take-back"),
    path("timeline/", timeline_views.timeline, name="timeline"),
    path("entities/", views.entities, name="entities"),
    path("entities/<int:pk>/", views.entity, name="entity"),
    path("observations/", observation_views.observations, name="observations"),
    path("observations/<int:pk>/edit/", observation_views.edit, name="observation-edit"),
    path("observations/<int:pk>/confirm/", observation_views.confirm, name="observation-confirm"),
    path("observations/<int:pk>/dismiss/", observation_views.dismiss, name="observation-dismiss"),
    path(
        "observations/<int:pk>/bring-back/",
        observation_views.bring_back,
        name="observation-bring-back",
    ),
    path("dreams/", observation_views.dreams, name="dreams"),
    path("dreams/<int:pk>/keep/", observation_views.keep_dream, name="dream-keep"),
    path("dreams/<int:pk>/dismiss/", observation_views.dismiss_dream, name="dream-dismiss"),
    path(
        "dreams/<int:pk>/bring-back/", observation_views.bring_back_dream, name="dream-bring-back"
    ),
]
