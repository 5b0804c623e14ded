#!/bin/sh
# contrib/demo.sh [BUILD_DIR]: the quick-start demo of ccsift.
#
# In a temporary directory: build the test history (tests/lib/make-history.sh),
# give Alice, Bob and Carol each a HOME with a ccsift config and an index, and
# deliver the same patch mail (a change to drivers/net/foo.c by a newcomer,
# Cc'd to all three) to each of them through real procmail with
# contrib/procmailrc.  For each recipient it shows the X-Ccsift headers, the
# Maildir folder the mail landed in, and `ccsift explain`.  Scoring is done as
# of 2025-06-01, so the output does not change with time.
#
#   Alice wrote most of drivers/net/foo.c             -> relevant, inbox
#   Bob touched it once, in a 100-file tree-wide API change -> low, lowcc/
#   Carol fixed one typo in it                        -> low, lowcc/
#
# BUILD_DIR holds the ccsift binary (default: ./build, else the build
# directory next to this script).  Nothing outside the temporary directory is
# read or written (HOME and the XDG directories point into it); it is removed
# at the end unless DEMO_KEEP=1.  Exits non-zero if any step fails or any
# verdict is not the expected one.
set -eu

ROOT=$(cd "$(dirname "$0")/.." && pwd)
if [ $# -gt 1 ]; then
	echo "usage: $0 [BUILD_DIR]" >&2
	exit 2
fi
if [ $# -eq 1 ]; then
	BUILD=$1
elif [ -x build/ccsift ]; then
	BUILD=build
else
	BUILD=$ROOT/build
fi
if ! BUILD_ABS=$(cd "$BUILD" 2>/dev/null && pwd); then
	echo "demo: no build directory $BUILD; build first (contrib/build.sh)" >&2
	exit 1
fi
CCSIFT_BIN=$BUILD_ABS/ccsift
[ -x "$CCSIFT_BIN" ] || { echo "demo: $CCSIFT_BIN not found; build first (contrib/build.sh)" >&2; exit 1; }
for prog in procmail git; do
	command -v "$prog" >/dev/null || { echo "demo: $prog is needed (contrib/install-deps.sh)" >&2; exit 1; }
done

ASOF=2025-06-01T00:00:00Z
DEMO=$(mktemp -d "${TMPDIR:-/tmp}/ccsift-demo.XXXXXX")
cleanup() {
	if [ "${DEMO_KEEP:-0}" = 1 ]; then
		echo "demo: kept $DEMO"
	else
		rm -rf "$DEMO"
	fi
}
trap cleanup EXIT
trap 'exit 1' HUP INT TERM

export HOME="$DEMO/home" XDG_CONFIG_HOME="$DEMO/home/.config" \
       XDG_CACHE_HOME="$DEMO/home/.cache" NOTMUCH_CONFIG="$DEMO/no-notmuch-config"
export TZ=UTC LC_ALL=C
# The demo's deliveries decide in-process: they leave no ccsift serve behind.
export CCSIFT_SOCKET=
mkdir -p "$HOME"
cd "$DEMO"

say() { printf '%s\n' "$*"; }
rule() { say "------------------------------------------------------------------------"; }

say "ccsift demo in $DEMO"
say "binary: $CCSIFT_BIN"
say ""

# 1. The repository.
say "* building the test history (tests/lib/make-history.sh) ..."
bash "$ROOT/tests/lib/make-history.sh" "$DEMO/repo" >/dev/null
say "  $(git -C repo rev-list --count HEAD) commits; drivers/net/foo.c: $(git -C repo log --use-mailmap --format='%aN' -- drivers/net/foo.c | sort | uniq -c | sort -rn | awk '{ n = $1; $1 = ""; printf "%s%s x%d", sep, substr($0, 2), n; sep = ", " }')"

# 2. ccsift, run with a fixed --as-of.  procmail runs this wrapper with fixed
# arguments; the mail only ever reaches it on stdin.
cat >ccsift-asof <<EOF
#!/bin/sh
exec '$CCSIFT_BIN' "\$@" --as-of $ASOF
EOF
chmod +x ccsift-asof

# 3. One user per recipient, set up as a new user would: a git identity,
# `ccsift init --repo` for the config, `ccsift index`, a Maildir.
say "* one HOME per recipient: ccsift init --repo, ccsift index, ~/Maildir ..."
for u in alice bob carol; do
	h=$DEMO/users/$u
	mkdir -p "$h/Maildir/cur" "$h/Maildir/new" "$h/Maildir/tmp"
	printf '[user]\n\temail = %s@example.org\n' "$u" >"$h/.gitconfig"
	HOME=$h XDG_CONFIG_HOME=$h/.config XDG_CACHE_HOME=$h/.cache \
		"$CCSIFT_BIN" init --repo "$DEMO/repo" </dev/null >/dev/null
	HOME=$h XDG_CONFIG_HOME=$h/.config XDG_CACHE_HOME=$h/.cache "$CCSIFT_BIN" index >/dev/null
done
say "  config of alice, as ccsift init wrote it (comments left out):"
grep -v '^#' "$DEMO/users/alice/.config/ccsift/config" | grep . | sed 's/^/    /'
say "  ccsift config check, for alice:"
HOME=$DEMO/users/alice XDG_CONFIG_HOME=$DEMO/users/alice/.config XDG_CACHE_HOME=$DEMO/users/alice/.cache \
	"$CCSIFT_BIN" config check | sed 's/^/    /'

# 4. The patch mail, as git format-patch writes it, with the From_ line an
# MTA gives procmail.
{ echo "From new@example.org Tue May 20 10:00:01 2025"; cat "$ROOT/tests/lib/rx-budget.eml"; } >patch.eml
say "* the mail: \"$(sed -n 's/^Subject: //p' patch.eml)\" from New Person, Cc alice, bob, carol"
say "* delivering it with: procmail -m HOME=~ MAILDIR=~/Maildir DEFAULT=~/Maildir/ CCSIFT=ccsift-asof contrib/procmailrc"
say ""

summary=$DEMO/summary
: >"$summary"
status=0
for spec in alice:relevant:inbox bob:low:lowcc carol:low:lowcc; do
	u=${spec%%:*} rest=${spec#*:}
	want_verdict=${rest%%:*} want_folder=${rest#*:}
	h=$DEMO/users/$u
	rc=0
	procmail -m HOME="$h" MAILDIR="$h/Maildir" DEFAULT="$h/Maildir/" \
		CCSIFT="$DEMO/ccsift-asof" "$ROOT/contrib/procmailrc" <patch.eml || rc=$?
	if [ "$rc" -ne 0 ]; then
		echo "demo: procmail exited $rc for $u" >&2
		exit 1
	fi
	files=$(cd "$h/Maildir" && find . -type f | sed 's|^\./||' | sort)
	if [ "$(printf '%s\n' "$files" | grep -c .)" -ne 1 ]; then
		echo "demo: expected one delivered message for $u, found: ${files:-none}" >&2
		exit 1
	fi
	msg=$h/Maildir/$files
	case $files in
	lowcc/new/*) folder=lowcc where="~/Maildir/lowcc/ (the CCSIFT_FOLDER of contrib/procmailrc)" ;;
	new/*) folder=inbox where="~/Maildir/ (the inbox: \$DEFAULT)" ;;
	*) folder=$files where=$files ;;
	esac
	verdict_line=$(sed -n '1{/^X-Ccsift: /p;}' "$msg")
	reason_line=$(sed -n '2{/^X-Ccsift-Reason: /p;}' "$msg")
	if [ -z "$verdict_line" ] || [ -z "$reason_line" ]; then
		echo "demo: $u's message does not start with the X-Ccsift headers" >&2
		exit 1
	fi
	verdict=$(printf '%s\n' "$verdict_line" | sed 's/^X-Ccsift: //; s/;.*//')
	score=$(printf '%s\n' "$verdict_line" | sed -n 's/.*score=\([^;]*\).*/\1/p')

	rule
	say "$u <$u@example.org>"
	rule
	say "$verdict_line"
	say "$reason_line"
	say "landed in: $where"
	say ""
	say "\$ ccsift explain --as-of $ASOF ~/Maildir/$files"
	HOME=$h XDG_CONFIG_HOME=$h/.config XDG_CACHE_HOME=$h/.cache \
		"$CCSIFT_BIN" explain --as-of "$ASOF" "$msg" >"$DEMO/explain.out"
	sed 's/^/  /' "$DEMO/explain.out"
	say ""

	ok=ok
	if [ "$verdict" != "$want_verdict" ] || [ "$folder" != "$want_folder" ]; then
		ok="UNEXPECTED (wanted $want_verdict, $want_folder)"
		status=1
	fi
	printf '%-8s %-10s %-7s %-8s %s\n' "$u" "$verdict" "${score:--}" "$folder" "$ok" >>"$summary"
done

rule
say "Summary (as of $ASOF, the default threshold)"
rule
printf '%-8s %-10s %-7s %-8s %s\n' recipient verdict score folder check
cat "$summary"
if [ "$status" -ne 0 ]; then
	echo "demo: some verdicts were not the expected ones" >&2
fi
exit "$status"
