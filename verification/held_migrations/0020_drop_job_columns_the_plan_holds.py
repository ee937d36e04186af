"""Contract (release N+1 or later): drop the job columns the plan holds.

Migration 0019 made the code read `query_type`, `query_type_confidence`, `decision`, `mode`,
`mode_source` and `enabled` from the job's plan and left the columns in place for the
processes of release N-1 still running during the rolling deploy. Deploy this only once none
runs: it first gives the rows those processes finished after 0019 ran (a plan without the
keys) the columns' values, one partition at a time, then drops the columns (on the partitioned
table, which drops them from every partition: a catalog change, no rewrite). If one upgrade
would apply 0019 and 0020 together (the migrations hook runs `migrate`), hold this file back to
the next release: no code depends on it (docs/jobs-at-scale.md "Which release drops the
columns").

Reversible: the way back adds the columns again (with the defaults 0019 set) and fills them
from the plans.
"""

import importlib

from django.db import migrations

expand = importlib.import_module("verification.migrations.0019_job_plan_holds_its_decisions")

JOBS = expand.JOBS


def forward(apps, schema_editor):
    with schema_editor.connection.cursor() as cursor:
        expand.copy_columns_into_plans(cursor, columns_win=False)
        for column in expand.COLUMNS:
            cursor.execute(f"ALTER TABLE {JOBS} DROP COLUMN {column}")


def backward(apps, schema_editor):
    with schema_editor.connection.cursor() as cursor:
        for column, (sql_type, default) in expand.COLUMNS.items():
            not_null = "" if default == "NULL" else " NOT NULL"
            cursor.execute(
                f"ALTER TABLE {JOBS} ADD COLUMN {column} {sql_type} DEFAULT {default}{not_null}"
            )
        expand.copy_plans_into_columns(cursor)


class Migration(migrations.Migration):
    atomic = False  # the backfill commits one partition at a time

    dependencies = [("verification", "0019_job_plan_holds_its_decisions")]

    operations = [migrations.RunPython(forward, backward, elidable=False)]
