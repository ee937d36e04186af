"""`truthlens.webhooks.verify` on events the real worker signed and delivered."""

from __future__ import annotations

import json
import time

import pytest
from truthlens import webhooks
from truthlens.webhooks import WebhookVerificationError

from tests.fixtures.examples import EIFFEL

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def test_events_signed_during_a_rotation_pass_with_either_secret(worker_server, client, receiver):
    # given an endpoint whose secret was rotated through the API (the old one still signs)
    endpoint = client.request("POST", "/v1/webhook-endpoints", json={"url": receiver.url}).json()
    old = endpoint["secret"]
    rotated = client.request("POST", f"/v1/webhook-endpoints/{endpoint['id']}/rotate-secret")
    new = rotated.json()["secret"]
    assert new != old
    # when a verification completes, the worker delivers its event
    result = client.verify(context=list(EIFFEL.context), response=EIFFEL.response)
    assert receiver.wait_for(1, timeout=60)
    got = receiver.received[0]
    # then the event verifies with the new secret, the old one, or both held at once
    header = got.headers["X-TruthLens-Signature"]
    assert header.count("v1=") == 2
    for secret in (new, old, [new, old], ["not-it", old]):
        event = webhooks.verify(got.body, got.headers, secret)
        assert event["type"] == "verification.completed"
        assert event["data"]["id"] == result.id
    # and a wrong secret, an edited body or a stale timestamp are refused
    with pytest.raises(WebhookVerificationError, match="no signature matches"):
        webhooks.verify(got.body, got.headers, "wrong")
    edited = json.dumps({**json.loads(got.body), "type": "verification.failed"}).encode()
    with pytest.raises(WebhookVerificationError):
        webhooks.verify(edited, got.headers, new)
    with pytest.raises(WebhookVerificationError, match="timestamp"):
        webhooks.verify(got.body, got.headers, new, now=time.time() + 3600)
    with pytest.raises(WebhookVerificationError, match="header"):
        webhooks.verify(got.body, {}, new)


def test_a_document_is_uploaded_indexed_and_checked_against(worker_server, client, tmp_path):
    # given a knowledge base with one uploaded file, waited on until indexed
    kb = client.knowledge_bases.create("Policies")
    path = tmp_path / "returns.txt"
    path.write_text(
        "Returns policy. Items can be returned within 30 days of delivery with the receipt. "
        "Items on sale cannot be returned."
    )
    document = client.knowledge_bases.upload(kb.id, path, timeout=120)
    assert document.status == "ready"
    assert document.progress == 1.0
    assert [d.id for d in client.knowledge_bases.documents(kb.id)] == [document.id]
    assert [k.name for k in client.knowledge_bases.list()] == ["Policies"]
    # when an answer without context is verified against it
    result = client.verify(
        knowledge_base=kb.id, response="Items can be returned within 90 days of delivery."
    )
    # then the wrong figure is found, with the document as evidence
    [span] = [s for s in result.spans if "90" in s.text]
    assert span.evidence_location.document.document_name == "returns.txt"
