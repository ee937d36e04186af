"""Dataset pages: an upload with bad rows lists them and stores nothing; a good one lands on
the dataset's page; viewers cannot create; another tenant's dataset reads as missing."""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from quality.models import Dataset

from .test_review_queue import signed_in

pytestmark = pytest.mark.django_db

ROW = {"context": ["Paris is in France."], "query": "Where?", "response": "In Spain.", "label": 1}


def jsonl_file(rows) -> SimpleUploadedFile:
    body = "".join(json.dumps(r) + "\n" for r in rows).encode()
    return SimpleUploadedFile("rows.jsonl", body, content_type="application/jsonl")


def test_bad_rows_are_listed_and_nothing_is_stored(owner_a):
    bad = [ROW, {**ROW, "label": "unsure"}]
    page = signed_in(owner_a).post(
        "/dashboard/datasets/", {"name": "s", "source": "upload", "file": jsonl_file(bad)}
    )
    html = page.content.decode()
    assert page.status_code == 200
    assert 'id="row-errors"' in html
    assert "must be 0/1, true/false or correct/hallucinated" in html
    assert not Dataset.objects.exists()


def test_a_good_upload_opens_the_dataset(owner_a):
    client = signed_in(owner_a)
    answer = client.post(
        "/dashboard/datasets/", {"name": "s", "source": "upload", "file": jsonl_file([ROW])}
    )
    dataset = Dataset.objects.get()
    assert answer.status_code == 302
    assert answer["Location"] == f"/dashboard/datasets/{dataset.public_id}/"
    assert "In Spain." in client.get(answer["Location"]).content.decode()
    download = client.get(f"/dashboard/datasets/{dataset.public_id}/download/")
    assert json.loads(download.content)["answer"] == "In Spain."


def test_viewers_cannot_create_and_other_tenants_cannot_see(owner_a, viewer_a, owner_b):
    answer = signed_in(viewer_a).post(
        "/dashboard/datasets/", {"name": "s", "source": "upload", "file": jsonl_file([ROW])}
    )
    assert answer.status_code == 403
    signed_in(owner_a).post(
        "/dashboard/datasets/", {"name": "a-secret", "source": "upload", "file": jsonl_file([ROW])}
    )
    dataset = Dataset.objects.get()
    other = signed_in(owner_b)
    for path in ("", "download/"):
        assert other.get(f"/dashboard/datasets/{dataset.public_id}/{path}").status_code == 404
    assert other.post(f"/dashboard/datasets/{dataset.public_id}/delete/").status_code == 404
    assert "a-secret" not in other.get("/dashboard/datasets/").content.decode()
    assert Dataset.objects.count() == 1
