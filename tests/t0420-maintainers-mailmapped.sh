#!/bin/bash
# MAINTAINERS names the user under an address the .mailmap maps to the one
# they read mail at: get_maintainer.pl mails an M: or R: line through the
# .mailmap, so the patch reaches them Cc'd at the mapped address, and they
# are still that section's reviewer. A .mailmap taken back takes that with
# it; a replay (eval, the fits) reads MAINTAINERS as it was, unmapped.
. "$TEST_DIRECTORY/lib/test-lib.sh"

AS_OF=2025-06-01T00:00:00Z
bash "$TEST_DIRECTORY/lib/make-history.sh" repo >/dev/null || exit 1

# commit_repo SUBJECT: commit what is staged, as Dave, after the history.
commit_repo() {
	GIT_AUTHOR_DATE=$1 GIT_COMMITTER_DATE=$1 \
		git -C repo -c user.name="Dave Maintainer" -c user.email=dave@example.org commit -qm "$2"
}

cat >foo.eml <<'MAIL'
From: New Person <new@example.org>
To: Dave Maintainer <dave@example.org>
Cc: Bob Treewide <bob@example.org>, Carol Typo <carol@example.org>,
 netdev@vger.example
Subject: [PATCH] net: foo: fix a thing
Message-Id: <t0420@example.org>

Fix it.

Signed-off-by: New Person <new@example.org>
---
 drivers/net/foo.c | 2 +-
 1 file changed, 1 insertion(+), 1 deletion(-)

diff --git a/drivers/net/foo.c b/drivers/net/foo.c
--- a/drivers/net/foo.c
+++ b/drivers/net/foo.c
@@ -1,3 +1,3 @@
 a
-b
+c
 d
-- 
2.39.5
MAIL

test_expect_success 'setup: Bob is R: for FOO at an address the .mailmap maps to his own' '
	"$CCSIFT" index --repo repo >out &&
	"$CCSIFT" filter --repo repo --me bob@example.org <foo.eml >before.out &&
	test_grep "^X-Ccsift: low" before.out &&
	sed -i "s/^M:\tDave Maintainer <dave@example.org>/&\nR:\tBob Treewide <bob@kernel.org>/" repo/MAINTAINERS &&
	echo "Bob Treewide <bob@example.org> <bob@kernel.org>" >>repo/.mailmap &&
	git -C repo add MAINTAINERS .mailmap &&
	commit_repo 2025-03-20T00:00:00Z "MAINTAINERS: add Bob as FOO reviewer" &&
	"$CCSIFT" index --repo repo >out && test_grep "1 commits added" out
'

test_expect_success 'Cc'\''d at the mapped address, he is R: for the file' '
	"$CCSIFT" filter --repo repo --me bob@example.org <foo.eml >cc.out &&
	test_grep "^X-Ccsift: relevant" cc.out &&
	test_grep "^X-Ccsift-Reason: you are R: for drivers/net/foo.c in MAINTAINERS (FOO NETWORK DRIVER)" cc.out &&
	"$CCSIFT" explain --repo repo --me bob@example.org foo.eml >explain.out &&
	test_grep "you are R: for drivers/net/foo.c" explain.out &&
	# the output is the input, and the two lines
	tail -n +3 cc.out | cmp - foo.eml
'

test_expect_success 'the address MAINTAINERS names is his as before' '
	"$CCSIFT" filter --repo repo --me bob@kernel.org <foo.eml >org.out &&
	test_grep "^X-Ccsift: relevant" org.out
'

test_expect_success 'nobody else is R: by it' '
	"$CCSIFT" filter --repo repo --me carol@example.org <foo.eml >carol.out &&
	test_grep "^X-Ccsift: low" carol.out
'

test_expect_success 'an index an older ccsift kept since gets the aliases back from the next update' '
	# what an update of a ccsift from before the aliases leaves: the
	# sections stored without them, kept-at behind the tip
	idx=$(ls "$XDG_CACHE_HOME"/ccsift/*.db) &&
	sqlite3 "$idx" "DELETE FROM maintainer_emails WHERE email IN (SELECT canonical FROM maintainer_aliases);
		UPDATE meta SET v = '\''older'\'' WHERE k = '\''kept-at'\''" &&
	"$CCSIFT" index --repo repo >out &&
	"$CCSIFT" filter --repo repo --me bob@example.org <foo.eml >adopted.out &&
	test_grep "^X-Ccsift: relevant" adopted.out
'

test_expect_success 'the .mailmap line taken back: he is not R: for it under his own address' '
	sed -i "/bob@kernel.org/d" repo/.mailmap && git -C repo add .mailmap &&
	commit_repo 2025-03-21T00:00:00Z "mailmap: drop Bob" &&
	"$CCSIFT" index --repo repo >out && test_grep "1 commits added" out &&
	"$CCSIFT" filter --repo repo --me bob@example.org <foo.eml >gone.out &&
	test_grep "^X-Ccsift: low" gone.out
'

test_done
