#include "os/spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "os/cleanup.h"
#include "os/guard.h"

extern char **environ;

void ol_cmd_free(struct ol_cmd *c)
{
	free(c->step);
	free(c->role);
	free(c->stdout_path);
	free(c->stderr_path);
	free(c->cwd);
	ol_strvec_free(&c->argv);
	ol_strvec_free(&c->env);
	c->step = c->role = c->stdout_path = c->stderr_path = c->cwd = NULL;
}

/* offlink's environment with c->env set over it; NULL when out of
 * memory.  The vector owns the strings. */
/* A preload is for the tool, not its guard (which would carry it into
 * its own exec): through a guard it travels as GUARD_PRELOAD, which the
 * guard sets as LD_PRELOAD in the tool's environment (os/guard.c). */
#define GUARD_PRELOAD "OFFLINK_GUARD_LD_PRELOAD="

static char **child_env(const struct ol_cmd *c, bool guarded, struct ol_strvec *store)
{
	for (char *const *e = environ; e && *e; e++) {
		size_t n = strcspn(*e, "=");
		bool over = false;

		for (size_t i = 0; i < c->env.n && !over; i++)
			over = strncmp(c->env.v[i], *e, n) == 0 && c->env.v[i][n] == '=' &&
			       !(guarded && strncmp(*e, "LD_PRELOAD=", 11) == 0);
		if (!over)
			ol_strvec_push(store, *e);
	}
	for (size_t i = 0; i < c->env.n; i++)
		if (guarded && strncmp(c->env.v[i], "LD_PRELOAD=", 11) == 0)
			ol_strvec_pushf(store, GUARD_PRELOAD "%s", c->env.v[i] + 11);
		else
			ol_strvec_push(store, c->env.v[i]);
	return store->err ? NULL : store->v;
}

static bool needs_quotes(const char *s)
{
	if (!*s)
		return true;
	for (; *s; s++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			    "0123456789-_./=+,:@%^", *s))
			return true;
	return false;
}

/* A byte a terminal might act on: the argument is printed in bash's
 * $'...' form with such bytes as octal escapes (an argument can hold a
 * triple or a path read from an input). */
static bool has_control(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s == 0x7f)
			return true;
	return false;
}

static void print_ansi_c(FILE *f, const char *s)
{
	fputs("$'", f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c < 0x20 || c == 0x7f || c == '\\' || c == '\'')
			fprintf(f, "\\%03o", c);
		else
			fputc(c, f);
	}
	fputc('\'', f);
}

void ol_print_argv(FILE *f, char *const *argv)
{
	for (size_t i = 0; argv[i]; i++) {
		const char *s = argv[i];

		if (i)
			fputc(' ', f);
		if (!needs_quotes(s)) {
			fputs(s, f);
			continue;
		}
		if (has_control(s)) {
			print_ansi_c(f, s);
			continue;
		}
		fputc('\'', f);
		for (; *s; s++) {
			if (*s == '\'')
				fputs("'\\''", f);
			else
				fputc(*s, f);
		}
		fputc('\'', f);
	}
	fputc('\n', f);
}

static const char *prog_name(const struct ol_cmd *c)
{
	const char *p = c->argv.v[0], *slash = strrchr(p, '/');

	return slash ? slash + 1 : p;
}

static void print_cmd(const struct ol_cmd *c, const struct ol_run_opts *o)
{
	FILE *f = o && o->log ? o->log : stderr;

	ol_print_argv(f, c->argv.v);
	if (c->cwd)
		fprintf(f, "  (in the directory %s)\n", c->cwd);
	for (size_t i = 0; i < c->env.n; i++)
		fprintf(f, "  (environment: %s)\n", c->env.v[i]);
	if (c->stdout_path)
		fprintf(f, "  (standard output to %s)\n", c->stdout_path);
	if (c->stderr_path)
		fprintf(f, "  (standard error to %s)\n", c->stderr_path);
	fflush(f);
}

/* ---- the guards: nothing outlives the link ----
 *
 * Children stay in offlink's process group, so whatever stops the
 * caller's group (Ctrl-C, Ctrl-\\, `timeout -s KILL`, a job control
 * signal) reaches every tool and the tools they start.  Each tool runs
 * under a guard (os/guard.h): offlink-guard, or offlink itself started
 * with a marker argument; the guard learns of offlink's death from the
 * kernel (PR_SET_PDEATHSIG), reaps whatever the tool starts and detaches
 * (PR_SET_CHILD_SUBREAPER), and stops the tool's whole tree when asked,
 * with SIGKILL after a short grace.  An exec failure comes back through a
 * close-on-exec pipe, so "cannot run X" is reported as before.  One
 * watchdog per link removes the temporary directory if offlink dies
 * without a word (SIGKILL). */

