"""Fixtures shared by the whole suite: two tenants, API clients, Redis hygiene."""

from __future__ import annotations

from typing import NamedTuple

import pytest
import redis
from django.conf import settings
from rest_framework.test import APIClient

from tenants.models import ApiKey, Tenant
from tests.fixtures.examples import EIFFEL, Example

pytest_plugins = ["tests.fixtures.workers", "tests.fixtures.receiver", "tests.fixtures.llm"]


@pytest.fixture(scope="session", autouse=True)
def _clean_test_redis():
    """Start from an empty test Redis database (broker queues, throttle counters)."""
    redis.Redis.from_url(settings.REDIS_URL).flushdb()


@pytest.fixture(autouse=True)
def _reset_throttles():
    redis.Redis.from_url(settings.REDIS_URL).flushdb()


class TenantWithKey(NamedTuple):
    """A saved tenant and the bearer token of its first (read-write) API key."""

    tenant: Tenant
    token: str


def _make_tenant(slug: str) -> TenantWithKey:
    tenant = Tenant(slug=slug, name=slug.title())
    tenant.rotate_webhook_secret()
    tenant.save()
    _, token = ApiKey.issue(tenant)
    return TenantWithKey(tenant, token)


@pytest.fixture
def tenant_a(db) -> TenantWithKey:
    return _make_tenant("tenant-a")


@pytest.fixture
def tenant_b(db) -> TenantWithKey:
    return _make_tenant("tenant-b")


def client_for(token: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
    return client


@pytest.fixture
def client_a(tenant_a) -> APIClient:
    return client_for(tenant_a.token)


@pytest.fixture
def client_b(tenant_b) -> APIClient:
    return client_for(tenant_b.token)


@pytest.fixture
def eiffel() -> Example:
    """The Eiffel Tower example (tests/fixtures/examples.py): `.context`, `.request()`..."""
    return EIFFEL
