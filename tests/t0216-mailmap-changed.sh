#!/bin/bash
# The index reads history through the .mailmap at the ref, as git log does:
# when a fetch brings a new .mailmap, old commits belong to other people, and
# every indexed commit's people are read again (not its trees). An
# incremental index then says what a fresh one says; a .mailmap taken back
# takes its aliases with it.

. "${TEST_DIRECTORY:=$(cd "$(dirname "$0")" && pwd)}/lib/test-lib.sh"

test_need git sqlite3

t=1700000000
# commit AUTHOR-NAME AUTHOR-EMAIL ARGS...: a commit a day.
commit() {
	local name=$1 email=$2
	shift 2
	t=$((t + 86400))
	GIT_AUTHOR_NAME=$name GIT_AUTHOR_EMAIL=$email GIT_AUTHOR_DATE="@$t +0000" \
		GIT_COMMITTER_NAME="Mo Maint" GIT_COMMITTER_EMAIL=mo@example.org \
		GIT_COMMITTER_DATE="@$t +0000" git -C repo commit -q "$@"
}
# credits DB: each person's credits per role, as the index holds them.
credits() {
	sqlite3 "$1" "SELECT p.email, r.role, count(*) FROM credits r JOIN people p ON p.id = r.person
		GROUP BY 1, 2 ORDER BY 1, 2"
}
# commits DB: each commit's author, committer and flags; engagement DB: each
# person's engaged and written commits.
commits() {
	sqlite3 "$1" "SELECT c.oid, a.email, m.email, c.flags FROM commits c JOIN people a ON a.id = c.author
		JOIN people m ON m.id = c.committer ORDER BY 1"
}
engagement() {
	sqlite3 "$1" "SELECT p.email, c.oid, e.flags FROM engagement e JOIN people p ON p.id = e.person
		JOIN commits c ON c.id = e.cid ORDER BY 1, 2"
}
# people DB: every person the index holds, and their name.
people() { sqlite3 "$1" "SELECT email, name FROM people ORDER BY 1"; }
cc_ada() { sed '/^Subject:/i Cc: Ada Odd <ada@example.org>' "$1"; }

test_expect_success 'setup: Ada reviewed and wrote foo.c from an old address, then a .mailmap came' '
	git init -q -b main repo && mkdir repo/drivers &&
	echo base >repo/drivers/foo.c && git -C repo add -A &&
	commit "Mo Maint" mo@example.org -m base &&
	for i in 1 2 3 4; do
		echo "$i" >>repo/drivers/foo.c &&
		commit "Ada Old" ada@old.example -am "foo: work $i" -m "Reviewed-by: Ada Old <ada@old.example>" ||
		return 1
	done &&
	"$CCSIFT" index --repo repo --index inc.db >out &&
	test_grep "5 commits added" out &&
	printf "Ada Odd <ada@example.org> <ada@old.example>\n" >repo/.mailmap &&
	git -C repo add .mailmap && commit "Mo Maint" mo@example.org -m "mailmap: Ada" &&
	echo z >>repo/drivers/foo.c && commit Bo bo@example.org -am "foo: from Bo" &&
	git -C repo format-patch -1 --stdout >bo.patch
'

test_expect_success 'a new .mailmap: old commits are hers, as in a fresh index' '
	"$CCSIFT" index --repo repo --index inc.db >out &&
	test_grep "2 commits added" out &&
	"$CCSIFT" index --repo repo --index fresh.db >/dev/null &&
	credits inc.db >inc && credits fresh.db >fresh &&
	test_cmp fresh inc &&
	commits inc.db >inc.commits && commits fresh.db >fresh.commits &&
	test_cmp fresh.commits inc.commits &&
	engagement inc.db >inc.engaged && engagement fresh.db >fresh.engaged &&
	test_cmp fresh.engaged inc.engaged && test -s inc.engaged &&
	test_grep "^ada@example.org|2|4$" inc &&
	! grep "^ada@old.example|" inc
'

test_expect_success 'and the patch to her file is relevant to Ada, as on the fresh index' '
	cc_ada bo.patch >cc.patch &&
	"$CCSIFT" filter --no-server --repo repo --index inc.db --me ada@example.org <cc.patch >inc.out &&
	"$CCSIFT" filter --no-server --repo repo --index fresh.db --me ada@example.org <cc.patch >fresh.out &&
	grep "^X-Ccsift:" fresh.out >expect && grep "^X-Ccsift:" inc.out >actual &&
	test_cmp expect actual &&
	test_grep "^X-Ccsift: relevant" actual
