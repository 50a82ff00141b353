from django.urls import path

from narratives import views

app_name = "narratives"

urlpatterns = [
    path("narratives/", views.index, name="index"),
    path("narratives/<int:pk>/", views.detail, name="detail"),
]
