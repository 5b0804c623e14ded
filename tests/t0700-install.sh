#!/bin/bash
# Installation: cmake --install under a prefix and under DESTDIR; the
# installed program runs; the man pages document every command and every
# option that --help lists, and every config key; completion, systemd user
# units and the git hook are where they belong and work.
. "$TEST_DIRECTORY/lib/test-lib.sh"

BUILD=${CCSIFT_BUILD_DIR:-$(dirname "$CCSIFT")}
SRC=$(dirname "$TEST_DIRECTORY")
# An install directory from the build's cache; GNUInstallDirs leaves the
# derived ones empty there when they have their defaults.
dir_var() { # NAME DEFAULT
	local v
	v=$(sed -n "s/^$1:[A-Z]*=//p" "$BUILD/CMakeCache.txt")
	echo "${v:-$2}"
}
BUILD_PREFIX=$(dir_var CMAKE_INSTALL_PREFIX /usr/local)
DATAROOTDIR=$(dir_var CMAKE_INSTALL_DATAROOTDIR share)
BINDIR=$(dir_var CMAKE_INSTALL_BINDIR bin)
MANDIR=$(dir_var CMAKE_INSTALL_MANDIR "$DATAROOTDIR/man")
DATADIR=$(dir_var CMAKE_INSTALL_DATADIR "$DATAROOTDIR")
DOCDIR=$(dir_var CMAKE_INSTALL_DOCDIR "$DATAROOTDIR/doc/ccsift")
UNITDIR=$(dir_var CCSIFT_SYSTEMD_USER_UNIT_DIR lib/systemd/user)

P=$TRASH/usr                  # the --prefix install
D=$TRASH/dest$BUILD_PREFIX    # the DESTDIR install
MAN1=$P/$MANDIR/man1/ccsift.1
MAN5=$P/$MANDIR/man5/ccsift-config.5
BASH_COMPLETION=$P/$DATADIR/bash-completion/completions/ccsift
ZSH_COMPLETION=$P/$DATADIR/zsh/vendor-completions/_ccsift

# The commands `ccsift --help` lists, and the options `ccsift CMD --help`
# lists (for config, its check action's too).
commands() { "$CCSIFT" --help | sed -n 's/^   \([a-z][a-z-]*\) .*/\1/p'; }
# Into the file commands, and there must be some.
list_commands() {
	commands >commands && test "$(wc -l <commands)" -ge 9 && return 0
	echo "cannot list the commands of $CCSIFT --help" >&2; return 1
}
help_of() {
	"$CCSIFT" "$1" --help
	if [ "$1" = config ]; then "$CCSIFT" config check --help 2>/dev/null; fi
}
long_options() { help_of "$1" | sed -nE 's/^ +(-[a-zA-Z], )?(--[a-z][a-z0-9-]*).*/\2/p' | grep -v '^--help' | sort -u; }
short_options() { help_of "$1" | grep -oE -- '^ +-[a-zA-Z],' | tr -d ' ,' | grep -v '^-h$' | sort -u; }

