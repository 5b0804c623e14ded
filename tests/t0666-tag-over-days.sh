#!/bin/bash
# Days of notmuch use with the post-new hook, and what happens to the
# database meanwhile: rebuilt from scratch (notmuch new on the same Maildir),
# or restored from a backup older than ccsift's last decisions, while
# ccsift's store of decisions survives. The tags follow the decisions again:
# a decision stands against the user's hand, not against a database that
# lost what ccsift did to it. A message the user had archived before ccsift
# demoted it stays archived when it is lifted: ccsift gives back only the
# inbox it took. Two runs of the hook that overlap (two notmuch new close
# together) plan from what the other wrote meanwhile. A thread the user took
# out of the low pile by hand keeps its later replies out of it too.

. "${TEST_DIRECTORY:=$(cd "$(dirname "$0")" && pwd)}/lib/test-lib.sh"

test_need notmuch git sqlite3

. "$TEST_DIRECTORY/lib/notmuch-lib.sh"
. "$TEST_DIRECTORY/lib/series-lib.sh"
carol_env

# foo_series P TITLE: New's series "net: foo: TITLE" in P0.eml (the cover),
# P1.eml ("TITLE one", drivers/net/foo.c) and P2.eml ("TITLE two",
# drivers/net/foo.h), ids P0@x P1@x P2@x: low for Carol.
foo_series() {
	cover_mail "$1"0.eml "$1"0@x 0/2 "net: foo: $2" drivers/net/foo.c drivers/net/foo.h &&
	patch_mail "$1"1.eml "$1"1@x "$1"0@x 1/2 "net: foo: $2 one" drivers/net/foo.c &&
	patch_mail "$1"2.eml "$1"2@x "$1"0@x 2/2 "net: foo: $2 two" drivers/net/foo.h
}

# tags ID: the tags of message ID, on one line.
tags() { notmuch search --exclude=false --output=tags "id:$1" | sort | tr '\n' ' '; }

test_expect_success 'setup: history, index, Carol (always = fs/bar/*), notmuch with the hook' '
	carol_world "new;inbox;unread"
'

test_expect_success 'a low patch, and a low series Carol replies to a day later' '
	foo_patch_mail p1.eml p1@x "$DAVE" "$CC" &&
	cover_mail a0.eml a0@x 0/2 "net: foo: RX budget rework" drivers/net/foo.c drivers/net/foo.h &&
	patch_mail a1.eml a1@x a0@x 1/2 "net: foo: make the RX budget tunable" drivers/net/foo.c &&
	patch_mail a2.eml a2@x a0@x 2/2 "net: foo: add the budget to foo_priv" drivers/net/foo.h &&
	deliver p1.eml a0.eml a1.eml a2.eml && nm_new &&
	expect_ids "tag:lowcc" p1@x a0@x a1@x a2@x &&
	cp -a "$MD/.notmuch" backup &&
	reply_mail e1.eml e1@x "$CAROL" "$NEW" "$DAVE" "Re: [PATCH 2/2] net: foo: add the budget to foo_priv" \
		a2@x "<a0@x> <a2@x>" a2.eml &&
	deliver e1.eml && nm_new &&
	expect_ids "tag:lowcc" p1@x &&
	expect_ids "tag:inbox" a0@x a1@x a2@x e1@x
'

test_expect_success 'notmuch rebuilt from scratch: the low patch is lowcc and out of the inbox again' '
	rm -rf "$MD/.notmuch" && nm_new &&
	test "$(tags p1@x)" = "lowcc unread " &&
	expect_ids "property:ccsift.verdict=low" p1@x &&
	expect_ids "tag:lowcc" p1@x &&
	expect_ids "tag:inbox" a0@x a1@x a2@x e1@x &&
	expect_ids "tag:new"
'

test_expect_success 'notmuch restored from the backup before the reply: the thread is lifted again' '
	rm -rf "$MD/.notmuch" && cp -a backup "$MD/.notmuch" && nm_new &&
	expect_ids "tag:lowcc" p1@x &&
	expect_ids "tag:inbox" a0@x a1@x a2@x e1@x &&
	test "$(prop a1@x ccsift.verdict)" = relevant &&
	test "$(prop a1@x ccsift.was)" = low
'

test_expect_success 'the hand of the user still wins: a patch taken out of lowcc stays out' '
	notmuch tag -lowcc +inbox -- id:p1@x &&
	"$CCSIFT_BIN" tag --query "*" &&
	test "$(tags p1@x)" = "inbox unread "
'

