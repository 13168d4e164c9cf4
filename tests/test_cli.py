"""The command line: exit 0 passed, 1 failed with the diagnosis on stdout, 2 usage error."""

from __future__ import annotations

import json
import re
import subprocess
import sys

from .conftest import ROOT, TESTS


def helpers_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "helpers", *args], capture_output=True, text=True,
                          cwd=ROOT)


def test_check_of_the_solution_exits_0_with_the_pass_line(oclgrind_present):
    out = helpers_cli("check", "float_copy", "--solutions")
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.startswith("✔ float_copy passed")


def test_check_of_a_wrong_kernel_exits_1_with_the_diagnosis_on_stdout(oclgrind_present):
    out = helpers_cli("check", "float_copy", "--kernel",
                      str(TESTS / "wrong" / "float_copy" / "no_guard.cl"), "--seed", "7")
    assert out.returncode == 1
    assert "no_guard.cl:5:12: write outside a buffer" in out.stdout
    assert "seed 7" in out.stdout


def test_usage_errors_exit_2_with_a_sentence():
    unknown = helpers_cli("check", "no_such_exercise")
    assert unknown.returncode == 2 and "There is no exercise named 'no_such_exercise'" in unknown.stderr
    missing = helpers_cli("check", "float_copy", "--kernel", "kernels/missing.cl")
    assert missing.returncode == 2 and "There is no kernel file kernels/missing.cl" in missing.stderr
    assert helpers_cli("check").returncode == 2
    assert helpers_cli("frobnicate").returncode == 2


def test_exercises_lists_each_exercise_with_its_file():
    out = helpers_cli("exercises")
    assert out.returncode == 0 and "float_copy" in out.stdout and "kernels/float_copy.cl" in out.stdout


def test_bench_writes_results_with_provenance_and_prints_a_summary(tmp_path):
    out = tmp_path / "bench.json"
    r = helpers_cli("bench", "--only", "erosion_timings", "--out", str(out))
    assert r.returncode == 0, r.stderr
    assert "erosion_1d_local" in r.stdout
    run = json.loads(out.read_text())
    rows = run["experiments"]["erosion_timings"]["rows"]
    assert [x["exercise"] for x in rows] == ["erosion_1d", "erosion_1d_local", "erosion_2d"]
    assert all(x["seconds"] > 0 and x["repeats"] == 10 for x in rows)
    assert run["environment"]["device"]["driver_version"] and run["environment"]["pyopencl"]
    assert helpers_cli("bench", "--only", "nonsense").returncode == 2


def test_profile_check_shows_where_the_time_goes_cold_and_warm(oclgrind_present):
    out = helpers_cli("profile", "check", "float_copy", "--solutions", "--repeats", "2")
    assert out.returncode == 0, out.stdout + out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith("Where a check of float_copy (") and lines[0].endswith("(passed):")
    rows = {m[1].strip(): (m[2], m[3]) for m in
            (re.match(r"^  (.{44}) +(\S+) +(\S+)$", line) for line in lines[2:]) if m}
    for phase in ("device: build", "device: cases", "Oclgrind: build", "Oclgrind: cases",
                  "the check, from call to verdict", "wall time, all of it"):
        cold, warm = (float(x.rstrip("s")) for x in rows[phase])
        # a phase is timed by its events' arrival: Oclgrind builds float_copy in about 10 ms,
        # and on a loaded machine its "ready" and "built" can be read together (0.000 s)
        least = 0 if phase.startswith("Oclgrind") else 1e-6
        assert cold >= least and warm >= least, (phase, out.stdout)
    assert sum(float(rows[p][0].rstrip("s")) for p in ("Oclgrind: build", "Oclgrind: cases")) > 0
    assert any(line.startswith("  Oclgrind cases (") for line in lines), out.stdout
    record = json.loads(helpers_cli("profile", "check", "float_copy", "--kernel",
                                    str(TESTS / "wrong" / "float_copy" / "no_guard.cl"),
                                    "--repeats", "1", "--json").stdout)
    assert record["passed"] is False and len(record["warm"]) == 1
    assert record["cold"]["wall"] > record["cold"]["check"] > 0
    assert record["environment"]["device"]["driver_version"]
    assert helpers_cli("profile", "check").returncode == 2
