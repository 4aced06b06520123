# Dagscope: `make run` serves the app, `make test` runs the whole suite.
# Both install whatever is missing first (a .venv with the Python packages, Debian's graphviz,
# and for tests Debian's chromium and PyTorch 2.13 CPU, the oracle) and are fast when everything
# is already there. `make test-oracles` adds TensorFlow and JAX and runs their live-oracle tests
# (marked `oracle`, which pyproject.toml's addopts leave out of every other run).
SHELL := /bin/bash
HOST ?= 127.0.0.1
PORT ?= 8000
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
RUN_STAMP := $(VENV)/.installed-run
TEST_STAMP := $(VENV)/.installed-test
ORACLES_STAMP := $(VENV)/.installed-oracles
PYTEST_ARGS ?=

.PHONY: run test test-oracles install install-test install-oracles system-deps system-test-deps bench clean

run: install
	$(PY) -m app --host $(HOST) --port $(PORT)

test: install-test
	$(PY) -m pytest --durations=25 $(PYTEST_ARGS)   # the slowest tests, to keep the suite under 15 minutes

test-oracles: install-oracles
	$(PY) -m pytest -m "torch or oracle" $(PYTEST_ARGS) tests/engine

install: system-deps $(RUN_STAMP)
install-test: install system-test-deps $(TEST_STAMP)
install-oracles: install-test $(ORACLES_STAMP)

$(PY):
	$(PYTHON) -m venv $(VENV)

# Stamps depend on pyproject.toml, so a changed dependency list reinstalls and nothing else does.
$(RUN_STAMP): pyproject.toml | $(PY)
	$(PY) -m pip install -q --disable-pip-version-check -e .
	touch $@

$(TEST_STAMP): pyproject.toml $(RUN_STAMP)
	$(PY) -m pip install -q --disable-pip-version-check -e '.[test]'
	touch $@

$(ORACLES_STAMP): pyproject.toml $(TEST_STAMP)
	$(PY) -m pip install -q --disable-pip-version-check -e '.[test,oracles]'
	touch $@

# Python's headers build engine/native's C operators. They are optional (without them the Python
# operators run), so a Debian Python without python3-dev gets it when we may install, and no error.
system-deps:
	@scripts/ensure-debian-packages.sh dot:graphviz cc:gcc
	@$(PYTHON) -c "import os, sys, sysconfig; sys.exit(not (os.path.exists(os.path.join(sysconfig.get_paths()['include'], 'Python.h')) or sys.prefix != '/usr'))" \
	  || scripts/ensure-debian-packages.sh python3-dev || true

# postgresql: the store tests and the two-replica test start a throwaway server (tests/postgres_server.py);
# caddy: deploy/Caddyfile is validated and run in front of a replica (tests/test_deploy_files.py, test_replicas.py)
system-test-deps:
	@scripts/ensure-debian-packages.sh chromium:chromium fonts-wqy-microhei postgresql caddy:caddy   # fonts: CJK glyphs for zh-CN screenshots

bench: install
	$(PY) bench/eager.py

clean:
	rm -rf $(VENV) data .pytest_cache
