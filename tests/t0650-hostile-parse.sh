#!/bin/bash
# t0650-hostile-parse: mail built to break the parser (issue 11). For each
# case `ccsift filter` delivers the message unchanged plus our headers, with
# the verdict unknown when a bound was passed, and neither `filter` nor
# `parse` dies by a signal, takes more than a bounded amount of CPU time, or
# more memory than 2.5 times the message plus 40 MB (tests/lib/maxrss.py:
# getrusage of the child). No wall-clock assertions: CPU time is limited
# with ulimit -t: 30 s (200 under sanitizers) where a linear parser needs 0.5 s and a quadratic one 50.

. "${TEST_DIRECTORY:=$(cd "$(dirname "$0")" && pwd)}/lib/test-lib.sh"

CHECK="python3 $TEST_DIRECTORY/lib/pipe-check.py"
HOSTILE="python3 $TEST_DIRECTORY/lib/hostile-mail.py"
MAXRSS="python3 $TEST_DIRECTORY/lib/maxrss.py"

# delivered IN VERDICT-REGEX: filter passes IN through with exit 0.
delivered() {
	rc=0
	"$CCSIFT_BIN" filter <"$1" >out 2>err || rc=$?
	{ [ "$rc" = 0 ] || { echo "exit status $rc" >&2; cat err >&2; return 1; }; } &&
	$CHECK "$1" out "$2" >verdict
}

# bounded_memory IN CMD...: CMD on IN ends by itself (no signal) within
# 2.5 x the size of IN + 40 MB.
bounded_memory() {
	local in=$1 size limit
	shift
	size=$(($(stat -c %s "$in") / 1024))
	limit=$((size * 5 / 2 + 40 * 1024))
	set -- $($MAXRSS "$in" "$CCSIFT_BIN" "$@")
	echo "$in: $1 kB (limit $limit kB), $2 $3"
	[ "$2" = exit ] && [ "$1" -lt "$limit" ]
}

# A mail's subject and paths reach stderr, parse and explain: encoded or
# quoted, they may carry a newline (a forged line), a carriage return or a
# terminal escape. Each prints as text on its own line.
test_expect_success 'control characters a subject or a path quotes print as text, one line each' '
	printf "%s\n" "From: a@example.org" "Cc: carol@example.org" \
		"Subject: [PATCH] net: =?utf-8?q?=1B]0;pwned=07=1B[2J=0D=0AX-Fake:_1?= tune" "" "x" "---" \
		"diff --git \"a/evil\\nsecond\\r\\033[31mred\" \"b/evil\\nsecond\\r\\033[31mred\"" \
		"--- \"a/evil\\nsecond\\r\\033[31mred\"" "+++ \"b/evil\\nsecond\\r\\033[31mred\"" \
		"@@ -1 +1 @@" "-a" "+b" >control.eml &&
	delivered control.eml "^X-Ccsift: unknown" &&
	test "$(wc -l <err)" = 1 && ! LC_ALL=C grep -q "[[:cntrl:]]" err &&
	"$CCSIFT_BIN" parse control.eml >parsed &&
	test_grep "^file: M evil?second??\[31mred$" parsed && test_grep "^subject: .*X-Fake: 1 tune$" parsed &&
	"$CCSIFT_BIN" explain control.eml >explained 2>&1 &&
	for out in parsed explained; do
		! LC_ALL=C grep -q "[[:cntrl:]]" $out && ! grep -q "^X-Fake" $out || { cat -A $out; return 1; }
	done
'

test_expect_success 'a Cc of 50,000 nested groups: unknown, not a crash' '
	$HOSTILE nested 50000 >nested.eml &&
	delivered nested.eml "^X-Ccsift: unknown" &&
	test_grep "over 64 groups" verdict &&
	rc=0 && "$CCSIFT_BIN" parse nested.eml >/dev/null 2>err || rc=$? &&
	test $rc = 1 && test_grep "over 64 groups" err
'

test_expect_success 'the same nested Cc in a forwarded message/rfc822 part' '
	{ printf "%s\n" "From: a@example.org" "Cc: carol@example.org" "Subject: [PATCH] fwd" \
		"MIME-Version: 1.0" "Content-Type: multipart/mixed; boundary=XX" "" "--XX" \
		"Content-Type: message/rfc822" ""; cat nested.eml; printf -- "--XX--\n"; } >fwd.eml &&
	delivered fwd.eml "^X-Ccsift: unknown" && test_grep "over 64 groups" verdict
'

# GMime reads more as a field, a group or a forwarded message than a
# strict reading of RFC 5322 would: each of these once got past the bounds
# and crashed ccsift in GMime (a stack overflow), so the mail was lost.
for kind in nested-spaced nested-quoted nested-encoded; do
	test_expect_success "nested groups GMime still finds ($kind): unknown, not a crash" '
		python3 "$TEST_DIRECTORY/lib/hostile-mail.py" '$kind' 50000 >'$kind'.eml &&
		delivered '$kind'.eml "^X-Ccsift: unknown" && test_grep "over 64 groups" verdict
	'
