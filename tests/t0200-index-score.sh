#!/bin/bash
# The history index and the scorer on a history built here (tests/lib/history.md).
. "$TEST_DIRECTORY/lib/test-lib.sh"

AS_OF=2025-06-01T00:00:00Z
bash "$TEST_DIRECTORY/lib/make-history.sh" repo >/dev/null || exit 1

# patch_mail FILE [EXTRA-HEADER...]: a patch to FILE from a newcomer, Cc'd to everyone.
patch_mail() {
	local file=$1; shift
	cat <<MAIL
From: New Person <new@example.org>
To: Dave Maintainer <dave@example.org>
Cc: Alice Substance <alice@example.org>, Bob Treewide <bob@example.org>,
 Carol Typo <carol@example.org>, Erin Review <erin@example.org>,
 Grace Rename <grace@example.org>, Frank Fs <frank@example.org>, stranger@example.org
Subject: [PATCH] net: fix a thing in $file
Message-Id: <t0200.$RANDOM@example.org>
$(for h in "$@"; do echo "$h"; done)

Fix it.

Signed-off-by: New Person <new@example.org>
---
 $file | 2 +-
 1 file changed, 1 insertion(+), 1 deletion(-)

diff --git a/$file b/$file
--- a/$file
+++ b/$file
@@ -1,3 +1,3 @@
 a
-b
+c
 d
-- 
2.39.5
MAIL
}

verdict() { # verdict EMAIL MAIL [ARGS...]
	local me=$1 mail=$2; shift 2
	"$CCSIFT" score --repo repo --me "$me" --as-of "$AS_OF" "$@" "$mail" | sed -n 's/^verdict: \([a-z-]*\).*/\1/p'
}

test_expect_success 'index builds every non-merge commit' '
	"$CCSIFT" index --repo repo >out &&
	test_grep "25 commits added" out &&
	"$CCSIFT" index --repo repo --status >status &&
	test_grep "25 commits, " status
'

test_expect_success 'an up-to-date index adds nothing' '
	"$CCSIFT" index --repo repo >out &&
	test_grep " 0 commits added" out
'

patch_mail drivers/net/foo.c >foo.eml

test_expect_success 'the substantive author is relevant, under either address' '
	test "$(verdict alice@example.org foo.eml)" = relevant &&
	test "$(verdict alice@old-employer.example foo.eml)" = relevant
'

test_expect_success 'the tree-wide refactorer is low, and the reason says tree-wide' '
	test "$(verdict bob@example.org foo.eml)" = low &&
	"$CCSIFT" score --repo repo --me bob@example.org --as-of $AS_OF foo.eml >out &&
	test_grep "tree-wide" out &&
	bob=$(git -C repo log --format=%H --author=bob@example.org) &&
	"$CCSIFT" score --json --repo repo --me bob@example.org --as-of $AS_OF foo.eml >json &&
	python3 -c "import json,sys; r=json.load(open(\"json\")); \
		assert r[\"verdict\"] == \"low\", r; \
		assert r[\"reasons\"][0][\"commit\"] == \"$bob\", r; \
		assert r[\"reasons\"][0][\"files_in_commit\"] == 100, r; \
		assert r[\"score\"] < r[\"threshold\"]; assert r[\"files\"][0][\"path\"] == \"drivers/net/foo.c\""
'

test_expect_success 'the typo fixer is low' '
	test "$(verdict carol@example.org foo.eml)" = low &&
	"$CCSIFT" score --repo repo --me carol@example.org --as-of $AS_OF foo.eml >out &&
	test_grep "evidence: .* author drivers/net/foo.c" out
'

test_expect_success 'the reviewer is relevant while she reviews, low a year after she stopped' '
	test "$(verdict erin@example.org foo.eml --as-of 2024-05-01)" = relevant &&
	test "$(verdict erin@example.org foo.eml)" = low &&
	"$CCSIFT" score --repo repo --me erin@example.org --as-of $AS_OF foo.eml >out &&
	test_grep "^reason: .*no review from you in the project in the last 90 days" out
'

