"""Partition the jobs, their spans and their usage by retention class and month.

Expand: the new columns (the job's retention class; spans and usage copy their job's key),
foreign keys to the job without a database constraint, the idempotency key's unique
constraint replaced by a plain index. Copy and swap: `partitions.convert_to_partitioned`
rebuilds each table as a partitioned one in this migration's transaction (docs/jobs-at-scale.md). Reversible: `convert_to_plain` copies the rows back into plain tables.
"""

import django.db.models.deletion
import django.utils.timezone
from django.db import migrations, models

from verification import partitions

RETENTION = [(1, "1 month"), (3, "3 months"), (6, "6 months"), (12, "12 months"), (24, "24 months")]


def forward(apps, schema_editor):
    with schema_editor.connection.cursor() as cursor:
        partitions.convert_to_partitioned(cursor, partitions.TIME_COLUMN_0017)


def backward(apps, schema_editor):
    with schema_editor.connection.cursor() as cursor:
        partitions.convert_to_plain(cursor)


def _job_fk(**kwargs):
    return dict(
        db_constraint=False,
        to="verification.verificationjob",
        **kwargs,
    )


class Migration(migrations.Migration):
    dependencies = [
        ("verification", "0016_monthly_job_count"),
        ("tenants", "0014_plan_retention_months"),
        ("quality", "0003_job_fk_without_db_constraint"),
    ]

    operations = [
        migrations.AddField(
            model_name="verificationjob",
            name="retention_months",
            field=models.PositiveSmallIntegerField(choices=RETENTION, default=12, editable=False),
        ),
        migrations.AddField(
            model_name="detectedspan",
            name="job_created_at",
            field=models.DateTimeField(default=django.utils.timezone.now, editable=False),
            preserve_default=False,
        ),
        migrations.AddField(
            model_name="detectedspan",
            name="retention_months",
            field=models.PositiveSmallIntegerField(default=12, editable=False),
            preserve_default=False,
        ),
        migrations.AddField(
            model_name="usagerecord",
            name="job_created_at",
            field=models.DateTimeField(default=django.utils.timezone.now, editable=False),
            preserve_default=False,
        ),
        migrations.AddField(
            model_name="usagerecord",
            name="retention_months",
            field=models.PositiveSmallIntegerField(default=12, editable=False),
            preserve_default=False,
        ),
        migrations.AlterField(
            model_name="detectedspan",
            name="job",
            field=models.ForeignKey(
                **_job_fk(on_delete=django.db.models.deletion.CASCADE, related_name="spans")
            ),
        ),
        migrations.AlterField(
            model_name="feedback",
            name="job",
            field=models.ForeignKey(
                **_job_fk(on_delete=django.db.models.deletion.CASCADE, related_name="feedback")
            ),
        ),
        migrations.AlterField(
            model_name="usagerecord",
            name="job",
            field=models.OneToOneField(
                **_job_fk(on_delete=django.db.models.deletion.CASCADE, related_name="usage")
            ),
        ),
        migrations.AlterField(
            model_name="mitigationstep",
            name="job",
            field=models.ForeignKey(
                **_job_fk(
                    on_delete=django.db.models.deletion.CASCADE, related_name="mitigation_steps"
                )
            ),
        ),
        migrations.AlterField(
            model_name="llmcallrecord",
            name="job",
            field=models.ForeignKey(
                **_job_fk(on_delete=django.db.models.deletion.CASCADE, related_name="llm_calls")
            ),
        ),
        migrations.AlterField(
            model_name="outboxmessage",
            name="job",
            field=models.ForeignKey(**_job_fk(on_delete=django.db.models.deletion.CASCADE)),
        ),
        migrations.AlterField(
            model_name="webhookdelivery",
            name="job",
            field=models.ForeignKey(
                **_job_fk(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE)
            ),
        ),
        migrations.RemoveConstraint(
            model_name="verificationjob",
            name="uniq_job_idempotency_key",
        ),
        migrations.AddIndex(
            model_name="verificationjob",
            index=models.Index(
                condition=models.Q(("idempotency_key__isnull", False)),
                fields=["tenant", "idempotency_key"],
                name="job_idempotency_key",
            ),
        ),
        migrations.AddIndex(
            model_name="usagerecord",
            index=models.Index(fields=["tenant", "created_at"], name="usage_tenant_created"),
        ),
        migrations.RunPython(forward, backward, elidable=False),
    ]
