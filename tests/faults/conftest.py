"""Fixtures for the fault tests: private Redis/Postgres and a real gunicorn API server."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.fixtures.workers import _worker_env

from .services import ApiServer, PrivatePostgres, PrivateRedis, django_env, manage


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "faults: kills or restarts real processes (workers, Redis, Postgres, receiver)"
    )


@pytest.fixture
def private_redis(tmp_path) -> Iterator[PrivateRedis]:
    server = PrivateRedis(tmp_path)
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def private_postgres() -> Iterator[tuple[PrivatePostgres, str]]:
    """A migrated private cluster: `(server, DATABASE_URL)`."""
    server = PrivatePostgres()
    try:
        server.init()
        server.start()
        server.create_database("truthlens_faults")
        url = server.url("truthlens_faults")
        manage(django_env(url, "redis://127.0.0.1:1/0"), "migrate", "--noinput")
        yield server, url
    finally:
        server.destroy()


@pytest.fixture
def start_api(transactional_db, tmp_path) -> Iterator[Callable[..., ApiServer]]:
    """Start gunicorn against the test database (or the DATABASE_URL given in `env`)."""
    started: list[ApiServer] = []

    def start(**env: str) -> ApiServer:
        server = ApiServer(_worker_env(**env), Path(tmp_path) / f"gunicorn-{len(started)}.log")
        started.append(server)
        server.wait_ready()
        return server

    yield start
    for server in started:
        server.stop()