test_expect_success 'the maintainer (M: in MAINTAINERS) is relevant whatever the score' '
	test "$(verdict dave@example.org foo.eml)" = relevant &&
	"$CCSIFT" score --repo repo --me dave@example.org --as-of $AS_OF --json foo.eml >json &&
	test_grep "you are M: for drivers/net/foo.c in MAINTAINERS (FOO NETWORK DRIVER)" json
'

test_expect_success '--as-of before the tip reads MAINTAINERS as it was then' '
	# the FOO section came on 2023-06-05 (commit 9)
	"$CCSIFT" score --repo repo --me dave@example.org --as-of 2023-06-01T00:00:00Z --json foo.eml >json &&
	! grep -q "you are M: for drivers/net/foo.c" json &&
	"$CCSIFT" score --repo repo --me dave@example.org --as-of 2023-06-06T00:00:00Z --json foo.eml >json &&
	test_grep "you are M: for drivers/net/foo.c in MAINTAINERS (FOO NETWORK DRIVER)" json
'

test_expect_success 'someone with no history is never demoted for that' '
	test "$(verdict stranger@example.org foo.eml)" = relevant &&
	"$CCSIFT" score --repo repo --me stranger@example.org --as-of $AS_OF foo.eml >out &&
	test_grep "no history" out
'

test_expect_success 'the R: reviewer of a section is relevant (MAINTAINERS R:)' '
	patch_mail fs/bar/super.c >bar.eml &&
	sed -i "s/^Cc: /Cc: Erin Review <erin@example.org>, /" bar.eml &&
	"$CCSIFT" score --repo repo --me erin@example.org --as-of $AS_OF bar.eml >out &&
	test_grep "you are R: for fs/bar/super.c" out
'

test_expect_success 'every file up to the bound is scored: the 300th file of a patch counts' '
	{
		sed -n "1,/^---\$/p" foo.eml &&
		for i in $(seq 299); do
			printf "diff --git a/doc/f%d.txt b/doc/f%d.txt\n--- a/doc/f%d.txt\n+++ b/doc/f%d.txt\n@@ -1 +1 @@\n-a\n+b\n" $i $i $i $i
		done &&
		printf "diff --git a/drivers/net/foo.c b/drivers/net/foo.c\n--- a/drivers/net/foo.c\n+++ b/drivers/net/foo.c\n@@ -1 +1 @@\n-a\n+b\n"
	} >wide.eml &&
	"$CCSIFT" score --repo repo --me alice@example.org --as-of $AS_OF --json wide.eml >json &&
	python3 -c "import json; r=json.load(open(\"json\")); \
		assert len(r[\"files\"]) == 300, len(r[\"files\"]); \
		assert r[\"history\"] > 0 and any(e[\"path\"] == \"drivers/net/foo.c\" for e in r[\"reasons\"]), r[\"history\"]"
'

test_expect_success 'history follows renames, as git log --follow does' '
	patch_mail drivers/net/new_name.c >renamed.eml &&
	"$CCSIFT" score --repo repo --me grace@example.org --as-of $AS_OF --json renamed.eml >json &&
	python3 -c "import json; r=json.load(open(\"json\")); \
		assert r[\"history\"] == 3, r; \
		assert all(e[\"via\"] == \"drivers/net/old_name.c\" and not e[\"sibling\"] for e in r[\"reasons\"]), r"
'

test_expect_success 'history on sibling files counts at a discount (new file)' '
	patch_mail drivers/net/brand_new.c >new.eml &&
	"$CCSIFT" score --repo repo --me alice@example.org --as-of $AS_OF --json new.eml >json &&
	python3 -c "import json; r=json.load(open(\"json\")); \
		assert r[\"reasons\"] and all(e[\"sibling\"] for e in r[\"reasons\"]), r"
'

test_expect_success 'sibling history of a file that is not new does not call it new' '
	patch_mail drivers/net/sibling.c >sibling.eml &&
	git -C repo log --oneline --until=$AS_OF -- drivers/net/sibling.c | grep -q . &&
	"$CCSIFT" score --repo repo --me alice@example.org --as-of $AS_OF --json sibling.eml >json &&
	python3 -c "import json; r=json.load(open(\"json\")); \
		f=next(f for f in r[\"features\"] if f[\"name\"] == \"sibling\"); \
		assert f[\"count\"] > 1 and f[\"words\"] == \"%d of your commits are beside the files you have no history on\" % f[\"count\"], f"