done

test_expect_success 'nested groups in a message/rfc822 part declared loosely: unknown, not a crash' '
	sed 1d nested.eml >body.eml &&
	for declared in "Content-Type:\n message/rfc822" "Content-Type : message/rfc822" \
		"Content-Type: (forwarded) message/rfc822" digest; do
		{ printf "%s\n" "From: a@example.org" "Cc: carol@example.org" "Subject: [PATCH] fwd" \
			"MIME-Version: 1.0" &&
		  if [ "$declared" = digest ]; then
			printf "%s\n" "Content-Type: multipart/digest; boundary=XX" "" "--XX"
		  else
			printf "%s\n" "Content-Type: multipart/mixed; boundary=XX" "" "--XX" &&
			printf "$declared\n"
		  fi &&
		  printf "\n" && head -1 nested.eml && cat body.eml && printf -- "--XX--\n"; } >fwd2.eml &&
		delivered fwd2.eml "^X-Ccsift: unknown" && test_grep "over 64 groups" verdict || return 1
	done
'

test_expect_success 'a boundary declared as "boundary =b", "boundary*=" or "b " still counts its parts' '
	for kind in parts-spaced parts-extended parts-blank; do
		$HOSTILE $kind 2000 >$kind.eml &&
		delivered $kind.eml "^X-Ccsift: unknown" && test_grep "MIME parts" verdict || return 1
	done
'

test_expect_success 'many Cc fields: their addresses count together' '
	$HOSTILE cc-repeated 3 >cc-repeated.eml &&
	delivered cc-repeated.eml "^X-Ccsift: unknown" && test_grep "addresses in all" verdict
'

test_expect_success '20,000 nested multiparts and 20,000 nested messages: unknown, not a crash' '
	{ printf "Subject: [PATCH] deep\nMIME-Version: 1.0\n";
	  i=0; while [ $i -lt 20000 ]; do printf "Content-Type: multipart/mixed; boundary=b%d\n\n--b%d\n" $i $i; i=$((i + 1)); done;
	  printf "\nhello\n"; } >deep-multipart.eml &&
	delivered deep-multipart.eml "^X-Ccsift: unknown" &&
	{ printf "Subject: [PATCH] deep\nMIME-Version: 1.0\n";
	  i=0; while [ $i -lt 20000 ]; do printf "Content-Type: message/rfc822\n\n"; i=$((i + 1)); done;
	  printf "Subject: x\n\nhello\n"; } >deep-message.eml &&
	delivered deep-message.eml "^X-Ccsift: unknown" && test_grep "MIME parts" verdict
'

test_expect_success 'Cc of 10,000 addresses is read; of 10,001 it is over the bound' '
	$HOSTILE cc 9999 >cc-ok.eml &&
	"$CCSIFT_BIN" parse cc-ok.eml >parsed &&
	test "$(grep -c "^cc: " parsed)" = 10000 && test_grep "^cc: carol@example.org" parsed &&
	$HOSTILE cc 10000 >cc-over.eml &&
	delivered cc-over.eml "^X-Ccsift: unknown" && test_grep "addresses" verdict
'

test_expect_success 'References: the first 1000 are read' '
	$HOSTILE refs 5000 >refs.eml &&
	"$CCSIFT_BIN" parse --json refs.eml >parsed.json &&
	python3 -c "import json,sys; r = json.load(open(\"parsed.json\"))[\"references\"]; sys.exit(len(r) != 1000)"
'

test_expect_success 'repeated diffstat parts: linear (CPU time bounded)' '
	$HOSTILE diffstat 40 >diffstat.eml &&
	# 0.16 s of CPU here; quadratic, it took over 100 s. Sanitizers and a
	# loaded machine slow it tenfold: the bound is far from both.
	limit=30 && if [ "${CCSIFT_SANITIZED:-0}" = 1 ]; then limit=200; fi &&
	(ulimit -t $limit; "$CCSIFT_BIN" parse diffstat.eml >parsed) &&
	test "$(grep -c "^file: " parsed)" = 9001
'

# (Not under ASan, whose allocator keeps freed memory in quarantine.)
if [ "${CCSIFT_SANITIZED:-0}" != 1 ]; then
	for c in "parts 600000" "parts-spaced 600000" "params 300000" "refs 300000" "cc 150000" \
		 "cc-repeated 100" "nested 50000" "nested-spaced 50000" "diffstat 8" \
		 "subject-words 1000000" "names-line 1000000"; do
		set -- $c
		test_expect_success "memory: $1 flood ($2), filter and parse" '
			$HOSTILE '"$1 $2"' >'"$1"'.eml &&
			bounded_memory '"$1"'.eml filter &&
			bounded_memory '"$1"'.eml parse
		'
	done
fi

test_done
