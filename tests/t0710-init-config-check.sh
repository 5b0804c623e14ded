#!/bin/bash
# ccsift init on a fresh home with a notmuch config and git identity writes
# a config that `ccsift config check` accepts and that filters mail; config
# check says what each [repo] will match and fails on a broken config.

. "${TEST_DIRECTORY:=$(cd "$(dirname "$0")" && pwd)}/lib/test-lib.sh"


CONF="$XDG_CONFIG_HOME/ccsift/config"
P="$TEST_DIRECTORY/lib/rx-budget.eml"
unset GIT_CONFIG_NOSYSTEM

test_expect_success 'setup: a home with notmuch, a git identity and two clones' '
	bash "$TEST_DIRECTORY/lib/make-history.sh" upstream >/dev/null &&
	mkdir -p "$HOME/src" "$HOME/mail" &&
	git clone -q upstream "$HOME/src/linux" &&
	git init -q "$HOME/src/scratch" &&
	export NOTMUCH_CONFIG="$HOME/.notmuch-config" &&
	printf "%s\n" "[database]" "path=$HOME/mail" "[user]" "name=Carol Typo" \
		"primary_email=Carol@Example.org" "other_email=carol@laptop.example" >"$NOTMUCH_CONFIG" &&
	git config --global user.email carol@git.example
'
export NOTMUCH_CONFIG="$HOME/.notmuch-config"

test_expect_success 'init without a terminal: identities in, found clones commented out' '
	"$CCSIFT_BIN" init </dev/null >out && cat out &&
	grep "^Wrote $CONF: 3 identities, 0 clones (more found, commented out)" out &&
	grep "^email = carol@git.example; carol@example.org; carol@laptop.example$" "$CONF" &&
	grep "^notmuch = true$" "$CONF" &&
	grep "^#\[repo linux\]$" "$CONF" && grep "^#path = $HOME/src/linux$" "$CONF" &&
	! grep "scratch" "$CONF" &&
	grep "INCLUDERC=.*/examples/procmailrc" out &&
	grep "notmuch: *$CCSIFT_BIN init --notmuch-hook   (after a first notmuch new)$" out &&
	# notmuch default new.tags (no new): the hook would see nothing
	grep "new.tags is \"[a-z;]*\", without \"new\".*run: notmuch config set new.tags new [a-z ]*$" out &&
	grep -F "ccsift tag --query '\''*'\''" out
'

test_expect_success 'a commented-out clone is used by uncommenting its lines' '
	sed "/^#\[repo linux\]/,/^\$/s/^#\([a-z[]\)/\1/" "$CONF" >found.conf &&
	grep -x "\[repo linux\]" found.conf && grep -x "ref = origin/master" found.conf &&
	"$CCSIFT_BIN" config check --config found.conf >out && grep "^\[repo linux\]" out &&
	tail -1 out | grep -x ok
'

test_expect_success 'init refuses to overwrite; --dry-run writes nothing' '
	cp "$CONF" before &&
	test_must_fail "$CCSIFT_BIN" init --repo "$HOME/src/linux" </dev/null 2>err &&
	grep "exists; --force" err && cmp before "$CONF" &&
	"$CCSIFT_BIN" init --dry-run --repo "$HOME/src/linux" >dry && cmp before "$CONF" &&
	grep "^\[repo linux\]$" dry
'

test_expect_success 'init --repo: an active section on the ref git fetch moves, mode from the umask' '
	(umask 077 && "$CCSIFT_BIN" init --force --repo "$HOME/src/linux" </dev/null >out) &&
	grep "^\[repo linux\]$" "$CONF" && grep "^path = $HOME/src/linux$" "$CONF" &&
	grep "^ref = origin/master$" "$CONF" &&
	test "$(stat -c %a "$CONF")" = 600 &&
	test "$(stat -c %a "$XDG_CONFIG_HOME/ccsift")" = 700
'

