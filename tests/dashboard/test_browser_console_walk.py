"""Browser walk of a developer's first verification from the console alone: an owner invites
them and copies the invitation link from the members page, they accept it, create an API key,
copy the quickstart's curl tab and run it (a real shell and curl, against the live server),
and see the verification in the dashboard. The walk's time is printed (run with -s) and
written to $TRUTHLENS_WALK_TIME_FILE when set."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time

import pytest

from tenants.models import ApiKey, Membership
from verification.actions.claim import claim
from verification.actions.create import NewVerification, create_verification
from verification.actions.stages import claim_mitigation
from verification.models import VerificationJob
from verification.stages import mitigate as mitigate_stage
from verification.stages.detect import process_jobs

from .test_browser import chromium, page, sign_in  # noqa: F401 - fixtures

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "a-long-unusual-passphrase-8"
CLIPBOARD = ["clipboard-read", "clipboard-write"]


def _copied(tab, button) -> str:
    """Press a Copy button and read what it put on the clipboard."""
    button.click()
    tab.get_by_text("Copied.").first.wait_for()
    return tab.evaluate("() => navigator.clipboard.readText()")


def _warm_up_the_workers(tenant) -> None:
    """A running worker has its models loaded; load them before the clock starts."""
    job, _ = create_verification(tenant, NewVerification(context=["c"], response="r"))
    _work_off(job)


def _work_off(job: VerificationJob) -> None:
    """What the workers do: detect, and mitigate when the job goes on to that stage."""
    process_jobs([claim(job.pk)])
    job.refresh_from_db()
    if not job.is_final:
        mitigate_stage.run(claim_mitigation(job.pk))


def test_invite_accept_create_a_key_and_run_the_quickstart(
    page,  # noqa: F811
    chromium,  # noqa: F811
    live_server,
    owner_a,
    tenant_a,
    tenant_b,
    settings,
):
    if not shutil.which("curl"):
        pytest.skip("curl is not installed")
    settings.TRUTHLENS = {**settings.TRUTHLENS, "PUBLIC_BASE_URL": live_server.url}
    _warm_up_the_workers(tenant_b.tenant)
    started = time.monotonic()

    # the owner invites a developer and copies the link from the members page
    page.context.grant_permissions(CLIPBOARD, origin=live_server.url)
    sign_in(page, live_server, owner_a.username)
    page.goto(f"{live_server.url}/dashboard/members/")
    page.get_by_label("Email", exact=True).fill("dev@example.com")
    page.get_by_label("Role", exact=True).select_option("admin")
    page.get_by_role("button", name="Send invitation").click()
    link = _copied(page, page.locator('button[data-copy="invitation-link"]'))
    assert link.startswith(f"{live_server.url}/dashboard/invitations/")

    context = chromium.new_context(viewport={"width": 1366, "height": 900})
    context.set_default_timeout(15_000)
    context.grant_permissions(CLIPBOARD, origin=live_server.url)
    dev = context.new_page()
    try:
        # the developer accepts it and lands on the checklist
        dev.goto(link)
        dev.get_by_label("New password", exact=True).fill(PASSWORD)
        dev.get_by_label("New password confirmation").fill(PASSWORD)
        dev.get_by_role("button", name="Accept invitation").click()
        dev.wait_for_url(f"{live_server.url}/dashboard/setup/")
        assert Membership.objects.get(user__email="dev@example.com").role == "admin"

        # creates a key: the secret once, the quickstart in three tabs
        dev.get_by_role("link", name="API keys").first.click()
        dev.get_by_role("button", name="Create key").click()
        token = _copied(dev, dev.locator('button[data-copy="new-token"]'))
        key = ApiKey.objects.get(tenant=tenant_a.tenant, name="default", prefix=token[3:11])
        tabs = dev.get_by_role("tab")
        assert tabs.all_inner_texts() == ["curl", "Python SDK", "OpenAI client (gateway)"]
        dev.get_by_role("tab", name="Python SDK").click()
        assert dev.locator("#qs-panel-python").is_visible()
        assert not dev.locator("#qs-panel-curl").is_visible()
        dev.get_by_role("tab", name="curl").click()
        snippet = _copied(dev, dev.locator('button[data-copy="qs-curl"]'))
        assert f"tl_{key.prefix}_…" in snippet
        assert token not in snippet  # the secret stays in the one-time box

        # runs it, as copied, in a shell; the workers' part is done here
        shell = subprocess.Popen(
            ["bash", "-c", snippet],
            env={**os.environ, "TRUTHLENS_API_KEY": token},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        deadline = time.monotonic() + 20
        while (job := VerificationJob.objects.filter(api_key=key).first()) is None:
            assert time.monotonic() < deadline, "the quickstart created no verification"
            time.sleep(0.1)
        _work_off(job)
        out, err = shell.communicate(timeout=30)
        assert shell.returncode == 0, err
        answer = json.loads(out)
        assert answer["id"] == job.public_id
        assert answer["status"] == "completed"

        # and sees it in the dashboard
        dev.get_by_role("link", name="Verifications").first.click()
        dev.locator(f'a[title="{job.public_id}"]').click()
        dev.wait_for_url(f"{live_server.url}/dashboard/verifications/{job.public_id}/")
        assert "The Eiffel Tower was built from 1887 to 1889." in dev.content()
    finally:
        context.close()

    seconds = time.monotonic() - started
    print(f"\nconsole walk (invite → accept → key → quickstart → verification): {seconds:.1f} s")
    if os.environ.get("TRUTHLENS_WALK_TIME_FILE"):
        with open(os.environ["TRUTHLENS_WALK_TIME_FILE"], "w") as out_file:
            out_file.write(f"{seconds:.2f}\n")
