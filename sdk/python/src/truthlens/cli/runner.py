"""Send the rows with bounded concurrency, show progress, append results as they finish."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

from ..aio import AsyncTruthLens
from ..errors import APIError, TruthLensError
from .results import error_record, record_for
from .rows import Row


async def run_rows(
    client: AsyncTruthLens,
    rows: list[Row],
    out: Path,
    *,
    concurrency: int,
    timeout: float,
    run_id: str,
    overrides: dict[str, Any],
    advance: Callable[[dict[str, Any]], None],
) -> list[dict[str, Any]]:
    """Verify `rows` (at most `concurrency` at once); each finished row's record is appended to
    `out` and flushed before the next is taken, then passed to `advance`."""
    queue: asyncio.Queue[Row] = asyncio.Queue()
    for row in rows:
        queue.put_nowait(row)
    records: list[dict[str, Any]] = []
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("a", encoding="utf-8") as handle:

        async def worker() -> None:
            while True:
                try:
                    row = queue.get_nowait()
                except asyncio.QueueEmpty:
                    return
                record = await _one(client, row, timeout, run_id, overrides)
                handle.write(json.dumps(record, ensure_ascii=False) + "\n")
                handle.flush()
                records.append(record)
                advance(record)

        await asyncio.gather(*(worker() for _ in range(max(1, concurrency))))
    return records


async def _one(
    client: AsyncTruthLens, row: Row, timeout: float, run_id: str, overrides: dict[str, Any]
) -> dict[str, Any]:
    started = time.monotonic()
    try:
        result = await client.verify(
            timeout=timeout,
            idempotency_key=row.idempotency_key(run_id, overrides),
            **{**row.body, **overrides},
        )
    except APIError as exc:
        return error_record(row, f"{exc.status} {exc.slug}: {exc.detail}", _ms(started))
    except (TruthLensError, httpx.HTTPError, OSError) as exc:
        return error_record(row, f"{type(exc).__name__}: {exc}", _ms(started))
    return record_for(row, result, _ms(started))


def _ms(started: float) -> float:
    return (time.monotonic() - started) * 1000
