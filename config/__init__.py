# Load the Celery app with Django so `transaction.on_commit` publishing and
# `shared_task` use the configured broker in web processes too.
from workers.app import app as celery_app

__all__ = ["celery_app"]
