import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django_application = get_wsgi_application()

from .chunked import read_chunked  # noqa: E402 - needs the settings configured above

# the server's de-chunked bodies reach Django with their length (config/chunked.py)
application = read_chunked(django_application)
