#!/bin/bash
# A repository decides only mail that is for it: mail from its lists when it
# has a list-id and a file the patch changes (or the patch only adds files);
# else mail whose files (or pre-image blobs) its tree has.
# Mail for another project is unknown, with a reason that says so, also with
# a single [repo] (LKML's x86 patches were scored against U-Boot). init fills
# list-id from MAINTAINERS' L: lines; config check says where mail goes.
. "${TEST_DIRECTORY:=$(cd "$(dirname "$0")" && pwd)}/lib/test-lib.sh"

AS_OF=2025-06-01T00:00:00Z
CONF="$XDG_CONFIG_HOME/ccsift/config"

# patch_mail FILE [INDEX-LINE] [HEADER...]: a patch to FILE Cc'd to Carol.
patch_mail() {
	local file=$1 index=${2-}; shift; shift
	printf "%s\n" "From: New Person <new@example.org>" "To: Dave Maintainer <dave@example.org>" \
		"Cc: Carol Typo <carol@example.org>" "Subject: [PATCH] fix a thing in $file" \
		"Message-Id: <t0730.$RANDOM@example.org>" "$@" "" "Fix it." "" \
		"Signed-off-by: New Person <new@example.org>" "---" \
		"diff --git a/$file b/$file" ${index:+"$index"} "--- a/$file" "+++ b/$file" \
		"@@ -1,3 +1,3 @@" " a" "-b" "+c" " d" "-- " "2.39.5"
}

# verdict MAIL: the X-Ccsift line filter adds, then its reason.
verdict() {
	"$CCSIFT" filter --as-of $AS_OF "$1" | sed -n "s/^X-Ccsift: \([a-z-]*\).*/\1/p;s/^X-Ccsift-Reason: //p"
}

config() { # config [LINE...]: one [repo linux], with these extra lines
	mkdir -p "$XDG_CONFIG_HOME/ccsift" &&
	printf "%s\n" "[user]" "email = carol@example.org" "notmuch = false" "catch-up = 0" \
		"[repo linux]" "path = $PWD/linux" "$@" >"$CONF"
}

test_expect_success 'setup: a kernel-like clone, indexed, and a U-Boot-like one with L: lines' '
	bash "$TEST_DIRECTORY/lib/make-history.sh" linux >/dev/null &&
	"$CCSIFT" index --repo linux >/dev/null &&
	git init -q uboot && mkdir -p uboot/arch/arm uboot/drivers/mmc &&
	printf "%s\n" "THE REST" "M:	Tom <tom@example.org>" "L:	U-Boot@lists.denx.de" "F:	*" "" \
		"AMLOGIC" "L:	u-boot-amlogic@groups.io (moderated for non-subscribers)" \
		"L:	u-boot@lists.denx.de" "L:	evil;x=1@example.org" "L:	http://lists.example.org/" \
		"L:	two@at@example.org" "F:	arch/arm/" >uboot/MAINTAINERS &&
	echo int > uboot/arch/arm/cpu.c && echo int > uboot/drivers/mmc/mmc.c &&
	git -C uboot add . && git -C uboot commit -q -m import
'

test_expect_success 'one [repo]: a patch to its files from an unclaimed list is decided' '
	config && patch_mail drivers/net/foo.c "" "List-Id: <netdev.vger.kernel.org>" >foo.eml &&
	verdict foo.eml >out && head -1 out | grep -x low
'

test_expect_success 'one [repo]: a patch to files it does not have is unknown, saying why' '
	config && patch_mail arch/x86/kernel/cpu/common.c "" "List-Id: LKML <linux-kernel.vger.kernel.org>" >x86.eml &&
	verdict x86.eml >out && cat out && head -1 out | grep -x unknown &&
	grep "no configured repository knows this patch.s files: arch/x86/kernel/cpu/common.c; its list linux-kernel.vger.kernel.org is in no \[repo\].s list-id" out &&
	patch_mail arch/x86/kernel/cpu/common.c >x86-direct.eml &&
	verdict x86-direct.eml >out && head -1 out | grep -x unknown &&
	"$CCSIFT" explain --as-of $AS_OF x86.eml >out && grep "^No decision: no configured repository knows" out
'

test_expect_success 'a new file is for the clone that has its directory' '
	config && patch_mail drivers/net/brand_new.c "new file mode 100644" |
		sed "s,^--- a/.*,--- /dev/null," >new.eml &&
	"$CCSIFT" parse --json new.eml | grep "\"status\" : \"A\"" &&
	verdict new.eml >out && head -1 out | grep -v unknown &&
	sed "s,drivers/net/,nowhere/,g" new.eml >nowhere.eml &&
	verdict nowhere.eml >out && head -1 out | grep -x unknown
