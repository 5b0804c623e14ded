#!/bin/bash
# ccsift serve: a resident process decides for ccsift filter over a Unix
# socket. A served delivery must be the in-process one byte for byte (stdout
# and stderr), the server must follow changes to the config and the index,
# refuse a client of another context, and a server that is gone, dead or
# killed in the middle of a message must cost the message nothing.
#
# The test history is tests/lib/history.md; as of 2025-06-01 the patch to
# drivers/net/foo.c is low for carol until she commits to the file herself.

. "${TEST_DIRECTORY:=$(cd "$(dirname "$0")" && pwd)}/lib/test-lib.sh"

CONTRIB=$(cd "$TEST_DIRECTORY/../contrib" && pwd)
test_need git procmail notmuch strace python3
ASOF=2025-06-01T00:00:00Z
SOCK="$TRASH/run/ccsift/filter.sock"
export CCSIFT_SOCKET="$SOCK"
# Verdicts come from the index, never from the clock (sanitizer builds are slow).
BUDGET="--time-budget 600"

# start_server [OPTION...]: ccsift serve in the background, its stderr in
# serve.err; waits for the socket to appear (the server makes it before it
# takes its first message, and under its own name: never one that refuses a
# client). A server left by a failed test is killed first,
# and any at exit: a live one would hold ctest's output open.
kill_leftover() {
	[ -f "$TRASH/server.pid" ] && kill -KILL "$(cat "$TRASH/server.pid")" 2>/dev/null
	rm -f "$TRASH/server.pid"
	for p in $(started_servers); do kill -KILL $p; done
	return 0
}

# pids_running PREFIX: the pids whose command line starts with PREFIX (its
# arguments joined by spaces), from /proc: procps may be missing. Builtins
# only: wait_for calls this ten times a second, and a fork per process on the
# machine made the test's harness take more CPU than ccsift.
pids_running() {
	local c args
	for c in /proc/[0-9]*/cmdline; do
		mapfile -d "" -t args <"$c" 2>/dev/null || continue
		case "${args[*]} " in "$1"*) c=${c%/cmdline}; echo "${c#/proc/}" ;; esac
	done
	return 0
}

# started_servers [SOCKET]: the pids of the servers deliveries started at
# SOCKET, default $SOCK.
started_servers() { pids_running "ccsift serve --socket ${1:-$SOCK} "; }

# wait_for COMMAND...: until it succeeds, for at most 60 s (a started
# server loads GMime and opens the index first, slowly under a sanitizer).
wait_for() {
	local n=0
	until "$@"; do
		[ $n -lt 600 ] || return 1
		sleep 0.1
		n=$((n + 1))
	done
}
one_started() { test "$(started_servers | wc -l)" = 1; }
none_started() { test -z "$(started_servers)"; }
trap kill_leftover EXIT
start_server() {
	local n=0 stale
	kill_leftover
	# a socket left by a dead server may be there already: wait for the new one
	stale=$(stat -c %i "$SOCK" 2>/dev/null || echo none)
	"$CCSIFT_BIN" serve --as-of $ASOF $BUDGET "$@" >/dev/null 2>serve.err &
	server_pid=$!
	echo $server_pid >"$TRASH/server.pid"
	while [ "$(stat -c %i "$SOCK" 2>/dev/null || echo none)" = "$stale" ] && [ $n -lt 6000 ]; do
		kill -0 $server_pid 2>/dev/null || { cat serve.err >&2; return 1; }
		sleep 0.1
		n=$((n + 1))
	done
	[ -S "$SOCK" ]
}

# stop_server: SIGTERM, and the server's exit status must be 0.
stop_server() {
	kill -TERM $server_pid && wait $server_pid
}

# served MSG [OPTION...] / in_process MSG [OPTION...]: ccsift filter on MSG;
# stdout to MSG.served (.local), stderr to MSG.served.err (.local.err).
served() {
	local m=$1
	shift
	"$CCSIFT_BIN" filter --as-of $ASOF $BUDGET "$@" <"$m" >"$m.served" 2>"$m.served.err"
}
in_process() {
	local m=$1
	shift
	"$CCSIFT_BIN" filter --no-server --as-of $ASOF $BUDGET "$@" <"$m" >"$m.local" 2>"$m.local.err"
}

