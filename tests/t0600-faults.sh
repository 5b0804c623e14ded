#!/bin/bash
# Never lose mail: `ccsift filter` against broken surroundings and hostile
# input.  For each case the message comes out unchanged plus our two header
# lines (tests/lib/pipe-check.py checks that byte for byte), or, when the
# output cannot be written, ccsift exits 75 so the MDA keeps it; stderr has at
# most one line, and exactly one when something was wrong; the exit status is
# the documented one (0, or 75 for I/O on the message itself); and no case
# dies by a signal.
#
# The user is Carol Typo (tests/lib/history.md): tests/lib/rx-budget.eml is
# low for her, which is what an intact setup must still say.
#
# Covered elsewhere: the notmuch database locked (t0500, t0510), procmail's
# TIMEOUT and a failing filter under procmail and maildrop (t0300).

. "${TEST_DIRECTORY:=$(cd "$(dirname "$0")" && pwd)}/lib/test-lib.sh"

CHECK="python3 $TEST_DIRECTORY/lib/pipe-check.py"
ASOF=2025-06-01T00:00:00Z
CONF="$XDG_CONFIG_HOME/ccsift/config"

# filter IN [ARGS...]: run ccsift filter on IN; out, err and rc are left in
# ./out, ./err and $rc.  No case may depend on the machine's speed (a
# sanitizer build on a loaded machine can take seconds): the time budget is
# large unless a case is about the budget and gives its own.
filter() {
	local in=$1
	shift
	rc=0
	"$CCSIFT_BIN" filter --as-of $ASOF --time-budget 600 "$@" <"$in" >out 2>err || rc=$?
}

# delivered IN VERDICT-REGEX [ARGS...]: IN goes through with exit 0, our
# headers added, the verdict matching; stderr at most one line.
delivered() {
	local in=$1 verdict=$2
	shift 2
	filter "$in" "$@" &&
	{ [ "$rc" = 0 ] || { echo "exit status $rc" >&2; cat err >&2; return 1; }; } &&
	$CHECK "$in" out "$verdict" >verdict &&
	{ [ "$(wc -l <err)" -le 1 ] || { echo "stderr has more than one line:" >&2; cat err >&2; return 1; }; }
}

# one_line_error PATTERN: stderr is exactly one line, matching PATTERN.
one_line_error() {
	[ "$(wc -l <err)" = 1 ] || { echo "stderr is not one line:" >&2; cat err >&2; return 1; }
	grep -Eq "^ccsift filter: .*$1" err || { echo "stderr does not match $1:" >&2; cat err >&2; return 1; }
}

# with_config LINES...: the user's config is LINES (a fresh file each time).
with_config() {
	printf '%s\n' "[user]" "email = carol@example.org" "notmuch = false" "$@" >"$CONF"
}

P="$TEST_DIRECTORY/lib/rx-budget.eml"

