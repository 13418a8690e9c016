/* Tests of the crshim binary's user interface: exit status, exactly one line on stderr on failure,
 * the log path in it, usage errors, --version, and the same behaviour when invoked as `criu`.
 * Runs $CRSHIM or build/crshim; skipped when that is not built. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "crshim.h"
#include "tap.h"

static char bin[PATH_MAX], tmp[64];

struct result {
	int status;
	char out[8192], err[8192];
};

static void slurp_fd(int fd, char *buf, size_t len)
{
	size_t got = 0;
	ssize_t n;
	while (got + 1 < len && (n = read(fd, buf + got, len - 1 - got)) > 0)
		got += (size_t)n;
	buf[got] = '\0';
	close(fd);
}

/* Run prog with args (NULL-terminated); stdout and stderr go to temp files. */
static void run(struct result *r, const char *prog, char *const argv[])
{
	char po[128], pe[128];
	snprintf(po, sizeof(po), "%s/out", tmp);
	snprintf(pe, sizeof(pe), "%s/err", tmp);
	pid_t pid = fork();
	if (pid == 0) {
		int o = open(po, O_WRONLY | O_CREAT | O_TRUNC, 0600),
		    e = open(pe, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		dup2(o, 1);
		dup2(e, 2);
		execv(prog, argv);
		_exit(127);
	}
	int st = 0;
	waitpid(pid, &st, 0);
	r->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	slurp_fd(open(po, O_RDONLY), r->out, sizeof(r->out));
	slurp_fd(open(pe, O_RDONLY), r->err, sizeof(r->err));
}

static int lines(const char *s)
{
	int n = 0;
	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* Exit 1, nothing on stdout, exactly one line on stderr starting with `prefix`. */
static void fails(const char *what, const char *prefix, char *const argv[])
{
	struct result r;
	run(&r, bin, argv);
	ok(r.status == 1 && r.out[0] == '\0' && lines(r.err) == 1 && !strncmp(r.err, prefix, strlen(prefix)),
	   "%s: exit 1, one line: %.*s", what, (int)strcspn(r.err, "\n"), r.err);
}

static void t_usage(void)
{
	fails("unknown command", "crshim: unknown command 'bogus'; see crshim --help",
	      (char *[]){"crshim", "bogus", NULL});
	fails("no command", "crshim: no command given", (char *[]){"crshim", NULL});
	fails("dump without -t", "crshim: dump needs -t", (char *[]){"crshim", "dump", NULL});
	fails("dump without -D", "crshim: dump needs -D", (char *[]){"crshim", "dump", "-t", "1", NULL});
	fails("unknown option", "crshim: unknown option '--nope'",
	      (char *[]){"crshim", "check", "--nope", NULL});
	fails("missing argument", "crshim: option '-D' needs an argument",
	      (char *[]){"crshim", "restore", "-D", NULL});
	fails("pre-dump on a missing parent",
	      "crshim: pre-dump failed: dump task 1: --prev-images-dir /nonexistent",
	      (char *[]){"crshim", "pre-dump", "-t", "1", "-D", tmp, "-o", "pd.log", "--prev-images-dir",
			 "/nonexistent", NULL});
	fails("swrk", "crshim: swrk failed:", (char *[]){"crshim", "swrk", "3", NULL});
	fails("show of a missing path",
	      "crshim: show failed:", (char *[]){"crshim", "show", "/nonexistent", NULL});
	fails("unknown check feature", "crshim: check failed: unknown feature",
	      (char *[]){"crshim", "check", "--feature", "nope", NULL});
}

static void t_info(void)
{
	struct result r;
	run(&r, bin, (char *[]){"crshim", "--version", NULL});
	ok(r.status == 0 && !strcmp(r.out, "Version: " CRSHIM_VERSION "\n") && !r.err[0], "--version: %s",
	   r.out);
	run(&r, bin, (char *[]){"crshim", "-V", NULL});
	ok(r.status == 0 && !strcmp(r.out, "Version: " CRSHIM_VERSION "\n"), "-V");
	run(&r, bin, (char *[]){"crshim", "--help", NULL});
	ok(r.status == 0 && strstr(r.out, "Usage:") && strstr(r.out, "--leave-running") && !r.err[0],
	   "--help");
	run(&r, bin, (char *[]){"crshim", "check", "--feature", "vdso_layout", NULL});
	ok(r.status == 0 && !strcmp(r.out, "vdso_layout is supported\n"), "check --feature vdso_layout");
}

/* A failing dump and restore with -o: one line naming the absolute log, which exists and has the error. */
static void t_log_line(void)
{
	struct result r;
	char dir[128], expect[512], log[256];
	snprintf(dir, sizeof(dir), "%s/img", tmp);
	mkdir(dir, 0700);
	run(&r, bin, (char *[]){"crshim", "restore", "-D", dir, "-o", "restore.log", NULL});
	snprintf(log, sizeof(log), "%s/restore.log", dir);
	snprintf(expect, sizeof(expect), "(log: %s)\n", log);
	ok(r.status == 1 && lines(r.err) == 1 && !strncmp(r.err, "crshim: restore failed: ", 24) &&
	       strstr(r.err, expect),
	   "restore of an empty dir: one line with the log path: %.*s", (int)strcspn(r.err, "\n"), r.err);
	ok(access(log, R_OK) == 0, "the log exists at that path");
	run(&r, bin,
	    (char *[]){"crshim", "dump", "-t", "2147483646", "-D", dir, "-o", "d.log", "-W", tmp, NULL});
	snprintf(expect, sizeof(expect), "(log: %s/d.log)\n", tmp);
	ok(r.status == 1 && lines(r.err) == 1 && !strncmp(r.err, "crshim: dump failed: ", 21) &&
	       strstr(r.err, expect),
	   "dump of a missing PID: one line, log in the work dir: %.*s", (int)strcspn(r.err, "\n"), r.err);
}

/* A bad option with -o: the one error line on stderr, and the same line in the log (zdtm reads it). */
static void t_log_bad_option(void)
{
	struct result r;
	char dir[128], log[256], buf[1024];
	snprintf(dir, sizeof(dir), "%s/bad", tmp);
	mkdir(dir, 0700);
	snprintf(log, sizeof(log), "%s/bad.log", dir);
	run(&r, bin,
	    (char *[]){"crshim", "dump", "-t", "1", "--network-lock", "nope", "-D", dir, "-o", "bad.log",
		       NULL});
	ok(r.status == 1 && lines(r.err) == 1 && !strncmp(r.err, "crshim: --network-lock nope", 27),
	   "bad option with -o: one line: %.*s", (int)strcspn(r.err, "\n"), r.err);
	int fd = open(log, O_RDONLY);
	ok(fd >= 0, "the log %s exists", log);
	buf[0] = '\0';
	if (fd >= 0)
		slurp_fd(fd, buf, sizeof(buf));
	ok(!strcmp(buf, r.err), "the log holds the same line: %.*s", (int)strcspn(buf, "\n"), buf);
	run(&r, bin,
	    (char *[]){"crshim", "restore", "--bogus", "--log-file=b2.log", "--work-dir", dir, NULL});
	snprintf(log, sizeof(log), "%s/b2.log", dir);
	ok(r.status == 1 && access(log, R_OK) == 0, "--log-file= in --work-dir, after the bad option");
}

static void t_criu_name(void)
{
	struct result a, b;
	char link[128];
	snprintf(link, sizeof(link), "%s/criu", tmp);
	ok(symlink(bin, link) == 0, "symlink criu -> crshim");
	char *const v[] = {"criu", "--version", NULL}, *const bad[] = {"criu", "dump", NULL};
	run(&a, link, v);
	run(&b, bin, v);
	ok(a.status == 0 && !strcmp(a.out, b.out), "criu --version is the same");
	run(&a, link, bad);
	run(&b, bin, bad);
	ok(a.status == b.status && !strcmp(a.err, b.err), "criu usage error is the same");
}

int main(void)
{
	const char *env = getenv("CRSHIM");
	if (!realpath(env ? env : "build/crshim", bin) || access(bin, X_OK)) {
		printf("1..0 # SKIP %s not built\n", env ? env : "build/crshim");
		return 0;
	}
	snprintf(tmp, sizeof(tmp), "/tmp/crshim-shim-XXXXXX");
	if (!mkdtemp(tmp))
		return 1;
	t_usage();
	t_info();
	t_log_line();
	t_log_bad_option();
	t_criu_name();
	tap_rm_dir(tmp);
	return done_testing();
}
