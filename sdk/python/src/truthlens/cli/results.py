"""The `--out` file: one JSON line per finished row, appended as rows finish, so a run that is
interrupted keeps everything it finished and a new run skips it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..models import Verification
from .rows import Row


def done_rows(path: Path) -> dict[str, dict[str, Any]]:
    """Rows already finished in `path` (rows whose last try was an error are retried)."""
    finished: dict[str, dict[str, Any]] = {}
    if not path.exists():
        return finished
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            try:
                record = json.loads(line)
            except ValueError:
                continue  # a line cut short when the run was killed
            if not isinstance(record, dict) or "row" not in record:
                continue
            if record.get("error"):
                finished.pop(record["row"], None)
            else:
                finished[record["row"]] = record
    return finished


def record_for(row: Row, result: Verification, latency_ms: float) -> dict[str, Any]:
    return {
        "row": row.key,
        "id": result.id,
        "status": result.status,
        "verification_status": result.verification_status,
        "verdict": result.verdict,
        "detected": result.detected,
        "score": result.score,
        "threshold": result.threshold,
        "risk_level": result.risk_level,
        "label": row.label,
        "cost_usd": result.usage.cost_usd,
        "latency_ms": round(latency_ms, 1),
        "server_latency_ms": (result.latency_ms or {}).get("total"),
        "spans": [span.model_dump(mode="json") for span in result.spans],
        "final_response": result.final_response,
        "error_code": result.error_code,
        "error": None,
    }


def error_record(row: Row, message: str, latency_ms: float) -> dict[str, Any]:
    return {
        "row": row.key,
        "label": row.label,
        "latency_ms": round(latency_ms, 1),
        "error": message,
    }
