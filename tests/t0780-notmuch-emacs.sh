#!/bin/bash
# notmuch-emacs: contrib/emacs/ccsift.el's ccsift-explain, in Debian's
# Emacs with Debian's notmuch-emacs (elpa-notmuch), on Carol's real
# notmuch database after the post-new hook tagged it:
#
# - on a message in notmuch-show or notmuch-tree, the *ccsift* buffer says
#   what `ccsift explain id:...` says, word for word;
# - on a thread in notmuch-search, it explains the thread's newest patch;
# - g in the buffer asks again; a message ccsift cannot find is said, with
#   the exit status;
# - the file byte-compiles without a warning.
#
# The user is Carol Typo (tests/lib/history.md): patches to
# drivers/net/foo.c are low for her.

. "${TEST_DIRECTORY:=$(cd "$(dirname "$0")" && pwd)}/lib/test-lib.sh"

test_need notmuch git emacs

. "$TEST_DIRECTORY/lib/notmuch-lib.sh"
carol_env

EL="$TEST_DIRECTORY/../contrib/emacs"

# in_emacs FORM: evaluate FORM in Emacs with notmuch-emacs and ccsift.el
# loaded (Debian's site-start puts elpa-notmuch on the load path; no init
# file); what it prints with princ is on stdout.
# (ccsift-test-wait) waits for the buffer's notmuch process (search and
# tree read their results from it as they come), as notmuch's own tests do;
# the bound only ends a hang.
in_emacs() {
	emacs --batch -q -L "$EL" --eval "(progn (require 'notmuch) (require 'ccsift)
		(setq ccsift-program \"$CCSIFT_BIN\")
		(defun ccsift-test-wait ()
		  (let ((n 0))
		    (while (and (get-buffer-process (current-buffer)) (< (setq n (1+ n)) 3000))
		      (accept-process-output nil 0.1))))
		$1)"
}

# The *ccsift* buffer's text, after FORM.
ccsift_buffer_after() {
	in_emacs "$1 (with-current-buffer \"*ccsift*\" (princ (buffer-string)))"
}

test_expect_success 'setup: history, index, config, notmuch with the hook, two low patches' '
	bash "$TEST_DIRECTORY/lib/make-history.sh" repo >/dev/null &&
	git clone -q repo wt &&
	carol_config &&
	"$CCSIFT_BIN" index >/dev/null &&
	carol_notmuch "new;inbox" &&
	foo_patch_mail p1.eml p1@new.example.org "$DAVE" "$CC" &&
	foo_patch_mail p2.eml p2@new.example.org "$DAVE" "$CC" &&
	deliver p1.eml p2.eml &&
	nm_new &&
	expect_ids tag:lowcc p1@new.example.org p2@new.example.org
'

test_expect_success 'ccsift.el byte-compiles without a warning' '
	cp "$EL/ccsift.el" . &&
	emacs --batch -q --eval "(setq byte-compile-error-on-warn t)" -f batch-byte-compile ccsift.el &&
	test -s ccsift.elc
'

test_expect_success 'the README binds it in the three modes' '
	sed -n "/^    (require .ccsift)/,/^\$/p" "$TEST_DIRECTORY/../README.md" | sed "s/^    //" >bind.el &&
	grep "define-key" bind.el &&
	in_emacs "(load-file \"bind.el\")
		  (dolist (map (list notmuch-show-mode-map notmuch-tree-mode-map notmuch-search-mode-map))
		    (princ (format \"%s\n\" (lookup-key map (kbd \"C-c x\")))))" >out &&
	printf "ccsift-explain\n%.0s" 1 2 3 >expect &&
	test_cmp expect out
'

test_expect_success 'notmuch-show: the message at point, as ccsift explain id: says it' '
	"$CCSIFT_BIN" explain id:p1@new.example.org >expect &&
	head -1 expect | grep "^Decided by ccsift tag at .*: low" &&
	ccsift_buffer_after "(notmuch-show \"id:p1@new.example.org\") (call-interactively (function ccsift-explain))" >actual &&
	test_cmp expect actual
'

test_expect_success 'notmuch-tree: the message at point' '
	"$CCSIFT_BIN" explain id:p2@new.example.org >expect &&
	ccsift_buffer_after "(notmuch-tree \"id:p2@new.example.org\") (ccsift-test-wait) (goto-char (point-min)) (call-interactively (function ccsift-explain))" >actual &&
	test_cmp expect actual
'

test_expect_success 'notmuch-search: the newest patch of the thread at point' '
	thread=$(notmuch search --output=threads id:p1@new.example.org) &&
	"$CCSIFT_BIN" explain "$thread" >expect &&
	head -1 expect | grep "^The newest patch of $thread: id:p1@new.example.org" &&
	ccsift_buffer_after "(notmuch-search \"id:p1@new.example.org\") (ccsift-test-wait) (goto-char (point-min)) (call-interactively (function ccsift-explain))" >actual &&
	test_cmp expect actual
'

test_expect_success 'g in *ccsift* asks again; a message ccsift cannot find says so' '
	ccsift_buffer_after "(ccsift-explain \"id:p1@new.example.org\") (with-current-buffer \"*ccsift*\" (let ((inhibit-read-only t)) (erase-buffer)) (revert-buffer))" >actual &&
	"$CCSIFT_BIN" explain id:p1@new.example.org >expect &&
	test_cmp expect actual &&
	in_emacs "(princ (format \"status %s\n\" (ccsift-explain \"id:nowhere@example.org\")))" >out 2>err &&
	cat out err &&
	grep "^status 1$" out &&
	grep "ccsift explain id:nowhere@example.org: exit status 1" err
'

test_expect_success 'no ccsift program: said, with what to set' '
	in_emacs "(setq ccsift-program \"$TRASH/no-ccsift\")
		  (condition-case e (ccsift-explain \"id:p1@new.example.org\")
		    (user-error (princ (error-message-string e))))" >out &&
	cat out &&
	grep -x "No program $TRASH/no-ccsift: install ccsift, or set .ccsift-program." out
'

test_done
