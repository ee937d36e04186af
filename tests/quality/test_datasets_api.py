"""`/v1/datasets`: uploads checked row by row (nothing partial kept), plan limits, the
trainer's JSONL on download, and tenant isolation."""

from __future__ import annotations

import csv
import io
import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from engine.train.datagen import load_sources
from quality.models import Dataset, DatasetRow
from tenants.models import Plan

pytestmark = pytest.mark.django_db

GOOD = [
    {"context": ["The tower was built from 1887 to 1889."], "query": "When was it built?",
     "response": "It was built in 1950.", "label": 1,
     "spans": [{"start": 16, "end": 20, "text": "1950"}]},
    {"context": "The tower is 330 metres tall.", "question": "How tall?",
     "answer": "It is 330 metres tall.", "label": "correct"},
]  # fmt: skip


def jsonl(rows) -> str:
    return "".join(json.dumps(r) + "\n" for r in rows)


def upload(client, name: str, content: str, fmt: str = "jsonl"):
    return client.post(
        "/v1/datasets", {"name": name, "format": fmt, "content": content}, format="json"
    )


def test_it_stores_a_valid_jsonl_upload_as_version_one_then_two(client_a, tenant_a):
    first = upload(client_a, "support", jsonl(GOOD))
    second = upload(client_a, "support", jsonl(GOOD[:1]))
    assert first.status_code == 201, first.json()
    assert (first.json()["version"], first.json()["size"]) == (1, 2)
    assert (second.json()["version"], second.json()["size"]) == (2, 1)
    row = DatasetRow.objects.get(dataset__version=1, position=1)
    assert (row.context, row.query, row.label) == (
        ["The tower is 330 metres tall."],
        "How tall?",
        0,
    )


def test_it_accepts_a_multipart_csv_file(client_a):
    out = io.StringIO()
    writer = csv.DictWriter(out, ["context", "query", "response", "label", "spans"])
    writer.writeheader()
    writer.writerow(
        {"context": json.dumps(["A", "Paris is in France."]), "query": "Where?",
         "response": "Paris is in Spain.", "label": "hallucinated",
         "spans": json.dumps([{"start": 12, "end": 17}])}
    )  # fmt: skip
    file = SimpleUploadedFile("rows.csv", out.getvalue().encode(), content_type="text/csv")
    answer = client_a.post("/v1/datasets", {"name": "csv-set", "file": file}, format="multipart")
    assert answer.status_code == 201, answer.json()
    row = DatasetRow.objects.get()
    assert row.context == ["A", "Paris is in France."]
    assert row.spans == [{"start": 12, "end": 17, "text": "Spain"}]


def test_a_bad_row_refuses_the_whole_upload_and_names_each_problem(client_a):
    bad = [
        GOOD[0],
        {"context": [], "response": "x", "label": 1},
        {"context": ["c"], "response": "short", "label": "maybe"},
        {"context": ["c"], "response": "short", "label": 1, "spans": [{"start": 2, "end": 99}]},
        {"context": ["c"], "response": "fine", "label": 0, "spans": [{"start": 0, "end": 2}]},
    ]
    bad.append({"context": ["c"], "response": "nul \u0000 here", "label": 0})
    text = jsonl(bad) + "{not json\n"
    answer = upload(client_a, "broken", text)
    assert answer.status_code == 400
    assert answer["Content-Type"].startswith("application/problem+json")
    fields = {(e["field"], e["message"]) for e in answer.json()["errors"]}
    assert ("rows.2.context", "is required (at least one non-empty passage)") in fields
    assert any(f == "rows.3.label" for f, _ in fields)
    assert any(f == "rows.4.spans" and "after the response" in m for f, m in fields)
    assert any(f == "rows.5.spans" and "correct answer" in m for f, m in fields)
    assert ("rows.6.response", "must not contain NUL characters") in fields
    assert ("rows.7.row", "is not valid JSON") in fields
    assert not Dataset.objects.exists()
    assert not DatasetRow.objects.exists()


def test_a_csv_without_the_needed_columns_is_refused(client_a):
    answer = upload(client_a, "nocols", "text,label\nhello,1\n", fmt="csv")
    assert answer.status_code == 400
    assert "the header lacks context, response" in json.dumps(answer.json())


def test_it_refuses_more_datasets_or_rows_than_the_plan_allows(client_a, tenant_a):
    tenant_a.tenant.plan = Plan.objects.create(name="tiny", max_datasets=1, max_dataset_rows=1)
    tenant_a.tenant.save()
    too_many_rows = upload(client_a, "big", jsonl(GOOD))
    assert too_many_rows.status_code == 400
    assert "the plan allows 1" in json.dumps(too_many_rows.json())
    assert upload(client_a, "one", jsonl(GOOD[:1])).status_code == 201
    second = upload(client_a, "two", jsonl(GOOD[:1]))
    assert second.status_code == 403
    assert "allows 1 datasets" in second.json()["detail"]
    assert Dataset.objects.count() == 1


def test_the_download_is_the_jsonl_the_trainer_reads(client_a, tmp_path):
    created = upload(client_a, "support", jsonl(GOOD)).json()
    answer = client_a.get(f"/v1/datasets/{created['id']}/download")
    assert answer.status_code == 200
    assert answer["Content-Type"].startswith("application/x-ndjson")
    body = b"".join(answer.streaming_content) if answer.streaming else answer.content
    # the trainer's own reader takes the file as one of its sources
    (tmp_path / "begin").mkdir()
    (tmp_path / "begin" / "dev.jsonl").write_bytes(body)
    sources = load_sources(tmp_path, ["begin/dev.jsonl"])
    assert [s.faithful for s in sources] == [[], ["It is 330 metres tall."]]
    first = json.loads(body.decode().splitlines()[0])
    assert first["spans"] == [{"start": 16, "end": 20, "text": "1950"}]
    # and the download uploads again unchanged
    again = upload(client_a, "copy", body.decode())
    assert again.status_code == 201
    assert list(DatasetRow.objects.filter(dataset__name="copy").values_list("label", "spans")) == [
        (1, first["spans"]), (0, [])
    ]  # fmt: skip


def test_list_and_delete(client_a):
    created = upload(client_a, "support", jsonl(GOOD)).json()
    listed = client_a.get("/v1/datasets").json()
    assert [d["id"] for d in listed["results"]] == [created["id"]]
    assert client_a.delete(f"/v1/datasets/{created['id']}").status_code == 204
    assert client_a.get(f"/v1/datasets/{created['id']}").status_code == 404
    assert not DatasetRow.objects.exists()


def test_another_tenants_dataset_reads_as_missing(client_a, client_b):
    created = upload(client_a, "secret", jsonl(GOOD)).json()
    assert client_b.get("/v1/datasets").json()["results"] == []
    for answer in (
        client_b.get(f"/v1/datasets/{created['id']}"),
        client_b.get(f"/v1/datasets/{created['id']}/download"),
        client_b.delete(f"/v1/datasets/{created['id']}"),
    ):
        assert answer.status_code == 404
    assert Dataset.objects.filter(name="secret").exists()
