#!/bin/bash
# ccsift reads a walk's trees and commits from the packs itself (core/pack.c),
# libgit2 whatever they do not hold: the index of a history is the same
# whether its objects are loose, packed with deltas against offsets or
# against ids, spread over several packs and loose objects, or borrowed
# from another repository (objects/info/alternates); a damaged
# pack gets an error, never a crash.
. "$TEST_DIRECTORY/lib/test-lib.sh"

test_need git sqlite3

bash "$TEST_DIRECTORY/lib/make-history.sh" repo >/dev/null || exit 1

# Every table that comes from the walk, in an order of its own.
dump() {
	for t in commits credits touches paths people; do
		sqlite3 "$1" "SELECT * FROM $t" | LC_ALL=C sort
	done
}

test_expect_success 'setup: forty more versions of a big file and a wide tree (deltas)' '
	(
		cd repo &&
		mkdir -p drivers/wide &&
		for i in $(seq 1 60); do echo "int wide_$i;" >drivers/wide/f$i.c; done &&
		seq 1 3000 | sed "s/^/line /" >drivers/big.c &&
		git add drivers && git commit -q -m "drivers: a big file and a wide directory" &&
		for i in $(seq 1 40); do
			sed -i "$((i * 50))s/.*/changed in version $i/" drivers/big.c &&
			echo "int wide_$i = $i;" >drivers/wide/f$i.c &&
			git commit -q -a -m "drivers: version $i" \
				-m "Reviewed-by: Bob Reviewer <bob@example.org>" || exit 1
		done
	) &&
	test "$(git -C repo count-objects -v | sed -n "s/^in-pack: //p")" = 0
'

test_expect_success 'setup: the same history loose, packed by offset, by id, in several packs' '
	git init -q --bare loose.git &&
	git -C repo rev-list --objects --all | git -C repo pack-objects -q --stdout >all.pack &&
	git -C loose.git unpack-objects -q <all.pack &&
	git -C loose.git update-ref refs/heads/master "$(git -C repo rev-parse HEAD)" &&
	git -C loose.git symbolic-ref HEAD refs/heads/master &&
	test "$(git -C loose.git count-objects -v | sed -n "s/^in-pack: //p")" = 0 &&

	git clone -q --bare --no-local repo ofs.git &&
	git -C ofs.git repack -q -a -d -f --depth=50 --window=50 &&
	git clone -q --bare --no-local repo ref.git &&
	git -C ref.git -c repack.useDeltaBaseOffset=false repack -q -a -d -f --depth=50 --window=50 &&

	git init -q --bare several.git &&
	old=$(git -C repo rev-parse HEAD~20) &&
	new=$(git -C repo rev-parse HEAD~8) &&
	git -C repo rev-list --objects "$old" | git -C repo pack-objects -q "$PWD/several.git/objects/pack/pack" &&
	git -C repo rev-list --objects "$new" --not "$old" |
		git -C repo pack-objects -q "$PWD/several.git/objects/pack/pack" &&
	git -C repo rev-list --objects HEAD --not "$new" | git -C repo pack-objects -q --stdout >tail.pack &&
	git -C several.git unpack-objects -q <tail.pack &&
	git -C several.git update-ref refs/heads/master "$(git -C repo rev-parse HEAD)" &&
	git -C several.git symbolic-ref HEAD refs/heads/master &&
	test "$(ls several.git/objects/pack/*.pack | wc -l)" = 2 &&
	test "$(git -C several.git count-objects -v | sed -n "s/^count: //p")" -gt 0 &&

	# deltas there are, chains of them
	git verify-pack -v ofs.git/objects/pack/*.idx | grep -q "^chain length = [2-9]" &&
	git verify-pack -v ref.git/objects/pack/*.idx | grep -q "^chain length = [2-9]"
'

test_expect_success 'loose: the index libgit2 alone reads' '
	"$CCSIFT" index --lines --repo loose.git --index loose.db >/dev/null &&
	dump loose.db >loose.tables &&
	test "$(sqlite3 loose.db "SELECT count(*) FROM commits")" -ge 60
'

test_expect_success 'setup: a clone whose history is all in its alternate (--shared)' '
	git clone -q --bare --shared ofs.git shared.git &&
	test -s shared.git/objects/info/alternates &&
	test "$(git -C shared.git count-objects -v | sed -n "s/^in-pack: //p")" = 0
'

for kind in ofs ref several shared; do
	test_expect_success "$kind: the same index" '
		"$CCSIFT" index --lines --repo '$kind'.git --index '$kind'.db >/dev/null &&
		dump '$kind'.db >'$kind'.tables &&
		test_cmp loose.tables '$kind'.tables
	'
done

test_expect_success 'a damaged pack: an error on one line or an index, never a crash' '
	for pct in 5 40 75 90; do
		rm -rf bad.git bad.db* &&
		cp -r ofs.git bad.git &&
		pack=$(ls bad.git/objects/pack/*.pack) &&
		chmod u+w "$pack" &&
		at=$(( $(stat -c %s "$pack") * pct / 100 )) &&
		head -c 64 /dev/zero | tr '\0' '\377' | dd of="$pack" bs=1 seek=$at conv=notrunc 2>/dev/null &&
		rc=0 && { "$CCSIFT" index --lines --repo bad.git --index bad.db >out 2>err || rc=$?; } &&
		say "damaged at $pct%: exit $rc, $(head -c 200 err)" &&
		test "$rc" -lt 2 &&
		if test "$rc" = 1; then test "$(wc -l <err)" = 1 && test_grep "^ccsift index: " err; fi || return 1
	done
'

test_expect_success 'a pack cut short: an error, not a crash' '
	cp -r ofs.git cut.git &&
	pack=$(ls cut.git/objects/pack/*.pack) &&
	chmod u+w "$pack" &&
	truncate -s $(( $(stat -c %s "$pack") * 9 / 10 )) "$pack" &&
	rc=0 && { "$CCSIFT" index --repo cut.git --index cut.db >out 2>err || rc=$?; } &&
	test "$rc" = 1 && test_grep "^ccsift index: " err
'

test_done
