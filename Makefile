# TruthLens: the common commands. `make run` and `make test` are the two set-up commands.
VENV ?= .venv
PY := $(VENV)/bin/python
export LITELLM_LOCAL_MODEL_COST_MAP := True
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1

.PHONY: install run test lint fmt migrate worker indexer web bench-accuracy bench-query-types bench-bandit train clean demo-dashboard test-browser screenshots walkthrough-screenshots deploy-check render-chart test-faults test-security deploy-smoke deploy-images deploy-chart-check bench-load bench-throughput bench-speed

$(VENV)/.installed: pyproject.toml constraints.txt sdk/python/pyproject.toml
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install -q --disable-pip-version-check --upgrade pip
	$(PY) -m pip install -q --disable-pip-version-check -c constraints.txt -e '.[dev]'
# the Python SDK, its CLI and its framework integrations (tests/sdk runs them against the server)
	$(PY) -m pip install -q --disable-pip-version-check -c constraints.txt -e 'sdk/python[all]'
# bench/detector_speed.py's baseline, without rag-fact-checker (see pyproject.toml)
	$(PY) -m pip install -q --disable-pip-version-check --no-deps -c constraints.txt lettucedetect
	touch $@

install: $(VENV)/.installed

run: install
	bash scripts/run.sh

test: install lint
	bash scripts/services.sh
	bash scripts/install-browser.sh
	bash scripts/install-compose.sh
	bash scripts/install-docker.sh
	$(PY) -m pytest

lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy api config dashboard engine knowledge observability quality security tenants verification workers
	$(VENV)/bin/lint-imports

fmt: install
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

migrate: install
	$(PY) manage.py ensure_database
	$(PY) manage.py migrate --noinput

web: install
	$(VENV)/bin/gunicorn config.wsgi -c deploy/gunicorn.conf.py

worker: install
	$(VENV)/bin/celery -A workers worker -Q detect_interactive,detect,mitigate_interactive,mitigate,webhooks,maintenance -l INFO

indexer: install
	$(VENV)/bin/celery -A workers worker -Q index -c 1 -n index@%h -l INFO

train: install
	$(PY) -m engine.train

bench-accuracy: install
	$(PY) bench/accuracy.py

bench-query-types: install
	$(PY) bench/query_types.py

demo-dashboard: install
	$(PY) manage.py demo_dashboard

test-browser: install
	$(PY) -m pytest tests/dashboard -m browser

walkthrough-screenshots: install  ## docs/dashboard.md's onboarding, review queue and evaluation images (browser tests)
	TRUTHLENS_WALKTHROUGH_SHOTS=docs/screenshots $(VENV)/bin/pytest tests/dashboard/test_browser_onboarding.py tests/dashboard/test_browser_labels.py -q -p no:cacheprovider

screenshots: install
	$(PY) manage.py dashboard_screenshots --password "$$DEMO_PASSWORD" --base-url http://127.0.0.1:8000

deploy-check: install
	$(PY) -m pytest -p no:django tests/deploy -q

# Build the images from a local debootstrap base and run the whole stack under Compose on
# this machine (dockerd without a bridge, host networking, host Postgres and Redis).
deploy-smoke: install
	bash scripts/services.sh
	bash scripts/install-docker.sh
	bash scripts/install-compose.sh
	$(PY) deploy/smoke.py

deploy-images: install
	bash scripts/install-docker.sh
	$(PY) deploy/build_images.py

# Render the Helm chart with the built images and start each workload's command in them.
deploy-chart-check: install
	$(PY) deploy/check_chart_images.py

render-chart: install
	$(PY) deploy/helm/render_chart.py

test-faults: install
	$(PY) -m pytest -m faults tests/faults

test-security: install
	$(PY) -m pytest tests/security

bench-load: install
	$(PY) bench/load.py --duration 300

bench-throughput: install
	$(PY) bench/throughput.py

bench-speed: install
	$(PY) bench/detector_speed.py --json bench/results/detector_speed.json

bench-bandit: install
	$(PY) bench/bandit_sim.py

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .mypy_cache staticfiles var
