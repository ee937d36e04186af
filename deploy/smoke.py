"""Round trip of the built images under Compose on this machine (`make deploy-smoke`).

    python deploy/smoke.py             # full: cold + cached build, webhook, metrics, worker kill
    python deploy/smoke.py --subset    # cheap: cached build, web + detect worker, one verification
    python deploy/smoke.py --keep      # leave it running (prints an API key); --down stops it

The containers use the host's network (deploy/compose.host.yaml) and the host's Postgres and
Redis, in a database and a Redis db of their own (SMOKE_DATABASE, SMOKE_REDIS_DB), so other
test runs on the same servers are not touched. Every step prints its time; a failed check
exits non-zero with the worker and web logs. Runs on the project's venv (PyYAML).
"""

from __future__ import annotations

import argparse
import hashlib
import hmac
import json
import os
import secrets
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
import build_images
from smoke_support import Receiver, wait_for

ROOT = build_images.ROOT
IMAGE = build_images.IMAGE
PROJECT = "truthlens-smoke"
DATABASE = os.environ.get("SMOKE_DATABASE", "truthlens_smoke")
REDIS_DB = os.environ.get("SMOKE_REDIS_DB", "9")
PG = os.environ.get("SMOKE_POSTGRES", "postgres://postgres@127.0.0.1:5432")
REDIS = os.environ.get("SMOKE_REDIS", "redis://127.0.0.1:6379")
HTTP_PORT = int(os.environ.get("SMOKE_HTTP_PORT", "18000"))
PORTS = {  # host networking: every process needs a port of its own
    "TRUTHLENS_HTTP_PORT": HTTP_PORT,
    "TRUTHLENS_WEB_METRICS_PORT": HTTP_PORT + 100,
    "DETECT_METRICS_PORT": HTTP_PORT + 101,
    "MITIGATE_METRICS_PORT": HTTP_PORT + 102,
    "MAINTENANCE_METRICS_PORT": HTTP_PORT + 103,
    "INDEX_METRICS_PORT": HTTP_PORT + 104,
}
EIFFEL = {
    "context": [
        "The Eiffel Tower is a wrought-iron lattice tower in Paris. It was built from 1887 "
        "to 1889 and is 330 metres tall."
    ],
    "query": "When was the Eiffel Tower built?",
    "response": "The Eiffel Tower was built in 1950 and is 330 metres tall.",
}
timings: dict[str, float] = {}


def step(label: str, func, *args, **kwargs):
    started = time.monotonic()
    print(f"[smoke] {label} ...", flush=True)
    result = func(*args, **kwargs)
    timings[label] = time.monotonic() - started
    print(f"[smoke] {label}: {timings[label]:.1f} s", flush=True)
    return result


def sh(*cmd: str, env: dict | None = None, check: bool = True) -> str:
    done = subprocess.run(
        cmd, cwd=ROOT, env={**os.environ, **(env or {})}, text=True, capture_output=True
    )
    if check and done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({done.returncode}):\n{done.stdout}{done.stderr}")
    return done.stdout


def compose_cli() -> list[str]:
    if subprocess.run(["docker", "compose", "version"], capture_output=True).returncode == 0:
        return ["docker", "compose"]
    return ["docker-compose"]


_flat_files: dict[tuple, Path] = {}


def flat_compose_file(overrides: dict) -> Path:
    """compose.yaml + compose.host.yaml merged, with `ports:` dropped from host-network services.

    Compose v1 (Debian's docker-compose) refuses `ports` with `network_mode: host` and an
    overlay cannot remove a list (v2 has `!reset`), so the merged file is written out once
    per set of variables (it is interpolated when written).
    """
    key = tuple(sorted(overrides.items()))
    if key not in _flat_files:
        files = ["-f", "deploy/compose.yaml", "-f", "deploy/compose.host.yaml"]
        merged = yaml.safe_load(sh(*compose_cli(), *files, "config", env={**ENV, **overrides}))
        for service in merged["services"].values():
            if service.get("network_mode") == "host":
                service.pop("ports", None)
        path = ROOT / "build" / "smoke" / f"compose-{len(_flat_files)}.yaml"
        path.write_text(yaml.safe_dump(merged, sort_keys=False))
        _flat_files[key] = path
    return _flat_files[key]