'

test_expect_success '--as-of ignores commits at or after the date' '
	# Bob'\''s only commit is of 2024-01-15: before it he has no history at all.
	"$CCSIFT" score --repo repo --me bob@example.org --as-of 2024-01-01T00:00:00Z foo.eml >out &&
	test_grep "verdict: relevant" out && test_grep "no history" out &&
	t=$(git -C repo log -1 --format=%ct --author=bob@example.org) &&
	"$CCSIFT" score --repo repo --me bob@example.org --as-of @$t foo.eml >out &&
	test_grep "no history" out &&
	"$CCSIFT" score --repo repo --me bob@example.org --as-of @$((t + 1)) foo.eml >out &&
	test_grep "verdict: low" out
'

test_expect_success 'a bad --as-of is a clear error' '
	test_must_fail "$CCSIFT" score --repo repo --me bob@example.org --as-of yesterday foo.eml 2>err &&
	test_grep "bad date" err
'

test_expect_success 'being in To: is relevant' '
	test "$(verdict dave@example.org foo.eml)" = relevant &&
	sed "s/^To: .*/To: Carol Typo <carol@example.org>/" foo.eml >to.eml &&
	"$CCSIFT" score --repo repo --me carol@example.org --as-of $AS_OF to.eml >out &&
	test_grep "you are in To:" out
'

test_expect_success 'not on Cc: relevant, and the reason says so, not the odds' '
	"$CCSIFT" filter --repo repo --me bob@example.org --as-of $AS_OF <foo.eml >cc.out &&
	test_grep "^X-Ccsift: low" cc.out &&
	"$CCSIFT" filter --repo repo --me nobody-cc@example.org --as-of $AS_OF <foo.eml >none.out &&
	sed "/^Cc:/,/^[^ ]/{/^Cc:/d;/^ /d}" foo.eml >nocc.eml && ! grep -q "bob@example.org" nocc.eml &&
	"$CCSIFT" filter --repo repo --me bob@example.org --as-of $AS_OF <nocc.eml >nocc.out &&
	test_grep "^X-Ccsift: relevant" nocc.out &&
	test_grep "^X-Ccsift-Reason: you are not on Cc, so it is not demoted" nocc.out &&
	! grep -q "at or over" nocc.out
'

test_expect_success 'Fixes: naming the user'\''s commit is relevant' '
	carol=$(git -C repo log -1 --format=%h --author=carol@example.org) &&
	sed "s/^Fix it./Fix it.\n\nFixes: $carol (\"net: foo: fix typo in comment\")/" foo.eml >fixes.eml &&
	"$CCSIFT" score --repo repo --me carol@example.org --as-of $AS_OF fixes.eml >out &&
	test_grep "verdict: relevant" out && test_grep "names your commit" out
'

test_expect_success 'the user'\''s own patch, resent by another and Cc'\''d to them, is relevant' '
	test "$(verdict bob@example.org foo.eml)" = low &&
	sed "s/^Fix it.$/From: Bob Treewide <bob@example.org>\n\nFix it./" foo.eml >resent.eml &&
	"$CCSIFT" score --repo repo --me bob@example.org --as-of $AS_OF resent.eml >out &&
	test_grep "verdict: relevant" out && test_grep "you wrote this patch (bob@example.org)" out &&
	sed "s/^From: New Person .*/From: Bob Treewide <bob@example.org>/; s/^Fix it.$/From: New Person <new@example.org>\n\nFix it./" \
		foo.eml >sent.eml &&
	"$CCSIFT" score --repo repo --me bob@example.org --as-of $AS_OF sent.eml >out &&
	test_grep "verdict: relevant" out && test_grep "you sent this patch (bob@example.org)" out &&
	"$CCSIFT" score --repo repo --me carol@example.org --as-of $AS_OF resent.eml >out &&
	! grep -q "wrote this patch" out
'

