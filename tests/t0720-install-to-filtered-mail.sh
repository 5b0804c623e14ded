#!/bin/bash
# From `cmake --install` to filtered mail with nothing but what ccsift init
# prints: a new user installs ccsift, runs `ccsift init --repo`, follows the
# printed steps (config check, index, the procmail line, the notmuch hook),
# and a patch Cc'd to them on a file they once fixed a typo in is filed as
# low, by procmail and by notmuch, while a plain mail stays in the inbox.
#
# The install goes to a DESTDIR staging root; init names the recipes next
# to the ccsift that runs, so the paths it prints are there as printed.

. "${TEST_DIRECTORY:=$(cd "$(dirname "$0")" && pwd)}/lib/test-lib.sh"

test_need cmake procmail notmuch git
BUILD=${CCSIFT_BUILD_DIR:?CCSIFT_BUILD_DIR names the build directory}
STAGE="$TRASH/stage"
P="$TEST_DIRECTORY/lib/rx-budget.eml"

test_expect_success 'install, and the installed ccsift is the one on PATH' '
	DESTDIR="$STAGE" cmake --install "$BUILD" >install.log &&
	bin=$(find "$STAGE" -path "*/bin/ccsift" -type f) && test -x "$bin" &&
	echo "PATH=$(dirname "$bin"):\$PATH" >path.sh
'
. ./path.sh 2>/dev/null

test_expect_success 'a new user: a git identity, a clone, notmuch with its database' '
	bash "$TEST_DIRECTORY/lib/make-history.sh" upstream >/dev/null &&
	mkdir -p "$HOME/src" "$HOME/mail/cur" "$HOME/mail/new" "$HOME/mail/tmp" &&
	git clone -q upstream "$HOME/src/linux" &&
	git config --global user.email carol@example.org &&
	export NOTMUCH_CONFIG="$HOME/.notmuch-config" &&
	printf "%s\n" "[database]" "path=$HOME/mail" "[user]" "name=Carol Typo" \
		"primary_email=carol@example.org" "[new]" "tags=new;inbox;unread" >"$NOTMUCH_CONFIG" &&
	notmuch new >/dev/null &&
	case $(command -v ccsift) in "$STAGE"/*) ;; *) echo "not the installed ccsift" >&2; false ;; esac
'
export NOTMUCH_CONFIG="$HOME/.notmuch-config"

test_expect_success 'ccsift init --repo: a config, and the steps to take' '
	ccsift init --repo "$HOME/src/linux" >init.out && cat init.out &&
	grep -q "^Wrote " init.out
'

test_expect_success 'step 1: config check accepts it' '
	ccsift config check >check.out && tail -1 check.out | grep -x ok
'

test_expect_success 'step 2: ccsift index' '
	ccsift index >index.out && grep "commits added" index.out &&
	ccsift index --status
'

test_expect_success 'step 4, procmail: the printed CCSIFT and INCLUDERC lines in ~/.procmailrc file the patch as low' '
	set_ccsift=$(sed -n "s/^ *~\/.procmailrc: *//p" init.out) &&
	test "$set_ccsift" = "CCSIFT=$(command -v ccsift)" &&
	rc=$(sed -n "s/^ *INCLUDERC=//p" init.out) &&
	test -n "$rc" && test -f "$rc" &&
	case $rc in "$STAGE"/*) ;; *) echo "not the installed recipe: $rc" >&2; false ;; esac &&
	# procmail'\''s own PATH, which lacks the prefix: the CCSIFT line finds it.
	printf "%s\n" "MAILDIR=\$HOME/Maildir" "DEFAULT=\$MAILDIR/" "$set_ccsift" \
		"INCLUDERC=$rc" >"$HOME/.procmailrc" &&
	mkdir -p "$HOME/Maildir" &&
	procmail -m HOME="$HOME" XDG_CONFIG_HOME="$XDG_CONFIG_HOME" XDG_CACHE_HOME="$XDG_CACHE_HOME" \
		NOTMUCH_CONFIG="$NOTMUCH_CONFIG" "$HOME/.procmailrc" <"$P" &&
	printf "%s\n" "From: Bob <bob@example.org>" "To: carol@example.org" "Subject: lunch" "" "Noon?" "" |
		procmail -m HOME="$HOME" XDG_CONFIG_HOME="$XDG_CONFIG_HOME" XDG_CACHE_HOME="$XDG_CACHE_HOME" \
			NOTMUCH_CONFIG="$NOTMUCH_CONFIG" "$HOME/.procmailrc" &&
	low=$(find "$HOME/Maildir/lowcc" -type f) && test "$(echo "$low" | wc -l)" = 1 &&
	grep "^X-Ccsift: low;" $low &&
	inbox=$(find "$HOME/Maildir/new" -type f) && test "$(echo "$inbox" | wc -l)" = 1 &&
	grep "^X-Ccsift: not-a-patch" $inbox
'

test_expect_success 'step 4, notmuch: the printed hook install, then notmuch new tags the patch lowcc' '
	cmd=$(sed -n "s/^ *notmuch: *//p" init.out) &&
	test "$cmd" = "$(command -v ccsift) init --notmuch-hook" &&
	eval "$cmd" &&
	cp "$P" "$HOME/mail/new/patch.eml" &&
	# notmuch started where PATH has no ccsift (a desktop session): the hook names it
	env PATH=/usr/bin:/bin notmuch new >new.out 2>&1 && cat new.out &&
	test "$(notmuch search --output=messages tag:lowcc)" = "id:20250520100000.1-new@example.org" &&
	test "$(notmuch search --output=messages tag:inbox and tag:lowcc)" = ""
'

test_done
