#!/bin/bash
# A delivery reads the index while `ccsift index` (or the catch-up) changes
# it. Once the index has commits, an update is one transaction, the fit of
# its newest period included: a delivery sees the history and fits as they
# were or as they are, never a rewritten history half pruned, nor one whose
# fits were dropped and not yet made again (it would decide by the prior's
# weights and threshold, a verdict of neither). Counted in the WAL: every
# transaction an update commits stays there while a reader holds the state
# from before it (lib/wal-commits.py).

. "${TEST_DIRECTORY:=$(cd "$(dirname "$0")" && pwd)}/lib/test-lib.sh"

test_need git sqlite3 python3

ASOF=2025-06-01T00:00:00Z
P="$TEST_DIRECTORY/lib/rx-budget.eml"
# commits_of CMD...: how many transactions CMD committed to the index.
commits_of() {
	python3 "$TEST_DIRECTORY/lib/wal-commits.py" index.db -- "$@" >count 2>err || { cat err >&2; return 1; }
	tail -1 count
}
# carol N DATE: Carol's Nth commit to foo.c, made on DATE.
carol() {
	printf 'int carol_%d(void) { return %d; }\n' "$1" "$1" >>repo/drivers/net/foo.c &&
	GIT_AUTHOR_NAME="Carol Typo" GIT_AUTHOR_EMAIL=carol@example.org GIT_AUTHOR_DATE="$2" \
	GIT_COMMITTER_NAME="Carol Typo" GIT_COMMITTER_EMAIL=carol@example.org GIT_COMMITTER_DATE="$2" \
		git -C repo commit -qam "net: foo: carol, part $1"
}
# verdict INDEX: Carol's verdict on the patch, by that index.
verdict() {
	"$CCSIFT_BIN" filter --repo repo --index "$1" --as-of $ASOF --me carol@example.org <"$P" |
		grep -a -m1 "^X-Ccsift:"
}
index() { "$CCSIFT_BIN" index --repo repo --index "$@"; }
# update: how many transactions `ccsift index` committed to index.db.
update() { commits_of "$CCSIFT_BIN" index --repo repo --index index.db; }

test_expect_success 'setup: the history, two more commits of Carol on top, the index' '
	bash "$TEST_DIRECTORY/lib/make-history.sh" repo >/dev/null &&
	git -C repo rev-parse HEAD >base &&
	carol 1 2025-05-01T10:00:00Z && carol 2 2025-05-02T10:00:00Z &&
	index index.db >/dev/null &&
	test "$(sqlite3 index.db "SELECT count(*) FROM fits")" -gt 0
'

test_expect_success 'an update that finds nothing new is one transaction' '
	n=$(update) && echo "$n" >nothing &&
	test "$n" = 1
'

test_expect_success 'a history rewritten back: pruned, the fit made again, as one change' '
	git -C repo reset -q --hard "$(cat base)" &&
	n=$(update) && cat count &&
	grep "history rewritten, 2 pruned" count &&
	grep "the relevance model fitted" count &&
	test "$n" = 1 &&
	test "$(sqlite3 index.db "SELECT count(*) FROM fits")" -gt 0 &&
	index fresh.db >/dev/null &&
	verdict index.db >got && verdict fresh.db >want && cat got want &&
	test_cmp want got
'

test_expect_success 'a rebased history: the new commits in and the old pruned, as one change' '
	carol 1 2025-05-03T10:00:00Z && carol 2 2025-05-04T10:00:00Z &&
	index index.db >/dev/null &&
	git -C repo reset -q --hard "$(cat base)" &&
	carol 3 2025-05-05T10:00:00Z && carol 4 2025-05-06T10:00:00Z &&
	n=$(update) && cat count &&
	grep "2 commits added, history rewritten, 2 pruned" count &&
	test "$n" = 1 &&
	rm -f fresh.db* && index fresh.db >/dev/null &&
	verdict index.db >got && verdict fresh.db >want && cat got want &&
	test_cmp want got
'

test_expect_success 'a fetch into a new period: its commits and its fit, as one change' '
	carol 5 2026-02-01T10:00:00Z &&
	n=$(update) && cat count &&
	grep "1 commits added" count && grep "the relevance model fitted" count &&
	test "$n" = 1
'

test_expect_success 'a new .mailmap: every commit read again and the fits made again, as one change' '
	echo "Carol Typo <carol@example.org> <carol-old@example.org>" >>repo/.mailmap &&
	GIT_AUTHOR_DATE=2026-02-15T10:00:00Z GIT_COMMITTER_DATE=2026-02-15T10:00:00Z \
		git -C repo commit -qam "mailmap: Carol" &&
	n=$(update) && cat count &&
	grep "the relevance model fitted" count &&
	test "$n" = 1
