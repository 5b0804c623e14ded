# notmuch-lib.sh: what the notmuch tests share. deliver needs $MD, the Maildir.

# deliver FILE...: put the messages into the Maildir (not indexed yet), each
# under a name of its own.
deliver() {
	local f
	for f in "$@"; do
		cp "$f" "$MD/new/${f%.eml}.ccsift-test" || return 1
	done
}

# ids QUERY: the message ids matching QUERY (no excludes), sorted, one a line.
ids() { notmuch search --exclude=false --output=messages "$1" | sed 's/^id://' | sort; }

# expect_ids QUERY ID...: QUERY matches exactly these messages.
expect_ids() {
	local q=$1
	shift
	printf '%s\n' "$@" | sed '/^$/d' | sort >expect.ids &&
	ids "$q" >actual.ids &&
	{ diff -u expect.ids actual.ids >&2 || { echo "query: $q" >&2; return 1; }; }
}

# prop ID KEY: the value of property KEY on message ID (empty if none).
prop() {
	notmuch dump --include=properties "id:$1" |
		sed -n "s/^#= [^ ]* //p" | tr ' ' '\n' | sed -n "s/^$2=//p" |
		sed 's/%\([0-9a-fA-F][0-9a-fA-F]\)/\\x\1/g' | xargs -0 printf '%b'
}

# nm_new: notmuch new, running the hook; its output in nm-new.out.
nm_new() { notmuch new >nm-new.out 2>&1 || { cat nm-new.out >&2; return 1; }; }

# hold_notmuch_lock MAILROOT NOTMUCH...: hold the database's write lock with
# a `NOTMUCH insert` reading from a FIFO on fd 9 until release_notmuch_lock.
# notmuch insert opens the database before it creates its file in tmp/ of
# MAILROOT/holder, so that file shows the lock is held.
hold_notmuch_lock() {
	local root=$1 i=0
	shift
	rm -f "$TRASH/hold.fifo" && mkfifo "$TRASH/hold.fifo" &&
	{ "$@" insert --create-folder --folder=holder <"$TRASH/hold.fifo" 2>"$TRASH/holder.err" & } &&
	HOLDER_PID=$! &&
	exec 9>"$TRASH/hold.fifo" &&
	while ! ls "$root/holder/tmp/"* >/dev/null 2>&1; do
		i=$((i + 1))
		[ $i -le 100 ] || { echo "the lock holder did not start" >&2; return 1; }
		sleep 0.1
	done
}

# release_notmuch_lock: the holder gets an empty message, fails and exits.
release_notmuch_lock() {
	exec 9>&-
	wait "$HOLDER_PID" || :
}

# decision ID COLUMN: what ccsift tag recorded for message ID in its store
# (core/decisions.h: verdict, was_low, score, threshold, reason, decided,
# model_version, model_until, repo); empty if nothing.
decision() {
	local db="$XDG_DATA_HOME/ccsift/decisions.db"
	test -f "$db" || return 0
	sqlite3 "$db" "SELECT $2 FROM decision WHERE id = '$(printf %s "$1" | sed "s/'/''/g")'"
}

# decided WHERE: how many decisions in the store match the SQL condition.
decided() {
	sqlite3 "$XDG_DATA_HOME/ccsift/decisions.db" "SELECT count(*) FROM decision WHERE $1"
}

# carol_env: the world of the tests where Carol Typo (tests/lib/history.md)
# reads mail with notmuch and its post-new hook: the Maildir $MD, the hook
# directory $HOOKS, notmuch's config in $HOME, ccsift for the hook (notmuch
# passes its environment to it), none of the caller's settings; and the
# people of the mails: NEW sends, DAVE maintains, CC has the list and Carol.
carol_env() {
	MD="$TRASH/mail"
	HOOKS="$TRASH/hooks"
	export CCSIFT="$CCSIFT_BIN"
	export NOTMUCH_CONFIG="$HOME/.notmuch-config"
	unset CCSIFT_CONFIG CCSIFT_QUERY CCSIFT_UNTAG_NEW NOTMUCH_PROFILE NOTMUCH_DATABASE
	NEW='New Person <new@example.org>'
	DAVE='Dave Maintainer <dave@example.org>'
	CAROL='Carol Typo <carol@example.org>'
	CC="netdev@lists.example.org, $CAROL, Bob Treewide <bob@example.org>"
}

