#!/bin/bash
# contrib/notmuch/procmailrc-insert and contrib/notmuch/maildrop-insert, end to
# end: real procmail and real maildrop run `ccsift filter`, then deliver with
# real `notmuch insert` into a scratch Maildir and notmuch database, tagging
# low-relevance patch mail +lowcc -inbox.
#
# Users (tests/lib/history.md), for a patch to drivers/net/foo.c as of
# 2025-06-01: carol (one typo fix) is low, alice (substantive author) is
# relevant.  Each has her own HOME, notmuch config (new.tags new;inbox for
# carol, unread;inbox for alice), Maildir, notmuch database, ccsift config
# (identities from notmuch: [user] notmuch = true, no email) and index.
#
# What the MDAs and notmuch do themselves, accounted for below: procmail
# appends a newline to a message that does not end with an empty line, and
# passes a leading mbox "From " line to programs; notmuch insert turns that
# line into an "X-Envelope-From:" header field.  maildrop passes the message
# byte for byte.

. "${TEST_DIRECTORY:=$(cd "$(dirname "$0")" && pwd)}/lib/test-lib.sh"

CONTRIB=$(cd "$TEST_DIRECTORY/../contrib" && pwd)
MH="$TEST_DIRECTORY/lib/make-history.sh"
ASOF=2025-06-01T00:00:00Z

test_need procmail maildrop notmuch git timeout

U="$TRASH/users"

# --- helpers ---------------------------------------------------------------

# nm USER ARGS...: notmuch on USER's database.
nm() {
	local user=$1
	shift
	NOTMUCH_CONFIG="$U/$user/.notmuch-config" notmuch "$@"
}

# fresh_db USER NEWTAGS: an empty Maildir and notmuch database for USER.
fresh_db() {
	local user=$1 newtags=$2
	rm -rf "$U/$user/mail" &&
	mkdir -p "$U/$user/mail/cur" "$U/$user/mail/new" "$U/$user/mail/tmp" &&
	printf '%s\n' "[database]" "path=$U/$user/mail" "[user]" "name=$user" \
		"primary_email=$user@example.org" "[new]" "tags=$newtags" \
		"[search]" "exclude_tags=deleted;spam" >"$U/$user/.notmuch-config" &&
	nm "$user" new --quiet &&
	test "$(nm "$user" count '*')" = 0
}

# mail_files USER: the message files in USER's Maildir (not the database,
# not the lock holder's folder), one a line, sorted.
mail_files() {
	find "$U/$1/mail" -path "$U/$1/mail/.notmuch" -prune -o \
		-path "$U/$1/mail/holder" -prune -o -type f -print | sort
}

# only_file USER: USER's Maildir holds exactly one message; prints its path.
only_file() {
	local all
	all=$(mail_files "$1") || return 1
	if [ -z "$all" ] || [ "$(printf '%s\n' "$all" | wc -l)" -ne 1 ]; then
		echo "expected exactly one message file; found:" >&2
		printf '%s\n' "${all:-(nothing)}" >&2
		return 1
	fi
	printf '%s\n' "$all"
}

# nothing_stored USER MSGID: MSGID is not in USER's database, and no file in
# the Maildir.
nothing_stored() {
	local n all
	n=$(nm "$1" count "id:$2") &&
	all=$(mail_files "$1") || return 1
	[ "$n" = 0 ] && [ -z "$all" ] && return 0
	echo "expected nothing stored; count id:$2 = $n; files:" >&2
	printf '%s\n' "${all:-(none)}" >&2
	return 1
}

# stored_once USER MSGID OUT: MSGID is in USER's database exactly once, with
# one file, the only file of the Maildir; its raw text goes to OUT.
stored_once() {
	local user=$1 id=$2 out=$3 f files
	test "$(nm "$user" count "id:$id")" = 1 || { echo "count id:$id is not 1" >&2; return 1; }
	test "$(nm "$user" count '*')" = 1 || { echo "the database holds more than one message" >&2; return 1; }
	f=$(only_file "$user") &&
	files=$(nm "$user" search --output=files "id:$id") &&
	{ test "$files" = "$f" || { echo "notmuch file '$files', Maildir file '$f'" >&2; return 1; }; } &&
	nm "$user" show --format=raw "id:$id" >"$out" &&
	cmp "$f" "$out"
}

# tags_of USER MSGID: the message's tags, one a line, sorted.
tags_of() { nm "$1" search --output=tags "id:$2" | sort; }

. "$TEST_DIRECTORY/lib/delivery-lib.sh"
. "$TEST_DIRECTORY/lib/notmuch-lib.sh"

