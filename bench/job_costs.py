"""Postgres statements, rows written and Redis commands per verification, by stage (not a test).

    python bench/job_costs.py [--n 20] [--batch-size 8] [--json PATH]

The inputs of docs/capacity.md's Postgres and Redis rows. In one process, against the
DATABASE_URL and REDIS_URL of the environment (use a database of your own: it creates a
tenant, jobs and a webhook endpoint there), for a `lightweight` and a `standard` job mix:

* the API: `POST /v1/verifications` through Django's test client (the real middleware,
  authentication, throttle, quota under a plan, job + outbox rows, publish);
* the detect stage: the detect task's body for each message (claim, micro-batch of up to
  `--batch-size` further jobs, detection with the lexical detector, completion);
* the mitigate stage (standard only): the mitigate task against a local fake LLM;
* the webhooks stage: one delivery per job to a local receiver (one subscribed endpoint).

SQL statements are counted with Django's CaptureQueriesContext and split by verb; rows written
are pg_stat_database's tup_inserted / tup_updated / tup_deleted and xact_commit deltas for the
database (nobody else uses it during the run); Redis commands are counted in this process by
wrapping redis-py's command serializers (every command the app and kombu send, pipelines included).
A Celery worker's own broker traffic for consuming a message (BRPOP, the unacked hash and
its index, the ack) is not in these counts: docs/capacity.md adds it from kombu's transport.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("TRUTHLENS_DETECTOR", "lexical")  # costs below do not depend on it
os.environ.setdefault("TRUTHLENS_WEBHOOK_ALLOWED_HOSTS", "127.0.0.1")
os.environ.setdefault("TRUTHLENS_LLM_ALLOWED_HOSTS", "127.0.0.1")

import redis.connection
from django.conf import settings
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

import bench.django_env  # noqa: F401
from tenants.models import ApiKey, Plan, Tenant, WebhookEndpoint
from tests.fixtures.fake_llm import FakeLLM, Reply
from tests.fixtures.llm import configure_llm
from verification.models import VerificationJob, WebhookDelivery
from verification.webhooks.dispatch import attempt_delivery
from workers.tasks.detect import detect
from workers.tasks.mitigate import mitigate

CONTEXT = [
    "The Eiffel Tower was built from 1887 to 1889 for the World's Fair in Paris. "
    "It is 330 metres tall.",
    "It opened to the public in March 1889. Gustave Eiffel's company designed it.",
]
QUERY = "When was the Eiffel Tower built?"
WRONG = "The Eiffel Tower was built in 1950 and is 330 metres tall."
RIGHT = "The Eiffel Tower was built from 1887 to 1889 and is 330 metres tall."

REDIS_COMMANDS: collections.Counter[str] = collections.Counter()


def _counting(pack):
    def counted(self, *args):
        REDIS_COMMANDS[str(args[0]).split()[0].upper()] += 1
        return pack(self, *args)

    return counted


# every command redis-py sends, single or in a pipeline, is packed by one of these
for _serializer in (redis.connection.PythonRespSerializer, redis.connection.HiredisRespSerializer):
    _serializer.pack = _counting(_serializer.pack)


class _Receiver(BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.send_response(200)
        self.end_headers()

    def log_message(self, *args):
        pass


def _pg_stats() -> dict[str, int]:
    with connection.cursor() as cur:
        cur.execute("SELECT pg_stat_clear_snapshot()")
        cur.execute(
            "SELECT xact_commit, tup_inserted, tup_updated, tup_deleted "
            "FROM pg_stat_database WHERE datname = current_database()"
        )
        row = cur.fetchone()
    return dict(zip(("commits", "inserted", "updated", "deleted"), map(int, row), strict=True))


class Stage:
    """Counts for one stage over all its calls."""

    def __init__(self, name: str):
        self.name = name
        self.sql: collections.Counter[str] = collections.Counter()
        self.redis: collections.Counter[str] = collections.Counter()
        self.rows: collections.Counter[str] = collections.Counter()

    def __enter__(self):
        time.sleep(1.2)  # Postgres 15 flushes a backend's statistics at most once a second
        self._pg = _pg_stats()
        self._redis = REDIS_COMMANDS.copy()
        self._cap = CaptureQueriesContext(connection).__enter__()
        return self

    def __exit__(self, *exc):
        self._cap.__exit__(*exc)
        for q in self._cap.captured_queries:
            self.sql[q["sql"].lstrip().split(None, 1)[0].upper()] += 1
        self.redis.update(REDIS_COMMANDS - self._redis)
        time.sleep(1.2)
        after = _pg_stats()
        self.rows.update({k: after[k] - self._pg[k] for k in after})
        # the two statistics reads themselves commit (autocommit): take them out
        self.rows["commits"] -= 2

    def per_job(self, n: int) -> dict:
        return {
            "sql_statements": round(sum(self.sql.values()) / n, 2),
            "sql_by_verb": {k: round(v / n, 2) for k, v in sorted(self.sql.items())},
            "rows_inserted": round(self.rows["inserted"] / n, 2),
            "rows_updated": round(self.rows["updated"] / n, 2),
            "rows_deleted": round(self.rows["deleted"] / n, 2),
            "commits": round(self.rows["commits"] / n, 2),
            "redis_commands": round(sum(self.redis.values()) / n, 2),
            "redis_by_command": {k: round(v / n, 2) for k, v in sorted(self.redis.items())},
        }


def run_mix(mode: str, n: int, client: Client, token: str) -> dict:
    ids: list[str] = []
    stages = {}
    with Stage("api") as st:
        for _ in range(n):
            resp = client.post(
                "/v1/verifications",
                data={"context": CONTEXT, "query": QUERY, "response": WRONG, "mode": mode},
                content_type="application/json",
                HTTP_AUTHORIZATION=f"Bearer {token}",
                HTTP_IDEMPOTENCY_KEY=str(uuid.uuid4()),
            )
            assert resp.status_code == 202, (resp.status_code, resp.content[:300])
            ids.append(str(uuid.UUID(resp.json()["id"].removeprefix("ver_"))))
    stages["api"] = st
    with Stage("detect") as st:
        for job_id in ids:  # one message per job; later ones find their job taken by a batch
            detect.run(job_id)
    stages["detect"] = st
    if mode != "lightweight":
        with Stage("mitigate") as st:
            for job_id in ids:
                mitigate.run(job_id)
        stages["mitigate"] = st
    jobs = VerificationJob.objects.filter(pk__in=ids)
    statuses = collections.Counter(jobs.values_list("status", flat=True))
    deliveries = list(WebhookDelivery.objects.filter(job_id__in=ids).values_list("pk", flat=True))
    with Stage("webhooks") as st:
        for delivery_id in deliveries:
            attempt_delivery(delivery_id)
    stages["webhooks"] = st
    sent = WebhookDelivery.objects.filter(
        pk__in=deliveries, status=WebhookDelivery.SUCCEEDED
    ).count()
    out = {name: s.per_job(n) for name, s in stages.items()}
    total = {
        key: round(sum(out[s][key] for s in out), 2)
        for key in ("sql_statements", "rows_inserted", "rows_updated", "rows_deleted", "commits",
                    "redis_commands")
    }  # fmt: skip
    out["total"] = total
    out["jobs"] = dict(statuses)
    out["webhooks_delivered"] = sent
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=20)
    parser.add_argument("--batch-size", type=int, default=settings.TRUTHLENS["DETECT_BATCH_SIZE"])
    parser.add_argument("--json", help="write the figures here too")
    args = parser.parse_args()
    settings.TRUTHLENS["DETECT_BATCH_SIZE"] = args.batch_size

    receiver = ThreadingHTTPServer(("127.0.0.1", 0), _Receiver)
    threading.Thread(target=receiver.serve_forever, daemon=True).start()
    llm = FakeLLM()
    llm.start()
    llm.responder = lambda body: Reply(content=RIGHT, prompt_tokens=200, completion_tokens=20)

    slug = f"capacity-{uuid.uuid4().hex[:8]}"
    plan = Plan.objects.create(name=slug, rate_limit="100000/min", monthly_quota=10_000_000)
    tenant = Tenant(slug=slug, name="Capacity bench", plan=plan)
    tenant.rotate_webhook_secret()
    tenant.save()
    _, token = ApiKey.issue(tenant)
    endpoint = WebhookEndpoint(tenant=tenant, url=f"http://127.0.0.1:{receiver.server_port}/hook")
    endpoint.set_new_secret()
    endpoint.save()
    configure_llm(tenant, llm)

    client = Client()
    run_mix("lightweight", 3, client, token)  # warm-up: imports, caches, first connections
    result = {
        "n": args.n,
        "detect_batch_size": args.batch_size,
        "detector": settings.TRUTHLENS["DETECTOR"],
        "mixes": {mode: run_mix(mode, args.n, client, token) for mode in ("lightweight", "standard")},
    }  # fmt: skip
    llm.stop()
    receiver.shutdown()

    for mode, stages in result["mixes"].items():
        print(f"\n{mode} ({args.n} jobs, detect batch {args.batch_size}): {stages['jobs']}, "
              f"webhooks delivered {stages['webhooks_delivered']}")  # fmt: skip
        print(f"{'stage':<10}{'SQL stmts':>10}{'inserted':>10}{'updated':>9}{'deleted':>9}"
              f"{'commits':>9}{'redis cmds':>11}  redis by command / SQL by verb")  # fmt: skip
        for name in [s for s in stages if s not in {"jobs", "webhooks_delivered"}]:
            row = stages[name]
            if name == "total":
                print(f"{name:<10}{row['sql_statements']:>10}{row['rows_inserted']:>10}"
                      f"{row['rows_updated']:>9}{row['rows_deleted']:>9}{row['commits']:>9}"
                      f"{row['redis_commands']:>11}")  # fmt: skip
                continue
            print(f"{name:<10}{row['sql_statements']:>10}{row['rows_inserted']:>10}"
                  f"{row['rows_updated']:>9}{row['rows_deleted']:>9}{row['commits']:>9}"
                  f"{row['redis_commands']:>11}  {row['redis_by_command']} / {row['sql_by_verb']}")  # fmt: skip
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1) + "\n")
        print(f"\nwrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
