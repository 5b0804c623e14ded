#!/bin/bash
# The deterministic test history (tests/lib/make-history.sh), checked with git
# itself: what the index and scoring tests rely on must really be there.

. "${TEST_DIRECTORY:=$(cd "$(dirname "$0")" && pwd)}/lib/test-lib.sh"

MH="$TEST_DIRECTORY/lib/make-history.sh"

test_expect_success 'the builder creates the repository' '
	bash "$MH" repo &&
	test -d repo/.git &&
	test "$(git -C repo symbolic-ref HEAD)" = refs/heads/master &&
	test "$(git -C repo for-each-ref --format="%(refname)")" = refs/heads/master &&
	test -z "$(git -C repo status --porcelain)"
'

test_expect_success 'commit count: 26, one of them a merge' '
	test "$(git -C repo rev-list --count HEAD)" = 26 &&
	test "$(git -C repo rev-list --count --merges HEAD)" = 1 &&
	test "$(git -C repo rev-list --count --first-parent HEAD)" = 24
'

test_expect_success 'tests/lib/history.md describes exactly this history' '
	bash "$MH" --describe repo >actual &&
	test_cmp "$TEST_DIRECTORY/lib/history.md" actual
'

test_expect_success 'the history is the same whatever the git configuration' '
	mkdir hostile &&
	cat >hostile/.gitconfig <<-\EOF &&
	[user]
		name = Someone Else
		email = else@example.com
	[init]
		defaultBranch = main
	[commit]
		gpgsign = true
	[core]
		hooksPath = /nonexistent-hooks
		autocrlf = true
	[merge]
		log = true
	EOF
	HOME=$PWD/hostile GIT_DIR=/nonexistent GIT_AUTHOR_DATE=2001-01-01T00:00:00Z \
		TZ=Asia/Tokyo LC_ALL=C bash "$MH" repo2 &&
	test "$(git -C repo2 rev-parse HEAD)" = "$(git -C repo rev-parse HEAD)"
'

test_expect_success 'sourcing defines functions and leaves the caller alone' '
	(
		. "$MH" &&
		home=$HOME pwd=$PWD &&
		make_history repo3 &&
		test "$HOME" = "$home" && test "$PWD" = "$pwd" &&
		test "$GIT_AUTHOR_NAME" = "Test Author" &&
		describe_history repo3 >../described
	) &&
	test "$(git -C repo3 rev-parse HEAD)" = "$(git -C repo rev-parse HEAD)" &&
	test_cmp "$TEST_DIRECTORY/lib/history.md" ../described
'

test_expect_success 'the builder refuses a DIR that exists' '
	mkdir exists &&
	test_must_fail bash "$MH" exists 2>err &&
	test_grep "already exists" err &&
	test -z "$(ls -A exists)" &&
	: >afile &&
	test_must_fail bash "$MH" afile &&
	test ! -s afile &&
	ln -s nowhere dangling &&
	test_must_fail bash "$MH" dangling &&
	test_must_fail bash "$MH" &&
	test_must_fail bash "$MH" a b
'

test_expect_success 'dates: 2023-2025, UTC, strictly increasing, committed after authored' '
	git -C repo log --reverse --date-order --format="%at %ct %ad %cd" \
		--date=format-local:%Y >dates &&
	test "$(wc -l <dates)" = 26 &&
	awk "{
		if (\$1 > \$2) bad = bad \" author-after-commit:\" NR
		if (NR > 1 && (\$1 <= prev || \$2 <= prev)) bad = bad \" not-increasing:\" NR
		if (\$3 < 2023 || \$4 > 2025) bad = bad \" year:\" NR
		prev = \$2
	} END { if (bad) { print bad; exit 1 } }" dates &&
	! git -C repo log --format="%ad%n%cd" --date=raw | grep -v " +0000$"
'

