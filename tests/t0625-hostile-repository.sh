#!/bin/bash
# A repository someone else prepared: whoever owns the clone chooses its
# commits' dates, its trailers' bytes and what sits in its git directory.
#  - one wrong clock (a commit dated 9999, a tip dated 1970 or at the end
#    of time) does not move the time every verdict is measured from;
#  - names from the history print as one line each, without escapes; a
#    commit credits at most 1000 people;
#  - a ".git" or an alternates file that is /dev/zero or a FIFO, a config
#    that includes a FIFO: one line on stderr, no hang, no gigabytes; a
#    tip libgit2 cannot parse: its reason, in one line;
#  - the replay of a commit of 300,000 files is not quadratic in them; the
#    lines of a rewrite of two million are not counted.
. "${TEST_DIRECTORY:=$(cd "$(dirname "$0")" && pwd)}/lib/test-lib.sh"

test_need git python3 sqlite3

# history DIR: six changes to drivers/foo.c, each reviewed by Rita, a day apart
history() {
	local t=1700000000
	git init -q -b main "$1" && mkdir "$1/drivers" || return 1
	for i in 1 2 3 4 5 6; do
		t=$((t + 86400))
		echo "$i" >"$1/drivers/foo.c" && git -C "$1" add -A &&
		GIT_AUTHOR_DATE="@$t +0000" GIT_COMMITTER_DATE="@$t +0000" GIT_AUTHOR_NAME=Alice \
			GIT_AUTHOR_EMAIL=alice@example.org git -C "$1" commit -q -m "drivers: change $i" \
			-m "Reviewed-by: Rita Review <rita@example.org>" || return 1
	done
}

# tip_dated DIR DATE: a last commit to the file, committed at DATE (raw seconds)
tip_dated() {
	local c
	echo tip >"$1/drivers/foo.c" && git -C "$1" add -A &&
	c=$(printf 'tree %s\nparent %s\nauthor Tip <tip@example.org> 1700700000 +0000\ncommitter Tip <tip@example.org> %s +0000\n\ntip\n' \
		"$(git -C "$1" write-tree)" "$(git -C "$1" rev-parse HEAD)" "$2" |
		git -C "$1" hash-object -w -t commit --stdin) &&
	git -C "$1" update-ref refs/heads/main "$c"
}

# one_line FILE: a single line, no more
one_line() { test "$(wc -l <"$1")" = 1; }

# verdict DIR: Rita's verdict and score on the patch, as one line
verdict() {
	"$CCSIFT_BIN" index --repo "$1" --index "$1.db" >/dev/null &&
	"$CCSIFT_BIN" score --repo "$1" --index "$1.db" --me rita@example.org patch.eml >"$1.out" &&
	sed -n 's/^verdict: \([a-z]*; score=[0-9.]*\).*/\1/p' "$1.out"
}

cat >patch.eml <<'EOF'
From: New Person <new@example.org>
To: Dave <dave@example.org>
Cc: Rita Review <rita@example.org>
Subject: [PATCH] drivers: fix foo
Message-Id: <hostile-repo@example.org>

Fix.

Signed-off-by: New Person <new@example.org>
---
diff --git a/drivers/foo.c b/drivers/foo.c
--- a/drivers/foo.c
+++ b/drivers/foo.c
@@ -1 +1 @@
-6
+7
EOF

test_expect_success 'setup: a history where Rita reviewed every change to the file' '
	history plain && tip_dated plain 1700700000 &&
	verdict plain >expect &&
	test_grep "^relevant; score=" expect
'

# merged DIR SIDE-DATE: the history, and a side branch's commit committed
# at SIDE-DATE merged at the tip, the merge correctly dated
merged() {
	history "$1" &&
	git -C "$1" checkout -q -b side HEAD~3 && echo s >"$1/drivers/bar.c" && git -C "$1" add -A &&
	GIT_AUTHOR_DATE="@1700100000 +0000" GIT_COMMITTER_DATE="@$2 +0000" \
		git -C "$1" commit -q -m "drivers: bar" &&
	git -C "$1" checkout -q main &&
	GIT_AUTHOR_DATE="@1700700000 +0000" GIT_COMMITTER_DATE="@1700700000 +0000" \
		git -C "$1" merge -q --no-edit side
}

test_expect_success 'a side commit dated 9999, merged at the tip, does not move the time' '
	merged merged 1700100000 && merged merged9999 253402300799 &&
	verdict merged >expect.merged && verdict merged9999 >actual &&
	test_grep "^relevant; score=" expect.merged &&
	test_cmp expect.merged actual
'

for date in 1 9223372036854775807; do
	test_expect_success "a tip committed at $date hides no history" '
		history tip$date && tip_dated tip$date $date &&
		verdict tip$date >actual &&
		test_grep "^relevant; score=" actual &&
		"$CCSIFT_BIN" explain --repo tip$date --index tip$date.db --me rita@example.org patch.eml >explain &&
		test "$(grep -c "You reviewed" explain)" = 6
	'
