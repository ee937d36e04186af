"""Build the TruthLens images on a machine that reaches package indexes but no image registry.

    python deploy/build_images.py            # local base + CPU image, cached layers reused
    python deploy/build_images.py --cold     # the same with --no-cache (timed as cold)

Standard library only. The steps, each printed with its time:
1. `deploy/dockerd.sh` starts dockerd (no bridge) if it is not running;
2. `deploy/local-base.sh` imports the debootstrap base (BASE_IMAGE), cached under build/;
3. this machine's PyTorch CPU wheel is found through pip's own configuration (`pip download`
   of the exact `+cpu` pin from constraints.txt, so a CUDA build can never match) and put in
   deploy/docker/wheels/;
4. pip's configuration is rewritten for the build (see `build_pip_conf`) and passed with the
   CA bundle as BuildKit secrets, so neither lands in an image layer;
5. `docker build --network host` of deploy/docker/Dockerfile, tagged truthlens:local.
"""

from __future__ import annotations

import argparse
import configparser
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WHEELS = ROOT / "deploy" / "docker" / "wheels"
BUILD = ROOT / "build" / "images"
IMAGE = os.environ.get("TRUTHLENS_IMAGE", "truthlens:local")
LOCAL_BASE = os.environ.get("LOCAL_BASE_IMAGE", "truthlens/base:bookworm")


def log(message: str) -> None:
    print(f"[images] {message}", flush=True)


def timed(label: str, func, *args, **kwargs):
    """Run func, print `label: N s`, return (result, seconds)."""
    started = time.monotonic()
    result = func(*args, **kwargs)
    seconds = time.monotonic() - started
    log(f"{label}: {seconds:.1f} s")
    return result, seconds


def run(*cmd: str, env: dict | None = None, capture: bool = False) -> str:
    result = subprocess.run(
        cmd,
        cwd=ROOT,
        env={**os.environ, **(env or {})},
        text=True,
        stdout=subprocess.PIPE if capture else None,
        check=True,
    )
    return result.stdout or ""


def build_cli() -> str:
    """A docker CLI that can drive BuildKit (secrets and bind mounts need it).

    Docker >= 23 delegates BuildKit to the buildx plugin; without the plugin it refuses.
    Debian's docker.io 20.10 CLI has BuildKit built in, so it is the fallback.
    """
    override = os.environ.get("DOCKER_BUILD_CLI")
    if override:
        return override
    docker = shutil.which("docker") or "docker"
    probe = subprocess.run([docker, "buildx", "version"], capture_output=True)
    if probe.returncode == 0:
        return docker
    for candidate in ("/usr/bin/docker",):
        if Path(candidate).exists():
            version = subprocess.run(
                [candidate, "version", "-f", "{{.Client.Version}}"], capture_output=True, text=True
            ).stdout
            if version.split(".")[0].isdigit() and int(version.split(".")[0]) < 23:
                return candidate
    raise SystemExit("no docker CLI with BuildKit: install docker-buildx or Debian's docker.io")


def pip_config() -> dict[str, str]:
    """`pip config list` of this interpreter as {key: value} (env and files merged by pip)."""
    out = run(sys.executable, "-m", "pip", "config", "list", capture=True)
    found = {}
    for line in out.splitlines():
        key, _, value = line.partition("=")
        found[key.split(".", 1)[-1].lstrip(".")] = value.strip().strip("'\"")
    return found


def build_pip_conf(config: dict[str, str], cert_path: str | None) -> str:
    """pip.conf for inside the build: the host's remote indexes, its timeout and its CA bundle.

    Local paths (file:// indexes, find-links, constraint files) do not exist in the build
    and are dropped; torch, the one package taken from this disk, comes in as a wheel.
    """
    keep = configparser.ConfigParser()
    keep["global"] = {}
    remote = ("http://", "https://")
    if config.get("index-url", "").startswith(remote):
        keep["global"]["index-url"] = config["index-url"]
    extras = [u for u in config.get("extra-index-url", "").split() if u.startswith(remote)]
    if extras:
        keep["global"]["extra-index-url"] = " ".join(extras)
    if config.get("default-timeout"):
        keep["global"]["default-timeout"] = config["default-timeout"]
    if cert_path:
        keep["global"]["cert"] = "/run/secrets/pip_cert"
    lines = [f"{k} = {v}" for k, v in keep["global"].items()]
    return "[global]\n" + "\n".join(lines) + "\n"


def torch_wheel() -> Path:
    """This machine's CPU wheel of the pinned torch, found the way pip finds it here."""
    pin = next(
        ln.strip()
        for ln in (ROOT / "constraints.txt").read_text().splitlines()
        if ln.startswith("torch==")
    )
    if "+cpu" not in pin:
        raise SystemExit(f"constraints.txt pins {pin!r}, not a +cpu build")
    version = pin.split("==", 1)[1]
    existing = sorted(WHEELS.glob(f"torch-{version}-*.whl"))
    if existing:
        return existing[0]
    WHEELS.mkdir(parents=True, exist_ok=True)
    run(sys.executable, "-m", "pip", "download", "-q", "--no-deps", "-d", str(WHEELS), pin)
    found = sorted(WHEELS.glob(f"torch-{version}-*.whl"))
    if not found:
        raise SystemExit(f"pip download {pin} left no wheel in {WHEELS}")
    return found[0]


def image_size_mb(image: str) -> float:
    size = run("docker", "image", "inspect", "-f", "{{.Size}}", image, capture=True)
    return int(size.strip()) / 1e6


def build_cpu_image(cold: bool = False, base: str | None = None) -> float:
    """Build truthlens:local; returns the seconds `docker build` took."""
    wheel = torch_wheel()
    config = pip_config()
    cert = config.get("cert") or os.environ.get("PIP_CERT")
    BUILD.mkdir(parents=True, exist_ok=True)
    conf = BUILD / "pip.conf"
    conf.write_text(build_pip_conf(config, cert))
    cmd = [build_cli(), "build", "--network", "host", "-f", "deploy/docker/Dockerfile"]
    cmd += ["-t", IMAGE, "--build-arg", f"TORCH_WHEEL={wheel.name}"]
    cmd += ["--secret", f"id=pip_conf,src={conf}"]
    if cert:
        cmd += ["--secret", f"id=pip_cert,src={cert}"]
    if base:
        cmd += ["--build-arg", f"BASE_IMAGE={base}"]
    if cold:
        cmd += ["--no-cache"]
    cmd += ["--progress", "plain", "."]
    _, seconds = timed(
        f"{'cold' if cold else 'cached'} build of {IMAGE}",
        run,
        *cmd,
        env={"DOCKER_BUILDKIT": "1"},
    )
    log(f"size of {IMAGE}: {image_size_mb(IMAGE):.0f} MB")
    return seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cold", action="store_true", help="build with --no-cache")
    parser.add_argument(
        "--public-base", action="store_true", help="use the Dockerfile's default BASE_IMAGE"
    )
    args = parser.parse_args()
    timed("dockerd ready", run, "bash", "deploy/dockerd.sh")
    base = None
    if not args.public_base:
        timed("local base image", run, "bash", "deploy/local-base.sh")
        base = LOCAL_BASE
        log(f"size of {base}: {image_size_mb(base):.0f} MB")
    build_cpu_image(cold=args.cold, base=base)
    return 0


if __name__ == "__main__":
    sys.exit(main())