'

test_expect_success 'the same .mailmap on the next fetch: only the new commit is read' '
	echo y >>repo/drivers/foo.c && commit Bo bo@example.org -am "foo: more from Bo" &&
	"$CCSIFT" index --repo repo --index inc.db >out &&
	test_grep "1 commits added" out
'

test_expect_success 'a .mailmap that made Bo Ada, taken back: Bo is himself again' '
	printf "Ada Odd <ada@example.org> <bo@example.org>\n" >>repo/.mailmap &&
	git -C repo add .mailmap && commit "Mo Maint" mo@example.org -m "mailmap: Bo is Ada" &&
	"$CCSIFT" index --repo repo --index inc.db >/dev/null &&
	test "$(sqlite3 inc.db "SELECT canonical FROM aliases WHERE email = '\''bo@example.org'\''")" = ada@example.org &&
	git -C repo revert --no-edit HEAD >/dev/null &&
	"$CCSIFT" index --repo repo --index inc.db >/dev/null &&
	test "$(sqlite3 inc.db "SELECT count(*) FROM aliases WHERE email = '\''bo@example.org'\''")" = 0 &&
	"$CCSIFT" index --repo repo --index fresh2.db >/dev/null &&
	credits inc.db >inc && credits fresh2.db >fresh &&
	test_cmp fresh inc
'

test_expect_success 'a rewritten history whose old commits are gone, with a new .mailmap: indexed' '
	git -C repo reset -q --hard HEAD~2 &&
	printf "Ada Odd <ada@example.org> ADA@OLD.EXAMPLE\n" >repo/.mailmap &&
	git -C repo add .mailmap && commit "Mo Maint" mo@example.org -m "mailmap: rewritten" &&
	git -C repo reflog expire --expire=now --all && git -C repo gc -q --prune=now &&
	"$CCSIFT" index --repo repo --index inc.db >out &&
	test_grep "history rewritten, 2 pruned" out &&
	"$CCSIFT" index --repo repo --index fresh3.db >/dev/null &&
	commits inc.db >inc.commits && commits fresh3.db >fresh.commits &&
	test_cmp fresh.commits inc.commits
'

test_expect_success 'an index from before the .mailmap was recorded keeps its commits' '
	sqlite3 inc.db "DELETE FROM meta WHERE k = '\''mailmap'\''" &&
	echo x >>repo/drivers/foo.c && commit Bo bo@example.org -am "foo: last from Bo" &&
	"$CCSIFT" index --repo repo --index inc.db >out &&
	test_grep "1 commits added" out &&
	test -n "$(sqlite3 inc.db "SELECT v FROM meta WHERE k = '\''mailmap'\''")"
'

test_expect_success 'a .mailmap identity taken back: nobody is left under it, as in a fresh index' '
	cp repo/.mailmap mailmap.before &&
	echo h >>repo/drivers/foo.c && commit "Hank Old" hank@old.example -am "foo: from Hank" &&
	echo "Hank Old <hank@new.example> <hank@old.example>" >>repo/.mailmap &&
	git -C repo add .mailmap && commit "Mo Maint" mo@example.org -m "mailmap: Hank" &&
	"$CCSIFT" index --repo repo --index inc.db >/dev/null &&
	people inc.db >with && test_grep "^hank@new.example|Hank Old$" with &&
	cp mailmap.before repo/.mailmap &&
	git -C repo add .mailmap && commit "Mo Maint" mo@example.org -m "mailmap: Hank back" &&
	"$CCSIFT" index --repo repo --index inc.db >/dev/null &&
	"$CCSIFT" index --repo repo --index fresh4.db >/dev/null &&
	people inc.db >inc && people fresh4.db >fresh &&
	test_cmp fresh inc &&
	! grep "^hank@new.example" inc
'

test_expect_success 'and the address it named decides as on the fresh index' '
	sed "/^Subject:/i Cc: Hank Old <hank@new.example>" bo.patch >cc-hank.patch &&
	"$CCSIFT" score --repo repo --index inc.db --me hank@new.example --json cc-hank.patch >inc.json &&
	"$CCSIFT" score --repo repo --index fresh4.db --me hank@new.example --json cc-hank.patch >fresh.json &&
	test_cmp fresh.json inc.json
'

