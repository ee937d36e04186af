"""A contract migration held back for the next release (verification/held_migrations/): it still
follows the latest migration, and run on this release's schema it drops the columns the plan
holds without losing their values."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest
from django.db import connection

from verification.models import VerificationJob

MIGRATIONS = Path(__file__).resolve().parents[2] / "verification" / "migrations"
HELD = importlib.import_module("verification.held_migrations.0020_drop_job_columns_the_plan_holds")
JOBS = "verification_verificationjob"


def _columns() -> set[str]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_name = %s", [JOBS]
        )
        return {row[0] for row in cursor.fetchall()}


def test_it_follows_the_latest_migration_so_the_next_release_can_move_it_unchanged():
    latest = sorted(p.stem for p in MIGRATIONS.glob("[0-9][0-9][0-9][0-9]_*.py"))[-1]
    assert HELD.Migration.dependencies == [("verification", latest)]


def test_the_migrations_folder_does_not_apply_it_in_this_release():
    assert not list(MIGRATIONS.glob("0020_*.py"))


@pytest.mark.django_db
def test_run_on_this_release_it_drops_the_six_columns_and_keeps_the_plan(tenant_a):
    # Postgres DDL is transactional: the test's transaction rolls the drop back afterwards.
    job = VerificationJob.objects.create(tenant=tenant_a.tenant, response="r")
    job.mode, job.decision = "standard", "verify"
    job.save()
    assert {"mode", "decision", "query_type"} <= _columns()

    with connection.cursor() as cursor:  # the rows' deferred checks run now, before the ALTER
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
    with connection.schema_editor(atomic=False) as editor:
        HELD.forward(None, editor)

    assert not {"mode", "decision", "query_type", "mode_source", "enabled"} & _columns()
    job = VerificationJob.objects.get(pk=job.pk)
    assert (job.mode, job.decision) == ("standard", "verify")
