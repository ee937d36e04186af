"""Render the Helm chart with the images built here and check it against those images.

    python deploy/check_chart_images.py                  # after deploy/build_images.py
    python deploy/check_chart_images.py --tag local --cuda-tag local-cuda

For every container of every workload the chart renders:
* its image must exist in the local engine (`docker image inspect`); an image named with
  `--not-built` (the CUDA image, not built here) is reported as such, and the CPU image stands
  in for its command and env checks (the same app; only torch differs);
* its command must start in that image with the chart's own settings: `<args> --help`
  (gunicorn, celery worker/beat) or `manage.py help migrate` for the migrations Job, and
  once per image `manage.py check --deploy` (errors fail, warnings are printed);
* every env var it gets (ConfigMap, Secret, `env:`) must be read by the code installed in
  the image or set by the image itself (its ENV).
Containers run with `--network none`: nothing is reached, nothing is served.
"""

from __future__ import annotations

import argparse
import base64
import json
import re
import subprocess
import sys
from pathlib import Path

import helm_python as helm
import yaml

CHART = Path(__file__).resolve().parent / "helm" / "truthlens"
DUMMY_SECRETS = {
    "secretKey": "chart-check-not-a-secret-" + "x" * 40,
    "databaseUrl": "postgres://truthlens@127.0.0.1:5432/truthlens",
    "redisUrl": "redis://127.0.0.1:6379/0",
    # a valid Fernet key (32 url-safe base64 bytes), made up for this check only
    "encryptionKeys": base64.urlsafe_b64encode(b"chart-check-not-a-real-key-32by!").decode(),
}
# Code in the image that reads env vars, and how it reads them (tests/deploy/support.py too).
READS = r"""(?:env_(?:str|bool|int|float|list)|os\.environ\.get|os\.getenv)\(\s*["']([A-Z][A-Z0-9_]*)["']"""
SCAN = f"""
import json, pathlib, re, sysconfig
site = pathlib.Path(sysconfig.get_paths()["purelib"])
files = [pathlib.Path("/app/manage.py"), pathlib.Path("/app/deploy/gunicorn.conf.py")]
for pkg in ("config", "api", "tenants", "engine", "verification", "workers", "dashboard"):
    files += [p for p in (site / pkg).rglob("*.py") if "migrations" not in p.parts]
names = set()
for f in files:
    names.update(re.findall(r'''{READS}''', f.read_text()))
entry = pathlib.Path("/usr/local/bin/truthlens-entrypoint").read_text()
names.update(re.findall(r"\\$\\{{([A-Z][A-Z0-9_]*)", entry))
print(json.dumps(sorted(names)))
"""


def render(tag: str, cuda_tag: str) -> list[dict]:
    values = {
        "image": {"repository": "truthlens", "tag": tag},
        "cudaImage": {"repository": "truthlens", "tag": cuda_tag},
        "secrets": {"existingSecret": "", **DUMMY_SECRETS},
    }
    with helm.Chart.load(str(CHART)) as chart:
        out = chart.render(values, name="truthlens", namespace="truthlens")
    return [
        d for p, t in sorted(out.items()) if p.endswith(".yaml") for d in yaml.safe_load_all(t) if d
    ]


def workloads(docs: list[dict]):
    """(workload name, container, env dict) for every container the chart renders."""
    data = {}
    for doc in docs:
        if doc["kind"] in {"ConfigMap", "Secret"}:
            data[(doc["kind"], doc["metadata"]["name"])] = {
                **(doc.get("data") or {}),
                **(doc.get("stringData") or {}),
            }
    for doc in docs:
        spec = doc.get("spec", {})
        pod = spec.get("template", {}).get("spec")
        if pod is None:
            continue
        for container in pod.get("initContainers", []) + pod["containers"]:
            env = {}
            for source in container.get("envFrom", []):
                ref = source.get("configMapRef") or source.get("secretRef")
                kind = "ConfigMap" if "configMapRef" in source else "Secret"
                env.update(data.get((kind, ref["name"]), {}))
            for item in container.get("env", []):
                env[item["name"]] = str(item.get("value", ""))
            yield f"{doc['kind']}/{doc['metadata']['name']}", container, env