# mail_headers FROM TO CC SUBJECT ID [IN-REPLY-TO]: a plain mail's header
# block, each mail dated a minute after the one before (mail_n counts them);
# no Cc: when CC is empty.
mail_n=0
mail_headers() {
	mail_n=$((mail_n + 1))
	printf 'From: %s\nDate: Mon, 2 Jun 2025 08:%02d:00 +0000\nSubject: %s\nTo: %s\n' "$1" "$mail_n" "$4" "$2"
	[ -z "$3" ] || printf 'Cc: %s\n' "$3"
	printf 'Message-ID: <%s>\n' "$5"
	[ -z "${6-}" ] || printf 'In-Reply-To: <%s>\nReferences: <%s>\n' "$6" "$6"
	printf 'MIME-Version: 1.0\nContent-Type: text/plain; charset=UTF-8\n\n'
}

# carol_config LINE...: the ccsift config of Carol Typo (tests/lib/history.md)
# for notmuch: [user] notmuch = true, [repo demo] at $TRASH/repo, then LINEs.
carol_config() {
	mkdir -p "$XDG_CONFIG_HOME/ccsift" &&
	printf '%s\n' "[user]" "notmuch = true" "[repo demo]" "path = $TRASH/repo" "$@" \
		>"$XDG_CONFIG_HOME/ccsift/config"
}

# carol_world NEW_TAGS [LINE...]: the repository of tests/lib/history.md and
# a clone of it, wt (where series-lib.sh makes its diffs), Carol's config
# with always = fs/bar/*, the index, and her notmuch (carol_notmuch).
carol_world() {
	bash "$TEST_DIRECTORY/lib/make-history.sh" repo >/dev/null &&
	git clone -q repo wt &&
	carol_config "always = fs/bar/*" &&
	"$CCSIFT_BIN" index >/dev/null &&
	carol_notmuch "$@"
}

# carol_notmuch NEW_TAGS [LINE...]: a Maildir at $MD and Carol's notmuch
# config ($NOTMUCH_CONFIG) with new.tags NEW_TAGS, then LINEs, and
# contrib/notmuch/post-new as the post-new hook in $HOOKS; runs notmuch new.
carol_notmuch() {
	local tags=$1
	shift
	mkdir -p "$MD/cur" "$MD/new" "$MD/tmp" "$HOOKS" &&
	cp "$TEST_DIRECTORY/../contrib/notmuch/post-new" "$HOOKS/post-new" &&
	printf '%s\n' "[database]" "path=$MD" "hook_dir=$HOOKS" "[user]" "name=Carol Typo" \
		"primary_email=carol@example.org" "[new]" "tags=$tags" "$@" >"$NOTMUCH_CONFIG" &&
	notmuch new >/dev/null
}

# foo_patch_mail OUT ID TO CC: NEW's one-patch change to drivers/net/foo.c
# (low for Carol), its diff made in the clone $TRASH/wt.
foo_patch_mail() {
	{
		mail_headers "$NEW" "$3" "$4" "[PATCH] net: foo: change $2" "$2" &&
		printf 'Rework it.\n\nSigned-off-by: %s\n---\n' "$NEW" &&
		(cd "$TRASH/wt" && printf '\n/* change %s */\n' "$2" >>drivers/net/foo.c && git diff --stat=72 -p &&
		 git checkout -q -- .) &&
		printf -- '-- \n2.39.5\n\n'
	} >"$1"
}

# mail_during_hook WRAPPER MAIL: a ccsift for the hook (CCSIFT=WRAPPER)
# that, once ccsift has run, delivers MAIL and indexes it with notmuch new
# --no-hooks: mail that arrives while the hook runs.
mail_during_hook() {
	printf '%s\n' '#!/bin/sh' "\"$CCSIFT_BIN\" \"\$@\"; rc=\$?" \
		"cp \"$TRASH/$2\" \"$MD/new/${2%.eml}.ccsift-test\" && notmuch new --no-hooks >/dev/null" \
		'exit $rc' >"$1" &&
	chmod +x "$1"
}
