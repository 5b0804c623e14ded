#!/bin/sh
# Install what ccsift needs to build and test on Debian 12 (run as root).
set -eu
packages="build-essential cmake pkg-config git
	libglib2.0-dev libpcre2-dev libgmime-3.0-dev libgit2-dev libsqlite3-dev libnotmuch-dev libjson-glib-dev zlib1g-dev libdeflate-dev
	procmail maildrop notmuch python3 sqlite3 emacs-nox elpa-notmuch git-email libmailtools-perl
	clang libclang-rt-14-dev valgrind scdoc strace"
missing=
for p in $packages; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing="$missing $p"
done
if [ -n "$missing" ]; then
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