test_expect_success 'bob: one tree-wide commit, 100 files in >= 6 top-level dirs' '
	git -C repo log --author=bob@example.org --format=%s >subjects &&
	echo "treewide: convert to new_api()" >expect &&
	test_cmp expect subjects &&
	bob=$(git -C repo log --author=bob@example.org --format=%H) &&
	git -C repo show --format= --name-only "$bob" >files &&
	test "$(wc -l <files)" = 100 &&
	test "$(cut -d/ -f1 files | sort -u | wc -l)" -ge 6 &&
	git -C repo show --format= --numstat "$bob" -- drivers/net/foo.c >foo &&
	printf "1\t1\tdrivers/net/foo.c\n" >expect &&
	test_cmp expect foo &&
	test "$(git -C repo ls-files | cut -d/ -f1 | sort -u | wc -l)" -ge 6 &&
	test "$(git -C repo ls-files | wc -l)" -ge 100
'

test_expect_success 'renames: --follow credits grace for new_name.c, a plain lookup does not' '
	git -C repo log --follow --format=%ae -- drivers/net/new_name.c >follow &&
	test_grep "^grace@example.org$" follow &&
	test "$(grep -c -x grace@example.org follow)" = 3 &&
	git -C repo log --format=%ae -- drivers/net/new_name.c >plain &&
	! grep grace@example.org plain &&
	henry=$(git -C repo log --author=henry@example.org --format=%H) &&
	git -C repo show --format= -M --name-status "$henry" >rename &&
	printf "R100\tdrivers/net/old_name.c\tdrivers/net/new_name.c\n" >expect &&
	test_cmp expect rename &&
	test "$(git -C repo log -1 --format=%ae -- drivers/net/new_name.c)" = alice@example.org
'

test_expect_success 'mailmap: alice@old-employer.example only in the raw history' '
	git -C repo log --use-mailmap --format="%aE%n%cE" >mapped &&
	! grep old-employer mapped &&
	git -C repo log --format=%ae >raw &&
	test "$(grep -c -x alice@old-employer.example raw)" = 2 &&
	git -C repo log --use-mailmap --author=alice@example.org --format=%h -- drivers/net/foo.c >alice &&
	test "$(wc -l <alice)" = 6 &&
	git -C repo show HEAD:.mailmap >mailmap &&
	echo "Alice Substance <alice@example.org> <alice@old-employer.example>" >expect &&
	test_cmp expect mailmap
'

test_expect_success 'MAINTAINERS content' '
	cat >expect <<-\EOF &&
	List of maintainers
	===================

	Descriptions of section entries:

	EOF
	printf "\t%s\n" \
		"M: Mail patches to: FullName <address@domain>" \
		"R: Designated reviewer: FullName <address@domain>" \
		"S: Status, one of Supported, Maintained, Odd Fixes, Orphan" \
		"F: Files and directories with wildcard patterns." >>expect &&
	cat >>expect <<-\EOF &&

	Maintainers List
	----------------

	EOF
	printf "%s\n" "BAR FILESYSTEM" "M:	Frank Fs <frank@example.org>" \
		"R:	Erin Review <erin@example.org>" "S:	Maintained" "F:	fs/bar/" "" \
		"FOO NETWORK DRIVER" "M:	Dave Maintainer <dave@example.org>" \
		"S:	Maintained" "F:	drivers/net/foo.*" >>expect &&
	git -C repo show HEAD:MAINTAINERS >actual &&
	test_cmp expect actual
'

test_expect_success 'carol: one commit, one line of foo.c' '
	git -C repo log --author=carol@example.org --format="%s|%ce" >carol &&
	echo "net: foo: fix typo in comment|dave@example.org" >expect &&
	test_cmp expect carol &&
	git -C repo log --author=carol@example.org --format= --numstat >numstat &&
	printf "1\t1\tdrivers/net/foo.c\n" >expect &&
	test_cmp expect numstat
'

