"""`python -m benchmarks.fit_peak PEAK_FILE ARGS...`: `python -m project.fit ARGS`, which at its exit writes its peak
resident memory (VmHWM, kB) to PEAK_FILE. Not ru_maxrss: Linux carries the forking parent's peak into a child's
across exec, and the board's process, which builds DataModules for the baselines, outgrows the smaller fits."""

import runpy
import sys
from pathlib import Path

if __name__ == "__main__":
    peak_file = Path(sys.argv.pop(1))
    try:
        runpy.run_module("project.fit", run_name="__main__", alter_sys=True)
    finally:
        status = Path("/proc/self/status").read_text()
        peak_file.write_text(status.split("VmHWM:")[1].split()[0])
