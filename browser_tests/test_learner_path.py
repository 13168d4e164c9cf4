"""The first exercise as a learner does it, in Chromium (Playwright), on a copy of the course (no
file of the course's own is changed): ``python -m helpers lab`` opens JupyterLab on notebook 00 with
the course folder in the file browser; the learner closes it and opens it again from the file
browser, opens ``kernels/float_copy.cl`` there (it opens as OpenCL C), writes the solution, saves,
and runs the exercise's cell: it passes. Then the same through the ``%%kernel`` cell, and Run All on
a notebook whose exercise is not solved reaches its last cell, where the learner locks a
prediction in and then opens its answer. Solutions are off here, as on a learner's laptop."""

from __future__ import annotations

import os
import re
import secrets
import shutil
import subprocess
import sys
import time
import urllib.request

import pytest
from test_lab import KERNEL_READY, browser, free_port, problems, run_all, stop  # noqa: F401

from helpers.paths import ROOT

SOLUTION = (ROOT / "solutions" / "float_copy.cl").read_text()


def course_files() -> list[str]:
    """What a fresh clone holds (tracked files, and new ones not yet committed)."""
    out = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT,
                         capture_output=True, check=True)
    return [p for p in out.stdout.decode().split("\0") if p and (ROOT / p).is_file()]


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    """A copy of the course, and JupyterLab started on it with ``python -m helpers lab``."""
    work = tmp_path_factory.mktemp("learner")
    copy = work / "course"
    for rel in course_files():
        (copy / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / rel, copy / rel)
    shipped = subprocess.run(["git", "ls-files", "-z", "kernels"], cwd=ROOT, capture_output=True,
                             check=True).stdout.decode().split("\0")
    for rel in filter(None, shipped):      # every kernel as shipped, whatever a learner did here
        (copy / rel).write_bytes(subprocess.run(["git", "show", f"HEAD:{rel}"], cwd=ROOT,
                                                capture_output=True, check=True).stdout)
    shutil.rmtree(copy / "kernels" / "previous", ignore_errors=True)
    port, token = free_port(), secrets.token_hex(16)
    env = {k: v for k, v in os.environ.items()
           if k not in ("MPLBACKEND", "PYTEST_CURRENT_TEST", "COURSE_STRICT_CHECKS")}
    env.update({"COURSE_SOLUTIONS": "0", "COURSE_SMALL": "1", "PYTHONPATH": str(copy),
                "JUPYTER_TOKEN": token, "JUPYTER_CONFIG_DIR": str(work / "config"),
                "JUPYTER_RUNTIME_DIR": str(work / "runtime"),
                "JUPYTERLAB_WORKSPACES_DIR": str(work / "workspaces"),
                "COURSE_CACHE": str(work / "cache")})
    log = open(work / "lab.log", "w")
    proc = subprocess.Popen([sys.executable, "-m", "helpers", "lab", "--no-venv", "--headless",
                             "--port", str(port)], cwd=copy, env=env, stdout=log,
                            stderr=subprocess.STDOUT, start_new_session=True)
    url = None
    for _ in range(240):
        found = re.search(r"The course is open at (\S+)", (work / "lab.log").read_text())
        if found:
            url = found.group(1)
            break
        if proc.poll() is not None:
            break
        time.sleep(0.5)
    if url is None:
        stop(proc, log)
        pytest.fail(f"python -m helpers lab did not say where the course is:\n"
                    f"{(work / 'lab.log').read_text()[-3000:]}")
    urllib.request.urlopen(url, timeout=10)
    yield url, copy, work, port, token
    stop(proc, log)


def cell_with(page, text: str):
    """The notebook's code cell whose source holds ``text``."""
    return page.locator(".jp-CodeCell", has=page.locator(".jp-InputArea-editor",
                                                         has_text=text)).first


def run_cell(page, cell) -> str:
    """Run one cell as a learner does (click it, Shift+Enter) and return its output's text."""
    cell.locator(".jp-InputArea-editor").click()
    page.keyboard.press("Shift+Enter")
    prompt = cell.locator(".jp-InputPrompt")
    page.wait_for_function("(el) => /\\[\\d+\\]/.test(el.textContent)", arg=prompt.element_handle(),
                           timeout=300_000, polling=500)
    return cell.locator(".jp-OutputArea").inner_text()


def replace_editor_text(page, editor, text: str) -> None:
    """Select everything in a CodeMirror editor and type ``text`` in its place (as a paste)."""
    editor.locator(".cm-content").click()
    page.keyboard.press("Control+a")
    page.keyboard.press("Delete")
    page.keyboard.insert_text(text)


WRONG = ("__kernel void float_copy(__global const float *src, __global float *dst, const uint n)\n"
         "{\n    const uint i = get_global_id(0);\n    if (i < n) dst[i] = 2.0f * src[i];\n}\n")


