#!/bin/bash
# make-history.sh: build a small, deterministic git history for the index and
# scoring tests and for the demo.
#
#   bash tests/lib/make-history.sh DIR             create the repository in DIR
#   bash tests/lib/make-history.sh --describe DIR  print tests/lib/history.md for it
#
# or, sourced:
#
#   . "$TEST_DIRECTORY/lib/make-history.sh"
#   make_history DIR && describe_history DIR
#
# DIR must not exist yet. The same input always gives the same commit ids: every
# author, committer and date is fixed, and neither the caller's git configuration
# (system, global, templates, hooks) nor its environment (GIT_DIR, TZ, ...) is
# used. Sourcing only defines functions; the work runs in a subshell, so the
# caller's HOME, environment and current directory are left alone.
#
# Who is who (tests/lib/history.md has every commit):
#   Alice Substance  substantive author of drivers/net/foo.[ch]; early commits as
#                    alice@old-employer.example, mapped by .mailmap
#   Bob Treewide     one tree-wide commit touching 100 files in 7 top-level dirs
#   Carol Typo       one 1-line typo fix in drivers/net/foo.c
#   Dave Maintainer  M: for FOO NETWORK DRIVER, applies Alice's and Carol's
#                    commits from June 2023 on, merges Frank's side branch
#   Erin Review      R: for BAR FILESYSTEM, Reviewed-by/Tested-by trailers only
#   Frank Fs         M: for BAR FILESYSTEM, author of fs/bar/*
#   Grace Rename     author of drivers/net/old_name.c, renamed by Henry Mover to
#                    drivers/net/new_name.c (pure rename) in 2024
#   Ivan Newdir      author of drivers/net/sibling.c only
#   Jack Contributor one fs/bar fix with Acked-by Frank and Tested-by Erin

# --- plumbing -------------------------------------------------------------

# _mh_git ARGS...: git with nothing from the user's configuration.
_mh_git() {
	git -c init.defaultBranch=master -c commit.gpgsign=false -c tag.gpgsign=false \
	    -c core.autocrlf=false -c core.safecrlf=false -c core.hooksPath=/dev/null \
	    -c user.useConfigOnly=false -c merge.log=false -c i18n.commitEncoding=UTF-8 \
	    "$@"
}

# _mh_env: run inside the builder's subshell; isolates git from the caller.
_mh_env() {
	unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_OBJECT_DIRECTORY \
	      GIT_ALTERNATE_OBJECT_DIRECTORIES GIT_TEMPLATE_DIR GIT_CEILING_DIRECTORIES \
	      GIT_NAMESPACE GIT_COMMON_DIR GIT_CONFIG GIT_CONFIG_PARAMETERS \
	      GIT_CONFIG_COUNT GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_AUTHOR_DATE \
	      GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL GIT_COMMITTER_DATE EMAIL \
	      GIT_MERGE_AUTOEDIT GIT_EDITOR GIT_REPLACE_REF_BASE GIT_GRAFT_FILE \
	      GIT_NO_REPLACE_OBJECTS GIT_DEFAULT_HASH
	export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_SYSTEM=/dev/null
	export GIT_MERGE_AUTOEDIT=no GIT_EDITOR=: GIT_TERMINAL_PROMPT=0
	export TZ=UTC LC_ALL=C LANG=C
	umask 022
}

