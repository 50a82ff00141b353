from django.urls import path

from conversations import import_views, review_views, views

app_name = "conversations"

urlpatterns = [
    path("talk/send/", views.send, name="send"),
    path("talk/reply/<int:pk>/", views.reply, name="reply"),
    path("talk/reply/<int:pk>/again/", views.reply_again, name="reply-again"),
    path("conversations/", views.archive, name="archive"),
    path("conversations/<int:pk>/", views.detail, name="detail"),
    path("conversations/<int:pk>/title/", views.rename, name="title"),
    path("conversations/import/", import_views.upload, name="import-upload"),
    path("conversations/imports/<int:pk>/", import_views.detail, name="import"),
    path("conversations/imports/<int:pk>/retry/", import_views.retry, name="import-retry"),
    path("conversations/<int:pk>/pause/", views.pause, name="pause"),
    path("conversations/<int:pk>/unpause/", views.unpause, name="unpause"),
    path("conversations/<int:pk>/close/", views.close, name="close"),
    path("conversations/<int:pk>/confirm-close/", views.confirm_close, name="confirm-close"),
    path("conversations/<int:pk>/resume/", views.resume, name="resume"),
    path("conversations/<int:pk>/retry/", views.retry, name="retry"),
    path("conversations/<int:pk>/progress/", views.progress, name="progress"),
    path("conversations/<int:pk>/review/", review_views.review_page, name="review"),
    path("acts/", views.acts, name="acts"),
    path("acts/<int:pk>/edit/", views.act_edit, name="act-edit"),
    path("recalls/<int:pk>/", views.why, name="why"),
    path("readings/<int:pk>/", views.reading, name="reading"),
    path("conversations/<int:pk>/forget/", review_views.forget, name="forget"),
]