same_delivery() {
	cmp "$1.local" "$1.served" && cmp "$1.local.err" "$1.served.err"
}

verdict_of() { sed -n 's/^X-Ccsift: \([a-z-]*\).*/\1/p' "$1" | head -1; }

# write_config EMAIL: the user and the clone. A delivery starts no server
# unless a test asks (START_SERVER=S write_config ...), and the index
# catches up every 900 s (CATCH_UP=S).
write_config() {
	printf "%s\n" "[user]" "email = $1" "notmuch = false" "start-server = ${START_SERVER:-0}" \
		"catch-up = ${CATCH_UP:-900}" \
		"[repo demo]" "path = $TRASH/repo" \
		>"$XDG_CONFIG_HOME/ccsift/config.new" &&
	mv "$XDG_CONFIG_HOME/ccsift/config.new" "$XDG_CONFIG_HOME/ccsift/config"
}

test_expect_success 'setup: history, config, index, messages' '
	bash "$TEST_DIRECTORY/lib/make-history.sh" repo >/dev/null &&
	mkdir -p "$XDG_CONFIG_HOME/ccsift" msgs &&
	write_config carol@example.org &&
	"$CCSIFT_BIN" index >/dev/null &&
	cp "$TEST_DIRECTORY/lib/rx-budget.eml" patch.eml &&
	{ echo "From new@example.org Tue May 20 10:00:01 2025"; cat patch.eml; } >msgs/mbox.eml &&
	sed "s/\$/\r/" patch.eml >msgs/crlf.eml &&
	printf "%s\n" "From: Bob <bob@example.org>" "Subject: lunch?" "" "Noon?" >msgs/plain.eml &&
	printf "\000\001 not a mail at all\n" >msgs/binary.eml &&
	: >msgs/empty.eml &&
	cp "$TEST_DIRECTORY"/corpus/*.eml msgs/ &&
	test $(ls msgs | wc -l) -gt 50
'

test_expect_success 'without a server, ccsift filter decides by itself' '
	served patch.eml && in_process patch.eml && same_delivery patch.eml &&
	test "$(verdict_of patch.eml.served)" = low
'

test_expect_success 'served deliveries are the in-process ones, byte for byte' '
	start_server &&
	n=0 &&
	for m in patch.eml msgs/*.eml; do
		in_process $m && served $m && same_delivery $m || { echo "differs: $m" >&2; return 1; }
		n=$((n + 1))
	done &&
	stop_server &&
	grep "^ccsift serve: $n messages decided in [0-9]* sessions, 0 refused" serve.err
'

test_expect_success 'another context (--me, --threshold) is refused and decided in-process' '
	start_server &&
	in_process patch.eml --me alice@example.org && served patch.eml --me alice@example.org &&
	same_delivery patch.eml && test "$(verdict_of patch.eml.served)" = relevant &&
	in_process patch.eml --threshold 0.01 && served patch.eml --threshold 0.01 && same_delivery patch.eml &&
	served patch.eml && test "$(verdict_of patch.eml.served)" = low &&
	stop_server &&
	grep "^ccsift serve: 1 messages decided in 1 sessions, 2 refused" serve.err
'

test_expect_success 'while nothing changes, one session serves every message' '
	start_server &&
	served patch.eml && served patch.eml && served msgs/plain.eml && served patch.eml &&
	stop_server &&
	grep "^ccsift serve: 4 messages decided in 1 sessions, 0 refused" serve.err
'

test_expect_success 'a changed config is read again' '
	start_server &&
	served patch.eml && test "$(verdict_of patch.eml.served)" = low &&
	write_config alice@example.org &&
	served patch.eml && in_process patch.eml && same_delivery patch.eml &&
	test "$(verdict_of patch.eml.served)" = relevant &&
	write_config carol@example.org &&
	served patch.eml && test "$(verdict_of patch.eml.served)" = low &&
	stop_server &&
	grep "^ccsift serve: 3 messages decided in 3 sessions" serve.err
'

# The server under strace, its open of the index held 2 s past the open
# (the descriptor is there, in /proc): a new session has read the config
# by then, and the config changes while it decides its first message.
test_expect_success 'a config changed while a new session reads the files is read again' '
	kill_leftover &&
	index=$(ls "$XDG_CACHE_HOME"/ccsift/*.db) &&
	{ ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
		strace -f -o /dev/null -P "$index" -e trace=openat -e inject=openat:delay_exit=2000000 \
		"$CCSIFT_BIN" serve --as-of $ASOF $BUDGET 2>serve.err & tracer=$!; } &&
	wait_for test -S "$SOCK" &&
	server=$(pgrep -P $tracer) && echo $server >"$TRASH/server.pid" &&
	status=0 &&
	{
		{ served patch.eml & client=$!; } &&
		wait_for sh -c "ls -l /proc/$server/fd | grep -qF \"$index\"" &&
		write_config alice@example.org &&
		wait $client &&
		served patch.eml && in_process patch.eml && same_delivery patch.eml &&
		test "$(verdict_of patch.eml.served)" = relevant
	} || status=$? &&
	write_config carol@example.org &&
	kill -TERM $server && wait $tracer &&
	test $status = 0
'

test_expect_success 'the config or the index made writable by others: refused, as in-process' '
	start_server &&
	served patch.eml && test "$(verdict_of patch.eml.served)" = low &&
	chmod o+w "$XDG_CONFIG_HOME/ccsift" &&
	served patch.eml; chmod o-w "$XDG_CONFIG_HOME/ccsift" &&
	test "$(verdict_of patch.eml.served)" = unknown &&
	test_grep "writable by everyone" patch.eml.served.err &&
	index=$(ls "$XDG_CACHE_HOME"/ccsift/*.db) &&
	served patch.eml && test "$(verdict_of patch.eml.served)" = low &&
	chmod o+w "$index" &&
	served patch.eml; chmod o-w "$index" &&
	test "$(verdict_of patch.eml.served)" = unknown &&
	stop_server
'

test_expect_success 'another HOME or notmuch config is another context' '
	start_server &&
	printf "%s\n" "[user]" "primary_email=alice@example.org" >other-notmuch-config &&
	HOME=$TRASH/elsewhere served patch.eml && NOTMUCH_CONFIG=$TRASH/other-notmuch-config served patch.eml &&
	served patch.eml &&
	stop_server &&
	grep "^ccsift serve: 1 messages decided in 1 sessions, 2 refused" serve.err
'

test_expect_success 'the addresses of notmuch'\''s config are followed' '
	printf "%s\n" "[user]" "notmuch = true" "start-server = 0" "[repo demo]" "path = $TRASH/repo" \
		>"$XDG_CONFIG_HOME/ccsift/config" &&
	printf "%s\n" "[database]" "path=$TRASH/nm-ids" "[user]" "primary_email=carol@example.org" \
		>"$TRASH/nm-ids-config" &&
	export NOTMUCH_CONFIG="$TRASH/nm-ids-config" &&
	start_server &&
	served patch.eml && test "$(verdict_of patch.eml.served)" = low &&
	notmuch config set user.primary_email alice@example.org &&
	served patch.eml && in_process patch.eml && same_delivery patch.eml &&
	test "$(verdict_of patch.eml.served)" = relevant &&
	stop_server && unset NOTMUCH_CONFIG && write_config carol@example.org
'

test_expect_success 'with the decisions of ccsift tag, still one session until they change' '
	export NOTMUCH_CONFIG="$TRASH/notmuch-config" &&
	mkdir -p nm/cur nm/new nm/tmp && cp patch.eml nm/new/1.eml &&
	printf "%s\n" "[database]" "path=$TRASH/nm" "[user]" "primary_email=carol@example.org" \
		"[new]" "tags=new" >"$NOTMUCH_CONFIG" &&
	notmuch new --no-hooks >/dev/null &&
	"$CCSIFT_BIN" tag --query "*" &&
	test -f "$XDG_DATA_HOME/ccsift/decisions.db" &&
	start_server &&
	served patch.eml && served patch.eml && served patch.eml &&
	in_process patch.eml && same_delivery patch.eml &&
	cp patch.eml nm/new/2.eml && notmuch new --no-hooks >/dev/null &&
	"$CCSIFT_BIN" tag --query "*" &&
	served patch.eml && same_delivery patch.eml &&
	stop_server &&
	grep "^ccsift serve: 4 messages decided in 2 sessions" serve.err
'

# commit_as_carol CLONE: five substantive commits of hers to drivers/net/foo.c,
# before --as-of: the patch becomes relevant to her.
commit_as_carol() {
	(
		cd "$1" &&
		for i in 1 2 3 4 5; do
			printf "int carol_%d(void) { return %d; }\n" $i $i >>drivers/net/foo.c &&
			seq 1 20 | sed "s,.*,/* line & */," >>drivers/net/foo.c &&
			GIT_AUTHOR_NAME="Carol Typo" GIT_AUTHOR_EMAIL=carol@example.org \
			GIT_COMMITTER_NAME="Carol Typo" GIT_COMMITTER_EMAIL=carol@example.org \
			GIT_AUTHOR_DATE=2025-05-0${i}T10:00:00Z GIT_COMMITTER_DATE=2025-05-0${i}T10:00:00Z \
				git commit -q -am "net: foo: carol takes over, part $i" || exit 1
		done
	)
}

