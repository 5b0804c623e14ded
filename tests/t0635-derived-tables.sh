#!/bin/bash
# What ccsift index derives for the delivery path (index.c: hot_paths,
# hot_credits, engaged_dirs, maintainers-resolved, person_year and its kin) changes no verdict,
# score, feature or piece of evidence: `ccsift explain --json` reads the
# same from an index with them as from a copy whose marks are dropped (the
# readers then walk every touch, count from the engagement table and parse
# MAINTAINERS asking the index about directories), after a first build and
# after an incremental update, for several people and as of other dates.

. "${TEST_DIRECTORY:=$(cd "$(dirname "$0")" && pwd)}/lib/test-lib.sh"

test_need git sqlite3

# history N FIRST: N commits on main from day FIRST, fast-imported: every
# commit touches drivers/net/hot.c (a hot file: 200+ touches) and
# drivers/net/hot2.c (renamed from drivers/net/old2.c at commit 10), every
# 5th lib/util.c; authors and trailers rotate among five people (Dave
# under two addresses); subjects
# of three areas ("net:", "net/core:" and "lib:").
history() {
	local n=$1 first=$2 i day who rev comm
	local people=("Carol Cc <carol@example.org>" "Dave Dev <dave@example.org>"
		      "Erin Eng <erin@example.org>" "Frank Fix <frank@example.org>"
		      "Gina Git <gina@example.org>")
	for i in $(seq "$first" $((first + n - 1))); do
		day=$((1672531200 + i * 86400))
		who=${people[$((i % 5))]}
		comm=${people[$(((i / 3) % 5))]}
		# Dave commits from a second address of his name every other time:
		# one person (namesakes), two rows of a commit he wrote and applied
		[ "$comm" = "Dave Dev <dave@example.org>" ] && [ $((i % 2)) = 0 ] && comm="Dave Dev <dave@kernel.org>"
		subject="net: change $i"
		[ $((i % 4)) = 0 ] && subject="net/core: change $i"
		[ $((i % 6)) = 0 ] && subject="lib: change $i"
		msg="$subject"$'\n\n'"Body $i."$'\n\n'"Signed-off-by: $who"
		[ $((i % 3)) = 0 ] && msg+=$'\n'"Reviewed-by: ${people[$(((i + 1) % 5))]}"
		[ $((i % 7)) = 0 ] && msg+=$'\n'"Acked-by: ${people[$(((i + 2) % 5))]}"
		[ $((i % 11)) = 0 ] && msg+=$'\n'"Tested-by: ${people[$(((i + 3) % 5))]}"
		printf 'commit refs/heads/main\nauthor %s %d +0000\ncommitter %s %d +0000\ndata %d\n%s\n' \
			"$who" "$day" "$comm" "$day" "${#msg}" "$msg"
		[ "$i" = "$first" ] && [ "$first" != 0 ] && printf 'from refs/heads/main^0\n'
		rev="int hot_$i(void);"
		printf 'M 100644 inline drivers/net/hot.c\ndata %d\n%s\n' "${#rev}" "$rev"
		if [ "$i" = 0 ]; then
			printf 'M 100644 inline MAINTAINERS\ndata <<EOT\nNETWORKING\nM:\tDave Dev <dave@example.org>\nR:\tErin Eng <erin@example.org>\nF:\tdrivers/net\n\nLIBRARY\nM:\tGina Git <gina@example.org>\nF:\tlib\nN:\tutil\\\\.c$\n\nEOT\n'
			printf 'M 100644 inline drivers/net/old2.c\ndata 4\nold\n'
		fi
		if [ "$i" = 10 ]; then
			printf 'R drivers/net/old2.c drivers/net/hot2.c\n'
		elif [ "$i" != 0 ]; then
			printf 'M 100644 inline drivers/net/%s.c\ndata %d\n%s\n' "$([ "$i" -lt 10 ] && echo old2 || echo hot2)" "${#rev}" "$rev"
		fi
		[ $((i % 5)) = 0 ] && printf 'M 100644 inline lib/util.c\ndata %d\n%s\n' "${#rev}" "$rev"
		echo
	done
}

# fallback SRC DST: a copy of SRC whose readers cannot use what was derived.
fallback() {
	cp "$1" "$2" &&
	sqlite3 "$2" "DELETE FROM meta WHERE k IN ('hot-credits-cid', 'hot-totals', 'engaged-dirs-cid', 'maintainers-resolved', 'maintainers-sections', 'person-year-area')"
}

# same A B: explain --json of the mail reads the same from indexes A and B,
# for each person, now and as of two earlier dates.
same() {
	local me asof
	for me in carol@example.org dave@example.org erin@example.org gina@example.org; do
		for asof in "" 2023-05-01 2023-08-20; do
			"$CCSIFT_BIN" explain --json --repo repo --index "$1" --me "$me" ${asof:+--as-of $asof} mail.eml >a.json &&
			"$CCSIFT_BIN" explain --json --repo repo --index "$2" --me "$me" ${asof:+--as-of $asof} mail.eml >b.json &&
			grep -q '"verdict"' a.json &&
			cmp a.json b.json || { echo "differ for $me ${asof:-now}" >&2; diff a.json b.json | head >&2; return 1; }
		done
	done
}

