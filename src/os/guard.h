/* The guards that keep a link's processes and files from outliving it
 * (os/spawn.c).  libc only, so that the small offlink-guard executable
 * carries them without offlink's libraries.
 *
 * A tool guard stands between offlink and each tool it runs: it is told
 * when offlink dies (PR_SET_PDEATHSIG), it is the reaper of everything
 * the tool starts (PR_SET_CHILD_SUBREAPER: a daemon that detaches becomes
 * its child, not init's), and when it is asked to stop (a signal
 * offlink forwards, or offlink's death) it stops the tool's whole tree:
 * the signal first, SIGKILL to what is left after a short grace.  When
 * the tool ends on its own, the guard ends with the tool's status (its
 * exit code, or dying of the same signal).
 *
 * The link's watchdog holds one end of a socket whose other end only
 * offlink holds.  offlink tells it of every file and directory it makes
 * outside its temporary directory as well as of that directory (the host
 * output's private directory, the outputs' and the device-link cache's
 * temporaries: everything in os/cleanup.c's registry), before each
 * exists, and of each one it renames into place or removes.  When offlink
 * ends without saying it is done (SIGKILL, the OOM killer), the socket
 * closes and the watchdog removes everything still listed.  It runs in a
 * session of its own, so a signal to
 * offlink's process group does not stop it first. */
#ifndef OFFLINK_OS_GUARD_H
#define OFFLINK_OS_GUARD_H

#include <sys/types.h>

/* How long a tool's tree has between the stop signal and SIGKILL. */
#define OL_GUARD_GRACE_MS 1000

/* Guard the tool argv (PATH searched) for offlink, process parent: on an
 * exec failure, errno goes to fd (close-on-exec otherwise) and the guard
 * ends with status 127.  Never returns. */
void ol_guard_exec(pid_t parent, int fd, char **argv) __attribute__((noreturn));

/* The watchdog: read fd -- messages "f<path>\0" (a file made), "D<path>\0"
 * (a directory), "-<path>\0" (forget it) -- until offlink writes 'd'
 * (done) or the socket closes; on a close without 'd', remove every path
 * still listed, a directory with everything in it (never following a
 * link), retrying while tools that are being stopped still write.
 * Never returns. */
void ol_guard_watch(int fd) __attribute__((noreturn));

#endif