# run_procmail USER MSG [VAR=VALUE...]: deliver MSG as an MTA runs procmail
# as a mail filter, contrib/notmuch/procmailrc-insert as the rcfile.
# procmail starts from an empty environment: HOME, NOTMUCH_CONFIG and CCSIFT
# are command-line assignments (ccsift finds its config and index under HOME,
# and its identities through NOTMUCH_CONFIG).
run_procmail() {
	local user=$1 msg=$2
	shift 2
	procmail -m HOME="$U/$user" NOTMUCH_CONFIG="$U/$user/.notmuch-config" \
		CCSIFT="$TRASH/ccsift-asof" "$@" "$CONTRIB/notmuch/procmailrc-insert" <"$msg" 9>&-
}

# run_maildrop USER MSG [VAR=VALUE...]: deliver MSG with maildrop in manual
# mode; the user's filter file includes contrib/notmuch/maildrop-insert, and
# maildrop imports CCSIFT, NOTMUCH_CONFIG and the XDG variables.
run_maildrop() {
	local user=$1 msg=$2
	shift 2
	env CCSIFT="$TRASH/ccsift-asof" NOTMUCH_CONFIG="$U/$user/.notmuch-config" \
		XDG_CONFIG_HOME="$U/$user/.config" XDG_CACHE_HOME="$U/$user/.cache" \
		"$@" maildrop "$U/$user/mailfilter" <"$msg" 9>&-
}

# hold_lock USER: another process holds USER's notmuch write lock until
# release_lock: a `notmuch insert` that has opened the database and waits for
# its message on a FIFO (the test keeps the FIFO's write end open on fd 9,
# which nothing else may inherit, or the holder never sees its end of file).
hold_lock() { hold_notmuch_lock "$U/$1/mail" nm "$1"; }
release_lock() { release_notmuch_lock; }

# --- fixtures ----------------------------------------------------------------

# A large time budget: a verdict must come from the index, not from the
# clock (a sanitizer build on a loaded machine takes seconds).
cat >ccsift-asof <<EOF
#!/bin/sh
[ "\$1" = filter ] && set -- "\$@" --time-budget 600
exec '$CCSIFT_BIN' "\$@" --as-of $ASOF
EOF
chmod +x ccsift-asof

cp "$TEST_DIRECTORY/lib/rx-budget.eml" patch.eml
PATCH_ID=20250520100000.1-new@example.org
# As an MTA hands it to procmail: with an mbox From_ line.
FROM_LINE="From new@example.org Tue May 20 10:00:01 2025"
{ echo "$FROM_LINE"; cat patch.eml; } >patch.mbox
# Not a patch, and not ending with an empty line.
printf '%s\n' "From: Bob Treewide <bob@example.org>" \
	"To: Alice Substance <alice@example.org>, Carol Typo <carol@example.org>" \
	"Subject: lunch?" "Date: Wed, 21 May 2025 09:00:00 +0000" \
	"Message-ID: <lunch@example.org>" "" "Noon at the usual place?" >plain.eml
PLAIN_ID=lunch@example.org
sed -e "s/^Message-ID: <lunch@/Message-ID: <lunch2@/" -e "s/^Subject: lunch?/Subject: Re: lunch?/" \
	plain.eml >plain2.eml

# --- tests -------------------------------------------------------------------

test_expect_success 'setup: history; carol and alice with ccsift config, index, notmuch' '
	bash "$MH" repo >/dev/null &&
	for u in carol:"new;inbox" alice:"unread;inbox"; do
		user=${u%%:*} &&
		mkdir -p "$U/$user/.config/ccsift" &&
		printf "%s\n" "[user]" "notmuch = true" \
			"[repo demo]" "path = $TRASH/repo" >"$U/$user/.config/ccsift/config" &&
		XDG_CONFIG_HOME="$U/$user/.config" XDG_CACHE_HOME="$U/$user/.cache" \
			"$CCSIFT_BIN" index >/dev/null &&
		printf "%s\n" "include \"$CONTRIB/notmuch/maildrop-insert\"" >"$U/$user/mailfilter" &&
		chmod 600 "$U/$user/mailfilter" &&
		fresh_db "$user" "${u#*:}" || return 1
	done
'

test_expect_success 'ccsift score: carol low, alice relevant (identities from notmuch)' '
	for u in carol:low alice:relevant; do
		user=${u%%:*} &&
		NOTMUCH_CONFIG="$U/$user/.notmuch-config" XDG_CONFIG_HOME="$U/$user/.config" \
			XDG_CACHE_HOME="$U/$user/.cache" "$CCSIFT_BIN" score --as-of $ASOF patch.eml >score.out &&
		test_grep "^verdict: ${u#*:};" score.out || return 1
	done
'

