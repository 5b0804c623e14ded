#!/bin/bash
# One person, two addresses: Zoe reviews from work and applies from
# kernel.org, as many maintainers do, with no .mailmap to say so. Like
# get_maintainer.pl (which dedupes its list by name), ccsift takes everyone
# of one full name for one person: her history under both addresses is
# hers, a patch Cc's her once, and applying it under the other address is
# engaging with it. A one-word name ("Bob") says too little to join on,
# and a name of more addresses than anyone has ("Your Name") is no one.
. "$TEST_DIRECTORY/lib/test-lib.sh"
test_need git python3

AS_OF=2025-01-01T00:00:00Z

git init -q -b master repo
n=0
# commit AUTHOR-ID COMMITTER-ID FILE TRAILER...
commit() {
	local author=$1 committer=$2 file=$3 day
	shift 3
	n=$((n + 1))
	day=$(printf '2024-%02d-%02dT10:00:00Z' $(((n - 1) / 4 + 1)) $(((n - 1) % 4 * 7 + 1)))
	mkdir -p "repo/${file%/*}"
	printf 'line %d\n' "$n" >>"repo/$file"
	git -C repo add "$file"
	{
		printf 'change %d\n\n' "$n"
		printf '%s\n' "Signed-off-by: $author" "$@"
		[ "$committer" = "$author" ] || printf 'Signed-off-by: %s\n' "$committer"
	} >msg
	GIT_AUTHOR_NAME=${author% <*} GIT_AUTHOR_EMAIL=$(echo "$author" | sed 's/.*<\(.*\)>/\1/') \
	GIT_COMMITTER_NAME=${committer% <*} GIT_COMMITTER_EMAIL=$(echo "$committer" | sed 's/.*<\(.*\)>/\1/') \
	GIT_AUTHOR_DATE=$day GIT_COMMITTER_DATE=$day git -C repo commit -q -F ../msg
}

ANN='Ann Author <ann@example.org>'
BEN='Ben Builder <ben@example.org>'
ZOE_WORK='Zoe Maintainer <zoe@a-work.example>'
ZOE_ORG='Zoe Maintainer <zoe@kernel.org>'
BOB1='Bob <bob@one.example>'
BOB2='Bob <bob@two.example>'
for i in 1 2 3 4 5 6 7 8 9 10 11 12; do
	case $((i % 3)) in
	0) commit "$ANN" "$ZOE_ORG" drivers/z/z.c ;;                            # applied from kernel.org
	1) commit "$BEN" "$BEN" drivers/z/z.c "Reviewed-by: $ZOE_WORK" ;;       # reviewed from work
	2) commit "$BOB1" "$ZOE_ORG" drivers/z/z.c "Reviewed-by: $BOB2" ;;
	esac
done
commit "$BEN" "$BEN" lib/other.c
# git's placeholder, left in by 33 people: a name many share is no one
for i in $(seq 1 33); do
	commit "Your Name <you$i@example.org>" "Your Name <you$i@example.org>" lib/yours.c
done

cat >ann.eml <<'MAIL'
From: Ann Author <ann@example.org>
To: list@example.org
Cc: Zoe Maintainer <zoe@a-work.example>, Bob <bob@two.example>
Subject: [PATCH] z: one more line
Message-Id: <t0415.ann@example.org>

Signed-off-by: Ann Author <ann@example.org>
---
 drivers/z/z.c | 1 +
 1 file changed, 1 insertion(+)

diff --git a/drivers/z/z.c b/drivers/z/z.c
--- a/drivers/z/z.c
+++ b/drivers/z/z.c
@@ -1,1 +1,2 @@
 line 1
+line 99
-- 
2.39.5
MAIL

feature() { # feature JSON NAME: the count behind a feature
	python3 -c "import json, sys; r = json.load(open(sys.argv[1]))
print(next(int(f['count']) for f in r['features'] if f['name'] == sys.argv[2]))" "$1" "$2"
}

test_expect_success 'index the history' '
	"$CCSIFT" index --repo repo >out && test_grep "46 commits added" out
'

test_expect_success 'her work address has what she applied from kernel.org' '
	"$CCSIFT" score --json --repo repo --me zoe@a-work.example --as-of $AS_OF ann.eml >work.json &&
	test "$(feature work.json applied)" = 8 &&
	test "$(feature work.json reviewed)" = 4
'

test_expect_success 'either address scores as the same person' '
	"$CCSIFT" score --json --repo repo --me zoe@kernel.org --as-of $AS_OF ann.eml >org.json &&
	python3 -c "import json; a, b = (json.load(open(f)) for f in (\"work.json\", \"org.json\"))
