"""`truthlens verify` as a user runs it: a subprocess against the live server and a real
worker, interrupted and resumed."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from truthlens.cli.rows import RowError, read_rows

from tests.fixtures.examples import EIFFEL
from tests.fixtures.workers import wait_until
from verification.models import VerificationJob

CONTEXT = list(EIFFEL.context)
FAITHFUL = ["It was built from 1887 to 1889.", "It is 330 metres tall.", "It opened in 1889."]
WRONG = ["It was built in 1950.", "It is 530 metres tall.", "It opened in 1925."]


ROWS = 90


def _rows(count: int) -> list[dict]:
    rows = []
    for i in range(count):
        wrong = i % 2 == 1
        answer = (WRONG if wrong else FAITHFUL)[i % 3]
        rows.append(
            {
                "id": f"r{i}",
                "context": CONTEXT,
                "query": EIFFEL.query,
                "response": answer,
                "label": "hallucinated" if wrong else "faithful",
            }
        )
    return rows


def _cli(server, *args: str) -> subprocess.Popen:
    env = {
        **os.environ,
        "TRUTHLENS_API_KEY": server.tenant.token,
        "TRUTHLENS_BASE_URL": server.url,
    }
    return subprocess.Popen(
        [sys.executable, "-m", "truthlens.cli.main", "verify", *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # a runner started in the background ignores SIGINT, and children inherit that: give
        # the CLI the default action back so it sees Ctrl-C as a user's terminal sends it
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_an_interrupted_batch_resumes_without_sending_a_row_twice(worker_server, tmp_path):
    # given labelled rows, enough that an interrupt after the first few lands mid-run however
    # fast the worker is (30 rows once finished before Ctrl-C arrived)
    source = tmp_path / "rows.jsonl"
    source.write_text("".join(json.dumps(row) + "\n" for row in _rows(ROWS)))
    out, report = tmp_path / "results.jsonl", tmp_path / "report.html"
    # when the first run is interrupted (Ctrl-C) after a few rows
    first = _cli(worker_server, str(source), "--out", str(out), "--concurrency", "2")
    assert wait_until(lambda: out.exists() and len(_lines(out)) >= 4, timeout=120)
    first.send_signal(signal.SIGINT)
    first.communicate(timeout=60)
    finished_first = len(_lines(out))
    assert finished_first < ROWS, "the first run finished before it could be interrupted"
    # and a second run resumes it
    second = _cli(worker_server, str(source), "--out", str(out), "--report", str(report))
    stdout, stderr = second.communicate(timeout=300)
    # then every row was verified once: one line and one job per row
    assert second.returncode == 0, stderr
    assert f"resuming: {finished_first} of {ROWS} rows" in stderr
    results = _lines(out)
    assert sorted(r["row"] for r in results) == sorted(f"r{i}" for i in range(ROWS))
    assert VerificationJob.objects.count() == ROWS
    # the summary has verdict counts, cost, latency percentiles and the labelled figures
    assert "hallucinated" in stdout
    assert "faithful" in stdout
    assert "latency p50 / p95 (ms)" in stdout
    assert "balanced accuracy" in stdout
    by_row = {r["row"]: r for r in results}
    assert by_row["r1"]["detected"] is True  # "built in 1950"
    assert by_row["r0"]["detected"] is False
    # the report holds the confusion matrix and the score plot as images
    page = report.read_text()
    assert page.count("data:image/png;base64,") == 2
    assert "Balanced accuracy" in page
    # and a third run has nothing left to send
    third = _cli(worker_server, str(source), "--out", str(out))
    _, stderr = third.communicate(timeout=120)
    assert third.returncode == 0
    assert f"resuming: {ROWS} of {ROWS} rows" in stderr
    assert VerificationJob.objects.count() == ROWS


def test_csv_rows_read_context_lists_labels_and_stable_keys(tmp_path):
    source = tmp_path / "rows.csv"
    source.write_text(
        "context,query,response,label\n"
        '"[""a"", ""b""]",q,It is 1950.,1\n'
        "plain context,q,It is fine.,faithful\n"
        "plain context,q,It is fine.,faithful\n"
    )
    rows = read_rows(source)
    assert rows[0].body["context"] == ["a", "b"]
    assert rows[1].body["context"] == "plain context"
    assert [r.label for r in rows] == [True, False, False]
    # identical rows stay two rows, with two keys; keys do not change between reads
    assert rows[1].key != rows[2].key
    assert [r.idempotency_key() for r in read_rows(source)] == [r.idempotency_key() for r in rows]
    assert rows[0].idempotency_key() != rows[0].idempotency_key(run_id="again")


def test_a_row_without_an_answer_is_refused_before_anything_is_sent(tmp_path):
    source = tmp_path / "rows.jsonl"
    source.write_text(json.dumps({"context": "c", "query": "q"}) + "\n")
    with pytest.raises(RowError, match="rows.jsonl:1: no response"):
        read_rows(source)
