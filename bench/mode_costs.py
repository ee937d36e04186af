"""Latency and cost per mitigation mode against the local fake provider (not a test).

    python bench/mode_costs.py [--runs 20] [--delay-ms 0]

Runs each mode on the same hallucinated answer with the real lexical detection
pipeline and the real litellm client pointed at `fake_llm`. The fake reports
usage as ~4 characters per token and the models are priced by litellm's map
as `gpt-4o-mini`, so the costs are what that model would charge for these
prompts; the latency is our overhead (litellm, prompts, re-detection) plus
`--delay-ms` of simulated provider time per call.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script from anywhere
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from engine import (
    DetectionConfig,
    DetectionInput,
    LexicalDetector,
    LLMClient,
    ModelConfig,
    cross_check,
    lightweight,
    redetector,
    refine,
    repair,
)
from tests.fixtures.fake_llm import FakeLLM, Reply

CONTEXT = [
    "The Eiffel Tower was completed in 1889 in Paris for the World Fair. It is 330 metres "
    "tall and was designed by the company of Gustave Eiffel."
]
QUERY = "When, where and by whom was the Eiffel Tower built?"
WRONG = "The Eiffel Tower was completed in 1950 in Lyon. It was designed by Gustave Eiffel."
RIGHT = "The Eiffel Tower was completed in 1889 in Paris. It was designed by Gustave Eiffel."


def _responder(delay_s: float):
    def respond(body: dict) -> Reply:
        prompt_chars = sum(len(m.get("content") or "") for m in body["messages"])
        if "Disputed claims" in body["messages"][-1]["content"]:
            content = json.dumps(
                {
                    "claims": [
                        {"id": 1, "action": "replace", "replacement": RIGHT.split(". ")[0] + "."}
                    ]
                }
            )
        else:
            content = RIGHT
        return Reply(
            content=content,
            delay=delay_s,
            prompt_tokens=prompt_chars // 4,
            completion_tokens=max(1, len(content) // 4),
        )

    return respond


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--delay-ms", type=float, default=0.0)
    args = ap.parse_args()
    server = FakeLLM()
    server.start()
    server.responder = _responder(args.delay_ms / 1000)
    cfg = ModelConfig("openai/gpt-4o-mini", api_base=server.api_base, api_key="sk-local")
    client = LLMClient()
    detect = redetector(
        DetectionConfig(classify_queries=False, explain_embeddings=False), LexicalDetector()
    )
    item = DetectionInput.build(CONTEXT, WRONG, QUERY)
    initial = detect(item)
    modes = {
        "lightweight": lambda: lightweight(item, initial, 0.5),
        "repair": lambda: repair(item, initial, redetect=detect),
        "standard": lambda: refine(item, initial, detect, client, cfg),
        "premium": lambda: cross_check(item, initial, detect, client, [cfg, cfg], cfg),
    }
    modes["standard"]()  # warm litellm's first-call imports outside the timings
    print(
        f"{args.runs} runs per mode, provider delay {args.delay_ms:.0f} ms per call, "
        f"initial score {initial.score:.2f}"
    )
    print(f"{'mode':<12}{'p50 ms':>9}{'p95 ms':>9}{'calls':>7}{'tokens':>8}{'cost USD':>12}"
          f"{'final score':>13}")  # fmt: skip
    for name, run in modes.items():
        times, result = [], None
        for _ in range(args.runs):
            t = time.perf_counter()
            result = run()
            times.append((time.perf_counter() - t) * 1000)
        assert result is not None
        times.sort()
        p95 = times[min(len(times) - 1, int(0.95 * len(times)))]
        tokens = result.prompt_tokens + result.completion_tokens
        score = "-" if result.final_score is None else f"{result.final_score:.2f}"
        print(f"{name:<12}{statistics.median(times):>9.1f}{p95:>9.1f}{len(result.calls):>7}"
              f"{tokens:>8}{result.cost_usd:>12.6f}{score:>13}")  # fmt: skip
    server.stop()


if __name__ == "__main__":
    main()
