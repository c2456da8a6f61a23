/* The temp registry: files, directories and child processes to clean up
 * when offlink exits, fails, or is stopped by SIGINT, SIGTERM, SIGHUP or
 * SIGQUIT.
 *
 * This is the one piece of process-wide mutable state in offlink, because
 * a signal handler can reach nothing else.  Updates block those signals,
 * so the handler never sees a half-updated list. */
#ifndef OFFLINK_OS_CLEANUP_H
#define OFFLINK_OS_CLEANUP_H

#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

#include "common/error.h"

/* Install the signal handlers (idempotent). */
enum ol_err ol_cleanup_init(void);
/* Remove path at cleanup (files before the directories holding them). */
enum ol_err ol_cleanup_add_file(const char *path);
/* Remove the directory path, and whatever is left in it, at cleanup. */
enum ol_err ol_cleanup_add_dir(const char *path);
/* Create t, a path ending in "XXXXXX", as a new file (its descriptor,
 * O_RDWR|O_CLOEXEC, mode 0600, returned) or directory (mode 0700, 0
 * returned) under a random name, registered -- and told to the watchdog
 * -- before it exists, so that no moment leaves a file the registry does
 * not know.  -1 with errno on failure; t holds the name made. */
int ol_cleanup_create(char *t, bool dir);
/* Stop tracking path (it was renamed into place or removed already). */
void ol_cleanup_forget(const char *path);
/* Block the stop signals (around a spawn and its registration); restore. */
void ol_cleanup_block_signals(sigset_t *old);
void ol_cleanup_restore_signals(const sigset_t *old);
/* Track a running child, which is sent the signal that stops offlink. */
enum ol_err ol_cleanup_add_child(pid_t pid);
void ol_cleanup_forget_child(pid_t pid);
/* Remove path now and, for a directory, everything in it (never
 * following a link). */
void ol_remove_tree(const char *path);
/* Tell the link's watchdog (os/guard.h), over the socket fd, of every
 * path tracked now and from now on, and of every one forgotten: a
 * SIGKILL, which no handler sees, then leaves nothing the watchdog does
 * not remove.  The registry owns fd from now on. */
void ol_cleanup_attach_watchdog(int fd);
/* The link is over (the registry ran): the watchdog may go. */
void ol_cleanup_watchdog_done(void);
/* Remove every tracked file and directory now (reverse order). */
void ol_cleanup_run(void);
/* Watch a mapping of the file at path (os/mapfile.c): if the file shrinks
 * while offlink reads the mapping, the read faults (SIGBUS); the handler
 * then says which file, stops the tools, removes the temporaries and
 * exits with status 1, instead of dying of the signal. */
enum ol_err ol_cleanup_watch_mapping(const void *p, size_t n, const char *path);
/* This thread's faults on a mapping (SIGBUS) jump to env (NULL: they do
 * not): for a thread that reads a mapping it may give up on, never one
 * the registry watches. */
void ol_cleanup_escape_faults(sigjmp_buf *env);
void ol_cleanup_forget_mapping(const void *p);
/* The file whose watched mapping holds p, or NULL (for a system call
 * that failed with EFAULT reading a mapping: the same shrunk file). */
const char *ol_cleanup_mapped_file(const void *p);

#endif