test_expect_success 'setup: history, config, index; the patch is low for carol' '
	bash "$TEST_DIRECTORY/lib/make-history.sh" repo >/dev/null &&
	mkdir -p "$(dirname "$CONF")" &&
	with_config "[repo demo]" "path = $TRASH/repo" &&
	"$CCSIFT_BIN" index >/dev/null &&
	IDX=$(echo "$XDG_CACHE_HOME"/ccsift/*.db) && test -f "$IDX" &&
	echo "$IDX" >idx-path &&
	delivered "$P" "^X-Ccsift: low;" &&
	test ! -s err
'
IDX=$(cat idx-path 2>/dev/null)

# --- the surroundings ----------------------------------------------------------

test_expect_success 'missing repository: unknown, one line' '
	with_config "[repo demo]" "path = $TRASH/no-such-repo" "index = $TRASH/no-such.db" &&
	delivered "$P" "^X-Ccsift: unknown" && one_line_error "no-such"
'

test_expect_success 'missing index: unknown, one line saying to run ccsift index' '
	with_config "[repo demo]" "path = $TRASH/repo" "index = $TRASH/none.db" &&
	delivered "$P" "^X-Ccsift: unknown" && one_line_error "run: ccsift index"
'

test_expect_success 'corrupt index (random bytes): unknown, one line' '
	head -c 65536 /dev/urandom >corrupt.db &&
	with_config "[repo demo]" "path = $TRASH/repo" "index = $TRASH/corrupt.db" &&
	delivered "$P" "^X-Ccsift: unknown" && one_line_error "corrupt.db"
'

test_expect_success 'truncated index: unknown, one line' '
	sqlite3 "$IDX" "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null &&
	size=$(stat -c %s "$IDX") && head -c $((size / 2)) "$IDX" >truncated.db &&
	with_config "[repo demo]" "path = $TRASH/repo" "index = $TRASH/truncated.db" &&
	delivered "$P" "^X-Ccsift: unknown" && one_line_error "."
'

# The index is a cache of the history: ccsift index builds a damaged one anew
# (it used to fail on it, every run, until the file was deleted by hand).
test_expect_success 'a damaged index (random bytes, truncated, a page overwritten): ccsift index builds it anew' '
	sqlite3 "$IDX" "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null &&
	size=$(stat -c %s "$IDX") &&
	# derived: a page of a table that an update with nothing to add never
	# reads, and a delivery only now and then
	for how in random truncated page derived; do
		rm -f damaged.db* &&
		case $how in
		random) head -c 65536 /dev/urandom >damaged.db ;;
		truncated) head -c 4096 "$IDX" >damaged.db ;;
		page) cp "$IDX" damaged.db &&
		      python3 -c "import os; f = open(\"damaged.db\", \"r+b\"); f.seek(os.path.getsize(\"damaged.db\") // 2 // 4096 * 4096); f.write(b\"\\xff\" * 4096)" ;;
		derived) cp "$IDX" damaged.db &&
		      pg=$(sqlite3 damaged.db "SELECT max(pageno) FROM dbstat WHERE name = '\''maintainer_sections'\''") &&
		      test -n "$pg" &&
		      python3 -c "import sys; f = open(\"damaged.db\", \"r+b\"); f.seek((int(sys.argv[1]) - 1) * 4096); f.write(b\"\\xff\" * 4096)" "$pg" ;;
		esac &&
		with_config "[repo demo]" "path = $TRASH/repo" "index = $TRASH/damaged.db" &&
		"$CCSIFT_BIN" index >out 2>index.err && cat index.err &&
		test_grep "; building it anew\$" index.err && test "$(wc -l <index.err)" = 1 &&
		test_grep "commits added" out &&
		delivered "$P" "^X-Ccsift: low;" && test ! -s err || { echo "damaged: $how" >&2; return 1; }
	done
'

test_expect_success 'index of another version: unknown, one line saying to run ccsift index' '
	cp "$IDX" old.db && sqlite3 old.db "PRAGMA user_version=3" &&
	with_config "[repo demo]" "path = $TRASH/repo" "index = $TRASH/old.db" &&
	delivered "$P" "^X-Ccsift: unknown" && one_line_error "another version"
'

# ccsift index builds it anew, and says why: "N commits added" alone read as
# an update of the index that was there.
test_expect_success '... ccsift index builds it anew, saying it was another version' '
	"$CCSIFT_BIN" index >out 2>index.err && cat index.err &&
	test_grep "^ccsift index: $TRASH/old.db had index version 3, another ccsift.s (this one.s is [0-9]*); building it anew\$" index.err &&
	test "$(wc -l <index.err)" = 1 && test_grep "commits added" out &&
	delivered "$P" "^X-Ccsift: low;" && test ! -s err &&
	"$CCSIFT_BIN" index >out 2>index.err && test ! -s index.err
'

test_expect_success 'an empty file as the index: unknown, one line' '
	: >empty.db &&
	with_config "[repo demo]" "path = $TRASH/repo" "index = $TRASH/empty.db" &&
	delivered "$P" "^X-Ccsift: unknown" && one_line_error "."
'

test_expect_success 'a writer in the middle of a transaction: readers go on (WAL), verdict unchanged' '
	with_config "[repo demo]" "path = $TRASH/repo" &&
	mkfifo hold &&
	{ { echo "BEGIN IMMEDIATE; DELETE FROM touches; SELECT '\''held'\'';"; cat hold; } |
		sqlite3 "$IDX" >writer.out & } &&
	while ! grep -q held writer.out 2>/dev/null; do sleep 0.05; done &&
	delivered "$P" "^X-Ccsift: low;" && test ! -s err;
	st=$?; echo "ROLLBACK;" >hold; wait; return $st
'

# hold_exclusive: another process holds the index exclusively until release.
hold_exclusive() {
	rm -f hold writer.out && mkfifo hold &&
	{ { echo "PRAGMA locking_mode=EXCLUSIVE; BEGIN EXCLUSIVE; DELETE FROM touches; SELECT 'held';"; cat hold; } |
		sqlite3 "$IDX" >writer.out 2>&1 & } &&
	local i=0
	while ! grep -q held writer.out 2>/dev/null; do
		i=$((i + 1)); [ $i -lt 600 ] || { echo "the writer never got its lock" >&2; cat writer.out >&2; return 1; }
		sleep 0.05
	done
}
release() { echo "ROLLBACK;" >hold; wait; }

test_expect_success 'index locked exclusively by another process: unknown, saying so' '
	with_config "[repo demo]" "path = $TRASH/repo" &&
	hold_exclusive &&
	delivered "$P" "^X-Ccsift: unknown" && one_line_error "index .* is locked by another process$";
	st=$?; release; return $st
'

test_expect_success 'the index still gives the same verdict after that' '
	with_config "[repo demo]" "path = $TRASH/repo" &&
	delivered "$P" "^X-Ccsift: low;" &&
	test "$(sqlite3 "$IDX" "PRAGMA integrity_check")" = ok
'

test_expect_success 'index on a hung filesystem (a FIFO): refused at once, unknown, one line' '
	rm -f hung.db && mkfifo hung.db &&
	with_config "[repo demo]" "path = $TRASH/repo" "index = $TRASH/hung.db" &&
	delivered "$P" "^X-Ccsift: unknown" && one_line_error "hung.db is not a regular file$" &&
	test_grep "^X-Ccsift-Reason: .*hung.db is not a regular file" verdict
'

test_expect_success '--time-budget 1, the index locked (2 s of waiting): the budget first; out of range: 75' '
	with_config "[repo demo]" "path = $TRASH/repo" &&
	hold_exclusive &&
	delivered "$P" "^X-Ccsift: unknown" --time-budget 1 && one_line_error "time budget" &&
	test_grep "^X-Ccsift-Reason: over the time budget" verdict &&
	rc=0 && "$CCSIFT_BIN" filter --time-budget 0 <"$P" >out 2>err || rc=$? &&
	test $rc = 75 && one_line_error "not from 1 to 3600";
	st=$?; release; return $st
'

test_expect_success '--threshold that is not a probability: unknown, the message whole, one line' '
	with_config "[repo demo]" "path = $TRASH/repo" &&
	for t in 5 1.5 inf nan -0.5; do
		delivered "$P" "^X-Ccsift: unknown" --threshold "$t" &&
		one_line_error "--threshold .*: not a probability from 0 to 1$" || return 1
	done &&
	delivered "$P" "^X-Ccsift: low;.*threshold=1.000" --threshold 1 &&
	delivered "$P" "^X-Ccsift: relevant;.*threshold=0.000" --threshold 0
'

test_expect_success 'index directory read-only (another user reading our index): the verdict, no write' '
	with_config "[repo demo]" "path = $TRASH/repo" &&
	if [ "$(id -u)" = 0 ]; then
		# root writes anywhere: read as nobody, for whom the directory is read-only.
		chmod 755 "$TRASH" "$HOME" "$XDG_CACHE_HOME" "$XDG_CACHE_HOME/ccsift" "$XDG_CONFIG_HOME" \
			"$XDG_CONFIG_HOME/ccsift" &&
		chmod 644 "$IDX"* "$CONF" &&
		sqlite3 "$IDX" "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null &&
		before=$(ls -l --time-style=+%s.%N "$XDG_CACHE_HOME/ccsift") &&
		rc=0 && setpriv --reuid=nobody --regid=nogroup --clear-groups -- \
			"$CCSIFT_BIN" filter --as-of $ASOF <"$P" >out 2>err || rc=$?
	else
		chmod a-w "$XDG_CACHE_HOME/ccsift" &&
		before=$(ls -l --time-style=+%s.%N "$XDG_CACHE_HOME/ccsift") &&
		filter "$P"
		chmod u+w "$XDG_CACHE_HOME/ccsift"
	fi &&
	test "$rc" = 0 &&
	$CHECK "$P" out "^X-Ccsift: low;" >verdict && cat verdict err &&
	test ! -s err &&
	test "$before" = "$(ls -l --time-style=+%s.%N "$XDG_CACHE_HOME/ccsift")"
'

# An intact index on a read-only mount has no -shm and SQLite can make none:
# it is read as immutable.  Needs a mount namespace (root, or user namespaces).
if unshare -rm true 2>/dev/null || { [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; }; then
test_expect_success 'index on a read-only mount, no -shm: the verdict' '
	with_config "[repo demo]" "path = $TRASH/repo" &&
	sqlite3 "$IDX" "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null && test ! -e "$IDX-shm" &&
	dir=$XDG_CACHE_HOME/ccsift &&
	rc=0 && unshare -m sh -c "mount --bind \"$dir\" \"$dir\" && mount -o remount,bind,ro \"$dir\" &&
		! touch \"$dir/probe\" 2>/dev/null &&
		exec \"$CCSIFT_BIN\" filter --as-of $ASOF --time-budget 600 <\"$P\" >out 2>err" || rc=$? &&
	test $rc = 0 && $CHECK "$P" out "^X-Ccsift: low;" >verdict && cat verdict err && test ! -s err
'
fi

test_expect_success 'repository with missing blobs: the verdict from the index' '
	with_config "[repo demo]" "path = $TRASH/repo" &&
	cp -a repo repo-partial &&
	blob=$(git -C repo-partial rev-parse HEAD:drivers/net/foo.c) &&
	git -C repo-partial repack -adq && rm -f repo-partial/.git/objects/pack/* &&
	git -C repo rev-list --objects --all | cut -d" " -f1 | grep -v "^$blob$" |
		git -C repo pack-objects -q "$TRASH/repo-partial/.git/objects/pack/pack" >/dev/null &&
	test_must_fail git -C repo-partial cat-file -e "$blob" &&
	with_config "[repo demo]" "path = $TRASH/repo-partial" "index = $TRASH/partial.db" &&
	"$CCSIFT_BIN" index >/dev/null 2>index.err &&
	delivered "$P" "^X-Ccsift: (low|relevant);"
'

test_expect_success 'world-writable config: refused, unknown, one line' '
	with_config "[repo demo]" "path = $TRASH/repo" &&
	chmod 666 "$CONF" &&
	delivered "$P" "^X-Ccsift: unknown" && one_line_error "refusing config .*writable by everyone";
	st=$?; chmod 600 "$CONF"; return $st
'

test_expect_success 'world-writable index: refused, unknown, one line' '
	with_config "[repo demo]" "path = $TRASH/repo" &&
	chmod 666 "$IDX" &&
	delivered "$P" "^X-Ccsift: unknown" && one_line_error "refusing index .*writable by everyone";
	st=$?; chmod 644 "$IDX"; return $st
'

test_expect_success 'a directory anyone can write holding the index: refused' '
	mkdir -p open && chmod 777 open && cp "$IDX" open/i.db &&
	with_config "[repo demo]" "path = $TRASH/repo" "index = $TRASH/open/i.db" &&
	delivered "$P" "^X-Ccsift: unknown" && one_line_error "directory .* writable by everyone"
'

test_expect_success 'a bad config: unknown, one line naming the file and line' '
	with_config "[repo demo]" "path = $TRASH/repo" "threshold = lots" &&
	delivered "$P" "^X-Ccsift: unknown" && one_line_error "config:[0-9]+"
'

# --- the output ------------------------------------------------------------------

with_config "[repo demo]" "path = $TRASH/repo"

test_expect_success 'output to a full disk: 75, one line' '
	rc=0 && "$CCSIFT_BIN" filter <"$P" >/dev/full 2>err || rc=$? &&
	test "$rc" = 75 && one_line_error "cannot write.*No space left"
'

test_expect_success 'stdout closed: 75, one line' '
	rc=0 && "$CCSIFT_BIN" filter <"$P" >&- 2>err || rc=$? &&
	test "$rc" = 75 && one_line_error "cannot write"
'

test_expect_success 'the reader goes away (SIGPIPE): 75, not killed' '
	# big enough not to fit in the pipe buffer
	{ sed -n "1,/^$/p" "$P"; head -c 300000 /dev/zero | tr "\0" x; } >long.eml &&
	{ "$CCSIFT_BIN" filter <long.eml 2>err; echo $? >status; } | head -c 10 >/dev/null &&
	test "$(cat status)" = 75 && one_line_error "Broken pipe"
'

test_expect_success 'stdin unreadable (a directory): 75, one line' '
	rc=0 && "$CCSIFT_BIN" filter <. >out 2>err || rc=$? &&
	test "$rc" = 75 && one_line_error "read" && test ! -s out
'

# --- hostile input ---------------------------------------------------------------

# Variations of the patch mail, all still patches to drivers/net/foo.c.
sed -n '1,/^$/p' "$P" >head.part
sed '1,/^$/d' "$P" >body.part

# await FILE: wait (60 s at most, whatever the machine's load) for FILE.
await() {
	local n=0
	while ! [ -e "$1" ]; do
		[ $n -lt 600 ] || { echo "no $1 after 60 s" >&2; return 1; }
		sleep 0.1
		n=$((n + 1))
	done
}

# A crash in GMime, libgit2 or SQLite while deciding must not lose the
# message: the MTA would retry, crash again and bounce it. The filter is
# held waiting on a server that never answers, and sent the signal there.
# (Not under the sanitizers, whose own handlers report a crash instead.)
[ "${CCSIFT_SANITIZED:-0}" = 1 ] ||
test_expect_success 'a crash while deciding (SEGV, BUS, ABRT): passed through unknown, one line' '
	for sig in SEGV BUS ABRT; do
		rm -f silent.sock ready &&
		{ python3 "$TEST_DIRECTORY/lib/silent-server.py" silent.sock ready >/dev/null 2>&1 & } && server=$! &&
		await silent.sock &&
		{ CCSIFT_SOCKET=$TRASH/silent.sock "$CCSIFT_BIN" filter --as-of $ASOF --time-budget 600 \
			<"$P" >out 2>err & } && pid=$! &&
		await ready && kill -$sig $pid &&
		rc=0 && { wait $pid || rc=$?; } && kill $server &&
		{ [ "$rc" = 0 ] || { echo "SIG$sig: exit status $rc" >&2; cat err >&2; return 1; }; } &&
		$CHECK "$P" out "^X-Ccsift: unknown" >verdict &&
		test_grep "^X-Ccsift-Reason: ccsift filter crashed deciding" verdict &&
		one_line_error "crashed deciding; passed through as unknown" || return 1
	done
'

test_expect_success 'NUL bytes in a header and in the body' '
	{ printf "X-Junk: a\0b\n"; cat head.part; printf "nul\0here\n"; cat body.part; } >nul.eml &&
	delivered nul.eml "^X-Ccsift: (low;|unknown)"
'

test_expect_success 'invalid UTF-8 in the subject, a name and the body' '
	{ sed "s/^Subject: .*/Subject: [PATCH] net: foo: \xff\xfe\xc3(/; s/^From: New/From: N\xe9w/" head.part;
	  printf "\xc3\x28\xa0\xa1 broken\n"; cat body.part; } >utf8.eml &&
	delivered utf8.eml "^X-Ccsift: low;"
'

test_expect_success '8-bit headers (raw Latin-1)' '
	{ printf "Organization: Universit\xe4t M\xfcnchen\n"; sed "s/^From: New Person/From: J\xf6rg M\xfcller/" head.part;
	  cat body.part; } >8bit.eml &&
	delivered 8bit.eml "^X-Ccsift: low;"
'

test_expect_success 'no headers at all: the patch body alone' '
	cp body.part noheaders.eml &&
	delivered noheaders.eml "^X-Ccsift: "
'

test_expect_success 'no body: headers only, no empty line, no final newline' '
	head -c -1 head.part | sed "\$d" >nobody.eml && printf "X-Last: no newline" >>nobody.eml &&
	delivered nobody.eml "^X-Ccsift: not-a-patch"
'

test_expect_success 'an empty message' '
	: >empty.eml &&
	delivered empty.eml "^X-Ccsift: (unknown|not-a-patch)"
'

test_expect_success 'binary junk (an ELF file)' '
	head -c 200000 "$CCSIFT_BIN" >elf.eml &&
	delivered elf.eml "^X-Ccsift: (unknown|not-a-patch)"
'

test_expect_success 'a 10 MB single line in the body' '
	{ cat head.part; head -c 10000000 /dev/zero | tr "\0" a; printf "\n"; cat body.part; } >longline.eml &&
	delivered longline.eml "^X-Ccsift: (low;|unknown)"
'

test_expect_success '100,000 headers' '
	{ seq 1 100000 | sed "s/^/X-Junk-Header: /"; cat "$P"; } >headers.eml &&
	delivered headers.eml "^X-Ccsift: (low;|unknown)"
'

test_expect_success 'forged X-Ccsift headers are renamed, the real verdict given' '
	{ sed -n 1,2p "$P"; printf "X-Ccsift: relevant; score=9\nx-ccsift-reason: trust me\nX-CCSIFT-Reason: folded\n still\n";
	  sed 1,2d "$P"; } >forged.eml &&
	delivered forged.eml "^X-Ccsift: low;" &&
	test "$(grep -c "^Old-X-Ccsift" out)" = 3 -o "$(grep -ci "^Old-X-Ccsift" out)" = 3
'

test_expect_success 'an mbox From_ line stays first' '
	{ echo "From new@example.org Tue May 20 10:00:01 2025"; cat "$P"; } >mbox.eml &&
	delivered mbox.eml "^X-Ccsift: low;" && head -1 out | grep "^From new@example.org "
'

test_expect_success 'CRLF line ends: our headers end with CRLF too' '
	sed "s/\$/\r/" "$P" >crlf.eml &&
	delivered crlf.eml "^X-Ccsift: low;"
'

# A delivery agent may hand over its pipe non-blocking; a read before the
# writer has written gets EAGAIN, which is a wait, not a failure (each
# retry of the delivery failed the same way).
test_expect_success 'stdin a non-blocking pipe whose writer is slow: the message goes through' '
	python3 - "$CCSIFT_BIN" "$P" "$ASOF" >nb.out <<-\EOF &&
	import fcntl, os, subprocess, sys, time
	r, w = os.pipe()
	fcntl.fcntl(r, fcntl.F_SETFL, fcntl.fcntl(r, fcntl.F_GETFL) | os.O_NONBLOCK)
	p = subprocess.Popen([sys.argv[1], "filter", "--as-of", sys.argv[3]], stdin=r,
	                     stdout=open("nb.eml.out", "wb"), stderr=open("nb.err", "wb"))
	os.close(r)
	time.sleep(0.3)  # (the reader is waiting, however long it takes to start)
	os.write(w, open(sys.argv[2], "rb").read())
	os.close(w)
	print(p.wait())
	EOF
	test "$(cat nb.out)" = 0 && test ! -s nb.err &&
	$CHECK "$P" nb.eml.out "^X-Ccsift: low;"
'

# A table the decision reads, damaged: its reads fail half way, and the
# counts they gave (0, or cut short) would decide without a word.
test_expect_success 'a page of the engagement table damaged: unknown, one line, no verdict on counts read short' '
	with_config "[repo demo]" "path = $TRASH/repo" &&
	sqlite3 "$IDX" "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null &&
	cp "$IDX" damaged.bak &&
	page=$(sqlite3 "$IDX" "SELECT rootpage FROM sqlite_master WHERE name = \"engagement\"") &&
	size=$(sqlite3 "$IDX" "PRAGMA page_size") && test "$page" -gt 1 &&
	dd if=/dev/zero of="$IDX" bs=$size seek=$((page - 1)) count=1 conv=notrunc 2>/dev/null &&
	delivered "$P" "^X-Ccsift: unknown" --as-of $ASOF &&
	one_line_error "index .*: read: database disk image is malformed" &&
	test_must_fail "$CCSIFT_BIN" eval --repo "$TRASH/repo" --index "$IDX" --sample 50 >eval.out 2>eval.err &&
	test_grep "read: database disk image is malformed" eval.err && test ! -s eval.out;
	st=$?; cp damaged.bak "$IDX"; rm -f "$IDX-wal" "$IDX-shm"; return $st
'

test_expect_success '... the index as it was: the verdict again' '
	with_config "[repo demo]" "path = $TRASH/repo" &&
	delivered "$P" "^X-Ccsift: low;" --as-of $ASOF
'

# --- bounded work ----------------------------------------------------------------

test_expect_success 'a patch touching 5001 files: unknown, with the limit as the reason' '
	{ cat head.part; echo "---";
	  i=0; while [ $i -lt 5001 ]; do
		printf "diff --git a/d/f%d.c b/d/f%d.c\n--- a/d/f%d.c\n+++ b/d/f%d.c\n@@ -1 +1 @@\n-a\n+b\n" $i $i $i $i
		i=$((i + 1)); done; } >many.eml &&
	delivered many.eml "^X-Ccsift: unknown" &&
	test_grep "^X-Ccsift-Reason: the patch touches 5001 files, over the limit of 5000" verdict
'

test_expect_success 'a patch touching 20,000 files: the parser stops counting, and says so' '
	{ cat head.part; echo "---";
	  awk "BEGIN { for (i = 0; i < 20000; i++) printf \"diff --git a/d/f%d.c b/d/f%d.c\\n\", i, i }"; } >more.eml &&
	delivered more.eml "^X-Ccsift: unknown" &&
	test_grep "^X-Ccsift-Reason: the patch touches 10000 files or more, over the limit of 5000" verdict
'

test_expect_success 'files spread over many MIME parts count together: unknown, over the limit' '
	{ printf "%s\n" "From: a@example.org" "Cc: carol@example.org" "Subject: [PATCH] many parts" \
		"MIME-Version: 1.0" "Content-Type: multipart/mixed; boundary=XX" "";
	  for k in 1 2 3 4; do
		printf -- "--XX\nContent-Type: text/plain\n\n"
		i=0; while [ $i -lt 1300 ]; do
			printf "diff --git a/p%d/f%d.c b/p%d/f%d.c\n--- a/p%d/f%d.c\n+++ b/p%d/f%d.c\n@@ -1 +1 @@\n-a\n+b\n" \
				$k $i $k $i $k $i $k $i
			i=$((i + 1)); done
	  done; printf -- "--XX--\n"; } >parts.eml &&
	delivered parts.eml "^X-Ccsift: unknown" &&
	test_grep "^X-Ccsift-Reason: the patch touches 5200 files, over the limit of 5000" verdict
'

test_expect_success 'a message over 64 MiB: unknown, with the limit as the reason, whole' '
	{ cat "$P"; head -c $((65 << 20)) /dev/zero | tr "\0" "\n"; } >huge.eml &&
	delivered huge.eml "^X-Ccsift: unknown" &&
	test_grep "^X-Ccsift-Reason: message over the 67108864-byte limit" verdict
'

# The largest resident set of `ccsift filter` on IN, in kB.
maxrss() {
	python3 -c "import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdin=open(\"$1\", \"rb\"), stdout=subprocess.DEVNULL, check=True)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)" "$CCSIFT_BIN" filter --as-of $ASOF
}

# (Not under ASan, whose allocator keeps freed memory in quarantine.)
[ "${CCSIFT_SANITIZED:-0}" = 1 ] ||
test_expect_success 'memory: the message size times a small factor, plus a constant' '
	{ cat head.part; head -c $((32 << 20)) /dev/zero | tr "\0" "+"; printf "\n"; cat body.part; } >m32.eml &&
	small=$(maxrss "$P") && big=$(maxrss m32.eml) &&
	echo "small $small kB, 32 MiB message $big kB" &&
	test $((big - small)) -lt $((3 * 32 * 1024))
'

# Past the limit nothing is decided and the rest is not held: it goes out
# as it comes in (a message of 4 GiB once crashed GLib's array, and every
# byte was held before). Its header block read past the limit still has
# forged headers renamed.
[ "${CCSIFT_SANITIZED:-0}" = 1 ] ||
test_expect_success 'a message of 200 MiB goes through whole, in a third of its size' '
	{ printf "%s\n" "From: a@example.org" "Cc: carol@example.org" "Subject: [PATCH] big";
	  head -c $((65 << 20)) /dev/zero | tr "\0" "\n" | sed "s/^/X-Filler: /" | head -c $((65 << 20));
	  printf "\nX-Ccsift: low; forged past the limit\n\n";
	  head -c $((135 << 20)) /dev/zero | tr "\0" "+"; printf "\n"; } >big.eml &&
	delivered big.eml "^X-Ccsift: unknown" --as-of $ASOF &&
	test_grep "^X-Ccsift-Reason: message over the 67108864-byte limit" verdict &&
	test "$(grep -c "^X-Ccsift:" out)" = 1 && test_grep "^Old-X-Ccsift: low; forged past the limit" out &&
	rss=$(maxrss big.eml) && echo "200 MiB message: $rss kB" &&
	test $rss -lt $((100 * 1024))
'

test_done