assert (a[\"score\"], a[\"threshold\"], a[\"verdict\"]) == (b[\"score\"], b[\"threshold\"], b[\"verdict\"]), (a, b)"
'

test_expect_success 'a one-word name is not enough: bob@two has only his reviews' '
	"$CCSIFT" score --json --repo repo --me bob@two.example --as-of $AS_OF ann.eml >bob.json &&
	test "$(feature bob.json authored)" = 0 &&
	test "$(feature bob.json reviewed)" = 4
'

test_expect_success 'a name of more than 32 addresses is not one person' '
	"$CCSIFT" score --json --repo repo --me you1@example.org --as-of $AS_OF ann.eml >you.json &&
	test "$(feature you.json authored_365)" = 1
'

test_expect_success 'eval: Zoe is Cc'\''d once a case, and applying from kernel.org is engaging' '
	"$CCSIFT" eval --repo repo --since 2024-02-01 --until $AS_OF --sample 0 --json >eval.json &&
	git -C repo log --format="%H %ce" >committers &&
	python3 - eval.json committers <<-\EOF
	import collections, json, sys
	pairs = json.load(open(sys.argv[1]))["pairs"]
	committer = dict(line.split() for line in open(sys.argv[2]))
	zoe = collections.defaultdict(list)
	for p in pairs:
	    if p["email"].startswith("zoe@"):
	        zoe[p["commit"]].append(p)
	assert zoe, pairs
	across = 0
	for commit, ps in zoe.items():
	    assert len(ps) == 1, ps
	    if committer[commit] == "zoe@kernel.org":
	        assert ps[0]["engaged"], ps
	        across += ps[0]["email"] == "zoe@a-work.example"
	# in Cc at work, applied from kernel.org: engaged all the same
	assert across >= 2, zoe
	print(len(zoe), "cases Cc Zoe,", across, "at work for one she applied from kernel.org")
	EOF
'

# pam COMMIT-NAME EMAIL DAY FILE: a commit of hers to repo2, on 2025-03-DAY
pam() {
	mkdir -p "repo2/${4%/*}" && echo "$3" >>"repo2/$4" && git -C repo2 add "$4" &&
	GIT_AUTHOR_NAME=$1 GIT_AUTHOR_EMAIL=$2 GIT_COMMITTER_NAME=$1 GIT_COMMITTER_EMAIL=$2 \
	GIT_AUTHOR_DATE=2025-03-${3}T10:00:00Z GIT_COMMITTER_DATE=2025-03-${3}T10:00:00Z \
		git -C repo2 commit -q -m "change $3" -m "Signed-off-by: $1 <$2>"
}
name_of() { sqlite3 "$1" "SELECT name FROM people WHERE email = '$2'"; }

test_expect_success 'setup: Pam wrote p.c as "pjones", then works as Pam Jones; indexed' '
	git init -q -b master repo2 &&
	for d in 01 02 03 04 05 06; do pam pjones pam@example.org $d drivers/p/p.c || return 1; done &&
	pam "Pam Jones" pam@work.example 07 lib/l.c &&
	"$CCSIFT" index --repo repo2 --index inc.db >/dev/null &&
	test "$(name_of inc.db pam@example.org)" = pjones &&
	sed "s/^Cc: .*/Cc: Pam Jones <pam@work.example>/; s#drivers/z/z.c#drivers/p/p.c#g" ann.eml >pam.eml
'

test_expect_success 'her newest commit names her, in an update as from scratch' '
	pam "Pam Jones" pam@example.org 08 kernel/k.c &&
	"$CCSIFT" index --repo repo2 --index inc.db >/dev/null &&
	"$CCSIFT" index --repo repo2 --index fresh.db >/dev/null &&
	test "$(name_of fresh.db pam@example.org)" = "Pam Jones" &&
	test "$(name_of inc.db pam@example.org)" = "Pam Jones"
'

test_expect_success 'and her work address has her history on p.c, as on the fresh index' '
	"$CCSIFT" score --json --repo repo2 --index inc.db --me pam@work.example pam.eml >inc.json &&
	"$CCSIFT" score --json --repo repo2 --index fresh.db --me pam@work.example pam.eml >fresh.json &&
	test "$(feature fresh.json authored)" = 6 &&
	test_cmp fresh.json inc.json
'

test_expect_success 'an older name a later fetch brings (a branch merged late) does not rename her' '
	git -C repo2 checkout -q -b late HEAD~3 &&
	pam "P. J." pam@example.org 05 lib/late.c &&
	git -C repo2 checkout -q master &&
	GIT_COMMITTER_DATE=2025-03-09T10:00:00Z GIT_AUTHOR_DATE=2025-03-09T10:00:00Z \
		git -C repo2 merge -q --no-ff -m "Merge late" late &&
	"$CCSIFT" index --repo repo2 --index inc.db >/dev/null &&
	"$CCSIFT" index --repo repo2 --index fresh2.db >/dev/null &&
	test "$(name_of fresh2.db pam@example.org)" = "Pam Jones" &&
	test "$(name_of inc.db pam@example.org)" = "Pam Jones"
'

test_done
