#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <poll.h>
#include "zdtmtst.h"

volatile sig_atomic_t zdtm_sigterm;
static int ready_fd = -1;
static int t_argc;
static char **t_argv;
int test_failures;

static volatile pid_t waiter; /* the thread in test_waitsig */

/* Any thread without SIGTERM blocked may take it: one that is not test_waitsig's passes it on, so that the
 * waiter's sigsuspend ends (the waiter blocks SIGTERM but there; after a dump or restore, its sigsuspend is
 * restarted with its own mask first, and a SIGTERM sent in between goes to another thread). */
static void sigterm_handler(int sig)
{
	int err = errno;
	pid_t w = waiter;
	(void)sig;
	zdtm_sigterm = 1;
	if (w > 0 && (pid_t)syscall(SYS_gettid) != w)
		syscall(SYS_tgkill, getpid(), w, SIGTERM);
	errno = err;
}

static void die(const char *what)
{
	fprintf(stderr, "zdtm: %s: %s\n", what, strerror(errno));
	exit(1);
}

const char *test_opt(const char *name)
{
	size_t n = strlen(name);
	for (int i = 1; i < t_argc; i++) {
		const char *a = t_argv[i];
		if (strncmp(a, "--", 2) == 0 && strncmp(a + 2, name, n) == 0) {
			if (a[2 + n] == '=')
				return a + 3 + n;
			if (a[2 + n] == 0)
				return "";
		}
	}
	return NULL;
}

static void write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t r = write(fd, buf, len);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return;
		}
		buf += r;
		len -= r;
	}
}

static void init(int argc, char **argv, int pidns);

static const char *timens_offsets; /* zdtm_timens */
static int timens_errno;

void zdtm_timens(const char *offsets)
{
	timens_offsets = offsets;
}

int zdtm_timens_errno(void)
{
	return timens_errno;
}

static void make_timens(void)
{
	if (!timens_offsets)
		return;
	if (unshare(CLONE_NEWTIME)) {
		timens_errno = errno;
		return;
	}
	int fd = open("/proc/self/timens_offsets", O_WRONLY | O_CLOEXEC);
	ssize_t n = (ssize_t)strlen(timens_offsets);
	if (fd < 0 || write(fd, timens_offsets, (size_t)n) != n)
		timens_errno = errno ? errno : EIO;
	if (fd >= 0)
		close(fd);
}

void test_init(int argc, char **argv)
{
	init(argc, argv, 0);
}

void test_init_pidns(int argc, char **argv)
{
	init(argc, argv, 1);
}

/* The test's own PID and mount namespaces (unshare --pid --fork --mount-proc): we are PID 1 in it. */
static void enter_pidns_mounts(void)
{
	if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL))
		die("mount namespace with a fresh /proc");
}

