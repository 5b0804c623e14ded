/* detach.c: a grandchild in a session of its own (detach.h). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include "detach.h"

static void to_dev_null(void)
{
	int fd = open("/dev/null", O_RDWR | O_CLOEXEC);

	for (int i = 0; fd >= 0 && i < 3; i++)
		dup2(fd, i);
	if (fd > 2)
		close(fd);
	/* Nothing else of the parent's: a pipe kept open would hold up the MDA. */
	for (int i = 3; i < 1024; i++)
		close(i);
}

int ccsift_detach(void)
{
	pid_t pid;
	int status;

	if ((pid = fork()) < 0)
		return -1;
	if (pid > 0) {
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		return 1;
	}
	/* The child leaves at once; the grandchild, in a session of its own,
	 * is nobody's to wait for. */
	alarm(0);
	signal(SIGALRM, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	if (setsid() < 0 || (pid = fork()) != 0)
		_exit(0);
	to_dev_null();
	return 0;
}
