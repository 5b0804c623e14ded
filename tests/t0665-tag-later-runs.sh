#!/bin/bash
# A thread decided by one run of ccsift tag keeps its rules in the next: the
# messages a later run did not select (only new mail is) still count for
# what they are. A new version of a series Carol replied to stays relevant
# when a reply to it arrives; a reply that quotes a file where she is
# relevant stays out of the low pile when the thread grows; deciding one
# message again changes nothing else; and a message whose file is gone
# when ccsift tag runs (renamed by a mail client marking it read) still
# counts as it did: her own reply still lifts its thread. A v2 is lifted by
# her reply to its v1, not to another patch whose title only begins the same.

. "${TEST_DIRECTORY:=$(cd "$(dirname "$0")" && pwd)}/lib/test-lib.sh"

test_need notmuch git

. "$TEST_DIRECTORY/lib/notmuch-lib.sh"
. "$TEST_DIRECTORY/lib/series-lib.sh"
carol_env

# dump FILE: the whole state, tags and properties.
dump() { notmuch dump --include=tags --include=properties >"$1"; }
# tags ID: the tags of message ID, on one line.
tags() { notmuch search --exclude=false --output=tags "id:$1" | sort | tr '\n' ' '; }

test_expect_success 'setup: history, index, Carol (always = fs/bar/*), notmuch with the hook' '
	carol_world "new;inbox;unread"
'

test_expect_success 'v2 of a series Carol replied to stays relevant when a reply to it arrives' '
	cover_mail a0.eml a0@x 0/2 "net: foo: RX budget rework" drivers/net/foo.c drivers/net/foo.h &&
	patch_mail a1.eml a1@x a0@x 1/2 "net: foo: make the RX budget tunable" drivers/net/foo.c &&
	patch_mail a2.eml a2@x a0@x 2/2 "net: foo: add the budget to foo_priv" drivers/net/foo.h &&
	reply_mail e1.eml e1@x "$CAROL" "$NEW" "$DAVE" "Re: [PATCH 2/2] net: foo: add the budget to foo_priv" \
		a2@x "<a0@x> <a2@x>" a2.eml &&
	deliver a0.eml a1.eml a2.eml e1.eml && nm_new &&
	cover_mail v0.eml v0@x "v2 0/2" "net: foo: RX budget rework" drivers/net/foo.c drivers/net/foo.h &&
	patch_mail v1.eml v1@x v0@x "v2 1/2" "net: foo: make the RX budget tunable" drivers/net/foo.c &&
	patch_mail v2.eml v2@x v0@x "v2 2/2" "net: foo: add the budget to foo_priv" drivers/net/foo.h &&
	deliver v0.eml v1.eml v2.eml && nm_new &&
	expect_ids "tag:lowcc" &&
	test "$(decision v1@x reason)" = "you engaged with an earlier version of this series" &&
	reply_mail r1.eml r1@x "$DAVE" "$NEW" "$CC" "Re: [PATCH v2 1/2] net: foo: make the RX budget tunable" \
		v1@x "<v0@x> <v1@x>" v1.eml &&
	deliver r1.eml && nm_new &&
	expect_ids "tag:lowcc" &&
	expect_ids "tag:inbox and thread:{id:v1@x}" v0@x v1@x v2@x r1@x
'

test_expect_success 'a reply quoting fs/bar/bar.c in a low thread: deciding a patch again changes nothing else' '
	cover_mail k0.eml k0@x 0/2 "net: foo: tidy the probe path" drivers/net/foo.c drivers/net/foo.h &&
	patch_mail k1.eml k1@x k0@x 1/2 "net: foo: drop a stale comment" drivers/net/foo.c &&
	patch_mail k2.eml k2@x k0@x 2/2 "net: foo: move the probe declaration" drivers/net/foo.h &&
	patch_mail bar.eml bar@x "" 1/1 "fs: bar: use the shared ring helper" fs/bar/bar.c &&
	reply_mail kbar.eml kbar@x "$DAVE" "$NEW" "$CC" "Re: [PATCH 2/2] net: foo: move the probe declaration" \
		k2@x "<k0@x> <k2@x>" bar.eml &&
	deliver k0.eml k1.eml k2.eml kbar.eml && nm_new &&
	expect_ids "tag:lowcc and thread:{id:k0@x}" k0@x k1@x k2@x &&
	dump before &&
	"$CCSIFT_BIN" tag --query id:k1@x &&
	dump after &&
	test_cmp before after
'

test_expect_success '... and it stays out of lowcc when the thread grows' '
	reply_mail knext.eml knext@x "$NEW" "$DAVE" "$CC" "Re: [PATCH 1/2] net: foo: drop a stale comment" \
		k1@x "<k0@x> <k1@x>" &&
	deliver knext.eml && nm_new &&
	expect_ids "tag:lowcc and thread:{id:k0@x}" k0@x k1@x k2@x knext@x &&
	expect_ids "tag:inbox and thread:{id:k0@x}" kbar@x
'

test_expect_success 'a v2 whose title only begins another that Carol replied to is not lifted' '
	patch_mail o1.eml o1@x "" 1/1 "net: foo: fix the RX budget check in probe" drivers/net/foo.c &&
	reply_mail oc.eml oc@x "$CAROL" "$NEW" "$DAVE" "Re: [PATCH] net: foo: fix the RX budget check in probe" \
		o1@x "<o1@x>" o1.eml &&
	deliver o1.eml oc.eml && nm_new &&
	patch_mail z1.eml z1@x "" "v2 1/1" "net: foo: fix the RX budget" drivers/net/foo.h &&
	deliver z1.eml && nm_new &&
	expect_ids "tag:lowcc and id:z1@x" z1@x &&
	test "$(decision z1@x own)" = low
'

test_expect_success 'messages renamed before ccsift tag runs still count as they did' '
	cover_mail b0.eml b0@x 0/2 "net: foo: share the ring helpers" drivers/net/foo.c fs/bar/bar.c &&
	patch_mail b1.eml b1@x b0@x 1/2 "net: foo: factor out the ring helper" drivers/net/foo.c &&
	patch_mail b2.eml b2@x b0@x 2/2 "fs: bar: use the shared ring helper" fs/bar/bar.c &&
	deliver b0.eml b1.eml b2.eml && nm_new &&
	expect_ids "tag:inbox and thread:{id:b0@x}" b0@x b1@x b2@x &&
	reply_mail ra.eml ra@x "$DAVE" "$NEW" "$CC" "Re: [PATCH 1/2] net: foo: make the RX budget tunable" \
		a1@x "<a0@x> <a1@x>" &&
	reply_mail rb.eml rb@x "$DAVE" "$NEW" "$CC" "Re: [PATCH 1/2] net: foo: factor out the ring helper" \
		b1@x "<b0@x> <b1@x>" &&
	deliver ra.eml rb.eml && notmuch new --no-hooks >/dev/null &&
	for f in e1 b2; do mv "$MD/new/$f.ccsift-test" "$MD/cur/$f.ccsift-test:2,S" || return 1; done &&
	"$CCSIFT_BIN" tag && notmuch tag -new -- tag:new &&
	expect_ids "tag:lowcc and (thread:{id:a0@x} or thread:{id:b0@x})" &&
	expect_ids "tag:inbox and thread:{id:a0@x}" a0@x a1@x a2@x e1@x ra@x &&
	expect_ids "tag:inbox and thread:{id:b0@x}" b0@x b1@x b2@x rb@x
'

test_done
