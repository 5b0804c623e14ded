# notmuch-lib.sh: what the notmuch tests share. Needs $MD, the Maildir.

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
