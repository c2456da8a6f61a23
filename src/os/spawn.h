/* The one way offlink runs another program: posix_spawn with an argv
 * vector, never a shell, never re-splitting an argument.  Every command
 * is named after the step it belongs to, so a failure reads
 *   device link openmp x86_64-pc-linux-gnu: clang-19 exited with status 1
 * and under --wrapper-verbose / --dry-run its exact argv is printed first.
 */
#ifndef OFFLINK_OS_SPAWN_H
#define OFFLINK_OS_SPAWN_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "common/buf.h"
#include "common/diag.h"
#include "common/strvec.h"

/* What a command's program is, for the device-link cache's key
 * (cache/step_key.c): how its arguments are read. */
enum ol_tool {
	OL_TOOL_OTHER,        /* arguments: text, files by content */
	OL_TOOL_CLANG_DRIVER, /* a link through clang: keyed by what clang runs */
	OL_TOOL_LINKER,       /* GNU ld or lld */
	OL_TOOL_NVLINK,
	OL_TOOL_PTXAS,
};

struct ol_cmd {
	char *step;            /* what this command does, for messages */
	char *role;            /* what it does without what it works on, or
				* NULL: step says no more (the cache keys a
				* step by this: an input's path as written,
				* in a ThinLTO backend's step, would keep the
				* key from travelling between checkouts) */
	struct ol_strvec argv; /* argv[0] is the program (a path) */
	char *stdout_path;     /* redirect stdout to this file, or NULL */
	char *stderr_path;     /* and stderr, or NULL */
	struct ol_strvec env;  /* "NAME=value" set in the child's environment
				* over offlink's (LC_ALL=C where a tool's
				* messages are read), or empty */
	char *cwd;             /* the directory it runs in, or NULL: offlink's
				* (a ThinLTO link's steps run in its own, so
				* that the module paths they record are the
				* same in every link) */
	enum ol_tool tool;     /* what argv[0] is (the cache reads argv by it) */
	bool capture_stderr;   /* ol_run_capture: standard error too */
	bool response_file;    /* the program reads GNU "@file" arguments
				* (clang, GNU ld, lld, objcopy): an argument
				* list too long for exec goes in one */
};

struct ol_run_opts {
	bool verbose;   /* print each argv before running it */
	bool dry_run;   /* print each argv, run nothing */
	FILE *log;      /* where to print; stderr when NULL */
	const char *response_dir; /* where response files are written */
	/* Called when a command has ended, with when it ran (ol_now_us), or
	 * NULL: for --wrapper-time-trace. */
	void (*child_done)(void *ctx, const struct ol_cmd *c, double start_us, double end_us);
	void *child_ctx;
};

/* Microseconds on the monotonic clock. */
double ol_now_us(void);

/* Free a command's strings. */
void ol_cmd_free(struct ol_cmd *c);

/* Print argv on one line, each argument quoted for a POSIX shell when it
 * needs it, so the line can be pasted into a terminal. */
void ol_print_argv(FILE *f, char *const *argv);

/* Start c; *pid is the child.  Prints the argv when o->verbose. */
enum ol_err ol_spawn(const struct ol_cmd *c, const struct ol_run_opts *o,
		     pid_t *pid, struct ol_diag *d);

/* Turn a wait status into an error naming the step and the program
 * ("exited with status N" / "was killed by signal SIGSEGV"). */
enum ol_err ol_check_status(const struct ol_cmd *c, int status,
			    struct ol_diag *d);

/* Spawn and wait.  *status receives the raw wait status (0 under
 * dry-run, which only prints).  Returns an error for a failed start or a
 * non-zero exit. */
enum ol_err ol_run(const struct ol_cmd *c, const struct ol_run_opts *o,
		   int *status, struct ol_diag *d);
/* ol_run, and while the command runs, meanwhile(ctx) (offlink's own work
 * that need not wait: the device-link cache's stores beside the host
 * link). */
enum ol_err ol_run_while(const struct ol_cmd *c, const struct ol_run_opts *o, int *status,
			 struct ol_diag *d, void (*meanwhile)(void *ctx), void *ctx);

/* Run c and capture its standard output (stderr passes through, unless
 * c->capture_stderr), for probes such as `fatbinary --version`.  Runs even under dry-run (a probe
 * changes nothing); printed under verbose and dry-run like any command. */
enum ol_err ol_run_capture(const struct ol_cmd *c, const struct ol_run_opts *o,
			   struct ol_buf *out, struct ol_diag *d);

/* Children die with offlink: from now on every command is started
 * through exe, which sets the parent-death signal and execs the tool
 * (os/guard.h): the small offlink-guard (self false), or the running
 * executable itself ("/proc/self/exe", self true), whose main must then
 * call ol_spawn_guard_main first thing. */
void ol_spawn_guard_enable(const char *exe, bool self);
/* If argv is a guarded start, become the tool (never returns); otherwise
 * return at once. */
void ol_spawn_guard_main(int argc, char **argv);

/* Start the link's watchdog (os/guard.h): the socket to give the cleanup
 * registry (ol_cleanup_attach_watchdog), or -1 when none could start (no
 * guard). */
int ol_spawn_watchdog(void);

/* Wait for any child, at most timeout_ms: its pid (its wait status in
 * *status); 0 when none ended in that time (or a signal came); -1 when
 * there is none to wait for.  A one-shot timer interrupts the wait: no
 * child inherits it, and it is off again before this returns. */
pid_t ol_wait_any(int *status, int timeout_ms);

/* Exit code for a failed child: its own status if it exited, else 1. */
int ol_status_exit_code(int status);

#endif
