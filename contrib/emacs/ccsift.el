;;; ccsift.el --- why ccsift demoted a patch, from notmuch-emacs  -*- lexical-binding: t -*-

;; This file is part of ccsift.  It is free software, under the same terms.

;;; Commentary:

;; `ccsift tag', run from notmuch's post-new hook, tags the Cc'd patches
;; you are unlikely to engage with (+lowcc -inbox by default).  This file
;; answers "why is this one in the low pile?" without leaving Emacs:
;; `ccsift-explain' runs `ccsift explain' on the message at point in
;; notmuch-show and notmuch-tree (on the thread's newest patch in
;; notmuch-search) and shows what it says in the *ccsift* buffer.
;;
;;   (require 'ccsift)
;;   (with-eval-after-load 'notmuch
;;     (define-key notmuch-show-mode-map (kbd "C-c x") #'ccsift-explain)
;;     (define-key notmuch-tree-mode-map (kbd "C-c x") #'ccsift-explain)
;;     (define-key notmuch-search-mode-map (kbd "C-c x") #'ccsift-explain))
;;
;; ccsift finds notmuch's database as notmuch does (NOTMUCH_CONFIG, the
;; profile), in the environment Emacs gives it.

;;; Code:

(defgroup ccsift nil
  "Ask ccsift why it decided a patch mail as it did."
  :group 'mail)

(defcustom ccsift-program "ccsift"
  "The ccsift program: a name on `exec-path', or an absolute file name."
  :type 'string)

(declare-function notmuch-show-get-message-id "notmuch-show" (&optional bare))
(declare-function notmuch-tree-get-message-id "notmuch-tree" (&optional bare))
(declare-function notmuch-search-find-thread-id "notmuch" (&optional bare))

(defun ccsift--query-at-point ()
  "The notmuch query of the message or thread at point, or nil."
  (cond ((derived-mode-p 'notmuch-show-mode) (notmuch-show-get-message-id))
        ((derived-mode-p 'notmuch-tree-mode) (notmuch-tree-get-message-id))
        ((derived-mode-p 'notmuch-search-mode) (notmuch-search-find-thread-id))))

(defvar-local ccsift--query nil
  "The query the *ccsift* buffer explains, for `revert-buffer'.")

(define-derived-mode ccsift-explain-mode special-mode "ccsift"
  "What `ccsift explain' said of a message.  \\<ccsift-explain-mode-map>\\[revert-buffer] asks again."
  (setq-local revert-buffer-function #'ccsift--revert))

(defun ccsift--revert (&rest _)
  "Run `ccsift explain' again on the buffer's query."
  (ccsift--fill (current-buffer) ccsift--query))

(defun ccsift--fill (buffer query)
  "Put what `ccsift explain QUERY' prints into BUFFER; its exit status."
  (with-current-buffer buffer
    (let ((inhibit-read-only t))
      (erase-buffer)
      (prog1 (condition-case nil
                 (call-process ccsift-program nil t nil "explain" query)
               (file-missing
                (user-error "No program %s: install ccsift, or set `ccsift-program'"
                            ccsift-program)))
        (goto-char (point-min))))))

;;;###autoload
(defun ccsift-explain (query)
  "Show why ccsift decided the message QUERY as it did.
Interactively, the message at point in notmuch-show or notmuch-tree,
or the newest patch of the thread at point in notmuch-search; with a
prefix argument, or elsewhere, read an id:, mid: or thread: query."
  (interactive
   (let ((here (ccsift--query-at-point)))
     (list (if (or current-prefix-arg (not here))
               (read-string "ccsift explain (id:, mid: or thread:): " here)
             here))))
  (let ((buffer (get-buffer-create "*ccsift*"))
        status)
    (with-current-buffer buffer
      (ccsift-explain-mode)
      (setq ccsift--query query))
    (setq status (ccsift--fill buffer query))
    (display-buffer buffer)
    (unless (eq status 0)
      (message "ccsift explain %s: exit status %s" query status))
    status))

(provide 'ccsift)

;;; ccsift.el ends here
