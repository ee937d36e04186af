"""A document indexed by a real worker, then an answer checked against it by that worker."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from knowledge.models import Document
from tests.conftest import client_for
from tests.fixtures.workers import wait_until
from verification.models import VerificationJob

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]

POLICY = (
    "Returns policy. Items can be returned within 30 days of delivery with the original receipt. "
    "Items on sale cannot be returned. Refunds are issued within 5 business days."
)


def test_upload_index_and_verify_without_context_through_the_worker(start_worker, tenant_a):
    start_worker()
    client = client_for(tenant_a.token)
    kb = client.post("/v1/knowledge-bases", {"name": "Policies"}, format="json").json()["id"]
    upload = SimpleUploadedFile("returns.txt", POLICY.encode(), content_type="text/plain")
    doc = client.post(
        f"/v1/knowledge-bases/{kb}/documents", {"file": upload}, format="multipart"
    ).json()
    assert wait_until(lambda: Document.objects.get().status == "ready", timeout=120)
    shown = client.get(f"/v1/knowledge-bases/{kb}/documents/{doc['id']}").json()
    assert shown["progress"] == 1.0
    assert shown["passages_total"] >= 1
    created = client.post(
        "/v1/verifications",
        {"knowledge_base": kb, "response": "Items can be returned within 90 days of delivery."},
        format="json",
    ).json()
    job_pk = VerificationJob.parse_public_id(created["id"])
    assert wait_until(lambda: VerificationJob.objects.get(pk=job_pk).is_final, timeout=120)
    body = client.get(f"/v1/verifications/{created['id']}").json()
    assert body["detected"] is True
    [span] = [s for s in body["spans"] if "90" in s["text"]]
    assert span["evidence_location"]["document"]["document_name"] == "returns.txt"
    assert body["grounding"]["summary"] == "1 of 1 claims had evidence"
