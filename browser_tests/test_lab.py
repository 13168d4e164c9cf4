"""The course as a learner meets it: JupyterLab in Chromium, driven by Playwright (``make
test-browser``).

A JupyterLab server starts on a free local port (with the solutions switched on and small sizes, from
../conftest.py), Chromium opens notebooks 00 to 03 and runs every cell, and the test reads the page as
a learner would: no dead or restarted kernel, no error or stderr output under any cell, widgets drawn
as widgets (not as their text), and a moved NDRange explorer slider redraws the picture. Each Run
All's cell times (JupyterLab's recordTiming) go to the run's log, a line per notebook.
"""

from __future__ import annotations

import os
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from helpers.paths import ROOT

CELL_TIMEOUT_MS = 300_000
NOTEBOOKS = ("00-host-and-device.ipynb", "01-parallel-execution.ipynb", "02-work-groups.ipynb",
             "03-local-memory.ipynb")


def stop(proc: subprocess.Popen, log) -> None:
    """End a server the test started, with everything it started (it leads a session of its own:
    ``python -m helpers lab`` runs JupyterLab as its child, whose kernels were left running when
    only the parent was told to end): SIGTERM to the group, so that JupyterLab shuts its kernels
    down, then SIGKILL after 20 s; and close its log."""
    import signal
    try:
        os.killpg(proc.pid, signal.SIGTERM)
    except ProcessLookupError:
        pass
    try:
        proc.wait(timeout=20)
        time.sleep(2)    # JupyterLab's own shutdown of its kernels, after the parent has gone
    except subprocess.TimeoutExpired:
        pass
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait()
    log.close()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def chromium() -> str:
    path = os.environ.get("CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    assert path, ("Chromium is needed: install Debian's chromium (apt-get install chromium) or set "
                  "CHROMIUM=/path/to/chrome; `make test-browser` installs it when run as root")
    return path


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """A JupyterLab server on a copy of the notebooks (nothing is saved into the course's own)."""
    work = tmp_path_factory.mktemp("lab")
    for nb in NOTEBOOKS:
        shutil.copy(ROOT / "notebooks" / nb, work / nb)
    # JupyterLab records each cell's start and end in its metadata: the cells' times, as run here
    settings = work / "config" / "lab" / "user-settings" / "@jupyterlab" / "notebook-extension"
    settings.mkdir(parents=True)
    (settings / "tracker.jupyterlab-settings").write_text('{"recordTiming": true}')
    port, token = free_port(), secrets.token_hex(16)
    # the suite's MPLBACKEND=Agg (../conftest.py) would keep every figure out of the page
    env = {k: v for k, v in os.environ.items() if k != "MPLBACKEND"}
    env = {**env, "PYTHONPATH": str(ROOT), "JUPYTER_RUNTIME_DIR": str(work / "runtime"),
           "JUPYTER_CONFIG_DIR": str(work / "config")}
    log = open(work / "lab.log", "w")
    cmd = [sys.executable, "-m", "jupyter", "lab", "--no-browser", f"--port={port}",
           "--ip=127.0.0.1", f"--IdentityProvider.token={token}", f"--notebook-dir={work}",
           "--ServerApp.disable_check_xsrf=True", "--LabApp.news_url=", "--allow-root"]
    proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env, cwd=work,
                            start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    for _ in range(120):
        try:
            urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=2)
            break
        except OSError:
            if proc.poll() is not None:
                pytest.fail(f"JupyterLab did not start:\n{(work / 'lab.log').read_text()}")
            time.sleep(0.5)
    else:
        stop(proc, log)
        pytest.fail(f"JupyterLab did not answer:\n{(work / 'lab.log').read_text()}")
    yield base, token, work
    stop(proc, log)


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium(), headless=True,
                              args=["--no-sandbox", "--disable-gpu", "--disable-quic",
                                    "--no-first-run", "--disable-background-networking",
                                    "--disable-component-update", "--disable-sync"])
        yield b
        b.close()


KERNEL_READY = (  # the notebook's indicator and the status bar both say the kernel is idle
    "() => { const s = document.querySelector('.jp-Notebook-ExecutionIndicator');"
    " const bar = document.querySelector('#jp-main-statusbar');"
    " return !!(s && s.getAttribute('data-status') === 'idle'"
    "   && bar && /Python 3[^|]*\\|\\s*Idle/.test(bar.textContent)); }")

