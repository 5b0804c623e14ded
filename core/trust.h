/* trust.h: is a file ours to believe?
 *
 * The config says which mail to demote and the index says who did what; if
 * another user can write either, they decide which of our mail we read. So
 * both are refused, as ssh refuses ~/.ssh/config and procmail a suspicious
 * rcfile, when someone other than the owner can write the file or replace it
 * through its directory.
 */
#ifndef CCSIFT_TRUST_H
#define CCSIFT_TRUST_H

/* 0 when path (which must exist) is safe to trust; CCSIFT_EINVALID with a
 * message naming the file and the problem otherwise. what: "config", "index". */
int ccsift_trust_check(const char *path, const char *what);
/* The same for the directory dir that holds (or is to hold) path: checked
 * before a file is created there, so that nothing is made that would be
 * refused the next time. */
int ccsift_trust_check_dir(const char *dir, const char *what, const char *path);

#endif
