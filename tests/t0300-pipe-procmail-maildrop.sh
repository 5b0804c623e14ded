#!/bin/bash
# contrib/procmailrc and contrib/maildrop-filter, end to end: real procmail and
# real maildrop run `ccsift filter` on patch mail and deliver it into Maildirs.
#
# Recipients (tests/lib/history.md), for a patch to drivers/net/foo.c as of
# 2025-06-01: alice (substantive author) and dave (M: in MAINTAINERS) are
# relevant, bob (one tree-wide commit) and carol (one typo fix) are low.
# Each recipient is a user with their own HOME, config and index.
#
# What procmail itself does, checked here against a pass-through filter, and
# accounted for in the expectations: it drops the mbox "From " line when it
# writes a Maildir file, and it appends a newline to a message that does not
# end with an empty line ("\n\n"), CRLF messages included.  maildrop writes
# the message byte for byte.

. "${TEST_DIRECTORY:=$(cd "$(dirname "$0")" && pwd)}/lib/test-lib.sh"

CONTRIB=$(cd "$TEST_DIRECTORY/../contrib" && pwd)
MH="$TEST_DIRECTORY/lib/make-history.sh"
ASOF=2025-06-01T00:00:00Z
# test-lib exports CCSIFT; procmail and maildrop see it only where we say so
# (the wrapper below runs $CCSIFT_BIN, its absolute path).
test_need procmail maildrop git

# --- helpers ---------------------------------------------------------------

# A fresh, empty Maildir at $1 (with the Maildir++ folder .lowcc for maildrop;
# procmail creates its lowcc/ itself).
fresh_maildir() {
	rm -rf "$1" &&
	mkdir -p "$1/cur" "$1/new" "$1/tmp" "$1/.lowcc/cur" "$1/.lowcc/new" "$1/.lowcc/tmp"
}

# The messages delivered under Maildir $1, one path a line, sorted.
delivered() { find "$1" -type f | sort; }

