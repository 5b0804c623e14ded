#!/bin/bash
# The decisions store of ccsift tag (core/decisions.c) damaged, edited or
# full: nothing is wrong quietly. A row whose verdict is no verdict is no
# decision (notmuch's property says what was done); margins of replies that
# are not numbers in bounds are not counted; a decision time out of range
# prints as "?"; explain says when the store cannot be read, and tag says to
# move a damaged one away; another program's SQLite file is not adopted;
# and a store that cannot commit (a full disk) leaves notmuch's messages
# their `new` tag, so that the next run decides and records them.

. "${TEST_DIRECTORY:=$(cd "$(dirname "$0")" && pwd)}/lib/test-lib.sh"

test_need notmuch git sqlite3 python3

. "$TEST_DIRECTORY/lib/notmuch-lib.sh"
carol_env
STORE="$XDG_DATA_HOME/ccsift/decisions.db"

# patch_mail OUT ID: a patch to drivers/net/foo.c, low for Carol.
patch_mail() { foo_patch_mail "$1" "$2" "$DAVE" "$CC"; }
tags() { notmuch search --output=tags "id:$1" | sort | tr '\n' ' '; }

test_expect_success 'setup: Carol, notmuch with the hook, three low patches decided' '
	carol_world "new;inbox" &&
	for i in 1 2 3; do patch_mail p$i.eml p$i@new.example.org || return 1; done &&
	deliver p1.eml p2.eml p3.eml && nm_new &&
	test "$(decision p1@new.example.org verdict)" = low &&
	test "$(tags p1@new.example.org)" = "lowcc unread "
'

# Lifted (here by a threshold low enough for anything), the message sheds
# what its low verdict did: known from notmuch's property when the row is
# no help (it kept lowcc and stayed out of the inbox).
test_expect_success 'a row whose verdict is no verdict: the store and the tags agree after the next run' '
	sqlite3 "$STORE" "UPDATE decision SET verdict = '\''bogus'\'' WHERE id = '\''p1@new.example.org'\''" &&
	carol_config "always = fs/bar/*" "threshold = 0.001" &&
	"$CCSIFT_BIN" tag --query "*" &&
	carol_config "always = fs/bar/*" &&
	test "$(decision p1@new.example.org verdict)" = relevant &&
	test "$(tags p1@new.example.org)" = "inbox unread " &&
	"$CCSIFT_BIN" tag --query "*" &&
	test "$(tags p1@new.example.org)" = "lowcc unread "
'

test_expect_success 'a decision time out of range is "?", not a GLib critical' '
	sqlite3 "$STORE" "UPDATE decision SET decided = 9223372036854775807 WHERE id = '\''p2@new.example.org'\''" &&
	"$CCSIFT_BIN" explain id:p2@new.example.org >out 2>err &&
	test_grep "^Decided by ccsift tag at ?: low" out && test ! -s err
'

test_expect_success 'margins of replies that are not numbers in bounds are not counted' '
	"$CCSIFT_BIN" score --me carol@example.org p3.eml >intact &&
	sqlite3 "$STORE" "UPDATE decision SET replied = 1, margin = -1e308 WHERE id = '\''p1@new.example.org'\'';
		UPDATE decision SET replied = 2, margin = '\''garbage'\'' WHERE id = '\''p2@new.example.org'\''" &&
	"$CCSIFT_BIN" score --me carol@example.org p3.eml >edited &&
	test_cmp intact edited &&
	sqlite3 "$STORE" "UPDATE decision SET replied = NULL, margin = NULL"
'

test_expect_success 'a damaged store: explain says so, tag says to move it away' '
	cp "$STORE" store.bak &&
	sqlite3 "$STORE" "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null &&
	python3 -c "f = open(\"$STORE\", \"r+b\"); f.seek(4096); f.write(bytes(4096))" &&
	"$CCSIFT_BIN" explain id:p1@new.example.org >out 2>err; cat err &&
	test_grep "^ccsift explain: what ccsift tag decided is not known: .*malformed" err &&
	test_must_fail "$CCSIFT_BIN" tag --query "*" 2>err && cat err &&
	test_grep "malformed (move it away: ccsift tag starts a new one)" err &&
	cp store.bak "$STORE" && rm -f "$STORE-wal" "$STORE-shm"
'

test_expect_success 'another program'\''s SQLite file in its place is not adopted' '
	mv "$STORE" store.keep && rm -f "$STORE-wal" "$STORE-shm" &&
	sqlite3 "$STORE" "CREATE TABLE addressbook(name TEXT)" &&
	test_must_fail "$CCSIFT_BIN" tag --query "*" 2>err &&
	test_grep "is not a ccsift decisions store" err &&
	test "$(sqlite3 "$STORE" "SELECT group_concat(name) FROM sqlite_master")" = addressbook &&
	rm -f "$STORE"* && mv store.keep "$STORE"
'

# A full disk, made by a tmpfs of a few KB for the store (root only).
test_expect_success 'a store that cannot commit: the messages keep new, and the next run records them' '
	if ! { test "$(id -u)" = 0 && mkdir -p small && mount -t tmpfs -o size=64k tmpfs small 2>/dev/null; }; then
		echo "skipped: no tmpfs can be mounted here" && return 0
	fi &&
	{ cp "$STORE" small/decisions.db &&
	  dd if=/dev/zero of=small/fill bs=4k count=1000 2>/dev/null; truncate -s -36K small/fill &&
	  mv "$STORE" store.keep && ln -s "$TRASH/small/decisions.db" "$STORE" &&
	  for i in 4 5 6 7 8 9; do patch_mail p$i.eml p$i@new.example.org || exit 1; done &&
	  deliver p4.eml p5.eml p6.eml p7.eml p8.eml p9.eml &&
	  notmuch new --no-hooks >/dev/null &&
	  rc=0 && "$CCSIFT_BIN" tag --untag new 2>err || rc=$?; cat err
	  ok=$(test $rc = 1 && grep -c "messages keep new for the next run" err)
	  new_after=$(notmuch count tag:new)
	  rm -f small/fill && "$CCSIFT_BIN" tag --untag new && recorded=$(decided "id LIKE '\''p_@new.example.org'\''")
	  rm "$STORE" && cp small/decisions.db "$STORE" && umount small; } &&
	echo "ok=$ok new after the failed run=$new_after recorded after the next=$recorded" &&
	if test $rc = 0; then echo "skipped: the store found room to commit" && return 0; fi &&
	test "$ok" = 1 && test "$new_after" = 6 && test "$recorded" = 9 &&
	test "$(notmuch count tag:new)" = 0
'

test_done
