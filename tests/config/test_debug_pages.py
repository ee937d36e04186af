"""Under DEBUG (`make run`) no client sees Django's technical 404 or traceback page."""

from __future__ import annotations

import json

import pytest
from django.http import Http404, HttpResponse
from django.test import RequestFactory

from config.debug_pages import NoTechnicalPagesMiddleware


@pytest.fixture
def debug(settings):
    settings.DEBUG = True


def _problem(response, status: int) -> dict:
    assert response.status_code == status
    assert response["Content-Type"] == "application/problem+json"
    body = response.content.decode()
    assert "Traceback" not in body
    assert "URLconf" not in body
    return json.loads(body)


def test_an_unrouted_path_gets_the_production_404(debug, client):
    problem = _problem(client.get("/nowhere/at/all"), 404)
    assert problem["instance"] == "/nowhere/at/all"


def test_a_404_raised_by_a_view_gets_the_production_404(debug):
    middleware = NoTechnicalPagesMiddleware(lambda request: HttpResponse())
    request = RequestFactory().get("/dashboard/x")
    _problem(middleware.process_exception(request, Http404("secret detail")), 404)


def test_a_crash_gets_the_production_500_and_is_logged(debug, caplog):
    middleware = NoTechnicalPagesMiddleware(lambda request: HttpResponse())
    request = RequestFactory().get("/dashboard/x")
    problem = _problem(middleware.process_exception(request, RuntimeError("boom")), 500)
    assert "boom" not in problem["detail"]
    assert "boom" in caplog.text


def test_without_debug_django_handles_errors_itself(settings):
    settings.DEBUG = False
    middleware = NoTechnicalPagesMiddleware(lambda request: HttpResponse())
    assert middleware.process_exception(RequestFactory().get("/"), RuntimeError()) is None