'

# The fit inside the update replays its cases on the index being written:
# a replay on another connection would see it as it was (the fit used to
# replay on two threads, the second with a connection of its own).
test_expect_success 'the fit an update makes is the one a fresh index makes' '
	fit_pairs() {
		sqlite3 "$1" "SELECT f.until, p.email, round(f.logit, 6), f.engaged, f.demotable
			FROM fit_pairs f LEFT JOIN people p ON p.id = f.person ORDER BY 1, 2, 3, 4, 5"
	} &&
	echo "Carol Typo <carol@example.org> <dave@example.org>" >>repo/.mailmap &&
	GIT_COMMITTER_DATE=2026-03-01T10:00:00Z git -C repo commit -qam "mailmap: dave is carol" &&
	rm -f fresh.db* && index fresh.db >/dev/null && fit_pairs fresh.db >want &&
	test "$(wc -l <want)" -gt 10 &&
	for round in 1 2 3; do
		rm -f upd.db* &&
		git -C repo checkout -q HEAD~1 && index upd.db >/dev/null &&
		git -C repo checkout -q - && index upd.db >/dev/null &&
		fit_pairs upd.db >got && test_cmp want got || return 1
	done
'

test_expect_success 'the first build commits as it goes (nobody decides on it yet)' '
	rm -f first.db* && sqlite3 first.db "PRAGMA journal_mode=WAL" >/dev/null &&
	python3 "$TEST_DIRECTORY/lib/wal-commits.py" first.db -- "$CCSIFT_BIN" index --repo repo --index first.db >count &&
	cat count && test "$(tail -1 count)" -gt 1
'

# Killed (or out of disk) after its first transactions, a first build leaves
# commits but no tip: a part of the history, from which a delivery must not
# decide as if it were all. Made here by taking the tip out of a built index.
test_expect_success 'a first build stopped half way: deliveries are unknown until an index run ends it' '
	cp first.db half.db && sqlite3 half.db "DELETE FROM meta WHERE k = '\''tip'\''" &&
	"$CCSIFT_BIN" filter --repo repo --index half.db --as-of $ASOF --me carol@example.org <"$P" >out 2>err &&
	cat err && test_grep "^X-Ccsift: unknown" out &&
	test_grep "not built yet, or its first build stopped half way (run: ccsift index)" err &&
	index half.db >/dev/null &&
	verdict half.db >got && verdict first.db >want && test_cmp want got
'

# A force-push takes back a driver the index had: its paths go with its
# commit, or MAINTAINERS' "F: drivers/newdrv" (no slash) is still resolved
# as a directory and makes Carol M: for a file git does not have.
test_expect_success 'a driver taken back by a force-push: its paths go, as from scratch' '
	printf "\nNEWDRV\nM:\tCarol Typo <carol@example.org>\nF:\tdrivers/newdrv\n" >>repo/MAINTAINERS &&
	GIT_AUTHOR_DATE=2026-03-02T10:00:00Z GIT_COMMITTER_DATE=2026-03-02T10:00:00Z \
		git -C repo commit -qam "MAINTAINERS: newdrv" &&
	git -C repo rev-parse HEAD >base2 &&
	mkdir repo/drivers/newdrv && echo "/* new */" >repo/drivers/newdrv/core.c &&
	git -C repo add drivers/newdrv &&
	GIT_AUTHOR_DATE=2026-03-03T10:00:00Z GIT_COMMITTER_DATE=2026-03-03T10:00:00Z \
		git -C repo commit -qm "newdrv: add" &&
	index index.db >/dev/null &&
	git -C repo reset -q --hard "$(cat base2)" &&
	echo "int fixed;" >>repo/lib/sort.c &&
	GIT_AUTHOR_DATE=2026-03-04T10:00:00Z GIT_COMMITTER_DATE=2026-03-04T10:00:00Z \
		git -C repo commit -qam "lib: sort: a fix" &&
	index index.db >/dev/null &&
	rm -f fresh.db* && index fresh.db >/dev/null &&
	paths() { sqlite3 "$1" "SELECT path, dir FROM paths ORDER BY 1"; } &&
	paths fresh.db >want && paths index.db >got && test_cmp want got &&
	! grep "^drivers/newdrv/" got
'

test_expect_success 'and a patch to drivers/newdrv/core.c is not Carol'\''s as its maintainer' '
	sed "s#drivers/net/foo.c#drivers/newdrv/core.c#g" "$P" >newdrv.eml &&
	"$CCSIFT_BIN" score --repo repo --index index.db --me carol@example.org --json newdrv.eml >got.json &&
	"$CCSIFT_BIN" score --repo repo --index fresh.db --me carol@example.org --json newdrv.eml >want.json &&
	test_cmp want.json got.json &&
	! grep "you are M: for drivers/newdrv" got.json