test_expect_success 'init --repo: the address a clone'\''s own git config gives is in too' '
	git clone -q upstream work-clone && git clone -q upstream corp/clone &&
	git -C work-clone config user.email Carol@Work.Example &&
	printf "[user]\n\temail = carol@corp.example\n" >corp.gitconfig &&
	git config --global "includeIf.gitdir:$TRASH/corp/.path" "$TRASH/corp.gitconfig" &&
	"$CCSIFT_BIN" init --dry-run --repo work-clone --repo corp/clone </dev/null >dry &&
	git config --global --remove-section "includeIf.gitdir:$TRASH/corp/" &&
	grep "^email = carol@git.example; carol@example.org; carol@laptop.example; carol@work.example; carol@corp.example$" dry
'

test_expect_success 'init takes a clone'\''s user.email as the config does, and leaves out one that is no address' '
	git clone -q upstream named-clone && git clone -q upstream two-clone &&
	git -C named-clone config user.email "Carol Typo <Carol@Named.Example>" &&
	git -C two-clone config user.email "carol@one.example, carol@two.example" &&
	"$CCSIFT_BIN" init --dry-run --repo named-clone --repo two-clone </dev/null >dry &&
	grep "^email = carol@git.example; carol@example.org; carol@laptop.example; carol@named.example$" dry &&
	sed -n "/^# ccsift configuration/,\$p" dry >init.conf &&
	"$CCSIFT_BIN" config check --config init.conf >out
'

test_expect_success 'each commented key is one line: uncommented alone, config check takes it' '
	grep "^#[a-z-]* = " "$CONF" >keys && test $(wc -l <keys) -ge 4 &&
	! grep "^# *[a-z-]* = .*   " "$CONF" &&
	while read -r line; do
		grep -vxF "$line" "$CONF" >/dev/null &&
		awk -v l="$line" "\$0 == l { print substr(\$0, 2); next } { print }" "$CONF" >one.conf &&
		! cmp -s one.conf "$CONF" &&
		"$CCSIFT_BIN" config check --config one.conf >out 2>err ||
			{ echo "uncommenting: $line" >&2; cat err >&2; exit 1; }
	done <keys
'

test_expect_success 'config check accepts it, says who and what; no index yet is a warning' '
	"$CCSIFT_BIN" config check >out && cat out &&
	grep "you are *carol@git.example; carol@example.org; carol@laptop.example" out &&
	grep "ref *origin/master at [0-9a-f]\{12\}" out &&
	grep "list-id *(none: mail whose files this clone has)" out && grep "^where mail goes:" out &&
	grep "warning: *no index yet (run: ccsift index --repo linux)" out &&
	# no threshold configured: automatic, never an internal -1
	grep "^  threshold *automatic, per repository$" out &&
	grep "^  threshold *automatic: yours, fitted on this clone" out &&
	! grep -e "-1\.00" out &&
	tail -1 out | grep -x ok
'

test_expect_success 'config check: new.tags without new is a warning that says the command; with new, none' '
	"$CCSIFT_BIN" config check >out && cat out &&
	grep "^warning: notmuch.s new.tags is .*run: notmuch config set new.tags new " out &&
	fix=$(sed -n "s/^warning: notmuch.s new.tags.*run: //p" out) &&
	eval "$fix" &&
	notmuch config get new.tags | grep -x new &&
	"$CCSIFT_BIN" config check >out && cat out &&
	! grep "new.tags" out
'

test_expect_success 'after ccsift index: up to date, and the config filters mail' '
	"$CCSIFT_BIN" index >/dev/null &&
	"$CCSIFT_BIN" config check >out && grep "up to date, checked" out &&
	"$CCSIFT_BIN" filter --as-of 2025-06-01 --time-budget 600 <"$P" >filtered &&
	grep "^X-Ccsift: low;" filtered
'

