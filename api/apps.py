from django.apps import AppConfig


class ApiConfig(AppConfig):
    name = "api"

    def ready(self) -> None:
        from . import schema  # noqa: F401 - registers the OpenAPI security scheme
