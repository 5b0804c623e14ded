#!/usr/bin/env python3
"""pipe-check.py IN OUT [VERDICT-REGEX]: OUT is what `ccsift filter` must make
of IN: the same bytes plus exactly one X-Ccsift and one X-Ccsift-Reason line,
inserted after a leading mbox From_ line, before the first header, each
printable ASCII and ended with the message's own line ending; X-Ccsift*
headers already in IN's header block (up to a bare "\n" line) renamed to Old-X-Ccsift*. Works on bytes
(NULs, 8-bit, CRLF). Prints the verdict line; exit 1 with a reason if not."""
import re
import sys


def fail(why):
    sys.stderr.write("pipe-check: %s\n" % why)
    sys.exit(1)


def expected_body(msg):
    """IN with its forged X-Ccsift headers renamed, as ccsift must emit it.
    The header block ends at the first bare "\n" line, as procmail sees it."""
    start = msg.index(b"\n") + 1 if msg.startswith(b"From ") and b"\n" in msg else 0
    out, pos = [msg[:start]], start
    while pos < len(msg):
        nl = msg.find(b"\n", pos)
        end = len(msg) if nl < 0 else nl + 1
        line = msg[pos:end]
        if line == b"\n":
            break
        if re.match(rb"(?i)x-ccsift[-: \t]", line):
            out.append(b"Old-")
        out.append(line)
        pos = end
    out.append(msg[pos:])
    return start, b"".join(out)


def main():
    src = open(sys.argv[1], "rb").read()
    out = open(sys.argv[2], "rb").read()
    want = re.compile(sys.argv[3]) if len(sys.argv) > 3 else None
    at, expect = expected_body(src)
    if out[:at] != src[:at]:
        fail("the From_ line is not first")
    lines = []
    pos = at
    for name in (b"X-Ccsift: ", b"X-Ccsift-Reason: "):
        nl = out.find(b"\n", pos)
        if nl < 0:
            fail("output ends inside our headers")
        line = out[pos:nl + 1]
        if not line.startswith(name):
            fail("expected %r at offset %d, found %r" % (name, pos, line[:60]))
        body = line.rstrip(b"\r\n")
        if any(c < 0x20 or c > 0x7e for c in body):
            fail("non-printable byte in %r" % body[:80])
        lines.append(line)
        pos = nl + 1
    crlf = [l.endswith(b"\r\n") for l in lines]
    first_eol = re.search(rb"\r?\n", src[at:])
    want_crlf = bool(first_eol and first_eol.group(0) == b"\r\n")
    if crlf != [want_crlf, want_crlf]:
        fail("our headers end with %s, the message with %s" % (crlf, "CRLF" if want_crlf else "LF"))
    if out[:at] + out[pos:] != expect:
        a, b = expect, out[:at] + out[pos:]
        i = next((k for k in range(min(len(a), len(b))) if a[k] != b[k]), min(len(a), len(b)))
        fail("message differs from the input at byte %d (in %d bytes, out %d)" % (i, len(a), len(b)))
    verdict = lines[0].rstrip(b"\r\n").decode()
    if want and not want.search(verdict):
        fail("%s does not match %s" % (verdict, sys.argv[3]))
    print(verdict)
    print(lines[1].rstrip(b"\r\n").decode())


main()