'

test_expect_success 'a pre-image blob of the clone decides, whatever the path' '
	config && blob=$(git -C linux rev-parse --short=12 master:drivers/net/foo.c) &&
	patch_mail nowhere/foo.c "index $blob..0123456789ab 100644" >blob.eml &&
	verdict blob.eml >out && head -1 out | grep -v unknown &&
	patch_mail nowhere/foo.c "index 0123456789ab..0123456789ab 100644" >noblob.eml &&
	verdict noblob.eml >out && head -1 out | grep -x unknown
'

test_expect_success 'with a list-id, mail from another list is not for it, even to its files' '
	config "list-id = u-boot.lists.denx.de" &&
	verdict foo.eml >out && cat out && head -1 out | grep -x unknown &&
	grep "mail from netdev.vger.kernel.org, a list no \[repo\].s list-id names" out &&
	patch_mail drivers/net/foo.c "" "List-Id: <u-boot.lists.denx.de>" >ub.eml &&
	verdict ub.eml >out && head -1 out | grep -x low &&
	patch_mail drivers/net/foo.c "" "List-Id: U-Boot discussion <U-Boot.lists.DENX.de>" >ub-case.eml &&
	verdict ub-case.eml >out && head -1 out | grep -x low
'

test_expect_success 'mail from another list: its reason is the list, not files its [repo] has' '
	config "list-id = u-boot.lists.denx.de" &&
	verdict foo.eml >out && cat out &&
	sed -n 2p out >reason &&
	grep -x "mail from netdev.vger.kernel.org, a list no \[repo\].s list-id names: every \[repo\] has a list-id and takes no other list.s mail" reason &&
	! grep "knows this patch" reason
'

test_expect_success 'with a list-id, mail sent to you (no List-Id) is decided by its files' '
	config "list-id = u-boot.lists.denx.de" && patch_mail drivers/net/foo.c >direct.eml &&
	verdict direct.eml >out && head -1 out | grep -x low
'

test_expect_success 'a clone not indexed yet: said, alone or named among others' '
	printf "%s\n" "[user]" "email = carol@example.org" "notmuch = false" \
		"[repo uboot]" "path = $PWD/uboot" >"$CONF" &&
	verdict foo.eml >out && cat out && head -1 out | grep -x unknown &&
	grep "no index at .*(run: ccsift index)" out &&
	printf "%s\n" "[repo linux]" "path = $PWD/linux" >>"$CONF" &&
	verdict x86.eml >out && cat out && head -1 out | grep -x unknown &&
	grep "no configured repository knows .*; \[repo uboot\]: no index at " out
'

test_expect_success 'init fills list-id from the L: lines, plain addresses only, most named first' '
	"$CCSIFT" init --dry-run --repo uboot </dev/null >dry && cat dry &&
	grep -x "list-id = u-boot.lists.denx.de; u-boot-amlogic.groups.io" dry &&
	# the comment above it says what pick_repo does, as ccsift-config(5)
	grep -x "# clone when it has a file the patch changes; mail from other lists" dry &&
	grep -x "# never is, mail sent to you (no List-Id) when it has the patch.s files." dry &&
	! grep "from other lists only if" dry &&
	! grep "evil\|http\|two" dry
'

test_expect_success 'init then config check: where each list goes' '
	"$CCSIFT" init --force --repo uboot --repo linux </dev/null >/dev/null &&
	grep -x "#list-id = \*.lists.example.org" "$CONF" &&
	"$CCSIFT" config check >out; cat out &&
	grep "^  List-Id u-boot.lists.denx.de *\[repo uboot\]$" out &&
	grep "^  List-Id u-boot-amlogic.groups.io *\[repo uboot\]$" out &&
	grep "^  other lists *by the patch.s files: \[repo linux\]$" out &&
	grep "^  no List-Id (sent to you) *by the patch.s files: \[repo uboot\], \[repo linux\]$" out &&
	grep "^  list-id *(none: mail whose files this clone has)" out
'