test_expect_success 'a patch read and archived, demoted by a higher threshold, lifted again: still archived' '
	cp "$XDG_CONFIG_HOME/ccsift/config" config.auto &&
	{ cat config.auto && echo "threshold = 0.001"; } >"$XDG_CONFIG_HOME/ccsift/config" &&
	foo_patch_mail p2.eml p2@x "$DAVE" "$CC" &&
	deliver p2.eml && nm_new &&
	test "$(decision p2@x verdict)" = relevant &&
	notmuch tag -inbox -unread -- id:p2@x &&
	cp config.auto "$XDG_CONFIG_HOME/ccsift/config" &&
	"$CCSIFT_BIN" tag --query "*" &&
	test "$(tags p2@x)" = "lowcc " &&
	test "$(prop p2@x ccsift.not-removed)" = inbox &&
	{ cat config.auto && echo "threshold = 0.001"; } >"$XDG_CONFIG_HOME/ccsift/config" &&
	"$CCSIFT_BIN" tag --query "*" &&
	test "$(decision p2@x verdict)" = relevant &&
	test "$(tags p2@x)" = "" &&
	test -z "$(prop p2@x ccsift.not-removed)" &&
	cp config.auto "$XDG_CONFIG_HOME/ccsift/config"
'

test_expect_success 'a cover archived before its low patches came: lifted by a reply, it stays archived' '
	{ headers "$NEW" "$DAVE" "$CC" "[PATCH 0/2] net: foo: tidy" c0@x &&
	  printf "This series tidies foo.\n\n-- \n2.39.5\n\n"; } >c0.eml &&
	patch_mail c1.eml c1@x c0@x 1/2 "net: foo: tidy one" drivers/net/foo.c &&
	patch_mail c2.eml c2@x c0@x 2/2 "net: foo: tidy two" drivers/net/foo.h &&
	deliver c0.eml && nm_new &&
	test "$(tags c0@x)" = "inbox unread " &&
	notmuch tag -inbox -unread -- id:c0@x &&
	deliver c1.eml c2.eml && nm_new &&
	expect_ids "tag:lowcc and thread:{id:c0@x}" c0@x c1@x c2@x &&
	reply_mail ce.eml ce@x "$CAROL" "$NEW" "$DAVE" "Re: [PATCH 1/2] net: foo: tidy one" c1@x "<c0@x> <c1@x>" c1.eml &&
	deliver ce.eml && nm_new &&
	expect_ids "tag:lowcc and thread:{id:c0@x}" &&
	expect_ids "tag:inbox and thread:{id:c0@x}" c1@x c2@x ce@x
'

test_expect_success 'two hook runs overlap: the one that found the reply lifts what the other demoted meanwhile' '
	# Run 1 (here a notmuch restore writing what it writes: the series
	# demoted) holds the write lock while run 2, started after the
	# reply arrived, has read the thread and waits for the lock. The
	# threshold pinned: the replies of Carol above lowered hers.
	{ cat config.auto && echo "threshold = 0.05"; } >"$XDG_CONFIG_HOME/ccsift/config" &&
	foo_series o "overlap" &&
	reply_mail oe.eml oe@x "$CAROL" "$NEW" "$DAVE" "Re: [PATCH 2/2] net: foo: overlap two" o2@x "<o0@x> <o2@x>" o2.eml &&
	deliver o0.eml o1.eml o2.eml oe.eml && notmuch new --no-hooks >/dev/null &&
	mkfifo run1.fifo &&
	{ notmuch restore --accumulate --include=tags --include=properties --input=run1.fifo & } &&
	run1=$! &&
	exec 9>run1.fifo &&
	{ "$CCSIFT_BIN" tag --untag new --query id:oe@x --lock-timeout 60 9>&- & } &&
	run2=$! &&
	sleep 2 &&
	kill -0 $run2 &&
	for m in o0 o1 o2; do
		printf "+lowcc -inbox -new -- id:%s@x\n#= %s@x ccsift.verdict=low\n" $m $m >&9 || return 1
	done &&
	exec 9>&- &&
	wait $run1 &&
	wait $run2 &&
	expect_ids "tag:lowcc and thread:{id:oe@x}" &&
	expect_ids "tag:inbox and thread:{id:oe@x}" o0@x o1@x o2@x oe@x &&
	test "$(decision o1@x verdict)" = relevant &&
	test "$(prop o1@x ccsift.verdict)" = relevant &&
	test "$(prop o1@x ccsift.was)" = low
'

