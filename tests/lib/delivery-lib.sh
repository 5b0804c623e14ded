# delivery-lib.sh: checks shared by the delivery tests (procmail, maildrop, notmuch insert).

# procmail_expect IN: IN as procmail stores it, a newline appended unless it
# already ends with an empty line.
procmail_expect() {
	cat "$1" &&
	if [ "$(tail -c 2 "$1" | od -An -tx1 | tr -d ' ')" != 0a0a ]; then printf '\n'; fi
}

# check_added OUT EXPECTED VERDICT [SKIP]: OUT is EXPECTED plus exactly two
# lines, X-Ccsift with VERDICT (a regex) and X-Ccsift-Reason, at line SKIP+1
# (SKIP=1 after an mbox From_ line).
check_added() {
	local out=$1 exp=$2 verdict=$3 skip=${4:-0}
	local l1=$((skip + 1)) l2=$((skip + 2))
	sed -n "${l1}p" "$out" | grep -E "^X-Ccsift: ($verdict)(;|\$|$(printf '\r'))" >/dev/null ||
		{ echo "line $l1 is not X-Ccsift: $verdict:" >&2; head -n "$l2" "$out" >&2; return 1; }
	sed -n "${l2}p" "$out" | grep "^X-Ccsift-Reason: ." >/dev/null ||
		{ echo "line $l2 is not X-Ccsift-Reason:" >&2; head -n "$l2" "$out" >&2; return 1; }
	sed "${l1},${l2}d" "$out" >"$out.stripped" &&
	cmp "$exp" "$out.stripped" ||
		{ diff -u "$exp" "$out.stripped" | cat -A | head -40 >&2; return 1; }
}
