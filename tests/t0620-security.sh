#!/bin/bash
# Mail is hostile input, and so is a repository someone else prepared:
#  - mail content never reaches a shell or a program's arguments (the real
#    procmail and maildrop recipes, with shell syntax in every header and
#    file name; ccsift itself executes nothing);
#  - a path named in a patch is never opened on the filesystem (strace);
#  - nothing in the repository is executed or trusted (hooks, core.fsmonitor,
#    a .ccsift file);
#  - the index is created with the user's umask.
# World-writable config and index files are refused: t0600.

. "${TEST_DIRECTORY:=$(cd "$(dirname "$0")" && pwd)}/lib/test-lib.sh"

CONTRIB=$(cd "$TEST_DIRECTORY/../contrib" && pwd)
test_need procmail maildrop strace git

ASOF=2025-06-01T00:00:00Z
# LeakSanitizer cannot run under ptrace, and its check clones a thread.
[ "${CCSIFT_SANITIZED:-0}" = 1 ] && export ASAN_OPTIONS=detect_leaks=0
CANARY="$TRASH/canary"
P="$TEST_DIRECTORY/lib/rx-budget.eml"

# no_pwned: none of the commands planted in mail or repository ran.
no_pwned() {
	local found
	found=$(find "$TRASH" / -maxdepth 1 -name "pwned*" 2>/dev/null)
	[ -z "$found" ] || { echo "planted commands ran: $found" >&2; return 1; }
}

# execs TRACE: the programs a traced run executed, one a line.
execs() { sed -n 's/.*execve("\([^"]*\)".*/\1/p' "$1" | sort -u; }

# A large time budget: a verdict must come from the index, not from the
# clock (a sanitizer build on a loaded machine takes seconds).
cat >ccsift-asof <<EOF
#!/bin/sh
[ "\$1" = filter ] && set -- "\$@" --time-budget 600
exec '$CCSIFT_BIN' "\$@" --as-of $ASOF
EOF
chmod +x ccsift-asof

test_expect_success 'setup: history, config, index' '
	bash "$TEST_DIRECTORY/lib/make-history.sh" repo >/dev/null &&
	mkdir -p "$XDG_CONFIG_HOME/ccsift" &&
	printf "%s\n" "[user]" "email = carol@example.org" "notmuch = false" \
		"[repo demo]" "path = $TRASH/repo" >"$XDG_CONFIG_HOME/ccsift/config" &&
	"$CCSIFT_BIN" index >/dev/null &&
	echo "secret" >"$CANARY"
'