test_expect_success 'setup: a history with hot files, a mail, an index' '
	git init -q --bare repo &&
	git -C repo symbolic-ref HEAD refs/heads/main &&
	history 230 0 | git -C repo fast-import --quiet &&
	git clone -q repo work &&
	echo "int more(void);" >>work/drivers/net/hot.c &&
	echo "int more(void);" >>work/drivers/net/hot2.c &&
	mkdir -p work/lib && echo "int fresh(void);" >work/lib/fresh.c &&
	git -C work add -A &&
	git -C work -c user.name="Hugo Sender" -c user.email=hugo@example.org commit -qm "net: more" &&
	git -C work format-patch -1 --stdout |
		sed "2i To: list@example.org\nCc: Carol Cc <carol@example.org>, Dave Dev <dave@example.org>, Erin Eng <erin@example.org>, Gina Git <gina@example.org>" >mail.eml &&
	"$CCSIFT_BIN" index --repo repo --index a.db >/dev/null
'

test_expect_success 'the hot files are derived; the renamed one is marked' '
	sqlite3 a.db "SELECT p.path, h.commits, h.renames FROM hot_paths h JOIN paths p ON p.id = h.path ORDER BY p.path" >hot &&
	cat hot &&
	grep -qx "drivers/net/hot.c|230|0" hot &&
	grep -q "^drivers/net/hot2.c|[0-9]*|1$" hot &&
	test "$(sqlite3 a.db "SELECT count(*) FROM hot_credits")" -gt 230 &&
	test "$(sqlite3 a.db "SELECT count(*) FROM engaged_dirs")" -gt 0 &&
	sqlite3 a.db "SELECT v FROM meta WHERE k = '\''maintainers-resolved'\''" | grep -qx "F:	drivers/net/" &&
	test "$(sqlite3 a.db "SELECT count(*) FROM person_year")" = 6 &&
	sqlite3 a.db "SELECT DISTINCT area FROM person_area_year ORDER BY 1" >areas &&
	printf "%s\n" lib net >expect && test_cmp expect areas
'

test_expect_success 'the same evidence, features and verdicts without them' '
	fallback a.db b.db &&
	same a.db b.db
'

test_expect_success 'the sums and counts are read from the index (a changed one shows)' '
	cp a.db c.db &&
	sqlite3 c.db "UPDATE hot_paths SET total = total * 2" &&
	"$CCSIFT_BIN" explain --json --repo repo --index a.db --me carol@example.org mail.eml >a.json &&
	"$CCSIFT_BIN" explain --json --repo repo --index c.db --me carol@example.org mail.eml >c.json &&
	! cmp -s a.json c.json &&
	cp a.db y.db &&
	sqlite3 y.db "UPDATE person_year SET engaged = engaged + 50" &&
	"$CCSIFT_BIN" explain --json --repo repo --index y.db --me carol@example.org mail.eml >y.json &&
	! cmp -s a.json y.json &&
	cp a.db z.db &&
	sqlite3 z.db "UPDATE person_area_year SET n = 0" &&
	"$CCSIFT_BIN" explain --json --repo repo --index z.db --me carol@example.org mail.eml >z.json &&
	! cmp -s a.json z.json
'

# (Not against a fresh build of the same history: the walk adds in the
# order of commit row ids, which is the order they were indexed in.)
test_expect_success 'after an incremental update and in a fresh build: the same as the walk' '
	history 30 230 | git -C repo fast-import --quiet &&
	# the marks of an older ccsift go when the tables are made again, and
	# its hot_touches (five more columns) with its mark
	sqlite3 a.db "INSERT INTO meta(k, v) VALUES ('\''person-year'\'', '\''1 1'\'')" &&
	sqlite3 a.db "CREATE TABLE hot_touches(path, person, cid, oid, subject)" &&
	sqlite3 a.db "UPDATE meta SET k = '\''hot-touches-cid'\'' WHERE k = '\''hot-credits-cid'\''" &&
	"$CCSIFT_BIN" index --repo repo --index a.db >out && grep "30 commits added" out &&
	test -z "$(sqlite3 a.db "SELECT v FROM meta WHERE k IN ('\''person-year'\'', '\''hot-touches-cid'\'')")" &&
	test -z "$(sqlite3 a.db "SELECT name FROM sqlite_master WHERE name = '\''hot_touches'\''")" &&
	test "$(sqlite3 a.db "SELECT v FROM meta WHERE k = '\''hot-credits-cid'\''")" = 260 &&
	fallback a.db e.db &&
	same a.db e.db &&
	"$CCSIFT_BIN" index --repo repo --index d.db >/dev/null &&
	fallback d.db f.db &&
	same d.db f.db &&
	sqlite3 a.db "SELECT p.path, h.commits FROM hot_paths h JOIN paths p ON p.id = h.path" | grep -qx "drivers/net/hot.c|260"
'

# A first build leaves out of engaged_dirs what no delivery or fit asks
# about (more than four years before the tip); an older count walks the
# engagements, as an index without the table does.
test_expect_success 'engaged_dirs from four years before the tip; older counts the same' '
	tip=$(sqlite3 d.db "SELECT ctime FROM commits WHERE oid = (SELECT v FROM meta WHERE k = '\''tip'\'')") &&
	test "$(sqlite3 d.db "SELECT v FROM meta WHERE k = '\''engaged-dirs-since'\''")" = $((tip - 4 * 365 * 86400)) &&
	# as a history longer than that has it: rows from day 200 on
	since=$((1672531200 + 200 * 86400)) &&
	cp d.db g.db &&
	sqlite3 g.db "DELETE FROM engaged_dirs WHERE ctime < $since;
		      UPDATE meta SET v = $since WHERE k = '\''engaged-dirs-since'\''" &&
	same d.db g.db &&
	# (the rows left out do count: read as if all were there, they differ)
	sqlite3 g.db "DELETE FROM meta WHERE k = '\''engaged-dirs-since'\''" &&
	! same d.db g.db 2>/dev/null
'

test_done