test_expect_success 'a patch the user co-developed, sent by the other author, is relevant' '
	sed "s/^Signed-off-by: New Person/Co-developed-by: Bob Treewide <bob@example.org>\nSigned-off-by: Bob Treewide <bob@example.org>\n&/" \
		foo.eml >codev.eml &&
	"$CCSIFT" score --repo repo --me bob@example.org --as-of $AS_OF codev.eml >out &&
	test_grep "verdict: relevant" out && test_grep "you co-developed this patch (bob@example.org)" out &&
	"$CCSIFT" score --repo repo --me carol@example.org --as-of $AS_OF codev.eml >out &&
	test_grep "verdict: low" out &&
	sed "s/^Co-developed-by: .*/> &/" codev.eml >quoted.eml &&
	"$CCSIFT" score --repo repo --me bob@example.org --as-of $AS_OF quoted.eml >out &&
	test_grep "verdict: low" out
'

test_expect_success 'a mail that is not a patch is not-a-patch' '
	printf "From: a@example.org\nSubject: lunch?\n\nNoon?\n" >chat.eml &&
	"$CCSIFT" score --repo repo --me carol@example.org chat.eml >out &&
	test_grep "verdict: not-a-patch" out
'

test_expect_success 'per-path rules from the config: always and never' '
	mkdir -p "$XDG_CONFIG_HOME/ccsift" &&
	printf "[user]\nemail = carol@example.org\nnotmuch = false\n[repo test]\npath = %s\nalways = drivers/net/foo*\n" \
		"$PWD/repo" >"$XDG_CONFIG_HOME/ccsift/config" &&
	"$CCSIFT" score --as-of $AS_OF foo.eml >out &&
	test_grep "matches your rule always" out &&
	printf "[user]\nemail = alice@example.org\nnotmuch = false\n[repo test]\npath = %s\nnever = drivers/net/*\n" \
		"$PWD/repo" >"$XDG_CONFIG_HOME/ccsift/config" &&
	"$CCSIFT" score --as-of $AS_OF foo.eml >out &&
	test_grep "verdict: relevant" out && test_grep "no history" out &&
	rm "$XDG_CONFIG_HOME/ccsift/config"
'

test_expect_success 'a bad config names the file, line and key' '
	printf "[user]\nemail = a@example.org\nthreshold = high\n" >bad.conf &&
	test_must_fail "$CCSIFT" score --config bad.conf --repo repo foo.eml 2>err &&
	test_grep "bad.conf:3: \[user\] threshold" err
'

test_expect_success 'a config value loses the spaces around it, ref too' '
	printf "[user]\nemail = alice@example.org\nnotmuch = false\n[repo test]\npath = %s\nref = master \n" \
		"$PWD/repo" >spaces.conf &&
	"$CCSIFT" score --config spaces.conf --as-of $AS_OF foo.eml >out &&
	test_grep "verdict: relevant" out && test_grep "^repo: test" out
'

test_expect_success 'parse --repo: a repository that cannot be opened is an error, in one line' '
	"$CCSIFT" parse --repo repo foo.eml >out &&
	test_grep "^file: M drivers/net/foo.c$" out &&
	rc=0 && "$CCSIFT" parse --repo no-such-clone foo.eml >out 2>err || rc=$? &&
	test $rc = 1 && test_grep "^ccsift parse: cannot open repository no-such-clone" err &&
	test $(wc -l <err) = 1 && ! test -s out
'

test_expect_success 'filter has no --json: its help does not list it, and it is refused (75)' '
	"$CCSIFT" filter --help >help && test_grep "^  --config=FILE" help &&
	! grep -q -- --json help &&
	rc=0 && "$CCSIFT" filter --json <foo.eml >out 2>err || rc=$? &&
	test $rc = 75 && test_grep "Unknown option --json" err
'

test_expect_success 'explain id: without a notmuch database says so' '
	rc=0 && "$CCSIFT" explain --repo repo id:nothing@example.org >out 2>err || rc=$? &&
	test $rc = 1 && ! test -s out &&
	test_grep "^ccsift explain: \(cannot open the notmuch database: .\|cannot load libnotmuch\)" err
'

