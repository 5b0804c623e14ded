/* trust.c: refuse files other users can write. */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <glib.h>
#include "error.h"
#include "trust.h"

/* A group-writable file is fine when the group is the owner's private
 * group (Debian's user private groups, umask 002): nobody else is in it. */
static gboolean group_is_private(gid_t gid, uid_t owner)
{
	struct group *gr = getgrgid(gid);
	struct passwd *pw = getpwuid(owner);

	if (!gr || !pw || strcmp(gr->gr_name, pw->pw_name) != 0)
		return FALSE;
	return !gr->gr_mem || !gr->gr_mem[0];
}

/* What is wrong with st, and the hint that fixes it; NULL when nothing. */
static const char *weakness(const struct stat *st, gboolean is_dir, const char **hint)
{
	uid_t me = geteuid();

	/* chmod cannot help here: only the owner decides what goes in. */
	*hint = is_dir ? "use a directory of your own" : "remove it, or use one of your own";
	if (st->st_uid != me && st->st_uid != 0)
		return "is owned by another user";
	*hint = "chmod go-w";
	/* A sticky directory (/tmp) lets nobody replace another's file. */
	if (is_dir && (st->st_mode & S_ISVTX))
		return NULL;
	if (st->st_mode & S_IWOTH)
		return "is writable by everyone";
	if ((st->st_mode & S_IWGRP) && !group_is_private(st->st_gid, st->st_uid))
		return "is writable by its group";
	return NULL;
}

int ccsift_trust_check_dir(const char *dir, const char *what, const char *path)
{
	struct stat st;
	const char *why, *hint;

	if (stat(dir, &st) == 0 && (why = weakness(&st, TRUE, &hint)))
		return ccsift_error_set(CCSIFT_EINVALID, "refusing %s %s: its directory %s %s (%s)",
					what, path, dir, why, hint);
	return 0;
}

int ccsift_trust_check(const char *path, const char *what)
{
	g_autofree char *dir = g_path_get_dirname(path);
	struct stat st;
	const char *why, *hint;

	if (stat(path, &st) < 0)
		return ccsift_error_set(CCSIFT_ENOTFOUND, "%s %s: %s", what, path, g_strerror(errno));
	if ((why = weakness(&st, FALSE, &hint)))
		return ccsift_error_set(CCSIFT_EINVALID, "refusing %s %s: it %s (%s)", what, path, why, hint);
	return ccsift_trust_check_dir(dir, what, path);
}
