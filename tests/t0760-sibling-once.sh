#!/bin/bash
# The sibling rule counts a commit once (tracker issue 13, item 6): history
# on files next to a new file counts at a discount, one piece of evidence
# per commit, however many of those siblings the commit touched, and
# whichever order the index returns the touches in.
#
# The history, built here: drv/ holds a.c, b.c and c.c. Sam wrote one
# commit touching a.c and b.c (different line counts) and one touching c.c
# only. A patch adding drv/new.c (no history of its own) is Cc'd to Sam:
# the sibling feature counts 2 commits, not 3, and each commit is one
# reason. Built in one go or in two steps (the paths then get other ids,
# the touches come back in another order), the index gives the same answer.

. "${TEST_DIRECTORY:=$(cd "$(dirname "$0")" && pwd)}/lib/test-lib.sh"

test_need git python3

# commit_at DATE NAME EMAIL SUBJECT: commit what is staged.
commit_at() {
	GIT_AUTHOR_DATE="$1" GIT_COMMITTER_DATE="$1" GIT_AUTHOR_NAME="$2" GIT_AUTHOR_EMAIL="$3" \
	GIT_COMMITTER_NAME="$2" GIT_COMMITTER_EMAIL="$3" git -C repo commit -q -m "$4"
}

# lines FILE N WORD: append N lines to FILE.
lines() { for i in $(seq "$2"); do echo "int $3_$i;" >>"repo/$1"; done; }

AS_OF=2025-06-01T00:00:00Z

test_expect_success 'setup: a history where one commit touches two siblings' '
	git init -q -b master repo &&
	mkdir -p repo/drv repo/other &&
	lines drv/a.c 20 a && lines drv/b.c 20 b && lines drv/c.c 20 c && lines other/x.c 20 x &&
	git -C repo add . && commit_at 2024-01-10T10:00:00Z "Olga Owner" olga@example.org "drv: add the driver" &&
	lines drv/a.c 3 a2 && lines drv/b.c 12 b2 &&
	git -C repo add . && commit_at 2024-06-10T10:00:00Z "Sam Sibling" sam@example.org "drv: share the ring helpers" &&
	git clone -q repo early &&
	lines drv/c.c 8 c2 &&
	git -C repo add . && commit_at 2024-09-10T10:00:00Z "Sam Sibling" sam@example.org "drv: c: tidy" &&
	lines other/x.c 5 x2 &&
	git -C repo add . && commit_at 2024-10-10T10:00:00Z "Olga Owner" olga@example.org "other: x: more" &&
	test "$(git -C repo log --author=sam@example.org --format=%H | wc -l)" = 2 &&
	test "$(git -C repo show --format= --name-only HEAD~2 | sort | tr "\n" " ")" = "drv/a.c drv/b.c "
'

test_expect_success 'setup: a patch adding drv/new.c, Cc Sam' '
	{
		printf "From: New Person <new@example.org>\nTo: Olga Owner <olga@example.org>\n" &&
		printf "Cc: Sam Sibling <sam@example.org>\nSubject: [PATCH] drv: add new\n" &&
		printf "Message-ID: <new@example.org>\nDate: Sun, 1 Jun 2025 00:00:00 +0000\n\n" &&
		printf "Add it.\n---\n" &&
		printf "diff --git a/drv/new.c b/drv/new.c\nnew file mode 100644\n--- /dev/null\n+++ b/drv/new.c\n@@ -0,0 +1 @@\n+int n;\n"
	} >new.eml
'

# sibling JSON: the sibling feature's count, and the oids of the sibling reasons.
cat >"$TRASH/sibling.py" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
f = [x for x in r["features"] if x["name"] == "sibling"]
assert len(f) == 1, r["features"]
reasons = [e for e in r["reasons"] if e["sibling"]]
print(int(f[0]["count"]), len(reasons), len({e["commit"] for e in reasons}))
EOF

test_expect_success 'score --json: the sibling feature counts each commit once' '
	"$CCSIFT_BIN" index --repo repo --index fresh.db >/dev/null &&
	"$CCSIFT_BIN" score --repo repo --index fresh.db --me sam@example.org --as-of $AS_OF --json new.eml >fresh.json &&
	python3 sibling.py fresh.json >counts &&
	echo "2 2 2" >expect &&
	test_cmp expect counts
'

test_expect_success '... with line counts too: the touch of most substance is the one kept' '
	"$CCSIFT_BIN" index --lines --repo repo --index lines.db >/dev/null &&
	"$CCSIFT_BIN" score --repo repo --index lines.db --me sam@example.org --as-of $AS_OF --json new.eml >lines.json &&
	python3 sibling.py lines.json >counts &&
	test_cmp expect counts &&
	python3 -c "
import json; r = json.load(open(\"lines.json\"))
vias = sorted(e[\"via\"] for e in r[\"reasons\"] if e[\"sibling\"])
assert vias == [\"drv/b.c\", \"drv/c.c\"], vias"
'

test_expect_success 'the same answer from an index built in two steps (other path ids, other order)' '
	"$CCSIFT_BIN" index --repo early --index steps.db >/dev/null &&
	git -C early pull -q &&
	"$CCSIFT_BIN" index --repo early --index steps.db >/dev/null &&
	"$CCSIFT_BIN" score --repo early --index steps.db --me sam@example.org --as-of $AS_OF --json new.eml >steps.json &&
	python3 -c "
import json, sys
a, b = (json.load(open(f)) for f in (\"fresh.json\", \"steps.json\"))
for r in (a, b):
    r.pop(\"repo\", None)
assert a == b, (a, b)"
'

test_done