# only_message DIR: DIR/new holds exactly one message, and nothing else under
# the Maildir root ($2) holds any; prints its path.
only_message() {
	local all
	all=$(delivered "$2") || return 1
	set -- "$1"/new/*
	if [ $# -ne 1 ] || [ ! -f "$1" ] || [ "$all" != "$1" ]; then
		echo "expected exactly one message in $1; delivered:" >&2
		printf '%s\n' "${all:-(nothing)}" >&2
		return 1
	fi
	printf '%s\n' "$1"
}

nothing_delivered() {
	local all
	all=$(delivered "$1") || return 1
	[ -z "$all" ] && return 0
	echo "expected no delivery, found:" >&2
	printf '%s\n' "$all" >&2
	return 1
}

. "$TEST_DIRECTORY/lib/delivery-lib.sh"

U="$TRASH/users"

# run_procmail USER MSG [VAR=VALUE...]: deliver MSG the way an MTA runs
# procmail as a mail filter: contrib/procmailrc as the rcfile, settings as
# command-line assignments.  Without -p procmail starts from an empty
# environment, so ccsift finds its config and index through HOME alone.
run_procmail() {
	local user=$1 msg=$2
	shift 2
	procmail -m HOME="$U/$user" MAILDIR="$U/$user/pm" DEFAULT="$U/$user/pm/" \
		CCSIFT="$TRASH/ccsift-asof" "$@" "$CONTRIB/procmailrc" <"$msg"
}

# run_maildrop USER MSG [VAR=VALUE...]: deliver MSG with maildrop in manual
# mode: the user's filter file sets DEFAULT and MAILDIR and includes
# contrib/maildrop-filter; maildrop imports CCSIFT and the XDG variables from
# the environment (it resets HOME to the password file's).
run_maildrop() {
	local user=$1 msg=$2
	shift 2
	env CCSIFT="$TRASH/ccsift-asof" XDG_CONFIG_HOME="$U/$user/.config" \
		XDG_CACHE_HOME="$U/$user/.cache" "$@" maildrop "$U/$user/mailfilter" <"$msg"
}

# --- fixtures ----------------------------------------------------------------

# ccsift with a fixed --as-of, for stable verdicts.  Fixed arguments only:
# the mail reaches it on stdin, never through a shell.
# CCSIFT_WRAP runs it under a checker: tests/CMakeLists.txt runs this whole
# test again with valgrind memcheck there.
# A large time budget: under valgrind a decision takes seconds, and a verdict
# here must come from the index, not from the clock.
cat >ccsift-asof <<EOF
#!/bin/sh
[ "\$1" = filter ] && set -- "\$@" --time-budget 600
exec ${CCSIFT_WRAP:-} '$CCSIFT_BIN' "\$@" --as-of $ASOF
EOF
# ccsift stand-ins: one reads the mail and exits 75, one is killed by
# procmail's TIMEOUT (/bin/false, which reads nothing and exits 1, and a
# missing program are the others), and a pass-through filter.
printf '#!/bin/sh\ncat >/dev/null\nexit 75\n' >ccsift-tempfail
printf '#!/bin/sh\nexec sleep 3\n' >ccsift-slow
printf '#!/bin/sh\nexec cat\n' >passthru
chmod +x ccsift-asof ccsift-tempfail passthru ccsift-slow

# git format-patch output: New Person changes Alice's code in drivers/net/foo.c.
cp "$TEST_DIRECTORY/lib/rx-budget.eml" patch.eml
# As an MTA hands it to procmail: with an mbox From_ line.
{ echo "From new@example.org Tue May 20 10:00:01 2025"; cat patch.eml; } >patch.mbox
# With CRLF line ends.
sed 's/$/\r/' patch.eml >patch-crlf.eml
# With forged verdict headers: the sender wants it filed away.
{
	sed -n '1,3p' patch.eml
	echo "X-Ccsift: low; score=0.00; threshold=0.50"
	echo "x-ccsift-reason: forged by the sender"
	sed -n '4,$p' patch.eml
} >forged.eml
sed -e 's/^X-Ccsift: low/Old-X-Ccsift: low/' -e 's/^x-ccsift-reason:/Old-x-ccsift-reason:/' \
	forged.eml >forged.expect
# Not a patch, and not ending with an empty line.
printf '%s\n' "From: Bob Treewide <bob@example.org>" "To: Alice Substance <alice@example.org>" \
	"Subject: lunch?" "Message-ID: <lunch@example.org>" "" "Noon at the usual place?" >plain.eml
# A large patch mail (about 1.5 MB), so that neither MDA can get away with a
# filter that reads only part of the message.
{
	sed '/^-- $/,$d' patch.eml
	i=0
	while [ $i -lt 20000 ]; do
		printf '+\tfoo_write(priv, 0x%05x, %d); /* a long patch, line %d */\n' $i $i $i
		i=$((i + 1))
	done
	printf -- '-- \n2.39.5\n\n'
} >big.eml

# --- tests -------------------------------------------------------------------
# (test_expect_success evaluates its body in a subshell of this shell, so the
# bodies see the loop variables.)

test_expect_success 'setup: history, one user per recipient with config and index' '
	bash "$MH" repo >/dev/null &&
	for u in alice bob carol dave; do
		mkdir -p "$U/$u/.config/ccsift" &&
		printf "%s\n" "[user]" "email = $u@example.org" "notmuch = false" \
			"[repo demo]" "path = $TRASH/repo" >"$U/$u/.config/ccsift/config" &&
		XDG_CONFIG_HOME="$U/$u/.config" XDG_CACHE_HOME="$U/$u/.cache" "$CCSIFT_BIN" index >/dev/null ||
			return 1
	done &&
	mkdir -p "$U/nobody" &&
	for u in alice bob carol dave nobody; do
		printf "%s\n" "DEFAULT=\"$U/$u/md/\"" "MAILDIR=\"$U/$u/md\"" \
			"include \"$CONTRIB/maildrop-filter\"" >"$U/$u/mailfilter" &&
		chmod 600 "$U/$u/mailfilter" || return 1
	done
'