test_expect_success 'two repositories: the index of the one in use is followed' '
	git clone -q repo other &&
	printf "%s\n" "[user]" "email = carol@example.org" "notmuch = false" \
		"[repo demo]" "path = $TRASH/repo" "list-id = demo.example.org" \
		"[repo other]" "path = $TRASH/other" "list-id = other.example.org" \
		>"$XDG_CONFIG_HOME/ccsift/config.new" &&
	mv "$XDG_CONFIG_HOME/ccsift/config.new" "$XDG_CONFIG_HOME/ccsift/config" &&
	"$CCSIFT_BIN" index >/dev/null &&
	{ sed -n 1p patch.eml; echo "List-Id: <demo.example.org>"; sed 1d patch.eml; } >demo.eml &&
	{ sed -n 1p patch.eml; echo "List-Id: <other.example.org>"; sed 1d patch.eml; } >other.eml &&
	start_server &&
	served demo.eml && test "$(verdict_of demo.eml.served)" = low &&
	served other.eml && test "$(verdict_of other.eml.served)" = low &&
	commit_as_carol other && "$CCSIFT_BIN" index --repo other >/dev/null &&
	served other.eml && in_process other.eml && same_delivery other.eml &&
	test "$(verdict_of other.eml.served)" = relevant &&
	served demo.eml && test "$(verdict_of demo.eml.served)" = low &&
	stop_server &&
	grep "^ccsift serve: 4 messages decided in 2 sessions" serve.err &&
	write_config carol@example.org
