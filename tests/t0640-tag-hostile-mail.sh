#!/bin/bash
# ccsift tag against hostile mail in a real notmuch database: each message
# gets a verdict (unknown where it cannot be decided, with the reason), the
# run exits 0, the good patch among them is still low, and the bounds of
# ccsift filter hold here too (64 MiB, 5000 files, the time budget: a message
# file that never ends), also for a subject of 300,000 words.
#
# The time budget is only tested with a message that takes forever: the
# other runs get a budget no machine needs, so nothing here depends on speed.

. "${TEST_DIRECTORY:=$(cd "$(dirname "$0")" && pwd)}/lib/test-lib.sh"

test_need notmuch git python3
MD="$TRASH/mail"
export NOTMUCH_CONFIG="$HOME/.notmuch-config"
. "$TEST_DIRECTORY/lib/notmuch-lib.sh"
P="$TEST_DIRECTORY/lib/rx-budget.eml"

# one_verdict ID VERDICT [REASON-REGEX]
one_verdict() {
	local v r
	v=$(decision "$1" verdict) r=$(decision "$1" reason)
	[ "$v" = "$2" ] || { echo "$1: verdict '$v', expected $2 ($r)" >&2; return 1; }
	[ -z "${3-}" ] || echo "$r" | grep -Eq "$3" || { echo "$1: reason '$r'" >&2; return 1; }
}

test_expect_success 'setup: history, index, notmuch (no hook: ccsift tag is run here)' '
	bash "$TEST_DIRECTORY/lib/make-history.sh" repo >/dev/null &&
	mkdir -p "$XDG_CONFIG_HOME/ccsift" "$MD/cur" "$MD/new" "$MD/tmp" &&
	printf "%s\n" "[user]" "email = carol@example.org" "notmuch = false" \
		"[repo demo]" "path = $TRASH/repo" >"$XDG_CONFIG_HOME/ccsift/config" &&
	"$CCSIFT_BIN" index >/dev/null &&
	printf "%s\n" "[database]" "path=$MD" "[user]" "primary_email=carol@example.org" \
		"[new]" "tags=new;inbox" >"$NOTMUCH_CONFIG"
'

# Each a message with its own Message-ID.
id_header() { printf 'Message-ID: <%s@hostile.example>\n' "$1"; }
sed -n '1,/^$/p' "$P" | grep -v "^Message-ID:" >head.part
sed '1,/^$/d' "$P" >body.part

test_expect_success 'setup: the mail' '
	{ id_header good; cat head.part body.part; } >good.eml &&
	{ id_header nul; printf "X-Junk: a\0b\n"; cat head.part; printf "nul\0here\n"; cat body.part; } >nul.eml &&
	{ id_header utf8; sed "s/^Subject: .*/Subject: [PATCH] \xff\xfe\xc3(/" head.part; cat body.part; } >utf8.eml &&
	{ id_header headers; seq 1 100000 | sed "s/^/X-Junk-Header: /"; cat head.part body.part; } >headers.eml &&
	{ id_header longline; cat head.part; head -c 10000000 /dev/zero | tr "\0" a; printf "\n"; cat body.part; } >longline.eml &&
	{ id_header many; cat head.part; echo "---";
	  i=0; while [ $i -lt 5001 ]; do
		printf "diff --git a/d/f%d.c b/d/f%d.c\n--- a/d/f%d.c\n+++ b/d/f%d.c\n@@ -1 +1 @@\n-a\n+b\n" $i $i $i $i
		i=$((i + 1)); done; } >many.eml &&
	{ id_header huge; cat head.part body.part; head -c $((65 << 20)) /dev/zero | tr "\0" "\n"; } >huge.eml &&
	{ id_header forged; printf "X-Ccsift: relevant\n"; cat head.part body.part; } >forged.eml &&
	{ id_header nobody; head -c -1 head.part | sed "\$d"; } >nobody.eml &&
	deliver good.eml nul.eml utf8.eml headers.eml longline.eml many.eml huge.eml forged.eml nobody.eml &&
	notmuch new --no-hooks >/dev/null 2>&1 &&
	test "$(notmuch count tag:new)" = 9