test_expect_success 'ccsift score: alice and dave relevant, bob and carol low' '
	for u in alice:relevant bob:low carol:low dave:relevant; do
		XDG_CONFIG_HOME="$U/${u%%:*}/.config" XDG_CACHE_HOME="$U/${u%%:*}/.cache" \
			"$CCSIFT_BIN" score --as-of $ASOF patch.eml >score.out &&
		test_grep "^verdict: ${u#*:};" score.out || return 1
	done
'

test_expect_success 'procmail itself: drops From_ in Maildir, appends a newline if needed' '
	for m in patch.eml patch.mbox patch-crlf.eml plain.eml; do
		fresh_maildir "$U/alice/pm" &&
		run_procmail alice $m CCSIFT="$TRASH/passthru" &&
		f=$(only_message "$U/alice/pm" "$U/alice/pm") &&
		sed "/^From new@example.org /d" $m >in.noFrom &&
		procmail_expect in.noFrom >expect &&
		cmp expect "$f" || return 1
	done &&
	test "$(wc -c <"$f")" = $(($(wc -c <plain.eml) + 1))
'

for spec in alice:relevant:inbox dave:relevant:inbox bob:low:lowcc carol:low:lowcc; do
	IFS=: read -r user verdict folder <<<"$spec"
	sub=/$folder && [ "$folder" != inbox ] || sub=
	test_expect_success "procmail: $user gets the patch as $verdict, in $folder" '
		fresh_maildir "$U/$user/pm" &&
		run_procmail $user patch.eml &&
		f=$(only_message "$U/$user/pm$sub" "$U/$user/pm") &&
		check_added "$f" patch.eml $verdict
	'
done

for spec in alice:relevant:inbox dave:relevant:inbox bob:low:.lowcc carol:low:.lowcc; do
	IFS=: read -r user verdict folder <<<"$spec"
	sub=/$folder && [ "$folder" != inbox ] || sub=
	test_expect_success "maildrop: $user gets the patch as $verdict, in $folder" '
		fresh_maildir "$U/$user/md" &&
		run_maildrop $user patch.eml &&
		f=$(only_message "$U/$user/md$sub" "$U/$user/md") &&
		check_added "$f" patch.eml $verdict
	'
done

