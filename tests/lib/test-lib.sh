# test-lib.sh: a small harness in the spirit of git's t/test-lib.sh.
#
#   . "$TEST_DIRECTORY/lib/test-lib.sh"
#   test_expect_success 'what it checks' '
#       commands that must all succeed
#   '
#   test_done
#
# Each test runs in a fresh scratch directory $TRASH (removed on success).
# CCSIFT names the binary under test; HOME and XDG dirs point into $TRASH so
# nothing from the developer's own configuration leaks in.

set -u
: "${TEST_DIRECTORY:=$(cd "$(dirname "$0")" && pwd)}"
: "${TEST_OUTPUT_ROOT:=${TMPDIR:-/tmp}}"
: "${CCSIFT:=ccsift}"

test_name=$(basename "$0" .sh)
TRASH=$(mktemp -d "$TEST_OUTPUT_ROOT/trash.$test_name.XXXXXX")
export HOME="$TRASH/home" XDG_CONFIG_HOME="$TRASH/home/.config" \
       XDG_CACHE_HOME="$TRASH/home/.cache" XDG_DATA_HOME="$TRASH/home/.local/share"
export NOTMUCH_CONFIG="$TRASH/home/no-notmuch-config"
# No ccsift serve of the developer answers a test, and a test's deliveries
# start none (a served delivery is the in-process one: t0800 and t0610
# check that, with sockets in $TRASH).
export CCSIFT_SOCKET=
export XDG_RUNTIME_DIR="$TRASH/run"
export GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME='Test Author' GIT_AUTHOR_EMAIL=author@example.org \
       GIT_COMMITTER_NAME='Test Committer' GIT_COMMITTER_EMAIL=committer@example.org
export TZ=UTC LC_ALL=C.UTF-8
# A GLib critical (a NULL where none may be, say) is a bug a user would
# see only as a line on stderr: in the tests it stops the program, and
# the test fails (every program here that uses GLib: ccsift, notmuch).
export G_DEBUG=fatal-criticals
mkdir -p "$HOME" "$XDG_CONFIG_HOME" "$XDG_CACHE_HOME"
cd "$TRASH" || exit 1

# CCSIFT as an absolute path, for the programs (procmail, maildrop, notmuch
# hooks) that run it from elsewhere.
CCSIFT_BIN=$(cd "$OLDPWD" && command -v "$CCSIFT") || { echo "no ccsift binary: $CCSIFT" >&2; exit 1; }
case $CCSIFT_BIN in /*) ;; *) CCSIFT_BIN=$OLDPWD/$CCSIFT_BIN ;; esac

# test_need PROGRAM...: the test cannot run without these.
test_need() {
	local prog
	for prog in "$@"; do
		command -v "$prog" >/dev/null || { echo "$prog is needed for this test" >&2; exit 1; }
	done
}

test_count=0 test_failures=0

say() { printf '%s\n' "$*"; }

test_expect_success() {
	test_count=$((test_count + 1))
	local title=$1 body=$2 start=${EPOCHREALTIME/[.,]/}
	if (set -e; cd "$TRASH"; eval "$body") >"$TRASH/.out.$test_count" 2>&1; then
		say "ok $test_count - $title$(test_took "$start")"
	else
		test_failures=$((test_failures + 1))
		say "not ok $test_count - $title$(test_took "$start")"
		sed 's/^/#	/' "$TRASH/.out.$test_count"
	fi
}

# test_took START: " (N.N s)" since START (microseconds), so a slow suite
# shows where its time goes; nothing asserts it.
test_took() {
	local us=$((${EPOCHREALTIME/[.,]/} - $1))
	printf ' (%d.%d s)' $((us / 1000000)) $((us % 1000000 / 100000))
}

# test_cmp EXPECTED ACTUAL: show a diff when they differ.
test_cmp() { diff -u "$1" "$2"; }

# test_must_fail CMD...: CMD exits non-zero (but did not crash by a signal).
test_must_fail() {
	"$@" && return 1
	local rc=$?
	[ $rc -lt 128 ] || { echo "died by signal: $rc" >&2; return 1; }
	return 0
}

# test_grep PATTERN FILE: like grep, but prints the file when nothing matches.
test_grep() {
	grep -q -- "$@" && return 0
	echo "no match for '$1' in ${*: -1}:" >&2; cat "${*: -1}" >&2; return 1
}

test_done() {
	say "# $test_count tests, $test_failures failed"
	if [ "$test_failures" -eq 0 ]; then
		cd / && rm -rf "$TRASH"
		exit 0
	fi
	say "# scratch directory kept: $TRASH"
	exit 1
}