def docker(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["docker", *args], capture_output=True, text=True)


def run_in(image: str, env: dict, *command: str) -> subprocess.CompletedProcess:
    flags = [f"--env={k}={v}" for k, v in env.items()]
    return docker(
        "run",
        "--rm",
        "--network",
        "none",
        "--read-only",
        "--tmpfs",
        "/tmp",
        *flags,
        image,
        *command,
    )


def probe_command(container: dict) -> list[str]:
    args = (container.get("command") or []) + (container.get("args") or [])
    if args == ["true"]:  # the migrations Job: the entrypoint migrates (RUN_MIGRATIONS=1)
        # `migrate --help` opens a database connection; `help migrate` does not
        return ["python", "/app/manage.py", "help", "migrate"]
    return [*args, "--help"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tag", default="local")
    parser.add_argument("--cuda-tag", default="local-cuda")
    parser.add_argument("--not-built", action="append", default=["truthlens:local-cuda"])
    args = parser.parse_args()
    failures, checked, image_reads = [], set(), {}
    for name, container, env in workloads(render(args.tag, args.cuda_tag)):
        image = container["image"]
        if image in args.not_built:
            # Same app, same command line; only torch differs. The CPU image stands in for the
            # command and env checks, and the output says so: the image itself is not checked.
            stand_in = f"truthlens:{args.tag}"
            print(
                f"SKIP {name}: {image} is not built here (docs/operations.md); {stand_in} stands in"
            )
            image = stand_in
        inspect = docker("image", "inspect", "-f", "{{json .Config.Env}}", image)
        if inspect.returncode != 0:
            failures.append(f"{name}: image {image} does not exist")
            continue
        if image not in image_reads:
            baked = {e.split("=", 1)[0] for e in json.loads(inspect.stdout)}
            scanned = run_in(image, {}, "python", "-c", SCAN)
            image_reads[image] = baked | set(json.loads(scanned.stdout or "[]"))
        unknown = sorted(set(env) - image_reads[image])
        if unknown:
            failures.append(f"{name}: env not read by {image}: {unknown}")
        command = probe_command(container)
        if (image, tuple(command)) not in checked:
            checked.add((image, tuple(command)))
            # RUN_MIGRATIONS=1 would migrate first, which needs a database; the smoke test
            # runs the real migrations in this image (deploy/smoke.py).
            result = run_in(image, {**env, "RUN_MIGRATIONS": "0"}, *command)
            status = "ok" if result.returncode == 0 else f"FAILED ({result.returncode})"
            print(f"{status:>4} {name}: {image} {' '.join(command)}")
            if result.returncode:
                failures.append(
                    f"{name}: {' '.join(command)}\n{result.stdout[-1500:]}{result.stderr[-1500:]}"
                )
        if (image, "check") not in checked:
            checked.add((image, "check"))
            # Errors fail; warnings are printed: the chart terminates TLS at the ingress, so
            # SECURE_SSL_REDIRECT (W008) and HSTS preload (W021) are the operator's call.
            result = run_in(image, env, "python", "/app/manage.py", "check", "--deploy")
            status = "ok" if result.returncode == 0 else f"FAILED ({result.returncode})"
            warnings = re.findall(r"\(security\.W\d+\)", result.stdout + result.stderr)
            print(f"{status:>4} {name}: {image} manage.py check --deploy, warnings: {warnings}")
            if result.returncode:
                failures.append(
                    f"{name}: check --deploy\n{result.stdout[-1500:]}{result.stderr[-1500:]}"
                )
    for failure in failures:
        print(f"FAIL {failure}", file=sys.stderr)
    print(f"chart vs images: {len(checked)} checks, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
