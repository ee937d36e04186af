"""A job is planned once: the detect stage stores its plan, the mitigate stage runs it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from engine.job_plan import JobPlan
from tenants.models import Policy
from tests.fixtures.llm import configure_llm
from verification.actions.claim import claim
from verification.actions.create import NewVerification, create_verification
from verification.actions.stages import claim_mitigation
from verification.models import JobStage, OutboxMessage
from verification.models.plan import PLAN_KEYS
from verification.queue.enqueue import STAGE_TASKS, enqueue_stage
from verification.stages import mitigate as mitigate_stage
from verification.stages.detect import process_jobs

pytestmark = pytest.mark.django_db

CONTEXT = ["The Eiffel Tower was built from 1887 to 1889. It is 330 metres tall."]
WRONG = "The Eiffel Tower was built in 1950. It is 330 metres tall."
RIGHT = "The Eiffel Tower was built from 1887 to 1889. It is 330 metres tall."


def _detect(tenant, **request):
    job, _ = create_verification(
        tenant,
        NewVerification(context=CONTEXT, query="When was it built?", response=WRONG, **request),
    )
    process_jobs([claim(job.pk)])
    job.refresh_from_db()
    return job


def test_the_hand_off_stores_the_plan_the_detect_stage_made(tenant_a, fake_llm):
    tenant = tenant_a[0]
    Policy.objects.create(
        tenant=tenant,
        document={
            "default_mode": "standard",
            "decisions": [
                {
                    "name": "built",
                    "rules": {"conditions": [{"type": "keyword", "name": "built"}]},
                    "plugins": [{"type": "hallucination", "configuration": {"max_iterations": 2}}],
                }
            ],
        },
    )
    configure_llm(tenant, fake_llm)
    job = _detect(tenant, threshold=0.4)
    assert job.stage == JobStage.MITIGATE
    plan = JobPlan.model_validate(job.plan)
    assert (plan.mode, plan.mode_source, plan.decision) == ("standard", "policy", "built")
    assert (plan.threshold, plan.max_iterations) == (0.4, 2)
    assert plan.model == "openai/primary"  # the tenant's default, for the refine rounds
    # the fields the API shows while the job waits are the plan's
    assert (job.mode, job.decision, job.threshold) == ("standard", "built", 0.4)


def test_a_policy_edited_after_the_hand_off_does_not_change_the_job(tenant_a, fake_llm):
    tenant = tenant_a[0]
    policy = Policy.objects.create(
        tenant=tenant, document={"default_mode": "standard", "standard": {"max_iterations": 1}}
    )
    configure_llm(tenant, fake_llm)
    fake_llm.script(WRONG, WRONG, WRONG)  # never fixes it: every allowed round is used
    job = _detect(tenant)
    # the tenant switches to warnings only and allows more rounds while the job waits
    policy.document = {"default_mode": "lightweight", "standard": {"max_iterations": 3}}
    policy.save()
    assert mitigate_stage.run(claim_mitigation(job.pk))
    job.refresh_from_db()
    assert job.mode == "standard"
    assert job.iterations == 1
    assert len(fake_llm.requests) == 1


def test_a_job_handed_off_without_a_stored_plan_still_completes(tenant_a, fake_llm):
    """Jobs in flight across the upgrade that added `plan` are planned from their fields
    (since migration 0019, the keys of their plan copied from the old columns, no policy)."""
    tenant = tenant_a[0]
    Policy.objects.create(tenant=tenant, document={"default_mode": "standard"})
    configure_llm(tenant, fake_llm)
    fake_llm.script(RIGHT)
    job = _detect(tenant)
    fields = {key: job.plan[key] for key in PLAN_KEYS}
    type(job).objects.filter(pk=job.pk).update(plan=fields)
    assert mitigate_stage.run(claim_mitigation(job.pk))
    job.refresh_from_db()
    assert job.status == "completed"
    assert job.final_response.startswith(RIGHT)


def test_enqueue_stage_writes_the_outbox_row_for_the_stage_task(tenant_a):
    job, _ = create_verification(tenant_a[0], NewVerification(context=CONTEXT, response=RIGHT))
    message = enqueue_stage(job.pk, JobStage.MITIGATE)
    route = STAGE_TASKS[JobStage.MITIGATE]
    assert (message.task, message.queue) == (route.task, route.queue)
    assert OutboxMessage.objects.filter(job=job, task="truthlens.mitigate").count() == 1
    assert (
        enqueue_stage(job.pk, JobStage.MITIGATE, interactive=True).queue == "mitigate_interactive"
    )
    with pytest.raises(ValueError, match="no task runs the stage"):
        enqueue_stage(job.pk, "mitigating")  # not a stage anything waits in


def test_the_detect_worker_and_the_non_llm_web_views_never_import_litellm():
    """litellm takes seconds to import and only the LLM stages and the gateway need it
    (the gateway calls the tenant's upstream through litellm, in the web process)."""
    code = (
        "import sys, django; django.setup()\n"
        "import workers.app, workers.tasks, verification.stages.detect\n"
        "import dashboard.urls, api.views.verifications, api.views.knowledge, api.views.usage\n"
        "loaded = sorted(m for m in sys.modules if m.split('.')[0] == 'litellm')\n"
        "print(len(loaded))\n"
    )
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings"}
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=root, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "0"
