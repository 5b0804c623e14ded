#!/bin/bash
# Mail that a list rewrote for DMARC, and patches sent on someone's behalf:
# the person who wrote the change is the author, in the mail and in the index.
. "$TEST_DIRECTORY/lib/test-lib.sh"

# patch_mail FROM [HEADER...] [-- BODY-FIRST-LINE]: a one-file patch.
patch_mail() {
	local from=$1 inbody=
	shift
	echo "From: $from"
	while [ $# -gt 0 ]; do
		[ "$1" = -- ] && { inbody=$2; break; }
		echo "$1"
		shift
	done
	cat <<MAIL
To: Dave Maintainer <dave@example.org>
Subject: [PATCH] lib: fix the thing
Message-Id: <t0120.$RANDOM@example.org>

${inbody:+$inbody

}Fix it.

Signed-off-by: Wei Gao <wei@example.com>
---
 lib/thing.c | 2 +-
 1 file changed, 1 insertion(+), 1 deletion(-)

diff --git a/lib/thing.c b/lib/thing.c
--- a/lib/thing.c
+++ b/lib/thing.c
@@ -1,3 +1,3 @@
 a
-b
+c
 d
MAIL
}

parsed() { "$CCSIFT" parse "$1" | sed -n "s/^$2: //p"; }

test_expect_success 'mailman: the sender is the Reply-To of the same name' '
	patch_mail "Wei Gao via ltp <ltp@lists.example.org>" \
		"Reply-To: Wei Gao <wei@example.com>, ltp@lists.example.org" >m1.eml &&
	test "$(parsed m1.eml from)" = wei@example.com
'

test_expect_success 'mailman: or the Cc of the same name' '
	patch_mail "Wei Gao via ltp <ltp@lists.example.org>" \
		"Cc: Someone Else <else@example.org>, \"Gao, Wei\" <wei@example.com>" >m2.eml &&
	test "$(parsed m2.eml from)" = wei@example.com
'

test_expect_success 'mailman 3: X-Original-From' '
	patch_mail "Wei Gao via ltp <ltp@lists.example.org>" \
		"X-Original-From: Wei Gao <wei@example.com>" >m3.eml &&
	test "$(parsed m3.eml from)" = wei@example.com
'

test_expect_success 'mailman, no trace in the headers: the sign-off of the same name, as in the index' '
	patch_mail "Wei Gao via ltp <ltp@lists.example.org>" \
		"Reply-To: Someone Else <else@example.org>" >m4.eml &&
	test "$(parsed m4.eml from)" = wei@example.com
'

test_expect_success 'a rewrite that kept no trace leaves the list as the sender' '
	patch_mail "Xu Yang via ltp <ltp@lists.example.org>" \
		"Reply-To: Someone Else <else@example.org>" >m4b.eml &&
	test "$(parsed m4b.eml from)" = ltp@lists.example.org
'

test_expect_success 'a name that only says via is not a rewrite' '
	patch_mail "Wei Gao via ltp <wei@example.com>" \
		"Reply-To: Someone Else <else@example.org>" >m5.eml &&
	test "$(parsed m5.eml from)" = wei@example.com
'

test_expect_success 'groups.io: the address it encodes' '
	patch_mail "Doug Flick via groups.io <dougflick=example.com@groups.io>" >m6.eml &&
	test "$(parsed m6.eml from)" = dougflick@example.com
'

test_expect_success 'an in-body From: is the author; the sender stays the sender' '
	patch_mail "Dave Maintainer <dave@example.org>" -- "From: Wei Gao <wei@example.com>" >m7.eml &&
	test "$(parsed m7.eml from)" = dave@example.org &&
	test "$(parsed m7.eml author)" = wei@example.com &&
	"$CCSIFT" parse --json m7.eml >m7.json &&
	test_grep "\"author\" *: *\"wei@example.com\"" m7.json
'

test_expect_success 'no in-body From: no author line' '
	test -z "$(parsed m1.eml author)"
'

# A history where Wei's and Doug's patches came through lists that
# rewrote them, and Erin reviewed two of Wei's.
commit() { # commit WHEN AUTHOR MESSAGE
	echo "$1 $RANDOM" >>repo/lib/thing.c &&
	git -C repo add lib/thing.c &&
	GIT_AUTHOR_DATE=$1 GIT_COMMITTER_DATE=$1 git -C repo \
		-c user.name="Dave Maintainer" -c user.email=dave@example.org \
		commit -q --author="$2" -m "$3"
}

test_expect_success 'a history with rewritten authors' '
	git init -q repo && mkdir repo/lib &&
	commit 2025-01-01T00:00:00Z "Dave Maintainer <dave@example.org>" "lib: add thing" &&
	commit 2025-02-01T00:00:00Z "Wei Gao via ltp <ltp@lists.example.org>" "lib: one

Signed-off-by: Wei Gao <wei@example.com>
Reviewed-by: Erin Review <erin@example.org>
Signed-off-by: Dave Maintainer <dave@example.org>" &&
	commit 2025-03-01T00:00:00Z "Wei Gao via ltp <ltp@lists.example.org>" "lib: two

Signed-off-by: Wei  GAO <wei@example.com>
Reviewed-by: Erin Review <erin@example.org>
Signed-off-by: Dave Maintainer <dave@example.org>" &&
	commit 2025-04-01T00:00:00Z "Doug Flick via groups.io <dougflick=example.com@groups.io>" "lib: three

Signed-off-by: Doug Flick <dougflick@example.com>" &&
	"$CCSIFT" index --repo repo >out &&
	test_grep "4 commits added" out
'

test_expect_success 'the index credits the people, not the list' '
	patch_mail "New Person <new@example.org>" >new.eml &&
	"$CCSIFT" who --repo repo --json new.eml >who.json &&
	test_grep "\"wei@example.com\"" who.json &&
	test_grep "\"dougflick@example.com\"" who.json &&
	! grep -q "lists.example.org" who.json &&
	! grep -q "groups.io" who.json
'

test_expect_success 'the reviewer of the author, sent on their behalf, knows the author' '
	"$CCSIFT" score --repo repo --me erin@example.org --json m7.eml >erin.json &&
	test_grep "you reviewed, acked, tested or applied 2 of Wei Gao.s patches in the last year" erin.json &&
	"$CCSIFT" score --repo repo --me erin@example.org --json new.eml >erin-new.json &&
	! grep -q "you reviewed, acked, tested or applied 2 of " erin-new.json
'

test_expect_success 'the author named in a reason header stays one line of it' '
	patch_mail "=?UTF-8?Q?Wei_Gao=0AX-Injected=3A_1=0D=0A?= <wei@example.com>" >evil.eml &&
	"$CCSIFT" filter --repo repo --me erin@example.org <evil.eml >out.eml &&
	! grep -q "^X-Injected" out.eml &&
	test "$(grep -c "^X-Ccsift-Reason:" out.eml)" = 1 &&
	"$CCSIFT" score --repo repo --me erin@example.org --json evil.eml >evil.json &&
	test_grep "you reviewed, acked, tested or applied 2 of Wei Gao X-Injected: 1.s patches" evil.json
'

test_done
