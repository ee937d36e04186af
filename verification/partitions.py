"""Monthly partitions of the jobs tables, per retention class (docs/jobs-at-scale.md).

`verification_verificationjob`, `verification_detectedspan` and `verification_usagerecord`
are partitioned in two levels: by range of the job's creation time, one partition per
calendar month (UTC) named `<table>_<YYYYMM>`, each partitioned by list of
`retention_months`, one leaf per retention class (`tenants.models.RETENTION_MONTHS`) named
`<table>_r<months>_<YYYYMM>`. Safety nets: `<table>_default` takes rows of a month no
partition was made for (a date far in the future or past), `<table>_<YYYYMM>_default` rows
of a class outside the closed set. Spans and usage rows carry a copy of their job's key
(`job_created_at`, `retention_months`), so a job and everything partitioned with it live in
leaves of the same name suffix and go away together. A time range prunes to its months.

Retention drops whole partitions (`drop_expired`), never rows: partition (r, M) expires on
the first day of month M + 1 + r, so a job is kept at least r months and at most r + 1.
`ensure_partitions` makes the coming months' partitions ahead of time; both run nightly
(`truthlens.partition_maintenance`) and the migration that partitions the tables uses
`convert_to_partitioned` / `convert_to_plain`.

Everything here takes a DB-API cursor, so migrations, the Celery task, the bench and the
tests share it. Identifiers in the SQL come from this module's constants, never from input.
"""

from __future__ import annotations

import datetime as dt
import logging
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from tenants.models import DEFAULT_RETENTION_MONTHS, RETENTION_MONTHS

log = logging.getLogger(__name__)

JOBS = "verification_verificationjob"
SPANS = "verification_detectedspan"
USAGE = "verification_usagerecord"
#: each partitioned table and the time column of its partition key (after `retention_months`):
#: spans follow their job's month; usage its own (when the job finished: what a month's usage
#: and billing read, so they prune to that month). Migration 0018 moved usage to its own time.
TIME_COLUMN = {JOBS: "created_at", SPANS: "job_created_at", USAGE: "created_at"}
#: the layout migration 0017 made (usage by its job's month), for that migration alone
TIME_COLUMN_0017 = {**TIME_COLUMN, USAGE: "job_created_at"}
TABLES = (JOBS, SPANS, USAGE)
CLASSES = tuple(months for months, _ in RETENTION_MONTHS)
#: partitions exist for this month and this many months after it
MONTHS_AHEAD = 2
ARCHIVE_SCHEMA = "archive"

_LEAF = re.compile(r"^(?P<table>[a-z_]+)_r(?P<months>\d+)_(?P<year>\d{4})(?P<month>\d{2})$")
_MONTH = re.compile(r"^(?P<table>[a-z_]+)_(?P<year>\d{4})(?P<month>\d{2})$")


def month_floor(value: dt.date | dt.datetime) -> dt.date:
    if isinstance(value, dt.datetime) and value.tzinfo is not None:
        value = value.astimezone(dt.UTC)
    return dt.date(value.year, value.month, 1)