test_expect_success 'explain says it in sentences, with the commits' '
	"$CCSIFT" explain --repo repo --me bob@example.org --as-of $AS_OF foo.eml >out &&
	test_grep "^Low relevance: [0-9]*% likely that you engage, under \(your\|the repository.s\|the prior.s\) threshold [0-9]*%" out &&
	test_grep "^The model .*; what moved the score most:" out &&
	test_grep "^  - no review from you in the project in the last 90 days (-[0-9.]*)" out &&
	test_grep "You wrote [0-9a-f]* \"treewide: convert to new_api()\" (2024-01-15), a tree-wide change of 100 files" out &&
	"$CCSIFT" explain --repo repo --me stranger@example.org --as-of $AS_OF foo.eml >out &&
	test_grep "no history of yours on these files was found" out
'

test_expect_success 'explain: one line per commit, naming the files it touched among the patch'\''s' '
	{ sed -n "1,/^---\$/p" foo.eml && sed -n "/^diff --git/,/^-- \$/p" foo.eml | sed "/^-- \$/d" &&
	  sed -n "/^diff --git/,/^-- \$/p" foo.eml | sed "s,foo\.c,foo.h,g"; } >two.eml &&
	"$CCSIFT" explain --repo repo --me alice@example.org --as-of $AS_OF two.eml >out && cat out &&
	rev=$(git -C repo log -1 --format=%h --abbrev=12 --grep="revision B") &&
	test "$(grep -c "^  - You wrote $rev " out)" = 1 &&
	test_grep "^  - You wrote $rev .* touching drivers/net/foo.c and drivers/net/foo.h\. Weight" out &&
	test_grep "^Your history on the files it touches (6 commits):" out
'

test_expect_success 'explain: commits weighing nothing are counted, not listed, unless they are all' '
	"$CCSIFT" explain --repo repo --me alice@example.org --me bob@example.org --as-of $AS_OF two.eml >out &&
	! grep "treewide: convert" out &&
	test_grep "^  1 commit weighing under 0.01 (tree-wide, trivial or long ago) left out\.$" out &&
	test_grep "^Your history on the files it touches (7 commits):" out &&
	"$CCSIFT" explain --repo repo --me bob@example.org --as-of $AS_OF two.eml >out &&
	test_grep "^Your history on the files it touches (1 commit):" out &&
	test "$(grep -c "^  - You wrote .*treewide: convert" out)" = 1 &&
	! grep "left out" out
'

test_expect_success 'the counts in words are of commits: one that touched both files counts once' '
	"$CCSIFT" score --json --repo repo --me dave@example.org --as-of $AS_OF two.eml >json &&
	n=$(git -C repo log --format=%h --committer=dave@example.org --until=$AS_OF \
		-- drivers/net/foo.c drivers/net/foo.h | wc -l) &&
	test "$(git -C repo log --format=%h --committer=dave@example.org --until=$AS_OF \
		-- drivers/net/foo.h | wc -l)" -gt 0 &&
	python3 -c "import json; r=json.load(open(\"json\")); \
		f=next(f for f in r[\"features\"] if f[\"name\"] == \"applied\"); \
		assert f[\"count\"] == $n and f[\"words\"] == \"you applied $n of the patches to these files\", f"
'

test_expect_success 'patches applied, not reviewed, are not said to be reviews' '
	patch_mail drivers/net/foo.c | sed "s/^From: .*/From: Alice Substance <alice@example.org>/" >alice.eml &&
	since=$(date -u -d "$AS_OF - 365 days" +%Y-%m-%dT%H:%M:%SZ) &&
	n=$(git -C repo log --format=%h --author=alice@example.org --committer=dave@example.org \
		--since=$since --until=$AS_OF | wc -l) &&
	test "$n" -gt 0 &&
	! git -C repo log --format=%b | grep -q "^Reviewed-by: Dave" &&
	"$CCSIFT" score --json --repo repo --me dave@example.org --as-of $AS_OF alice.eml >json &&
	python3 -c "import json; r=json.load(open(\"json\")); \
		f=next(f for f in r[\"features\"] if f[\"name\"] == \"with_author\"); \
		assert f[\"words\"] == \"you reviewed, acked, tested or applied $n of Alice Substance\x27s patches in the last year\", f; \
		f=next(f for f in r[\"features\"] if f[\"name\"] == \"directory\"); \
		assert \"your reviews in\" not in f[\"words\"], f"
'

