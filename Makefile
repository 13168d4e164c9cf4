# The course's commands: `make lab` and `make test` (and `make test-browser`). Everything is installed
# into .venv by pip; no root and no system OpenCL driver are needed (Linux x86-64 gets PoCL, Intel's
# CPU runtime and Oclgrind from pip).
#
#   make lab                          set up .venv and open JupyterLab at the course folder,
#                                     on notebook 00
#                                     (= python -m helpers lab, which needs no make)
#   make lab HEADLESS=1 PORT=8890     the same on a server: no browser, listen on PORT
#   make lab INTEL=0                  without Intel's CPU runtime (PoCL only; a smaller install)
#   make test                         set up .venv; run every test and notebook on every CPU device
#   make test DEVICE=pocl             ... on one of them
#   make test-browser                 the learner's path (notebook 00's exercise by the editor and by a
#                                     %%kernel cell, in every order, Run All on 01), Run All on notebooks
#                                     00 to 03 in JupyterLab in Chromium (Playwright) with their cell
#                                     times, and the class view in a local JupyterHub
#   make check NAME=float_copy        check one exercise's kernel from kernels/
#   make slides                       every notebook's slides and facilitator's guide, into
#                                     build/slides/ (= python -m helpers slides; no network needed)
#   make devices | make lint | make clean

PYTHON ?= python3
VENV   ?= .venv
PORT   ?=
HEADLESS ?=
INTEL  ?= 1
DEVICE ?=
BIN    := $(VENV)/bin
# The install and JupyterLab's start are `python -m helpers setup` and `python -m helpers lab`
# (helpers/install.py), which need no make: on Windows and macOS they are the commands to type.
SETUP_FLAGS := --venv $(VENV) $(if $(filter 0,$(INTEL)),--no-intel)

.PHONY: setup lab test test-browser check devices lint clean slides

# Installs only when pyproject.toml changed since the last install (a stamp in .venv): a second
# `make lab` or `make test` starts at once. After an install, every kernel the course ships is tried
# on every device (each in a separate process), so that the course's default device runs them.
setup:
	$(PYTHON) -m helpers setup $(SETUP_FLAGS)

lab:
	$(PYTHON) -m helpers lab $(SETUP_FLAGS) $(if $(PORT),--port $(PORT)) $(if $(HEADLESS),--headless)

# Every test and every notebook (solutions on, small sizes: conftest.py) on each CPU implementation.
test: setup
	$(BIN)/ruff check helpers tests browser_tests conftest.py tools deploy
	$(BIN)/python -m tests.every_cpu $(if $(DEVICE),--only "$(DEVICE)")

# JupyterLab in Chromium, driven by Playwright: Debian's chromium is installed with apt when this runs
# as root; otherwise a sentence says what to install.
test-browser: setup
	@$(BIN)/python -c "import playwright, jupyterhub" 2>/dev/null || $(BIN)/python -m pip install --quiet -e ".[browser,hub]"
	@command -v configurable-http-proxy >/dev/null || [ -x $(VENV)/chp/node_modules/.bin/configurable-http-proxy ] || \
	    { command -v npm >/dev/null && npm install --silent --prefix $(VENV)/chp configurable-http-proxy >/dev/null; } || \
	    { echo "make test-browser needs JupyterHub's proxy (Node.js): install npm, or run npm install -g configurable-http-proxy"; exit 2; }
	@[ -n "$$CHROMIUM" ] || command -v chromium >/dev/null || command -v chromium-browser >/dev/null || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null && \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; } || \
	    { echo "make test-browser needs Chromium: install Debian's chromium (sudo apt-get install chromium) or set CHROMIUM=/path/to/chrome"; exit 2; }
	$(BIN)/python -m pytest -p no:cacheprovider browser_tests

check: setup
	$(BIN)/python -m helpers check $(NAME)

slides: setup
	$(BIN)/python -m helpers slides

devices: setup
	$(BIN)/python -m helpers devices

lint: setup
	$(BIN)/ruff check helpers tests browser_tests conftest.py tools deploy

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache *.egg-info
