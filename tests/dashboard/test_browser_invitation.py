"""Browser test of the invitation flow: an owner invites, the invitee opens the mailed link,
sets a password, lands on the setup checklist and finds themself in the member list."""

from __future__ import annotations

import re

import pytest

from . import test_browser

# The Chromium fixtures of test_browser.py, shared with this module.
chromium, page, sign_in = test_browser.chromium, test_browser.page, test_browser.sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

INVITEE = "new.member@example.com"
PASSWORD = "an-unusual-passphrase-42"


def test_an_invited_viewer_sets_a_password_and_lands_on_the_checklist(
    page, chromium, live_server, owner_a, tenant_a, mailoutbox
):
    # given the owner invites a viewer from the Members page
    sign_in(page, live_server, "owner-a")
    page.get_by_role("link", name="Members").click()
    page.get_by_label("Email").fill(INVITEE)
    page.get_by_label("Role", exact=True).select_option("viewer")
    page.get_by_role("button", name="Send invitation").click()
    page.get_by_text(f"Invitation sent to {INVITEE}.").wait_for()
    assert page.get_by_role("table", name="Pending invitations").get_by_text(INVITEE).count() == 1

    # when the invitee opens the link from the mail, in a browser of their own
    assert len(mailoutbox) == 1
    path = re.search(r"(/dashboard/invitations/[^/\s]+/)", mailoutbox[0].body).group(1)
    context = chromium.new_context()
    try:
        invitee = context.new_page()
        invitee.goto(f"{live_server.url}{path}")
        invitee.get_by_label("New password", exact=True).fill(PASSWORD)
        invitee.get_by_label("New password confirmation").fill(PASSWORD)
        invitee.get_by_role("button", name="Accept invitation").click()

        # then they land on the checklist, ticked from the tenant's data
        invitee.wait_for_url(f"{live_server.url}/dashboard/setup/")
        steps = invitee.get_by_role("list", name="Setup checklist").locator("li")
        done = {s.get_attribute("data-step"): s.get_attribute("data-done") for s in steps.all()}
        # tenant A has an API key (conftest) and nothing else yet
        assert done == {"llm": "false", "key": "true", "verification": "false", "webhook": "false"}

        # and the member list shows them with their role
        invitee.get_by_role("link", name=re.compile("See who else")).click()
        row = invitee.get_by_role("row").filter(has_text=INVITEE)
        assert row.locator(".member-role").inner_text() == "viewer"
        assert invitee.get_by_role("button", name="Send invitation").count() == 0

        # and the link does not work a second time
        invitee.goto(f"{live_server.url}{path}")
        assert "does not work" in invitee.content()
    finally:
        context.close()
