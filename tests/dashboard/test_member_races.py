"""Two owners demoting each other at the same moment still leave the tenant an owner."""

from __future__ import annotations

import threading
import time

import pytest
from django.db import connection

from tenants import members
from tenants.models import Membership

from .conftest import member

pytestmark = pytest.mark.django_db(transaction=True)


def test_two_owners_demoting_each_other_at_once_leave_one_owner(tenant_a, monkeypatch):
    tenant = tenant_a.tenant
    read_members = members._locked_members

    def slow_read(tenant_id):  # widen the window between reading the owners and the update
        found = read_members(tenant_id)
        time.sleep(0.3)
        return found

    monkeypatch.setattr(members, "_locked_members", slow_read)
    first = member(tenant, "owner-1", Membership.OWNER)
    second = member(tenant, "owner-2", Membership.OWNER)
    start = threading.Barrier(2)
    outcomes: list[str] = []

    def demote(actor, target):
        try:
            start.wait()
            members.change_role(actor, Membership.objects.get(user=target), "admin")
            outcomes.append("demoted")
        except members.MemberError:
            outcomes.append("refused")
        finally:
            connection.close()

    threads = [
        threading.Thread(target=demote, args=(first, second)),
        threading.Thread(target=demote, args=(second, first)),
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)

    assert sorted(outcomes) == ["demoted", "refused"]
    assert Membership.objects.filter(tenant=tenant, role=Membership.OWNER).count() == 1
