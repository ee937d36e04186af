from django.apps import AppConfig


class DashboardConfig(AppConfig):
    name = "dashboard"

    def ready(self) -> None:
        from . import signin_lockout  # noqa: F401  (connects the lockout receiver)