def wait_for_file(path, text: str, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while path.read_text().strip() != text.strip() and time.monotonic() < deadline:
        time.sleep(0.5)
    assert path.read_text().strip() == text.strip()


def is_highlighted_as_c(cell) -> bool:
    """A C comment line of the cell is one token (a comment), as the file editor draws it: in
    Python's mode its words "from" and "with" would be keywords of their own."""
    line = cell.locator(".cm-line", has_text="// Check it from the notebook with").first
    line.wait_for(timeout=30_000)
    return line.evaluate("(el) => el.children.length === 1 && "
                         "el.children[0].textContent === el.textContent")


def test_the_first_exercise_by_the_editor_then_by_a_kernel_cell(course, browser):  # noqa: F811
    url, copy, work, _, _ = course
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(url)
    # notebook 00 opens first, with the course folder (kernels/ and notebooks/) in the browser
    page.wait_for_selector(".jp-NotebookPanel .jp-Cell", timeout=120_000)
    tab = page.locator("#jp-main-dock-panel .lm-TabBar-tab.lm-mod-current").first
    assert "00-host-and-device.ipynb" in tab.inner_text()
    listing = page.locator(".jp-DirListing-content .jp-DirListing-itemText")
    listing.first.wait_for(timeout=60_000)
    names = listing.all_inner_texts()
    assert "kernels" in names and "notebooks" in names, names
    # closed, then opened again from the file browser, as a learner coming back to it would
    tab.locator(".lm-TabBar-tabCloseIcon").click()
    page.wait_for_selector(".jp-NotebookPanel", state="detached", timeout=30_000)
    page.locator(".jp-DirListing-item", has_text="notebooks").first.dblclick()
    page.locator(".jp-DirListing-item", has_text="00-host-and-device.ipynb").first.dblclick()
    page.wait_for_selector(".jp-NotebookPanel .jp-Cell", timeout=120_000)
    page.wait_for_function(KERNEL_READY, timeout=120_000, polling=500)
    page.locator(".jp-BreadCrumbs-home").first.click()       # back to the course folder
    page.locator(".jp-DirListing-item", has_text="kernels").first.wait_for(timeout=30_000)

    # the editor route: kernels/float_copy.cl from the file browser, as OpenCL C
    page.locator(".jp-DirListing-item", has_text="kernels").first.dblclick()
    page.locator(".jp-DirListing-item", has_text="float_copy.cl").first.dblclick()
    editor = page.locator(".jp-FileEditor").last
    editor.wait_for(timeout=60_000)
    page.wait_for_function("() => /OpenCL C/.test(document.querySelector('#jp-main-statusbar')"
                           ".textContent)", timeout=30_000)
    replace_editor_text(page, editor, SOLUTION)
    page.keyboard.press("Control+s")
    wait_for_file(copy / "kernels/float_copy.cl", SOLUTION)

    # back to notebook 00: its first cell, then the exercise's cell, run as it is, checks the
    # saved file and takes its text (it never overwrites the editor's work)
    page.locator(".lm-TabBar-tab", has_text="00-host-and-device.ipynb").first.click()
    run_cell(page, page.locator(".jp-CodeCell").first)
    exercise = cell_with(page, "%%kernel float_copy")
    assert is_highlighted_as_c(exercise), "the %%kernel cell is not highlighted as OpenCL C"
    out = run_cell(page, exercise)
    assert "did not overwrite it" in out and "✔ float_copy passed" in out, out
    wrap = exercise.locator(".jp-OutputArea-output pre").first.evaluate(
        "(e) => getComputedStyle(e).wordBreak")
    assert wrap == "normal", f"a verdict's lines break inside words ({wrap})"
    cell_text = lambda: exercise.locator(".cm-content").inner_text()  # noqa: E731
    assert "get_global_id" in cell_text() and "TODO" not in cell_text(), cell_text()
    assert (copy / "kernels/float_copy.cl").read_text().strip() == SOLUTION.strip()

    # the learner's report, step by step: the cell saves a wrong kernel; the editor tab, open on
    # the file, shows it (it reloads and says so) before the learner edits there
    replace_editor_text(page, exercise.locator(".jp-InputArea-editor"), "%%kernel float_copy\n"
                        + WRONG)
    out = run_cell(page, exercise)
    assert "float_copy failed" in out and "the text it replaced is kept as" in out, out
    assert (copy / "kernels/float_copy.cl").read_text().strip() == WRONG.strip()
    page.locator(".lm-TabBar-tab", has_text="float_copy.cl").first.click()
    page.wait_for_function("() => [...document.querySelectorAll('.jp-FileEditor .cm-content')]"
                           ".some(e => e.textContent.includes('2.0f'))", timeout=15_000)
    page.locator(".jp-toast-message", has_text="saved outside this editor").first.wait_for(
        timeout=15_000)
    # ... fixes it there and saves (no "overwrite?" question: the tab held the file's text) ...
    replace_editor_text(page, editor, SOLUTION)
    page.keyboard.press("Control+s")
    assert page.locator(".jp-Dialog").count() == 0, page.locator(".jp-Dialog").inner_text()
    wait_for_file(copy / "kernels/float_copy.cl", SOLUTION)
    # ... and runs the cell as it is: the fix survives, the cell shows it, the check judges it
    page.locator(".lm-TabBar-tab", has_text="00-host-and-device.ipynb").first.click()
    exercise = cell_with(page, "%%kernel float_copy")
    out = run_cell(page, exercise)
    assert "did not overwrite it" in out and "✔ float_copy passed" in out, out
    assert "The cell's own text is kept as kernels/previous/float_copy-" in out, out
    assert (copy / "kernels/float_copy.cl").read_text().strip() == SOLUTION.strip()
    assert "2.0f" not in cell_text() and "get_global_id" in cell_text(), cell_text()

    # the kernel-cell route: the file back to the skeleton, the solution written in the cell
    skeleton = subprocess.run(["git", "show", "HEAD:kernels/float_copy.cl"], cwd=ROOT,
                              capture_output=True, check=True).stdout
    (copy / "kernels/float_copy.cl").write_bytes(skeleton)
    replace_editor_text(page, exercise.locator(".jp-InputArea-editor"),
                        "%%kernel float_copy\n" + SOLUTION)
    out = run_cell(page, exercise)
    assert "✔ float_copy passed" in out, out
    kept = re.search(r"the text it replaced is kept as (kernels/previous/float_copy-\d+\.cl)", out)
    assert kept and (copy / kept.group(1)).read_bytes() == skeleton, out
    assert (copy / "kernels/float_copy.cl").read_text().strip() == SOLUTION.strip()
    assert problems(page) == []
    page.screenshot(path=str(work / "00-exercise.png"))
    page.close()


def test_run_all_reads_a_notebook_whose_exercise_is_unsolved(course, browser):  # noqa: F811
    url, copy, work, port, token = course
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    (work / "notebooks").mkdir(exist_ok=True)     # where run_all leaves a screenshot if stuck
    run_all(page, f"http://127.0.0.1:{port}", token, "notebooks/01-parallel-execution.ipynb", work)
    prompts = page.evaluate("() => [...document.querySelectorAll('.jp-CodeCell .jp-InputPrompt')]"
                            ".map(x => x.textContent)")
    assert all(re.search(r"\[\d+\]", p) for p in prompts), prompts     # the last cell ran too
    assert problems(page) == []                                        # no traceback anywhere
    for name in ("sum_ints", "sum_ints_multi"):    # each exercise's verdict, under its own cell
        # JupyterLab draws only the cells in view, and may draw a cell again while it is read:
        # read its verdict until it is there (a minute at most)
        out, deadline = "", time.monotonic() + 60
        while "Start with Hint 1" not in out and time.monotonic() < deadline:
            cell = cell_with(page, f"%%kernel {name}")
            try:
                cell.scroll_into_view_if_needed(timeout=5_000)
                out = cell.locator(".jp-OutputArea").inner_text(timeout=5_000)
            except Exception:    # playwright's TimeoutError: the cell was drawn again meanwhile
                out = ""
            time.sleep(0.5)
        assert f"{name} failed" in out and "Start with Hint 1" in out, out
    answer_a_prediction(page)
    page.close()


def answer_a_prediction(page) -> None:
    """As a learner meets a prediction (helpers/predict.py): nothing is told before a choice is
    locked in; the learner picks one, locks it in, the choices freeze and the cell says what they
    predicted; then they open the collapsed answer under it."""
    cell = page.locator(".jp-CodeCell", has=page.locator(".widget-radio-box")).first
    widget = cell.locator(".jp-OutputArea-output:has(.widget-radio-box)")
    widget.scroll_into_view_if_needed(timeout=30_000)
    lock = widget.locator("button:has-text('Lock in my prediction')")
    assert "You predicted" not in widget.inner_text()
    lock.click()                                  # nothing picked: it asks for a choice
    widget.locator("text=Pick one of the choices first").wait_for(timeout=30_000)
    widget.locator(".widget-radio-box label").first.click()
    lock.click()
    widget.locator("text=You predicted").wait_for(timeout=30_000)
    assert lock.is_disabled()
    assert widget.locator(".widget-radio-box input").first.is_disabled()
    # the answer: collapsed, in the markdown cell right after the widget's cell
    answer = cell.locator("xpath=following-sibling::div[contains(@class, 'jp-MarkdownCell')][1]"
                          "//details[summary[normalize-space()='Answer']]")
    answer.scroll_into_view_if_needed(timeout=30_000)
    told = answer.locator("p").first
    assert answer.get_attribute("open") is None and not told.is_visible()
    answer.locator("summary").click()
    told.wait_for(state="visible", timeout=10_000)
    assert told.inner_text().strip()