'

test_expect_success 'an index brought up to date is read again' '
	start_server &&
	served patch.eml && test "$(verdict_of patch.eml.served)" = low &&
	commit_as_carol repo &&
	"$CCSIFT_BIN" index >/dev/null &&
	served patch.eml && in_process patch.eml && same_delivery patch.eml &&
	test "$(verdict_of patch.eml.served)" = relevant &&
	stop_server &&
	grep "^ccsift serve: 2 messages decided in 2 sessions" serve.err
'

# catch_ups: the processes the server under test forked to catch the index up.
catch_ups() { pids_running "$CCSIFT_BIN serve --as-of" | grep -vx "$server_pid"; return 0; }
indexed_all() { "$CCSIFT_BIN" index --repo demo --status >/dev/null 2>&1; }

test_expect_success 'past the catch-up interval a served delivery brings the index up, and the catch-up ends' '
	CATCH_UP=1 write_config carol@example.org &&
	start_server &&
	(
		cd repo && echo "/* later */" >>fs/bar/bar.c &&
		GIT_AUTHOR_DATE=2026-01-01T00:00:00Z GIT_COMMITTER_DATE=2026-01-01T00:00:00Z \
			git commit -qam "fs: bar: a later change" --author="Zed Later <zed@example.org>"
	) &&
	! indexed_all && sleep 1.1 &&
	# served only: an in-process delivery would start a catch-up of its own
	served patch.eml && test "$(verdict_of patch.eml.served)" = relevant &&
	wait_for indexed_all &&
	wait_for test -z "$(catch_ups)" &&
	served patch.eml && in_process patch.eml && same_delivery patch.eml &&
	stop_server && write_config carol@example.org
