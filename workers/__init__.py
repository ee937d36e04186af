from .app import app

__all__ = ["app"]