#define GUARD_FLAG "--offlink-guarded-exec"
#define WATCH_FLAG "--offlink-watchdog"

static const char *guard_exe;  /* offlink-guard, or offlink itself */
static bool guard_is_self;     /* then GUARD_FLAG / WATCH_FLAG go first */

void ol_spawn_guard_enable(const char *exe, bool self)
{
	guard_exe = exe;
	guard_is_self = self;
}

void ol_spawn_guard_main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], WATCH_FLAG) == 0)
		ol_guard_watch((int)strtol(argv[2], NULL, 10));
	if (argc < 5 || strcmp(argv[1], GUARD_FLAG) != 0)
		return;
	ol_guard_exec((pid_t)strtol(argv[2], NULL, 10), (int)strtol(argv[3], NULL, 10), argv + 4);
}

int ol_spawn_watchdog(void)
{
	posix_spawn_file_actions_t fa;
	struct ol_strvec argv = { 0 };
	int fds[2], rc;
	pid_t pid;

	/* A socket, not a pipe: offlink writes to it with MSG_NOSIGNAL, so a
	 * watchdog that is gone costs no SIGPIPE. */
	if (!guard_exe || socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) < 0)
		return -1;
	posix_spawn_file_actions_init(&fa);
	/* Same fd number: glibc clears FD_CLOEXEC for the child. */
	posix_spawn_file_actions_adddup2(&fa, fds[0], fds[0]);
	ol_strvec_push(&argv, guard_exe);
	ol_strvec_push(&argv, guard_is_self ? WATCH_FLAG : "--watch");
	ol_strvec_pushf(&argv, "%d", fds[0]);
	rc = argv.err ? ENOMEM : posix_spawn(&pid, guard_exe, &fa, NULL, argv.v, environ);
	posix_spawn_file_actions_destroy(&fa);
	ol_strvec_free(&argv);
	close(fds[0]);
	if (rc) {
		close(fds[1]);
		return -1;
	}
	/* It forks the watchdog and ends at once. */
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	/* Only offlink writes; the watchdog reads. */
	shutdown(fds[1], SHUT_RD);
	return fds[1];
}

/* posix_spawn through the guard: the child's argv is
 * offlink-guard <offlink's pid> <error pipe fd> <argv...>, or
 * <offlink> GUARD_FLAG <pid> <fd> <argv...>.
 * Returns posix_spawn's error, or the exec's errno read from the pipe. */
static int spawn_guarded(pid_t *pid, char *const *argv, char *const *envp,
			 posix_spawn_file_actions_t *fa, const posix_spawnattr_t *attr)
{
	struct ol_strvec gv = { 0 };
	int fds[2], rc, err = 0;
	ssize_t n;

	if (pipe2(fds, O_CLOEXEC) < 0)
		return errno;
	/* Same fd number: glibc clears FD_CLOEXEC for the child. */
	posix_spawn_file_actions_adddup2(fa, fds[1], fds[1]);
	ol_strvec_push(&gv, guard_exe);
	if (guard_is_self)
		ol_strvec_push(&gv, GUARD_FLAG);
	ol_strvec_pushf(&gv, "%ld", (long)getpid());
	ol_strvec_pushf(&gv, "%d", fds[1]);
	for (size_t i = 0; argv[i]; i++)
		ol_strvec_push(&gv, argv[i]);
	rc = gv.err ? ENOMEM : posix_spawn(pid, guard_exe, fa, attr, gv.v, envp);
	close(fds[1]);
	while (rc == 0 && (n = read(fds[0], &err, sizeof(err))) < 0 && errno == EINTR)
		;
	close(fds[0]);
	ol_strvec_free(&gv);
	if (rc == 0 && err) {
		/* The guard could not exec the tool: collect it. */
		while (waitpid(*pid, NULL, 0) < 0 && errno == EINTR)
			;
		return err;
	}
	return rc;
}

/* ---- response files ---- */

/* Whether argv (and the environment) would not fit in exec's limits: a
 * quarter of ARG_MAX in all, or one argument of 128 KiB (Linux's
 * MAX_ARG_STRLEN). */
static bool too_long(char *const *argv)
{
	long arg_max = sysconf(_SC_ARG_MAX);
	size_t limit = arg_max > 0 ? (size_t)arg_max / 4 : 32768, total = 0;

	for (char *const *e = environ; e && *e; e++)
		total += strlen(*e) + 1 + sizeof(char *);
	for (size_t i = 0; argv[i]; i++) {
		size_t n = strlen(argv[i]) + 1;

		if (n >= 128 * 1024)
			return true;
		total += n + sizeof(char *);
	}
	return total > limit;
}

/* One argument for a GNU response file (libiberty's and LLVM's readers
 * agree): every byte but a plain few behind a backslash, "" for empty. */