'

test_expect_success 'a server killed while it holds the message costs it nothing' '
	start_server &&
	kill -STOP $server_pid &&
	{ served patch.eml & client=$!; } &&
	sleep 1 &&
	kill -KILL $server_pid &&
	{ wait $server_pid; true; } &&
	wait $client &&
	in_process patch.eml && same_delivery patch.eml &&
	test "$(verdict_of patch.eml.served)" = relevant
'

# through_stopped_server MSG BUDGET: MSG delivered with a budget of BUDGET
# seconds while the server is stopped (SIGSTOP), then the server killed (its
# socket is left): the delivery must be the in-process one.
through_stopped_server() {
	start_server &&
	kill -STOP $server_pid &&
	"$CCSIFT_BIN" filter --as-of $ASOF --time-budget $2 <"$1" >"$1.served" 2>"$1.served.err" &&
	kill -KILL $server_pid && { wait $server_pid; true; } &&
	in_process "$1" && same_delivery "$1"
}

test_expect_success 'a stopped server: after half the budget the client decides by itself' '
	through_stopped_server patch.eml 8 &&
	test "$(verdict_of patch.eml.served)" = relevant
'

test_expect_success 'the dead server socket is passed over; a new server replaces it' '
	test -S "$SOCK" &&
	served patch.eml && in_process patch.eml && same_delivery patch.eml &&
	start_server && served patch.eml && same_delivery patch.eml &&
	stop_server && grep "^ccsift serve: 1 messages decided" serve.err &&
	test ! -e "$SOCK"
'

test_expect_success 'a stopped server: a mail of 300 KB is decided by the client too, as without one' '
	{ cat patch.eml && yes "$(printf "%075d" 0)" | head -n 4000; } >big.eml &&
	through_stopped_server big.eml 8 &&
	test "$(verdict_of big.eml.served)" = relevant
'

test_expect_success 'a client that sends its message a byte at a time is dropped, not waited for' '
	start_server &&
	python3 - "$SOCK" >drip.out <<-\EOF &&
	import socket, struct, sys, time
	s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])
	request = b"ccsift-filter 1\n" + struct.pack("=I", 1) + struct.pack("=I", 100) + b"x" * 100
	try:
	    for i in range(len(request)):
	        s.send(request[i:i + 1]); time.sleep(0.5)
	    print("kept")
	except OSError:
	    print("dropped")
	EOF
	served patch.eml && in_process patch.eml && same_delivery patch.eml &&
	stop_server &&
	test "$(cat drip.out)" = dropped &&
	grep "^ccsift serve: 1 messages decided" serve.err
'

# Whatever answers at the socket, only a verdict goes into the header.
test_expect_success 'a server answering a verdict that is none: the client decides by itself' '
	python3 - "$SOCK" >fake.out 2>&1 <<-\EOF &
	import os, socket, struct, sys
	try: os.unlink(sys.argv[1])
	except FileNotFoundError: pass
	s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(1)
	print("listening", flush=True)
	c, _ = s.accept(); c.settimeout(2)
	try: c.recv(1 << 20)
	except OSError: pass
	st = lambda b: struct.pack("=I", len(b)) + b
	c.sendall(b"ccsift-served 1\n" + struct.pack("=I", 0) + st(b"EVIL") + st(b"forged") + st(b""))
	c.close(); os.unlink(sys.argv[1])
	EOF
	fake=$! &&
	wait_for grep -q listening fake.out &&
	served patch.eml --time-budget 10 && wait $fake &&
	in_process patch.eml --time-budget 10 && same_delivery patch.eml &&
	! grep -q "EVIL\|forged" patch.eml.served
'

test_expect_success 'a server that exits leaves the socket of the one that replaced it' '
	start_server && first=$server_pid && echo >"$TRASH/server.pid" &&
	rm "$SOCK" &&
	start_server && second=$server_pid &&
	kill -TERM $first && wait $first &&
	test -S "$SOCK" &&
	served patch.eml && same_delivery patch.eml &&
	stop_server && grep "^ccsift serve: 1 messages decided" serve.err
