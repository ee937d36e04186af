"""Paths and loaders shared by the deploy checks (plain files, no Django)."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
CHART = DEPLOY / "helm" / "truthlens"
MANIFESTS = DEPLOY / "k8s" / "truthlens.yaml"
OPERATIONS = ROOT / "docs" / "operations.md"
CAPACITY = ROOT / "docs" / "capacity.md"


class _StrictLoader(yaml.SafeLoader):
    """SafeLoader that refuses duplicate keys (PyYAML silently keeps the last one)."""


def _mapping(loader, node, deep=False):
    keys = [
        loader.construct_object(k, deep=deep)
        for k, _ in node.value
        if k.tag != "tag:yaml.org,2002:merge"  # `<<: *anchor` is resolved below
    ]
    dupes = {k for k in keys if keys.count(k) > 1}
    if dupes:
        raise yaml.constructor.ConstructorError(
            None, None, f"duplicate keys {sorted(map(str, dupes))}", node.start_mark
        )
    return loader.construct_mapping(node, deep=deep)


_StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping)


def load_yaml(path: Path):
    return yaml.load(path.read_text(), Loader=_StrictLoader)  # safe subclass


def load_yaml_docs(text: str) -> list[dict]:
    return [d for d in yaml.load_all(text, Loader=_StrictLoader) if d]


def app_env_reads() -> dict[str, str]:
    """Every environment variable the app and its process configs read -> where."""
    reads: dict[str, str] = {}
    call = re.compile(
        r"""(?:env_(?:str|bool|int|float|list)|os\.environ\.get|os\.getenv)\(\s*["']([A-Z][A-Z0-9_]*)["']"""
    )
    sources = [ROOT / "manage.py", DEPLOY / "gunicorn.conf.py"]
    for package in ("config", "api", "tenants", "verification", "workers", "dashboard"):
        sources += [p for p in (ROOT / package).rglob("*.py") if "migrations" not in p.parts]
    for path in sources:
        for name in call.findall(path.read_text()):
            reads.setdefault(name, str(path.relative_to(ROOT)))
    entrypoint = (DEPLOY / "docker" / "entrypoint.sh").read_text()
    for name in re.findall(r"\$\{([A-Z][A-Z0-9_]*)", entrypoint):
        reads.setdefault(name, "deploy/docker/entrypoint.sh")
    return reads


def documented_settings() -> set[str]:
    """Names in the settings table of docs/settings.md (`| `NAME` | default | meaning |`)."""
    text = (ROOT / "docs" / "settings.md").read_text()
    return set(re.findall(r"^\|\s*`([A-Z][A-Z0-9_]*)`\s*\|", text, flags=re.M))


def env_example() -> dict[str, str]:
    """Assignments in deploy/.env.example, commented-out ones included (value '')."""
    found: dict[str, str] = {}
    for line in (DEPLOY / ".env.example").read_text().splitlines():
        match = re.match(r"^(#\s*)?([A-Z][A-Z0-9_]*)=(.*)$", line.strip())
        if match:
            found[match.group(2)] = "" if match.group(1) else match.group(3)
    return found


def celery_queues() -> set[str]:
    text = (ROOT / "config" / "celery_settings.py").read_text()
    return set(re.findall(r"""Queue\(\s*["']([a-z_]+)["']""", text))


def queues_of(args: list[str]) -> set[str]:
    """Queues a `celery ... worker -Q a,b` command line consumes."""
    return set(queue_order(args))


def queue_order(args: list[str]) -> list[str]:
    """The `-Q` queues in the order the worker reads them (`queue_order_strategy: priority`)."""
    args = [str(a) for a in args]
    if "worker" not in args or "-Q" not in args:
        return []
    return args[args.index("-Q") + 1].split(",")


def interactive_lane_first(order: list[str]) -> bool:
    """Each `<stage>_interactive` queue is read before its `<stage>` batch queue."""
    return all(
        q + "_interactive" in order and order.index(q + "_interactive") < order.index(q)
        for q in ("detect", "mitigate")
        if q in order
    )
