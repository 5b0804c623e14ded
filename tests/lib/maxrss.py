#!/usr/bin/env python3
"""maxrss.py IN CMD...: run CMD with IN on stdin, its output discarded, and
print its peak resident set in kB (getrusage RUSAGE_CHILDREN) and how it
ended: "KB exit N" or "KB signal N"."""
import resource
import subprocess
import sys

with open(sys.argv[1], "rb") as f:
    rc = subprocess.run(sys.argv[2:], stdin=f, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(peak, "signal" if rc < 0 else "exit", abs(rc))