ALL_RUN = (
    "() => { const p = [...document.querySelectorAll('.jp-CodeCell .jp-InputPrompt')];"
    " const done = p.length && p.every(x => /\\[\\d+\\]/.test(x.textContent));"
    " const s = document.querySelector('.jp-Notebook-ExecutionIndicator');"
    " const status = s && s.getAttribute('data-status');"
    " const error = document.querySelector("
    "   \".jp-RenderedText[data-mime-type='application/vnd.jupyter.error']\");"
    " return (done && status === 'idle') || (error && status === 'idle')"
    "        || status === 'dead' || !!document.querySelector('.jp-Dialog'); }")


def run_all(page, base: str, token: str, notebook: str, work: Path) -> None:
    """Open ``notebook``, wait for its kernel, run every cell and wait until all have run.

    A "Select Kernel" dialog, which JupyterLab shows when Run All comes before the kernel has
    connected, is answered as a learner would (Select: the notebook's own Python 3). When the
    cells do not finish, the failure says which prompts were left and keeps a screenshot."""
    page.goto(f"{base}/lab/tree/{notebook}?token={token}&reset")
    page.wait_for_selector(".jp-NotebookPanel .jp-Cell", timeout=120_000)
    page.wait_for_function(KERNEL_READY, timeout=120_000, polling=500)
    page.click(".lm-MenuBar-item:has-text('Run')", timeout=30_000)  # Run > Run All Cells
    page.click(".lm-Menu-item[data-command='runmenu:run-all']", timeout=30_000)
    deadline = time.monotonic() + CELL_TIMEOUT_MS / 1000 * 2
    while True:
        try:
            page.wait_for_function(ALL_RUN, timeout=max(1_000, (deadline - time.monotonic()) * 1000),
                                   polling=1000)
        except Exception as e:  # playwright's TimeoutError
            shot = work / f"{notebook}.timeout.png"
            page.screenshot(path=str(shot))
            prompts = page.evaluate("() => [...document.querySelectorAll("
                                    "'.jp-CodeCell .jp-InputPrompt')].map(x => x.textContent)")
            pytest.fail(f"{notebook}: the cells did not finish ({e.__class__.__name__}); prompts "
                        f"{' '.join(prompts)}; screenshot {shot}")
        dialog = page.query_selector(".jp-Dialog")
        if dialog is None:
            return
        text = dialog.inner_text()
        assert "Select Kernel" in text, f"an unexpected dialog: {text[:300]}"
        page.click(".jp-Dialog .jp-mod-accept")
        page.wait_for_selector(".jp-Dialog", state="detached", timeout=30_000)
        if "[ ]" in "".join(page.evaluate("() => [...document.querySelectorAll("
                                          "'.jp-CodeCell .jp-InputPrompt')].map(x => x.textContent)")):
            page.wait_for_function(KERNEL_READY, timeout=120_000, polling=500)
            page.click(".lm-MenuBar-item:has-text('Run')", timeout=30_000)
            page.click(".lm-Menu-item[data-command='runmenu:run-all']", timeout=30_000)


def problems(page) -> list[str]:
    """What a learner would see go wrong: error or stderr output, a dead or restarted kernel."""
    found = []
    for sel, what in ((".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']",
                       "stderr output"),
                      (".jp-RenderedText[data-mime-type='application/vnd.jupyter.error']",
                       "an error")):
        for el in page.query_selector_all(sel):
            found.append(f"{what}: {el.inner_text()[:500]}")
    status = page.query_selector(".jp-Notebook-ExecutionIndicator")
    if status is not None and status.get_attribute("data-status") in ("dead", "restarting",
                                                                      "terminating"):
        found.append(f"the kernel is {status.get_attribute('data-status')}")
    for text in ("Kernel Restarting", "The kernel appears to have died"):
        if page.query_selector(f"text={text}"):
            found.append(text)
    return found


def cell_seconds(page, work: Path, notebook: str) -> list[float]:
    """Save the notebook (Ctrl+S) and read each code cell's seconds from the metadata JupyterLab
    recorded (recordTiming): from the kernel's busy to its reply."""
    import datetime
    import json
    page.keyboard.press("Control+s")
    path = work / notebook
    for _ in range(60):
        cells = [c for c in json.loads(path.read_text())["cells"] if c["cell_type"] == "code"]
        if cells and all("shell.execute_reply" in c["metadata"].get("execution", {})
                         for c in cells):
            break
        time.sleep(0.5)
    stamp = datetime.datetime.fromisoformat
    return [(stamp(c["metadata"]["execution"]["shell.execute_reply"].replace("Z", "+00:00"))
             - stamp(c["metadata"]["execution"]["iopub.status.busy"].replace("Z", "+00:00"))
             ).total_seconds() for c in cells]