# The directory and area counts stop at 100 a person (core/score.c): a
# count that stopped there is said as the least it is, not as the count.
test_expect_success 'a count that stopped at its bound is said as "at least"' '
	git init -q busy && mkdir busy/net &&
	for i in $(seq 1 120); do
		echo $i >busy/net/a.c && git -C busy add net/a.c &&
		d=$(date -u -d "2024-01-01 + $i days" +%Y-%m-%dT%H:%M:%SZ) &&
		GIT_AUTHOR_DATE=$d GIT_COMMITTER_DATE=$d GIT_COMMITTER_EMAIL=dave@example.org \
			git -C busy commit -q -m "net: change $i" || exit 1
	done &&
	git -C busy format-patch -1 --stdout HEAD >busy.eml &&
	"$CCSIFT" index --repo busy --index busy.db >/dev/null &&
	"$CCSIFT" score --json --repo busy --index busy.db --me dave@example.org --as-of 2024-06-01T00:00:00Z busy.eml >json &&
	python3 -c "import json; r=json.load(open(\"json\")); \
		f={f[\"name\"]: f for f in r[\"features\"]}; \
		assert f[\"engaged_365\"][\"count\"] == 120, f; \
		assert f[\"directory\"][\"words\"].startswith(\"at least 100 of your \"), f; \
		assert f[\"area\"][\"words\"].startswith(\"at least 100 of your \"), f" &&
	"$CCSIFT" score --repo busy --index busy.db --me dave@example.org --as-of 2024-06-01T00:00:00Z busy.eml >out &&
	test_grep "^feature: directory=.*(at least 100 of your " out
'

test_expect_success 'a missing blob (partial clone) costs line counts, not the index' '
	git init -q partial &&
	printf "a\nb\nc\n" >partial/f.c && git -C partial add f.c &&
	GIT_AUTHOR_EMAIL=a@example.org GIT_AUTHOR_DATE=2025-01-01T00:00:00Z \
		GIT_COMMITTER_DATE=2025-01-01T00:00:00Z git -C partial commit -q -m one &&
	printf "a\nB\nc\nd\n" >partial/f.c &&
	GIT_AUTHOR_EMAIL=a@example.org GIT_AUTHOR_DATE=2025-02-01T00:00:00Z \
		GIT_COMMITTER_DATE=2025-02-01T00:00:00Z git -C partial commit -q -am two &&
	blob=$(git -C partial rev-parse HEAD:f.c) &&
	rm partial/.git/objects/$(echo $blob | cut -c1-2)/$(echo $blob | cut -c3-) &&
	"$CCSIFT" index --lines --repo partial --index partial.db >out &&
	test_grep "2 commits added" out &&
	patch_mail f.c >f.eml &&
	sed -i "s/^Cc: /Cc: a@example.org, /" f.eml &&
	"$CCSIFT" score --repo partial --index partial.db --me a@example.org --as-of $AS_OF --json f.eml >json &&
	python3 -c "import json; r=json.load(open(\"json\")); \
		lines = {e[\"subject\"]: (e[\"lines\"], e[\"substance\"]) for e in r[\"reasons\"]}; \
		assert lines[\"two\"] == (-1, 0.5), lines; assert lines[\"one\"] == (3, 0.3), lines"
'

test_expect_success 'filter and score never write to the index: no line is counted at delivery' '
	idx=$(ls "$XDG_CACHE_HOME"/ccsift/repo-*.db) &&
	counted() { sqlite3 "$idx" "SELECT count(*) FROM touches WHERE added >= 0"; } &&
	before=$(counted) && sum=$(sqlite3 "$idx" "SELECT count(*), sum(rowid) FROM commits") &&
	"$CCSIFT" filter --repo repo --me alice@example.org <foo.eml >/dev/null &&
	"$CCSIFT" score --repo repo --me carol@example.org --as-of $AS_OF foo.eml >/dev/null &&
	test "$(counted)" = "$before" &&
	test "$(sqlite3 "$idx" "SELECT count(*), sum(rowid) FROM commits")" = "$sum"
'

