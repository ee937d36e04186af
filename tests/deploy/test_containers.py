"""The images built and run under Compose on this machine (deploy/smoke.py), marked `containers`.

It runs when a Docker engine can run here: dockerd answering, or root with dockerd
installed (deploy/dockerd.sh starts it without a bridge; scripts/install-docker.sh installs
Debian's engine and debootstrap in `make test`). Where none can, it skips locally but fails
in CI (`CI` set): there an engine is expected, and a skip would pass missing work as green.

`TRUTHLENS_CONTAINERS_SMOKE` picks what runs: `subset` (the default: CPU image build,
web + detect worker, one verification) or `full` (`make deploy-smoke` less its extra
`--no-cache` build: every worker, webhook, metrics, a worker killed mid-job).
docs/operations.md "Docker Compose without an image registry" says which one CI runs and why.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from .support import ROOT

pytestmark = pytest.mark.containers


def engine_problem() -> str | None:
    """Why no Docker engine can run here, or None when one can."""
    if shutil.which("docker") is None:
        return "no docker CLI (scripts/install-docker.sh installs Debian's engine)"
    if subprocess.run(["docker", "info"], capture_output=True).returncode == 0:
        return None
    if shutil.which("dockerd") is None:
        return "no dockerd (scripts/install-docker.sh installs Debian's engine)"
    if os.geteuid() != 0:
        return "dockerd is not running and only root can start it"
    return None


@pytest.mark.timeout(1800)
def test_the_images_serve_a_verification_under_compose(tmp_path):
    # given an engine, or a clear reason why there is none
    problem = engine_problem()
    if problem and os.environ.get("CI"):
        pytest.fail(f"the containers test must run in CI: {problem}")
    if problem:
        pytest.skip(problem)
    mode = os.environ.get("TRUTHLENS_CONTAINERS_SMOKE", "subset")
    assert mode in {"subset", "full"}, f"TRUTHLENS_CONTAINERS_SMOKE={mode!r}"
    # when
    # full skips the extra --no-cache build: on a clean machine the first build is cold anyway
    command = [sys.executable, "deploy/smoke.py", "--subset" if mode == "subset" else "--no-cold"]
    result = subprocess.run(
        command, cwd=ROOT, capture_output=True, text=True, timeout=1750, stdin=subprocess.DEVNULL
    )
    # then
    (tmp_path / "smoke.log").write_text(result.stdout + result.stderr)
    tail = "\n".join((result.stdout + result.stderr).splitlines()[-80:])
    assert result.returncode == 0, tail
    assert "[smoke] passed" in result.stdout, tail
    print("\n".join(ln for ln in result.stdout.splitlines() if ln.startswith("[smoke]")))