test_expect_success 'the lock holder holds the write lock: a plain insert waits' '
	fresh_db carol "new;inbox" &&
	hold_lock carol &&
	{ nm carol insert <plain.eml 9>&- & } &&
	pid=$! &&
	sleep 2 &&
	kill -0 $pid &&
	test "$(nm carol count "id:$PLAIN_ID")" = 0 &&
	release_lock &&
	wait $pid &&
	test "$(nm carol count "id:$PLAIN_ID")" = 1
'

# procmail

# procmail and maildrop, the same way: low for carol, relevant for alice.
for mda in procmail maildrop; do
	test_expect_success "$mda: carol gets the patch as low, tagged lowcc, not inbox" '
		fresh_db carol "new;inbox" &&
		run_$mda carol patch.eml &&
		stored_once carol $PATCH_ID raw &&
		check_added raw patch.eml low &&
		tags_of carol $PATCH_ID >tags &&
		printf "%s\n" lowcc new >expect &&
		test_cmp expect tags &&
		test "$(nm carol search --output=messages tag:lowcc)" = "id:$PATCH_ID"
	'

	test_expect_success "$mda: alice gets the patch as relevant, in the inbox, no lowcc" '
		fresh_db alice "unread;inbox" &&
		run_$mda alice patch.eml &&
		stored_once alice $PATCH_ID raw &&
		check_added raw patch.eml relevant &&
		tags_of alice $PATCH_ID >tags &&
		printf "%s\n" inbox unread >expect &&
		test_cmp expect tags &&
		test "$(nm alice count tag:lowcc)" = 0
	'
done

test_expect_success 'procmail: a non-patch mail is not-a-patch, in the inbox, no lowcc' '
	fresh_db carol "new;inbox" &&
	run_procmail carol plain.eml &&
	stored_once carol $PLAIN_ID raw &&
	procmail_expect plain.eml >expect.msg &&
	check_added raw expect.msg not-a-patch &&
	tags_of carol $PLAIN_ID >tags &&
	printf "%s\n" inbox new >expect &&
	test_cmp expect tags
'

test_expect_success 'procmail: an mbox From_ line becomes X-Envelope-From (notmuch insert)' '
	fresh_db carol "new;inbox" &&
	run_procmail carol patch.mbox &&
	stored_once carol $PATCH_ID raw &&
	test "$(head -n 1 raw)" = "X-Envelope-From: ${FROM_LINE#From }" &&
	{ echo "X-Envelope-From: ${FROM_LINE#From }" && cat patch.eml; } >expect.msg &&
	check_added raw expect.msg low 1 &&
	test "$(nm carol count tag:lowcc)" = 1 &&
	test "$(nm carol count tag:inbox)" = 0
'

test_expect_success 'procmail: three messages in one database, each once, only the patch lowcc' '
	fresh_db carol "new;inbox" &&
	run_procmail carol patch.eml &&
	run_procmail carol plain.eml &&
	run_procmail carol plain2.eml &&
	test "$(nm carol count "*")" = 3 &&
	test "$(mail_files carol | wc -l)" = 3 &&
	nm carol search --output=messages tag:lowcc >low &&
	echo "id:$PATCH_ID" >expect &&
	test_cmp expect low &&
	test "$(nm carol count tag:inbox)" = 2 &&
	test "$(nm carol count "tag:inbox and tag:lowcc")" = 0
'

test_expect_success 'procmail: CCSIFT_LOW_TAGS, with notmuch insert options' '
	fresh_db carol "new;inbox" &&
	run_procmail carol patch.eml CCSIFT_LOW_TAGS="--folder=lowcc --create-folder +lowcc +later -inbox -new" &&
	tags_of carol $PATCH_ID >tags &&
	printf "%s\n" later lowcc >expect &&
	test_cmp expect tags &&
	nm carol search --output=files "id:$PATCH_ID" | grep "/mail/lowcc/"
'

test_expect_success 'procmail: write lock held past INSERT_TIMEOUT: exits 75, nothing stored' '
	fresh_db carol "new;inbox" &&
	hold_lock carol &&
	start=$(date +%s) &&
	rc=0 && run_procmail carol patch.eml INSERT_TIMEOUT=2 2>err || rc=$? &&
	end=$(date +%s) &&
	cat err &&
	test "$rc" = 75 &&
	test $((end - start)) -lt 10 &&
	test_grep "Program failure (124)" err &&
	nothing_stored carol $PATCH_ID &&
	release_lock &&
	nothing_stored carol $PATCH_ID &&
	run_procmail carol patch.eml &&
	stored_once carol $PATCH_ID raw &&
	check_added raw patch.eml low
'