static enum ol_err quote_arg(struct ol_buf *b, const char *a)
{
	enum ol_err rc = *a ? OL_OK : ol_buf_puts(b, "\"\"");

	for (; *a && !rc; a++) {
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			    "0123456789-_./=+,:%^", *a))
			rc = ol_buf_append(b, "\\", 1);
		if (!rc)
			rc = ol_buf_append(b, a, 1);
	}
	return rc ? rc : ol_buf_puts(b, "\n");
}

/* Write argv[1..] to a new file in dir; *path receives its name. */
static enum ol_err write_response_file(const char *dir, char *const *argv,
				       char **path, struct ol_diag *d)
{
	struct ol_buf b = { 0 };
	char *name = NULL;
	enum ol_err rc = OL_OK;
	int fd;

	for (size_t i = 1; argv[i] && !rc; i++)
		rc = quote_arg(&b, argv[i]);
	if (rc || asprintf(&name, "%s/args-XXXXXX.rsp", dir) < 0) {
		ol_buf_free(&b);
		return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
	}
	fd = mkstemps(name, 4);
	if (fd < 0 || (b.len && write(fd, b.data, b.len) != (ssize_t)b.len) ||
	    close(fd) != 0) {
		rc = ol_diag_errno(d, errno, "cannot write a response file", name);
		if (fd >= 0)
			unlink(name);
		free(name);
	} else {
		*path = name;
	}
	ol_buf_free(&b);
	return rc;
}

static enum ol_err spawn_argv(const struct ol_cmd *c, char *const *argv,
			      posix_spawn_file_actions_t *fa, pid_t *pid,
			      struct ol_diag *d)
{
	posix_spawnattr_t attr;
	struct ol_strvec env = { 0 };
	char **envp = c->env.n ? child_env(c, guard_exe != NULL, &env) : environ;
	sigset_t old;
	int rc;

	if (!envp)
		return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
	/* The child starts with the default action for the signals offlink
	 * catches, and no signal arrives between its start and its entry in
	 * the cleanup registry (which forwards signals to it). */
	if (posix_spawnattr_init(&attr) != 0) {
		ol_strvec_free(&env);
		return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
	}
	ol_cleanup_block_signals(&old);
	posix_spawnattr_setsigmask(&attr, &old);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK);
	if (guard_exe)
		rc = spawn_guarded(pid, argv, envp, fa, &attr);
	else
		rc = posix_spawnp(pid, argv[0], fa, &attr, argv, envp);
	if (rc == 0 && ol_cleanup_add_child(*pid)) {
		/* Untracked, it could outlive a stopped offlink: stop it. */
		kill(*pid, SIGKILL);
		while (waitpid(*pid, NULL, 0) < 0 && errno == EINTR)
			;
		rc = ENOMEM;
	}
	ol_cleanup_restore_signals(&old);
	posix_spawnattr_destroy(&attr);
	ol_strvec_free(&env);

	/* posix_spawn reports its failure in the return value, not errno. */
	if (rc != 0)
		return ol_diag_set(d, OL_E_TOOL_FAILED, NULL,
				   "%s: cannot run %s: %s", c->step,
				   c->argv.v[0], strerror(rc));
	return OL_OK;
}

static enum ol_err spawn_with(const struct ol_cmd *c, const struct ol_run_opts *o,
			      posix_spawn_file_actions_t *fa, pid_t *pid,
			      struct ol_diag *d)
{
	struct ol_strvec short_argv = { 0 };
	char *const *argv = c->argv.v, *rsp = NULL;
	enum ol_err err;

	if (c->response_file && o && o->response_dir && too_long(argv)) {
		if (write_response_file(o->response_dir, argv, &rsp, d))
			return d->code;
		ol_strvec_push(&short_argv, argv[0]);
		ol_strvec_pushf(&short_argv, "@%s", rsp);
		if (short_argv.err) {
			free(rsp);
			return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
		}
		if (o->verbose || o->dry_run)
			fprintf(o->log ? o->log : stderr, "  (arguments in the response file %s)\n", rsp);
		argv = short_argv.v;
	}
	err = spawn_argv(c, argv, fa, pid, d);
	ol_strvec_free(&short_argv);
	free(rsp);
	return err;
}

enum ol_err ol_spawn(const struct ol_cmd *c, const struct ol_run_opts *o,
		     pid_t *pid, struct ol_diag *d)
{
	posix_spawn_file_actions_t fa;
	enum ol_err rc;

	if (c->argv.err)
		return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
	if (o && (o->verbose || o->dry_run))
		print_cmd(c, o);
	if (posix_spawn_file_actions_init(&fa) != 0)
		return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
	/* (glibc 2.29 on; before the redirections, which are the link's
	 * absolute paths anyway) */
	if (c->cwd && posix_spawn_file_actions_addchdir_np(&fa, c->cwd) != 0) {
		posix_spawn_file_actions_destroy(&fa);
		return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
	}
	if (c->stdout_path)
		posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO,
						 c->stdout_path,
						 O_WRONLY | O_CREAT | O_TRUNC, 0666);
	if (c->stderr_path)
		posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, c->stderr_path,
						 O_WRONLY | O_CREAT | O_TRUNC, 0666);
	rc = spawn_with(c, o, &fa, pid, d);
	posix_spawn_file_actions_destroy(&fa);
	return rc;
}