# commit_as ANAME AEMAIL ADATE [--committer CNAME CEMAIL CDATE] -m SUBJECT
#           [-b BODY] [-t TRAILER]... [-- git-commit-args...]
# Commits what is staged. The message gets "Signed-off-by:" of the author first,
# then the -t trailers in order, then "Signed-off-by:" of the committer when the
# committer is someone else. Dates are ISO 8601 in UTC ("2023-01-09T09:00:00Z").
commit_as() {
	local an=$1 ae=$2 ad=$3
	shift 3
	local cn=$an ce=$ae cd=$ad
	if [ "${1-}" = --committer ]; then
		cn=$2 ce=$3 cd=$4
		shift 4
	fi
	local subject='' body='' trailers=()
	while [ $# -gt 0 ]; do
		case $1 in
		-m) subject=$2; shift 2 ;;
		-b) body=$2; shift 2 ;;
		-t) trailers+=("$2"); shift 2 ;;
		--) shift; break ;;
		*) echo "commit_as: unknown option $1" >&2; return 1 ;;
		esac
	done
	[ -n "$subject" ] || { echo "commit_as: no subject" >&2; return 1; }
	local msg=$subject$'\n\n'
	[ -z "$body" ] || msg+=$body$'\n\n'
	msg+="Signed-off-by: $an <$ae>"$'\n'
	local t
	for t in "${trailers[@]}"; do msg+=$t$'\n'; done
	[ "$ce" = "$ae" ] || msg+="Signed-off-by: $cn <$ce>"$'\n'
	GIT_AUTHOR_NAME=$an GIT_AUTHOR_EMAIL=$ae GIT_AUTHOR_DATE=$ad \
	GIT_COMMITTER_NAME=$cn GIT_COMMITTER_EMAIL=$ce GIT_COMMITTER_DATE=$cd \
		_mh_git commit -q --no-verify --cleanup=verbatim -m "$msg" "$@"
}

# add_fn FILE NAME LINES: append exactly LINES lines (>= 6) to FILE: a blank line
# and a C function NAME whose body is LINES-5 distinct statements.
add_fn() {
	local file=$1 name=$2 n=$3 i
	{
		printf '\nstatic int %s(struct %s_priv *priv)\n{\n' "$name" "${name%%_*}"
		for ((i = 1; i <= n - 5; i++)); do
			printf '\t%s_write(priv, 0x%03x, %d);\n' "${name%%_*}" $((i * 4)) "$i"
		done
		printf '\treturn 0;\n}\n'
	} >>"$file"
}

# _mh_write FILE: standard input into FILE, with builtins only (the
# builder writes a hundred files, and a process each is most of its time).
_mh_write() {
	local text
	IFS= read -r -d '' text || true
	printf '%s' "$text" >"$1"
}

# _mh_generic PATH CALL: a dozen lines of C-like text; CALL is the statement
# inside the function (the tree-wide commit converts "old_api(" callers).
_mh_generic() {
	local path=$1 call=$2 base ident guard top=${1%%/*}
	base=${path##*/}
	ident=${base%.*}
	ident=${ident//[^A-Za-z0-9]/_}
	[ -d "${path%/*}" ] || mkdir -p "${path%/*}"
	case $path in
	*.h)
		guard=_LINUX_${ident^^}_H
		_mh_write "$path" <<-EOF
		/* SPDX-License-Identifier: GPL-2.0 */
		/*
		 * $path: part of the ccsift test tree.
		 */
		#ifndef $guard
		#define $guard

		static inline int ${ident}_helper(int arg)
		{
		${call}
		}

		#endif /* $guard */
		EOF
		;;
	*/Kconfig)
		printf '%s\n' '# SPDX-License-Identifier: GPL-2.0' '#' \
			"# $path: part of the ccsift test tree." '#' '' \
			"config ${top^^}_HELPERS" \
			$'\tbool "Library helpers"' $'\tdefault y' $'\thelp' \
			$'\t  Generic helpers used by the rest of the tree.' $'\t  Say Y.' \
			>"$path"
		;;
	*)
		_mh_write "$path" <<-EOF
		// SPDX-License-Identifier: GPL-2.0
		/*
		 * $path: part of the ccsift test tree.
		 */
		#include <linux/kernel.h>
		#include <linux/init.h>

		int ${ident}_init(int arg)
		{
		${call}
		}
		EOF
		;;
	esac
}