test_expect_success 'procmail: write lock held, relevant mail: exits 75, nothing stored' '
	fresh_db alice "unread;inbox" &&
	hold_lock alice &&
	rc=0 && run_procmail alice plain.eml INSERT_TIMEOUT=1 2>err || rc=$? &&
	cat err &&
	test "$rc" = 75 &&
	nothing_stored alice $PLAIN_ID &&
	release_lock &&
	nothing_stored alice $PLAIN_ID
'

test_expect_success 'procmail: notmuch insert fails (no notmuch config): 75, nothing stored' '
	fresh_db carol "new;inbox" &&
	rc=0 && run_procmail carol patch.eml NOTMUCH_CONFIG="$U/carol/missing-config" 2>err || rc=$? &&
	cat err &&
	test "$rc" = 75 &&
	nothing_stored carol $PATCH_ID
'

test_expect_success 'procmail: ccsift filter fails: 75, nothing stored' '
	fresh_db carol "new;inbox" &&
	rc=0 && run_procmail carol patch.eml CCSIFT=/bin/false 2>err || rc=$? &&
	cat err &&
	test "$rc" = 75 &&
	nothing_stored carol $PATCH_ID
'

test_expect_success 'procmail: the ~/.procmailrc way (INCLUDERC, defaults for NOTMUCH and the rest)' '
	fresh_db carol "new;inbox" &&
	printf "%s\n" "CCSIFT=$TRASH/ccsift-asof" \
		"INCLUDERC=$CONTRIB/notmuch/procmailrc-insert" ":0" "not-reached/" >"$U/carol/.procmailrc" &&
	procmail -m HOME="$U/carol" "$U/carol/.procmailrc" <patch.eml &&
	test ! -e "$U/carol/not-reached" &&
	stored_once carol $PATCH_ID raw &&
	check_added raw patch.eml low &&
	tags_of carol $PATCH_ID >tags &&
	printf "%s\n" lowcc new >expect &&
	test_cmp expect tags
'

# maildrop

test_expect_success 'maildrop: a non-patch mail is not-a-patch, in the inbox, byte for byte' '
	fresh_db carol "new;inbox" &&
	run_maildrop carol plain.eml &&
	stored_once carol $PLAIN_ID raw &&
	check_added raw plain.eml not-a-patch &&
	tags_of carol $PLAIN_ID >tags &&
	printf "%s\n" inbox new >expect &&
	test_cmp expect tags
'

test_expect_success 'maildrop: three messages in one database, each once, only the patch lowcc' '
	fresh_db carol "new;inbox" &&
	run_maildrop carol patch.eml &&
	run_maildrop carol plain.eml &&
	run_maildrop carol plain2.eml &&
	test "$(nm carol count "*")" = 3 &&
	test "$(mail_files carol | wc -l)" = 3 &&
	nm carol search --output=messages tag:lowcc >low &&
	echo "id:$PATCH_ID" >expect &&
	test_cmp expect low &&
	test "$(nm carol count "tag:inbox and tag:lowcc")" = 0
'

test_expect_success 'maildrop: write lock held past INSERT_TIMEOUT: exits 75, nothing stored' '
	fresh_db carol "new;inbox" &&
	hold_lock carol &&
	start=$(date +%s) &&
	rc=0 && run_maildrop carol patch.eml INSERT_TIMEOUT=2 2>err || rc=$? &&
	end=$(date +%s) &&
	cat err &&
	test "$rc" = 75 &&
	test $((end - start)) -lt 10 &&
	nothing_stored carol $PATCH_ID &&
	release_lock &&
	nothing_stored carol $PATCH_ID &&
	run_maildrop carol patch.eml &&
	stored_once carol $PATCH_ID raw &&
	check_added raw patch.eml low
'

test_expect_success 'maildrop: write lock held, relevant mail: exits 75, nothing stored' '
	fresh_db alice "unread;inbox" &&
	hold_lock alice &&
	rc=0 && run_maildrop alice plain.eml INSERT_TIMEOUT=1 2>err || rc=$? &&
	cat err &&
	test "$rc" = 75 &&
	nothing_stored alice $PLAIN_ID &&
	release_lock &&
	nothing_stored alice $PLAIN_ID
'

test_expect_success 'maildrop: notmuch insert fails (no notmuch config): 75, nothing stored' '
	fresh_db carol "new;inbox" &&
	rc=0 && run_maildrop carol patch.eml NOTMUCH_CONFIG="$U/carol/missing-config" 2>err || rc=$? &&
	cat err &&
	test "$rc" = 75 &&
	nothing_stored carol $PATCH_ID
'

test_expect_success 'maildrop: ccsift filter fails: 75, nothing stored' '
	fresh_db carol "new;inbox" &&
	rc=0 && run_maildrop carol patch.eml CCSIFT=/bin/false 2>err || rc=$? &&
	cat err &&
	test "$rc" = 75 &&
	nothing_stored carol $PATCH_ID
'

test_done
