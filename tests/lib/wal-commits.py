#!/usr/bin/env python3
"""wal-commits.py DB -- COMMAND...: run COMMAND, then print how many
transactions it committed to the SQLite database DB (in WAL mode).

While COMMAND runs, this process holds a read transaction on DB's state
from before it, so no checkpoint can copy the WAL back and start it over:
every transaction COMMAND commits stays in the WAL as frames, the last
of each marked by the database's size after it. Those are counted.
Exits with COMMAND's status."""
import sqlite3
import struct
import subprocess
import sys

db, command = sys.argv[1], sys.argv[3:]
reader = sqlite3.connect(db, isolation_level=None)
reader.execute("PRAGMA wal_checkpoint(TRUNCATE)")
reader.execute("BEGIN")
reader.execute("SELECT count(*) FROM sqlite_master").fetchone()
status = subprocess.run(command).returncode
with open(db + "-wal", "rb") as f:
    wal = f.read()
commits = 0
if len(wal) >= 32:
    page_size = struct.unpack(">I", wal[8:12])[0]
    salts = wal[16:24]
    frame = 32
    # A frame of this WAL carries its salts; past the last, older bytes.
    while frame + 24 + page_size <= len(wal) and wal[frame + 8:frame + 16] == salts:
        if struct.unpack(">I", wal[frame + 4:frame + 8])[0]:
            commits += 1
        frame += 24 + page_size
reader.execute("COMMIT")
print(commits)
sys.exit(status)
