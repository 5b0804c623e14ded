/* shallow.h: a shallow clone's history, ending where git's does.
 *
 * A clone made with --depth or --shallow-since lists in $GIT_DIR/shallow
 * the commits whose parents it does not have; git treats them as roots.
 * libgit2 1.5 does not read that file: its walks look for the missing
 * parents and fail. ccsift_shallow_attach gives the repository's object
 * database a backend that answers for those commits without their
 * parents, so that libgit2 sees what git sees.
 */
#ifndef CCSIFT_SHALLOW_H
#define CCSIFT_SHALLOW_H

#include <glib.h>
#include "git.h"

typedef struct ccsift_shallow ccsift_shallow;

/* If repo is a shallow clone, attach the backend and set *out (NULL
 * otherwise). Call before any object of repo is read: libgit2 caches. */
int ccsift_shallow_attach(git_repository *repo, ccsift_shallow **out);

/* Whether oid is a commit whose parents the clone does not have: what
 * it changed is unknown. */
gboolean ccsift_shallow_is_boundary(const ccsift_shallow *s, const git_oid *oid);

/* A digest of the list of boundary commits ("" for a clone that is not
 * shallow, or for NULL): it changes when the clone is deepened or cut. */
const char *ccsift_shallow_digest(const ccsift_shallow *s);

void ccsift_shallow_unref(ccsift_shallow *s);

#endif
