# The Celery app is loaded with Django by the `workers` app's AppConfig (workers/apps.py):
# config never imports workers.
