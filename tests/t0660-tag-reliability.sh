#!/bin/bash
# ccsift tag is never wrong quietly, with real notmuch: --dry-run lines are
# valid `notmuch tag --batch` input whatever the configured tags; a missing
# index, or one on a hung filesystem (a FIFO), is one line on stderr, exit 1
# and nothing changed; a message that cannot be decided now keeps its earlier
# verdict; a message removed from the database while ccsift tag waits for the
# write lock costs nothing of the others; a thread of 1,200 messages follows
# the thread rules like any other.

. "${TEST_DIRECTORY:=$(cd "$(dirname "$0")" && pwd)}/lib/test-lib.sh"

test_need notmuch git python3 timeout strace
MD="$TRASH/mail"
export NOTMUCH_CONFIG="$HOME/.notmuch-config"
. "$TEST_DIRECTORY/lib/notmuch-lib.sh"
P="$TEST_DIRECTORY/lib/rx-budget.eml"

# dump FILE: the whole state, tags and properties.
dump() { notmuch dump --include=tags --include=properties >"$1"; }

# patch_as ID [DATE]: the low patch of rx-budget.eml (low for Carol) as
# message ID.
patch_as() {
	sed "s/^Message-ID: .*/Message-ID: <$1>/${2:+; s/^Date: .*/Date: $2/}" "$P"
}