# The files of the initial import, by top-level directory. Everything but mm/,
# block/ and lib/Kconfig calls old_api(): 99 files, plus drivers/net/foo.c later.
_mh_generic_files() {
	local a f
	for a in arm arm64 x86 riscv mips; do
		for f in setup irq time traps; do echo "arch/$a/kernel/$f.c"; done
	done
	printf 'drivers/gpio/%s.c\n' gpio-core gpio-mmio gpio-pca953x gpio-sysfs
	printf 'drivers/i2c/%s.c\n' i2c-core i2c-dev i2c-mux i2c-smbus
	printf 'drivers/spi/%s.c\n' spi spidev spi-mem spi-bitbang
	printf 'drivers/usb/core/%s.c\n' driver hub urb message
	printf 'drivers/mmc/core/%s.c\n' core host block queue
	printf 'drivers/input/%s.c\n' input evdev ff-core input-mt
	printf 'fs/ext2/%s.c\n' inode dir super file
	printf 'fs/proc/%s.c\n' base root inode generic
	printf 'fs/nfs/%s.c\n' client dir inode super
	printf 'include/linux/%s.h\n' kernel list slab device netdevice fs gpio i2c spi \
		usb mmc input
	printf 'kernel/%s.c\n' fork exit signal sys panic printk module workqueue \
		timer cpu
	printf 'lib/%s.c\n' string vsprintf bitmap idr sort crc32 rbtree kstrtox hexdump
	printf 'lib/Kconfig\n'
	printf 'net/core/%s.c\n' dev skbuff sock rtnetlink
	printf 'net/ipv4/%s.c\n' tcp udp ip_input route
	printf 'net/ipv6/%s.c\n' addrconf route ndisc ip6_output
	printf 'mm/%s.c\n' slab page_alloc vmscan mmap memory filemap
	printf 'block/%s.c\n' blk-core blk-mq bio genhd elevator partitions
}

# --- people ----------------------------------------------------------------

SETUP=('Setup Person' setup@example.org)
ALICE=('Alice Substance' alice@example.org)
ALICE_OLD=('Alice Substance' alice@old-employer.example)
BOB=('Bob Treewide' bob@example.org)
CAROL=('Carol Typo' carol@example.org)
DAVE=('Dave Maintainer' dave@example.org)
ERIN=('Erin Review' erin@example.org)
FRANK=('Frank Fs' frank@example.org)
GRACE=('Grace Rename' grace@example.org)
HENRY=('Henry Mover' henry@example.org)
IVAN=('Ivan Newdir' ivan@example.org)
JACK=('Jack Contributor' jack@example.org)

# --- the history -------------------------------------------------------------

_mh_build() {
	local f n

	_mh_git init -q . || return 1

	# 1. The tree: 112 files in 9 top-level directories, and MAINTAINERS.
	while read -r f; do
		case $f in
		mm/* | block/* | */Kconfig) _mh_generic "$f" $'\treturn arg;' ;;
		*) _mh_generic "$f" $'\treturn old_api(arg);' ;;
		esac
	done < <(_mh_generic_files)
	cat >MAINTAINERS <<'EOF'
List of maintainers
===================

Descriptions of section entries:

	M: Mail patches to: FullName <address@domain>
	R: Designated reviewer: FullName <address@domain>
	S: Status, one of Supported, Maintained, Odd Fixes, Orphan
	F: Files and directories with wildcard patterns.

Maintainers List
----------------

EOF
	_mh_git add -A
	commit_as "${SETUP[@]}" 2023-01-09T09:00:00Z \
		-m 'Initial import of the test tree' \
		-b 'Generic placeholder sources for every subsystem, and an empty MAINTAINERS.'

	# 2. Alice, still at her old employer, adds the FOO driver.
	mkdir -p drivers/net
	cat >drivers/net/foo.c <<'EOF'
// SPDX-License-Identifier: GPL-2.0
/*
 * FOO network driver
 *
 * Copyright (C) 2023 Alice Substance
 */
#include <linux/kernel.h>
#include <linux/netdevice.h>
#include "foo.h"

/* Called when the hardware has a packet to recieve. */
static int foo_rx(struct foo_priv *priv)
{
	int budget = FOO_RX_BUDGET;

	while (budget-- && foo_rx_pending(priv))
		foo_rx_one(priv);
	return 0;
}

static int foo_open(struct net_device *dev)
{
	struct foo_priv *priv = netdev_priv(dev);

	old_api(priv);
	return foo_rx(priv);
}

static int foo_stop(struct net_device *dev)
{
	return 0;
}

static const struct net_device_ops foo_netdev_ops = {
	.ndo_open = foo_open,
	.ndo_stop = foo_stop,
};