test_expect_success 'an email written as git and mail write it is its address; one that is none is refused' '
	sed "s/^email = .*/email = Carol Typo <Carol@Example.org>; <carol@laptop.example>/; s/^notmuch = .*/notmuch = false/" \
		"$CONF" >named.conf &&
	"$CCSIFT_BIN" config check --config named.conf >out &&
	grep "you are *carol@example.org; carol@laptop.example$" out &&
	"$CCSIFT_BIN" filter --config named.conf --as-of 2025-06-01 --time-budget 600 <"$P" >named.out &&
	grep "^X-Ccsift: low;" named.out &&
	"$CCSIFT_BIN" score --config named.conf --me "Carol Typo <carol@example.org>" --as-of 2025-06-01 "$P" >me.out &&
	grep "^verdict: low;" me.out &&
	test_must_fail "$CCSIFT_BIN" score --config named.conf --me carol --as-of 2025-06-01 "$P" 2>err &&
	grep "^ccsift score: --me carol: not an email address" err &&
	sed "s/^email = .*/email = Carol Typo/" "$CONF" >noaddr.conf &&
	rc=0 && "$CCSIFT_BIN" config check --config noaddr.conf >out 2>err || rc=$? &&
	line=$(grep -n "^email = " noaddr.conf | cut -d: -f1) &&
	test $rc = 1 && grep "noaddr.conf:$line: \[user\] email: .Carol Typo. is not an email address" err
'

test_expect_success 'an email value holding two addresses is refused, not cut to one' '
	for v in "Carol Typo <carol@example.org>, carol@laptop.example" \
		 "Carol Typo <carol@example.org>, Laptop <carol@laptop.example>" \
		 "Carol Typo <carol@example.org> carol@laptop.example"; do
		sed "s/^email = .*/email = $v/; s/^notmuch = .*/notmuch = false/" "$CONF" >two.conf &&
		test_must_fail "$CCSIFT_BIN" config check --config two.conf >out 2>err &&
		grep "two.conf:[0-9]*: \[user\] email: .$v. is not an email address" err &&
		test_must_fail "$CCSIFT_BIN" score --config named.conf --me "$v" --as-of 2025-06-01 "$P" 2>err &&
		grep "^ccsift score: --me $v: not an email address" err || return 1
	done &&
	for v in "\"Typo, Carol\" <carol@example.org>" "Typo, Carol <carol@example.org>"; do
		sed "s/^email = .*/email = $v/; s/^notmuch = .*/notmuch = false/" "$CONF" >one.conf &&
		"$CCSIFT_BIN" config check --config one.conf >out &&
		grep "you are *carol@example.org$" out || return 1
	done
'

test_expect_success 'init --notmuch-hook before notmuch has a database: one line, nothing installed' '
	test_must_fail "$CCSIFT_BIN" init --notmuch-hook 2>err && cat err &&
	test "$(wc -l <err)" = 1 && grep "run notmuch setup and a first notmuch new" err &&
	test ! -e "$HOME/mail/.notmuch/hooks/post-new"
'

test_expect_success 'init --notmuch-hook: the hook names this ccsift, and runs where PATH has none' '
	mkdir -p "$HOME/mail/cur" "$HOME/mail/new" "$HOME/mail/tmp" &&
	notmuch new >/dev/null &&
	"$CCSIFT_BIN" init --notmuch-hook >out && cat out &&
	hook=$(notmuch config get database.hook_dir)/post-new &&
	grep "^Installed $hook: after each notmuch new, $CCSIFT_BIN tag decides the new mail.$" out &&
	test -x "$hook" && grep -F "$CCSIFT_BIN" "$hook" &&
	cp "$P" "$HOME/mail/new/patch" &&
	env -u CCSIFT PATH=/usr/bin:/bin notmuch new >out 2>&1 && cat out &&
	test "$(notmuch count tag:new)" = 0 &&
	test "$(sqlite3 "$XDG_DATA_HOME/ccsift/decisions.db" "SELECT count(*) FROM decision")" = 1
'

test_expect_success 'init --notmuch-hook again: said so; a post-new hook of the user is left alone' '
	hook=$(notmuch config get database.hook_dir)/post-new &&
	"$CCSIFT_BIN" init --notmuch-hook >out && grep "^$hook is installed and runs $CCSIFT_BIN.$" out &&
	printf "#!/bin/sh\necho mine\n" >"$hook" && cp "$hook" mine &&
	test_must_fail "$CCSIFT_BIN" init --notmuch-hook 2>err && cat err &&
	grep "$hook is a hook of your own: keep it and run ccsift.s from it" err &&
	test_cmp mine "$hook" &&
	test_must_fail "$CCSIFT_BIN" init --notmuch-hook --force 2>err &&
	grep "takes no other option" err
'

