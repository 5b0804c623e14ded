#!/bin/bash
# The index follows `git fetch` without the user thinking of it: after the
# ref moves, `ccsift index --status` says how far behind the index is, and
# the next delivery past the catch-up interval (`catch-up` in [user]) starts
# a detached catch-up once the message is out. Not before the interval, not
# for an index the user never built, never when catch-up = 0.
# Also: `ccsift index --repo NAME|DIR` uses that [repo] section's ref and index.

. "${TEST_DIRECTORY:=$(cd "$(dirname "$0")" && pwd)}/lib/test-lib.sh"

test_need strace git sqlite3

ASOF=2025-06-01T00:00:00Z
# LeakSanitizer cannot run under ptrace, and its check clones a thread.
[ "${CCSIFT_SANITIZED:-0}" = 1 ] && export ASAN_OPTIONS=detect_leaks=0
CONF="$XDG_CONFIG_HOME/ccsift/config"
CHECK="python3 $TEST_DIRECTORY/lib/pipe-check.py"
P="$TEST_DIRECTORY/lib/rx-budget.eml"

with_config() {
	printf '%s\n' "[user]" "email = carol@example.org" "notmuch = false" "$@" \
		"[repo demo]" "path = $TRASH/repo" >"$CONF"
}

# fetch N: N new commits on the ref, as a `git fetch` + merge would bring.
fetch() {
	local i
	for i in $(seq "$1"); do
		echo "/* $i */" >>repo/drivers/net/foo.c &&
		git -C repo commit -qam "later $i" --author="Zed Later <zed@example.org>" || return 1
	done
}

# forks CMD...: how many processes CMD made (strace), its stdout in ./out.
forks() {
	strace -f -qq -e trace=clone,clone3,fork,vfork -o trace "$@" >out 2>err
	grep -cE "^[0-9]+ +(clone|clone3|fork|vfork)\(" trace
}

# wait_current: poll until `ccsift index --status` says up to date (at most
# a minute; the test does not care how long it takes, only that it ends).
wait_current() {
	local i=0
	while ! "$CCSIFT_BIN" index --status >status 2>&1; do
		i=$((i + 1))
		[ $i -lt 600 ] || { cat status >&2; return 1; }
		sleep 0.1
	done
}

test_expect_success 'setup: history, config, index' '
	bash "$TEST_DIRECTORY/lib/make-history.sh" repo >/dev/null &&
	mkdir -p "$(dirname "$CONF")" &&
	with_config "catch-up = 0" &&
	"$CCSIFT_BIN" index >/dev/null &&
	"$CCSIFT_BIN" index --status >status && cat status &&
	grep "up to date" status && grep "checked [0-9]* seconds ago" status
'

test_expect_success 'after a fetch, --status says how far behind, exit 3' '
	fetch 3 &&
	rc=0 && "$CCSIFT_BIN" index --status >status || rc=$? &&
	cat status && test $rc = 3 &&
	grep "3 commits behind" status
'

test_expect_success 'catch-up = 0: a delivery starts nothing' '
	test "$(forks "$CCSIFT_BIN" filter --as-of $ASOF --time-budget 600 "$P")" = 0 &&
	$CHECK "$P" out "^X-Ccsift: low;"
'

test_expect_success 'within the interval: a delivery starts nothing' '
	with_config "catch-up = 3600" &&
	test "$(forks "$CCSIFT_BIN" filter --as-of $ASOF --time-budget 600 "$P")" = 0
'

test_expect_success 'config check says when a delivery will catch up, and what to run' '
	"$CCSIFT_BIN" config check >check && cat check &&
	grep "3 commits behind, checked [0-9a-z ]* ago; catches up on the first delivery in [0-9]* minutes (catch-up = 3600), or run: ccsift index$" check &&
	with_config "catch-up = 0" &&
	"$CCSIFT_BIN" config check >check &&
	grep "3 commits behind, checked .*; run: ccsift index$" check
