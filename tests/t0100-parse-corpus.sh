#!/bin/bash
# t0100-parse-corpus: ccsift parse on a corpus of real-shaped patch mails.
#
# For every tests/corpus/NAME.eml, the kind:, fixes:, base-commit: and file:
# lines of "ccsift parse" (and from: and author:, where the .expect has a
# from: line) must equal tests/corpus/NAME.expect. The .expect
# files say what is right, not what ccsift happens to print: a case that
# fails because of a known bug is listed in tests/corpus/KNOWN-FAILURES and
# reported as a TODO instead of a failure.

. "$TEST_DIRECTORY/lib/test-lib.sh"

CORPUS=$TEST_DIRECTORY/corpus

is_known_failure() {
	grep -qxF -- "$1" "$CORPUS/KNOWN-FAILURES" 2>/dev/null
}

# test_expect NAME TITLE BODY: test_expect_success, unless NAME is a known
# failure: then a failure is a TODO, and a pass says the entry is stale.
test_expect() {
	local name=$1 title=$2 body=$3

	if ! is_known_failure "$name"; then
		test_expect_success "$title" "$body"
		return
	fi
	test_count=$((test_count + 1))
	if (set -e; cd "$TRASH"; eval "$body") >"$TRASH/.out.$test_count" 2>&1; then
		say "ok $test_count - $title # known failure $name now passes: remove it from tests/corpus/KNOWN-FAILURES"
	else
		say "ok $test_count - # TODO known failure $name"
		sed 's/^/#	/' "$TRASH/.out.$test_count"
	fi
}

test_expect_success 'every corpus mail has its .expect and the other way round' '
	n=0 &&
	for eml in "$CORPUS"/*.eml; do
		test -f "${eml%.eml}.expect" || { echo "no .expect for $eml"; exit 1; }
		n=$((n + 1))
	done &&
	for exp in "$CORPUS"/*.expect; do
		test -f "${exp%.expect}.eml" || { echo "no .eml for $exp"; exit 1; }
	done &&
	test "$n" -ge 30
'

# kind:, fixes:, base-commit: and file: lines, in the order ccsift prints them;
# from: and author: too where the .expect says who sent and wrote it ($3)
parse_lines() {
	local keys='kind|fixes|base-commit|file'

	grep -q '^from:' "$3" && keys="$keys|from|author"
	"$CCSIFT" parse "$1" >"$2.out" &&
	{ grep -E "^($keys):" "$2.out" >"$2" || :; }
}

for eml in "$CORPUS"/*.eml; do
	name=$(basename "$eml" .eml)
	test_expect "$name" "parse $name" '
		parse_lines "$CORPUS/'"$name"'.eml" actual.'"$name"' "$CORPUS/'"$name"'.expect" &&
		test_cmp "$CORPUS/'"$name"'.expect" actual.'"$name"'
	'
done

test_expect parse-json 'parse --json prints valid JSON that agrees with the text output' '
	for name in inline-multi quoted-path latin1-headers cover-letter pull-request; do
		"$CCSIFT" parse --json "$CORPUS/$name.eml" >$name.json &&
		python3 -m json.tool $name.json >/dev/null &&
		"$CCSIFT" parse "$CORPUS/$name.eml" >$name.txt &&
		python3 - $name.json $name.txt <<-\PY || exit 1
		import json, sys
		j = json.load(open(sys.argv[1], encoding="utf-8"))
		text = open(sys.argv[2], encoding="utf-8", errors="replace").read().splitlines()
		want_kind = [l.split(": ", 1)[1] for l in text if l.startswith("kind: ")]
		want_files = [l.split(": ", 1)[1] for l in text if l.startswith("file: ")]
		got_files = []
		for f in j["files"]:
		    path = (".../" if f["truncated"] else "") + f["path"]
		    if f["old_path"]:
		        path = f["old_path"] + " => " + path
		    got_files.append(f["status"] + " " + path)
		assert [j["kind"]] == want_kind, (j["kind"], want_kind)
		assert got_files == want_files, (got_files, want_files)
		PY
	done
'

# "ccsift parse F" on bytes that are not a patch: no crash, and either
# "kind: not-a-patch" or one line of error on stderr.
parse_survives() {
	local rc=0

	"$CCSIFT" parse "$1" >"$1.out" 2>"$1.err" || rc=$?
	if test $rc -ge 128; then
		echo "$1: died by signal $((rc - 128))"
		return 1
	elif test $rc -eq 0; then
		test_grep '^kind: not-a-patch$' "$1.out"
	else
		test "$(wc -l <"$1.err")" -eq 1 || { echo "$1: exit $rc, stderr:"; cat "$1.err"; return 1; }
	fi
}

test_expect parse-empty 'parse of an empty file' '
	: >empty.eml &&
	parse_survives empty.eml
'

test_expect parse-garbage 'parse of garbage bytes' '
	python3 -c "import random, sys; r = random.Random(100); sys.stdout.buffer.write(bytes(r.randrange(256) for _ in range(65536)))" >random.eml &&
	printf "\000\000\000\000\n\000\377\376" >nul.eml &&
	printf "Subject: hi\n" >header-only.eml &&
	printf "From nobody Mon Sep 17 00:00:00 2001\n" >from-line-only.eml &&
	printf "From: a@example.org\nContent-Type: multipart/mixed; boundary=x\n\n--x\n--x\n--x\n" >empty-parts.eml &&
	printf "From: a@example.org\nContent-Type: multipart/mixed; boundary=x\n\n--x\nContent-Type: application/octet-stream\nContent-Transfer-Encoding: base64\n\n!!!!====@@@@\n" >bad-base64.eml &&
	printf "From: a@example.org\nContent-Transfer-Encoding: quoted-printable\n\n=\n=4\n=ZZ\n" >bad-qp.eml &&
	for f in random.eml nul.eml header-only.eml from-line-only.eml empty-parts.eml bad-base64.eml bad-qp.eml; do
		parse_survives $f || exit 1
	done
'

test_done
