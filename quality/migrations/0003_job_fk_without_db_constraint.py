"""The jobs table becomes partitioned (verification 0017): its `id` alone is no longer a
database key, so these references to a job lose their database constraint (Django's ORM
still cascades)."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("quality", "0002_labels2_evaluation_progress"),
        ("verification", "0016_monthly_job_count"),
    ]

    operations = [
        migrations.AlterField(
            model_name="reviewitem",
            name="job",
            field=models.OneToOneField(
                db_constraint=False,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="review_item",
                to="verification.verificationjob",
            ),
        ),
        migrations.AlterField(
            model_name="label",
            name="job",
            field=models.ForeignKey(
                db_constraint=False,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="labels",
                to="verification.verificationjob",
            ),
        ),
        migrations.AlterField(
            model_name="datasetrow",
            name="job",
            field=models.ForeignKey(
                blank=True,
                db_constraint=False,
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                to="verification.verificationjob",
            ),
        ),
    ]