# The hook is a copy in notmuch's hook directory: an upgrade leaves an older
# ccsift's there. One from before --untag left new on every message (each
# notmuch new decided all mail since ccsift came again), or took it off mail
# that arrived while it ran; nothing said so.
test_expect_success 'config check: an older ccsift'\''s hook (without --untag) is a warning; init replaces it' '
	hook=$(notmuch config get database.hook_dir)/post-new &&
	printf "%s\n" "#!/bin/sh" "# contrib/notmuch/post-new: a notmuch post-new hook that marks low-relevance" \
		"# Cc'\''d patch mail with \`ccsift tag\`." "CCSIFT=\${CCSIFT:-ccsift}" "\"\$CCSIFT\" tag" >"$hook" &&
	"$CCSIFT_BIN" config check >out && cat out &&
	grep "^warning: $hook is an older ccsift.s post-new hook: .*(run: ccsift init --notmuch-hook, which replaces it)$" out &&
	"$CCSIFT_BIN" init --notmuch-hook >out && grep "^Installed $hook" out &&
	"$CCSIFT_BIN" config check >out && ! grep "post-new" out
'

test_expect_success 'config check fails on an unknown key, naming file and line' '
	printf "%s\n" "[user]" "email = a@b" "treshold = 2" >bad.conf &&
	rc=0 && "$CCSIFT_BIN" config check --config bad.conf >out 2>err || rc=$? &&
	test $rc = 1 && grep "bad.conf:3.*treshold.*unknown key; did you mean .threshold.?" err &&
	printf "%s\n" "[user]" "email = a@b" "colour = blue" >far.conf &&
	rc=0 && "$CCSIFT_BIN" config check --config far.conf >out 2>err || rc=$? &&
	test $rc = 1 && grep "far.conf:3.*colour.*unknown key\$" err
'

test_expect_success 'config check refuses nan and inf like any number out of range' '
	for kv in "threshold = nan" "threshold = NAN" "half-life = nan" "catch-up = nan" \
		  "threshold = inf" "half-life = -inf"; do
		printf "%s\n" "[user]" "email = a@b" "$kv" >num.conf &&
		rc=0 && "$CCSIFT_BIN" config check --config num.conf >out 2>err || rc=$? &&
		test $rc = 1 && grep "num.conf:3: \[user\] ${kv%% =*}: .* is not a number from" err ||
		{ echo "accepted: $kv" >&2; cat out err >&2; return 1; }
	done &&
	printf "%s\n" "[user]" "email = a@b" "[repo linux]" "path = $HOME/src/linux" "threshold = nan" >num.conf &&
	rc=0 && "$CCSIFT_BIN" config check --config num.conf >out 2>err || rc=$? &&
	test $rc = 1 && grep "num.conf:5: \[repo linux\] threshold: .nan. is not a number from 0 to 1" err
'

# The model is fitted on history decayed by half in 730 days: a user's own
# half-life would score every patch off the fit and its thresholds.
test_expect_success 'half-life is no longer read: config check says so, the verdict is the one without it' '
	printf "%s\n" "[user]" "email = carol@example.org" "notmuch = false" "half-life = 90" \
		"[repo linux]" "path = $HOME/src/linux" >hl.conf &&
	grep -v "^half-life" hl.conf >nohl.conf &&
	"$CCSIFT_BIN" config check --config hl.conf >out 2>err || : &&
	grep "^warning: half-life is no longer read" out &&
	"$CCSIFT_BIN" config check --config nohl.conf >out 2>err || : &&
	! grep "half-life" out &&
	"$CCSIFT_BIN" filter --config hl.conf --as-of 2025-06-01 --time-budget 600 <"$P" >with &&
	"$CCSIFT_BIN" filter --config nohl.conf --as-of 2025-06-01 --time-budget 600 <"$P" >without &&
	grep "^X-Ccsift: low;" without && test_cmp without with
'

test_expect_success 'threshold = nan never makes a low patch relevant: it is refused' '
	printf "%s\n" "[user]" "email = carol@example.org" "notmuch = false" "threshold = nan" \
		"[repo linux]" "path = $HOME/src/linux" >nan.conf &&
	"$CCSIFT_BIN" filter --config nan.conf --as-of 2025-06-01 --time-budget 600 <"$P" >filtered 2>err &&
	grep "^X-Ccsift: unknown" filtered && grep "threshold: .nan. is not a number" err