test_expect_success 'two clones: each list to its clone, other mail by its files' '
	"$CCSIFT" index --repo uboot >/dev/null &&
	printf "%s\n" "[user]" "email = carol@example.org" "notmuch = false" "catch-up = 0" \
		"[repo uboot]" "path = $PWD/uboot" "list-id = u-boot.lists.denx.de" \
		"[repo linux]" "path = $PWD/linux" >"$CONF" &&
	patch_mail drivers/mmc/mmc.c "" "List-Id: <u-boot.lists.denx.de>" >ub-mmc.eml &&
	"$CCSIFT" score --as-of $AS_OF ub-mmc.eml >out && grep "^repo: uboot" out &&
	"$CCSIFT" score --as-of $AS_OF foo.eml >out && grep "^repo: linux" out &&
	patch_mail drivers/mmc/mmc.c >mmc.eml &&
	"$CCSIFT" score --as-of $AS_OF mmc.eml >out && grep "^repo: uboot" out
'

test_expect_success 'mail from another list to files no [repo] without a list-id has: the list first' '
	verdict x86.eml >out && cat out && head -1 out | grep -x unknown &&
	sed -n 2p out >reason &&
	grep -x "mail from linux-kernel.vger.kernel.org, a list no \[repo\].s list-id names, and no \[repo\] without a list-id knows this patch.s files: arch/x86/kernel/cpu/common.c" reason
'

test_expect_success 'from its list, a patch changing none of its files is not its: unknown, naming both' '
	verdict ub.eml >out && cat out && head -1 out | grep -x unknown &&
	grep -x "\[repo uboot\], the repository for its list u-boot.lists.denx.de, has none of the files this patch changes: drivers/net/foo.c" out &&
	"$CCSIFT" explain --as-of $AS_OF ub.eml >out && grep "^No decision: \[repo uboot\], the repository for its list" out &&
	! grep "no history" out
'

test_expect_success 'from its list, a patch changing one of its files, or only adding files, is its' '
	verdict ub-mmc.eml >out && head -1 out | grep -v unknown &&
	patch_mail drivers/mmc/mmc_new.c "new file mode 100644" "List-Id: <u-boot.lists.denx.de>" |
		sed "s,^--- a/.*,--- /dev/null," >ub-new.eml &&
	"$CCSIFT" score --as-of $AS_OF ub-new.eml >out && grep "^repo: uboot" out &&
	sed "s,drivers/mmc/,drivers/net/," ub-new.eml >ub-new-elsewhere.eml &&
	"$CCSIFT" score --as-of $AS_OF ub-new-elsewhere.eml >out && grep "^repo: uboot" out
'

test_expect_success 'a list two [repo]s claim: the one with a file the patch changes decides' '
	printf "%s\n" "[user]" "email = carol@example.org" "notmuch = false" "catch-up = 0" \
		"[repo uboot]" "path = $PWD/uboot" "list-id = u-boot.lists.denx.de; linux-mmc.vger.kernel.org" \
		"[repo linux]" "path = $PWD/linux" "list-id = *.vger.kernel.org" >"$CONF" &&
	patch_mail drivers/net/foo.c "" "List-Id: <linux-mmc.vger.kernel.org>" >mmc-list-net.eml &&
	"$CCSIFT" score --as-of $AS_OF mmc-list-net.eml >out && cat out && grep "^repo: linux" out &&
	verdict mmc-list-net.eml >out && head -1 out | grep -x low &&
	patch_mail drivers/mmc/mmc.c "" "List-Id: <linux-mmc.vger.kernel.org>" >mmc-list-mmc.eml &&
	"$CCSIFT" score --as-of $AS_OF mmc-list-mmc.eml >out && grep "^repo: uboot" out
'

test_expect_success 'a list two [repo]s claim: a file both trees have does not decide; a blob breaks a tie' '
	# uboot, asked first, has a MAINTAINERS too: of the three files the
	# patch changes, linux has all, uboot one
	patch_mail MAINTAINERS "" "List-Id: <linux-mmc.vger.kernel.org>" |
		sed "/^-- \$/,\$d" >both.eml &&
	printf "%s\n" "diff --git a/drivers/net/foo.c b/drivers/net/foo.c" "--- a/drivers/net/foo.c" \
		"+++ b/drivers/net/foo.c" "@@ -1,3 +1,3 @@" " a" "-b" "+c" " d" \
		"diff --git a/drivers/net/foo.h b/drivers/net/foo.h" "--- a/drivers/net/foo.h" \
		"+++ b/drivers/net/foo.h" "@@ -1,3 +1,3 @@" " a" "-b" "+c" " d" "-- " "2.39.5" >>both.eml &&
	"$CCSIFT" parse --json both.eml | grep -c "\"status\" : \"M\"" | grep -x 3 &&
	"$CCSIFT" score --as-of $AS_OF both.eml >out && grep "^repo: linux" out &&
	"$CCSIFT" explain --as-of $AS_OF both.eml >out && ! grep "^No decision" out &&
	verdict both.eml >out && head -1 out | grep -v unknown &&
	# as many known in each: the first asked
	patch_mail MAINTAINERS "" "List-Id: <linux-mmc.vger.kernel.org>" >maint.eml &&
	"$CCSIFT" score --as-of $AS_OF maint.eml >out && grep "^repo: uboot" out &&
	# ... unless the pre-image blob is the other one'\''s, from the list or not
	blob=$(git -C linux rev-parse --short=12 master:MAINTAINERS) &&
	patch_mail MAINTAINERS "index $blob..0123456789ab 100644" "List-Id: <linux-mmc.vger.kernel.org>" >maint-blob.eml &&
	"$CCSIFT" score --as-of $AS_OF maint-blob.eml >out && grep "^repo: linux" out &&
	grep -v "^List-Id" maint-blob.eml >maint-blob-direct.eml &&
	"$CCSIFT" score --as-of $AS_OF maint-blob-direct.eml >out && grep "^repo: linux" out &&
	grep -v "^List-Id" maint.eml >maint-direct.eml &&
	"$CCSIFT" score --as-of $AS_OF maint-direct.eml >out && grep "^repo: uboot" out
