#!/usr/bin/env python3
"""silent-server.py SOCKET READY: listen on the Unix socket SOCKET as a
`ccsift serve` would, take one client's request, create the file READY, and
never answer (for two minutes, or until killed): a client is left waiting in the middle of a
delivery, where a test can send it a signal."""
import os, socket, sys, time

s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1])
s.listen(1)
c, _ = s.accept()
c.recv(65536)
open(sys.argv[2], "w").close()
time.sleep(120)