int foo_probe(struct net_device *dev)
{
	dev->netdev_ops = &foo_netdev_ops;
	return 0;
}
EOF
	_mh_foo_h
	_mh_git add drivers/net/foo.c drivers/net/foo.h
	commit_as "${ALICE_OLD[@]}" 2023-02-06T10:15:00Z \
		-m 'net: foo: add FOO network driver' \
		-b 'Add a driver for the FOO network controller: open, stop and RX polling.'

	# 3. Grace adds the old_name driver.
	_mh_generic_driver drivers/net/old_name.c oldname 'old_name driver' 30
	_mh_git add drivers/net/old_name.c
	commit_as "${GRACE[@]}" 2023-02-20T14:30:00Z \
		-m 'net: old_name: add old_name driver' \
		-b 'Basic support for the old_name Ethernet controller.'

	# 4. Alice: statistics (foo.c +18, foo.h +4).
	add_fn drivers/net/foo.c foo_update_stats 18
	_mh_foo_h 'u64 rx_packets;' 'u64 rx_bytes;' 'u64 rx_errors;' 'u64 rx_dropped;'
	_mh_git add drivers/net/foo.c drivers/net/foo.h
	commit_as "${ALICE_OLD[@]}" 2023-03-13T11:00:00Z \
		-m 'net: foo: add statistics counters' \
		-b 'Count received packets, bytes, errors and drops.'

	# 5. Frank adds the bar filesystem and its MAINTAINERS entry.
	mkdir -p fs/bar
	_mh_generic_driver fs/bar/bar.c bar 'bar filesystem: directory operations' 35
	_mh_generic_driver fs/bar/super.c barsb 'bar filesystem: super block' 30
	cat >>MAINTAINERS <<-'EOF'
	BAR FILESYSTEM
	M:	Frank Fs <frank@example.org>
	R:	Erin Review <erin@example.org>
	S:	Maintained
	F:	fs/bar/

	EOF
	_mh_git add fs/bar MAINTAINERS
	commit_as "${FRANK[@]}" 2023-04-03T08:45:00Z \
		-m 'fs: bar: add bar filesystem' \
		-b 'A minimal read-only filesystem, and a MAINTAINERS entry for it.'

	# 6. Grace: ring buffer (+25).
	add_fn drivers/net/old_name.c oldname_ring_refill 25
	_mh_git add drivers/net/old_name.c
	commit_as "${GRACE[@]}" 2023-04-24T16:20:00Z \
		-m 'net: old_name: implement ring buffer handling' \
		-b 'Refill the RX ring from the interrupt handler instead of polling.'

	# 7. Ivan adds the sibling driver (same directory as foo.c).
	_mh_generic_driver drivers/net/sibling.c sibling 'sibling driver' 30
	_mh_git add drivers/net/sibling.c
	commit_as "${IVAN[@]}" 2023-05-15T13:05:00Z \
		-m 'net: sibling: add sibling driver' \
		-b 'Support for the sibling PHY-less Ethernet controller.'

	# 8. Alice, at her new address, maps the old one.
	cat >.mailmap <<-'EOF'
	Alice Substance <alice@example.org> <alice@old-employer.example>
	EOF
	_mh_git add .mailmap
	commit_as "${ALICE[@]}" 2023-05-22T09:30:00Z \
		-m 'mailmap: add entry for Alice Substance' \
		-b 'Map my old work address to the current one.'

	# 9. Dave becomes the FOO maintainer.
	cat >>MAINTAINERS <<-'EOF'
	FOO NETWORK DRIVER
	M:	Dave Maintainer <dave@example.org>
	S:	Maintained
	F:	drivers/net/foo.*
	EOF
	_mh_git add MAINTAINERS
	commit_as "${DAVE[@]}" 2023-06-05T10:00:00Z \
		-m 'MAINTAINERS: add entry for the FOO network driver' \
		-b 'I will be picking up patches for this driver.'

	# 10. Alice: link state (+30), applied by Dave, reviewed by Erin.
	add_fn drivers/net/foo.c foo_link_change 30
	_mh_git add drivers/net/foo.c
	commit_as "${ALICE[@]}" 2023-06-19T15:40:00Z \
		--committer "${DAVE[@]}" 2023-06-21T09:00:00Z \
		-m 'net: foo: handle link state changes' \
		-b 'Report carrier changes to the stack from the link interrupt.' \
		-t "Reviewed-by: ${ERIN[0]} <${ERIN[1]}>"

	# 11. Grace: power management (+30).
	add_fn drivers/net/old_name.c oldname_suspend 30
	_mh_git add drivers/net/old_name.c
	commit_as "${GRACE[@]}" 2023-07-10T12:10:00Z \
		-m 'net: old_name: add power management support' \
		-b 'Save and restore the MAC state across suspend.'

	# 12. Frank: super block validation (super.c +20, bar.c +8).
	add_fn fs/bar/super.c barsb_validate 20
	add_fn fs/bar/bar.c bar_check_dir 8
	_mh_git add fs/bar
	commit_as "${FRANK[@]}" 2023-08-21T10:25:00Z \
		-m 'fs: bar: validate the super block on mount' \
		-b 'Refuse to mount images with a bad magic number or block size.'

	# 13. Jack: a small fs/bar fix, acked by Frank, tested by Erin.
	sed -i -e '0,/^\tbar_write(priv, 0x00c, 3);$/s//\tbar_write(priv, 0x00c, 2);/' \
	       -e '0,/^\tbar_write(priv, 0x010, 4);$/s//\tbar_write(priv, 0x010, 3);/' fs/bar/bar.c
	_mh_git add fs/bar/bar.c
	commit_as "${JACK[@]}" 2023-09-11T17:00:00Z \
		-m 'fs: bar: fix off-by-one in directory lookup' \
		-b 'The lookup loop read one entry past the end of the block.' \
		-t "Acked-by: ${FRANK[0]} <${FRANK[1]}>" \
		-t "Tested-by: ${ERIN[0]} <${ERIN[1]}>"

	# 14. Ivan: DMA (+25).
	add_fn drivers/net/sibling.c sibling_dma_map 25
	_mh_git add drivers/net/sibling.c
	commit_as "${IVAN[@]}" 2023-10-02T09:50:00Z \
		-m 'net: sibling: add DMA support' \
		-b 'Use streaming DMA for RX and TX buffers.'

	# 15. Carol: one-line typo fix, applied by Dave.
	sed -i 's/packet to recieve\./packet to receive./' drivers/net/foo.c
	_mh_git add drivers/net/foo.c
	commit_as "${CAROL[@]}" 2023-11-06T11:11:00Z \
		--committer "${DAVE[@]}" 2023-11-08T08:30:00Z \
		-m 'net: foo: fix typo in comment'

	# 16. Bob: the tree-wide conversion, exactly 100 files.
	n=$(_mh_git grep -l 'old_api(' | wc -l)
	[ "$n" -eq 100 ] || { echo "make-history: $n old_api() callers, not 100" >&2; return 1; }
	_mh_git grep -l -z 'old_api(' | xargs -0 sed -i 's/old_api(/new_api(/'
	_mh_git add -u
	commit_as "${BOB[@]}" 2024-01-15T14:00:00Z \
		-m 'treewide: convert to new_api()' \
		-b $'old_api() is going away; convert every caller to new_api(), which\ntakes the same arguments.'

	# 17. Alice: ethtool (foo.c +35, foo.h +2), applied by Dave, reviewed by Erin.
	add_fn drivers/net/foo.c foo_get_ethtool_stats 35
	_mh_foo_h 'u64 rx_packets;' 'u64 rx_bytes;' 'u64 rx_errors;' 'u64 rx_dropped;' \
		'u32 msg_enable;' 'u32 ring_size;'
	_mh_git add drivers/net/foo.c drivers/net/foo.h
	commit_as "${ALICE[@]}" 2024-02-12T10:30:00Z \
		--committer "${DAVE[@]}" 2024-02-14T09:15:00Z \
		-m 'net: foo: add ethtool support' \
		-b 'Expose the statistics counters and ring size through ethtool.' \
		-t "Reviewed-by: ${ERIN[0]} <${ERIN[1]}>"

	# 18. Henry: pure rename, no content change.
	_mh_git mv drivers/net/old_name.c drivers/net/new_name.c
	commit_as "${HENRY[@]}" 2024-03-04T13:20:00Z \
		-m 'net: rename old_name driver to new_name' \
		-b 'The hardware was rebranded; follow the new product name.'

	# 19. Alice: a small fix on the renamed file (+7 -1), applied by Dave.
	sed -i '0,/^\toldname_write(priv, 0x004, 1);$/s//\toldname_write(priv, 0x004, 0);/' \
		drivers/net/new_name.c
	add_fn drivers/net/new_name.c oldname_probe_unwind 6
	_mh_git add drivers/net/new_name.c
	commit_as "${ALICE[@]}" 2024-03-25T10:05:00Z \
		--committer "${DAVE[@]}" 2024-03-27T08:40:00Z \
		-m 'net: new_name: fix error path in probe' \
		-b 'Reset the MAC before enabling it, as the error path leaves it running.'

	# 20-22. Frank's side branch, started at the rename, merged by Dave.
	_mh_git checkout -q -b bar-xattr HEAD~1
	add_fn fs/bar/bar.c bar_getxattr 30
	_mh_git add fs/bar/bar.c
	commit_as "${FRANK[@]}" 2024-04-08T09:00:00Z \
		-m 'fs: bar: add extended attribute support' \
		-b 'Read extended attributes from the inode extension block.'
	add_fn fs/bar/super.c barsb_xattr_handlers 20
	_mh_git add fs/bar/super.c
	commit_as "${FRANK[@]}" 2024-04-22T15:30:00Z \
		-m 'fs: bar: register xattr handlers in the super block' \
		-b 'Wire the new handlers up at mount time.'
	_mh_git checkout -q master
	GIT_AUTHOR_NAME=${DAVE[0]} GIT_AUTHOR_EMAIL=${DAVE[1]} GIT_AUTHOR_DATE=2024-05-06T12:00:00Z \
	GIT_COMMITTER_NAME=${DAVE[0]} GIT_COMMITTER_EMAIL=${DAVE[1]} GIT_COMMITTER_DATE=2024-05-06T12:00:00Z \
		_mh_git merge -q --no-ff --no-edit --no-verify bar-xattr \
		-m "Merge branch 'bar-xattr' of https://git.example.org/frank/linux" \
		-m 'Pull bar filesystem extended attribute support from Frank Fs.' \
		-m "Signed-off-by: ${DAVE[0]} <${DAVE[1]}>" || return 1
	_mh_git branch -q -d bar-xattr

	# 23. Alice: per-queue locking (4 lines changed, +22), applied by Dave.
	sed -i -e 's/^static int foo_rx(struct foo_priv \*priv)$/static int foo_rx(struct foo_priv *priv, unsigned int q)/' \
	       -e 's/^\t\tfoo_rx_one(priv);$/\t\tfoo_rx_one(priv, q);/' \
	       -e 's/^\treturn foo_rx(priv);$/\treturn foo_rx(priv, 0);/' \
	       -e 's/^\twhile (budget-- && foo_rx_pending(priv))$/\twhile (budget-- \&\& foo_rx_pending(priv, q))/' \
		drivers/net/foo.c
	add_fn drivers/net/foo.c foo_queue_lock 22
	_mh_git add drivers/net/foo.c
	commit_as "${ALICE[@]}" 2024-06-10T10:45:00Z \
		--committer "${DAVE[@]}" 2024-06-12T09:20:00Z \
		-m 'net: foo: convert to per-queue locking' \
		-b 'Take a lock per RX queue instead of the device-wide one.'

	# 24. Frank: refcount leak (super.c +12).
	add_fn fs/bar/super.c barsb_put_super 12
	_mh_git add fs/bar/super.c
	commit_as "${FRANK[@]}" 2024-09-16T14:15:00Z \
		-m 'fs: bar: fix super block refcount leak' \
		-b 'Drop the reference taken at mount when the mount fails.'

	# 25. Alice: revision B (foo.c +28, foo.h +2), applied by Dave.
	add_fn drivers/net/foo.c foo_init_rev_b 28
	_mh_foo_h 'u64 rx_packets;' 'u64 rx_bytes;' 'u64 rx_errors;' 'u64 rx_dropped;' \
		'u32 msg_enable;' 'u32 ring_size;' 'u8 revision;' 'bool has_csum_offload;'
	_mh_git add drivers/net/foo.c drivers/net/foo.h
	commit_as "${ALICE[@]}" 2025-01-20T11:30:00Z \
		--committer "${DAVE[@]}" 2025-01-22T10:00:00Z \
		-m 'net: foo: add support for revision B hardware' \
		-b 'Revision B moved the interrupt status register and adds checksum offload.'

	# 26. Ivan: RX checksum fix (+12).
	add_fn drivers/net/sibling.c sibling_rx_csum 12
	_mh_git add drivers/net/sibling.c
	commit_as "${IVAN[@]}" 2025-03-10T16:00:00Z \
		-m 'net: sibling: fix RX checksum offload' \
		-b 'Only trust the hardware checksum when the valid bit is set.'
}

