/* Running the verbs: paths, the log, calling the engine, the one-line error report, exit status. */
#define LOG_PREFIX "shim: "
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>
#include "cli.h"
#include "stats.h"
#include "base/fault.h"
#include "base/log.h"

/* Absolute paths computed here live as long as the process (the opts point into them). */
struct shim_paths {
	char images[PATH_MAX];
	char work[PATH_MAX];
	char log[PATH_MAX];
	char pidfile[PATH_MAX];
};
static struct shim_paths paths;

static int report(const char *what, const struct cr_err *err, bool with_log)
{
	char buf[1200];
	cr_err_str(err, buf, sizeof(buf));
	if (with_log)
		fprintf(stderr, "crshim: %s failed: %s (log: %s)\n", what, buf, log_path());
	else
		fprintf(stderr, "crshim: %s failed: %s\n", what, buf);
	return 1;
}

/* A failure at the injected fault point says so: "dump failed: fault injected at X (CRSHIM_FAULT)", and
 * what the engine added to the error after it (a failed dump's "(and pid N's POSIX timer ...)": state of the
 * tree that goes on, engine/dump.c timer_counts_changed). */
static int report_run(const struct shim_cmd *c, const char *what, const struct cr_err *err, bool with_log)
{
	const struct fault_point *p = fault_point(c->opts.fault);
	char mark[96];
	if (!p || p->kind != FAULT_FATAL)
		return report(what, err, with_log);
	snprintf(mark, sizeof(mark), "fault injected at %s", p->name);
	const char *at = strstr(err->msg, mark);
	if (!at)
		return report(what, err, with_log);
	const char *src = c->fault_src ? c->fault_src : "fault injection", *rest = at + strlen(mark);
	pr_err("%s failed: %s (%s): %s\n", what, mark, src, err->msg);
	if (with_log)
		fprintf(stderr, "crshim: %s failed: %s (%s)%s (log: %s)\n", what, mark, src, rest,
			log_path());
	else
		fprintf(stderr, "crshim: %s failed: %s (%s)%s\n", what, mark, src, rest);
	return 1;
}

