/* The guarded start of a tool (os/spawn.c): in the child, become the
 * tool such that it is killed when offlink dies.  libc only, so that the
 * small offlink-guard executable can carry it without offlink's
 * libraries (each tool start then costs one small exec, not a second
 * start of offlink). */
#ifndef OFFLINK_OS_GUARD_H
#define OFFLINK_OS_GUARD_H

#include <sys/types.h>

/* Ask for SIGKILL when the parent dies, give up if parent is gone
 * already, make fd close-on-exec and exec argv[0] (PATH searched); on
 * failure write errno to fd and _exit(127).  Never returns. */
void ol_guard_exec(pid_t parent, int fd, char **argv) __attribute__((noreturn));

#endif
