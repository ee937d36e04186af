"""The capacity model of docs/capacity.md: measured per-component costs -> pods and nodes.

    python bench/capacity_model.py [--rate 100] [--rate 10000] [--api-ms 31.9]

Pure arithmetic, no service needed. Every input is in INPUTS with where it was measured;
docs/capacity.md quotes this script's output. When a figure is re-measured (the ingest
work of issue 26 item 4 changes the API's CPU per request), change it here, re-run, and
update the doc's tables and, where a count moves, deploy/helm/truthlens/values.yaml.
"""

from __future__ import annotations

import argparse
import math


def _pods(x: float) -> int:
    """Whole pods or nodes for a fractional need (10.000000001 is 10, not 11)."""
    return math.ceil(round(x, 6))


INPUTS = {
    # ---- API ----------------------------------------------------------------------------
    # CPU time of one accepted POST /v1/verifications. 2 cores / 62.6 accepted/s (issue 26:
    # wrk -t2 -c16 -d30s, gunicorn 2x16 threads, workers paused, Postgres, Redis and wrk on
    # the same 2-core machine, so an upper bound). UPDATE HERE after the lean ingest path.
    "api_cpu_ms_per_post": 2000 / 62.6,
    "web_pod_cores": 2,  # 2 gunicorn processes x 16 threads: at most ~2 cores busy
    # ---- detector -----------------------------------------------------------------------
    # per GPU pod (1 GPU + 2 CPU threads), 1k-token context + 150-token answer, H100
    # (docs/benchmarks.md "On a GPU", bench/results/gpu_speed_h100_b8.json / _b32.json)
    "gpu_embedded_per_s": 21.0,  # embedded default, batch 8
    "gpu_transformer_per_s": 94.9,  # transformer path (ModernBERT-base, bf16), batch 32
    # per 2-core CPU detect worker at 1k context: issue 26 "about 3 verifications/s"
    # (p50 317 ms on Xeon, 441 ms on AMD EPYC: bench/detector_speed.py)
    "cpu_detect_per_s": 3.0,
    "cpu_detect_pod_cores": 2,
    # ---- mix (assumptions) -----------------------------------------------------------------
    "share_llm_modes": 0.30,  # standard 25 % + premium 5 %; lightweight 70 %
    "flag_rate": 0.30,  # share of answers flagged (only flagged answers are mitigated)
    "redetections_per_mitigated_job": 2,  # standard: up to 3 rounds; premium: 1 final pass
    "llm_calls_per_mitigated_job": 2,
    "llm_call_s": 2.0,  # provider latency per call (assumption; measure with your provider)
    "webhook_targets_per_job": 1,
    "webhook_receiver_s": 0.3,  # receiver latency per delivery (assumption)
    # ---- mitigate / webhooks pods ------------------------------------------------------------
    "mitigate_pod_cores": 2,
    "mitigate_concurrency": 8,
    "webhooks_concurrency": 16,
    # ---- Postgres and Redis per job (bench/results/job_costs.json, lexical detector) -------
    "pg_statements_plain": 48.2,  # not mitigated: api 19.0 + detect 25.2 + webhook 4.0
    "pg_statements_mitigated": 63.35,  # api 19.0 + detect 11.2 + mitigate 29.15 + webhook 4.0
    "pg_row_writes_plain": 14.0,  # 7.0 inserted + 7.0 updated
    "pg_row_writes_mitigated": 25.05,  # 14.05 inserted + 10.0 updated + 1.0 deleted
    "pg_xacts_plain": 16.75,  # pg_stat_database xact_commit (read-only ones included)
    "pg_xacts_mitigated": 23.75,
    # Postgres statements one core serves: pgbench tpcb-like (5 statements per transaction),
    # 500 tps with 8 clients on this shared 2-core machine (load average 8.7): a floor
    "pg_statements_per_core_s": 500 * 5 / 2,
    # Redis commands: the app's (job_costs.json) + kombu's 9 per consumed message
    # (BRPOP; MULTI ZADD HSET EXEC into the unacked index; MULTI ZREM HDEL EXEC on ack;
    # checked with redis-cli monitor around a real worker, docs/capacity.md)
    "redis_app_plain": 11.0,
    "redis_app_mitigated": 12.5,
    "redis_per_consumed_message": 9,
    # one Redis primary (one thread), commands/s: redis-benchmark floor here was 7,156-14,695
    # unpipelined with the client on the same loaded cores; 100,000 is the planning figure
    # for a dedicated node (measure yours with redis-benchmark on the target)
    "redis_cmds_per_node_s": 100_000,
    "utilisation": 0.60,
    # ---- autoscaling: each lane's wait budget (s) and the index worker's documents ----------
    "wait_budget_s": {
        "detect_interactive": 1,
        "detect": 5,
        "mitigate_interactive": 2,
        "mitigate": 20,
        "webhooks": 5,
        "index": 60,
    },
    "index_passages_per_cpu_s": 6.5,  # docs/knowledge-bases.md, bench/indexing.py
    "index_passages_per_document": 20,  # assumption
}