def compose(*args: str, env: dict | None = None, check: bool = True) -> str:
    flat = flat_compose_file(env or {})
    project = ["-f", str(flat), "--project-directory", "deploy", "-p", PROJECT]
    return sh(*compose_cli(), *project, *args, env={**ENV, **(env or {})}, check=check)


def in_image(*cmd: str) -> str:
    """A one-off container of the app image on the host network, with the smoke settings."""
    return sh(
        "docker", "run", "--rm", "--network", "host", "--env-file", str(ENV_FILE), IMAGE, *cmd
    )


def write_env_file(path: Path) -> None:
    settings = {
        "SECRET_KEY": secrets.token_urlsafe(50),
        "TRUTHLENS_REQUIRE_SECRET_KEY": "true",
        "DATABASE_URL": f"{PG}/{DATABASE}",
        "REDIS_URL": f"{REDIS}/{REDIS_DB}",
        "ALLOWED_HOSTS": "localhost,127.0.0.1",
        "DEBUG": "false",
        "SECURE_SSL_REDIRECT": "false",
        "GUNICORN_WORKERS": "1",
        "GUNICORN_THREADS": "8",
        "TRUTHLENS_WEBHOOK_ALLOWED_HOSTS": "127.0.0.1",
        # Short lease and sweep so the killed worker's job is re-enqueued within seconds.
        "TRUTHLENS_JOB_LEASE_SECONDS": "10",
        "TRUTHLENS_SWEEP_INTERVAL_SECONDS": "5",
        "TRUTHLENS_OUTBOX_RELAY_AFTER_SECONDS": "5",
        "LOG_FORMAT": "plain",
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(f"{k}={v}\n" for k, v in settings.items()))


ENV_FILE = ROOT / "build" / "smoke" / "smoke.env"
ENV = {
    "TRUTHLENS_IMAGE": IMAGE,
    "TRUTHLENS_ENV_FILE": str(ENV_FILE),
    "COMPOSE_PROJECT_NAME": PROJECT,
    # Interpolated into compose.yaml's command lines (an env_file does not reach those):
    # 16 mitigate processes, each loading the models, would only load this 2-core machine.
    "DETECT_CONCURRENCY": "1",
    "MITIGATE_CONCURRENCY": "2",
    # compose.yaml's own postgres service demands one; it is not started here.
    "POSTGRES_PASSWORD": "unused-the-host-runs-postgres",
    **{k: str(v) for k, v in PORTS.items()},
}


DROP_STORES = (
    "import psycopg, redis;"
    f"c = psycopg.connect('{PG}/postgres', autocommit=True);"
    f"c.execute('DROP DATABASE IF EXISTS {DATABASE} WITH (FORCE)');"
    f"redis.Redis.from_url('{REDIS}/{REDIS_DB}').flushdb()"
)


def reset_stores() -> None:
    """A fresh database and an empty Redis db, both only the smoke's."""
    in_image("python", "-c", DROP_STORES)
    in_image("python", "manage.py", "ensure_database")


def api(method: str, path: str, token: str | None = None, body: dict | None = None) -> dict:
    request = urllib.request.Request(
        f"http://127.0.0.1:{HTTP_PORT}{path}",
        method=method,
        data=json.dumps(body).encode() if body is not None else None,
        headers={
            "Content-Type": "application/json",
            **({"Authorization": f"Bearer {token}"} if token else {}),
        },
    )
    with urllib.request.urlopen(request, timeout=40) as response:
        return json.loads(response.read() or b"{}")


def ready() -> bool:
    try:
        return api("GET", "/readyz").get("status") == "ok"
    except (urllib.error.URLError, OSError, ValueError):
        return False