static void init(int argc, char **argv, int pidns)
{
	const char *pidfile, *outfile;
	struct sigaction sa;
	int p[2], fd;
	pid_t pid;

	t_argc = argc;
	t_argv = argv;
	pidfile = test_opt("pidfile");
	outfile = test_opt("outfile");
	if (!pidfile || !outfile) {
		fprintf(stderr, "usage: %s --pidfile=FILE --outfile=FILE [--opt=val...]\n", argv[0]);
		exit(2);
	}

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = sigterm_handler;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = 0; /* no SA_RESTART: sleeping calls return EINTR */
	if (sigaction(SIGTERM, &sa, NULL))
		die("sigaction");

	/* Do not carry fds leaked by whoever started us (shells, CI) into the test. */
	if (syscall(SYS_close_range, 3, ~0U, 0))
		for (fd = 3; fd < 1024; fd++)
			close(fd);
	if (pipe2(p, O_CLOEXEC))
		die("pipe");
	fflush(NULL);
	zdtm_ns_user();
	make_timens(); /* (mode cuns: in the user namespace now) */
	if (zdtm_ns_flags() && unshare(zdtm_ns_flags()))
		die("ns mode: unshare");
	else if (pidns && !zdtm_ns_flags() && unshare(CLONE_NEWPID))
		die("unshare(CLONE_NEWPID)");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid > 0) {
		char c;
		ssize_t r;
		int st;
		FILE *f;

		close(p[1]);
		do
			r = read(p[0], &c, 1);
		while (r < 0 && errno == EINTR);
		if (r != 1) {
			waitpid(pid, &st, 0);
			fprintf(stderr, "zdtm: test %d died before it was ready\n", pid);
			exit(1);
		}
		/* then EOF: the child has closed its end, so the runner never sees the pipe */
		do
			r = read(p[0], &c, 1);
		while (r > 0 || (r < 0 && errno == EINTR));
		f = fopen(pidfile, "w");
		if (!f || fprintf(f, "%d\n", pid) < 0 || fclose(f))
			die("pidfile");
		exit(0);
	}

	close(p[0]);
	ready_fd = p[1];
	/* --no-setsid: stay in the starter's session and process group, like a
	 * program started from a shell (needs crshim --shell-job). */
	if (!test_opt("no-setsid") && setsid() < 0)
		die("setsid");
	if (zdtm_ns_flags())
		zdtm_ns_enter();
	else if (pidns)
		enter_pidns_mounts();
	fd = open("/dev/null", O_RDONLY);
	if (fd < 0 || dup2(fd, 0) < 0)
		die("/dev/null");
	if (fd != 0)
		close(fd);
	fd = open(outfile, O_WRONLY | O_CREAT | O_APPEND, 0644);
	if (fd < 0)
		die("outfile");
	if (dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
		die("dup2");
	if (fd > 2)
		close(fd);
	setvbuf(stdout, NULL, _IONBF, 0);
	setvbuf(stderr, NULL, _IONBF, 0);
}

void test_daemon(void)
{
	if (ready_fd < 0)
		return;
	write_all(ready_fd, "R", 1);
	close(ready_fd);
	ready_fd = -1;
}

void test_forked(void)
{
	if (ready_fd >= 0)
		close(ready_fd);
	ready_fd = -1;
}

int test_outside(void)
{
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		test_forked();
		if (fork())
			_exit(0);
		setsid(); /* not in the test's session or group: the test restores them */
		return 0;
	}
	int st;
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		return -1;
	return 1;
}

int test_go(void)
{
	return !zdtm_sigterm;
}

void test_waitsig(void)
{
	sigset_t blk, old, wait;

	sigemptyset(&blk);
	sigaddset(&blk, SIGTERM);
	sigprocmask(SIG_BLOCK, &blk, &old);
	wait = old;
	sigdelset(&wait, SIGTERM);
	waiter = (pid_t)syscall(SYS_gettid);
	while (!zdtm_sigterm)
		sigsuspend(&wait);
	waiter = 0;
	sigprocmask(SIG_SETMASK, &old, NULL);
	errno = 0; /* so fail() after this does not report sigsuspend's EINTR */
}

static void vout(const char *prefix, const char *fmt, va_list ap, const char *suffix)
{
	char buf[1024];
	int n = snprintf(buf, sizeof(buf), "%s", prefix);
	n += vsnprintf(buf + n, sizeof(buf) - n, fmt, ap);
	if (n >= (int)sizeof(buf) - 1)
		n = sizeof(buf) - 2;
	n += snprintf(buf + n, sizeof(buf) - n, "%s", suffix);
	if (n >= (int)sizeof(buf))
		n = sizeof(buf) - 1;
	write_all(1, buf, n);
}

void pass(void)
{
	if (test_failures) {
		write_all(1, "FAIL: pass() after failures\n", 28);
		return;
	}
	write_all(1, "PASS\n", 5);
}

int test_pass(void)
{
	if (!test_failures)
		pass();
	return 0;
}

void test_fail(const char *file, int line, int err, const char *fmt, ...)
{
	char pre[256], suf[128];
	va_list ap;

	test_failures++;
	snprintf(pre, sizeof(pre), "FAIL: %s:%d: ", file, line);
	snprintf(suf, sizeof(suf), " (errno=%d %s)\n", err, strerror(err));
	va_start(ap, fmt);
	vout(pre, fmt, ap, suf);
	va_end(ap);
}

