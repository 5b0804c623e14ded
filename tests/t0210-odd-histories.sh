#!/bin/bash
# The index on histories git allows and tidy test histories never have: a
# file that becomes a directory, a symlink that becomes a file, a submodule,
# paths with a tab, a newline or a byte that is not UTF-8, an empty commit,
# a message in Latin-1, a second root, a change of mode only; trees as old
# gits wrote them, and a tree that is broken.
. "$TEST_DIRECTORY/lib/test-lib.sh"

test_need git sqlite3

export GIT_AUTHOR_NAME="Ada Odd" GIT_AUTHOR_EMAIL=ada@example.org
export GIT_COMMITTER_NAME="Mo Maintainer" GIT_COMMITTER_EMAIL=mo@example.org
tick=1700000000
commit() {  # commit ARGS...: git commit, a day after the one before
	tick=$((tick + 86400))
	GIT_AUTHOR_DATE="@$tick +0000" GIT_COMMITTER_DATE="@$tick +0000" \
		git -C odd commit -q "$@"
}

newline_path=$(printf 'new\nline.c')
latin1_path=$(printf 'caf\351.c')

# touches COMMIT-SUBJECT: "status path" lines of that commit, paths in hex
touches() {
	sqlite3 odd.db "SELECT t.status, hex(p.path) FROM touches t JOIN commits c ON c.id = t.cid
		JOIN paths p ON p.id = t.path WHERE c.subject = '$1' ORDER BY p.path"
}
hex() { printf '%s' "$1" | od -An -tx1 | tr -d ' \n' | tr a-f A-F; }

test_expect_success 'setup: an odd history' '
	git init -q -b main odd &&
	echo a >odd/foo &&
	echo t >"odd/tab	name.c" &&
	echo n >"odd/$newline_path" &&
	echo l >"odd/$latin1_path" &&
	git -C odd add -A && commit -m "first" &&
	git -C odd rm -q foo && mkdir odd/foo && echo b >odd/foo/bar &&
	git -C odd add -A && commit -m "file to dir" -m "Reviewed-by: Rita Review <rita@example.org>" &&
	ln -s foo/bar odd/link && git -C odd add link && commit -m "a symlink" &&
	rm odd/link && echo plain >odd/link && git -C odd add link && commit -m "symlink to file" &&
	commit --allow-empty -m "nothing at all" &&
	printf "latin \351 subject\n\nAcked-by: J\351r\364me Ack <jerome@example.org>\n" >msg &&
	GIT_AUTHOR_DATE="@$((tick += 86400)) +0000" GIT_COMMITTER_DATE="@$tick +0000" \
		git -C odd -c i18n.commitEncoding=ISO-8859-1 commit -q --allow-empty -F ../msg &&
	sub=$(git -C odd commit-tree -m sub "$(git -C odd mktree </dev/null)") &&
	git -C odd update-index --add --cacheinfo "160000,$sub,sub" && commit -m "a submodule" &&
	chmod +x "odd/tab	name.c" && git -C odd add "tab	name.c" && commit -m "mode only" &&
	git -C odd checkout -q --orphan other && git -C odd rm -q -rf . &&
	echo o >odd/other.c && git -C odd add other.c && commit -m "second root" &&
	git -C odd checkout -q main &&
	GIT_AUTHOR_DATE="@$((tick += 86400)) +0000" GIT_COMMITTER_DATE="@$tick +0000" \
		git -C odd merge -q --allow-unrelated-histories -m "merge the roots" other &&
	test "$(git -C odd rev-list --count --no-merges HEAD)" = 9
'

test_expect_success 'index takes every non-merge commit of it' '
	"$CCSIFT" index --repo odd --index odd.db >out &&
	test_grep "9 commits added" out &&
	test "$(sqlite3 odd.db "SELECT count(*) FROM commits")" = 9
'

test_expect_success 'a file that becomes a directory: the file deleted, the new file added' '
	touches "file to dir" >actual &&
	printf "D|%s\nA|%s\n" "$(hex foo)" "$(hex foo/bar)" >expect &&
	test_cmp expect actual