# A patch whose every header and file name is shell syntax, naming the
# canary by absolute and relative path and reaching out of the repository.
cat >hostile.eml <<EOF
From: "\$(touch $TRASH/pwned-from)" <\`touch $TRASH/pwned-tick\`@example.org>
To: Dave Maintainer <dave@example.org>
Cc: Carol Typo <carol@example.org>
Subject: [PATCH] \$(touch $TRASH/pwned-subject); touch $TRASH/pwned-semi | touch $TRASH/pwned-pipe
Message-ID: <\$(touch $TRASH/pwned-msgid)@example.org>
List-Id: <\$(touch $TRASH/pwned-list).example.org>
Date: Tue, 20 May 2025 10:00:00 +0000

Signed-off-by: X <x@example.org>
---
 $CANARY                    | 1 +
 ../../../..$CANARY         | 1 +
 drivers/net/\$(touch $TRASH/pwned-path).c | 1 +
 3 files changed, 3 insertions(+)

diff --git a$CANARY b$CANARY
index 1111111..2222222 100644
--- a$CANARY
+++ b$CANARY
@@ -1 +1,2 @@
 secret
+more
diff --git a/../../../..$CANARY b/../../../..$CANARY
index 1111111..2222222 100644
--- a/../../../..$CANARY
+++ b/../../../..$CANARY
@@ -1 +1,2 @@
 secret
+more
diff --git a/drivers/net/\$(touch $TRASH/pwned-path).c b/drivers/net/\$(touch $TRASH/pwned-path).c
index 1111111..2222222 100644
--- a/drivers/net/\$(touch $TRASH/pwned-path).c
+++ b/drivers/net/\$(touch $TRASH/pwned-path).c
@@ -1 +1,2 @@
 x
+\`touch $TRASH/pwned-body\`
--
2.39.5

EOF

test_expect_success 'procmail with contrib/procmailrc: delivered, nothing in the mail ran' '
	mkdir -p pm &&
	procmail -m HOME="$HOME" MAILDIR="$TRASH/pm" DEFAULT="$TRASH/pm/" CCSIFT="$TRASH/ccsift-asof" \
		XDG_CONFIG_HOME="$XDG_CONFIG_HOME" XDG_CACHE_HOME="$XDG_CACHE_HOME" \
		"$CONTRIB/procmailrc" <hostile.eml &&
	test "$(find pm -type f | wc -l)" = 1 &&
	no_pwned
'

test_expect_success 'maildrop with contrib/maildrop-filter: delivered, nothing in the mail ran' '
	mkdir -p md/cur md/new md/tmp &&
	printf "%s\n" "DEFAULT=\"$TRASH/md/\"" "MAILDIR=\"$TRASH/md\"" "include \"$CONTRIB/maildrop-filter\"" >mailfilter &&
	chmod 600 mailfilter &&
	env CCSIFT="$TRASH/ccsift-asof" maildrop "$TRASH/mailfilter" <hostile.eml &&
	test "$(find md -type f | wc -l)" = 1 &&
	no_pwned
'

test_expect_success 'ccsift filter, score, explain, parse execute no program' '
	for cmd in filter score explain parse; do
		# (exit statuses aside: only what they run matters here)
		strace -f -qq -e trace=execve -o trace.$cmd "$CCSIFT_BIN" $cmd hostile.eml >/dev/null 2>&1
		execs trace.$cmd >programs.$cmd &&
		test "$(cat programs.$cmd)" = "$CCSIFT_BIN" ||
			{ echo "$cmd executed:" >&2; cat programs.$cmd >&2; return 1; }
	done &&
	no_pwned
'

test_expect_success 'a path named in a patch is never opened, stat'\''ed or read' '
	strace -f -qq -e trace=%file -o trace.files "$CCSIFT_BIN" filter --as-of $ASOF <hostile.eml >out 2>/dev/null &&
	strace -f -qq -e trace=%file -o trace.score "$CCSIFT_BIN" score --as-of $ASOF hostile.eml >/dev/null 2>&1;
	strace -f -qq -e trace=%file -o trace.explain "$CCSIFT_BIN" explain --as-of $ASOF hostile.eml >/dev/null 2>&1;
	test -s trace.files && grep -q "openat" trace.files &&
	! grep -h "canary\|pwned" trace.files trace.score trace.explain &&
	grep "^X-Ccsift: " out
'

# A repository prepared by someone else: hooks, an fsmonitor command, an
# ssh command, and a .ccsift file that would raise the threshold.
test_expect_success 'nothing in the repository runs or is trusted' '
	git clone -q repo evil && git -C evil config core.fsmonitor "touch $TRASH/pwned-fsmonitor" &&
	git -C evil config core.sshCommand "touch $TRASH/pwned-ssh" &&
	git -C evil config core.hooksPath "$TRASH/evil-hooks" &&
	mkdir -p evil-hooks &&
	for h in post-checkout post-merge pre-commit reference-transaction fsmonitor-watchman; do
		printf "#!/bin/sh\ntouch %s/pwned-hook-%s\n" "$TRASH" "$h" >evil-hooks/$h &&
		cp evil-hooks/$h evil/.git/hooks/$h && chmod +x evil-hooks/$h evil/.git/hooks/$h || return 1
	done &&
	printf "%s\n" "[user]" "threshold = 0" "[repo demo]" "always = *" >evil/.ccsift &&
	printf "%s\n" "[user]" "email = carol@example.org" "notmuch = false" \
		"[repo evil]" "path = $TRASH/evil" "index = $TRASH/evil.db" >evil.conf &&
	strace -f -qq -e trace=execve -o trace.index "$CCSIFT_BIN" index --config evil.conf >/dev/null &&
	strace -f -qq -e trace=execve -o trace.score "$CCSIFT_BIN" score --config evil.conf --as-of $ASOF "$P" >score.out &&
	test "$(execs trace.index)" = "$CCSIFT_BIN" && test "$(execs trace.score)" = "$CCSIFT_BIN" &&
	grep -i "low" score.out &&
	no_pwned
'

# .mailmap decides whose history is whose: only the blob at the ref counts,
# never the work tree's file or what the clone's config names.
test_expect_success 'the mailmap is the blob at the ref: mailmap.file (a FIFO) and the work tree are not read' '
	rm -rf mm && git clone -q repo mm && mkfifo mm.fifo &&
	git -C mm config mailmap.file "$TRASH/mm.fifo" &&
	git -C mm config mailmap.blob HEAD:nowhere &&
	printf "%s\n" "[user]" "email = carol@example.org" "notmuch = false" \
		"[repo mm]" "path = $TRASH/mm" "index = $TRASH/mm.db" >mm.conf &&
	timeout 30 "$CCSIFT_BIN" index --config mm.conf >/dev/null &&
	timeout 30 "$CCSIFT_BIN" score --config mm.conf --as-of $ASOF "$P" >before &&
	grep "^verdict: *low" before &&
	# the old address of alice stays hers: the committed .mailmap is read
	test "$(sqlite3 mm.db "SELECT count(*) FROM people WHERE email = '\''alice@old-employer.example'\''")" = 0 &&
	# one uncommitted line would give carol all of alice'\''s history
	echo "Carol Typo <carol@example.org> <alice@example.org>" >>mm/.mailmap &&
	rm -f mm.db && timeout 30 "$CCSIFT_BIN" index --config mm.conf >/dev/null &&
	timeout 30 "$CCSIFT_BIN" score --config mm.conf --as-of $ASOF "$P" >after &&
	cmp before after
'

test_expect_success 'the index is created with the user'\''s umask, its directory private' '
	rm -rf "$XDG_CACHE_HOME/ccsift" &&
	(umask 077 && "$CCSIFT_BIN" index >/dev/null) &&
	IDX=$(echo "$XDG_CACHE_HOME"/ccsift/*.db) &&
	test "$(stat -c %a "$IDX")" = 600 &&
	test "$(stat -c %a "$XDG_CACHE_HOME/ccsift")" = 700 &&
	rm -rf "$XDG_CACHE_HOME/ccsift" &&
	(umask 022 && "$CCSIFT_BIN" index >/dev/null) &&
	test "$(stat -c %a "$IDX")" = 644
'

test_done