# The text of the roff source without font changes and escapes.
plain_roff() { sed -e 's/\\f[BIRP]//g' -e 's/\\&//g' -e 's/\\(aq/'"'"'/g' -e 's/\\-/-/g' "$1"; }
# The section of ccsift.1 for one command: from ".SS ccsift CMD" to the next heading.
man_section() { plain_roff "$MAN1" | awk -v cmd="$1" '
	/^\.S[HS] / { on = ($0 ~ "^\\.SS \"?ccsift " cmd "( |\"|$)") }
	on'; }
has_word() { grep -qE -- "(^|[^A-Za-z0-9-])$1([^A-Za-z0-9-]|\$)"; }
# test_line LINE FILE: FILE has exactly this line (a regular expression).
test_line() {
	grep -qx -- "$1" "$2" && return 0
	echo "no line '$1' in $2:" >&2; cat "$2" >&2; return 1
}

test_expect_success 'cmake --install --prefix puts everything under the prefix' '
	cmake --install "$BUILD" --prefix "$P" >install.out &&
	sed -n "s/^-- \(Installing\|Up-to-date\): //p" install.out >installed &&
	test -s installed &&
	if grep -v "^$P/" installed; then echo "installed outside $P" >&2; false; fi
'

test_expect_success 'ccsift.el is installed where Emacs looks under the prefix' '
	cmp "$TEST_DIRECTORY/../contrib/emacs/ccsift.el" "$P/$DATADIR/emacs/site-lisp/ccsift.el"
'

test_expect_success 'init of a ccsift installed under a prefix names the recipes under that prefix' '
	HOME=$TRASH/init-home XDG_CONFIG_HOME=$TRASH/init-home/.config NOTMUCH_CONFIG=/nonexistent \
		"$P/bin/ccsift" init --config "$TRASH/init.conf" </dev/null >init.out &&
	test_grep "CCSIFT=$P/bin/ccsift" init.out &&
	test_grep "INCLUDERC=$P/share/doc/ccsift/examples/procmailrc" init.out &&
	test -f "$P/share/doc/ccsift/examples/procmailrc" &&
	test_grep "notmuch: *$P/bin/ccsift init --notmuch-hook" init.out &&
	test -f "$P/share/doc/ccsift/examples/notmuch/post-new"
'

test_expect_success 'DESTDIR=... cmake --install stages under DESTDIR' '
	DESTDIR=$TRASH/dest cmake --install "$BUILD" >install-dest.out &&
	sed -n "s/^-- \(Installing\|Up-to-date\): //p" install-dest.out >installed-dest &&
	test -s installed-dest &&
	if grep -v "^$TRASH/dest/" installed-dest; then echo "installed outside DESTDIR" >&2; false; fi &&
	test -x "$D/$BINDIR/ccsift" &&
	test -f "$D/$MANDIR/man1/ccsift.1" &&
	test -f "$D/$UNITDIR/ccsift-index.timer"
'

test_expect_success 'the installed ccsift runs: --version and --help' '
	"$P/$BINDIR/ccsift" --version >version &&
	"$CCSIFT" --version >expect &&
	test_cmp expect version &&
	test_grep "^ccsift [0-9]" version &&
	"$P/$BINDIR/ccsift" --help >help &&
	test_grep "^   filter " help &&
	"$D/$BINDIR/ccsift" --version >version-dest &&
	test_cmp expect version-dest
'

test_expect_success 'man pages are installed where man finds them, and format cleanly' '
	if grep -q "^SCDOC:FILEPATH=.*NOTFOUND" "$BUILD/CMakeCache.txt"; then
		echo "scdoc was not found when $BUILD was configured: no man pages" >&2; false
	fi &&
	test -s "$MAN1" && test -s "$MAN5" &&
	head -20 "$MAN1" | test_grep "^\.TH \"ccsift\" \"1\"" - &&
	head -20 "$MAN5" | test_grep "^\.TH \"ccsift-config\" \"5\"" - &&
	if command -v man >/dev/null; then
		test "$(MANPATH=$P/$MANDIR man -w ccsift)" = "$MAN1" &&
		test "$(MANPATH=$P/$MANDIR man -w 5 ccsift-config)" = "$MAN5"
	fi &&
	if command -v groff >/dev/null; then
		for page in "$MAN1" "$MAN5"; do
			groff -man -Tutf8 -ww -z "$page" 2>warnings &&
			if test -s warnings; then cat warnings >&2; false; fi || return 1
		done
	fi
'

test_expect_success 'ccsift.1 has a section for every command ccsift --help lists' '
	test -s "$MAN1" && list_commands &&
	while read -r cmd; do
		man_section "$cmd" >section &&
		if ! test -s section; then echo "ccsift.1: no section .SS ccsift $cmd" >&2; return 1; fi
	done <commands
'

test_expect_success 'each command section of ccsift.1 names every option its --help lists' '
	test -s "$MAN1" && list_commands &&
	missing= &&
	while read -r cmd; do
		man_section "$cmd" >section &&
		long_options "$cmd" >options &&
		short_options "$cmd" >>options &&
		if ! test -s options; then echo "no options parsed from ccsift $cmd --help" >&2; return 1; fi &&
		while read -r opt; do
			has_word "$opt" <section || missing="$missing $cmd:$opt"
		done <options
	done <commands &&
	if test -n "$missing"; then echo "missing from ccsift.1:$missing" >&2; false; fi
'

test_expect_success 'ccsift-config.5 documents every key core/config.c accepts, in its section' '
	test -s "$MAN5" &&
	missing= &&
	for group in user repo notmuch; do
		tr "\n" " " <"$SRC/core/config.c" | grep -oE "${group}_keys\[\] = \{[^}]*\}" |
			grep -oE "\"[a-z-]+\"" | tr -d "\"" >keys &&
		if ! test -s keys; then echo "no ${group}_keys parsed from core/config.c" >&2; return 1; fi &&
		plain_roff "$MAN5" | awk -v g="$group" "/^\\.SH / { on = index(\$0, \"[\" g) > 0 } on" >section &&
		while read -r key; do
			grep -q "^$key = " section || missing="$missing [$group]$key"
		done <keys || return 1
	done &&
	if test -n "$missing"; then echo "missing from ccsift-config.5:$missing" >&2; false; fi
'

# Completion as bash does it: COMP_WORDS in, COMPREPLY out.
complete_bash() { # WORDS...
	bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _ccsift; printf "%s\n" "${COMPREPLY[@]}"' \
		- "$BASH_COMPLETION" "$@"
}

test_expect_success 'bash completion loads and registers ccsift' '
	test -f "$BASH_COMPLETION" &&
	bash -c "source \"\$1\" && complete -p ccsift" - "$BASH_COMPLETION" >complete &&
	test_grep "^complete -F _ccsift ccsift$" complete
'

test_expect_success 'bash completion offers every command and every option --help lists' '
	list_commands &&
	missing= &&
	complete_bash ccsift "" >offered &&
	while read -r cmd; do
		grep -qx "$cmd" offered || missing="$missing $cmd"
		words="ccsift $cmd"
		if test "$cmd" = config; then words="$words check"; fi
		complete_bash $words -- >offered-options &&
		for opt in $(long_options "$cmd"); do
			grep -qx -- "$opt" offered-options || missing="$missing $cmd:$opt"
		done
	done <commands &&
	if test -n "$missing"; then echo "not completed:$missing" >&2; false; fi
'

test_expect_success 'bash completion: directories for --repo, files for --config, --index and --plot' '
	mkdir -p work/clone && touch work/mail.eml && cd work &&
	complete_bash ccsift score --repo "" >offered &&
	test_line clone offered && ! grep -qx mail.eml offered &&
	complete_bash ccsift score --config "" >offered &&
	test_line mail.eml offered &&
	complete_bash ccsift score --index = "" >offered &&
	test_line mail.eml offered &&
	complete_bash ccsift eval --plot m >offered &&
	test_line mail.eml offered
'

test_expect_success 'bash completion: --repo offers the config'\''s [repo] names too, as data' '
	mkdir -p names/clone && cd names &&
	printf "%s\n" "[user]" "email = a@example.org" "[repo linux]" "path = /nowhere" \
		"[repo \$(touch pwned)]" "path = /nowhere" >names.conf &&
	mkdir -p "$XDG_CONFIG_HOME/ccsift" && cp names.conf "$XDG_CONFIG_HOME/ccsift/config" &&
	PATH=$(dirname "$CCSIFT_BIN"):$PATH complete_bash ccsift score --repo "" >offered &&
	test_line linux offered && test_line clone offered && test_line "\$(touch pwned)" offered &&
	PATH=$(dirname "$CCSIFT_BIN"):$PATH complete_bash ccsift index --repo l >offered &&
	test "$(cat offered)" = linux && test ! -e pwned &&
	printf "%s\n" "[user]" "email = a@example.org" "[repo other]" "path = /x" >other.conf &&
	PATH=$(dirname "$CCSIFT_BIN"):$PATH complete_bash ccsift score --config other.conf --repo "" >offered &&
	test_line other offered && ! grep -qx linux offered &&
	rm "$XDG_CONFIG_HOME/ccsift/config"
'

test_expect_success 'zsh completion is installed and covers every command and option' '
	test -f "$ZSH_COMPLETION" &&
	test "$(head -1 "$ZSH_COMPLETION")" = "#compdef ccsift" &&
	if command -v zsh >/dev/null; then zsh -n "$ZSH_COMPLETION"; fi &&
	list_commands &&
	missing= &&
	while read -r cmd; do
		grep -q "^    .$cmd:" "$ZSH_COMPLETION" || missing="$missing $cmd"
		for opt in $(long_options "$cmd"); do
			grep -qE -- "(^|[^a-z-])$opt([^a-z-]|\$)" "$ZSH_COMPLETION" || missing="$missing $cmd:$opt"
		done
	done <commands &&
	if test -n "$missing"; then echo "not in _ccsift:$missing" >&2; false; fi
'

test_expect_success 'systemd user units: an idle oneshot ccsift index --all, an hourly persistent timer' '
	service=$P/$UNITDIR/ccsift-index.service timer=$P/$UNITDIR/ccsift-index.timer &&
	test -f "$service" && test -f "$timer" &&
	test_line "Type=oneshot" "$service" &&
	test_line "ExecStart=/.*/ccsift index --all" "$service" &&
	test_line "Nice=19" "$service" &&
	test_line "IOSchedulingClass=idle" "$service" &&
	test_line "Persistent=true" "$timer" &&
	test_line "WantedBy=timers.target" "$timer" &&
	exec=$(sed -n "s/^ExecStart=\([^ ]*\) .*/\1/p" "$D/$UNITDIR/ccsift-index.service") &&
	test "$exec" = "$BUILD_PREFIX/$BINDIR/ccsift" &&
	test -x "$TRASH/dest$exec" &&
	if command -v systemd-analyze >/dev/null; then
		mkdir -p units && cp "$D/$UNITDIR/ccsift-index.service" "$timer" units/ &&
		sed -i "s|^ExecStart=[^ ]*|ExecStart=$CCSIFT|" units/ccsift-index.service &&
		# What it says about the environment is not ours; about the units, it is.
		systemd-analyze verify --man=no units/ccsift-index.timer units/ccsift-index.service \
			>verify.out 2>&1 || :
		if grep "ccsift-index" verify.out >&2; then false; fi
	fi
'

test_expect_success 'systemd user units: ccsift serve activated by its socket, where ccsift filter asks' '
	service=$P/$UNITDIR/ccsift-filter.service socket=$P/$UNITDIR/ccsift-filter.socket &&
	test -f "$service" && test -f "$socket" &&
	test_line "ListenStream=%t/ccsift/filter.sock" "$socket" &&
	test_line "SocketMode=0600" "$socket" &&
	test_line "DirectoryMode=0700" "$socket" &&
	test_line "ExecStart=/.*/ccsift serve --idle-exit 600" "$service" &&
	# the path the unit listens at is the one a client without CCSIFT_SOCKET asks
	(unset CCSIFT_SOCKET; export XDG_RUNTIME_DIR=$TRASH/xdg-run; mkdir -p "$XDG_RUNTIME_DIR" &&
	 { "$CCSIFT" serve --max-messages 1 2>serve-once.err & pid=$!; } &&
	 n=0 && while [ ! -S "$XDG_RUNTIME_DIR/ccsift/filter.sock" ] && [ $n -lt 6000 ]; do
		kill -0 $pid || { cat serve-once.err >&2; exit 1; }
		sleep 0.1; n=$((n + 1))
	 done &&
	 printf "Subject: hi\n\nhello\n" | "$CCSIFT" filter >/dev/null &&
	 wait $pid && test_grep "1 messages decided" serve-once.err) &&
	if command -v systemd-analyze >/dev/null; then
		mkdir -p units && cp "$service" "$socket" units/ &&
		sed -i "s|^ExecStart=[^ ]*|ExecStart=$CCSIFT|" units/ccsift-filter.service &&
		systemd-analyze verify --man=no units/ccsift-filter.socket units/ccsift-filter.service \
			>verify-serve.out 2>&1 || :
		if grep "ccsift-filter" verify-serve.out >&2; then false; fi
	fi
'

# A repository whose post-merge hook is the installed one, with a stub ccsift.
hooked_repo() { # DIR
	git -c init.defaultBranch=master init -q "$1" &&
	git -C "$1" commit -q --allow-empty -m one &&
	git -C "$1" branch side &&
	git -C "$1" commit -q --allow-empty -m two &&
	install -m 755 "$P/$DOCDIR/examples/git-hooks/post-merge" "$1/.git/hooks/post-merge"
}
wait_for() { for _ in $(seq 100); do test -e "$1" && return 0; sleep 0.1; done; return 1; }

test_expect_success 'the post-merge hook indexes the clone in the background, at low priority' '
	test -x "$P/$DOCDIR/examples/git-hooks/post-merge" &&
	cat >stub <<-\EOF &&
	#!/bin/sh
	echo "$* nice=$(nice)" >"$STUB_OUT.tmp" && mv "$STUB_OUT.tmp" "$STUB_OUT"
	EOF
	chmod +x stub &&
	hooked_repo repo &&
	git -C repo checkout -q side &&
	CCSIFT=$TRASH/stub STUB_OUT=$TRASH/called git -C repo merge -q master &&
	wait_for called &&
	echo "index --repo $TRASH/repo nice=19" >expect &&
	test_cmp expect called
'

test_expect_success 'the post-merge hook never fails git: ccsift failing or missing' '
	printf "#!/bin/sh\ntouch \"\$STUB_OUT\"; exit 1\n" >failing && chmod +x failing &&
	hooked_repo repo2 &&
	git -C repo2 checkout -q side &&
	CCSIFT=$TRASH/failing STUB_OUT=$TRASH/failed git -C repo2 merge -q master &&
	wait_for failed &&
	git -C repo2 reset -q --hard HEAD^ &&
	CCSIFT=$TRASH/no-such-ccsift git -C repo2 merge -q master &&
	(cd repo2 && CCSIFT=$TRASH/failing STUB_OUT=$TRASH/ran .git/hooks/post-merge 0) &&
	wait_for ran
'

test_done