/* dst = rel if absolute, else base/rel; base made absolute against the cwd. */
static int abs_path(char *dst, size_t len, const char *base, const char *rel)
{
	char cwd[PATH_MAX];
	int n;
	if (rel[0] == '/')
		n = snprintf(dst, len, "%s", rel);
	else if (base && base[0] == '/')
		n = snprintf(dst, len, "%s/%s", base, rel);
	else if (getcwd(cwd, sizeof(cwd)))
		n = base ? snprintf(dst, len, "%s/%s/%s", cwd, base, rel)
			 : snprintf(dst, len, "%s/%s", cwd, rel);
	else
		return -1;
	if (n < 0 || (size_t)n >= len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

/* Images dir, work dir (default: images dir), log and pidfile relative to the work dir, all absolute. */
static int resolve_paths(struct shim_cmd *c, struct cr_err *err)
{
	struct cr_opts *o = &c->opts;
	static bool done;
	if (done)
		return 0;
	done = true;
	if (o->images_dir) {
		if (abs_path(paths.images, sizeof(paths.images), NULL, o->images_dir))
			return cr_fail_sys(err, "images dir %s", o->images_dir);
		o->images_dir = paths.images;
	}
	const char *work = o->work_dir ? o->work_dir : o->images_dir;
	if (work) {
		if (abs_path(paths.work, sizeof(paths.work), NULL, work))
			return cr_fail_sys(err, "work dir %s", work);
		o->work_dir = paths.work;
	}
	if (!c->log_to_stderr) {
		if (abs_path(paths.log, sizeof(paths.log), o->work_dir, o->log_file))
			return cr_fail_sys(err, "log file %s", o->log_file);
		o->log_file = paths.log;
	}
	if (o->pidfile) {
		if (abs_path(paths.pidfile, sizeof(paths.pidfile), o->work_dir, o->pidfile))
			return cr_fail_sys(err, "pidfile %s", o->pidfile);
		o->pidfile = paths.pidfile;
	}
	return 0;
}

/* Open the log: a file (-o) or stderr. quiet: without -o, open no log at all (check/show). */
static int setup_log(struct shim_cmd *c, bool quiet, struct cr_err *err)
{
	if (resolve_paths(c, err))
		return -1;
	if (c->log_to_stderr && quiet)
		return 0;
	if (log_open(c->log_to_stderr ? NULL : c->opts.log_file, c->opts.verbosity))
		return cr_fail_sys(err, "open log file %s", c->opts.log_file);
	struct utsname u;
	pr_info("crshim %s on Linux %s: %s\n", CRSHIM_VERSION, uname(&u) ? "?" : u.release, c->cmdline);
	for (int i = 0; i < c->n_notes; i++)
		pr_info("option --%s accepted for CRIU compatibility and ignored\n", c->notes[i]);
	for (int i = 0; i < c->n_inherit_fd; i++)
		pr_info("--inherit-fd %s\n", c->inherit_fd[i]);
	for (int i = 0; i < c->n_external; i++)
		pr_info("--external %s\n", c->external[i]);
	return 0;
}

/* A warning of the engine for the user: on stderr, unless the log (at -v2 or more) already is stderr. */
static void notice_stderr(void *arg, const char *line)
{
	const struct shim_cmd *c = arg;
	if (!c->log_to_stderr || c->opts.verbosity < LOG_WARN)
		fprintf(stderr, "crshim: warning: %s\n", line);
}

/* A dump's warnings wait for its end: said if it works; a dump that fails says only its one error line
 * (the warnings are in its log). */
static char *dump_notices;
static size_t dump_notices_len;

static void notice_later(void *arg, const char *line)
{
	size_t l = strlen(line) + 1;
	char *n = realloc(dump_notices, dump_notices_len + l);
	if (!n) { /* (out of memory: said now) */
		notice_stderr(arg, line);
		return;
	}
	memcpy(n + dump_notices_len, line, l);
	dump_notices = n, dump_notices_len += l;
}

static void notices_end(struct shim_cmd *c, bool say)
{
	for (size_t o = 0; say && o < dump_notices_len; o += strlen(dump_notices + o) + 1)
		notice_stderr(c, dump_notices + o);
	free(dump_notices);
	dump_notices = NULL, dump_notices_len = 0;
}

static int serve_listener(struct shim_cmd *c, const char *verb, int lfd,
			  int (*serve)(struct cr_opts *, int, struct cr_err *));

/* dump --lazy-pages: the images are written (the pages files too, served from here): say so with the
 * port on stdout (and a zero byte on --status-fd), then serve one lazy-pages --page-server until it has
 * every page. */
static int serve_lazy_src(struct shim_cmd *c, int lfd, int port)
{
	printf("%d\n", port);
	fflush(stdout);
	return serve_listener(c, "dump --lazy-pages", lfd, eng_lazy_src_serve);
}

/* The progress line on a terminal; not when the log goes to stderr at more than warnings (the two would
 * mix). */
static struct shim_progress *progress_start(const struct shim_cmd *c, const char *what, struct cr_stats *st)
{
	if (c->log_to_stderr && c->opts.verbosity > 2)
		return NULL;
	return shim_progress_start(what, st);
}

static int run_dump(struct shim_cmd *c)
{
	struct cr_err err = {0};
	const char *what = shim_verb_name(c->verb);
	if (resolve_paths(c, &err))
		return report(what, &err, false);
	/* The images dir of a dump is created (0700) if it does not exist yet. */
	if (mkdir(c->opts.images_dir, 0700) && errno != EEXIST) {
		cr_fail_sys(&err, "create images dir %s", c->opts.images_dir);
		return report(what, &err, false);
	}
	if (setup_log(c, false, &err))
		return report(what, &err, false);
	c->opts.notice = notice_later, c->opts.notice_arg = c;
	int lfd = -1, port = 0;
	if (c->opts.lazy_pages &&
	    eng_lazy_src_listen(&c->opts, &lfd, &port, &err)) /* before the tree is touched */
		return report(what, &err, !c->log_to_stderr);
	struct cr_stats st = {0};
	c->opts.stats = &st;
	struct shim_progress *prog = progress_start(c, what, &st);
	int r = (c->verb == VERB_PRE_DUMP ? eng_pre_dump : eng_dump)(&c->opts, &err);
	shim_progress_stop(prog);
	if (r) {
		if (lfd >= 0)
			close(lfd);
		notices_end(c, false);
		return report_run(c, what, &err, !c->log_to_stderr);
	}
	pr_info("%s of %d finished\n", what, c->opts.pid);
	shim_stats_write(c->opts.work_dir ? c->opts.work_dir : c->opts.images_dir, &st, true,
			 c->display_stats ? stdout : NULL);
	if (lfd >= 0 && eng_lazy_src_ready(&c->opts, &err)) {
		close(lfd);
		notices_end(c, false);
		return report_run(c, what, &err, !c->log_to_stderr);
	}
	c->opts.notice = notice_stderr; /* (a lazy dump serving its pages: at once) */
	notices_end(c, true);
	if (lfd >= 0)
		return serve_lazy_src(c, lfd, port);
	log_close();
	return 0;
}

static int write_pidfile(const char *path, pid_t pid, struct cr_err *err)
{
	char buf[32];
	int n = snprintf(buf, sizeof(buf), "%d", pid);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return cr_fail_sys(err, "write pidfile %s", path);
	if (write(fd, buf, (size_t)n) != n) {
		cr_fail_sys(err, "write pidfile %s", path);
		close(fd);
		return -1;
	}
	if (close(fd))
		return cr_fail_sys(err, "write pidfile %s", path);
	return 0;
}

/* Without -d: the restored root is our child; exit with its status (128+N if killed by signal N). */
static int wait_root(pid_t root)
{
	int st;
	while (waitpid(root, &st, 0) < 0) {
		if (errno == EINTR)
			continue;
		pr_warn("wait for restored root %d: %s\n", root, strerror(errno));
		return 0; /* not our child (e.g. restored as a sibling): nothing to wait for */
	}
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return 1;
}

/* --shell-job: the restored root's group may have been given the foreground of our terminal (a job that
 * leads its own group): take it back once the root ended, as a shell does. */
static void take_terminal_back(bool was_fg)
{
	int fd = was_fg ? open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC) : -1;
	if (fd < 0)
		return;
	if (tcgetpgrp(fd) != getpgrp()) {
		sigset_t ttou, old;
		sigemptyset(&ttou);
		sigaddset(&ttou, SIGTTOU);
		sigprocmask(SIG_BLOCK, &ttou, &old);
		tcsetpgrp(fd, getpgrp());
		sigprocmask(SIG_SETMASK, &old, NULL);
	}
	close(fd);
}

static bool terminal_fg(void)
{
	int fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
	bool fg = fd >= 0 && tcgetpgrp(fd) == getpgrp();
	if (fd >= 0)
		close(fd);
	return fg;
}

static int run_restore(struct shim_cmd *c)
{
	struct cr_err err = {0};
	pid_t root = -1;
	if (setup_log(c, false, &err))
		return report("restore", &err, false);
	c->opts.notice = notice_stderr, c->opts.notice_arg = c; /* a restore's warnings too */
	if (c->opts.check_only)					/* nothing made: nothing to wait for */
		return eng_restore_check(&c->opts, &err) ? report_run(c, "restore", &err, !c->log_to_stderr)
							 : 0;
	bool was_fg = c->opts.shell_job && !c->opts.detach && terminal_fg();
	struct cr_stats st = {0};
	c->opts.stats = &st;
	struct shim_progress *prog = progress_start(c, "restore", &st);
	int r = eng_restore(&c->opts, &root, &err);
	shim_progress_stop(prog);
	c->opts.stats = NULL;
	if (r)
		return report_run(c, "restore", &err, !c->log_to_stderr);
	pr_info("restored root task %d\n", root);
	shim_stats_write(c->opts.work_dir ? c->opts.work_dir : c->opts.images_dir, &st, false,
			 c->display_stats ? stdout : NULL);
	if (c->opts.pidfile && write_pidfile(c->opts.pidfile, root, &err))
		return report("restore", &err, !c->log_to_stderr);
	if (c->opts.detach)
		return 0;
	int ret = wait_root(root);
	take_terminal_back(was_fg);
	pr_info("restored root %d exited, status %d\n", root, ret);
	return ret;
}

static int run_check(struct shim_cmd *c)
{
	struct cr_err err = {0};
	if (c->faults) {
		fault_list(stdout);
		return fflush(stdout) ? 1 : 0;
	}
	if (setup_log(c, true, &err))
		return report("check", &err, false);
	if (eng_check(c->feature, stdout, &err)) {
		fflush(stdout);
		return report("check", &err, !c->log_to_stderr);
	}
	if (!c->feature)
		printf("Looks good.\n");
	return 0;
}

static int run_show(struct shim_cmd *c)
{
	struct cr_err err = {0};
	if (setup_log(c, true, &err))
		return report("show", &err, false);
	if (img_show(c->operand, stdout, &err)) {
		fflush(stdout);
		return report("show", &err, !c->log_to_stderr);
	}
	return fflush(stdout) ? 1 : 0;
}

/* The end of the page-server and lazy-pages verbs: with --daemon go to the background (--pidfile: its PID),
 * else write --pidfile; say "listening" on --status-fd (a zero byte); serve on lfd. */
static int serve_listener(struct shim_cmd *c, const char *verb, int lfd,
			  int (*serve)(struct cr_opts *, int, struct cr_err *))
{
	struct cr_err err = {0};
	if (c->ps_daemon) {
		pid_t pid = fork();
		if (pid < 0) {
			cr_fail_sys(&err, "fork");
			return report(verb, &err, !c->log_to_stderr);
		}
		if (pid > 0) {
			if (c->opts.pidfile && write_pidfile(c->opts.pidfile, pid, &err))
				return report(verb, &err, !c->log_to_stderr);
			return 0;
		}
		setsid();
		int nul = open("/dev/null", O_RDWR | O_CLOEXEC);
		if (nul >= 0) {
			dup2(nul, STDIN_FILENO);
			dup2(nul, STDOUT_FILENO);
			close(nul);
		}
	} else if (c->opts.pidfile && write_pidfile(c->opts.pidfile, getpid(), &err)) {
		return report(verb, &err, !c->log_to_stderr);
	}
	if (c->status_fd >= 0) {
		char z = 0;
		if (write(c->status_fd, &z, 1) != 1)
			pr_warn("--status-fd %d: %s\n", c->status_fd, strerror(errno));
		close(c->status_fd);
	}
	int ret = serve(&c->opts, lfd, &err);
	close(lfd);
	if (ret)
		return report(verb, &err, !c->log_to_stderr);
	log_close();
	return 0;
}

/* page-server: listen (port 0: the kernel's choice, printed on stdout), then with --daemon go to the
 * background (--pidfile: its PID), say so on --status-fd (a zero byte, as CRIU), serve one dump, exit. */
static int run_page_server(struct shim_cmd *c)
{
	struct cr_err err = {0};
	int lfd = -1, port = 0;
	if (setup_log(c, false, &err))
		return report("page-server", &err, false);
	if (eng_page_server_listen(&c->opts, &lfd, &port, &err))
		return report("page-server", &err, !c->log_to_stderr);
	if (!c->opts.ps_port) {
		printf("%d\n", port);
		fflush(stdout);
	}
	return serve_listener(c, "page-server", lfd, eng_page_server_serve);
}

/* lazy-pages: listen on DIR/lazy-pages.sock, then with --daemon go to the background (--pidfile: its PID),
 * say so on --status-fd (a zero byte), serve one restore --lazy-pages until all its pages are in, exit. */
static int run_lazy_pages(struct shim_cmd *c)
{
	struct cr_err err = {0};
	int lfd = -1;
	if (setup_log(c, false, &err))
		return report("lazy-pages", &err, false);
	if (eng_lazy_pages_listen(&c->opts, &lfd, &err))
		return report("lazy-pages", &err, !c->log_to_stderr);
	return serve_listener(c, "lazy-pages", lfd, eng_lazy_pages_serve);
}

static int run_swrk(struct shim_cmd *c)
{
	return shim_swrk(c);
}

int shim_run(struct shim_cmd *c)
{
	switch (c->verb) {
	case VERB_DUMP:
	case VERB_PRE_DUMP:
		return run_dump(c);
	case VERB_RESTORE:
		return c->bundle ? shim_oci_run(c) : run_restore(c);
	case VERB_CHECKPOINT:
	case VERB_STATE:
	case VERB_KILL:
	case VERB_DELETE:
	case VERB_LIST:
		return shim_oci_run(c);
	case VERB_CHECK:
		return run_check(c);
	case VERB_SHOW:
		return run_show(c);
	case VERB_SWRK:
		return run_swrk(c);
	case VERB_PAGE_SERVER:
		return run_page_server(c);
	case VERB_LAZY_PAGES:
		return run_lazy_pages(c);
	case VERB_NONE:
		break;
	}
	fprintf(stderr, "crshim: no command given; see crshim --help\n");
	return 1;
}

/* For the OCI verbs (bundle*.c): the same log, report and wait as the CRIU verbs. */
int shim_report_run(const struct shim_cmd *c, const char *what, const struct cr_err *err)
{
	return report_run(c, what, err, !c->log_to_stderr);
}

int shim_setup_log(struct shim_cmd *c, struct cr_err *err)
{
	return setup_log(c, false, err);
}

int shim_write_pidfile(const char *path, pid_t pid, struct cr_err *err)
{
	return write_pidfile(path, pid, err);
}

int shim_wait_root(pid_t root)
{
	return wait_root(root);
}
