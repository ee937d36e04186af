from django.apps import AppConfig


class VerificationConfig(AppConfig):
    name = "verification"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # AppConfig.ready: registers the metrics and tracing once, after the app registry is ready
        from django.conf import settings

        from observability import metrics, tracing

        from . import partitions

        partitions.install_group_by_guard()

        tracing.configure(settings.TRACING_EXPORTER)
        metrics.register_queue_depth(settings.CELERY_BROKER_URL)