'

test_expect_success 'past the interval: the message goes out, then the index catches up' '
	with_config "catch-up = 1" &&
	sleep 1.1 &&
	"$CCSIFT_BIN" filter --as-of $ASOF --time-budget 600 "$P" >out &&
	$CHECK "$P" out "^X-Ccsift: low;" &&
	wait_current && cat status &&
	test "$(git -C repo rev-list --count --no-merges HEAD)" = \
	     "$(sqlite3 "$(echo "$XDG_CACHE_HOME"/ccsift/*.db)" "SELECT count(*) FROM commits")"
'

test_expect_success 'the catch-up runs detached: its own session, stdio not the pipe' '
	with_config "catch-up = 1" &&
	fetch 1 && sleep 1.1 &&
	# the pipe reaches EOF when ccsift filter exits, whatever the catch-up does
	"$CCSIFT_BIN" filter --as-of $ASOF --time-budget 600 "$P" | cat >out &&
	$CHECK "$P" out "^X-Ccsift: low;" &&
	wait_current
'

test_expect_success 'no index yet: a delivery builds none' '
	with_config "catch-up = 1" &&
	rm -f "$XDG_CACHE_HOME"/ccsift/* && sleep 1.1 &&
	test "$(forks "$CCSIFT_BIN" filter --as-of $ASOF --time-budget 600 "$P")" = 0 &&
	$CHECK "$P" out "^X-Ccsift: unknown" &&
	test -z "$(ls "$XDG_CACHE_HOME/ccsift")"
'

test_expect_success 'index --repo NAME or DIR uses the section'\''s ref and index' '
	git -C repo branch -f pinned HEAD~2 &&
	printf "%s\n" "[user]" "email = carol@example.org" "notmuch = false" \
		"[repo demo]" "path = $TRASH/repo" "ref = pinned" "index = $TRASH/pinned.db" >"$CONF" &&
	"$CCSIFT_BIN" index --repo demo >out && grep "pinned.db" out &&
	test "$(sqlite3 pinned.db "SELECT count(*) FROM commits")" = \
	     "$(git -C repo rev-list --count --no-merges pinned)" &&
	"$CCSIFT_BIN" index --repo "$TRASH/repo/" --status >out && cat out &&
	grep "ref pinned" out && grep "up to date" out
'

# --- refusing an index, one writer at a time ----------------------------------

test_expect_success 'an index that is not a regular file (a FIFO, as on a hung filesystem): one line, no hang' '
	rm -f hung.db && mkfifo hung.db &&
	rc=0 && timeout 30 "$CCSIFT_BIN" index --repo "$TRASH/repo" --index "$TRASH/hung.db" >out 2>err || rc=$? &&
	cat out err && test $rc = 1 && test "$(wc -l <err)" = 1 &&
	grep "^ccsift index: index $TRASH/hung.db is not a regular file$" err &&
	rc=0 && timeout 30 "$CCSIFT_BIN" index --repo "$TRASH/repo" --index "$TRASH/hung.db" --status >out 2>err || rc=$? &&
	test $rc = 1 && grep "hung.db is not a regular file" out &&
	rc=0 && timeout 30 "$CCSIFT_BIN" score --repo "$TRASH/repo" --index "$TRASH/hung.db" "$P" >out 2>err || rc=$? &&
	test $rc != 0 && test $rc != 124 && test "$(wc -l <err)" = 1 && grep "hung.db is not a regular file" err
'

if [ "$(id -u)" = 0 ]; then
test_expect_success 'a directory owned by another user: refused before anything is made in it' '
	mkdir -p theirs && chown nobody theirs &&
	rc=0 && "$CCSIFT_BIN" index --repo "$TRASH/repo" --index "$TRASH/theirs/i.db" >out 2>err || rc=$? &&
	cat err && test $rc = 1 && test "$(wc -l <err)" = 1 &&
	grep "refusing index $TRASH/theirs/i.db: its directory $TRASH/theirs is owned by another user (use a directory of your own)" err &&
	test -z "$(ls theirs)"
'

test_expect_success 'an index file owned by another user: refused, without a chmod hint' '
	mkdir -p mine && "$CCSIFT_BIN" index --repo "$TRASH/repo" --index "$TRASH/mine/i.db" >/dev/null &&
	chown nobody mine/i.db &&
	rc=0 && "$CCSIFT_BIN" index --repo "$TRASH/repo" --index "$TRASH/mine/i.db" >out 2>err || rc=$? &&
	cat err && test $rc = 1 &&
	grep "refusing index $TRASH/mine/i.db: it is owned by another user (remove it, or use one of your own)" err
'
fi

# hold_update IDX SECONDS: what another ccsift index in the middle of a batch
# holds (its lock, and an SQLite write transaction) for SECONDS.
cat >hold-update.sh <<'EOF'
{ echo "BEGIN IMMEDIATE; DELETE FROM meta WHERE k = 'none'; SELECT 'held';"; sleep "$2"; echo "COMMIT;"; } |
	sqlite3 "$1"
EOF
hold_update() {
	rm -f held.out &&
	{ timeout 60 flock "$1.lock" sh hold-update.sh "$1" "$2" >held.out & } &&
	while ! grep -q held held.out 2>/dev/null; do sleep 0.05; done
}

test_expect_success 'another update running: ccsift index waits for it, then updates' '
	with_config "catch-up = 0" &&
	"$CCSIFT_BIN" index --repo "$TRASH/repo" --index "$TRASH/conc.db" >/dev/null &&
	fetch 2 &&
	hold_update "$TRASH/conc.db" 3 &&
	"$CCSIFT_BIN" index --repo "$TRASH/repo" --index "$TRASH/conc.db" >out 2>err &&
	wait && cat out err && test ! -s err && grep "2 commits added" out
'

test_expect_success 'past --lock-timeout: skipped with one line, exit 0, nothing written' '
	fetch 1 &&
	hold_update "$TRASH/conc.db" 3 &&
	rc=0 && "$CCSIFT_BIN" index --repo "$TRASH/repo" --index "$TRASH/conc.db" --lock-timeout 1 >out 2>err || rc=$?;
	wait && cat out err && test $rc = 0 && test ! -s out &&
	grep -x "ccsift index: another ccsift index is updating $TRASH/conc.db; skipped" err &&
	"$CCSIFT_BIN" index --repo "$TRASH/repo" --index "$TRASH/conc.db" >out && grep "1 commits added" out &&
	rc=0 && "$CCSIFT_BIN" index --lock-timeout -1 2>err || rc=$? && test $rc = 2
'

test_expect_success 'two ccsift index from scratch at once: both succeed, one index' '
	rm -f two.db* &&
	{ "$CCSIFT_BIN" index --repo "$TRASH/repo" --index "$TRASH/two.db" >out1 2>err1 & } &&
	"$CCSIFT_BIN" index --repo "$TRASH/repo" --index "$TRASH/two.db" >out2 2>err2 &&
	wait $! && cat out1 out2 err1 err2 && test ! -s err1 && test ! -s err2 &&
	test "$(sqlite3 two.db "PRAGMA integrity_check")" = ok &&
	test "$(sqlite3 two.db "SELECT count(*) FROM commits")" = "$(git -C repo rev-list --count --no-merges HEAD)"
'

test_expect_success '--index without --repo, --all with --repo: usage errors' '
	rc=0 && "$CCSIFT_BIN" index --index x.db 2>err || rc=$? && test $rc = 2 && grep "needs --repo" err &&
	rc=0 && "$CCSIFT_BIN" index --all --repo demo 2>err || rc=$? && test $rc = 2 &&
	"$CCSIFT_BIN" index --all >out && grep "^demo: " out
'

test_done
