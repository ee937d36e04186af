"""Private Redis, Postgres and gunicorn processes that a fault test may stop and restart.

Other people's tests share the machine's Redis and Postgres, so a fault test never
touches those: it starts its own instances on free ports and points the API and the
workers at them through `DATABASE_URL` / `REDIS_URL`.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[2]


def _pg_bin() -> Path:
    """The server binaries (initdb, pg_ctl): TRUTHLENS_PG_BIN, else the newest Debian install."""
    if os.environ.get("TRUTHLENS_PG_BIN"):
        return Path(os.environ["TRUTHLENS_PG_BIN"])
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"), key=lambda p: int(p.parts[-3]))
    return found[-1].parent if found else Path("/usr/lib/postgresql/15/bin")


PG_BIN = _pg_bin()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def port_open(port: int) -> bool:
    with socket.socket() as sock:
        sock.settimeout(0.5)
        return sock.connect_ex(("127.0.0.1", port)) == 0


def _wait(predicate, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.1)
    raise RuntimeError(f"{what} not ready after {timeout}s")


class PrivateRedis:
    """A throw-away redis-server without persistence: a restart loses every queued message."""

    def __init__(self, workdir: Path):
        self.port = free_port()
        self.workdir = workdir
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        log = open(self.workdir / f"redis-{self.port}.log", "ab")  # noqa: SIM115
        self.proc = subprocess.Popen(
            [
                "redis-server",
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(self.workdir),
                "--daemonize",
                "no",
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        log.close()
        _wait(lambda: port_open(self.port), 20, "redis")

    def stop(self) -> None:
        """Hard stop (SIGKILL): in-flight and queued messages are gone, as in a crash."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)
        _wait(lambda: not port_open(self.port), 10, "redis shutdown")

    def restart(self) -> None:
        self.stop()
        self.start()


def _as_postgres(cmd: list[str]) -> list[str]:
    # initdb and postgres refuse to run as root.
    if os.geteuid() == 0:
        return ["runuser", "-u", "postgres", "--", *cmd]
    return cmd


class PrivatePostgres:
    """A private Postgres cluster (trust auth, no fsync) on a free port."""

    def __init__(self) -> None:
        self.port = free_port()
        self.dir = Path(tempfile.mkdtemp(prefix="truthlens-faults-pg-"))
        self.data = self.dir / "data"
        self.log = self.dir / "postgres.log"
        if os.geteuid() == 0:
            shutil.chown(self.dir, "postgres", "postgres")

    def url(self, name: str) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/{name}"

    def init(self) -> None:
        subprocess.run(
            _as_postgres(
                [
                    str(PG_BIN / "initdb"),
                    "-D",
                    str(self.data),
                    "-A",
                    "trust",
                    "-U",
                    "postgres",
                    "-N",
                ]
            ),
            check=True,
            capture_output=True,
            timeout=120,
        )
        with open(self.data / "postgresql.conf", "a") as conf:
            conf.write("fsync = off\nsynchronous_commit = off\nfull_page_writes = off\n")
            conf.write("max_connections = 200\nshared_buffers = 64MB\n")
        if os.geteuid() == 0:
            shutil.chown(self.data / "postgresql.conf", "postgres", "postgres")

    def _pg_ctl(self, *args: str, timeout: float = 60) -> None:
        subprocess.run(
            _as_postgres([str(PG_BIN / "pg_ctl"), "-D", str(self.data), *args]),
            check=True,
            capture_output=True,
            timeout=timeout,
        )

    def start(self) -> None:
        self._pg_ctl(
            "-o",
            f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1",
            "-l",
            str(self.log),
            "-w",
            "start",
        )

    def stop(self, mode: str = "fast") -> None:
        self._pg_ctl("-m", mode, "-w", "stop")

    def create_database(self, name: str) -> None:
        import psycopg

        with psycopg.connect(self.url("postgres"), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')

    def destroy(self) -> None:
        with contextlib.suppress(subprocess.SubprocessError):
            self.stop("immediate")
        shutil.rmtree(self.dir, ignore_errors=True)


def django_env(database_url: str, redis_url: str, **extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        DJANGO_SETTINGS_MODULE="tests.settings",
        DATABASE_URL=database_url,
        REDIS_URL=redis_url,
        CELERY_BROKER_URL=redis_url,
        PYTHONUNBUFFERED="1",
        LOG_FORMAT="plain",
    )
    env.update(extra)
    return env


def manage(env: dict[str, str], *args: str, timeout: float = 180) -> str:
    done = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if done.returncode:
        raise RuntimeError(f"manage.py {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}")
    return done.stdout


def create_tenant(env: dict[str, str], slug: str) -> str:
    """Create a tenant in the database `env` points at; returns its API key."""
    out = manage(env, "create_tenant", slug)
    return next(line.split(": ", 1)[1] for line in out.splitlines() if line.startswith("api key"))


class ApiServer:
    """The real gunicorn server (deploy/gunicorn.conf.py), so a dependency restart really hits it."""

    def __init__(
        self,
        env: dict[str, str],
        log_path: Path,
        workers: int = 1,
        threads: int = 8,
        port: int | None = None,
    ):
        self.port = port or free_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        env = {
            **env,
            "GUNICORN_BIND": f"127.0.0.1:{self.port}",
            "GUNICORN_WORKERS": str(workers),
            "GUNICORN_THREADS": str(threads),
        }
        env.pop("GUNICORN_METRICS_BIND", None)
        self.log_path = log_path
        self._log = open(log_path, "ab")  # noqa: SIM115 - closed in stop()
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "gunicorn",
                "config.wsgi",
                "-c",
                "deploy/gunicorn.conf.py",
                "--access-logfile",
                "-",
            ],
            cwd=ROOT,
            env=env,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def wait_ready(self, timeout: float = 90) -> None:
        def up() -> bool:
            if self.proc.poll() is not None:
                raise RuntimeError(f"gunicorn exited:\n{self.log()[-4000:]}")
            try:
                return httpx.get(self.base_url + "/healthz", timeout=2).status_code == 200
            except httpx.HTTPError:
                return False

        _wait(up, timeout, "gunicorn")

    def log(self) -> str:
        return self.log_path.read_bytes().decode(errors="replace")

    def stop(self) -> None:
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, 15)
                self.proc.wait(timeout=20)
            except (ProcessLookupError, subprocess.TimeoutExpired):
                os.killpg(self.proc.pid, 9)
                self.proc.wait(timeout=10)
        self._log.close()
