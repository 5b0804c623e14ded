/* detach.h: leave work to a process of its own after a delivery.
 *
 * A mail delivery agent waits for its filter's output to close, and for
 * nothing else. Work a delivery starts for later (the index's catch-up, a
 * resident ccsift serve) runs in a grandchild in a session of its own, with
 * nothing of the delivery's open: no pipe of the MDA's is held up by it,
 * and nobody has to wait for it.
 */
#ifndef CCSIFT_DETACH_H
#define CCSIFT_DETACH_H

/* Fork a detached grandchild: 0 in it (stdin, stdout and stderr on
 * /dev/null, every other descriptor closed, a new session, no alarm
 * pending), 1 in the caller once the intermediate child is reaped, <0 when
 * no process could be made. The grandchild must end with _exit or exec. */
int ccsift_detach(void);

#endif
