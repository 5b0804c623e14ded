# series-lib.sh: patch series as git send-email writes them, for the notmuch
# tests (after notmuch-lib.sh's carol_env): cover letters with a diffstat,
# patches threaded under them, review replies quoting a patch. The diffs are
# made in $TRASH/wt, a clone of make-history.sh's repository.

date_n=0
# headers FROM TO CC SUBJECT ID [IN-REPLY-TO [REFERENCES]]
headers() {
	date_n=$((date_n + 1))
	printf 'From: %s\nDate: Mon, 2 Jun 2025 %02d:%02d:00 +0000\nSubject: %s\nTo: %s\n' \
		"$1" $((8 + date_n / 60)) $((date_n % 60)) "$4" "$2"
	[ -z "$3" ] || printf 'Cc: %s\n' "$3"
	printf 'Message-ID: <%s>\n' "$5"
	[ -z "${6-}" ] || printf 'In-Reply-To: <%s>\nReferences: %s\n' "$6" "${7:-<$6>}"
	printf 'MIME-Version: 1.0\nContent-Type: text/plain; charset=UTF-8\nContent-Transfer-Encoding: 8bit\n\n'
}

# diff_of N FILE...: the diffstat and diff of a change N to each FILE, made in
# a clone of the history (a line added near the end).
diff_of() {
	local n=$1 f
	shift
	(
		cd "$TRASH/wt" &&
		for f in "$@"; do
			printf '\n/* change %s: keep the FOO_RX_BUDGET in sync */\n' "$n" >>"$f"
		done &&
		git diff --stat=72 -p &&
		git checkout -q -- .
	)
}

# patch_mail OUT ID COVER-ID "[v2 ]K/N" SUBJECT FILE...: patch K of N, a reply to
# the cover letter, as git send-email threads it.
patch_mail() {
	local out=$1 id=$2 cover=$3 kn=$4 subject=$5
	shift 5
	{
		headers "$NEW" "$DAVE" "$CC" "[PATCH $kn] $subject" "$id" "$cover" &&
		printf '%s\n\nSigned-off-by: %s\n---\n' "Rework $subject." "$NEW" &&
		diff_of "$id" "$@" &&
		printf -- '-- \n2.39.5\n\n'
	} >"$out"
}

# cover_mail OUT ID "[v2 ]0/N" SUBJECT FILE...: the cover letter, with the
# diffstat of the whole series.
cover_mail() {
	local out=$1 id=$2 kn=$3 subject=$4
	shift 4
	{
		headers "$NEW" "$DAVE" "$CC" "[PATCH $kn] $subject" "$id" &&
		printf 'This series reworks the FOO RX path.\n\nNew Person (%s):\n  ...\n\n' "${kn#*/}" &&
		(cd "$TRASH/wt" && for f in "$@"; do echo "/* series */" >>"$f"; done &&
		 git diff --stat=72 && git checkout -q -- .) &&
		printf '\n-- \n2.39.5\n\n'
	} >"$out"
}

# reply_mail OUT ID FROM TO CC SUBJECT IN-REPLY-TO REFERENCES [QUOTED-FILE]:
# a review reply, quoting the diff of QUOTED-FILE (a patch mail) if given.
reply_mail() {
	local out=$1 id=$2 from=$3 to=$4 cc=$5 subject=$6 irt=$7 refs=$8 quoted=${9-}
	{
		headers "$from" "$to" "$cc" "$subject" "$id" "$irt" "$refs" &&
		printf 'On Mon, 2 Jun 2025, New Person wrote:\n' &&
		{ [ -z "$quoted" ] || sed -n '/^diff --git/,/^-- $/p' "$quoted" | sed '/^-- $/d' | sed 's/^/> /'; } &&
		printf '\nLooks fine to me, but please keep the budget per queue.\n'
	} >"$out"
}
