"""The project's URLs plus the billing report route, until `api/urls.py` carries it itself."""

from django.urls import path

import config.urls as project
from api.views.billing import BillingReportView

_has_route = any("billing/reports" in str(p.pattern) for p in project.urlpatterns[0].url_patterns)
urlpatterns = (
    []
    if _has_route
    else [
        path("v1/billing/reports/<str:month>", BillingReportView.as_view(), name="billing-report"),
    ]
) + project.urlpatterns
handler404 = project.handler404
handler403 = project.handler403
