#include "os/guard.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

void ol_guard_exec(pid_t parent, int fd, char **argv)
{
	int err;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(128 + SIGKILL); /* offlink is gone already */
	fcntl(fd, F_SETFD, FD_CLOEXEC);
	execvp(argv[0], argv);
	err = errno;
	if (write(fd, &err, sizeof(err)) < 0)
		_exit(127);
	_exit(127);
}