void test_msg_(const char *fmt, ...)
{
	char pre[64];
	struct timespec ts;
	va_list ap;

	clock_gettime(CLOCK_REALTIME, &ts);
	snprintf(pre, sizeof(pre), "%d %ld.%03ld: ", getpid(), (long)ts.tv_sec, ts.tv_nsec / 1000000);
	va_start(ap, fmt);
	vout(pre, fmt, ap, "\n");
	va_end(ap);
}

void test_skip(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vout("SKIP: ", fmt, ap, "\n");
	va_end(ap);
	/* Tell the parent we are "ready" so it writes the pidfile; the runner sees SKIP. */
	test_daemon();
	exit(0);
}

int read_exact(int fd, void *buf, size_t n, int ms)
{
	size_t got = 0;
	while (got < n) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		if (poll(&p, 1, ms) != 1)
			return -1;
		ssize_t r = read(fd, (char *)buf + got, n - got);
		if (r <= 0)
			return -1;
		got += (size_t)r;
	}
	return 0;
}

int child_ready(int p[2])
{
	close(p[0]);
	int r = write(p[1], "r", 1) == 1 ? 0 : -1;
	close(p[1]);
	return r;
}

void child_exit_ok(pid_t ch, const char *why)
{
	int st = -1;
	if (waitpid(ch, &st, 0) != ch || !WIFEXITED(st) || WEXITSTATUS(st))
		fail("child %d: status %#x%s%s%s", ch, st, why ? " (" : "", why ? why : "", why ? ")" : "");
}

int child_started(int p[2])
{
	char c;
	close(p[1]);
	int r = read(p[0], &c, 1) == 1 ? 0 : -1;
	close(p[0]);
	return r;
}

/* p[0] to fd a, p[1] to fd b, the originals closed; fail(what) on error */
static void pair_move(const int p[2], int a, int b, const char *what)
{
	if (dup2(p[0], a) != a || dup2(p[1], b) != b)
		fail("%s at %d/%d", what, a, b);
	if (p[0] != a && p[0] != b)
		close(p[0]);
	if (p[1] != a && p[1] != b)
		close(p[1]);
}

void open_at(int at, const char *path, int flags, const char *what)
{
	int fd = open(path, flags, 0600);
	if (fd < 0 || (fd != at && dup2(fd, at) != at))
		fail("%s", what);
	if (fd >= 0 && fd != at)
		close(fd);
}

void pipe_at(int r, int w, int flags)
{
	int p[2];
	if (pipe2(p, flags))
		fail("pipe");
	else
		pair_move(p, r, w, "pipe");
}

void sockpair_at(int type, int a, int b)
{
	int p[2];
	if (socketpair(AF_UNIX, type, 0, p))
		fail("socketpair");
	else
		pair_move(p, a, b, "socketpair");
}

void cr_same_state(int fd, void (*get)(int fd, char *out, size_t len), const char *what)
{
	static char before[4096], after[4096];
	get(fd, before, sizeof(before));
	test_daemon();
	test_waitsig();
	get(fd, after, sizeof(after));
	if (strcmp(before, after))
		fail("%s\n%s\nwant\n%s", what, after, before);
}

void no_child_left(void)
{
	int st;
	if (waitpid(-1, &st, WNOHANG) >= 0 || errno != ECHILD)
		fail("a child is left");
}