'

test_expect_success 'ccsift tag decides every one of them and exits 0' '
	"$CCSIFT_BIN" tag --time-budget 600 >out 2>err; rc=$?; cat out err; test $rc = 0 &&
	test "$(decided 1)" = 9
'

test_expect_success 'the good patch is low, and so are its odd but honest variants' '
	one_verdict good@hostile.example low &&
	one_verdict nul@hostile.example low &&
	one_verdict utf8@hostile.example low &&
	one_verdict headers@hostile.example low &&
	one_verdict forged@hostile.example low
'

test_expect_success 'over the bounds: unknown, the bound as the reason' '
	one_verdict huge@hostile.example unknown "over the 67108864-byte limit" &&
	one_verdict many@hostile.example unknown "touches 5001 files, over the limit of 5000"
'

test_expect_success 'no body: not a patch; a 10 MB line: a verdict' '
	one_verdict nobody@hostile.example not-a-patch &&
	v=$(decision longline@hostile.example verdict) && test -n "$v"
'

# A message file on a hung filesystem never ends: a FIFO with no writer.
test_expect_success 'over the time budget (a message file that never ends): unknown; the next one is tagged' '
	{ id_header hung; cat head.part body.part; } >hung.eml &&
	{ id_header after; cat head.part body.part; } >after.eml &&
	deliver hung.eml after.eml &&
	notmuch new --no-hooks >/dev/null 2>&1 &&
	f=$(notmuch search --output=files id:hung@hostile.example) &&
	rm "$f" && mkfifo "$f" &&
	timeout 300 "$CCSIFT_BIN" tag --time-budget 5 >out 2>err; rc=$?; cat out err; test $rc = 0 &&
	one_verdict hung@hostile.example unknown "over the time budget of 5 s" &&
	one_verdict after@hostile.example low &&
	rm "$f"
'

# notmuch's query parser took 5.2 GB for the phrase of a subject of
# 300,000 words: the query takes its first words (cmd-tag.c). GMime took
# 60 bytes a word to decode it: a mail's subjects are bounded (prescan.h),
# so the longest it decides has 12,000 words, and that one is unknown.
test_expect_success 'a [PATCH v2] with a subject of 12,000 words: decided, in bounded memory' '
	# 59 kB: under the 64 KiB bound on a mail'"'"'s subjects
	{ id_header wordy; printf "Subject: [PATCH v2]"; seq 12000 | awk "{ printf \" w%d\", \$1 % 100 }"; printf "\n";
	  grep -v "^Subject:" head.part; cat body.part; } >wordy.eml &&
	{ id_header longer; printf "Subject: [PATCH v2]"; seq 300000 | awk "{ printf \" w%d\", \$1 % 100 }"; printf "\n";
	  grep -v "^Subject:" head.part; cat body.part; } >longer.eml &&
	{ id_header after2; cat head.part body.part; } >after2.eml &&
	deliver wordy.eml longer.eml after2.eml &&
	notmuch new --no-hooks >/dev/null 2>&1 &&
	test "$(notmuch count tag:new and id:wordy@hostile.example)" = 1 &&
	test -z "$(decision wordy@hostile.example verdict)" &&
	test -z "$(decision after2@hostile.example verdict)" &&
	(
		# AddressSanitizer reserves terabytes of address space
		[ "${CCSIFT_SANITIZED:-0}" = 1 ] || ulimit -v 1500000
		timeout 300 "$CCSIFT_BIN" tag --time-budget 600 >out 2>err
	); rc=$?; cat out err; test $rc = 0 &&
	one_verdict wordy@hostile.example low &&
	one_verdict longer@hostile.example unknown "subjects of over 65536 bytes in all" &&
	one_verdict after2@hostile.example low
'

test_done
