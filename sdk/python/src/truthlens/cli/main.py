"""`truthlens verify FILE.jsonl|csv --out results.jsonl`: verify many answers.

Bounded concurrency, a progress bar with rate and ETA, results appended as they finish,
resumable (rows already in --out are skipped; a re-sent row reuses its Idempotency-Key,
so the server replays it instead of billing it twice), a summary, and with labels the
accuracy figures and an HTML report.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table
from rich.text import Text

from .._version import __version__
from ..aio import AsyncTruthLens
from ..errors import TruthLensError
from .metrics import Summary, summarize
from .report import ReportUnavailable, write_report
from .results import done_rows
from .rows import RowError, read_rows
from .runner import run_rows


class RateColumn(ProgressColumn):
    def render(self, task) -> Text:
        speed = task.finished_speed or task.speed
        return Text("-- rows/s" if speed is None else f"{speed:.1f} rows/s")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="truthlens", description="TruthLens command line")
    parser.add_argument("--version", action="version", version=f"truthlens {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    verify = commands.add_parser("verify", help="verify every row of a JSONL or CSV file")
    verify.add_argument("file", type=Path, help=".jsonl or .csv: context, query, response[, label]")
    verify.add_argument("--out", type=Path, required=True, help="results, one JSON line per row")
    verify.add_argument("--report", type=Path, help="HTML report (rows with labels)")
    verify.add_argument("--concurrency", type=int, default=8, help="rows in flight (default 8)")
    verify.add_argument("--timeout", type=float, default=300, help="seconds per row")
    verify.add_argument("--mode", help="mitigation mode for every row (default: the policy's)")
    verify.add_argument("--threshold", type=float, help="detection threshold for every row")
    verify.add_argument(
        "--run-id", default="", help="verify rows again that an earlier run already sent"
    )
    verify.add_argument("--api-key", help="default: $TRUTHLENS_API_KEY")
    verify.add_argument("--base-url", help="default: $TRUTHLENS_BASE_URL")
    verify.add_argument("--max-retries", type=int, default=5)
    verify.add_argument("--quiet", action="store_true", help="no progress bar")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    console = Console(stderr=True)
    try:
        return _verify(args, console)
    except (RowError, TruthLensError, ReportUnavailable, OSError) as exc:
        console.print(f"[red]error:[/red] {exc}")
        return 2
    except KeyboardInterrupt:
        console.print(f"interrupted: finished rows are in {args.out}; run again to resume")
        return 130


def _verify(args: argparse.Namespace, console: Console) -> int:
    rows = read_rows(args.file)
    done = done_rows(args.out)
    keys = {row.key for row in rows}
    todo = [row for row in rows if row.key not in done]
    overrides: dict[str, Any] = {
        k: v for k, v in (("mode", args.mode), ("threshold", args.threshold)) if v is not None
    }
    if done:
        console.print(
            f"resuming: {len(rows) - len(todo)} of {len(rows)} rows already in {args.out}"
        )
    started = time.monotonic()
    new = asyncio.run(_send(args, todo, overrides, console)) if todo else []
    elapsed = time.monotonic() - started
    records = [r for r in done.values() if r["row"] in keys] + new
    summary = summarize(records)
    _print_summary(console, summary, len(new), elapsed)
    if args.report:
        if summary.confusion is None:
            console.print("no labels in the rows: no report written")
        else:
            thresholds = Counter(r.get("threshold") for r in records if r.get("threshold"))
            threshold = thresholds.most_common(1)[0][0] if thresholds else None
            write_report(args.report, summary, str(args.file), threshold)
            console.print(f"report: {args.report}")
    return 1 if summary.by_outcome.get("error") else 0


async def _send(args, todo, overrides, console: Console) -> list[dict[str, Any]]:
    columns = (
        TextColumn("verifying"),
        BarColumn(),
        MofNCompleteColumn(),
        RateColumn(),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
    )
    async with AsyncTruthLens(
        api_key=args.api_key,
        base_url=args.base_url,
        max_retries=args.max_retries,
        timeout=60,
    ) as client:
        with Progress(*columns, console=console, disable=args.quiet) as progress:
            task = progress.add_task("rows", total=len(todo))
            return await run_rows(
                client,
                todo,
                args.out,
                concurrency=args.concurrency,
                timeout=args.timeout,
                run_id=args.run_id,
                overrides=overrides,
                advance=lambda record: progress.advance(task),
            )


def _fmt(value: float | None, digits: int = 3) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def _print_summary(console: Console, summary: Summary, sent: int, elapsed: float) -> None:
    out = Console()
    table = Table(title="TruthLens batch summary", show_header=False)
    table.add_row("rows", str(summary.rows))
    for name, count in summary.by_outcome.most_common():
        table.add_row(f"  {name}", str(count))
    table.add_row("cost (USD)", f"{summary.cost_usd:.6f}")
    table.add_row(
        "latency p50 / p95 (ms)", f"{_fmt(summary.p50_ms, 0)} / {_fmt(summary.p95_ms, 0)}"
    )
    if sent:
        table.add_row("this run", f"{sent} rows in {elapsed:.1f} s ({sent / elapsed:.1f} rows/s)")
    confusion = summary.confusion
    if confusion is not None:
        table.add_row("balanced accuracy", _fmt(confusion.balanced_accuracy))
        table.add_row("precision (hallucinated)", _fmt(confusion.precision))
        table.add_row("recall (hallucinated)", _fmt(confusion.recall))
        table.add_row(
            "confusion (tp fp tn fn)",
            f"{confusion.tp} {confusion.fp} {confusion.tn} {confusion.fn}"
            + (
                f"; {confusion.unscored} labelled rows without a verdict"
                if confusion.unscored
                else ""
            ),
        )
    out.print(table)


if __name__ == "__main__":
    sys.exit(main())