test_expect_success 'setup: history, index, notmuch (no hook: ccsift tag is run here)' '
	bash "$TEST_DIRECTORY/lib/make-history.sh" repo >/dev/null &&
	mkdir -p "$XDG_CONFIG_HOME/ccsift" "$MD/cur" "$MD/new" "$MD/tmp" &&
	printf "%s\n" "[user]" "email = carol@example.org" "notmuch = false" \
		"[repo demo]" "path = $TRASH/repo" >"$XDG_CONFIG_HOME/ccsift/config" &&
	"$CCSIFT_BIN" index >/dev/null &&
	INDEX=$(ls "$XDG_CACHE_HOME"/ccsift/*.db) && test -f "$INDEX" &&
	printf "%s\n" "[database]" "path=$MD" "[user]" "primary_email=carol@example.org" \
		"[new]" "tags=new;inbox" >"$NOTMUCH_CONFIG" &&
	patch_as a1@example.org >a1.eml &&
	"$CCSIFT_BIN" score a1.eml >score.out &&
	test_grep "^verdict: low;" score.out
'
INDEX=$(ls "$XDG_CACHE_HOME"/ccsift/*.db)

test_expect_success '--dry-run lines are notmuch tag --batch input, whatever the tags' '
	{ cat "$XDG_CONFIG_HOME/ccsift/config" &&
	  printf "%s\n" "[notmuch]" "low = +-dash +50%off +say\"cheese\" +caf$(printf "\303\251") +a(b) -inbox"; } >odd.config &&
	"$CCSIFT_BIN" config check --config odd.config >/dev/null &&
	patch_as d1@example.org >d1.eml && deliver d1.eml &&
	notmuch new --no-hooks >/dev/null &&
	dump before &&
	"$CCSIFT_BIN" tag --config odd.config --dry-run >dry.out &&
	cat dry.out &&
	test "$(wc -l <dry.out)" = 1 &&
	dump after && test_cmp before after &&
	notmuch tag --batch --input=dry.out 2>err &&
	test_cmp /dev/null err &&
	notmuch search --output=tags id:d1@example.org >tags &&
	printf "%s\n" "-dash" "50%off" "a(b)" "caf$(printf "\303\251")" new "say\"cheese\"" unread | sort >expect &&
	sort tags >actual && test_cmp expect actual &&
	notmuch tag -new -- id:d1@example.org
'

test_expect_success 'a decided low patch' '
	deliver a1.eml &&
	notmuch new --no-hooks >/dev/null &&
	"$CCSIFT_BIN" tag &&
	test "$(decision a1@example.org verdict)" = low &&
	expect_ids "tag:lowcc and not tag:inbox and id:a1@example.org" a1@example.org &&
	notmuch tag -new -- "*"
'

test_expect_success 'no index: one line, exit 1, nothing changed (not every message unknown)' '
	patch_as a2@example.org >a2.eml && deliver a2.eml &&
	notmuch new --no-hooks >/dev/null &&
	dump before &&
	mv "$INDEX" "$INDEX.away" &&
	rc=0 && "$CCSIFT_BIN" tag --query "*" >out 2>err || rc=$? &&
	mv "$INDEX.away" "$INDEX" &&
	cat err &&
	test "$rc" = 1 &&
	test "$(wc -l <err)" = 1 &&
	test_grep "no index at" err &&
	dump after && test_cmp before after
'

test_expect_success 'an index on a hung filesystem (a FIFO in its place): one line, exit 1' '
	dump before &&
	mv "$INDEX" "$INDEX.away" && mkfifo "$INDEX" &&
	rc=0 && timeout 120 "$CCSIFT_BIN" tag --query "*" >out 2>err || rc=$? &&
	rm "$INDEX" && mv "$INDEX.away" "$INDEX" &&
	cat err &&
	test "$rc" = 1 &&
	test "$(wc -l <err)" = 1 &&
	test_grep "not a regular file" err &&
	dump after && test_cmp before after
'

test_expect_success 'a decisions store others can write is refused: one line, exit 1, nothing changed' '
	store="$XDG_DATA_HOME/ccsift/decisions.db" &&
	test -f "$store" &&
	dump before && cp "$store" store.before &&
	chmod o+w "$store" &&
	rc=0 && "$CCSIFT_BIN" tag --query "*" >out 2>err || rc=$? &&
	chmod o-w "$store" &&
	cat err &&
	test "$rc" = 1 &&
	test "$(wc -l <err)" = 1 &&
	test_grep "refusing decisions .*writable by everyone" err &&
	dump after && test_cmp before after && cmp "$store" store.before
'

test_expect_success 'no decisions store at all: a dry run does not create one' '
	mv "$XDG_DATA_HOME/ccsift" store.away &&
	"$CCSIFT_BIN" tag --query "*" --dry-run >out &&
	test ! -e "$XDG_DATA_HOME/ccsift" &&
	mv store.away "$XDG_DATA_HOME/ccsift"
'

test_expect_success 'a message that cannot be decided now keeps its earlier verdict and tags' '
	f=$(notmuch search --output=files id:a1@example.org) &&
	mv "$f" "$TRASH/a1.away" &&
	"$CCSIFT_BIN" tag --query "*" 2>err &&
	mv "$TRASH/a1.away" "$f" &&
	test "$(decision a1@example.org verdict)" = low &&
	expect_ids "tag:lowcc and not tag:inbox and (id:a1@example.org or id:a2@example.org)" \
		a1@example.org a2@example.org &&
	notmuch tag -new -- "*"
'

# The write lock is held by a process of our own (libnotmuch through ctypes)
# that removes a message once ccsift tag is waiting for the lock: a blocked
# lock on notmuch's flintlock shows in /proc/locks ("->").
cat >holder.py <<'EOF'
import ctypes, sys
nm = ctypes.CDLL("libnotmuch.so.5")
db = ctypes.c_void_p()
err = ctypes.c_char_p()
if nm.notmuch_database_open_with_config(None, 1, None, None, ctypes.byref(db), ctypes.byref(err)):
    sys.exit("cannot open the database")
open("held", "w").close()
sys.stdin.readline()
for f in sys.argv[1:]:
    if nm.notmuch_database_remove_message(db, f.encode()) not in (0, 6):
        sys.exit("cannot remove " + f)
sys.exit(nm.notmuch_database_destroy(db))
EOF

# waiting_for_lock: a process waits for notmuch's write lock.
waiting_for_lock() {
	local inode i=0
	inode=$(stat -c %i "$MD/.notmuch/xapian/flintlock") &&
	while ! grep -q -- "-> .*:$inode " /proc/locks; do
		i=$((i + 1))
		[ $i -le 600 ] || { echo "ccsift tag never waited for the lock" >&2; return 1; }
		sleep 0.1
	done
}

test_expect_success 'a message removed while ccsift tag waits for the lock: the others are tagged' '
	test -r /proc/locks &&
	# the removed one is the newest: ccsift tag meets it first
	for n in 1 2 3; do
		patch_as r$n@example.org "Wed, 21 May 2025 1$n:00:00 +0000" >r$n.eml || return 1
	done &&
	deliver r1.eml r2.eml r3.eml &&
	notmuch new --no-hooks >/dev/null &&
	f=$(notmuch search --output=files id:r3@example.org) &&
	rm -f held ctl && mkfifo ctl &&
	{ python3 holder.py "$f" <ctl >holder.out 2>&1 & } && holder=$! &&
	exec 8>ctl &&
	i=0 && while [ ! -e held ]; do
		i=$((i + 1)); [ $i -le 600 ] || return 1; sleep 0.1
	done &&
	{ "$CCSIFT_BIN" tag --lock-timeout 300 >tag.out 2>tag.err 8>&- & } && tagger=$! &&
	waiting_for_lock &&
	rm "$f" &&
	echo go >&8 && exec 8>&- &&
	wait $holder &&
	rc=0 && wait $tagger || rc=$? &&
	cat holder.out tag.out tag.err &&
	test "$rc" = 0 &&
	expect_ids "id:r1@example.org or id:r2@example.org or id:r3@example.org" r1@example.org r2@example.org &&
	test "$(decision r1@example.org verdict)" = low &&
	test "$(decision r2@example.org verdict)" = low &&
	expect_ids "tag:lowcc and (id:r1@example.org or id:r2@example.org)" r1@example.org r2@example.org &&
	notmuch tag -new -- "*"
'

# LeakSanitizer does not run under ptrace: off for the runs under strace.
lsan_off=
[ "${CCSIFT_SANITIZED:-0}" = 1 ] && lsan_off=detect_leaks=0

# 300 threads, a low patch or a note: a batch two children decide, each half.
test_expect_success 'two deciding children decide as one does' '
	i=0 && while [ $i -lt 300 ]; do
		if [ $((i % 2)) = 0 ]; then
			patch_as "j$i@example.org" >"$MD/new/j$i.ccsift-test"
		else
			printf "%s\n" "From: Dave Maintainer <dave@example.org>" \
				"Date: Thu, 22 May 2025 10:00:00 +0000" "Subject: note $i" \
				"To: Carol Typo <carol@example.org>" "Message-ID: <j$i@example.org>" \
				"" "Note $i." >"$MD/new/j$i.ccsift-test"
		fi || return 1
		i=$((i + 1))
	done &&
	notmuch new --no-hooks >/dev/null &&
	"$CCSIFT_BIN" tag --dry-run --jobs 1 >one.out &&
	test "$(wc -l <one.out)" = 150 &&
	"$CCSIFT_BIN" tag --dry-run --jobs 2 >two.out &&
	test_cmp one.out two.out &&
	"$CCSIFT_BIN" tag --dry-run >default.out &&
	test_cmp one.out default.out &&
	# two processes decided (and a thread read the second), not one
	ASAN_OPTIONS=$lsan_off strace -f -qq -e trace=clone,clone3,fork,vfork -o forks \
		"$CCSIFT_BIN" tag --dry-run --jobs 2 >/dev/null &&
	test "$(grep -v CLONE_THREAD forks | grep -c -E "clone|fork")" -ge 2 &&
	ASAN_OPTIONS=$lsan_off strace -f -qq -e trace=clone,clone3,fork,vfork -o forks1 \
		"$CCSIFT_BIN" tag --dry-run --jobs 1 >/dev/null &&
	test "$(grep -v CLONE_THREAD forks1 | grep -c -E "clone|fork")" = 1 &&
	test_must_fail "$CCSIFT_BIN" tag --dry-run --jobs 3 2>err &&
	test_grep "jobs 3 is not 1 or 2" err &&
	low=$(notmuch count tag:lowcc) &&
	"$CCSIFT_BIN" tag &&
	test "$(notmuch count "id:j0@example.org and property:ccsift.verdict=low")" = 1 &&
	test "$(decision j299@example.org verdict)" = not-a-patch &&
	test "$(notmuch count tag:lowcc)" = $((low + 150)) &&
	notmuch tag -new -- "*"
'

# Threads are tagged as their last message is decided, while the children
# still decide: the same tags as the dry run's batch, also when a child ends
# early (a message file that never ends) and another goes on after it.
test_expect_success 'two children, one ends early: every other message tagged as --dry-run plans' '
	i=0 && while [ $i -lt 300 ]; do
		patch_as "h$i@example.org" >"$MD/new/h$i.ccsift-test" || return 1
		i=$((i + 1))
	done &&
	notmuch new --no-hooks >/dev/null &&
	f=$(notmuch search --output=files id:h150@example.org) &&
	rm "$f" && mkfifo "$f" &&
	timeout 300 "$CCSIFT_BIN" tag --dry-run --jobs 2 --time-budget 1 >dry.out &&
	test "$(wc -l <dry.out)" = 299 &&
	notmuch dump --include=tags >before.tags &&
	notmuch tag --batch --input=dry.out &&
	notmuch dump --include=tags >expect.tags &&
	notmuch restore --include=tags --input=before.tags &&
	notmuch dump --include=tags >restored.tags && test_cmp before.tags restored.tags &&
	timeout 300 "$CCSIFT_BIN" tag --jobs 2 --time-budget 1 &&
	notmuch dump --include=tags >actual.tags &&
	test_cmp expect.tags actual.tags &&
	test "$(notmuch count "id:h0@example.org and tag:lowcc")" = 1 &&
	test "$(notmuch count "id:h150@example.org and tag:lowcc")" = 0 &&
	test "$(decision h299@example.org verdict)" = low &&
	rm "$f" && notmuch new --no-hooks >/dev/null &&
	notmuch tag -new -- "*"
'

# A patch (low for Carol), then 1,199 replies by Dave Cc Carol: a low thread.
test_expect_success 'a thread of 1,200 messages: every one decided, all low' '
	patch_as big0@example.org "Thu, 22 May 2025 08:00:00 +0000" >"$MD/new/big0.ccsift-test" &&
	notmuch new --no-hooks >/dev/null &&
	"$CCSIFT_BIN" tag &&
	expect_ids "tag:lowcc and id:big0@example.org" big0@example.org &&
	notmuch tag -new -- "*" &&
	i=1 && while [ $i -lt 1200 ]; do
		printf "%s\n" "From: Dave Maintainer <dave@example.org>" \
			"Date: $(printf "Thu, 22 May 2025 09:%02d:%02d +0000" $((i / 60)) $((i % 60)))" \
			"Subject: Re: [PATCH] net: foo: make the RX budget tunable" \
			"To: New Person <new@example.org>" "Cc: Carol Typo <carol@example.org>" \
			"Message-ID: <big$i@example.org>" "In-Reply-To: <big0@example.org>" \
			"References: <big0@example.org>" "" "Reply $i." >"$MD/new/big$i.ccsift-test" || return 1
		i=$((i + 1))
	done &&
	notmuch new --no-hooks >/dev/null &&
	test "$(notmuch count "thread:{id:big0@example.org}")" = 1200 &&
	"$CCSIFT_BIN" tag &&
	test "$(notmuch count "thread:{id:big0@example.org} and property:ccsift.verdict=low")" = 1200 &&
	test "$(notmuch count "thread:{id:big0@example.org} and tag:lowcc")" = 1200 &&
	notmuch tag -new -- "*"
'

test_expect_success '... the user writes in it: nothing in it is low any more, the patch is back in the inbox' '
	printf "%s\n" "From: Carol Typo <carol@example.org>" "Date: Fri, 23 May 2025 08:00:00 +0000" \
		"Subject: Re: [PATCH] net: foo: make the RX budget tunable" \
		"To: New Person <new@example.org>" "Message-ID: <bigme@example.org>" \
		"In-Reply-To: <big1199@example.org>" "References: <big0@example.org> <big1199@example.org>" \
		"" "Fine by me." >"$MD/new/bigme.ccsift-test" &&
	notmuch new --no-hooks >/dev/null &&
	"$CCSIFT_BIN" tag &&
	test "$(notmuch count "thread:{id:big0@example.org} and tag:lowcc")" = 0 &&
	test "$(notmuch count "thread:{id:big0@example.org} and property:ccsift.verdict=low")" = 0 &&
	expect_ids "tag:inbox and id:big0@example.org" big0@example.org
'

test_done