test_expect_success '... and the other way round: the run that read before the reply does not demote after it' '
	# Run 1 reads a low series and waits for the lock (held by the
	# notmuch insert that adds the reply); stopped there, it lets run 2
	# (the next hook run) decide the thread with the reply first.
	foo_series s "stale" &&
	reply_mail se.eml se@x "$CAROL" "$NEW" "$DAVE" "Re: [PATCH 2/2] net: foo: stale two" s2@x "<s0@x> <s2@x>" s2.eml &&
	deliver s0.eml s1.eml s2.eml && notmuch new --no-hooks >/dev/null &&
	"$CCSIFT_BIN" tag --dry-run | grep -q "^+lowcc -inbox -- id:\"*s1@x" &&
	hold_notmuch_lock "$MD" notmuch &&
	{ setsid "$CCSIFT_BIN" tag --untag new --lock-timeout 60 9>&- & } &&
	run1=$! &&
	sleep 2 &&
	kill -STOP -- -$run1 &&
	cat se.eml >&9 &&
	release_notmuch_lock &&
	expect_ids "tag:new and thread:{id:se@x}" s0@x s1@x s2@x se@x &&
	"$CCSIFT_BIN" tag --untag new --lock-timeout 10 &&
	kill -CONT -- -$run1 &&
	wait $run1 &&
	expect_ids "tag:lowcc and thread:{id:se@x}" &&
	expect_ids "tag:inbox and thread:{id:se@x}" s0@x s1@x s2@x se@x &&
	test "$(decision s1@x verdict)" = relevant
'

test_expect_success 'the hook with CCSIFT_QUERY: mail it matches that arrives meanwhile keeps new' '
	foo_patch_mail q1.eml q1@x "$DAVE" "$CC" &&
	foo_patch_mail q2.eml q2@x "$DAVE" "$CC" &&
	mail_during_hook later-mail q2.eml &&
	deliver q1.eml &&
	CCSIFT=$TRASH/later-mail CCSIFT_QUERY="tag:new and not tag:sent" notmuch new >/dev/null &&
	test -n "$(decision q1@x verdict)" &&
	expect_ids tag:new q2@x &&
	CCSIFT_QUERY="tag:new and not tag:sent" nm_new &&
	test -n "$(decision q2@x verdict)" &&
	expect_ids tag:new
'

test_expect_success '... and the mail the query leaves out sheds new' '
	headers "$CAROL" "$DAVE" "" "my own" own@x >own.eml && echo hi >>own.eml &&
	notmuch insert +sent <own.eml &&
	CCSIFT_QUERY="tag:new and not tag:sent" nm_new &&
	expect_ids tag:new &&
	test -z "$(decision own@x verdict)"
'

test_expect_success 'the store restored from a backup before a lift: an archived message stays archived' '
	foo_patch_mail b1.eml b1@x "$DAVE" "$CC" &&
	deliver b1.eml && nm_new &&
	test "$(tags b1@x)" = "lowcc unread " &&
	db=$XDG_DATA_HOME/ccsift/decisions.db &&
	sqlite3 "$db" "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null && cp "$db" store.bak &&
	reply_mail be.eml be@x "$CAROL" "$NEW" "$DAVE" "Re: [PATCH] net: foo: change b1@x" b1@x "<b1@x>" b1.eml &&
	deliver be.eml && nm_new &&
	notmuch tag -inbox -unread -- id:b1@x &&
	rm -f "$db-wal" "$db-shm" && cp store.bak "$db" &&
	test "$(decision b1@x verdict)" = low &&
	reply_mail bd.eml bd@x "$DAVE" "$NEW" "$CC" "Re: [PATCH] net: foo: change b1@x" be@x "<b1@x> <be@x>" &&
	deliver bd.eml && nm_new &&
	test "$(tags b1@x)" = "" &&
	test "$(decision b1@x verdict)" = relevant
'

test_expect_success 'a new patch renamed before ccsift tag reads it is decided by the next run' '
	foo_series m "moved" &&
	deliver m0.eml m1.eml m2.eml && notmuch new --no-hooks >/dev/null &&
	# another program syncing flags (mbsync, the message read elsewhere)
	mv "$MD/new/m2.ccsift-test" "$MD/cur/m2.ccsift-test:2,S" &&
	"$CCSIFT_BIN" tag --untag new &&
	test -z "$(decision m2@x verdict)" &&
	expect_ids "tag:new" m2@x &&
	nm_new &&
	test "$(decision m2@x verdict)" = low &&
	expect_ids "tag:lowcc and thread:{id:m0@x}" m0@x m1@x m2@x &&
	reply_mail md.eml md@x "$DAVE" "$NEW" "$CC" "Re: [PATCH 1/2] net: foo: moved one" m1@x "<m0@x> <m1@x>" &&
	deliver md.eml && nm_new &&
	expect_ids "tag:lowcc and thread:{id:m0@x}" m0@x m1@x m2@x md@x
