"""The verification page names every model a mitigation round called, with its own count."""

from __future__ import annotations

import re
from collections import Counter

import pytest
from django.urls import reverse

from verification.models import LLMCallRecord

from .test_billing_reconciles import _run, _setup

pytestmark = pytest.mark.django_db


def test_a_premium_round_shows_the_calls_of_each_model_not_all_under_the_first(
    client, owner_a, tenant_a, client_a, fake_llm, eiffel
):
    # given a premium job whose round asked a verifier (gpt-4o-mini) and a judge model
    _setup(client_a, tenant_a.tenant, fake_llm)
    job = _run(client_a, eiffel.request())
    calls = Counter(LLMCallRecord.objects.filter(job=job).values_list("model", flat=True))
    assert set(calls) == {"openai/gpt-4o-mini", "openai/custom-judge"}
    # when its page is shown
    client.force_login(owner_a)
    page = client.get(reverse("dashboard:verification", args=[job.public_id])).content.decode()
    # then each model carries its own number of calls
    shown = Counter()
    for n, model in re.findall(r'data-calls="(\d+)">([^<]+)</span>', page):
        shown[model] += int(n)
    assert shown == calls
    # and the per-model table shows what the own-key calls cost, not $0
    mini = LLMCallRecord.objects.get(job=job, model="openai/gpt-4o-mini")
    assert f"${mini.cost_usd:.6f}" in page
