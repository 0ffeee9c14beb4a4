"""`python -m process_probe [exit CODE | raise | sleep S]`: prints what a process is told at its start, for
test_preloaded.py to compare a forked command with a real one."""

import json
import os
import sys
import time

import __main__

if __name__ == "__main__":
    print(
        json.dumps(
            {
                "argv": sys.argv[1:],
                "argv0": os.path.basename(sys.argv[0]),
                "cwd": os.getcwd(),
                "path0": sys.path[0],
                "main": __main__.__spec__.name,
                "probe": os.environ.get("PROBE"),
            }
        )
    )
    print("to stderr", file=sys.stderr)
    match sys.argv[1:]:
        case ["exit", code]:
            sys.exit(int(code))
        case ["raise"]:
            raise ValueError("probe failed")
        case ["sleep", seconds]:
            time.sleep(float(seconds))