test_expect_success 'incremental update after new commits' '
	git -C repo -c user.name="Carol Typo" -c user.email=carol@example.org \
		commit -q --allow-empty -m "empty" &&
	echo "int more;" >>repo/drivers/net/foo.c &&
	git -C repo -c user.name="Carol Typo" -c user.email=carol@example.org \
		commit -q -am "net: foo: add more" &&
	"$CCSIFT" index --repo repo >out &&
	test_grep " 2 commits added" out &&
	"$CCSIFT" index --repo repo --status >status && test_grep "27 commits, " status
'

test_expect_success 'rewritten history is detected: new commits in, lost ones out' '
	git -C repo reset -q --hard HEAD~2 &&
	echo "int other;" >>repo/fs/bar/bar.c &&
	git -C repo -c user.name="Frank Fs" -c user.email=frank@example.org \
		commit -q -am "fs: bar: other" &&
	"$CCSIFT" index --repo repo >out &&
	test_grep "1 commits added, history rewritten, 2 pruned" out &&
	"$CCSIFT" index --repo repo --status >status && test_grep "26 commits, " status
'

test_expect_success 'an update after one that stopped before storing its tip' '
	db=$(ls "$XDG_CACHE_HOME"/ccsift/*.db) &&
	sqlite3 "$db" "UPDATE meta SET v = (SELECT oid FROM commits ORDER BY ctime LIMIT 1 OFFSET 5) WHERE k = '\''tip'\''" &&
	"$CCSIFT" index --repo repo >out &&
	test_grep " 0 commits added" out &&
	"$CCSIFT" index --repo repo --status >status && test_grep "26 commits, " status
'

test_expect_success 'the index is consistent after all that' '
	db=$(ls "$XDG_CACHE_HOME"/ccsift/*.db) &&
	test "$(sqlite3 "$db" "PRAGMA integrity_check")" = ok &&
	test "$(sqlite3 "$db" "SELECT count(*) FROM touches WHERE cid NOT IN (SELECT id FROM commits)")" = 0
'

# engagement_is_credits DB: the engagement table holds what the credits
# say, one row per person and commit they engaged with (1) or wrote (2),
# and covers every commit.
engagement_is_credits() {
	test "$(sqlite3 "$1" "SELECT v FROM meta WHERE k = 'engagement-cid'")" = \
	     "$(sqlite3 "$1" "SELECT max(id) FROM commits")" &&
	sqlite3 "$1" "SELECT r.person, c.ctime, r.cid, c.author,
		max(CASE WHEN r.role IN (2, 3, 4) OR (r.role = 1 AND c.author <> r.person) THEN 1 ELSE 0 END)
		| (max(r.role = 0) << 1) AS f FROM credits r JOIN commits c ON c.id = r.cid
		GROUP BY r.person, r.cid HAVING f <> 0 ORDER BY 1, 2, 3" >expect &&
	sqlite3 "$1" "SELECT person, ctime, cid, author, flags FROM engagement ORDER BY 1, 2, 3" >actual &&
	test -s actual && test_cmp expect actual
}

test_expect_success 'the engagement table is what credits say, after updates and a rewrite' '
	engagement_is_credits "$(ls "$XDG_CACHE_HOME"/ccsift/*.db)"
'

test_expect_success 'without the engagement table (an older index) the decision is the same' '
	db=$(ls "$XDG_CACHE_HOME"/ccsift/*.db) &&
	for me in alice@example.org bob@example.org carol@example.org; do
		"$CCSIFT" score --json --repo repo --me $me --as-of $AS_OF foo.eml >with-$me || return 1
	done &&
	sqlite3 "$db" "DELETE FROM meta WHERE k = '\''engagement-cid'\''" &&
	for me in alice@example.org bob@example.org carol@example.org; do
		"$CCSIFT" score --json --repo repo --me $me --as-of $AS_OF foo.eml >without-$me &&
		test_cmp with-$me without-$me || return 1
	done &&
	"$CCSIFT" index --repo repo >out &&
	test -n "$(sqlite3 "$db" "SELECT v FROM meta WHERE k = '\''engagement-cid'\''")"
'

test_expect_success 'the engagement table made anew, all at once, is what credits say' '
	engagement_is_credits "$(ls "$XDG_CACHE_HOME"/ccsift/*.db)"
'

test_done
