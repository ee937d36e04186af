"""One accepted `POST /v1/verifications`, in process: SQL statements and a cProfile.

    python bench/ingest_profile.py [--n 200] [--top 25] [--quota 1000000]

Creates a tenant on a plan with a monthly quota (so the quota path runs), warms up,
then prints the SQL statements of one accepted POST (Django's CaptureQueriesContext),
the mean wall time per POST over `--n` sequential POSTs, and the top of a cProfile
of those POSTs sorted by cumulative time. Uses the database in DATABASE_URL (use a
dedicated one) and does not start any worker: the jobs stay queued.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django  # noqa: E402

django.setup()

from django.db import connection  # noqa: E402
from django.test.utils import CaptureQueriesContext  # noqa: E402
from rest_framework.test import APIClient  # noqa: E402

from tenants.models import ApiKey, Plan, Tenant  # noqa: E402

PAYLOAD = {
    "context": [
        "The Eiffel Tower is a wrought-iron lattice tower in Paris. It was built from 1887 "
        "to 1889 and is 330 metres tall."
    ],
    "query": "When was the Eiffel Tower built and how tall is it?",
    "response": "The Eiffel Tower was built in 1950 and is 330 metres tall.",
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=200)
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--quota", type=int, default=1_000_000)
    parser.add_argument("--callees", default="", help="also print the callees of this function")
    args = parser.parse_args()
    plan, _ = Plan.objects.get_or_create(
        name="ingest-profile",
        defaults={"rate_limit": "1000000/min", "monthly_quota": args.quota},
    )
    tenant = Tenant(slug=f"ingest-profile-{int(time.time() * 1000)}", name="ingest", plan=plan)
    tenant.rotate_webhook_secret()
    tenant.save()
    _, token = ApiKey.issue(tenant)
    client = APIClient(SERVER_NAME="localhost")
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")

    def post():
        response = client.post("/v1/verifications", PAYLOAD, format="json")
        assert response.status_code == 202, (response.status_code, response.content[:300])
        return response

    for _ in range(5):
        post()
    with CaptureQueriesContext(connection) as queries:
        response = post()
    print(f"SQL statements in one accepted POST: {len(queries)}")
    for i, q in enumerate(queries.captured_queries, 1):
        print(f"  {i:2}. {q['sql'][:150]}")
    print(f"202 body: {len(response.content)} bytes")
    started = time.perf_counter()
    for _ in range(args.n):
        post()
    print(f"sequential: {(time.perf_counter() - started) / args.n * 1000:.2f} ms per POST")
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(args.n):
        post()
    profiler.disable()
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("cumulative").print_stats(args.top)
    if args.callees:
        pstats.Stats(profiler, stream=out).sort_stats("cumulative").print_callees(args.callees)
    print(out.getvalue())
    return 0


if __name__ == "__main__":
    sys.exit(main())