'

test_expect_success 'a symlink that becomes a file changes type; a mode is a change' '
	test "$(touches "symlink to file")" = "T|$(hex link)" &&
	test "$(touches "mode only")" = "M|$(hex "tab	name.c")"
'

test_expect_success 'paths with a tab, a newline and a byte that is not UTF-8 are kept as they are' '
	touches first >actual &&
	for p in "$latin1_path" foo "$newline_path" "tab	name.c"; do
		echo "A|$(hex "$p")"
	done | sort >expect &&
	sort actual >actual.sorted &&
	test_cmp expect actual.sorted
'

test_expect_success 'a submodule is a path like another; an empty commit touches nothing' '
	test "$(touches "a submodule")" = "A|$(hex sub)" &&
	test -z "$(touches "nothing at all")" &&
	test "$(sqlite3 odd.db "SELECT nfiles FROM commits WHERE subject = '\''nothing at all'\''")" = 0
'

test_expect_success 'a trailer in a Latin-1 message credits its person' '
	sqlite3 odd.db "SELECT p.email, r.role FROM credits r JOIN people p ON p.id = r.person
		WHERE p.email IN ('\''jerome@example.org'\'', '\''rita@example.org'\'') ORDER BY p.email" >actual &&
	test "$(wc -l <actual)" = 2 &&
	test_grep "^jerome@example.org|" actual &&
	test_grep "^rita@example.org|" actual
'

test_expect_success 'with line counts too, the same commits and touches' '
	"$CCSIFT" index --lines --repo odd --index lines.db >out &&
	test_grep "9 commits added" out &&
	q="SELECT c.oid, t.status, hex(p.path) FROM touches t JOIN commits c ON c.id = t.cid
		JOIN paths p ON p.id = t.path ORDER BY 1, 3" &&
	sqlite3 odd.db "$q" >a && sqlite3 lines.db "$q" >b &&
	test_cmp a b &&
	test "$(sqlite3 lines.db "SELECT added FROM touches t JOIN paths p ON p.id = t.path
		JOIN commits c ON c.id = t.cid WHERE c.subject = '\''file to dir'\'' AND p.path = '\''foo/bar'\''")" = 1
'

test_expect_success 'a patch to the path with a newline is scored, and filtered byte for byte' '
	git -C odd format-patch -1 --stdout ":/first" | sed "2a Cc: Ada Odd <ada@example.org>" >mail &&
	"$CCSIFT" score --repo odd --index odd.db --me ada@example.org mail >score &&
	test_grep "^verdict: relevant" score &&
	"$CCSIFT" filter --repo odd --index odd.db --me ada@example.org <mail >filtered &&
	grep -v "^X-Ccsift" filtered >body &&
	test_cmp mail body
'

test_expect_success 'a sparse checkout (a per-worktree config) and a repository others borrow from are indexed' '
	git clone -q odd sparse &&
	git -C sparse sparse-checkout set foo &&
	test "$(git -C sparse config extensions.worktreeConfig)" = true &&
	"$CCSIFT" index --repo sparse --index sparse.db >out &&
	test_grep "9 commits added" out &&
	git clone -q --bare odd lender.git &&
	git -C lender.git config core.repositoryformatversion 1 &&
	git -C lender.git config extensions.preciousObjects true &&
	"$CCSIFT" index --repo lender.git --index lender.db >out &&
	test_grep "9 commits added" out
'

# raw OID: the 20 bytes of a hex object id, for a tree written by hand
raw() { printf "$(printf %s "$1" | sed "s/../\\\\x&/g")"; }

