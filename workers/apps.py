from django.apps import AppConfig


class WorkersConfig(AppConfig):
    name = "workers"

    def ready(self) -> None:
        # Load the Celery app with Django so `transaction.on_commit` publishing and
        # `shared_task` use the configured broker in web processes too, and the signal
        # hooks (workers/signals.py) carry the request id into published tasks.
        from . import app  # noqa: F401
