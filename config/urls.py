from django.contrib import admin
from django.urls import include, path

from api.errors import problem_response
from api.views.health import healthz, readyz
from api.views.metrics import metrics

urlpatterns = [
    path("v1/", include("api.urls")),
    path("healthz", healthz),
    path("readyz", readyz),
    path("metrics", metrics, name="prometheus-django-metrics"),
    path("dashboard/", include("dashboard.urls")),
    path("admin/", admin.site.urls),
]


def handler404(request, exception=None):
    return problem_response(404, "No such resource.", instance=request.path)


def handler500(request):
    return problem_response(
        500, "An unexpected error occurred; it has been logged.", instance=request.path
    )


def handler400(request, exception=None):
    return problem_response(400, "Bad request.", instance=request.path)


def handler403(request, exception=None):
    return problem_response(403, "Forbidden.", instance=request.path)