# mutt's <pipe-message>ccsift explain (the README's macro) hands it the
# delivered message on standard input, our headers and all.
test_expect_success 'ccsift explain on standard input: the delivered message, the verdict its header says' '
	f=$(ls "$U"/bob/pm/lowcc/new/* | grep -v "\.stripped$") &&
	grep "^X-Ccsift: low" "$f" &&
	XDG_CONFIG_HOME="$U/bob/.config" XDG_CACHE_HOME="$U/bob/.cache" "$TRASH/ccsift-asof" explain <"$f" >out &&
	cat out && grep "^Low relevance: " out &&
	f=$(ls "$U"/alice/pm/new/* | grep -v "\.stripped$") &&
	grep "^X-Ccsift: relevant" "$f" &&
	XDG_CONFIG_HOME="$U/alice/.config" XDG_CACHE_HOME="$U/alice/.cache" "$TRASH/ccsift-asof" explain <"$f" >out &&
	grep "^Relevant: " out
'

test_expect_success 'procmail: the From_ line stays first (mbox delivery, relevant and low)' '
	fresh_maildir "$U/alice/pm" &&
	run_procmail alice patch.mbox DEFAULT="$U/alice/inbox.mbox" &&
	nothing_delivered "$U/alice/pm" &&
	head -n 1 "$U/alice/inbox.mbox" >first &&
	head -n 1 patch.mbox >expect &&
	test_cmp expect first &&
	check_added "$U/alice/inbox.mbox" patch.mbox relevant 1 &&
	fresh_maildir "$U/bob/pm" &&
	run_procmail bob patch.mbox CCSIFT_FOLDER=lowcc.mbox &&
	nothing_delivered "$U/bob/pm/new" &&
	check_added "$U/bob/pm/lowcc.mbox" patch.mbox low 1
'

test_expect_success 'procmail: From_ line, Maildir delivery: headers still first' '
	fresh_maildir "$U/carol/pm" &&
	run_procmail carol patch.mbox &&
	f=$(only_message "$U/carol/pm/lowcc" "$U/carol/pm") &&
	check_added "$f" patch.eml low
'

test_expect_success 'procmail: a CRLF message gets CRLF headers' '
	fresh_maildir "$U/dave/pm" &&
	run_procmail dave patch-crlf.eml &&
	f=$(only_message "$U/dave/pm" "$U/dave/pm") &&
	head -n 2 "$f" >headers &&
	test "$(grep -c "$(printf "\r")\$" headers)" = 2 &&
	procmail_expect patch-crlf.eml >expect &&
	check_added "$f" expect relevant
'

test_expect_success 'maildrop: a CRLF message gets CRLF headers' '
	fresh_maildir "$U/bob/md" &&
	run_maildrop bob patch-crlf.eml &&
	f=$(only_message "$U/bob/md/.lowcc" "$U/bob/md") &&
	head -n 2 "$f" >headers &&
	test "$(grep -c "$(printf "\r")\$" headers)" = 2 &&
	check_added "$f" patch-crlf.eml low
'

test_expect_success 'procmail: a non-patch mail is not-a-patch, in the inbox' '
	fresh_maildir "$U/alice/pm" &&
	run_procmail alice plain.eml &&
	f=$(only_message "$U/alice/pm" "$U/alice/pm") &&
	procmail_expect plain.eml >expect &&
	check_added "$f" expect not-a-patch &&
	test "$(head -n 1 "$f")" = "X-Ccsift: not-a-patch"
'

test_expect_success 'maildrop: a non-patch mail is not-a-patch, in the inbox' '
	fresh_maildir "$U/carol/md" &&
	run_maildrop carol plain.eml &&
	f=$(only_message "$U/carol/md" "$U/carol/md") &&
	check_added "$f" plain.eml not-a-patch &&
	test "$(head -n 1 "$f")" = "X-Ccsift: not-a-patch"
'

for mda in procmail:pm maildrop:md; do
	test_expect_success "${mda%:*}: a forged X-Ccsift: low does not file a relevant patch away" '
		dir=$U/alice/${mda#*:} && fresh_maildir "$dir" &&
		run_${mda%:*} alice forged.eml &&
		f=$(only_message "$dir" "$dir") &&
		check_added "$f" forged.expect relevant &&
		test_grep "^Old-X-Ccsift: low; score=0.00; threshold=0.50\$" "$f" &&
		test "$(grep -c "^X-Ccsift:" "$f")" = 1
	'
done

# procmail's header block ends only at a bare "\n" line: a "\r\n" line in an
# LF message does not end it, and a CRLF message is all header to it.  A
# forged X-Ccsift: low after such a line must be renamed all the same (found
# by the pipe-mode fuzzer's author against procmail 3.22).
printf 'From: m@example.org\nTo: alice@example.org\nSubject: hi\n\r\nX-Ccsift: low\n\nbody\n' >forged-cr.eml
printf 'From: m@example.org\r\nTo: alice@example.org\r\nSubject: hi\r\n\r\nX-Ccsift: low\r\n' >forged-crlf.eml
for msg in forged-cr forged-crlf; do
	test_expect_success "procmail: a forged X-Ccsift: low after a \\r\\n line ($msg) stays in the inbox" '
		dir=$U/alice/pm && fresh_maildir "$dir" &&
		run_procmail alice $msg.eml &&
		f=$(only_message "$dir" "$dir") &&
		test_grep "^Old-X-Ccsift: low" "$f" &&
		test "$(grep -c "^X-Ccsift:" "$f")" = 1
	'
done

# maildrop hands an empty message to the filter as it is (procmail makes it
# one empty line).  ccsift must treat it like any other unparsable mail.
test_expect_success 'maildrop: an empty message: the two headers, no GLib criticals' '
	fresh_maildir "$U/alice/md" &&
	: >empty.eml &&
	run_maildrop alice empty.eml 2>err &&
	cat err &&
	f=$(only_message "$U/alice/md" "$U/alice/md") &&
	check_added "$f" empty.eml unknown &&
	! grep CRITICAL err
'

test_expect_success 'procmail: a 1.5 MB patch goes through whole' '
	fresh_maildir "$U/alice/pm" &&
	run_procmail alice big.eml &&
	f=$(only_message "$U/alice/pm" "$U/alice/pm") &&
	check_added "$f" big.eml relevant
'

test_expect_success 'maildrop: a 1.5 MB patch goes through whole' '
	fresh_maildir "$U/bob/md" &&
	run_maildrop bob big.eml &&
	f=$(only_message "$U/bob/md/.lowcc" "$U/bob/md") &&
	check_added "$f" big.eml low
'

test_expect_success 'procmail: no config: delivered unchanged plus X-Ccsift: unknown' '
	fresh_maildir "$U/nobody/pm" &&
	run_procmail nobody patch.eml &&
	f=$(only_message "$U/nobody/pm" "$U/nobody/pm") &&
	check_added "$f" patch.eml unknown &&
	test "$(head -n 1 "$f")" = "X-Ccsift: unknown"
'

test_expect_success 'maildrop: no config: delivered unchanged plus X-Ccsift: unknown' '
	fresh_maildir "$U/nobody/md" &&
	run_maildrop nobody patch.eml &&
	f=$(only_message "$U/nobody/md" "$U/nobody/md") &&
	check_added "$f" patch.eml unknown &&
	test "$(head -n 1 "$f")" = "X-Ccsift: unknown"
'

test_expect_success 'procmail and maildrop: config but no index: unknown, delivered' '
	mkdir -p "$U/noindex/.config/ccsift" &&
	cp "$U/alice/.config/ccsift/config" "$U/noindex/.config/ccsift/" &&
	printf "%s\n" "DEFAULT=\"$U/noindex/md/\"" "MAILDIR=\"$U/noindex/md\"" \
		"include \"$CONTRIB/maildrop-filter\"" >"$U/noindex/mailfilter" &&
	chmod 600 "$U/noindex/mailfilter" &&
	fresh_maildir "$U/noindex/pm" &&
	run_procmail noindex patch.eml &&
	f=$(only_message "$U/noindex/pm" "$U/noindex/pm") &&
	check_added "$f" patch.eml unknown &&
	fresh_maildir "$U/noindex/md" &&
	run_maildrop noindex patch.eml &&
	f=$(only_message "$U/noindex/md" "$U/noindex/md") &&
	check_added "$f" patch.eml unknown
'

for fail in "$TRASH/ccsift-tempfail" /bin/false "$TRASH/nonexistent/ccsift"; do
	test_expect_success "procmail: ccsift failing (${fail##*/}) defers with 75, delivers nothing" '
		fresh_maildir "$U/alice/pm" && rm -f "$U/alice/inbox.mbox" &&
		rc=0 && run_procmail alice patch.mbox CCSIFT="$fail" DEFAULT="$U/alice/inbox.mbox" 2>err || rc=$? &&
		cat err &&
		test "$rc" = 75 &&
		# /bin/false may exit before procmail has written the message to it
		test_grep "Program failure\\|Failed to execute\\|cannot open\\|Error while writing to" err &&
		nothing_delivered "$U/alice/pm" &&
		test ! -e "$U/alice/inbox.mbox"
	'
	test_expect_success "maildrop: ccsift failing (${fail##*/}) exits 75, delivers nothing" '
		fresh_maildir "$U/alice/md" &&
		rc=0 && run_maildrop alice patch.eml CCSIFT="$fail" 2>err || rc=$? &&
		cat err &&
		test "$rc" = 75 &&
		nothing_delivered "$U/alice/md"
	'
