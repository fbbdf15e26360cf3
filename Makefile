# Two commands on a fresh machine: `make run` (the app on its sample sessions) and `make test`.
VENV ?= .venv
BIN := $(VENV)/bin
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
PORT ?= 8501

.PHONY: setup setup-test run test lint docs browser bench

# what the app needs, and no more: the frameworks (parity) and Dask install for the tests only
setup: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	python3 -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e .
	# compiled once, as pip does for an installed package: a command starts ~0.1 s sooner
	# where the environment does not write bytecode itself (PYTHONDONTWRITEBYTECODE)
	$(BIN)/python -m compileall -q playground policies
	touch $@

# everything the tests run: the app's packages, the test tools, the frameworks, Dask, the docs
setup-test: $(VENV)/.installed-test

$(VENV)/.installed-test: $(VENV)/.installed
	$(BIN)/python -m pip install --quiet -e '.[test,parity,dask,docs]'
	touch $@

run: setup
	$(BIN)/playground app --port $(PORT)

browser:
	@command -v chromium >/dev/null 2>&1 || { $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq chromium; }

lint: setup-test
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

# the docs site, its tables made from the declarations; a broken link or a missing page fails it
docs: setup-test
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --quiet

test: setup-test browser lint docs
	$(BIN)/pytest

bench: setup
	$(BIN)/playground bench