'

test_expect_success 'a second server on a live socket refuses to start' '
	start_server &&
	test_must_fail "$CCSIFT_BIN" serve 2>second.err &&
	grep "another server is listening" second.err &&
	served patch.eml && same_delivery patch.eml &&
	stop_server
'

test_expect_success 'ccsift installed again: the old server refuses and makes way' '
	cp "$CCSIFT_BIN" old-ccsift &&
	stale=$(stat -c %i "$SOCK" 2>/dev/null || echo none) &&
	{ ./old-ccsift serve --as-of $ASOF $BUDGET >/dev/null 2>serve.err & old=$!; } &&
	n=0 && while [ "$(stat -c %i "$SOCK" 2>/dev/null || echo none)" = "$stale" ] && [ $n -lt 6000 ]; do
		sleep 0.1; n=$((n + 1))
	done &&
	served patch.eml && in_process patch.eml && same_delivery patch.eml &&
	wait $old &&
	grep "another ccsift binary; exiting" serve.err &&
	grep "^ccsift serve: 0 messages decided in 0 sessions, 1 refused" serve.err
'

# A server started before its context had home= and notmuch-config= in it
# (e0129f1) sees a new client differ in more than the executable: it
# refused every delivery after an upgrade and stayed, each refusal keeping
# it from going idle, so that no server of the new ccsift could start. One
# of this ccsift in another context (--me) stands in for it here: installed
# again over it (a new file renamed into place, as make install and dpkg
# do), the client retires it. Another ccsift installed elsewhere, and this
# one in another context, are left alone.
test_expect_success 'ccsift installed again under a server that does not make way: the client retires it' '
	mkdir -p inst && cp "$CCSIFT_BIN" inst/ccsift &&
	stale=$(stat -c %i "$SOCK" 2>/dev/null || echo none) &&
	{ inst/ccsift serve --as-of $ASOF $BUDGET --me alice@example.org >/dev/null 2>serve.err & old=$!; } &&
	n=0 && while [ "$(stat -c %i "$SOCK" 2>/dev/null || echo none)" = "$stale" ] && [ $n -lt 6000 ]; do
		sleep 0.1; n=$((n + 1))
	done &&
	served patch.eml && in_process patch.eml && same_delivery patch.eml && kill -0 $old &&
	inst/ccsift filter --as-of $ASOF $BUDGET <patch.eml >inst.out && kill -0 $old &&
	cp "$CCSIFT_BIN" inst/ccsift.new && mv inst/ccsift.new inst/ccsift &&
	inst/ccsift filter --as-of $ASOF $BUDGET <patch.eml >inst.out 2>inst.err &&
	cmp patch.eml.local inst.out && test ! -s inst.err &&
	{ wait_for eval "! kill -0 $old 2>/dev/null" || { kill $old; false; }; } &&
	wait $old &&
	grep "^ccsift serve: 0 messages decided in 0 sessions, 3 refused" serve.err
'

test_expect_success 'the socket directory must be ours alone' '
	mkdir -p open && chmod 755 open &&
	test_must_fail "$CCSIFT_BIN" serve --socket "$TRASH/open/s.sock" 2>open.err &&
	grep "only you can enter" open.err
'

test_expect_success 'procmail delivers through the served filter' '
	MD="$TRASH/Maildir" && mkdir -p "$MD" &&
	printf "#!/bin/sh\nexec %s \"\$@\" --as-of %s --time-budget 600\n" "$CCSIFT_BIN" $ASOF >ccsift-asof &&
	chmod +x ccsift-asof &&
	start_server &&
	procmail -m HOME="$HOME" MAILDIR="$MD" DEFAULT="$MD/" CCSIFT="$TRASH/ccsift-asof" \
		CCSIFT_SOCKET="$SOCK" XDG_CONFIG_HOME="$XDG_CONFIG_HOME" XDG_CACHE_HOME="$XDG_CACHE_HOME" \
		XDG_DATA_HOME="$XDG_DATA_HOME" "$CONTRIB/procmailrc" <patch.eml &&
	stop_server &&
	grep "^ccsift serve: 1 messages decided in 1 sessions, 0 refused" serve.err &&
	f=$(find "$MD" -type f) && test -n "$f" &&
	grep "^X-Ccsift: relevant" $f
