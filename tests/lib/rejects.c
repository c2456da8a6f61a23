/* rejects MANIFEST OUTDIR TMPDIR ERRFILE FILE... -- TOOL ARG...
 *
 * The hostile-input suite's runner (tests/cli/hostile_inputs.sh): runs
 * TOOL ARG... once per FILE, with every "{}" in the arguments replaced by
 * FILE, in OUTDIR, stdout to /dev/null and stderr to ERRFILE, and checks
 * what the shell loop it replaces checked after each run:
 *   - the exit status is 1 or 2 (not 0, not a signal, not a crash);
 *   - stderr names the file (its basename);
 *   - stderr holds no sanitizer report;
 *   - OUTDIR and TMPDIR are empty: no output, not even in part, and no
 *     temporary left behind.
 * One process for the loop, so that the only processes a mutant costs are
 * the tool's own.  The first failure is printed with the mutation that
 * MANIFEST ("<file>|<mutation>" lines) records for the file, and ends the
 * run with status 1; otherwise prints "<n> runs" and exits 0. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static char *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	char *p = NULL;
	size_t cap = 0, len = 0, got;

	if (!f)
		return NULL;
	do {
		if (len + 4096 + 1 > cap) {
			char *q = realloc(p, cap = 2 * cap + 8192);

			if (!q) {
				free(p);
				fclose(f);
				return NULL;
			}
			p = q;
		}
		got = fread(p + len, 1, cap - len - 1, f);
		len += got;
	} while (got > 0);
	fclose(f);
	p[len] = '\0';
	*n = len;
	return p;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* The mutation MANIFEST records for file (a static buffer), or "?". */
static const char *mutation(const char *manifest, const char *file)
{
	static char why[1024];
	size_t n, k = strlen(base_name(file));
	char *text = slurp(manifest, &n), *line, *save = NULL;

	snprintf(why, sizeof(why), "?");
	for (line = text ? strtok_r(text, "\n", &save) : NULL; line; line = strtok_r(NULL, "\n", &save))
		if (strncmp(line, base_name(file), k) == 0 && line[k] == '|') {
			snprintf(why, sizeof(why), "%s", line + k + 1);
			break;
		}
	free(text);
	return why;
}

/* The first entry of dir other than . and .., or NULL (a static buffer). */
static const char *leftover(const char *dir)
{
	static char name[512];
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return "(the directory cannot be read)";
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			break;
	if (e)
		snprintf(name, sizeof(name), "%s", e->d_name);
	closedir(d);
	return e ? name : NULL;
}

/* Run argv in dir, stderr to errfile; the wait status, or -1. */
static int run(char **argv, const char *dir, const char *errfile)
{
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int status, rc;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, errfile, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	posix_spawn_file_actions_addchdir_np(&fa, dir);
	rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc != 0) {
		fprintf(stderr, "rejects: cannot start %s: %s\n", argv[0], strerror(rc));
		return -1;
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return status;
}

struct job {
	const char *manifest, *out, *tmp, *errfile;
	char **tool;  /* the template */
	int ntool;
};

static int failed(const struct job *j, const char *file, const char *what, const char *err)
{
	fprintf(stderr, "FAIL: %s (%s): %s: %s", file, mutation(j->manifest, file), what, err ? err : "");
	for (int i = 0; i < j->ntool; i++)
		fprintf(stderr, "%s%s", i ? " " : " [", j->tool[i]);
	fprintf(stderr, "]\n");
	return 1;
}

static int check_one(const struct job *j, const char *file)
{
	char *argv[j->ntool + 1], *spans[j->ntool];
	size_t n = 0;
	char *err = NULL;
	const char *left;
	int status, bad = 0;

	for (int i = 0; i < j->ntool; i++) {
		const char *t = j->tool[i], *at = strstr(t, "{}");

		spans[i] = NULL;
		if (at && (spans[i] = malloc(strlen(t) + strlen(file) + 1)))
			sprintf(spans[i], "%.*s%s%s", (int)(at - t), t, file, at + 2);
		argv[i] = at ? spans[i] : (char *)t;
		if (!argv[i])
			return failed(j, file, "out of memory", NULL);
	}
	argv[j->ntool] = NULL;
	status = run(argv, j->out, j->errfile);
	for (int i = 0; i < j->ntool; i++)
		free(spans[i]);
	if (status < 0)
		return failed(j, file, "the tool did not run", NULL);
	err = slurp(j->errfile, &n);
	if (!err)
		return failed(j, file, "its stderr cannot be read", NULL);
	if (n > 400)
		err[400] = '\0';
	if (!WIFEXITED(status) || (WEXITSTATUS(status) != 1 && WEXITSTATUS(status) != 2)) {
		char what[64];

		snprintf(what, sizeof(what), WIFEXITED(status) ? "exited with %d" : "died of signal %d",
			 WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
		bad = failed(j, file, what, err);
	} else if (!strstr(err, base_name(file))) {
		bad = failed(j, file, "the message does not name the file", err);
	} else if (strstr(err, "AddressSanitizer") || strstr(err, "runtime error") ||
		   strstr(err, "LeakSanitizer")) {
		bad = failed(j, file, "sanitizer report", err);
	} else if ((left = leftover(j->out))) {
		bad = failed(j, file, "left an output", left);
	} else if ((left = leftover(j->tmp))) {
		bad = failed(j, file, "left a temporary", left);
	}
	free(err);
	return bad;
}

int main(int argc, char **argv)
{
	struct job j;
	int sep = 0, runs = 0;

	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--") == 0) {
			sep = i;
			break;
		}
	if (argc < 5 || sep < 5 || sep + 1 >= argc) {
		fprintf(stderr, "usage: rejects MANIFEST OUTDIR TMPDIR ERRFILE FILE... -- TOOL ARG...\n");
		return 2;
	}
	j.manifest = argv[1];
	j.out = argv[2];
	j.tmp = argv[3];
	j.errfile = argv[4];
	j.tool = argv + sep + 1;
	j.ntool = argc - sep - 1;
	for (int i = 5; i < sep; i++, runs++)
		if (check_one(&j, argv[i]))
			return 1;
	printf("%d runs\n", runs);
	return 0;
}