# _mh_generic_driver PATH PREFIX DESCRIPTION LINES: a new C file of LINES lines
# (header, includes, then functions from add_fn).
_mh_generic_driver() {
	local path=$1 prefix=$2 desc=$3 lines=$4
	_mh_write "$path" <<-EOF
	// SPDX-License-Identifier: GPL-2.0
	/*
	 * $desc
	 */
	#include <linux/kernel.h>
	EOF
	add_fn "$path" "${prefix}_probe" $((lines - 5))
}

# _mh_foo_h FIELD...: rewrite drivers/net/foo.h with these extra struct fields.
_mh_foo_h() {
	local field
	{
		printf '/* SPDX-License-Identifier: GPL-2.0 */\n#ifndef _FOO_H\n#define _FOO_H\n\n'
		printf '#define FOO_RX_BUDGET\t64\n\nstruct foo_priv {\n'
		printf '\tvoid __iomem *base;\n\tunsigned int flags;\n'
		for field; do printf '\t%s\n' "$field"; done
		printf '};\n\nint foo_probe(struct net_device *dev);\n\n#endif /* _FOO_H */\n'
	} >drivers/net/foo.h
}

# make_history DIR: create DIR (which must not exist) holding the history.
make_history() (
	set -e -o pipefail
	local dir=${1-}
	if [ -z "$dir" ]; then
		echo "usage: make_history DIR" >&2
		exit 2
	fi
	if [ -e "$dir" ] || [ -L "$dir" ]; then
		echo "make-history: $dir already exists" >&2
		exit 1
	fi
	_mh_env
	mkdir -p -- "$dir"
	cd -- "$dir"
	_mh_build
	# Leave a clean, packed-or-not repository on master.
	[ -z "$(_mh_git status --porcelain)" ] || { echo "make-history: dirty tree" >&2; exit 1; }
)

