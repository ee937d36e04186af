"""Create the configured Postgres database if it does not exist (local set-up)."""

import psycopg
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from psycopg import sql


class Command(BaseCommand):
    help = "Create the database named in DATABASE_URL if it is missing."

    def handle(self, *args, **options):
        db = settings.DATABASES["default"]
        params = {
            "host": db.get("HOST") or "127.0.0.1",
            "port": db.get("PORT") or 5432,
            "user": db.get("USER") or "postgres",
            "password": db.get("PASSWORD") or None,
            "dbname": "postgres",
            "connect_timeout": 5,
            "autocommit": True,
        }
        try:
            with psycopg.connect(**params) as conn:  # type: ignore[arg-type]
                exists = conn.execute(
                    "SELECT 1 FROM pg_database WHERE datname = %s", [db["NAME"]]
                ).fetchone()
                if not exists:
                    conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(db["NAME"])))
                    self.stdout.write(f"created database {db['NAME']}")
        except psycopg.Error as exc:
            raise CommandError(
                f"cannot reach Postgres at {params['host']}:{params['port']}: {exc}"
            ) from exc
