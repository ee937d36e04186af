"""Out-of-range and garbage dates answer a form error (never 500); a too-big body inside
the dashboard answers its own 413 page, not the API's problem+json."""

from __future__ import annotations

import pytest
from django.urls import reverse

from dashboard.daterange import OUT_OF_RANGE

BAD_MONTHS = ["9999-12", "1999-12", "2026-13", "2026-00", "0000-01"]


@pytest.fixture
def owner_client(client, owner_a):
    client.force_login(owner_a)
    return client


@pytest.mark.parametrize("month", BAD_MONTHS)
def test_billing_page_shows_an_error_for_a_month_out_of_range(owner_client, month):
    for url in (
        reverse("dashboard:billing-month", kwargs={"month": month}),
        reverse("dashboard:billing") + f"?month={month}",
    ):
        response = owner_client.get(url)
        assert response.status_code == 200, url
        assert "is not a month we can show" in response.content.decode()
        assert "Usage &amp; billing" in response.content.decode()  # the page, drawn


def test_billing_page_rejects_garbage_in_the_query_string(owner_client):
    response = owner_client.get(reverse("dashboard:billing") + "?month=<script>")
    assert response.status_code == 200
    assert response.context["month_errors"]
    assert "<script>" not in response.content.decode()


@pytest.mark.parametrize("month", BAD_MONTHS)
def test_exports_answer_400_for_a_month_out_of_range(owner_client, month):
    csv = owner_client.get(reverse("dashboard:billing-csv", kwargs={"month": month}))
    assert csv.status_code == 400
    assert "is not a month we can show" in csv.content.decode()
    data = owner_client.get(reverse("dashboard:billing-json", kwargs={"month": month}))
    assert data.status_code == 400
    assert data.json()["errors"]["month"]


def test_revenue_page_shows_an_error_for_year_9999(client, staff_user, tenant_a):
    client.force_login(staff_user)
    response = client.get(reverse("dashboard:revenue") + "?month=9999-12")
    assert response.status_code == 200
    assert "is not a month we can show" in response.content.decode()


@pytest.mark.parametrize(
    "query",
    [
        "start=9999-12-01&end=9999-12-31",
        "end=9999-12-31",
        "start=1900-01-01",
        "start=garbage",
    ],
)
def test_overview_shows_a_form_error_for_dates_out_of_range(owner_client, query):
    response = owner_client.get(reverse("dashboard:overview") + "?" + query)
    assert response.status_code == 200
    assert response.context["range_errors"]
    body = response.content.decode()
    assert OUT_OF_RANGE in body or "Enter a valid date" in body
    assert "Key figures" in body  # the default period is still drawn


def test_overview_shows_an_inverted_range_as_an_error(owner_client):
    response = owner_client.get(reverse("dashboard:overview") + "?start=2026-03-10&end=2026-03-01")
    assert response.status_code == 200
    assert "must not be after the end date" in response.content.decode()


def test_a_policy_import_over_the_limit_is_a_dashboard_page(owner_client, settings):
    settings.TRUTHLENS = {**settings.TRUTHLENS, "MAX_BODY_BYTES": 1_048_576}
    response = owner_client.post(
        reverse("dashboard:policy-import"),
        {"yaml_text": "x" * (1_048_576 + 10)},
    )
    assert response.status_code == 413
    assert response["Content-Type"].startswith("text/html")
    body = response.content.decode()
    assert "Too large" in body
    assert "1 MiB" in body
    assert 'aria-label="Dashboard"' in body  # inside the dashboard's frame


def test_a_body_over_the_limit_outside_the_dashboard_is_still_problem_json(client_a):
    response = client_a.post(
        "/v1/verifications", data=b"x" * 2_000_000, content_type="application/json"
    )
    assert response.status_code == 413
    assert response["Content-Type"].startswith("application/problem+json")