ssize_t read_file(const char *path, char **out)
{
	size_t cap = 4096, len = 0;
	char *buf = malloc(cap + 1);
	int fd = open(path, O_RDONLY);

	if (fd < 0 || !buf) {
		free(buf);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	for (;;) {
		ssize_t r;
		if (len == cap) {
			char *n = realloc(buf, cap * 2 + 1);
			if (!n)
				break;
			buf = n;
			cap *= 2;
		}
		r = read(fd, buf + len, cap - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		len += r;
	}
	close(fd);
	buf[len] = 0;
	*out = buf;
	return len;
}

const char *proc_status(const char *key)
{
	static char val[512];
	char *buf, *p;
	size_t kl = strlen(key);

	if (read_file("/proc/self/status", &buf) < 0)
		return NULL;
	for (p = buf; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		if (strncmp(p, key, kl) == 0 && p[kl] == ':') {
			char *v = p + kl + 1, *e;
			while (*v == ' ' || *v == '\t')
				v++;
			e = strchr(v, '\n');
			if (!e)
				e = v + strlen(v);
			snprintf(val, sizeof(val), "%.*s", (int)(e - v), v);
			free(buf);
			return val;
		}
	}
	free(buf);
	return NULL;
}

char proc_state(pid_t pid)
{
	char path[64], *buf, st = '?';
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (read_file(path, &buf) < 0)
		return '-';
	char *p = strrchr(buf, ')');
	if (p)
		st = p[2];
	free(buf);
	return st;
}

int inotify_event_for(int fd, int wd, uint32_t mask)
{
	char buf[4096] __attribute__((aligned(8)));
	for (int i = 0; i < 200; i++) {
		ssize_t n = read(fd, buf, sizeof(buf));
		for (ssize_t off = 0; n > 0 && off < n;) {
			struct inotify_event *ev = (struct inotify_event *)(buf + off);
			if (ev->wd == wd && (ev->mask & mask))
				return 0;
			off += (ssize_t)sizeof(*ev) + ev->len;
		}
		usleep(10000);
	}
	return -1;
}

ssize_t fdinfo_read(int fd, char **out)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	return read_file(path, out);
}

void inotify_watch_list(int fd, int with_ino, char *out, size_t len)
{
	char *buf, *p;
	size_t off = 0;
	out[0] = '\0';
	if (fdinfo_read(fd, &buf) < 0)
		return;
	for (p = strstr(buf, "inotify wd:"); p && off < len; p = strstr(p + 1, "inotify wd:")) {
		unsigned wd, sdev, mask;
		unsigned long ino;
		if (sscanf(p, "inotify wd:%x ino:%lx sdev:%x mask:%x", &wd, &ino, &sdev, &mask) != 4)
			continue;
		if (with_ino)
			off += (size_t)snprintf(out + off, len - off, "%u:%lx:%x ", wd, ino, mask);
		else
			off += (size_t)snprintf(out + off, len - off, "%u:%x ", wd, mask);
	}
	free(buf);
}

long file_field(const char *path, const char *key, int base, long dflt)
{
	char *buf, *p;
	size_t kl = strlen(key);
	long v = dflt;
	if (read_file(path, &buf) < 0)
		return dflt;
	for (p = buf; p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, key, kl)) {
			v = strtol(p + kl, NULL, base);
			break;
		}
	free(buf);
	return v;
}

long fdinfo_field(int fd, const char *key, int base, long dflt)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	return file_field(path, key, base, dflt);
}

void prctl_cr(const struct prctl_val *t, int n)
{
	for (int i = 0; i < n; i++)
		if (prctl(t[i].set, t[i].v, 0, 0, 0))
			fail("prctl set %s", t[i].name);
	test_daemon();
	test_waitsig();

	for (int i = 0; i < n; i++) {
		int v = -1;
		long r = t[i].ptr ? prctl(t[i].get, &v, 0, 0, 0) : prctl(t[i].get, 0, 0, 0, 0);
		if (t[i].ptr && r == 0)
			r = v;
		if (r != (long)t[i].v)
			fail("%s %ld, want %lu", t[i].name, r, t[i].v);
	}
}

int pty_pair(int mflags, int sflags, int *s)
{
	int m = posix_openpt(mflags);
	*s = -1;
	if (m < 0 || grantpt(m) || unlockpt(m) || (*s = open(ptsname(m), sflags)) < 0) {
		if (m >= 0)
			close(m);
		return -1;
	}
	return m;
}

int exec_fd_true(int fd)
{
	char *argv[] = {"true", NULL}, *envp[] = {NULL};
	int st = -1;
	pid_t p = fork();
	if (p == 0) {
		syscall(SYS_execveat, fd, "", argv, envp, AT_EMPTY_PATH);
		_exit(100 + errno);
	}
	if (p < 0 || waitpid(p, &st, 0) != p)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 200;
}