'

test_expect_success 'config check: a list two [repo]s claim, in the order they are asked' '
	"$CCSIFT" config check >out; cat out &&
	grep "^  List-Id linux-mmc.vger.kernel.org *\[repo uboot\] or \[repo linux\]: the one with most of the files the patch changes (of equals, the one with its blobs, else the first)$" out &&
	grep "^  List-Id u-boot.lists.denx.de *\[repo uboot\]$" out &&
	grep "^  List-Id \*.vger.kernel.org *\[repo linux\]$" out
'

test_expect_success 'a list two [repo]s claim, equals: the one naming the list, not a glob written first' '
	printf "%s\n" "[user]" "email = carol@example.org" "notmuch = false" "catch-up = 0" \
		"[repo linux]" "path = $PWD/linux" "list-id = *.vger.kernel.org" \
		"[repo uboot]" "path = $PWD/uboot" "list-id = u-boot.lists.denx.de; linux-mmc.vger.kernel.org" \
		>glob-first.conf &&
	"$CCSIFT" score --config glob-first.conf --as-of $AS_OF maint.eml >out && grep "^repo: uboot" out &&
	"$CCSIFT" score --config glob-first.conf --as-of $AS_OF maint-blob.eml >out && grep "^repo: linux" out &&
	"$CCSIFT" config check --config glob-first.conf >out &&
	grep "^  List-Id linux-mmc.vger.kernel.org *\[repo uboot\] or \[repo linux\]: " out
'

test_expect_success 'a list two [repo]s claim: a new file goes where its directory is' '
	patch_mail drivers/net/brand_new.c "new file mode 100644" "List-Id: <linux-mmc.vger.kernel.org>" |
		sed "s,^--- a/.*,--- /dev/null," >mmc-list-new.eml &&
	"$CCSIFT" score --as-of $AS_OF mmc-list-new.eml >out && grep "^repo: linux" out &&
	sed "s,drivers/net/,drivers/mmc/,g" mmc-list-new.eml >mmc-list-new-mmc.eml &&
	"$CCSIFT" score --as-of $AS_OF mmc-list-new-mmc.eml >out && grep "^repo: uboot" out
'

test_expect_success 'a list two [repo]s claim, a patch to neither: unknown, naming both' '
	patch_mail arch/x86/kernel/cpu/common.c "" "List-Id: <linux-mmc.vger.kernel.org>" >mmc-list-x86.eml &&
	verdict mmc-list-x86.eml >out && cat out && head -1 out | grep -x unknown &&
	grep -x "\[repo uboot\] and \[repo linux\], the repositories for its list linux-mmc.vger.kernel.org, have none of the files this patch changes: arch/x86/kernel/cpu/common.c" out
'

