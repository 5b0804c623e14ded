#!/usr/bin/env python3
"""hostile-mail.py KIND N: write a hostile mail of KIND, scaled by N, to stdout.

  nested    a Cc of N nested address groups (g:g:...carol@example.org;;...)
  nested-spaced, nested-quoted, nested-encoded
            the same, with the field written "Cc :", or its value after an
            unclosed quote, or after an encoded word holding a quote
  parts-spaced, parts-extended, parts-blank
            a multipart/mixed of N empty parts, its boundary declared as
            "boundary =b", as "boundary*=''b" (RFC 2231), or as "b " (the
            lines that use it end in a blank)
  cc-repeated
            N Cc fields of 9,999 addresses each
  diffstat  N diffstat parts naming one truncated tail 9,999 times, after a
            part naming 9,999 long full paths: each tail meets every path
  parts     a multipart/mixed of N empty parts
  params    a Content-Type with N parameters
  refs      a References of N message ids
  cc        a Cc of N addresses
  subject-words
            10 forwarded messages, each with a Subject of N one-letter words
  names-line
            one "diff --git a/x b/x " line of N repeats
Each is a [PATCH] mail Cc'd to carol@example.org."""
import sys

kind, n = sys.argv[1], int(sys.argv[2])
out = sys.stdout.buffer
head = (b"From: New Person <new@example.org>\nTo: list@example.org\n"
        b"Subject: [PATCH 0/1] net: foo: hostile\nMessage-ID: <hostile@example.org>\n")
cc = b"Cc: carol@example.org\n"
multipart = b"MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=b\n\n"

groups = b"g:" * n + b"carol@example.org" + b";" * n
if kind == "nested":
    out.write(b"Cc: " + groups + b"\n" + head + b"\nhello\n")
elif kind == "nested-spaced":
    out.write(b"Cc : " + groups + b"\n" + head + b"\nhello\n")
elif kind == "nested-quoted":
    out.write(b"Cc: \"" + groups + b"\n" + head + b"\nhello\n")
elif kind == "nested-encoded":
    out.write(b"Cc: =?utf-8?q?\"?= " + groups + b"\n" + head + b"\nhello\n")
elif kind in ("parts-spaced", "parts-extended", "parts-blank"):
    declared = {"parts-spaced": b"boundary =b", "parts-extended": b"boundary*=''b",
                "parts-blank": b'boundary="b "'}[kind]
    line = b"--b \n\n" if kind == "parts-blank" else b"--b\n\n"
    out.write(head + cc + b"MIME-Version: 1.0\nContent-Type: multipart/mixed; " + declared + b"\n\n" +
              line * n + b"--b--\n")
elif kind == "cc-repeated":
    out.write(head + cc)
    for i in range(n):
        out.write(b"Cc: " + b", ".join(b"u%d.%d@example.org" % (i, j) for j in range(9999)) + b"\n")
    out.write(b"\nhello\n")
elif kind == "diffstat":
    out.write(head + cc + multipart)
    deep = b"drivers/net/ethernet/vendor/" + b"sub/" * 20
    out.write(b"--b\nContent-Type: text/plain\n\n")
    out.writelines(b" %sf%d.c | 2 +-\n" % (deep, i) for i in range(9000))
    out.write(b" 9999 files changed, 9999 insertions(+), 9999 deletions(-)\n")
    for part in range(n):
        out.write(b"--b\nContent-Type: text/plain\n\n")
        out.write(b" .../zzz.c | 2 +-\n" * 9999)
        out.write(b" 9999 files changed, 9999 insertions(+), 9999 deletions(-)\n")
    out.write(b"--b--\n")
elif kind == "parts":
    out.write(head + cc + multipart + b"--b\n\n" * n + b"--b--\n")
elif kind == "params":
    out.write(head + cc + b"MIME-Version: 1.0\nContent-Type: text/plain" +
              b"".join(b"; p%d=v" % i for i in range(n)) + b"\n\nhello\n")
elif kind == "refs":
    out.write(head + cc + b"References: " + b" ".join(b"<%d@r.example.org>" % i for i in range(n)) +
              b"\n\nhello\n")
elif kind == "cc":
    out.write(head + b"Cc: " + b", ".join(b"u%d@example.org" % i for i in range(n)) +
              b", carol@example.org\n\nhello\n")
elif kind == "subject-words":
    inner = b"--b\nContent-Type: message/rfc822\n\nFrom: x@example.org\nSubject: " + b"a " * n + b"\n\nhi\n"
    out.write(head + cc + multipart + b"--b\nContent-Type: text/plain\n\nhello\n" + inner * 10 + b"--b--\n")
elif kind == "names-line":
    out.write(head + cc + b"\n---\n" + b"diff --git a/x b/x " * n + b"\n")
else:
    sys.exit("hostile-mail.py: unknown kind %s" % kind)