def say_cell_times(request, notebook: str, seconds: list[float]) -> None:
    """One line in the run's log: the cells' times as a learner's Run All took them here (a
    benchmark, not an assertion: the 60-s bound is measured by tools/notebook_times.py)."""
    slowest = max(range(len(seconds)), key=seconds.__getitem__)
    line = (f"{notebook}: Run All in Chromium, {len(seconds)} code cells, {sum(seconds):.1f} s, "
            f"slowest cell {seconds[slowest]:.1f} s (code cell {slowest + 1})")
    reporter = request.config.pluginmanager.get_plugin("terminalreporter")
    capture = request.config.pluginmanager.get_plugin("capturemanager")
    if reporter is not None and capture is not None:
        with capture.global_and_fixture_disabled():    # to the run's log, not the capture
            reporter.write_line("\n" + line)


@pytest.mark.parametrize("notebook", [NOTEBOOKS[0], NOTEBOOKS[3]])
def test_notebooks_00_and_03_run_top_to_bottom(lab, browser, notebook, request):
    base, token, work = lab
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    run_all(page, base, token, notebook, work)
    assert problems(page) == []
    times = cell_seconds(page, work, notebook)
    assert times and all(t >= 0 for t in times)
    say_cell_times(request, notebook, times)
    page.close()


def test_notebook_01_runs_top_to_bottom_with_its_widgets(lab, browser, request):
    base, token, work = lab
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    run_all(page, base, token, "01-parallel-execution.ipynb", work)
    assert problems(page) == []
    say_cell_times(request, "01-parallel-execution.ipynb",
                   cell_seconds(page, work, "01-parallel-execution.ipynb"))
    # the throughput sweep is a widget (its button), not the text of one
    assert page.query_selector(".jp-OutputArea-output .widget-button"), "no widget was drawn"
    outputs = page.evaluate("() => [...document.querySelectorAll('.jp-OutputArea-output')]"
                            ".map(x => x.textContent)")
    assert not [t for t in outputs if "ThroughputSweep(" in t], "a widget was printed as text"
    mimes = page.evaluate("() => [...document.querySelectorAll('.jp-OutputArea-output')]"
                          ".map(x => x.getAttribute('data-mime-type') + ' ' + x.innerHTML.slice(0, 80))")
    assert page.query_selector_all(".jp-OutputArea-output img"), f"no figure was drawn: {mimes}"
    # a prediction's answer is collapsed until the learner opens it
    answer = page.locator(".jp-RenderedMarkdown details:has(> summary:text-is('Answer'))").first
    answer.scroll_into_view_if_needed(timeout=30_000)
    told = answer.locator("p").first
    assert answer.get_attribute("open") is None and not told.is_visible(), "an answer shows at once"
    answer.locator("summary").click()
    told.wait_for(state="visible", timeout=10_000)
    assert answer.get_attribute("open") is not None and told.inner_text().strip()
    page.close()


def test_notebook_02_explorers_redraw_when_a_slider_moves(lab, browser, request):
    base, token, work = lab
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    run_all(page, base, token, "02-work-groups.ipynb", work)
    assert problems(page) == []
    say_cell_times(request, "02-work-groups.ipynb",
                   cell_seconds(page, work, "02-work-groups.ipynb"))
    # the NDRange explorer and then the work-group size explorer are the last two outputs with
    # sliders; each one's picture is the last image in it
    outputs = page.locator(".jp-OutputArea-output:has(.widget-slider)")
    count = outputs.count()
    assert count >= 2, f"{count} outputs with sliders"
    for k in (count - 2, count - 1):
        explorer = outputs.nth(k)
        picture = explorer.locator("img").last
        picture.wait_for(timeout=60_000)
        before = picture.get_attribute("src")
        handle = explorer.locator(".widget-slider .noUi-handle").first
        handle.focus()
        handle.press("ArrowRight")  # continuous_update=False: the change counts on a key's release
        page.wait_for_function(
            "(arg) => { const outs = [...document.querySelectorAll('.jp-OutputArea-output')]"
            ".filter(o => o.querySelector('.widget-slider'));"
            " const imgs = outs.length > arg.k ? [...outs[arg.k].querySelectorAll('img')] : [];"
            " const img = imgs[imgs.length - 1];"
            " return img && img.getAttribute('src') !== arg.before; }",
            arg={"k": k, "before": before}, timeout=60_000)
        assert problems(page) == []
    page.screenshot(path=str(work / "02-explorer.png"))
    page.close()
