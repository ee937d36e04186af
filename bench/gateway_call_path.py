"""Which of our modules one gateway `POST /v1/messages` runs through, and how often its
call path goes back and forth between the HTTP layer (`api`) and the service layer.

`sys.setprofile` (and `threading.setprofile`, for a stream's helper threads) records
every call whose function lives in one of our packages while the request runs (the
Django test client, in-process; a local fake upstream; no worker, so the verdict is
late after `TRUTHLENS_GATEWAY_WAIT_SECONDS`=0.2: the path is the same, only the wait is
cut short). It prints:

* modules: the distinct modules of ours entered;
* http -> service calls: calls made from an `api.*` frame into another package of ours
  (each one is a trip out of the HTTP layer, and control returns to it afterwards);
* service -> http calls: calls from another package of ours into `api.*` (the domain
  calling back into the HTTP layer).

    DATABASE_URL=... REDIS_URL=... .venv/bin/python bench/gateway_call_path.py [--stream]
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
from collections import Counter
from pathlib import Path

ROOT = Path(os.environ.get("GATEWAY_CALL_PATH_ROOT", Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.settings")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.core.management import call_command  # noqa: E402
from rest_framework.test import APIClient  # noqa: E402

from tenants.models import ApiKey, Tenant  # noqa: E402
from tests.fixtures.fake_llm import FakeLLM, Reply  # noqa: E402
from tests.fixtures.llm import configure_llm  # noqa: E402

OURS = (
    "api", "verification", "engine", "tenants", "security", "observability", "knowledge",
    "quality", "config",
)  # fmt: skip
DOC = "The Eiffel Tower was built from 1887 to 1889 on the Champ de Mars in Paris."


def package(module: str) -> str | None:
    top = module.split(".", 1)[0]
    return top if top in OURS else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stream", action="store_true")
    args = parser.parse_args()
    call_command("migrate", verbosity=0)
    settings.TRUTHLENS["GATEWAY_WAIT_SECONDS"] = 0.2
    fake = FakeLLM()
    fake.start()
    tenant, _ = Tenant.objects.get_or_create(slug="gw-path", defaults={"name": "call path"})
    tenant.llm_providers.all().delete()
    configure_llm(tenant, fake)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {ApiKey.issue(tenant)[1]}")
    body = {
        "model": "openai/primary",
        "max_tokens": 100,
        "system": f"<document>{DOC}</document>",
        "messages": [{"role": "user", "content": "When was the Eiffel Tower built?"}],
        "stream": args.stream,
    }

    def send() -> None:
        fake.script(Reply(content="It was built in 1950. It stands in Paris."))
        response = client.post("/v1/messages", body, format="json")
        assert response.status_code == 200, response.content
        if args.stream:
            b"".join(response.streaming_content)

    send()  # warm-up: imports and caches
    modules: set[str] = set()
    edges: Counter[tuple[str, str]] = Counter()
    crossings: Counter[tuple[str, str]] = Counter()  # (caller module, callee module)
    seen = threading.Lock()

    def profile(frame, event, arg):
        if event != "call":
            return
        module = frame.f_globals.get("__name__", "")
        if package(module) is None:
            return
        caller = frame.f_back
        while caller is not None and package(caller.f_globals.get("__name__", "")) is None:
            caller = caller.f_back  # the nearest frame of ours (Django/DRF frames between)
        with seen:
            modules.add(module)
            if caller is not None:
                name = caller.f_globals["__name__"]
                edge = (package(name) or "", package(module) or "")
                edges[edge] += 1
                if (edge[0] == "api") != (edge[1] == "api"):
                    crossings[(name, module)] += 1

    threading.setprofile(profile)
    sys.setprofile(profile)
    try:
        send()
    finally:
        sys.setprofile(None)
        threading.setprofile(None)
        fake.stop()
    http_out = sum(n for (a, b), n in edges.items() if a == "api" and b != "api")
    http_in = sum(n for (a, b), n in edges.items() if a != "api" and b == "api")
    print(f"POST /v1/messages stream={args.stream}")
    print(f"modules of ours entered: {len(modules)}")
    for top in OURS:
        names = sorted(m for m in modules if package(m) == top)
        if names:
            print(f"  {top} ({len(names)}): {', '.join(names)}")
    print(f"http -> service calls (from api.* into another package): {http_out}")
    print(f"service -> http calls (from another package into api.*): {http_in}")
    for (caller_name, callee), n in sorted(crossings.items()):
        print(f"  {n:4d}  {caller_name} -> {callee}")


if __name__ == "__main__":
    main()