test_expect_success 'a .mailmap that gives an address its full name renames it, as in a fresh index' '
	echo j >>repo/drivers/foo.c && commit jdoe jane@example.org -am "foo: from jdoe" &&
	"$CCSIFT" index --repo repo --index inc.db >/dev/null &&
	echo "Jane Doe <jane@example.org>" >>repo/.mailmap &&
	git -C repo add .mailmap && commit "Mo Maint" mo@example.org -m "mailmap: Jane" &&
	"$CCSIFT" index --repo repo --index inc.db >/dev/null &&
	"$CCSIFT" index --repo repo --index fresh5.db >/dev/null &&
	people inc.db >inc && people fresh5.db >fresh &&
	test_cmp fresh inc &&
	test_grep "^jane@example.org|Jane Doe$" inc
'

test_expect_success 'a .mailmap address matches in any case, as git log matches it' '
	git init -q -b main cased && mkdir cased/d &&
	printf "%s\n" "Kim Ng <kim@new.example> <kim@old.example>" "Lu Ma <lu@example.org> <LU@OLD.example>" \
		>cased/.mailmap &&
	for who in "Kim Old:Kim@OLD.Example" "Kim Old:kim@OLD.example" "Lu Ma:lu@old.example" "Kim Ng:kim@new.example"; do
		t=$((t + 86400)) && echo "$who" >>cased/d/f.c && git -C cased add -A &&
		GIT_AUTHOR_NAME=${who%%:*} GIT_AUTHOR_EMAIL=${who#*:} GIT_AUTHOR_DATE="@$t +0000" \
		GIT_COMMITTER_NAME="Mo Maint" GIT_COMMITTER_EMAIL=mo@example.org GIT_COMMITTER_DATE="@$t +0000" \
			git -C cased commit -q -m "d: $who" || return 1
	done &&
	"$CCSIFT" index --repo cased --index cased.db >/dev/null &&
	git -C cased log --use-mailmap --format=%aE | tr A-Z a-z | sort | uniq -c | sed "s/^ *//" >git.authors &&
	sqlite3 cased.db "SELECT count(*), p.email FROM commits c JOIN people p ON p.id = c.author
		GROUP BY 2 ORDER BY 2" | tr "|" " " >ccsift.authors &&
	test_cmp git.authors ccsift.authors &&
	test_grep "^3 kim@new.example$" ccsift.authors
'

test_expect_success 'an index an older ccsift made (its .mailmap id bare) reads its people again' '
	cp cased.db before.db &&
	sqlite3 before.db "UPDATE meta SET v = substr(v, 1, 40) WHERE k = '\''mailmap'\''" &&
	sqlite3 before.db "UPDATE commits SET author = (SELECT id FROM people WHERE email = '\''mo@example.org'\'')" &&
	"$CCSIFT" index --repo cased --index before.db >out && test_grep " 0 commits added" out &&
	sqlite3 before.db "SELECT count(*), p.email FROM commits c JOIN people p ON p.id = c.author
		GROUP BY 2 ORDER BY 2" | tr "|" " " >again.authors &&
	test_cmp git.authors again.authors
'

# What an older ccsift's updates left in people (before c259f7e a person
# kept the first name an update met; before 9280d24 an identity a .mailmap
# took back stayed): read again by the first update of this one, as after a
# downgrade (the older ccsift updated it after this one did). An upgrade
# kept them for good, and Hank's address decided on hank@old's history.
test_expect_success 'people another ccsift kept are read again by the next update (upgrade, downgrade)' '
	sqlite3 inc.db ".backup old.db" &&
	older_kept() {
		sqlite3 old.db "UPDATE people SET name = '\''jdoe'\'' WHERE email = '\''jane@example.org'\'';
			INSERT INTO people (email, name) VALUES ('\''hank@new.example'\'', '\''Hank Old'\'');
			DELETE FROM meta WHERE k = '\''kept-at'\''" &&
		{ test -z "${1-}" || sqlite3 old.db "INSERT INTO meta VALUES ('\''kept-at'\'', '\''$1'\'')"; }
	} &&
	hank() { "$CCSIFT" score --repo repo --index $1 --me hank@new.example --json cc-hank.patch; } &&
	people fresh5.db >fresh && hank fresh5.db >fresh.json &&
	older_kept && people old.db >stale && ! test_cmp fresh stale >/dev/null &&
	"$CCSIFT" index --repo repo --index old.db >/dev/null &&
	people old.db >adopted && test_cmp fresh adopted && hank old.db >adopted.json && test_cmp fresh.json adopted.json &&
	older_kept $(git -C repo rev-parse HEAD~1) &&
	"$CCSIFT" index --repo repo --index old.db >/dev/null &&
	people old.db >adopted && test_cmp fresh adopted
'

test_done