done

test_expect_success 'a tip libgit2 cannot parse: its reason in one line, not a missing ref' '
	history unparsed && tip_dated unparsed 99999999999999999999 &&
	test_must_fail "$CCSIFT_BIN" index --repo unparsed --index unparsed.db 2>err &&
	one_line err &&
	test_grep "cannot resolve HEAD: failed to parse" err &&
	! grep "names no commit" err
'

test_expect_success 'a folded trailer is one name; who prints a line a person, no escapes' '
	history names &&
	echo b >names/drivers/foo.c && git -C names add -A &&
	printf "fold\n\nReviewed-by: Evil\n  Person <evil@example.org>\n" >msg &&
	GIT_AUTHOR_NAME="$(printf "Auth\033]0;pwned\007or\033[2J")" GIT_AUTHOR_EMAIL=auth@example.org \
		git -C names commit -q -F ../msg &&
	"$CCSIFT_BIN" index --repo names --index names.db >/dev/null &&
	"$CCSIFT_BIN" who --repo names --index names.db --cc patch.eml >cc &&
	"$CCSIFT_BIN" who --repo names --index names.db patch.eml >who &&
	test_grep "^Evil Person <evil@example.org>$" cc &&
	test "$(grep -c . cc)" = "$(grep -c "<.*@.*>" cc)" &&
	! LC_ALL=C grep -q "$(printf "\033")" cc who
'

test_expect_success 'a commit of 5000 reviewers credits the first 1000' '
	history many &&
	echo m >many/drivers/foo.c && git -C many add -A &&
	{ echo many && echo && seq 5000 | sed "s/.*/Reviewed-by: R& <r&@example.org>/"; } >msg &&
	git -C many commit -q -F ../msg &&
	"$CCSIFT_BIN" index --repo many --index many.db >/dev/null &&
	test "$(sqlite3 many.db "SELECT count(*) FROM credits r JOIN commits c ON c.id = r.cid
		WHERE c.subject = '\''many'\'' AND r.role = 2")" = 1000
'

test_expect_success 'a .git that is /dev/zero: unknown, one line, a few MB' '
	mkdir zero && ln -s /dev/zero zero/.git &&
	printf "%s\n" "[user]" "email = rita@example.org" "notmuch = false" "[repo z]" "path = $TRASH/zero" \
		"index = $TRASH/zero.db" >zero.conf &&
	python3 -c "
import resource, subprocess, sys
with open(\"patch.eml\", \"rb\") as f:
    p = subprocess.run([sys.argv[1], \"filter\", \"--config\", \"zero.conf\"], stdin=f,
                       stdout=open(\"zero.out\", \"wb\"), stderr=open(\"zero.err\", \"wb\"), timeout=600)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, p.returncode)" "$CCSIFT_BIN" >rss &&
	read -r kb rc <rss &&
	test "$rc" = 0 && test "$kb" -lt 204800 &&
	test_grep "^X-Ccsift: unknown" zero.out &&
	one_line zero.err
'

test_expect_success 'alternates that are /dev/zero or a FIFO: refused in one line, no hang' '
	history alt && cp -r alt alt-fifo &&
	ln -s /dev/zero alt/.git/objects/info/alternates &&
	test_must_fail timeout 300 "$CCSIFT_BIN" index --repo alt --index alt.db 2>err &&
	one_line err && test_grep "alternates is not a regular file" err &&
	mkfifo alt-fifo/.git/objects/info/alternates &&
	test_must_fail timeout 300 "$CCSIFT_BIN" index --repo alt-fifo --index alt-fifo.db 2>err &&
	one_line err && test_grep "alternates is not a regular file" err
'

test_expect_success 'a config that includes a FIFO: refused in one line, no hang' '
	history inc &&
	"$CCSIFT_BIN" index --repo inc --index inc.db >/dev/null &&
	mkfifo inc/.git/pipe && printf "[include]\n\tpath = pipe\n" >>inc/.git/config &&
	for cmd in "index" "index --status" "score --me rita@example.org patch.eml" "eval --sample 0"; do
		test_must_fail timeout 300 "$CCSIFT_BIN" $cmd --repo inc --index inc.db 2>err &&
		one_line err && test_grep "pipe is not a regular file" err || return 1
	done &&
	sed "/^\[include\]/,\$d" inc/.git/config >config.new &&
	printf "[includeIf \"gitdir:/\"]\n\tpath = %s\n" "$TRASH/inc/.git/pipe" >>config.new &&
	mv config.new inc/.git/config &&
	test_must_fail timeout 300 "$CCSIFT_BIN" index --repo inc --index inc.db 2>err &&
	test_grep "pipe is not a regular file" err
'

test_expect_success 'an include hidden by git'\''s syntax, or a loose ref that is a FIFO: refused' '
	for value in "pipe ; comment" "pipe # comment" "pi\"pe\"" "\"pipe\" ; x"; do
		rm -rf hid && history hid && mkfifo hid/.git/pipe &&
		printf "[include]\n\tpath = %s\n" "$value" >>hid/.git/config &&
		test_must_fail timeout 300 "$CCSIFT_BIN" index --repo hid --index hid.db 2>err &&
		one_line err && test_grep "pipe is not a regular file" err || return 1
	done &&
	history ref && git -C ref pack-refs --all && rm -f ref/.git/refs/heads/main && mkfifo ref/.git/refs/heads/main &&
	test_must_fail timeout 300 "$CCSIFT_BIN" index --repo ref --index ref.db 2>err &&
	one_line err && test_grep "refs/heads/main is not a regular file" err
'

test_expect_success 'a config including itself, alternates naming their own store: checked once each' '
	history self && cp -r self self-alt &&
	for i in 1 2 3 4 5 6 7 8 9 10; do printf "[include]\n\tpath = config\n"; done >>self/.git/config &&
	test_must_fail timeout 300 "$CCSIFT_BIN" index --repo self --index self.db 2>err &&
	one_line err && test_grep "include depth" err &&
	for i in $(seq 60); do echo "$TRASH/self-alt/.git/objects"; done >self-alt/.git/objects/info/alternates &&
	timeout 300 "$CCSIFT_BIN" index --repo self-alt --index self-alt.db >/dev/null
'

test_expect_success 'include.path = /dev/null is read as git reads it: nothing' '
	history devnull && git -C devnull config include.path /dev/null &&
	"$CCSIFT_BIN" index --repo devnull --index devnull.db >/dev/null
'

# The diff of two blobs holds some 135 bytes a line: a rewrite of two
# million short lines took 540 MB and 35 s to count. (Not under a
# sanitizer, whose shadow memory is not the diff's.)
[ "${CCSIFT_SANITIZED:-0}" = 1 ] ||
test_expect_success 'a rewrite of two million lines is not counted, and costs little' '
	history long &&
	python3 -c "import sys; sys.stdout.write(\"\".join(\"%x\\n\" % (i * 7919 % 65536) for i in range(2000000)))" \
		>long/drivers/long.c &&
	git -C long add -A && git -C long commit -q -m "drivers: long" &&
	python3 -c "import sys; sys.stdout.write(\"\".join(\"%x\\n\" % (i * 104729 % 65536) for i in range(2000000)))" \
		>long/drivers/long.c &&
	git -C long commit -q -am "drivers: long, rewritten" &&
	python3 -c "
import resource, subprocess, sys
subprocess.run([sys.argv[1], \"index\", \"--lines\", \"--repo\", \"long\", \"--index\", \"long.db\"],
               stdout=subprocess.DEVNULL, check=True, timeout=600)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)" "$CCSIFT_BIN" >rss &&
	test "$(cat rss)" -lt 204800 &&
	test "$(sqlite3 long.db "SELECT count(*) FROM touches t JOIN commits c ON c.id = t.cid
		WHERE c.subject = '\''drivers: long, rewritten'\'' AND t.added IS NULL")" = 1 &&
	test "$(sqlite3 long.db "SELECT count(*) FROM touches WHERE added IS NOT NULL")" -gt 5
'

# Quadratic in the files, the replay of a commit of 200,000 took 3 minutes,
# of 300,000 some 7; linear, 4 s. (Not under a sanitizer, whose build
# spends a minute on what the plain build checks.)
[ "${CCSIFT_SANITIZED:-0}" = 1 ] ||
test_expect_success 'a commit of 300,000 files replays in linear time' '
	git init -q -b main wide &&
	python3 -c "
import sys
w = sys.stdout.write
w(\"blob\\nmark :1\\ndata 2\\na\\nblob\\nmark :2\\ndata 2\\nb\\n\")
w(\"commit refs/heads/main\\ncommitter Bob <bob@example.org> 1700000000 +0000\\ndata 4\\nadd\\n\")
w(\"\".join(\"M 100644 :1 d%d/f%d.c\\n\" % (i % 1000, i) for i in range(300000)) + \"\\n\")
w(\"commit refs/heads/main\\ncommitter Alice <alice@example.org> 1700000060 +0000\\n\")
w(\"data <<E\\nall of them\\n\\nReviewed-by: Rita <rita@example.org>\\nE\\n\")
w(\"\".join(\"M 100644 :2 d%d/f%d.c\\n\" % (i % 1000, i) for i in range(300000)) + \"\\n\")
" | git -C wide fast-import --quiet &&
	"$CCSIFT_BIN" index --repo wide --index wide.db >/dev/null &&
	timeout 150 "$CCSIFT_BIN" eval --repo wide --index wide.db --sample 0 --json >wide.json &&
	python3 -c "import json; assert json.load(open(\"wide.json\"))[\"cases\"] == 1"
'

test_done
