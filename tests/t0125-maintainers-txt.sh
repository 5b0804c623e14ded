#!/bin/bash
# EDK II keeps its MAINTAINERS as Maintainers.txt, the same format with a
# GitHub handle after each address: its M: and R: count as Linux's do.
. "$TEST_DIRECTORY/lib/test-lib.sh"

AS_OF=2025-06-01T00:00:00Z

commit() { # commit WHEN AUTHOR FILE MESSAGE
	mkdir -p "repo/$(dirname "$3")" &&
	echo "$1 $RANDOM" >>"repo/$3" &&
	git -C repo add -A &&
	GIT_AUTHOR_DATE=$1 GIT_COMMITTER_DATE=$1 git -C repo commit -q --author="$2" -m "$4"
}

patch_mail() { # patch_mail FILE
	cat <<MAIL
From: New Person <new@example.org>
To: Mike Kinney <mike@example.org>
Cc: Rita Reviewer <rita@example.org>, Alan Author <alan@example.org>
Subject: [PATCH] MdePkg: fix a thing
Message-Id: <t0125.$RANDOM@example.org>

Signed-off-by: New Person <new@example.org>
---
 $1 | 1 +
 1 file changed, 1 insertion(+)

diff --git a/$1 b/$1
--- a/$1
+++ b/$1
@@ -1,1 +1,2 @@
 a
+b
MAIL
}

test_expect_success 'a history with a Maintainers.txt' '
	git init -q repo &&
	cat >repo/Maintainers.txt <<-\EOF &&
	EDK II Maintainers
	==================

	This file provides information about the primary maintainers for
	EDK II.

	MdePkg
	F: MdePkg/
	W: https://example.org/wiki/MdePkg
	M: Mike Kinney <mike@example.org> [mdkinney]
	R: Rita Reviewer <rita@example.org> [ritar]

	MdePkg: FDT related library instance
	F: MdePkg/Library/BaseFdtLib/*
	M: Fay Fdt <fay@example.org> [fayfdt]
	EOF
	commit 2025-01-01T00:00:00Z "Mike Kinney <mike@example.org>" MdePkg/Include/Base.h "MdePkg: add Base.h" &&
	for m in 02 03 04; do
		commit 2025-$m-01T00:00:00Z "Alan Author <alan@example.org>" MdePkg/Library/BaseLib/String.c "MdePkg: string $m" || return 1
	done &&
	commit 2025-04-15T00:00:00Z "Fay Fdt <fay@example.org>" MdePkg/Library/BaseFdtLib/Fdt.c "MdePkg: fdt" &&
	"$CCSIFT" index --repo repo >out &&
	test_grep "5 commits added" out
'

test_expect_success 'its R: is a designated reviewer of the files' '
	patch_mail MdePkg/Library/BaseLib/String.c >string.eml &&
	"$CCSIFT" score --repo repo --me rita@example.org --as-of $AS_OF string.eml >out &&
	test_grep "^verdict: relevant" out &&
	test_grep "you are R: for MdePkg/Library/BaseLib/String.c in MAINTAINERS (MdePkg)" out
'

test_expect_success 'its M: with a handle after the address is the maintainer' '
	"$CCSIFT" score --repo repo --me mike@example.org --as-of $AS_OF string.eml >out &&
	test_grep "you are M: for MdePkg/Library/BaseLib/String.c in MAINTAINERS (MdePkg)" out
'

test_expect_success 'its F: globs match as in MAINTAINERS' '
	patch_mail MdePkg/Library/BaseFdtLib/Fdt.c >fdt.eml &&
	"$CCSIFT" score --repo repo --me fay@example.org --as-of $AS_OF fdt.eml >out &&
	test_grep "you are M: for MdePkg/Library/BaseFdtLib/Fdt.c in MAINTAINERS (MdePkg: FDT related library instance)" out
'

test_expect_success 'someone the file does not name gets no such reason' '
	"$CCSIFT" score --repo repo --me alan@example.org --as-of $AS_OF string.eml >out &&
	! grep -q "you are [MR]:" out
'

test_expect_success 'a MAINTAINERS file wins over a Maintainers.txt' '
	printf "THE REST\nM:\tOther Person <other@example.org>\nF:\t*\nF:\t*/\n" >repo/MAINTAINERS &&
	git -C repo add MAINTAINERS &&
	GIT_AUTHOR_DATE=2025-05-01T00:00:00Z GIT_COMMITTER_DATE=2025-05-01T00:00:00Z \
		git -C repo commit -q -m "add MAINTAINERS" &&
	"$CCSIFT" index --repo repo >/dev/null &&
	"$CCSIFT" score --repo repo --me rita@example.org --as-of $AS_OF string.eml >out &&
	! grep -q "you are R:" out &&
	"$CCSIFT" score --repo repo --me other@example.org --as-of $AS_OF string.eml >out &&
	test_grep "you are M: for MdePkg/Library/BaseLib/String.c in MAINTAINERS (THE REST)" out
'

test_done