done

test_expect_success 'procmail: ccsift killed at TIMEOUT: defers with 75, delivers nothing' '
	fresh_maildir "$U/alice/pm" &&
	rc=0 && run_procmail alice patch.eml CCSIFT="$TRASH/ccsift-slow" TIMEOUT=1 2>err || rc=$? &&
	cat err &&
	test "$rc" = 75 &&
	test_grep Timeout err &&
	nothing_delivered "$U/alice/pm"
'

test_expect_success 'procmail: the ~/.procmailrc way (INCLUDERC) files the mail the same' '
	printf "%s\n" "MAILDIR=\$HOME/Maildir" "DEFAULT=\$MAILDIR/" "CCSIFT=$TRASH/ccsift-asof" \
		"INCLUDERC=$CONTRIB/procmailrc" >"$U/carol/.procmailrc" &&
	fresh_maildir "$U/carol/Maildir" &&
	procmail -m HOME="$U/carol" "$U/carol/.procmailrc" <patch.mbox &&
	f=$(only_message "$U/carol/Maildir/lowcc" "$U/carol/Maildir") &&
	check_added "$f" patch.eml low
'

# DEFAULT cannot come from the environment (maildrop resets it), so it is the
# one line put before the file: a relevant verdict must not reach /var/mail.
test_expect_success 'procmail: INCLUDERC, ccsift failing: 75, the recipes after it do not run' '
	printf "%s\n" "MAILDIR=\$HOME/Maildir" "DEFAULT=\$MAILDIR/" "CCSIFT=$TRASH/ccsift-tempfail" \
		"INCLUDERC=$CONTRIB/procmailrc" ":0" "after-include/" >"$U/carol/.procmailrc" &&
	fresh_maildir "$U/carol/Maildir" &&
	rc=0 && procmail -m HOME="$U/carol" "$U/carol/.procmailrc" <patch.mbox 2>err || rc=$? &&
	cat err &&
	test "$rc" = 75 &&
	nothing_delivered "$U/carol/Maildir"