'

test_expect_success 'a delivery that finds no server starts one; the next is served' '
	START_SERVER=30 write_config carol@example.org &&
	# no socket directory yet: the server makes it, its log is there too
	rm -rf "$(dirname "$SOCK")" &&
	served patch.eml && in_process patch.eml && same_delivery patch.eml &&
	wait_for test -S "$SOCK" && one_started &&
	served patch.eml && same_delivery patch.eml &&
	pid=$(started_servers) && kill -TERM $pid && wait_for none_started &&
	cat "$SOCK.log" &&
	grep "^ccsift serve: 1 messages decided in 1 sessions, 0 refused" "$SOCK.log" &&
	test ! -e "$SOCK"
'

test_expect_success 'config check says whether a server listens, and if one would start' '
	START_SERVER=30 write_config carol@example.org &&
	"$CCSIFT_BIN" config check >check.out &&
	grep "^  server    none listening at $SOCK: a delivery starts one, which stays 30 idle seconds" check.out &&
	served patch.eml && wait_for test -S "$SOCK" &&
	"$CCSIFT_BIN" config check >check.out &&
	grep "^  server    listening at $SOCK\$" check.out &&
	kill -TERM $(started_servers) && wait_for none_started &&
	CCSIFT_SOCKET= "$CCSIFT_BIN" config check >check.out &&
	grep "^  server    none: no socket" check.out
'

test_expect_success 'deliveries at once start one server, the others leave' '
	# a second server left listening would stay for its 600 idle seconds
	START_SERVER=600 write_config carol@example.org &&
	rm -f "$SOCK.log" &&
	for i in 1 2 3 4 5 6 7 8; do
		cp patch.eml at-once-$i.eml && { served at-once-$i.eml & }
	done &&
	wait &&
	wait_for test -S "$SOCK" && wait_for one_started &&
	served patch.eml && same_delivery patch.eml &&
	kill -TERM $(started_servers) && wait_for none_started &&
	grep "^ccsift serve: [1-9][0-9]* messages decided" "$SOCK.log" &&
	for i in 1 2 3 4 5 6 7 8; do
		cmp patch.eml.local at-once-$i.eml.served || return 1
	done
'

test_expect_success 'start-server = 0: a delivery starts none' '
	write_config carol@example.org &&
	served patch.eml && same_delivery patch.eml &&
	sleep 1 && none_started && test ! -e "$SOCK"
'

test_expect_success 'a socket directory others may enter: a delivery starts none' '
	START_SERVER=30 write_config carol@example.org &&
	mkdir -p shared && chmod 755 shared &&
	CCSIFT_SOCKET="$TRASH/shared/s.sock" served patch.eml && same_delivery patch.eml &&
	sleep 1 && test -z "$(started_servers "$TRASH/shared/s.sock")" &&
	test ! -e shared/s.sock.log
'

test_expect_success 'clients it refuses do not keep an idle server alive' '
	# (the index up to date and no catch-up due: nothing changes meanwhile)
	write_config carol@example.org && "$CCSIFT_BIN" index >/dev/null &&
	start_server --idle-exit 2 &&
	n=0 && while kill -0 $server_pid 2>/dev/null && [ $n -lt 600 ]; do
		served patch.eml --me alice@example.org && n=$((n + 1)) && sleep 0.1
	done &&
	echo "$n refused deliveries" && test $n -lt 600 && wait $server_pid &&
	in_process patch.eml --me alice@example.org && same_delivery patch.eml &&
	grep "^ccsift serve: 0 messages decided in 0 sessions, [1-9][0-9]* refused" serve.err &&
	test ! -e "$SOCK"
'

test_expect_success 'idle and message limits end the server' '
	start_server --max-messages 2 &&
	served patch.eml && served patch.eml &&
	wait $server_pid &&
	grep "^ccsift serve: 2 messages decided" serve.err &&
	"$CCSIFT_BIN" serve --idle-exit 1 2>serve.err &&
	grep "^ccsift serve: 0 messages decided" serve.err &&
	test ! -e "$SOCK"
'

test_done