test_expect_success 'trees as old gits wrote them (mode 100664, a leading zero) are read as git reads them' '
	git init -q -b main old &&
	echo one >old/old.c && mkdir old/dir && echo d >old/dir/d.c &&
	git -C old add -A && git -C old commit -q -m "as git writes it" &&
	blob=$(git -C old rev-parse HEAD:old.c) && dir=$(git -C old rev-parse HEAD:dir) &&
	{ printf "040000 dir\0" && raw $dir && printf "100664 old.c\0" && raw $blob; } >tree &&
	t1=$(git -C old hash-object -w -t tree --literally --stdin <tree) &&
	c1=$(git -C old commit-tree -p HEAD -m "the same, as an old git wrote it" $t1) &&
	blob2=$(echo two | git -C old hash-object -w --stdin) &&
	{ printf "040000 dir\0" && raw $dir && printf "100664 old.c\0" && raw $blob2; } >tree &&
	t2=$(git -C old hash-object -w -t tree --literally --stdin <tree) &&
	c2=$(git -C old commit-tree -p $c1 -m "old.c changed, as an old git wrote it" $t2) &&
	git -C old update-ref refs/heads/main $c2 &&
	git -C old diff-tree -r --name-status $c1^ $c1 >git-says &&
	test ! -s git-says &&
	"$CCSIFT" index --repo old --index old.db >out &&
	test_grep "3 commits added" out &&
	test "$(sqlite3 old.db "SELECT count(*) FROM touches t JOIN commits c ON c.id = t.cid
		WHERE c.oid = '\''$c1'\''")" = 0 &&
	test "$(sqlite3 old.db "SELECT t.status || '\'' '\'' || p.path FROM touches t
		JOIN commits c ON c.id = t.cid JOIN paths p ON p.id = t.path
		WHERE c.oid = '\''$c2'\''")" = "M old.c"
'

test_expect_success 'a broken tree stops the index in one line, naming the commit' '
	blob=$(git -C old rev-parse main~2:old.c) && dir=$(git -C old rev-parse main~2:dir) &&
	for bad in "10x644 old.c" "100644 " "100644 old.c"; do
		rm -rf broken.git broken.db* &&
		git clone -q --bare old broken.git &&
		case "$bad" in
		"100644 old.c") { printf "040000 dir\0" && raw $dir && printf "100644 old.c\0\001\002"; } >tree ;;
		*) { printf "040000 dir\0" && raw $dir && printf "%s\0" "$bad" && raw $blob; } >tree ;;
		esac &&
		t=$(git -C broken.git hash-object -w -t tree --literally --stdin <tree) &&
		c=$(git -C broken.git commit-tree -p main -m "broken" $t) &&
		git -C broken.git update-ref refs/heads/main $c &&
		test_must_fail "$CCSIFT" index --repo broken.git --index broken.db 2>err &&
		test "$(wc -l <err)" = 1 &&
		test_grep "$c" err || return 1
	done
'

test_expect_success 'with --lines, a file over 16 MiB is left uncounted, its neighbours counted' '
	git init -q -b main big &&
	yes "one line of a generated table" | head -c 17000000 >big/table.c &&
	echo small >big/small.c &&
	git -C big add -A && git -C big commit -q -m "a big generated table" &&
	"$CCSIFT" index --lines --repo big --index big.db >out &&
	test "$(sqlite3 big.db "SELECT p.path, coalesce(t.added, '\''-'\''), coalesce(t.removed, '\''-'\'')
		FROM touches t JOIN paths p ON p.id = t.path ORDER BY 1" | tr "\n" " ")" = "small.c|1|0 table.c|-|- "
'

test_expect_success 'nor is it read whole to find a rename' '
	seq 1 20 >big/mid.c && git -C big add mid.c && git -C big commit -q -m "mid.c" &&
	{ echo "a first line" && cat big/table.c; } >big/table2.c && git -C big rm -q table.c &&
	git -C big mv mid.c mid2.c && echo 21 >>big/mid2.c &&
	git -C big add -A && git -C big commit -q -m "the table moved and edited, mid.c too" &&
	"$CCSIFT" index --repo big --index big.db >out &&
	test "$(sqlite3 big.db "SELECT t.status || '\'' '\'' || p.path FROM touches t JOIN paths p ON p.id = t.path
		JOIN commits c ON c.id = t.cid WHERE c.subject LIKE '\''the table moved%'\'' ORDER BY p.path" |
		tr "\n" " ")" = "R mid2.c D table.c A table2.c "
