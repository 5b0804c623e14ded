#!/bin/bash
# Two things `ccsift tag` does for the person using it (tracker issue 13,
# item 7), with real notmuch and the post-new hook:
#
# - a one-line summary of what it decided, on stderr, when stderr is a
#   terminal (`script` gives it one), or with --verbose; nothing otherwise
#   (the hook's output goes wherever notmuch new's goes);
# - a cover letter without a diffstat (git send-email --no-cover-letter
#   stats, or a hand-written [PATCH 0/N]) follows its series: when every
#   patch is low, the cover is low too; when one patch is relevant, it is
#   not.
#
# The user is Carol Typo (tests/lib/history.md): patches to
# drivers/net/foo.[ch] are low for her, fs/bar/bar.c is relevant (`always`).

. "${TEST_DIRECTORY:=$(cd "$(dirname "$0")" && pwd)}/lib/test-lib.sh"

test_need notmuch git script

. "$TEST_DIRECTORY/lib/notmuch-lib.sh"
carol_env

# headers SUBJECT ID [IN-REPLY-TO]: from NEW to DAVE, CC on Cc.
headers() { mail_headers "$NEW" "$DAVE" "$CC" "$@"; }

# patch_mail OUT ID COVER-ID K/N SUBJECT FILE
patch_mail() {
	{
		headers "[PATCH $4] $5" "$2" "$3" &&
		printf 'Rework it.\n\nSigned-off-by: %s\n---\n' "$NEW" &&
		(cd "$TRASH/wt" && printf '\n/* change %s */\n' "$2" >>"$6" && git diff --stat=72 -p &&
		 git checkout -q -- .) &&
		printf -- '-- \n2.39.5\n\n'
	} >"$1"
}

# bare_cover OUT ID 0/N SUBJECT: a cover letter with no diffstat at all.
bare_cover() {
	{
		headers "[PATCH $3] $4" "$2" &&
		printf 'This series reworks the FOO RX path.\n\nThanks,\nNew\n'
	} >"$1"
}

test_expect_success 'setup: history, index, config, Maildir, notmuch with the hook' '
	carol_world "new;inbox"
'

test_expect_success 'setup: a low series and a mixed one, both with covers without a diffstat' '
	bare_cover a0.eml a0@new.example.org 0/2 "net: foo: RX budget" &&
	patch_mail a1.eml a1@new.example.org a0@new.example.org 1/2 "net: foo: one" drivers/net/foo.c &&
	patch_mail a2.eml a2@new.example.org a0@new.example.org 2/2 "net: foo: two" drivers/net/foo.h &&
	bare_cover b0.eml b0@new.example.org 0/2 "net: foo: settings" &&
	patch_mail b1.eml b1@new.example.org b0@new.example.org 1/2 "net: foo: read" drivers/net/foo.c &&
	patch_mail b2.eml b2@new.example.org b0@new.example.org 2/2 "fs: bar: expose" fs/bar/bar.c &&
	"$CCSIFT_BIN" parse --json a0.eml >a0.json &&
	python3 -c "import json; p = json.load(open(\"a0.json\")); assert p[\"kind\"] == \"cover\" and not p[\"files\"], p" &&
	for m in a1 a2 b1; do
		"$CCSIFT_BIN" score --json $m.eml | grep -q "\"verdict\" : \"low\"" || return 1
	done &&
	"$CCSIFT_BIN" score --json b2.eml | grep -q "\"verdict\" : \"relevant\""
'

test_expect_success 'tag: silent when stderr is no terminal' '
	cp a0.eml a1.eml a2.eml "$MD/new/" &&
	notmuch new >/dev/null 2>&1 &&
	notmuch tag +new -- "*" &&
	"$CCSIFT_BIN" tag --dry-run >out 2>err &&
	test ! -s err
'

test_expect_success 'the cover without a diffstat of an all-low series is low, with its patches' '
	expect_ids tag:lowcc a0@new.example.org a1@new.example.org a2@new.example.org &&
	test "$(decision a0@new.example.org verdict)" = low &&
	"$CCSIFT_BIN" explain id:a0@new.example.org >explain.out &&
	test_grep "every patch of its series is low" explain.out
'

test_expect_success '... and the cover of a series with a relevant patch is not low' '
	cp b0.eml b1.eml b2.eml "$MD/new/" &&
	nm_new &&
	expect_ids "tag:lowcc and thread:{id:b0@new.example.org}" &&
	test "$(decision b1@new.example.org verdict)" = relevant
'

test_expect_success 'tag --verbose: the summary line, also when stderr is no terminal' '
	"$CCSIFT_BIN" tag --verbose --query "*" --dry-run >out 2>err &&
	cat err &&
	test "$(wc -l <err)" = 1 &&
	grep -E "^ccsift tag: 6 decided: 3 low, 3 relevant, 0 not a patch, 0 unknown; 0 messages would change \([0-9.]+ s\)$" err
'

test_expect_success 'tag on a terminal: the summary line on stderr' '
	cp a0.eml c0.eml && sed -i "s/a0@new/c0@new/; s/RX budget/RX budget again/" c0.eml &&
	cp c0.eml "$MD/new/" &&
	notmuch new --no-hooks >/dev/null &&
	script -qec "\"$CCSIFT_BIN\" tag 2>&1 >/dev/null" /dev/null >tty.out &&
	cat tty.out &&
	tr -d "\r" <tty.out >tty.txt &&
	grep -E "^ccsift tag: 1 decided: 0 low, 0 relevant, 0 not a patch, 1 unknown; [0-9]+ messages? changed \([0-9.]+ s\)$" tty.txt
'

test_done
