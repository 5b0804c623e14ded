#!/bin/bash
# Concurrency: 8 procmail processes at a time deliver 400 patch mails through
# contrib/procmailrc (`ccsift filter`) while `ccsift index` keeps updating the
# same index with new commits.  Every message must be delivered exactly once
# and intact, the index must pass PRAGMA integrity_check, and the verdicts
# must equal those of a serial run.
#
# The new commits are dated after --as-of, so they may not change a verdict:
# a difference would be a reader seeing a half-written index.
#
# CCSIFT_TEST_SERVED=1 (ctest's t0610-served): the concurrent deliveries are
# decided by one `ccsift serve`, which must answer every one of them while
# the index under it changes (its session starts again at each change).

. "${TEST_DIRECTORY:=$(cd "$(dirname "$0")" && pwd)}/lib/test-lib.sh"

CONTRIB=$(cd "$TEST_DIRECTORY/../contrib" && pwd)
test_need procmail git xargs

ASOF=2025-06-01T00:00:00Z
N=${CCSIFT_TEST_MESSAGES:-400}
MD="$TRASH/Maildir"
SERVED=${CCSIFT_TEST_SERVED:-0}
SOCK="$TRASH/run/ccsift/filter.sock"
# in-process deliveries ask no server and start none
[ "$SERVED" = 1 ] || SOCK=

# A sanitizer build on a loaded machine may need more than the 2 s budget:
# here a verdict must come from the index, not from the clock.
BUDGET="--time-budget 600"
cat >ccsift-asof <<EOF
#!/bin/sh
exec '$CCSIFT_BIN' "\$@" --as-of $ASOF $BUDGET
EOF
chmod +x ccsift-asof

# deliver MSG: procmail as the MTA runs it, our recipe as the rcfile.
cat >deliver <<EOF
#!/bin/sh
exec procmail -m HOME='$HOME' MAILDIR='$MD' DEFAULT='$MD/' CCSIFT='$TRASH/ccsift-asof' \
	XDG_CONFIG_HOME='$XDG_CONFIG_HOME' XDG_CACHE_HOME='$XDG_CACHE_HOME' CCSIFT_SOCKET='$SOCK' \
	'$CONTRIB/procmailrc' <"\$1"
EOF
chmod +x deliver

# The message's marker (its Message-ID) and the X-Ccsift verdict, per file.
verdicts() {
	local f
	for f in "$@"; do
		printf '%s %s\n' "$(sed -n 's/^Message-ID: //p' "$f" | head -1)" \
			"$(sed -n 's/^X-Ccsift: //p' "$f" | head -1)"
	done | sort
}

test_expect_success "setup: history, config, index, $N messages for three files" '
	bash "$TEST_DIRECTORY/lib/make-history.sh" repo >/dev/null &&
	mkdir -p "$XDG_CONFIG_HOME/ccsift" "$MD/new" "$MD/cur" "$MD/tmp" in &&
	printf "%s\n" "[user]" "email = carol@example.org" "notmuch = false" \
		"[repo demo]" "path = $TRASH/repo" >"$XDG_CONFIG_HOME/ccsift/config" &&
	"$CCSIFT_BIN" index >/dev/null &&
	P="$TEST_DIRECTORY/lib/rx-budget.eml" &&
	i=0 && while [ $i -lt $N ]; do
		case $((i % 3)) in
		0) f=drivers/net/foo.c ;;
		1) f=fs/bar/bar.c ;;
		2) f=drivers/net/sibling.c ;;
		esac
		sed -e "s|^Message-ID: .*|Message-ID: <m$i@example.org>|" \
		    -e "s|drivers/net/foo.c|$f|g" "$P" >in/$i.eml || return 1
		# end with an empty line, so procmail adds nothing
		printf "\n" >>in/$i.eml
		i=$((i + 1))
	done &&
	ls in | wc -l | grep -qx $N
'

test_expect_success 'serial run: the verdict of each message' '
	for f in in/*.eml; do "$TRASH/ccsift-asof" filter <"$f" >"$f.serial" || return 1; done &&
	verdicts in/*.serial >serial.verdicts &&
	test "$(wc -l <serial.verdicts)" = $N &&
	cut -d" " -f2 serial.verdicts | cut -d";" -f1 | sort | uniq -c >kinds &&
	cat kinds && test "$(wc -l <kinds)" -ge 2
'

test_expect_success '8 procmails at once while the index is updated: each message once, intact' '
	if [ "$SERVED" = 1 ]; then
		{ "$CCSIFT_BIN" serve --socket "$SOCK" --as-of $ASOF $BUDGET 2>serve.err & echo $! >server.pid; } &&
		n=0 && while [ ! -S "$SOCK" ] && [ $n -lt 6000 ]; do sleep 0.1; n=$((n + 1)); done &&
		test -S "$SOCK"
	fi &&
	# the indexer: commit (dated after --as-of) and index, over and over,
	# a breath between rounds (flat out, it took a core from the suite
	# running beside it, and dozens of updates already interleave)
	{
		n=0
		while [ ! -e deliveries.done ]; do
			[ $n = 0 ] || sleep 0.3
			n=$((n + 1))
			echo "/* $n */" >>repo/drivers/net/foo.c &&
			git -C repo add drivers/net/foo.c &&
			GIT_AUTHOR_DATE="2026-01-01T00:00:$((n % 60))Z" GIT_COMMITTER_DATE="2026-01-01T00:00:$((n % 60))Z" \
				git -C repo commit -qm "later $n" --author="Zed Later <zed@example.org>" &&
			"$CCSIFT_BIN" index >/dev/null 2>>index.err || { echo "index failed" >>index.err; break; }
		done
		echo $n >updates
	} &
	ls in/*.eml | xargs -P 8 -n 1 ./deliver 2>procmail.err;
	st=$?; touch deliveries.done
	if [ "$SERVED" = 1 ]; then kill -TERM $(cat server.pid); fi
	wait; test $st = 0 &&
	if [ "$SERVED" = 1 ]; then
		# a client that finds the server slow decides by itself (the verdicts
		# below must still agree): most, not all, are decided by the server
		cat serve.err &&
		decided=$(sed -n "s/^ccsift serve: \([0-9]*\) messages decided in [0-9]* sessions, 0 refused.*/\1/p" serve.err) &&
		test -n "$decided" && test "$decided" -ge $((N * 9 / 10))
	fi &&
	echo "index updates during the deliveries: $(cat updates)" &&
	test "$(cat updates)" -ge 2 && test ! -s index.err &&
	find "$MD" -type f >delivered &&
	test "$(wc -l <delivered)" = $N &&
	verdicts $(cat delivered) >concurrent.verdicts &&
	cut -d" " -f1 concurrent.verdicts | uniq -d >dups && test ! -s dups &&
	for f in $(cat delivered); do
		id=$(sed -n "s/^Message-ID: <m\([0-9]*\)@.*/\1/p" "$f") &&
		sed 1,2d "$f" | cmp -s - "in/$id.eml" || { echo "message $id changed: $f" >&2; return 1; }
	done
'

test_expect_success 'the verdicts equal those of the serial run' '
	test_cmp serial.verdicts concurrent.verdicts
'

test_expect_success 'the index passes integrity_check and has every new commit' '
	IDX=$(echo "$XDG_CACHE_HOME"/ccsift/*.db) &&
	test "$(sqlite3 "$IDX" "PRAGMA integrity_check")" = ok &&
	"$CCSIFT_BIN" index >index.out && cat index.out &&
	test "$(git -C repo rev-list --count --no-merges HEAD)" = "$(sqlite3 "$IDX" "SELECT count(*) FROM commits")"
'

test_done
