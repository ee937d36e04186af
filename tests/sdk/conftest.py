"""The SDK against the real thing: Django's live server (real HTTP on 127.0.0.1), the test
Postgres database, and, where a job must finish, a real Celery worker."""

from __future__ import annotations

from typing import NamedTuple

import pytest
from truthlens import TruthLens

from tests.conftest import TenantWithKey, _make_tenant


class Server(NamedTuple):
    url: str
    tenant: TenantWithKey


@pytest.fixture
def server(live_server, tenant_a, short_lived_connections) -> Server:
    """The live server and tenant A (no worker: jobs stay queued)."""
    return Server(live_server.url, tenant_a)


@pytest.fixture
def worker_server(server, start_worker) -> Server:
    """The live server with a real worker that runs every queue (lexical detector)."""
    start_worker()
    return server


@pytest.fixture
def client(server):
    with TruthLens(api_key=server.tenant.token, base_url=server.url, max_retries=2) as sdk:
        yield sdk


@pytest.fixture
def other_tenant(db) -> TenantWithKey:
    return _make_tenant("tenant-other")
