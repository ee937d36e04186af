#!/usr/bin/env bash
# Start TruthLens locally on its embedded defaults: database, migrations, demo tenant,
# then web server + worker + beat in the foreground under supervisord, which starts a
# process that dies again and says so in the log (Ctrl-C stops everything).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=.venv/bin/python
export DEBUG="${DEBUG:-true}"
# /metrics on its own port, as the containers serve it: the public port answers 404 for it
export GUNICORN_METRICS_BIND="${GUNICORN_METRICS_BIND:-127.0.0.1:9100}"
bash scripts/services.sh
mkdir -p var
export TRUTHLENS_RUN_DIR="${TRUTHLENS_RUN_DIR:-$PWD/var}"
$PY manage.py ensure_database
$PY manage.py migrate --noinput
$PY manage.py collectstatic --noinput -v 0
$PY manage.py demo
$PY manage.py demo_dashboard
echo "Starting web (http://127.0.0.1:8000, docs at /v1/docs), worker and beat ..."
exec .venv/bin/supervisord -c deploy/supervisord.dev.conf
