from django.urls import path

from memories import thread_views, views

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
    path("memories/<int:pk>/delete/", views.delete, name="delete"),
    path("threads/<int:pk>/resolve/", thread_views.resolve, name="thread-resolve"),
    path("threads/<int:pk>/reopen/", thread_views.reopen, name="thread-reopen"),
    path("entities/", views.entities, name="entities"),
    path("entities/<int:pk>/", views.entity, name="entity"),
]