test_expect_success 'two [repo]s of one clone on two refs: the later one needs an index of its own' '
	git -C linux branch -f old HEAD~3 &&
	printf "%s\n" "[user]" "email = carol@example.org" "notmuch = false" "catch-up = 0" \
		"[repo linux]" "path = $PWD/linux" "list-id = netdev.vger.kernel.org" \
		"[repo linux-old]" "path = $PWD/linux" "ref = old" "list-id = stable.vger.kernel.org" >"$CONF" &&
	test_must_fail "$CCSIFT" config check >out && cat out &&
	grep "error: *\[repo linux-old\] (ref old) has the index of \[repo linux\] (ref HEAD), .*: give \[repo linux-old\] an index = of its own" out &&
	test_must_fail "$CCSIFT" index >out 2>err && cat out err &&
	! grep "history rewritten" out && grep -c "has the index of" err | grep -x 1 &&
	{ "$CCSIFT" index --status --repo linux >out || :; } && grep "up to date" out &&
	verdict foo.eml >out && head -1 out | grep -x low &&
	sed "s/netdev.vger/stable.vger/" foo.eml >stable.eml &&
	verdict stable.eml >out && cat out && head -1 out | grep -x unknown &&
	grep "has the index of \[repo linux\]" out &&
	echo "index = $PWD/old.db" >>"$CONF" && "$CCSIFT" config check >out &&
	"$CCSIFT" index >out && verdict stable.eml >out && head -1 out | grep -v unknown &&
	{ "$CCSIFT" index --status --repo linux >out || :; } && grep "up to date" out
'

test_expect_success 'List-Id: the <id>, whatever comments and quotes hold; an empty one is none' '
	printf "%s\n" "[user]" "email = carol@example.org" "notmuch = false" "catch-up = 0" \
		"[repo uboot]" "path = $PWD/uboot" "list-id = u-boot.lists.denx.de" \
		"[repo linux]" "path = $PWD/linux" "list-id = *.vger.kernel.org" >"$CONF" &&
	patch_mail drivers/mmc/mmc.c "" "List-Id: <u-boot.lists.denx.de> (U-Boot <dev>)" >comment.eml &&
	"$CCSIFT" parse --json comment.eml | grep "\"list_id\" : \"u-boot.lists.denx.de\"" &&
	"$CCSIFT" score --as-of $AS_OF comment.eml >out && grep "^repo: uboot" out &&
	patch_mail drivers/mmc/mmc.c "" "List-Id: \"U-Boot <list>\" (x) <u-boot.lists.denx.de> \"<y>\"" >quoted.eml &&
	"$CCSIFT" score --as-of $AS_OF quoted.eml >out && grep "^repo: uboot" out &&
	patch_mail drivers/net/foo.c "" "List-Id: " >empty.eml &&
	"$CCSIFT" parse --json empty.eml | grep "\"list_id\" : null" &&
	verdict empty.eml >out && cat out && head -1 out | grep -x low
'

test_expect_success 'a list two [repo]s claim, one not indexed: unknown unless the other has every file' '
	git clone -q linux fresh &&
	printf "%s\n" "[user]" "email = carol@example.org" "notmuch = false" "catch-up = 0" \
		"[repo fresh]" "path = $PWD/fresh" "list-id = linux-mmc.vger.kernel.org" \
		"[repo linux]" "path = $PWD/linux" "list-id = *.vger.kernel.org" >"$CONF" &&
	verdict mmc-list-net.eml >out && head -1 out | grep -x low &&
	patch_mail arch/x86/kernel/cpu/common.c "" "List-Id: <linux-mmc.vger.kernel.org>" | sed "/^-- \$/,\$d" >half.eml &&
	printf "%s\n" "diff --git a/drivers/net/foo.c b/drivers/net/foo.c" "--- a/drivers/net/foo.c" \
		"+++ b/drivers/net/foo.c" "@@ -1,3 +1,3 @@" " a" "-b" "+c" " d" "-- " "2.39.5" >>half.eml &&
	verdict half.eml >out && cat out && head -1 out | grep -x unknown &&
	grep "^of the repositories for its list linux-mmc.vger.kernel.org, \[repo fresh\] cannot be asked and \[repo linux\] has only 1 of the 2 files this patch changes: .*; \[repo fresh\]: no index at " out
'

test_expect_success 'a list relayed by one no [repo] claims: the List-Id below it decides' '
	printf "%s\n" "[user]" "email = carol@example.org" "notmuch = false" "catch-up = 0" \
		"[repo uboot]" "path = $PWD/uboot" "list-id = u-boot.lists.denx.de" \
		"[repo linux]" "path = $PWD/linux" "list-id = *.vger.kernel.org" >"$CONF" &&
	patch_mail drivers/mmc/mmc.c "" "List-Id: Relay <team.lists.corp.example>" "List-Id: <u-boot.lists.denx.de>" >relay.eml &&
	"$CCSIFT" score --as-of $AS_OF relay.eml >out && grep "^repo: uboot" out &&
	patch_mail drivers/mmc/mmc.c "" "List-Id: <team.lists.corp.example>" "List-Id: <other.example.org>" >relay2.eml &&
	verdict relay2.eml >out && cat out && head -1 out | grep -x unknown &&
	grep "^mail from team.lists.corp.example, a list no" out
'

test_done
