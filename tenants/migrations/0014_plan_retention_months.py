from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("tenants", "0013_console_plan_is_public"),
    ]

    operations = [
        migrations.AddField(
            model_name="plan",
            name="retention_months",
            field=models.PositiveSmallIntegerField(
                choices=[(1, "1 month"), (3, "3 months"), (6, "6 months"), (12, "12 months"), (24, "24 months")],
                default=12,
                help_text="months a job (its spans and usage) is kept at least; a job is deleted with its month's partition within a month after that",
            ),
        ),
    ]
