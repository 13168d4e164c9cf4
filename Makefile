# The course's two commands: `make lab` and `make test`. Everything is installed into .venv by pip;
# no root and no system OpenCL driver are needed (Linux x86-64 gets PoCL and Oclgrind from pip).
#
#   make lab                          set up .venv and open JupyterLab on notebooks/
#   make lab HEADLESS=1 PORT=8890     the same on a server: no browser, listen on PORT
#   make test                         set up .venv and run every test and every notebook
#   make check NAME=float_copy        check one exercise's kernel from kernels/
#   make devices | make lint | make clean

PYTHON ?= python3
VENV   ?= .venv
PORT   ?= 8888
HEADLESS ?=
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

LAB_FLAGS := --port=$(PORT) $(if $(HEADLESS),--no-browser --ip=0.0.0.0) \
             $(if $(filter 0,$(shell id -u 2>/dev/null)),--allow-root)

.PHONY: lab test check devices lint clean

# Re-installs only when pyproject.toml changes: a second `make lab` or `make test` starts at once.
$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else "Python 3.10 or newer is needed (found " + sys.version.split()[0] + "); set PYTHON=python3.12 or similar")'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e .
	@touch $(STAMP)

lab: $(STAMP)
	$(BIN)/python -m helpers devices || true
	$(BIN)/jupyter lab $(LAB_FLAGS) --notebook-dir=notebooks

# Notebooks run with the solutions switched on and small sizes (tests/conftest.py sets both).
test: $(STAMP)
	$(BIN)/ruff check helpers tests conftest.py
	$(BIN)/python -m pytest

check: $(STAMP)
	$(BIN)/python -m helpers check $(NAME)

devices: $(STAMP)
	$(BIN)/python -m helpers devices

lint: $(STAMP)
	$(BIN)/ruff check helpers tests conftest.py

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache *.egg-info