def add_months(month: dt.date, n: int) -> dt.date:
    index = month.year * 12 + month.month - 1 + n
    return dt.date(index // 12, index % 12 + 1, 1)


def leaf_name(table: str, months: int, month: dt.date) -> str:
    return f"{table}_r{months}_{month:%Y%m}"


def default_name(table: str) -> str:
    """The table's top-level default partition: rows of a month no partition was made for."""
    return f"{table}_default"


def month_name(table: str, month: dt.date) -> str:
    return f"{table}_{month:%Y%m}"


def month_default_name(table: str, month: dt.date) -> str:
    """The month's default partition: rows of a retention value outside `CLASSES`."""
    return f"{table}_{month:%Y%m}_default"


def expires_on(months: int, month: dt.date) -> dt.date:
    """The first day on which partition (months, month) may be dropped."""
    return add_months(month, 1 + months)


def _ts(day: dt.date) -> str:
    return f"'{day.isoformat()} 00:00:00+00'"


def _month_bounds(month: dt.date) -> str:
    return f"FOR VALUES FROM ({_ts(month)}) TO ({_ts(add_months(month, 1))})"


# --- introspection ------------------------------------------------------------------------


def is_partitioned(cursor, table: str) -> bool:
    cursor.execute("SELECT relkind FROM pg_class WHERE oid = to_regclass(%s)", [table])
    row = cursor.fetchone()
    return row is not None and row[0] == "p"


def partition_column(cursor, table: str) -> str | None:
    """The time column `table` is partitioned by (RANGE), as the database has it; None when
    the table is a plain one."""
    if not is_partitioned(cursor, table):
        return None
    cursor.execute("SELECT pg_get_partkeydef(to_regclass(%s))", [table])
    match = re.fullmatch(r'RANGE \("?(?P<column>[a-z_]+)"?\)', cursor.fetchone()[0])
    if match is None:
        raise RuntimeError(f"{table}: not partitioned by a time range")
    return match["column"]


def _exists(cursor, name: str) -> bool:
    cursor.execute("SELECT to_regclass(%s) IS NOT NULL", [name])
    return cursor.fetchone()[0]


def _has_rows(cursor, table: str, where: str) -> bool:
    if not _exists(cursor, table):
        return False
    cursor.execute(f"SELECT EXISTS (SELECT 1 FROM {table} WHERE {where})")
    return cursor.fetchone()[0]


@dataclass(frozen=True, order=True)
class Leaf:
    table: str
    months: int
    month: dt.date

    @property
    def name(self) -> str:
        return leaf_name(self.table, self.months, self.month)


def _tree(cursor, table: str) -> list[tuple[str, str, bool]]:
    """(name, parent's name, is a leaf) of every partition under `table`."""
    if not is_partitioned(cursor, table):
        return []
    cursor.execute(
        "SELECT relid::regclass::text, parentrelid::regclass::text, isleaf "
        "FROM pg_partition_tree(%s::regclass) WHERE level > 0",
        [table],
    )
    return list(cursor.fetchall())


def leaves(cursor, table: str) -> list[Leaf]:
    """The table's (class, month) partitions, oldest first (no default partition)."""
    found = []
    for name, _parent, _leaf in _tree(cursor, table):
        match = _LEAF.match(name)
        if match and match["table"] == table:
            month = dt.date(int(match["year"]), int(match["month"]), 1)
            found.append(Leaf(table, int(match["months"]), month))
    return sorted(found, key=lambda leaf: (leaf.month, leaf.months))


def _columns(cursor, table: str) -> list[str]:
    cursor.execute(
        "SELECT attname FROM pg_attribute WHERE attrelid = to_regclass(%s) "
        "AND attnum > 0 AND NOT attisdropped ORDER BY attnum",
        [table],
    )
    return [name for (name,) in cursor.fetchall()]


def _quoted(columns: Iterable[str]) -> str:
    return ", ".join(f'"{c}"' for c in columns)


# --- making partitions --------------------------------------------------------------------


def _move(cursor, table: str, source: str, target: str, where: str) -> None:
    """Move the rows of `source` (a default partition) matching `where` into `target`."""
    columns = _quoted(_columns(cursor, table))
    cursor.execute(
        f"WITH moved AS (DELETE FROM {source} WHERE {where} RETURNING {columns}) "
        f"INSERT INTO {target} ({columns}) SELECT {columns} FROM moved"
    )
    log.warning("rows of %s moved from %s into its new partition %s", table, source, target)


def _create_leaf(cursor, table: str, months: int, month: dt.date) -> bool:
    name = leaf_name(table, months, month)
    if _exists(cursor, name):
        return False
    parent = month_name(table, month)
    default = month_default_name(table, month)
    where = f"retention_months = {months}"
    if _has_rows(cursor, default, where):  # Postgres refuses to create it over those rows
        cursor.execute(
            f"CREATE TABLE {name} (LIKE {table} INCLUDING DEFAULTS INCLUDING CONSTRAINTS)"
        )
        _move(cursor, table, default, name, where)
        cursor.execute(f"ALTER TABLE {parent} ATTACH PARTITION {name} FOR VALUES IN ({months})")
    else:
        cursor.execute(f"CREATE TABLE {name} PARTITION OF {parent} FOR VALUES IN ({months})")
    return True


def ensure_month(cursor, table: str, month: dt.date) -> list[str]:
    """The month's partition of `table` (by retention class) and its class partitions;
    the names of those created. Rows of the month that went to the default partition
    meanwhile are moved into them."""
    created = []
    name = month_name(table, month)
    by_class = "PARTITION BY LIST (retention_months)"
    if not _exists(cursor, name):
        column = partition_column(cursor, table) or TIME_COLUMN[table]
        where = f'"{column}" >= {_ts(month)} AND "{column}" < {_ts(add_months(month, 1))}'
        strays = _has_rows(cursor, default_name(table), where)
        if strays:
            cursor.execute(
                f"CREATE TABLE {name} (LIKE {table} INCLUDING DEFAULTS INCLUDING CONSTRAINTS) "
                f"{by_class}"
            )
        else:
            cursor.execute(
                f"CREATE TABLE {name} PARTITION OF {table} {_month_bounds(month)} {by_class}"
            )
        for months in CLASSES:
            _create_leaf(cursor, table, months, month)
            created.append(leaf_name(table, months, month))
        cursor.execute(
            f"CREATE TABLE {month_default_name(table, month)} PARTITION OF {name} DEFAULT"
        )
        if strays:
            _move(cursor, table, default_name(table), name, where)
            cursor.execute(f"ALTER TABLE {table} ATTACH PARTITION {name} {_month_bounds(month)}")
        return [name, *created]
    for months in CLASSES:
        if _create_leaf(cursor, table, months, month):
            created.append(leaf_name(table, months, month))
    return created


def ensure_partitions(
    cursor,
    *,
    today: dt.date | None = None,
    since: dt.date | None = None,
    ahead: int = MONTHS_AHEAD,
    tables: Iterable[str] = TABLES,
) -> list[str]:
    """Make every class's partitions from `since` (default: this month) to `ahead` months
    after this one, and the default partitions; the names of those created."""
    this_month = month_floor(today or dt.datetime.now(dt.UTC))
    first = min(month_floor(since), this_month) if since else this_month
    created = []
    for table in tables:
        cursor.execute(
            f"CREATE TABLE IF NOT EXISTS {default_name(table)} PARTITION OF {table} DEFAULT"
        )
        month = first
        while month <= add_months(this_month, ahead):
            created += ensure_month(cursor, table, month)
            month = add_months(month, 1)
    return created


# --- retention ----------------------------------------------------------------------------


@dataclass
class RetentionResult:
    dropped: list[str] = field(default_factory=list)
    dropped_months: list[str] = field(default_factory=list)  # emptied month partitions
    archived: list[str] = field(default_factory=list)
    created: list[str] = field(default_factory=list)
    default_rows: dict[str, int] = field(default_factory=dict)
    dependent_rows: int = 0  # rows of other tables deleted or unlinked with dropped jobs


def expired(cursor, today: dt.date) -> list[tuple[int, dt.date]]:
    """The (class, month) pairs whose partitions may go on `today`, oldest first."""
    this_month = month_floor(today)
    pairs = {
        (leaf.months, leaf.month)
        for table in TABLES
        for leaf in leaves(cursor, table)
        if expires_on(leaf.months, leaf.month) <= this_month
    }
    return sorted(pairs, key=lambda pair: (pair[1], pair[0]))


def _dependents() -> list[tuple[str, str, bool, list[tuple[str, str]]]]:
    """Tables outside the partitions that point at a job: (table, column, cascades, and the
    tables that point at those rows in turn, with their column)."""
    from django.apps import apps
    from django.db import models

    job = apps.get_model("verification", "VerificationJob")
    out = []
    for rel in job._meta.related_objects:
        table = rel.related_model._meta.db_table
        if table in TABLES:
            continue
        nested = []
        for inner in rel.related_model._meta.related_objects:
            if inner.related_model._meta.related_objects:
                raise RuntimeError(f"{table}: rows three levels under a job are not purged")
            nested.append((inner.related_model._meta.db_table, inner.field.column))
        out.append((table, rel.field.column, rel.on_delete is models.CASCADE, nested))
    return out


def purge_dependents(cursor, jobs_leaf: str) -> int:
    """Before a jobs partition is dropped: delete (or, where the model says SET_NULL, unlink)
    the rows of other tables that belong to its jobs, in one statement per table, so that a
    dropped month leaves nothing of its jobs behind (mitigation steps, LLM calls, outbox,
    webhook deliveries and their attempts, feedback, review items and labels)."""
    jobs = f"SELECT id FROM {jobs_leaf}"
    touched = 0
    for table, column, cascades, nested in _dependents():
        mine = f"SELECT id FROM {table} WHERE {column} IN ({jobs})"
        for inner_table, inner_column in nested if cascades else []:
            cursor.execute(f"DELETE FROM {inner_table} WHERE {inner_column} IN ({mine})")
            touched += max(cursor.rowcount, 0)
        if cascades:
            cursor.execute(f"DELETE FROM {table} WHERE {column} IN ({jobs})")
        else:
            cursor.execute(f"UPDATE {table} SET {column} = NULL WHERE {column} IN ({jobs})")
        touched += max(cursor.rowcount, 0)
    return touched


def drop_expired(cursor, *, today: dt.date | None = None, archive: bool = False) -> RetentionResult:
    """Drop (or, with `archive`, detach into the `archive` schema) every expired partition.

    The current month's partitions never expire (a class keeps at least one month), nor do
    the default partitions: their rows are counted in `default_rows` for the operator.
    Usage and spans go before their jobs, so a reader never sees a job's rows half gone.
    A month left with no class partition goes too, unless its default partition has rows.
    """
    today = today or dt.datetime.now(dt.UTC).date()
    result = RetentionResult()
    # deferred foreign-key checks of rows written earlier in this transaction would keep
    # their partition from being dropped ("pending trigger events"): run them now
    cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
    if archive:
        cursor.execute(f"CREATE SCHEMA IF NOT EXISTS {ARCHIVE_SCHEMA}")
    for months, month in expired(cursor, today):
        for table in (USAGE, SPANS, JOBS):
            name = leaf_name(table, months, month)
            if not _exists(cursor, name):
                continue
            if table == JOBS and not archive:
                result.dependent_rows += purge_dependents(cursor, name)
            if archive:
                cursor.execute(f"ALTER TABLE {month_name(table, month)} DETACH PARTITION {name}")
                cursor.execute(f"ALTER TABLE {name} SET SCHEMA {ARCHIVE_SCHEMA}")
                result.archived.append(name)
            else:
                cursor.execute(f"DROP TABLE {name}")
                result.dropped.append(name)
    this_month = month_floor(today)
    for table in (USAGE, SPANS, JOBS):
        children: dict[str, list[str]] = {}
        for name, parent, _leaf in _tree(cursor, table):
            children.setdefault(parent, []).append(name)
        for name in children.get(table, []):
            match = _MONTH.match(name)
            if not match or match["table"] != table:
                continue
            month = dt.date(int(match["year"]), int(match["month"]), 1)
            default = month_default_name(table, month)
            rest = [child for child in children.get(name, []) if child != default]
            if month < this_month and not rest and not _has_rows(cursor, default, "true"):
                cursor.execute(f"DROP TABLE {name}")
                result.dropped_months.append(name)
    for table in TABLES:
        cursor.execute(f"SELECT count(*) FROM {default_name(table)}")
        result.default_rows[table] = cursor.fetchone()[0]
    return result


def maintain(cursor, *, today: dt.date | None = None, archive: bool = False) -> RetentionResult:
    """The nightly job: next months' partitions, then retention."""
    created = ensure_partitions(cursor, today=today)
    result = drop_expired(cursor, today=today, archive=archive)
    result.created = created
    return result


# --- Django's GROUP BY --------------------------------------------------------------------


def install_group_by_guard() -> None:
    """Stop Django from grouping these tables' rows by `id` alone.

    Django shortens `GROUP BY` to a model's primary key, counting on Postgres to know that
    every other column depends on it. Postgres knows that only for the table's real
    primary key, which for a partitioned table is (id, retention_months, <time>): grouped by
    `id` alone, selecting another column fails. Django already makes the same exception
    for unmanaged models (possibly views); called from `VerificationConfig.ready`.
    """
    from django.db.backends.base.features import BaseDatabaseFeatures

    original = BaseDatabaseFeatures.allows_group_by_selected_pks_on_model
    if getattr(original, "partition_guard", False):
        return

    def allows_group_by_selected_pks_on_model(self, model) -> bool:
        return model._meta.db_table not in TIME_COLUMN and original(self, model)

    allows_group_by_selected_pks_on_model.partition_guard = True  # type: ignore[attr-defined]
    BaseDatabaseFeatures.allows_group_by_selected_pks_on_model = (  # type: ignore[method-assign]
        allows_group_by_selected_pks_on_model
    )


# --- converting the tables (migration verification 0017) ----------------------------------


@dataclass(frozen=True)
class _Constraint:
    name: str
    kind: str  # p | u
    columns: list[str]


def _key_constraints(cursor, table: str) -> list[_Constraint]:
    cursor.execute(
        "SELECT c.conname, c.contype, array_agg(a.attname ORDER BY k.ord) "
        "FROM pg_constraint c "
        "CROSS JOIN LATERAL unnest(c.conkey) WITH ORDINALITY AS k(attnum, ord) "
        "JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum "
        "WHERE c.conrelid = to_regclass(%s) AND c.contype IN ('p', 'u') "
        "GROUP BY c.conname, c.contype ORDER BY c.conname",
        [table],
    )
    return [_Constraint(name, kind, list(cols)) for name, kind, cols in cursor.fetchall()]


def _plain_indexes(cursor, table: str) -> list[tuple[str, str, bool]]:
    """(name, definition, unique) of the indexes that back no constraint."""
    cursor.execute(
        "SELECT ic.relname, pg_get_indexdef(i.indexrelid), i.indisunique FROM pg_index i "
        "JOIN pg_class ic ON ic.oid = i.indexrelid "
        "WHERE i.indrelid = to_regclass(%s) AND NOT EXISTS "
        "(SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid) ORDER BY 1",
        [table],
    )
    return list(cursor.fetchall())


def _foreign_keys(cursor, table: str) -> list[tuple[str, str]]:
    cursor.execute(
        "SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint "
        "WHERE conrelid = to_regclass(%s) AND contype = 'f' ORDER BY conname",
        [table],
    )
    return list(cursor.fetchall())


def _identity_sequence(cursor, table: str) -> str | None:
    cursor.execute(
        "SELECT a.attname FROM pg_attribute a WHERE a.attrelid = to_regclass(%s) "
        "AND a.attidentity <> ''",
        [table],
    )
    row = cursor.fetchone()
    if row is None:
        return None
    cursor.execute("SELECT pg_get_serial_sequence(%s, %s)", [table, row[0]])
    return cursor.fetchone()[0]


def _rebuild(
    cursor,
    table: str,
    *,
    partitioned: bool,
    copy_select: str | None = None,
    column: str | None = None,
) -> None:
    """Replace `table` by a partitioned (by `column`, default `TIME_COLUMN`) or plain copy
    with the same columns, defaults, checks, indexes, keys and outgoing foreign keys; its rows
    copied with `copy_select` (a SELECT of the table's columns from `{old}`, the renamed
    original)."""
    column = column or TIME_COLUMN[table]
    constraints = _key_constraints(cursor, table)
    indexes = _plain_indexes(cursor, table)
    foreign_keys = _foreign_keys(cursor, table)
    sequence = _identity_sequence(cursor, table)
    # the old partition key leaves the keys, the new one joins them
    was = ["retention_months", partition_column(cursor, table)]
    key = ["retention_months", column]
    for _name, _definition, unique in indexes:
        if unique:  # a partitioned table's unique index must hold the key: none expected
            raise RuntimeError(f"{table}: unique index {_name} is not a constraint")
    # a partitioned table keeps its months, from its oldest partition's on
    had = {(leaf.months, leaf.month) for leaf in leaves(cursor, table)}
    first_month = min((month for _months, month in had), default=None)
    old = f"{table}__old"
    for name, _parent, _leaf in _tree(cursor, table):  # its partitions' names are the new's
        cursor.execute(f"ALTER TABLE {name} RENAME TO {name}__old")
    cursor.execute(f"ALTER TABLE {table} RENAME TO {old}")
    partition_by = f'PARTITION BY RANGE ("{column}")' if partitioned else ""
    cursor.execute(
        f"CREATE TABLE {table} (LIKE {old} INCLUDING DEFAULTS INCLUDING CONSTRAINTS "
        f"INCLUDING IDENTITY INCLUDING STORAGE INCLUDING COMMENTS) {partition_by}"
    )
    columns = _quoted(_columns(cursor, table))
    if partitioned:
        # from the oldest row's month (a copy of the job's time: the oldest job's)
        source = f'SELECT min("{column}") FROM {old}'
        if column == "job_created_at":
            source = f"SELECT min(created_at) FROM {JOBS}"
        cursor.execute(source)
        since = min(
            (month for month in (cursor.fetchone()[0], first_month) if month is not None),
            key=month_floor,
            default=None,
        )
        ensure_partitions(cursor, since=since, tables=[table])
        if had:  # and does not get back the partitions retention dropped
            this_month = month_floor(dt.datetime.now(dt.UTC))
            for leaf in leaves(cursor, table):
                if (leaf.months, leaf.month) not in had and expires_on(
                    leaf.months, leaf.month
                ) <= this_month:
                    cursor.execute(f"DROP TABLE {leaf.name}")
    select = (copy_select or f"SELECT {columns} FROM {{old}}").format(old=old)
    cursor.execute(f"INSERT INTO {table} ({columns}) {select}")
    cursor.execute(f"DROP TABLE {old}")
    for constraint in constraints:
        cols = [c for c in constraint.columns if c not in was]
        if partitioned:
            cols += key
        kind = "PRIMARY KEY" if constraint.kind == "p" else "UNIQUE"
        cursor.execute(
            f"ALTER TABLE {table} ADD CONSTRAINT {constraint.name} {kind} ({_quoted(cols)})"
        )
    for _name, definition, _unique in indexes:
        # names the table as it was: the new one now ("ON ONLY" is a partitioned parent's)
        cursor.execute(definition.replace(" ON ONLY ", " ON ", 1))
    for name, definition in foreign_keys:
        cursor.execute(f"ALTER TABLE {table} ADD CONSTRAINT {name} {definition}")
    if sequence is not None:
        new_sequence = _identity_sequence(cursor, table)
        bare = sequence.split(".")[-1]
        if new_sequence and new_sequence.split(".")[-1] != bare:
            cursor.execute(f"ALTER SEQUENCE {new_sequence} RENAME TO {bare}")
        cursor.execute(
            f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
            f"coalesce((SELECT max(id) FROM {table}), 0) + 1, false)"
        )
    cursor.execute(f"ANALYZE {table}")


def convert_to_partitioned(cursor, columns: dict[str, str] | None = None) -> None:
    """Expand → copy → swap, in the migration's transaction: each table is rebuilt as a
    partitioned one, by the time column `columns` (default `TIME_COLUMN`) names for it. Jobs
    take their tenant's plan's retention; spans and usage take their job's key."""
    columns = columns or TIME_COLUMN
    if is_partitioned(cursor, JOBS):
        return
    job_columns = _columns(cursor, JOBS)
    select = ", ".join(
        f"coalesce(p.retention_months, {DEFAULT_RETENTION_MONTHS})"
        if c == "retention_months"
        else f'o."{c}"'
        for c in job_columns
    )
    _rebuild(
        cursor,
        JOBS,
        partitioned=True,
        copy_select=f"SELECT {select} FROM {{old}} o "
        "JOIN tenants_tenant t ON t.id = o.tenant_id "
        "LEFT JOIN tenants_plan p ON p.id = t.plan_id",
    )
    for table in (SPANS, USAGE):
        copied = {
            "job_created_at": "coalesce(j.created_at, o.job_created_at)",
            "retention_months": "coalesce(j.retention_months, o.retention_months)",
        }
        select = ", ".join(copied.get(c, f'o."{c}"') for c in _columns(cursor, table))
        _rebuild(
            cursor,
            table,
            partitioned=True,
            copy_select=f"SELECT {select} FROM {{old}} o LEFT JOIN {JOBS} j ON j.id = o.job_id",
            column=columns[table],
        )


def repartition(cursor, table: str, column: str) -> bool:
    """Rebuild the partitioned `table` partitioned by the time `column` instead (migration
    0018: usage by its own `created_at` rather than its job's): the same rows, keys and
    indexes, with the new key in the primary and unique keys. False (nothing done) when the
    table is plain or already partitioned so."""
    current = partition_column(cursor, table)
    if current is None or current == column:
        return False
    _rebuild(cursor, table, partitioned=True, column=column)
    return True


def convert_to_plain(cursor) -> None:
    """The way back: plain tables with the rows of every partition (archived ones aside)."""
    if not is_partitioned(cursor, JOBS):
        return
    for table in TABLES:
        _rebuild(cursor, table, partitioned=False)