'

test_expect_success 'a MAINTAINERS over 16 MiB, or one that is a symbolic link, is taken as absent' '
	printf "THE REST\nM:\tMo Maintainer <mo@example.org>\nF:\t*\n" >big/MAINTAINERS &&
	git -C big add MAINTAINERS && git -C big commit -q -m "MAINTAINERS" &&
	"$CCSIFT" index --repo big --index big.db >out &&
	test "$(sqlite3 big.db "SELECT count(*) FROM meta WHERE k = '\''maintainers'\''")" = 1 &&
	{ cat big/MAINTAINERS && yes "X:	padding" | head -c 17000000; } >big/M2 && mv big/M2 big/MAINTAINERS &&
	git -C big add MAINTAINERS && git -C big commit -q -m "MAINTAINERS grows" &&
	"$CCSIFT" index --repo big --index big.db >out &&
	test "$(sqlite3 big.db "SELECT count(*) FROM meta WHERE k = '\''maintainers'\''")" = 0 &&
	printf "THE REST\nM:\tMo Maintainer <mo@example.org>\nF:\t*\n" >big/M.txt &&
	git -C big rm -q MAINTAINERS && ln -s M.txt big/MAINTAINERS &&
	git -C big add -A && git -C big commit -q -m "MAINTAINERS as a link" &&
	"$CCSIFT" index --repo big --index big.db >out &&
	test "$(sqlite3 big.db "SELECT count(*) FROM meta WHERE k = '\''maintainers'\''")" = 0
'

test_expect_success 'a NUL in MAINTAINERS does not hide the sections after it' '
	printf "FIRST\nM:\tX <x@example.org>\nF:\tzzz/\n\000junk\n\nFOO\nM:\tAda Odd <ada@example.org>\nF:\tfoo/\n" \
		>big/M.txt &&
	git -C big rm -q MAINTAINERS && cp big/M.txt big/MAINTAINERS &&
	git -C big add -A && git -C big commit -q -m "MAINTAINERS with a NUL" &&
	"$CCSIFT" index --repo big --index big.db >out &&
	test "$(sqlite3 big.db "SELECT count(*) FROM maintainer_sections")" = 2 &&
	test "$(sqlite3 big.db "SELECT count(*) FROM maintainer_emails WHERE email = '\''ada@example.org'\''")" = 1
'

# A 4 MB subject compresses to nothing in git; kept whole, eight of them made
# an index of 32 MB that every delivery to the file read.
test_expect_success 'a subject of megabytes is kept to its first 1024 bytes' '
	git init -q -b main subj &&
	echo a >subj/f && git -C subj add f && git -C subj commit -q -m first &&
	for i in 1 2 3 4 5 6 7 8; do
		echo $i >subj/f && git -C subj add f &&
		{ printf "%s" "$i" && head -c 4000000 /dev/zero | tr "\0" "s" &&
		  printf "é\n\nReviewed-by: R <r@example.org>\n"; } >msg &&
		git -C subj commit -q -F ../msg || return 1
	done &&
	"$CCSIFT" index --repo subj --index subj.db >out &&
	test "$(sqlite3 subj.db "SELECT max(length(CAST(subject AS BLOB))) FROM commits")" = 1024 &&
	test "$(stat -c %s subj.db)" -lt 4000000
'

test_expect_success 'ccsift index --status: a commit libgit2 cannot read leaves "how far unknown", not "0 behind"' '
	git init -q -b main stuck && echo a >stuck/f && git -C stuck add f && git -C stuck commit -q -m base &&
	"$CCSIFT" index --repo stuck --index stuck.db >out &&
	tree=$(git -C stuck write-tree) && parent=$(git -C stuck rev-parse HEAD) &&
	bad=$(printf "tree %s\nparent %s\nauthor NoEmail 1700000000 +0000\ncommitter NoEmail 1700000000 +0000\n\nbad\n" \
		$tree $parent | git -C stuck hash-object -t commit -w --literally --stdin) &&
	git -C stuck update-ref refs/heads/main $bad &&
	echo b >stuck/f && git -C stuck add f && git -C stuck commit -q -m after &&
	rc=0 && { "$CCSIFT" index --repo stuck --index stuck.db --status >status || rc=$?; } &&
	test $rc = 3 &&
	test_grep "behind, how far unknown" status &&
	! grep "0 commits behind" status