'

# ccsift init of model version 1 (until 2026-12-03) wrote its default score
# threshold, 1.0, into [user]; as a probability it demoted every Cc'd patch.
test_expect_success 'threshold = 1.0 of an init before model version 2 is refused, not read as 100%' '
	printf "%s\n" "[user]" "email = alice@example.org" "notmuch = false" \
		"# Demote Cc'\''d patches scoring below this; \`ccsift calibrate --write\`" \
		"# picks one from your own review history." "threshold = 1.0" "catch-up = 900" \
		"[repo linux]" "path = $HOME/src/linux" >v1.conf &&
	rc=0 && "$CCSIFT_BIN" config check --config v1.conf >out 2>err || rc=$? &&
	test $rc = 1 && grep "v1.conf:6: \[user\] threshold: 1 demotes every patch; .*remove the line" err &&
	"$CCSIFT_BIN" filter --config v1.conf --as-of 2025-06-01 --time-budget 600 <"$P" >filtered 2>err &&
	grep "^X-Ccsift: unknown" filtered && grep "threshold: 1 demotes every patch" err &&
	sed "/^threshold/d; \$a threshold = 1" v1.conf >repo1.conf &&
	rc=0 && "$CCSIFT_BIN" config check --config repo1.conf >out 2>err || rc=$? &&
	test $rc = 1 && grep "repo1.conf:9: \[repo linux\] threshold: 1 demotes every patch" err &&
	sed "/^threshold/d" v1.conf >auto.conf &&
	"$CCSIFT_BIN" filter --config auto.conf --as-of 2025-06-01 --time-budget 600 <"$P" >filtered &&
	grep "^X-Ccsift: relevant" filtered
'

test_expect_success 'config check fails on a clone that is not there, or a ref that is not' '
	printf "%s\n" "[user]" "email = a@b" "[repo gone]" "path = $TRASH/nowhere" >gone.conf &&
	test_must_fail "$CCSIFT_BIN" config check --config gone.conf >out && grep "^\[repo gone\]" out &&
	grep "error:" out && tail -1 out | grep -x "problems found" &&
	printf "%s\n" "[user]" "email = a@b" "[repo linux]" "path = $HOME/src/linux" "ref = origin/nope" >ref.conf &&
	test_must_fail "$CCSIFT_BIN" config check --config ref.conf >out && grep "error:" out
'

test_expect_success 'init: two clones of one name get two names; a name twice is refused' '
	mkdir -p "$HOME/stable" && git clone -q upstream "$HOME/stable/linux" &&
	"$CCSIFT_BIN" init --dry-run --repo "$HOME/src/linux" --repo "$HOME/stable/linux" \
		--repo "$HOME/src/linux" </dev/null >two.conf && grep "^\[repo" two.conf >names &&
	printf "%s\n" "[repo linux]" "[repo stable-linux]" | test_cmp - names &&
	"$CCSIFT_BIN" config check --config two.conf >out && grep -c "^\[repo" out | grep -x 2 &&
	printf "%s\n" "[user]" "email = a@b" "[repo linux]" "path = $HOME/src/linux" \
		"[repo xfsprogs]" "path = $HOME/src/linux" "[repo  linux ]" "path = $HOME/stable/linux" >dup.conf &&
	test_must_fail "$CCSIFT_BIN" config check --config dup.conf 2>err && cat err &&
	grep "dup.conf:7: \[repo linux\] again (first at line 3)" err &&
	"$CCSIFT_BIN" filter --config dup.conf <"$P" >out && grep "^X-Ccsift: unknown" out
'

