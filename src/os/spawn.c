#include "os/spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "os/cleanup.h"

extern char **environ;

void ol_cmd_free(struct ol_cmd *c)
{
	free(c->step);
	free(c->stdout_path);
	ol_strvec_free(&c->argv);
	c->step = c->stdout_path = NULL;
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
	if (c->stdout_path)
		fprintf(f, "  (standard output to %s)\n", c->stdout_path);
	fflush(f);
}

static enum ol_err spawn_with(const struct ol_cmd *c,
			      posix_spawn_file_actions_t *fa, pid_t *pid,
			      struct ol_diag *d)
{
	posix_spawnattr_t attr;
	int rc;

	/* A process group per child, so that stopping offlink stops the whole
	 * tree a tool starts (os/cleanup.c). */
	if (posix_spawnattr_init(&attr) != 0)
		return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
	posix_spawnattr_setpgroup(&attr, 0);
	rc = posix_spawnp(pid, c->argv.v[0], fa, &attr, c->argv.v, environ);
	posix_spawnattr_destroy(&attr);

	/* posix_spawn reports its failure in the return value, not errno. */
	if (rc != 0)
		return ol_diag_set(d, OL_E_TOOL_FAILED, NULL,
				   "%s: cannot run %s: %s", c->step,
				   c->argv.v[0], strerror(rc));
	ol_cleanup_add_child(*pid);
	return OL_OK;
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
	if (c->stdout_path)
		posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO,
						 c->stdout_path,
						 O_WRONLY | O_CREAT | O_TRUNC, 0666);
	rc = spawn_with(c, &fa, pid, d);
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

enum ol_err ol_run(const struct ol_cmd *c, const struct ol_run_opts *o,
		   int *status, struct ol_diag *d)
{
	pid_t pid;

	*status = 0;
	if (o && o->dry_run) {
		print_cmd(c, o);
		return OL_OK;
	}
	if (ol_spawn(c, o, &pid, d))
		return d->code;
	*status = wait_child(pid);
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

	if (o && (o->verbose || o->dry_run))
		print_cmd(c, o);
	if (pipe2(fds, O_CLOEXEC) < 0)
		return ol_diag_errno(d, errno, "pipe", NULL);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fds[1], STDOUT_FILENO);
	rc = spawn_with(c, &fa, &pid, d);
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
	return ol_check_status(c, status, d);
}

int ol_status_exit_code(int status)
{
	if (WIFEXITED(status) && WEXITSTATUS(status) != 0)
		return WEXITSTATUS(status);
	return 1;
}