'

test_expect_success 'a thread taken out of lowcc by hand: later replies in it stay in the inbox' '
	# notmuch-search tags the whole thread: -lowcc +inbox on it
	notmuch tag -lowcc +inbox -- "thread:{id:m0@x}" &&
	reply_mail mr1.eml mr1@x "$DAVE" "$NEW" "$CC" "Re: [PATCH 2/2] net: foo: moved two" m2@x "<m0@x> <m2@x>" &&
	deliver mr1.eml && nm_new &&
	expect_ids "tag:lowcc and thread:{id:m0@x}" &&
	expect_ids "tag:inbox and thread:{id:m0@x}" m0@x m1@x m2@x md@x mr1@x &&
	test "$(decision mr1@x verdict)" = not-a-patch &&
	test "$(decision m1@x verdict)" = relevant &&
	test "$(decision m1@x reason)" = "you took a message of this thread out of the low pile" &&
	test "$(prop m1@x ccsift.lifted)" = by-hand &&
	test "$(prop m1@x ccsift.verdict)" = relevant &&
	"$CCSIFT_BIN" explain id:m1@x >out && grep "^Why: you took a message of this thread out of the low pile" out &&
	reply_mail mr2.eml mr2@x "$DAVE" "$NEW" "$CC" "Re: [PATCH 1/2] net: foo: moved one" m1@x "<m0@x> <m1@x>" &&
	deliver mr2.eml && nm_new &&
	expect_ids "tag:lowcc and thread:{id:m0@x}" &&
	test "$(decision mr2@x verdict)" = not-a-patch
'

test_expect_success 'one patch taken out of lowcc and left archived: it stays so, and lifts its thread' '
	foo_series n "lifted" &&
	deliver n0.eml n1.eml n2.eml && nm_new &&
	expect_ids "tag:lowcc and thread:{id:n0@x}" n0@x n1@x n2@x &&
	notmuch tag -lowcc -unread -- id:n1@x &&
	reply_mail nr.eml nr@x "$DAVE" "$NEW" "$CC" "Re: [PATCH 1/2] net: foo: lifted one" n1@x "<n0@x> <n1@x>" &&
	deliver nr.eml && nm_new &&
	test "$(tags n1@x)" = "" &&
	expect_ids "tag:lowcc and thread:{id:n0@x}" &&
	expect_ids "tag:inbox and thread:{id:n0@x}" n0@x n2@x nr@x
'

test_expect_success 'a low patch archived by hand is not taken for lifted' '
	foo_series w "archived" &&
	deliver w0.eml w1.eml w2.eml && nm_new &&
	notmuch tag -unread -- id:w1@x &&
	reply_mail wr.eml wr@x "$DAVE" "$NEW" "$CC" "Re: [PATCH 1/2] net: foo: archived one" w1@x "<w0@x> <w1@x>" &&
	deliver wr.eml && nm_new &&
	expect_ids "tag:lowcc and thread:{id:w0@x}" w0@x w1@x w2@x wr@x
'

# ccsift tag before its store (950df85) kept all it decided in notmuch: on
# every message ccsift.verdict, .score, .reason, and ccsift.was=low on one
# it had lifted. Upgraded, the store must learn from them that such a
# series was demoted, or stats forgets the demotion and Carol's reply to it.
test_expect_success 'a series an older ccsift lifted, saying so only in notmuch: the store counts it demoted' '
	foo_series z "before the store" &&
	reply_mail zr.eml zr@x "$CAROL" "$NEW" "$DAVE" "Re: [PATCH 2/2] net: foo: before the store two" \
		z2@x "<z0@x> <z2@x>" z2.eml &&
	deliver z0.eml z1.eml z2.eml zr.eml && notmuch new --no-hooks >/dev/null &&
	for i in z0 z1 z2; do
		printf "%s\n" "-new -- id:$i@x" \
			"#= $i@x ccsift.verdict=relevant ccsift.was=low ccsift.score=0.02 ccsift.reason=you%20wrote%20in%20this%20thread"
	done >old-era && printf "%s\n" "-new -- id:zr@x" "#= zr@x ccsift.verdict=not-a-patch" >>old-era &&
	notmuch restore --accumulate --include=tags --include=properties <old-era &&
	"$CCSIFT_BIN" tag --query "thread:{id:z0@x}" &&
	test "$(decision z1@x verdict) $(decision z1@x was_low)" = "relevant 1" &&
	test "$(decision z0@x was_low) $(decision z2@x was_low) $(decision zr@x was_low)" = "1 1 0" &&
	expect_ids "tag:lowcc and thread:{id:z0@x}"
'

test_done