test_expect_success 'list-id: an address or <id> is the id it names; a comment after it is refused' '
	printf "%s\n" "[user]" "email = a@b" "[repo linux]" "path = $HOME/src/linux" \
		"list-id = Netdev@vger.kernel.org; <linux-kernel.vger.kernel.org>; *.lists.example.org" >addr.conf &&
	"$CCSIFT_BIN" config check --config addr.conf >out && cat out &&
	grep "^  list-id   Netdev.vger.kernel.org; linux-kernel.vger.kernel.org; \*.lists.example.org$" out &&
	grep "^  List-Id Netdev.vger.kernel.org *\[repo linux\]$" out &&
	printf "%s\n" "[user]" "email = a@b" "[repo linux]" "path = $HOME/src/linux" \
		"list-id = netdev.vger.kernel.org # networking" >comment.conf &&
	test_must_fail "$CCSIFT_BIN" config check --config comment.conf 2>err && cat err &&
	grep "comment.conf:5: \[repo linux\] list-id: .netdev.vger.kernel.org # networking. is not a List-Id glob" err
'

test_expect_success 'calibrate --write finds [repo NAME] however spaced' '
	printf "%s\n" "[user]" "email = carol@example.org" "notmuch = false" "[repo  linux ]" \
		"path = $HOME/src/linux" "#threshold = 0.05" "[repo other]" "path = $HOME/src/linux" \
		"index = $TRASH/other.db" >spaced.conf &&
	"$CCSIFT_BIN" calibrate --config spaced.conf --repo linux --write >out && cat out spaced.conf &&
	test $(grep -c "^\[" spaced.conf) = 3 &&
	sed -n "/^\[repo  linux \]/,/^\[repo other\]/p" spaced.conf | grep "^threshold = 0\.[0-9]*$" &&
	"$CCSIFT_BIN" config check --config spaced.conf >out
'

test_expect_success '--repo NAME: the section of that name before one whose path is ./NAME' '
	printf "%s\n" "[user]" "email = carol@example.org" "notmuch = false" "catch-up = 0" \
		"[repo next]" "path = $HOME/src/linux" "[repo linux]" "path = $HOME/stable/linux" >names.conf &&
	(cd "$HOME/src" && "$CCSIFT_BIN" index --config "$TRASH/names.conf" --repo linux) >out && cat out &&
	grep "^linux: $XDG_CACHE_HOME/ccsift/linux-" out && ! grep "^next:" out &&
	{ (cd "$HOME/src" && "$CCSIFT_BIN" index --config "$TRASH/names.conf" --repo ./linux/ --status) >out || :; } &&
	cat out && grep "^next: " out
'

test_expect_success 'a relative path or index is the config file'\''s, wherever a command runs' '
	mkdir -p "$HOME/conf" &&
	printf "%s\n" "[user]" "email = carol@example.org" "notmuch = false" "start-server = 0" \
		"[repo linux]" "path = ../src/linux" "index = linux.db" >"$HOME/conf/rel.conf" &&
	(cd / && "$CCSIFT_BIN" index --config "$HOME/conf/rel.conf" >"$TRASH/out") && cat out &&
	test -f "$HOME/conf/linux.db" &&
	(cd / && "$CCSIFT_BIN" filter --config "$HOME/conf/rel.conf" --as-of 2025-06-01 <"$P" >"$TRASH/from-root") &&
	(cd "$HOME/src" && "$CCSIFT_BIN" filter --config ../conf/rel.conf --as-of 2025-06-01 <"$P" >"$TRASH/from-src") &&
	grep "^X-Ccsift: low;" from-root && test_cmp from-root from-src
'

test_expect_success 'init --repo on a directory that is not a clone: an error, nothing written' '
	rm -f other.conf &&
	test_must_fail "$CCSIFT_BIN" init --config other.conf --repo "$HOME/mail" 2>err &&
	grep "not a git clone" err && test ! -e other.conf
'

test_expect_success 'every command'\''s usage line names ccsift and the command' '
	for cmd in filter tag score explain parse index who eval train calibrate init stats; do
		"$CCSIFT_BIN" $cmd --help >help && grep -q "^  ccsift $cmd \[OPTION" help ||
			{ echo "$cmd:" >&2; head -3 help >&2; exit 1; }
	done &&
	"$CCSIFT_BIN" config check --help | grep "^  ccsift config check \[OPTION" &&
	test_must_fail "$CCSIFT_BIN" init --bogus 2>err && grep "ccsift" err
'

test_expect_success 'ccsift config without check: usage, exit 2' '
	rc=0 && "$CCSIFT_BIN" config 2>err || rc=$? && test $rc = 2 && grep "usage: ccsift config check" err
'

test_done