'

test_expect_success 'maildrop: the filter file as the whole ~/.mailfilter, settings from the environment' '
	{ echo "DEFAULT=\"$U/dave/md/\"" && cat "$CONTRIB/maildrop-filter"; } >"$U/dave/mf-copy" &&
	chmod 600 "$U/dave/mf-copy" &&
	fresh_maildir "$U/dave/md" &&
	env CCSIFT="$TRASH/ccsift-asof" MAILDIR="$U/dave/md" XDG_CONFIG_HOME="$U/bob/.config" \
		XDG_CACHE_HOME="$U/bob/.cache" maildrop "$U/dave/mf-copy" <patch.eml &&
	f=$(only_message "$U/dave/md/.lowcc" "$U/dave/md") &&
	check_added "$f" patch.eml low
'

# maildrop(1) says any group or world permission is refused; 2.9.3 in manual
# mode refuses a world-writable file, or one owned by someone else, and
# accepts 0644 and 0660.
test_expect_success 'maildrop refuses a world-writable filter file (75, nothing delivered)' '
	chmod 666 "$U/dave/mf-copy" &&
	fresh_maildir "$U/dave/md" &&
	rc=0 && env MAILDIR="$U/dave/md" maildrop "$U/dave/mf-copy" <patch.eml 2>err || rc=$? &&
	cat err &&
	test "$rc" = 75 &&
	test_grep "world-writable" err &&
	nothing_delivered "$U/dave/md" &&
	chmod 600 "$U/dave/mf-copy"
'

if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
	test_expect_success 'maildrop refuses a filter file owned by another user (75, nothing delivered)' '
		cp "$U/dave/mf-copy" "$U/dave/mf-nobody" &&
		chown nobody "$U/dave/mf-nobody" &&
		fresh_maildir "$U/dave/md" &&
		rc=0 && env MAILDIR="$U/dave/md" maildrop "$U/dave/mf-nobody" <patch.eml 2>err || rc=$? &&
		cat err &&
		test "$rc" = 75 &&
		nothing_delivered "$U/dave/md"
	'
fi

test_expect_success 'ccsift exits 75 when it cannot write or read the message' '
	rc=0 && "$CCSIFT_BIN" filter <patch.eml >/dev/full 2>err || rc=$? &&
	test "$rc" = 75 &&
	rc=0 && "$CCSIFT_BIN" filter <patch.eml >&- 2>err || rc=$? &&
	test "$rc" = 75 &&
	rc=0 && "$CCSIFT_BIN" filter <&- >out 2>err || rc=$? &&
	test "$rc" = 75
'

test_done
