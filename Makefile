# Two commands on a fresh machine: `make run` (the app on its sample sessions) and `make test`.
VENV ?= .venv
BIN := $(VENV)/bin
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
PORT ?= 8501

.PHONY: setup run test lint browser bench

setup: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	python3 -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,parity,dask]'
	# compiled once, as pip does for an installed package: a command starts ~0.1 s sooner
	# where the environment does not write bytecode itself (PYTHONDONTWRITEBYTECODE)
	$(BIN)/python -m compileall -q playground policies
	touch $@

run: setup
	$(BIN)/streamlit run app.py --server.headless true --server.port $(PORT) --browser.gatherUsageStats false

browser:
	@command -v chromium >/dev/null 2>&1 || { $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq chromium; }

lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

test: setup browser lint
	$(BIN)/pytest

bench: setup
	$(BIN)/playground bench