'

# flagged INDEX: the commits it holds for .git-blame-ignore-revs' (flag 4)
flagged() { sqlite3 "$1" "SELECT oid FROM commits WHERE flags & 4 ORDER BY 1"; }
# score INDEX: Carol's score of the patch now, to six digits
score() {
	"$CCSIFT_BIN" score --repo repo --index "$1" --me carol@example.org --json "$P" |
		python3 -c 'import json, sys; print("%.6g" % json.load(sys.stdin)["score"])'
}
# at DATE GIT-ARGS...: git -C repo, authored and committed on DATE
at() {
	local date=$1
	shift
	GIT_AUTHOR_DATE=$date GIT_COMMITTER_DATE=$date git -C repo "$@"
}

test_expect_success 'a commit taken out of .git-blame-ignore-revs weighs again, as from scratch' '
	carol 6 2026-03-05T10:00:00Z &&
	git -C repo rev-parse HEAD >repo/.git-blame-ignore-revs && git -C repo add .git-blame-ignore-revs &&
	at 2026-03-06T10:00:00Z commit -qm "ignore a reformat" &&
	index index.db >/dev/null &&
	test "$(flagged index.db)" = "$(git -C repo rev-parse HEAD~1)" &&
	git -C repo rm -q .git-blame-ignore-revs && at 2026-03-07T10:00:00Z commit -qm "not a reformat after all" &&
	index index.db >/dev/null &&
	rm -f fresh.db* && index fresh.db >/dev/null &&
	flagged fresh.db >want && flagged index.db >got && test_cmp want got && ! test -s got &&
	score fresh.db >want && score index.db >got && cat want got && test_cmp want got
'

# newest_fit INDEX: the newest period's fit, its pairs by address, to six digits
newest_fit() {
	sqlite3 "$1" "SELECT f.until, p.email, round(f.logit, 6), f.engaged, f.demotable
		FROM fit_pairs f LEFT JOIN people p ON p.id = f.person
		WHERE f.until = (SELECT max(until) FROM fits) ORDER BY 1, 2, 3, 4, 5" &&
	sqlite3 "$1" "SELECT until, model FROM fits WHERE until = (SELECT max(until) FROM fits)" |
		grep -v "^reference" | sed "s/\([0-9]\.[0-9]\{5\}\)[0-9]*/\1/g"
}

# The period began on 2026-01-22: its fit replays what was committed before.
test_expect_success 'a fetch of newer commits keeps the period'\''s fit as it was' '
	newest_fit index.db >before &&
	carol 7 2026-03-10T10:00:00Z &&
	index index.db >out && cat out &&
	test_grep "1 commits added" out && ! grep "fitted" out &&
	newest_fit index.db >after && test_cmp before after
'

test_expect_success 'a side branch committed before the period, merged into it: fitted anew, as from scratch' '
	git -C repo checkout -q -b side "$(git -C repo rev-list -1 --before=2025-12-01 HEAD)" &&
	for i in 1 2 3; do
		echo "int side_$i;" >>repo/drivers/net/foo.c &&
		GIT_AUTHOR_NAME="Erin Review" GIT_AUTHOR_EMAIL=erin@example.org \
			at 2025-12-0${i}T10:00:00Z commit -qam "net: foo: side $i" \
			-m "Reviewed-by: Carol Typo <carol@example.org>" || return 1
	done &&
	git -C repo checkout -q master &&
	at 2026-03-11T10:00:00Z merge -q --no-ff -X theirs -m "Merge side" side &&
	index index.db >out && cat out &&
	test_grep "3 commits added" out && test_grep "the relevance model fitted" out &&
	rm -f fresh.db* && index fresh.db >/dev/null &&
	newest_fit fresh.db >want && newest_fit index.db >got && test_cmp want got
'

test_expect_success 'an ignore list fetched later, of commits before the period: fitted anew, as from scratch' '
	git -C repo log --format=%H --before=2025-12-31 --after=2024-06-01 >repo/.git-blame-ignore-revs &&
	test "$(wc -l <repo/.git-blame-ignore-revs)" -gt 3 &&
	git -C repo add .git-blame-ignore-revs && at 2026-03-12T10:00:00Z commit -qm "ignore reformats" &&
	index index.db >out && cat out && test_grep "the relevance model fitted" out &&
	rm -f fresh.db* && index fresh.db >/dev/null &&
	flagged fresh.db >want && flagged index.db >got && test_cmp want got &&
	newest_fit fresh.db >want && newest_fit index.db >got && test_cmp want got
'

test_done
