#!/bin/bash
# A shallow clone (git clone --depth) is indexed as git sees it: its history
# ends at the boundary commits, whose changes are unknown; deepened, it is
# indexed again.
. "$TEST_DIRECTORY/lib/test-lib.sh"

test_need git sqlite3

bash "$TEST_DIRECTORY/lib/make-history.sh" repo >/dev/null || exit 1

q() { sqlite3 "$1" "$2"; }
# files OID: how many files the index says commit OID touched
files() { q "$1" "SELECT nfiles FROM commits WHERE oid = '$2'"; }

test_expect_success 'setup: a clone of the newest 8 commits' '
	git clone -q --bare --depth 8 "file://$PWD/repo" shallow.git &&
	test -s shallow.git/shallow &&
	boundary=$(cat shallow.git/shallow) &&
	test "$(echo "$boundary" | wc -l)" = 1 &&
	echo "$boundary" >boundary
'

test_expect_success 'index takes the commits the clone has' '
	"$CCSIFT" index --repo shallow.git --index shallow.db >out &&
	n=$(git -C shallow.git rev-list --no-merges --count HEAD) &&
	test_grep "$n commits added" out &&
	test "$(q shallow.db "SELECT count(*) FROM commits")" = "$n"
'

test_expect_success 'the boundary commit: its people, not its changes' '
	b=$(cat boundary) &&
	test "$(files shallow.db "$b")" = 0 &&
	test "$(q shallow.db "SELECT count(*) FROM touches t JOIN commits c ON c.id = t.cid WHERE c.oid = '\''$b'\''")" = 0 &&
	test "$(q shallow.db "SELECT count(*) FROM credits r JOIN commits c ON c.id = r.cid WHERE c.oid = '\''$b'\''")" -ge 1
'

test_expect_success 'the other commits are indexed as in the full clone' '
	"$CCSIFT" index --repo repo --index full.db >/dev/null &&
	touches="SELECT c.oid, p.path, t.status FROM touches t JOIN commits c ON c.id = t.cid
		JOIN paths p ON p.id = t.path WHERE c.oid <> '\''$(cat boundary)'\'' ORDER BY 1, 2" &&
	q shallow.db "$touches" >shallow.touches &&
	q full.db "$touches" | grep -F -f <(git -C shallow.git rev-list --no-merges HEAD) >full.touches &&
	test -s shallow.touches &&
	test_cmp full.touches shallow.touches
'

test_expect_success 'a patch is scored against the shallow history' '
	git -C repo format-patch -1 --stdout HEAD >mail &&
	"$CCSIFT" score --repo shallow.git --index shallow.db --me alice@example.org mail >score &&
	test_grep "^verdict: " score
'

test_expect_success 'deepened, the clone is indexed again, the old boundary with its changes' '
	git -C shallow.git fetch -q --deepen=4 origin &&
	b=$(cat boundary) &&
	test "$(git -C shallow.git cat-file -t "$b^")" = commit &&
	"$CCSIFT" index --repo shallow.git --index shallow.db >out &&
	n=$(git -C shallow.git rev-list --no-merges --count HEAD) &&
	test "$(q shallow.db "SELECT count(*) FROM commits")" = "$n" &&
	test "$(files shallow.db "$b")" = "$(files full.db "$b")" &&
	test "$(files shallow.db "$b")" -gt 0
'

test_expect_success 'and an update with nothing new changes nothing' '
	"$CCSIFT" index --repo shallow.git --index shallow.db >out &&
	test_grep " 0 commits added" out
'

test_done