test_expect_success 'alice: focused commits on foo.[ch], 15-60 lines, applied by dave from mid-2023' '
	git -C repo log --use-mailmap --author=alice@example.org --format=%H \
		-- drivers/net/foo.c drivers/net/foo.h >alice &&
	test "$(wc -l <alice)" = 6 &&
	while read -r c; do
		git -C repo show --format= --numstat "$c" >ns &&
		test "$(wc -l <ns)" -le 3 &&
		lines=$(awk "{ n += \$1 + \$2 } END { print n }" ns) &&
		test "$lines" -ge 15 && test "$lines" -le 60 || return 1
	done <alice &&
	git -C repo log --since=2023-06-01 --format="%ce" \
		--author=alice@example.org --author=carol@example.org >committers &&
	test "$(wc -l <committers)" = 6 &&
	test "$(sort -u committers)" = dave@example.org &&
	git -C repo log --until=2023-06-01 --format="%ce" --author=alice >early &&
	! grep dave early
'

test_expect_success 'trailers: sign-offs, reviews, acks and tests' '
	git -C repo log --format="%H" >all &&
	while read -r c; do
		msg=$(git -C repo show -s --format=%B "$c") &&
		a=$(git -C repo show -s --format="%an <%ae>" "$c") &&
		m=$(git -C repo show -s --format="%cn <%ce>" "$c") &&
		grep -qxF "Signed-off-by: $a" <<<"$msg" &&
		grep -qxF "Signed-off-by: $m" <<<"$msg" || { echo "$c"; return 1; }
	done <all &&
	git -C repo log --format="%ae %(trailers:key=Reviewed-by,valueonly,separator=%x2C)" \
		| grep "Erin Review" >reviewed &&
	printf "%s\n" "alice@example.org Erin Review <erin@example.org>" \
		"alice@example.org Erin Review <erin@example.org>" >expect &&
	test_cmp expect reviewed &&
	for c in $(git -C repo log --format=%H --grep="^Reviewed-by: Erin"); do
		git -C repo show --format= --name-only "$c" | grep -qx drivers/net/foo.c || return 1
	done &&
	test -z "$(git -C repo log --author=erin@example.org --format=%H)" &&
	git -C repo log --format="%ae|%(trailers:key=Acked-by,valueonly,separator=%x2C)|%(trailers:key=Tested-by,valueonly,separator=%x2C)" \
		--grep=^Acked-by: --grep=^Tested-by: | sed /^\$/d >acks &&
	echo "jack@example.org|Frank Fs <frank@example.org>|Erin Review <erin@example.org>" >expect &&
	test_cmp expect acks &&
	jack=$(git -C repo log --author=jack@example.org --format=%H) &&
	test "$(git -C repo show --format= --name-only "$jack")" = fs/bar/bar.c
'

test_expect_success 'ivan, frank, the merge: who touched what' '
	git -C repo log --author=ivan@example.org --format= --name-only | sort -u | sed /^\$/d >ivan &&
	echo drivers/net/sibling.c >expect &&
	test_cmp expect ivan &&
	git -C repo log --format=%ae -- drivers/net/sibling.c | sort -u >sibling &&
	echo ivan@example.org >expect &&
	test_cmp expect sibling &&
	git -C repo log --no-merges --author=frank@example.org --format= --name-only |
		sort -u | sed /^\$/d >frank &&
	printf "%s\n" MAINTAINERS fs/bar/bar.c fs/bar/super.c >expect &&
	test_cmp expect frank &&
	merge=$(git -C repo rev-list --merges HEAD) &&
	test "$(git -C repo show -s --format="%ae %ce %s" "$merge")" = \
		"dave@example.org dave@example.org Merge branch '\''bar-xattr'\'' of https://git.example.org/frank/linux" &&
	git -C repo log --format=%ae "$merge^1..$merge^2" >side &&
	printf "%s\n" frank@example.org frank@example.org >expect &&
	test_cmp expect side
'

test_done