def pod_rates(inp: dict) -> dict[str, float]:
    """Jobs/s one pod of each worker handles at 100 % (GPU detect pod: embedded default)."""
    redetect_core_s = inp["cpu_detect_pod_cores"] / inp["cpu_detect_per_s"]
    mit_cpu_s = inp["redetections_per_mitigated_job"] * redetect_core_s
    mit_wall_s = inp["llm_calls_per_mitigated_job"] * inp["llm_call_s"] + mit_cpu_s / 2
    return {
        "detect": inp["gpu_embedded_per_s"],
        "mitigate": min(inp["mitigate_pod_cores"] / mit_cpu_s, inp["mitigate_concurrency"] / mit_wall_s),
        "webhooks": inp["webhooks_concurrency"] / inp["webhook_receiver_s"],
        "index": inp["index_passages_per_cpu_s"] / inp["index_passages_per_document"],
    }  # fmt: skip


def keda_thresholds(inp: dict = INPUTS) -> dict[tuple[str, str], str]:
    """(worker, queue) -> KEDA listLength: one pod's rate x utilisation x the lane's budget."""
    rates = pod_rates(inp)
    out = {}
    for queue, budget in inp["wait_budget_s"].items():
        worker = queue.removesuffix("_interactive")
        length = rates[worker] * inp["utilisation"] * budget
        out[(worker, queue)] = str(int(length + 0.5))  # to the nearest message
    return out


def model(rate: float, inp: dict, detector: str) -> dict:
    u = inp["utilisation"]
    mitigated = rate * inp["share_llm_modes"] * inp["flag_rate"]
    plain = rate - mitigated
    out = {"rate": rate, "mitigated_per_s": mitigated}
    api_cores = rate * inp["api_cpu_ms_per_post"] / 1000
    out["web_cores_busy"] = api_cores
    out["web_pods"] = _pods(api_cores / u / inp["web_pod_cores"])
    per_pod = {
        "gpu-embedded": inp["gpu_embedded_per_s"],
        "gpu-transformer": inp["gpu_transformer_per_s"],
        "cpu": inp["cpu_detect_per_s"],
    }[detector]
    out["detect_pods"] = _pods(rate / (per_pod * u))
    redetect_core_s = inp["cpu_detect_pod_cores"] / inp["cpu_detect_per_s"]
    mit_cpu_s = inp["redetections_per_mitigated_job"] * redetect_core_s
    out["mitigate_job_cpu_s"] = mit_cpu_s
    out["mitigate_job_wall_s"] = (
        inp["llm_calls_per_mitigated_job"] * inp["llm_call_s"] + mit_cpu_s / 2
    )
    out["mitigate_pod_per_s"] = pod_rates(inp)["mitigate"]
    out["mitigate_pods"] = _pods(mitigated / (out["mitigate_pod_per_s"] * u))
    deliveries = rate * inp["webhook_targets_per_job"]
    out["webhooks_pod_per_s"] = inp["webhooks_concurrency"] / inp["webhook_receiver_s"]
    out["webhooks_pods"] = _pods(deliveries / (out["webhooks_pod_per_s"] * u))
    stmts = plain * inp["pg_statements_plain"] + mitigated * inp["pg_statements_mitigated"]
    out["pg_statements_s"] = stmts
    out["pg_row_writes_s"] = (
        plain * inp["pg_row_writes_plain"] + mitigated * inp["pg_row_writes_mitigated"]
    )
    out["pg_xacts_s"] = plain * inp["pg_xacts_plain"] + mitigated * inp["pg_xacts_mitigated"]
    out["pg_cores"] = _pods(stmts / inp["pg_statements_per_core_s"] / u)
    messages = rate + mitigated + deliveries  # detect + mitigate + webhooks
    redis = (
        plain * inp["redis_app_plain"]
        + mitigated * inp["redis_app_mitigated"]
        + messages * inp["redis_per_consumed_message"]
    )
    out["redis_cmds_s"] = redis
    out["redis_nodes"] = _pods(redis / (inp["redis_cmds_per_node_s"] * u))
    out["redis_new_connections_s"] = rate  # wait.py opens one per completed job
    out["pg_connections_web"] = out["web_pods"] * 2 * 16
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rate", type=float, action="append")
    parser.add_argument("--api-ms", type=float, help="override the API CPU ms per POST")
    args = parser.parse_args()
    inp = dict(INPUTS)
    if args.api_ms:
        inp["api_cpu_ms_per_post"] = args.api_ms
    print(f"API CPU per accepted POST: {inp['api_cpu_ms_per_post']:.1f} ms (input)")
    for rate in args.rate or [100, 10_000]:
        for detector in ("gpu-embedded", "gpu-transformer", "cpu"):
            m = model(rate, inp, detector)
            print(f"\n{rate:,.0f}/s, detect on {detector}")
            for key, value in m.items():
                print(f"  {key:<26}{value:>14,.2f}" if isinstance(value, float) else
                      f"  {key:<26}{value:>14,}")  # fmt: skip
    print("\nKEDA listLength per queue (worker, queue):")
    for (worker, queue), length in keda_thresholds(inp).items():
        print(f"  {worker:<10}{queue:<22}{length:>6}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
