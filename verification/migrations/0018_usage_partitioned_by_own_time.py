"""Partition usage by its own time (`created_at`, when the job finished) instead of its job's.

A month's usage and billing read usage by `created_at`; partitioned by the job's
`job_created_at`, such a read pruned nothing and planned every usage partition. Rebuilt by
`partitions.repartition` (copy and swap in this migration's transaction, the same
partitions, keys and indexes, the new key in the primary and unique keys: docs/jobs-at-scale.md). Reversible: the way back partitions usage by its job's month again.
"""

from django.db import migrations

from verification import partitions


def forward(apps, schema_editor):
    with schema_editor.connection.cursor() as cursor:
        partitions.repartition(cursor, partitions.USAGE, "created_at")


def backward(apps, schema_editor):
    with schema_editor.connection.cursor() as cursor:
        partitions.repartition(cursor, partitions.USAGE, "job_created_at")


class Migration(migrations.Migration):
    dependencies = [("verification", "0017_partitioned_jobs")]

    operations = [migrations.RunPython(forward, backward, elidable=False)]
