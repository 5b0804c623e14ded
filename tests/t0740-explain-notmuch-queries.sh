#!/bin/bash
# ccsift explain takes a message as notmuch names it: id:, mid: (also with
# angle brackets), each also quoted (id:"a@b"), and thread:, which explains the newest patch of the thread.
. "${TEST_DIRECTORY:=$(cd "$(dirname "$0")" && pwd)}/lib/test-lib.sh"

test_need notmuch
P="$TEST_DIRECTORY/lib/rx-budget.eml"
ID=20250520100000.1-new@example.org

test_expect_success 'setup: a clone, a config, a notmuch database with a thread' '
	bash "$TEST_DIRECTORY/lib/make-history.sh" linux >/dev/null &&
	"$CCSIFT" index --repo linux >/dev/null &&
	mkdir -p "$XDG_CONFIG_HOME/ccsift" mail/cur mail/new mail/tmp &&
	printf "%s\n" "[user]" "email = carol@example.org" "notmuch = false" "catch-up = 0" \
		"[repo linux]" "path = $PWD/linux" >"$XDG_CONFIG_HOME/ccsift/config" &&
	printf "%s\n" "[database]" "path=$PWD/mail" "[user]" "primary_email=carol@example.org" \
		"[new]" "tags=inbox" >"$NOTMUCH_CONFIG" &&
	cp "$P" mail/cur/v1:2, &&
	printf "%s\n" "From: Dave <dave@example.org>" "To: new@example.org" "Subject: Re: [PATCH] net: foo" \
		"Date: Wed, 21 May 2025 10:00:00 +0000" "Message-ID: <reply@example.org>" \
		"In-Reply-To: <$ID>" "References: <$ID>" "" "Looks fine." >mail/cur/reply:2, &&
	sed -e "s/^Subject: \[PATCH\]/Subject: [PATCH v2]/" -e "s/^Message-ID: .*/Message-ID: <v2@example.org>/" \
		-e "s/^Date: .*/Date: Thu, 22 May 2025 10:00:00 +0000\nIn-Reply-To: <reply@example.org>\nReferences: <$ID> <reply@example.org>/" \
		"$P" >mail/cur/v2:2, &&
	printf "%s\n" "From: Bob <bob@example.org>" "To: carol@example.org" "Subject: lunch" \
		"Date: Wed, 21 May 2025 12:00:00 +0000" "Message-ID: <lunch@example.org>" "" "Noon?" >mail/cur/lunch:2, &&
	notmuch new >/dev/null && test "$(notmuch count thread:{id:$ID})" = 3
'

test_expect_success 'mid: is id:, also with angle brackets' '
	"$CCSIFT" explain --as-of 2025-06-01 id:$ID >by-id &&
	head -1 by-id | grep -x "\[PATCH\] net: foo: make the RX budget tunable" &&
	"$CCSIFT" explain --as-of 2025-06-01 mid:$ID >by-mid && test_cmp by-id by-mid &&
	"$CCSIFT" explain --as-of 2025-06-01 "mid:<$ID>" >by-mid && test_cmp by-id by-mid
'

test_expect_success 'id: quoted as notmuch dump and tag --dry-run write it' '
	"$CCSIFT" explain --as-of 2025-06-01 "id:\"$ID\"" >quoted && test_cmp by-id quoted &&
	printf "%s\n" "From: Eve <eve@example.org>" "To: carol@example.org" "Subject: odd" \
		"Date: Wed, 21 May 2025 13:00:00 +0000" "Message-ID: <say\"cheese\"@example.org>" "" "Hi." \
		>mail/cur/odd:2, &&
	notmuch new >/dev/null &&
	"$CCSIFT" explain "id:\"say\"\"cheese\"\"@example.org\"" >odd &&
	test_grep "not a patch" odd
'

test_expect_success 'thread: explains the newest patch of the thread, and says which' '
	t=$(notmuch search --output=threads id:$ID) &&
	"$CCSIFT" explain --as-of 2025-06-01 $t >out && cat out &&
	head -1 out | grep -x "The newest patch of $t: id:v2@example.org" &&
	sed -n 2p out | grep -x "\[PATCH v2\] net: foo: make the RX budget tunable"
'

test_expect_success 'thread: with no patch, or not a thread id: a clear error' '
	t=$(notmuch search --output=threads id:lunch@example.org) &&
	test_must_fail "$CCSIFT" explain $t 2>err && grep "no patch in $t" err &&
	test_must_fail "$CCSIFT" explain "thread:x or tag:inbox" 2>err && grep "a thread id is hex digits" err
'

test_done