enum ol_err ol_check_status(const struct ol_cmd *c, int status,
			    struct ol_diag *d)
{
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return OL_OK;
	if (WIFEXITED(status))
		return ol_diag_set(d, OL_E_TOOL_FAILED, NULL,
				   "%s: %s exited with status %d", c->step,
				   prog_name(c), WEXITSTATUS(status));
	if (WIFSIGNALED(status))
		return ol_diag_set(d, OL_E_TOOL_FAILED, NULL,
				   "%s: %s was killed by signal %s", c->step,
				   prog_name(c), sigabbrev_np(WTERMSIG(status))
							 ? sigabbrev_np(WTERMSIG(status))
							 : "?");
	return ol_diag_set(d, OL_E_TOOL_FAILED, NULL, "%s: %s stopped",
			   c->step, prog_name(c));
}

static int wait_child(pid_t pid)
{
	int status = 0;

	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	ol_cleanup_forget_child(pid);
	return status;
}

static void on_alarm(int sig)
{
	(void)sig; /* (only to interrupt waitpid) */
}

pid_t ol_wait_any(int *status, int timeout_ms)
{
	struct sigaction sa = { .sa_handler = on_alarm }, old;
	struct itimerval t = { .it_value = { timeout_ms / 1000, (timeout_ms % 1000) * 1000 } }, off = { 0 };
	pid_t pid;
	int err;

	/* (no SA_RESTART: the alarm must end the wait) */
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGALRM, &sa, &old) != 0)
		return waitpid(-1, status, 0);
	setitimer(ITIMER_REAL, &t, NULL);
	pid = waitpid(-1, status, 0);
	err = errno;
	setitimer(ITIMER_REAL, &off, NULL);
	sigaction(SIGALRM, &old, NULL);
	errno = err;
	return pid < 0 && err == EINTR ? 0 : pid;
}

double ol_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

enum ol_err ol_run(const struct ol_cmd *c, const struct ol_run_opts *o,
		   int *status, struct ol_diag *d)
{
	return ol_run_while(c, o, status, d, NULL, NULL);
}

enum ol_err ol_run_while(const struct ol_cmd *c, const struct ol_run_opts *o, int *status,
			 struct ol_diag *d, void (*meanwhile)(void *ctx), void *ctx)
{
	double t0 = ol_now_us();
	pid_t pid;

	*status = 0;
	if (o && o->dry_run) {
		print_cmd(c, o);
		return OL_OK;
	}
	if (ol_spawn(c, o, &pid, d))
		return d->code;
	if (meanwhile)
		meanwhile(ctx);
	*status = wait_child(pid);
	if (o && o->child_done)
		o->child_done(o->child_ctx, c, t0, ol_now_us());
	return ol_check_status(c, *status, d);
}

enum ol_err ol_run_capture(const struct ol_cmd *c, const struct ol_run_opts *o,
			   struct ol_buf *out, struct ol_diag *d)
{
	posix_spawn_file_actions_t fa;
	int fds[2], status;
	pid_t pid;
	enum ol_err rc;
	char chunk[4096];
	ssize_t n;
	double t0 = ol_now_us();

	if (o && (o->verbose || o->dry_run))
		print_cmd(c, o);
	if (pipe2(fds, O_CLOEXEC) < 0)
		return ol_diag_errno(d, errno, "pipe", NULL);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fds[1], STDOUT_FILENO);
	if (c->capture_stderr)
		posix_spawn_file_actions_adddup2(&fa, fds[1], STDERR_FILENO);
	rc = spawn_with(c, o, &fa, &pid, d);
	posix_spawn_file_actions_destroy(&fa);
	close(fds[1]);
	if (rc) {
		close(fds[0]);
		return rc;
	}
	while ((n = read(fds[0], chunk, sizeof(chunk))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || ol_buf_append(out, chunk, (size_t)n))
			break;
	}
	close(fds[0]);
	status = wait_child(pid);
	if (o && o->child_done)
		o->child_done(o->child_ctx, c, t0, ol_now_us());
	return ol_check_status(c, status, d);
}

int ol_status_exit_code(int status)
{
	if (WIFEXITED(status) && WEXITSTATUS(status) != 0)
		return WEXITSTATUS(status);
	return 1;
}