def metrics_up(port: int) -> bool:
    """A worker serves its metrics port from worker start-up (models loaded), so: ready."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5):
        return True


WORKER_PORTS = {
    "detect-worker": "DETECT_METRICS_PORT",
    "mitigate-worker": "MITIGATE_METRICS_PORT",
    "maintenance-worker": "MAINTENANCE_METRICS_PORT",
    "index-worker": "INDEX_METRICS_PORT",
}


def stack_ready(services: list[str]) -> bool:
    ports = [PORTS[WORKER_PORTS[s]] for s in services if s in WORKER_PORTS]
    return ready() and all(metrics_up(port) for port in ports)


def job_state(job_id: str) -> dict:
    """Status, attempts, usage rows and webhook deliveries of one job, read in the web container."""
    code = (
        "import json; from verification.models import VerificationJob as J, UsageRecord as U, WebhookDelivery as W;"
        f"j = J.objects.get(pk=J.parse_public_id('{job_id}'));"
        "print(json.dumps({'status': j.status, 'attempts': j.attempts,"
        " 'usage_rows': U.objects.filter(job=j).count(),"
        " 'deliveries': W.objects.filter(job=j).count()}))"
    )
    out = compose("exec", "-T", "web", "python", "manage.py", "shell", "-c", code)
    return json.loads(out.strip().splitlines()[-1])


def create_tenant() -> tuple[str, str]:
    out = compose(
        "exec", "-T", "web", "python", "manage.py", "create_tenant", f"smoke-{int(time.time())}"
    )
    fields = dict(line.split(": ", 1) for line in out.strip().splitlines() if ": " in line)
    return fields["api key"], fields["webhook signing secret"]


def verify_and_wait(token: str, body: dict, timeout: float = 180) -> dict:
    job = api("POST", "/v1/verifications", token, body)
    assert wait_for(
        lambda: api("GET", f"/v1/verifications/{job['id']}", token)["status"] == "completed",
        timeout,
    ), job
    return api("GET", f"/v1/verifications/{job['id']}", token)


def check_webhook(receiver: Receiver, secret: str, job_id: str) -> None:
    assert receiver.wait_for(1, timeout=180), "no webhook arrived"
    hit = receiver.received[0]
    parts = dict(item.split("=", 1) for item in hit.headers["X-TruthLens-Signature"].split(","))
    signed = f"{parts['t']}.".encode() + hit.body
    expected = hmac.new(secret.encode(), signed, hashlib.sha256).hexdigest()
    assert hmac.compare_digest(expected, parts["v1"]), "bad webhook signature"
    event = json.loads(hit.body)
    assert event["type"] == "verification.completed", event
    assert event["data"]["id"] == job_id, event


def scrape(port: int, needle: str) -> None:
    text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10).read().decode()
    assert needle in text, f"{needle!r} not in /metrics on port {port}"


def scrape_all() -> None:
    scrape(PORTS["TRUTHLENS_WEB_METRICS_PORT"], "django_http_requests_total")
    worker = 'truthlens_worker_tasks_total{state="succeeded",task="truthlens.detect"}'
    scrape(PORTS["DETECT_METRICS_PORT"], worker)


def container_id(service: str) -> str:
    return compose("ps", "-q", service).strip()


def kill_worker_mid_job(token: str, receiver: Receiver) -> dict:
    # The fault makes a job's first attempt sleep, so there is time to kill the worker in it.
    compose(
        "up",
        "-d",
        "--no-deps",
        "detect-worker",
        env={"TRUTHLENS_FAULT_DETECT_SLEEP_SECONDS": "600"},
    )
    worker = container_id("detect-worker")
    before = len(receiver.received)
    body = {**EIFFEL, "metadata": {"smoke": "kill"}, "callback_url": receiver.url}
    job = api("POST", "/v1/verifications", token, body)
    assert wait_for(lambda: job_state(job["id"])["status"] == "running", 420), job_state(job["id"])
    sh("docker", "kill", worker)
    print(f"[smoke] killed {worker[:12]} with job {job['id']} running", flush=True)
    time.sleep(2)
    if sh("docker", "inspect", "-f", "{{.State.Running}}", worker).strip() != "true":
        sh("docker", "start", worker)  # a killed container is not restarted by its policy
        print(f"[smoke] restarted {worker[:12]} with docker start", flush=True)
    else:
        print(f"[smoke] {worker[:12]} was restarted by its restart policy", flush=True)
    assert wait_for(lambda: job_state(job["id"])["status"] == "completed", 240), job_state(
        job["id"]
    )
    state = job_state(job["id"])
    assert state["attempts"] >= 2, state
    assert state["usage_rows"] == 1, state
    assert state["deliveries"] == 1, state
    assert receiver.wait_for(before + 1, timeout=60), "no webhook for the re-run job"
    time.sleep(5)  # a second completion would send a second event by now
    events = [h for h in receiver.received[before:] if job["id"].encode() in h.body]
    assert len(events) == 1, f"{len(events)} webhook events for {job['id']}"
    print(f"[smoke] after the kill: {state}", flush=True)
    return state


def tear_down() -> None:
    # kill first: a smoke run has nothing to drain, and stop would wait out the grace periods
    compose("kill", check=False)
    compose("down", "--remove-orphans", "--volumes", check=False)
    sh(
        "docker",
        "run",
        "--rm",
        "--network",
        "host",
        IMAGE,
        "python",
        "-c",
        DROP_STORES,
        check=False,
    )


def logs() -> None:
    print(compose("logs", "--no-color", "--tail", "60", check=False), flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--subset", action="store_true", help="the cheap CI subset")
    parser.add_argument("--no-cold", action="store_true", help="skip the --no-cache build")
    parser.add_argument("--keep", action="store_true", help="leave the stack running")
    parser.add_argument("--down", action="store_true", help="tear down a kept stack and exit")
    args = parser.parse_args()
    if args.down:
        tear_down()
        return 0
    full = not args.subset
    services = ["web", "detect-worker"] + (
        ["mitigate-worker", "maintenance-worker", "index-worker", "beat"] if full else []
    )

    step("dockerd ready", sh, "bash", "deploy/dockerd.sh")
    step("base image (debootstrap, cached under build/base)", sh, "bash", "deploy/local-base.sh")
    if full and not args.no_cold:
        step(
            "image build, cold (--no-cache)",
            build_images.build_cpu_image,
            cold=True,
            base=build_images.LOCAL_BASE,
        )
    label = (
        "image build, cached" if full and not args.no_cold else "image build (layer cache if any)"
    )
    step(label, build_images.build_cpu_image, base=build_images.LOCAL_BASE)
    if full:
        step("helm chart vs the built images", sh, sys.executable, "deploy/check_chart_images.py")
    write_env_file(ENV_FILE)
    compose("kill", check=False)
    compose("down", "--remove-orphans", check=False)
    try:
        step("fresh database and Redis db", reset_stores)
        step("migrate (container)", compose, "run", "--rm", "--no-deps", "migrate")
        started = time.monotonic()
        compose("up", "-d", "--no-deps", *services)
        assert wait_for(lambda: stack_ready(services), 420), "web /readyz or a worker never came up"
        timings["stack start to ready"] = time.monotonic() - started
        print(f"[smoke] stack start to ready: {timings['stack start to ready']:.1f} s", flush=True)
        token, secret = step("create tenant", create_tenant)
        if args.keep:
            print(f"[smoke] API on http://127.0.0.1:{HTTP_PORT} with key {token}", flush=True)
        with Receiver() as receiver:
            body = {**EIFFEL, **({"callback_url": receiver.url} if full else {})}
            result = step("first verification (POST to completed)", verify_and_wait, token, body)
            assert result["detected"] is True, result
            assert any("1950" in s["text"] for s in result["spans"]), result
            if full:
                step("webhook delivered and signed", check_webhook, receiver, secret, result["id"])
                step("scrape /metrics of web and worker", scrape_all)
                step(
                    "kill the worker mid-job, restart, complete once",
                    kill_worker_mid_job,
                    token,
                    receiver,
                )
    except (AssertionError, SystemExit, urllib.error.URLError) as exc:
        logs()
        print(f"[smoke] FAILED: {exc}", flush=True)
        return 1
    finally:
        if not args.keep:
            step("tear down", tear_down)
    sizes = {img: build_images.image_size_mb(img) for img in (build_images.LOCAL_BASE, IMAGE)}
    print(
        "[smoke] summary:",
        json.dumps(
            {
                "seconds": {k: round(v, 1) for k, v in timings.items()},
                "image_mb": {k: round(v) for k, v in sizes.items()},
            }
        ),
        flush=True,
    )
    print("[smoke] passed", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