'

test_expect_success 'ccsift index: that commit stops it in one line that names the commit' '
	bad=$(git -C stuck rev-parse HEAD^) &&
	test_must_fail "$CCSIFT" index --repo stuck --index stuck.db 2>err &&
	test "$(wc -l <err)" = 1 &&
	test_grep "commit $bad cannot be read" err
'

# 100,000 levels overflowed the stack of the previous binary (SIGSEGV).
test_expect_success 'trees nested deeper than git allows stop the index in one line, not the stack' '
	rm -rf deep.git deep.db* && git clone -q --bare old deep.git &&
	top=$(python3 - deep.git 5000 <<-\EOF
	import hashlib, os, sys, zlib
	repo, depth = sys.argv[1], int(sys.argv[2])
	def put(body):
	    raw = b"tree %d\0" % len(body) + body
	    oid = hashlib.sha1(raw).hexdigest()
	    d = os.path.join(repo, "objects", oid[:2])
	    os.makedirs(d, exist_ok=True)
	    with open(os.path.join(d, oid[2:]), "wb") as f:
	        f.write(zlib.compress(raw))
	    return oid
	oid = put(b"")
	for _ in range(depth):
	    oid = put(b"40000 d\0" + bytes.fromhex(oid))
	print(oid)
	EOF
	) &&
	c=$(git -C deep.git commit-tree -p main -m "deep" $top) &&
	git -C deep.git update-ref refs/heads/main $c &&
	test_must_fail "$CCSIFT" index --repo deep.git --index deep.db 2>err &&
	test "$(wc -l <err)" = 1 &&
	test_grep "nested deeper than 4096" err
'

test_expect_success 'a repository of SHA-256 objects is refused, in one line' '
	git init -q --object-format=sha256 sha256 &&
	test_must_fail "$CCSIFT" index --repo sha256 --index sha256.db 2>err &&
	test "$(wc -l <err)" = 1 &&
	test_grep "objectformat" err
'

test_expect_success 'trailers are read as git reads them: below a line of dashes, not below its divider' '
	git init -q dashes &&
	echo a >dashes/a.c && git -C dashes add a.c &&
	git -C dashes commit -q -F - <<-\EOF &&
	a: the table of results

	Before and after:

	  case     before   after
	  -------  ------   -----
	  boot     12 s     3 s
	---8<---
	scissors

	Reviewed-by: Rita Reviewer <rita@example.org>
	Tested-by: Tess Tester <tess@example.org>
	EOF
	echo b >>dashes/a.c &&
	git -C dashes commit -q -a -F - <<-\EOF &&
	a: notes after the divider

	Reviewed-by: Rita Reviewer <rita@example.org>
	--- 
	v2: Acked-by: Fake Person <fake@example.org>
	Acked-by: Fake Person <fake@example.org>
	EOF
	"$CCSIFT" index --repo dashes --index dashes.db >/dev/null &&
	for c in HEAD~1 HEAD; do
		git -C dashes log -1 --format=%B $c | git interpret-trailers --parse |
			sed -n "s/^\(Reviewed-by\|Tested-by\|Acked-by\): .*<\(.*\)>$/\2/p" || return 1
	done | sort >expect &&
	test "$(wc -l <expect)" = 3 &&
	sqlite3 dashes.db "SELECT p.email FROM credits r JOIN people p ON p.id = r.person
		WHERE r.role IN (2, 3, 4) ORDER BY p.email" >actual &&
	test_cmp expect actual
'

test_done