# make_history_cached DIR: a copy of the history this script builds, built
# once per build directory (CCSIFT_BUILD_DIR) and version of this script:
# twenty tests of each ctest run start from it, and building it costs each a
# few seconds of git. t0010 checks make_history itself.
make_history_cached() (
	set -e -o pipefail
	local dir=${1-} key cache
	if [ -e "$dir" ] || [ -L "$dir" ]; then
		echo "make-history: $dir already exists" >&2
		exit 1
	fi
	key=$(sha1sum <"${BASH_SOURCE[0]}" | cut -c1-16)
	cache=$CCSIFT_BUILD_DIR/test-history/$key
	mkdir -p "$CCSIFT_BUILD_DIR/test-history"
	{
		flock 9
		if [ ! -d "$cache" ]; then
			rm -rf "$cache.new"
			make_history "$cache.new"
			mv "$cache.new" "$cache"
		fi
	} 9>"$cache.lock"
	cp -a "$cache" "$dir"
)

# describe_history DIR: print the Markdown description of DIR's history
# (tests/lib/history.md is this output for a fresh make_history).
describe_history() (
	set -e -o pipefail
	local dir=${1-}
	[ -d "$dir" ] || { echo "usage: describe_history DIR" >&2; exit 2; }
	_mh_env
	cd -- "$dir"
	local fmt='%H%x00%h%x00%ad%x00%an <%ae>%x00%cd%x00%cn <%ce>%x00%s%x00%P'
	local dfmt=--date=format-local:%Y-%m-%dT%H:%M:%SZ
	local commits n i c
	commits=$(_mh_git rev-list --reverse --date-order HEAD)
	n=$(printf '%s\n' "$commits" | wc -l)
	cat <<-EOF
	# The test history (tests/lib/make-history.sh)

	Generated by \`bash tests/lib/make-history.sh --describe DIR\` on a repository made by
	\`bash tests/lib/make-history.sh DIR\`; tests/t0010-history-builder.sh checks that
	the two agree, so edit the builder and regenerate this file, never the reverse.

	$n commits on \`master\` (one of them a merge), oldest first. Dates are UTC. Identities
	are as recorded: \`.mailmap\` maps \`alice@old-employer.example\` to
	\`alice@example.org\`. Line counts are \`git show --numstat\` (for the merge: against
	its first parent); a rename is \`old => new\` with 0 lines.

	## Summary

	| # | commit | author date | author | committer (date, if not the author) | subject | files | +/- |
	|---|---|---|---|---|---|---|---|
	EOF
	i=0
	while read -r c; do
		i=$((i + 1))
		local h hs ad an cd cn s p files add del tdirs
		IFS=$'\x01' read -r h hs ad an cd cn s p < <(
			_mh_git show -s "$dfmt" --format="$fmt" "$c" | tr '\0' '\001')
		read -r files add del < <(_mh_numstat "$c" |
			awk -F'\t' '{ f++; a += $1; d += $2 } END { print f + 0, a + 0, d + 0 }')
		local who=$cn
		if [ "$cn" = "$an" ]; then who='(author)'
		else who="$cn, $cd"; fi
		printf '| %d | %s | %s | %s | %s | %s | %d | +%d -%d |\n' \
			"$i" "$hs" "$ad" "$an" "$who" "$s" "$files" "$add" "$del"
	done <<<"$commits"
	printf '\n## Commits\n'
	i=0
	while read -r c; do
		i=$((i + 1))
		local h hs ad an cd cn s p
		IFS=$'\x01' read -r h hs ad an cd cn s p < <(
			_mh_git show -s "$dfmt" --format="$fmt" "$c" | tr '\0' '\001')
		printf '\n### %d. %s\n\n' "$i" "$s"
		printf -- '- commit: `%s`' "$h"
		[ "$(wc -w <<<"$p")" -le 1 ] || printf ' (merge of `%s`)' "${p// /\` and \`}"
		printf '\n- author: %s, %s\n' "$an" "$ad"
		printf -- '- committer: %s, %s\n' "$cn" "$cd"
		printf -- '- trailers:'
		local t
		t=$(_mh_git show -s --format='%(trailers:only,unfold)' "$c" | sed '/^$/d')
		if [ -z "$t" ]; then printf ' none\n'
		else printf '\n'; sed 's/^/  - /' <<<"$t"; fi
		read -r files add del tdirs < <(_mh_numstat "$c" | awk -F'\t' '
			{ f++; a += $1; d += $2; split($3, p, "/"); if (!(p[1] in seen)) { seen[p[1]]; n++ } }
			END { print f + 0, a + 0, d + 0, n + 0 }')
		printf -- '- files: %d, +%d -%d lines, %d top-level director%s\n' \
			"$files" "$add" "$del" "$tdirs" "$([ "$tdirs" -eq 1 ] && echo y || echo ies)"
		_mh_numstat "$c" | awk -F'\t' '{ printf "  - `%s` +%s -%s\n", $3, $1, $2 }'
	done <<<"$commits"
)

# _mh_numstat COMMIT: ADDED<TAB>DELETED<TAB>PATH per file (renames as "a => b").
_mh_numstat() {
	_mh_git -c diff.renames=true show --format= --numstat -M --diff-merges=first-parent "$1" |
		sed -E 's#^([0-9]+\t[0-9]+\t)(.*)\{(.*) => (.*)\}(.*)$#\1\2\3\5 => \2\4\5#'
}

# Run, unless sourced.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	case ${1-} in
	--describe)
		[ $# -eq 2 ] || { echo "usage: $0 --describe DIR" >&2; exit 2; }
		describe_history "$2"
		;;
	-h | --help)
		sed -n '2,/^$/s/^# \{0,1\}//p' "$0"
		;;
	*)
		[ $# -eq 1 ] && [ "${1#-}" = "$1" ] || { echo "usage: $0 DIR | --describe DIR" >&2; exit 2; }
		if [ -n "${CCSIFT_BUILD_DIR:-}" ]; then
			make_history_cached "$1"
		else
			make_history "$1"
		fi
		;;
	esac
fi
