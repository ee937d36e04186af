"""Expand (release N): the job row reads its query type, decision, mode … from its plan.

The columns `query_type`, `query_type_confidence`, `decision`, `mode`, `mode_source` and
`enabled` copied keys of the job's plan (`engine.JobPlan`, the `plan` column). From this
release the code reads and writes them in the plan only (`verification/models/plan.py`), so:

* the model forgets the columns (state only); the database keeps them, with defaults, so this
  release's inserts (which omit them) succeed while the previous release's processes, still
  running during a rolling deploy, keep reading and writing them;
* every row planned by the previous release gets the columns' values as keys of its plan
  (the columns win: they are what the API showed, the mode that ran included). Rows never
  planned (queued, failed before planning) keep a NULL plan and read the same defaults.

The backfill runs one partition at a time, each in its own transaction (the migration is not
atomic), so a large table is never locked or rewritten in one go. Migration 0020 (release
N+1 or later, once no process of release N-1 runs) fills the rows those processes finished
meanwhile and drops the columns. Reversible: the way back copies the plan's keys into the columns (their
database defaults stay).
"""

from django.db import migrations

JOBS = "verification_verificationjob"

#: column -> (its SQL type, its default): the columns as migration 0001-0005 made them
COLUMNS = {
    "query_type": ("varchar(32)", "''"),
    "query_type_confidence": ("double precision", "NULL"),
    "decision": ("varchar(100)", "''"),
    "mode": ("varchar(16)", "''"),
    "mode_source": ("varchar(16)", "''"),
    "enabled": ("boolean", "true"),
}

#: a row the previous release planned: one of its text columns is set
PLANNED = "(query_type <> '' OR decision <> '' OR mode <> '' OR mode_source <> '')"
KEYS = "jsonb_build_object({})".format(", ".join(f"'{c}', {c}" for c in COLUMNS))


def leaf_tables(cursor, table: str = JOBS) -> list[str]:
    """The table's leaf partitions (every row is in one), or the table itself if plain."""
    cursor.execute(
        "SELECT relid::regclass::text FROM pg_partition_tree(%s::regclass) WHERE isleaf",
        [table],
    )
    return [name for (name,) in cursor.fetchall()] or [table]


def copy_columns_into_plans(cursor, *, columns_win: bool) -> int:
    """Write the columns' values as keys of each planned row's plan, one partition at a time.
    `columns_win`: a key the plan already holds takes the column's value (0019: every row was
    written by release N-1); else only plans without the keys get them (0020: a plan this
    release wrote, the mode that ran included, is newer than the columns)."""
    if columns_win:
        new_plan, where = f"coalesce(plan, '{{}}'::jsonb) || {KEYS}", PLANNED
    else:
        new_plan = f"{KEYS} || coalesce(plan, '{{}}'::jsonb)"
        where = f"{PLANNED} AND (plan IS NULL OR NOT plan ? 'mode')"
    updated = 0
    for leaf in leaf_tables(cursor):
        cursor.execute(f"UPDATE {leaf} SET plan = {new_plan} WHERE {where}")
        updated += cursor.rowcount
    return updated


def copy_plans_into_columns(cursor) -> None:
    """The way back: the plan's keys into the columns (their defaults where it lacks one)."""
    reads = {
        "query_type_confidence": "(plan->>'query_type_confidence')::double precision",
        "enabled": "coalesce((plan->>'enabled')::boolean, true)",
    }
    sets = ", ".join(f"{c} = " + reads.get(c, f"coalesce(plan->>'{c}', '')") for c in COLUMNS)
    for leaf in leaf_tables(cursor):
        cursor.execute(f"UPDATE {leaf} SET {sets} WHERE plan IS NOT NULL")


def set_defaults(cursor) -> None:
    for column, (_type, default) in COLUMNS.items():
        if default != "NULL":
            cursor.execute(f"ALTER TABLE {JOBS} ALTER COLUMN {column} SET DEFAULT {default}")


def forward(apps, schema_editor):
    with schema_editor.connection.cursor() as cursor:
        set_defaults(cursor)
        copy_columns_into_plans(cursor, columns_win=True)


def backward(apps, schema_editor):
    # The defaults stay: this release's code, run against a database migrated back, still
    # inserts jobs (release N-1's code writes every column and never reads them).
    with schema_editor.connection.cursor() as cursor:
        copy_plans_into_columns(cursor)


class Migration(migrations.Migration):
    atomic = False  # one transaction per partition's backfill

    dependencies = [("verification", "0018_usage_partitioned_by_own_time")]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.RemoveField(model_name="verificationjob", name=column)
                for column in COLUMNS
            ],
            database_operations=[migrations.RunPython(forward, backward, elidable=False)],
        )
    ]
