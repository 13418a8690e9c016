/* crshim-runtime: a runc-compatible OCI runtime front end for Podman (and conmon) over crun.
 *
 * Every verb goes to crun (exec, the global options passed through), except:
 *   checkpoint   crshim checkpoint (the container's init and bundle from `crun state`, or crshim's registry
 *                for a container crshim restored); `checkpoint --help` answers the probe Podman makes;
 *   restore      crshim restore --bundle (conmon's stdio pipes given to the restored tree in place of the
 *                pipes the container had at checkpoint, recorded in IMAGES/stdio-fds);
 *   state, kill, delete of a container crshim restored (crun does not know it: crshim's registry does).
 * Own global options (not passed to crun; Podman's --runtime-flag NAME=VALUE gives them): --crun=PATH,
 * --crshim=PATH, --crshim-run-dir=DIR; or $CRSHIM_RUNTIME_CRUN, $CRSHIM_RUNTIME_CRSHIM, $CRSHIM_RUN_DIR.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "oci.h"

#define MAX_ARGS 128
#define STDIO_FILE "stdio-fds"

struct argv_list {
	const char *v[MAX_ARGS + 1];
	int n;
};

struct fe {
	const char *crun;
	const char *crshim;
	struct argv_list global; /* crun's global options, passed through */
	const char *verb;
	char **args; /* after the verb */
	int nargs;
};

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("crshim-runtime: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

static void add(struct argv_list *l, const char *a)
{
	if (l->n >= MAX_ARGS)
		die("too many arguments");
	l->v[l->n++] = a;
	l->v[l->n] = NULL;
}

/* --name=VALUE or --name VALUE: the value (advancing *i), NULL when a is not --name. */
static const char *opt_value(char **argv, int argc, int *i, const char *name)
{
	size_t len = strlen(name);
	const char *a = argv[*i];
	if (!a || strncmp(a, name, len))
		return NULL;
	if (a[len] == '=')
		return a + len + 1;
	if (a[len])
		return NULL;
	if (*i + 1 >= argc)
		die("%s needs a value", name);
	return argv[++*i];
}

static bool is_opt(const char *a, const char *name)
{
	return !strcmp(a, name);
}

/* crun's global options that take a value as the next argument. */
static bool global_takes_value(const char *a)
{
	static const char *const v[] = {"--root",	    "--log",	 "--log-format", "--log-level",
					"--cgroup-manager", "--rootless"};
	for (size_t k = 0; a && k < sizeof(v) / sizeof(v[0]); k++)
		if (!strcmp(a, v[k]))
			return true;
	return false;
}

static void parse_globals(struct fe *f, int argc, char **argv)
{
	int i = 1;
	for (; i < argc && argv[i][0] == '-'; i++) {
		const char *v;
		if ((v = opt_value(argv, argc, &i, "--crun")))
			f->crun = v;
		else if ((v = opt_value(argv, argc, &i, "--crshim")))
			f->crshim = v;
		else if ((v = opt_value(argv, argc, &i, "--crshim-run-dir")))
			setenv("CRSHIM_RUN_DIR", v, 1);
		else {
			add(&f->global, argv[i]);
			if (global_takes_value(argv[i]) && i + 1 < argc)
				add(&f->global, argv[++i]);
		}
	}
	if (i < argc) {
		f->verb = argv[i];
		f->args = argv + i + 1;
		f->nargs = argc - i - 1;
	}
}

/* crshim: --crshim, $CRSHIM_RUNTIME_CRSHIM, next to us (the build dir), ../../sbin (installed to
 * PREFIX/libexec/crshim), else on PATH. */
static void find_crshim(struct fe *f)
{
	static char path[PATH_MAX + 32];
	char self[PATH_MAX];
	static const char *const rel[] = {"crshim", "../../sbin/crshim"};
	if (!f->crshim)
		f->crshim = getenv("CRSHIM_RUNTIME_CRSHIM");
	if (f->crshim)
		return;
	f->crshim = "crshim";
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash = n > 0 ? memrchr(self, '/', (size_t)n) : NULL;
	if (!slash)
		return;
	*slash = 0;
	for (size_t k = 0; k < sizeof(rel) / sizeof(rel[0]); k++) {
		snprintf(path, sizeof(path), "%s/%s", self, rel[k]);
		if (access(path, X_OK) == 0) {
			f->crshim = path;
			return;
		}
	}
}

static void exec_list(struct argv_list *l)
{
	execvp(l->v[0], (char *const *)l->v);
	die("exec %s: %s", l->v[0], strerror(errno));
}

static void exec_crun(struct fe *f)
{
	struct argv_list l = {0};
	add(&l, f->crun);
	for (int i = 0; i < f->global.n; i++)
		add(&l, f->global.v[i]);
	if (f->verb)
		add(&l, f->verb);
	for (int i = 0; i < f->nargs; i++)
		add(&l, f->args[i]);
	exec_list(&l);
}

/* The container crshim restored (its registry says runtime "crshim"), NULL for any other. */
static struct oci_state *crshim_container(const char *id)
{
	struct cr_err err = {0};
	if (!id || oci_id_check(id, &err))
		return NULL;
	struct oci_state *st = oci_reg_get(getenv("CRSHIM_RUN_DIR"), id, &err);
	if (st && (!st->runtime || strcmp(st->runtime, "crshim"))) {
		oci_state_free(st);
		st = NULL;
	}
	return st;
}

/* `crun [globals] state ID`: the container's state (crun's own error on stderr). */
static struct oci_state *crun_state(struct fe *f, const char *id)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC))
		die("pipe: %s", strerror(errno));
	pid_t pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (pid == 0) {
		dup2(p[1], 1);
		struct argv_list l = {0};
		add(&l, f->crun);
		for (int i = 0; i < f->global.n; i++)
			add(&l, f->global.v[i]);
		add(&l, "state");
		add(&l, id);
		execvp(l.v[0], (char *const *)l.v);
		fprintf(stderr, "crshim-runtime: exec %s: %s\n", f->crun, strerror(errno));
		_exit(127);
	}
	close(p[1]);
	char *buf = NULL;
	size_t len = 0, cap = 0;
	for (;;) {
		if (len + 4096 > cap) {
			cap = cap ? cap * 2 : 8192;
			char *nb = realloc(buf, cap);
			if (!nb)
				die("out of memory");
			buf = nb;
		}
		ssize_t r = read(p[0], buf + len, cap - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		len += (size_t)r;
	}
	close(p[0]);
	int status = 0;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		die("%s state %s failed", f->crun, id);
	struct cr_err err = {0};
	struct oci_state *st = oci_state_parse(buf, len, "crun state", &err);
	free(buf);
	if (!st)
		die("%s", err.msg);
	return st;
}

/* The container's fds 0-2 (pipes to conmon, /dev/null, ...) as IMAGES/stdio-fds, one link a line: at restore
 * the pipes among them are replaced by the restoring runtime's own fds 0-2 (--inherit-fd). */
static void record_stdio(const char *images, pid_t pid)
{
	char path[PATH_MAX], link[PATH_MAX], out[3 * PATH_MAX + 3];
	size_t len = 0;
	if (mkdir(images, 0700) && errno != EEXIST)
		die("create %s: %s", images, strerror(errno));
	for (int fd = 0; fd < 3; fd++) {
		snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)pid, fd);
		ssize_t n = readlink(path, link, sizeof(link) - 1);
		link[n > 0 ? n : 0] = 0;
		len += (size_t)snprintf(out + len, sizeof(out) - len, "%s\n", link);
	}
	if (snprintf(path, sizeof(path), "%s/" STDIO_FILE, images) >= (int)sizeof(path))
		die("--image-path %s: name too long", images);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || write(fd, out, len) != (ssize_t)len || close(fd))
		die("write %s: %s", path, strerror(errno));
}

/* Options of checkpoint/restore: those passed on to crshim (with a value or not), those accepted and
 * ignored, and ours. */
struct cr_req {
	const char *id, *images, *work, *bundle, *pidfile, *console;
	bool detach;
	struct argv_list pass;
};

static void parse_cr(struct fe *f, struct cr_req *q, bool restore)
{
	static const char *const pass_flag[] = {"--leave-running", "--tcp-established", "--file-locks",
						"--ext-unix-sk", "--shell-job"};
	static const char *const ignore_flag[] = {"--no-subreaper", "--no-pivot", "--lazy-pages"};
	static const char *const ignore_value[] = {"--lsm-profile", "--lsm-mount-context",
						   "--manage-cgroups-mode"};
	for (int i = 0; i < f->nargs; i++) {
		char *a = f->args[i];
		const char *v;
		bool done = false;
		if (a[0] != '-') {
			if (q->id)
				die("%s: one container id (%s, %s)", f->verb, q->id, a);
			q->id = a;
			continue;
		}
		if ((v = opt_value(f->args, f->nargs, &i, "--image-path"))) {
			q->images = v;
			continue;
		}
		if ((v = opt_value(f->args, f->nargs, &i, "--work-path"))) {
			q->work = v;
			continue;
		}
		if (restore && ((v = opt_value(f->args, f->nargs, &i, "--bundle")) ||
				(v = opt_value(f->args, f->nargs, &i, "-b")))) {
			q->bundle = v;
			continue;
		}
		if (restore && (v = opt_value(f->args, f->nargs, &i, "--pid-file"))) {
			q->pidfile = v;
			continue;
		}
		if (restore && (v = opt_value(f->args, f->nargs, &i, "--console-socket"))) {
			q->console = v;
			continue;
		}
		if (restore && (is_opt(a, "--detach") || is_opt(a, "-d"))) {
			q->detach = true;
			continue;
		}
		for (size_t k = 0; k < sizeof(pass_flag) / sizeof(pass_flag[0]) && !done; k++)
			if (is_opt(a, pass_flag[k]) && !(restore && k == 0)) {
				add(&q->pass, a);
				done = true;
			}
		for (size_t k = 0; k < sizeof(ignore_flag) / sizeof(ignore_flag[0]) && !done; k++)
			done = is_opt(a, ignore_flag[k]);
		for (size_t k = 0; k < sizeof(ignore_value) / sizeof(ignore_value[0]) && !done; k++)
			done = opt_value(f->args, f->nargs, &i, ignore_value[k]) != NULL;
		if (!done)
			die("%s: option %s is not supported", f->verb, a);
	}
	if (!q->id)
		die("%s: no container id", f->verb);
	if (!q->images)
		die("%s %s: no --image-path", f->verb, q->id);
}

/* --image-path, and --work-path with the log there under the name runc's criu gives it (Podman shows it) */
static void add_paths(struct argv_list *l, const struct cr_req *q, const char *log)
{
	add(l, "--image-path");
	add(l, q->images);
	if (q->work) {
		add(l, "--work-path");
		add(l, q->work);
		add(l, "-o");
		add(l, log);
	}
}

static void usage_checkpoint(void)
{
	puts(
	    "usage: crshim-runtime [GLOBAL OPTIONS] checkpoint --image-path DIR [--work-path DIR]\n"
	    "                      [--leave-running] [--tcp-established] [--file-locks] ID\n"
	    "       crshim-runtime [GLOBAL OPTIONS] restore --bundle DIR --image-path DIR [--work-path DIR]\n"
	    "                      [--detach] [--pid-file F] [--console-socket S] [--tcp-established] ID\n"
	    "checkpoint and restore are crshim's; every other verb is crun's (state, kill and delete of a\n"
	    "container crshim restored are crshim's).");
}

static void do_checkpoint(struct fe *f)
{
	struct cr_req q = {0};
	for (int i = 0; i < f->nargs; i++)
		if (is_opt(f->args[i], "--help") || is_opt(f->args[i], "-h")) {
			usage_checkpoint();
			exit(0);
		}
	parse_cr(f, &q, false);
	struct argv_list l = {0};
	char pidbuf[32];
	add(&l, f->crshim);
	add(&l, "checkpoint");
	struct oci_state *st = crshim_container(q.id);
	if (st) {
		record_stdio(q.images, st->pid);
	} else {
		st = crun_state(f, q.id);
		if (!st->status || strcmp(st->status, "running") || st->pid <= 0 || !st->bundle)
			die("checkpoint %s: the container is not running (%s)", q.id,
			    st->status ? st->status : "no status");
		record_stdio(q.images, st->pid);
		snprintf(pidbuf, sizeof(pidbuf), "%d", (int)st->pid);
		add(&l, "--bundle");
		add(&l, strdup(st->bundle));
		add(&l, "--pid");
		add(&l, pidbuf);
	}
	oci_state_free(st);
	add_paths(&l, &q, "dump.log");
	for (int i = 0; i < q.pass.n; i++)
		add(&l, q.pass.v[i]);
	add(&l, q.id);
	exec_list(&l);
}

/* --inherit-fd fd[N]:pipe:[INO] for each of the container's stdio pipes at checkpoint: our fd N (conmon's
 * pipe) takes its place. */
static void inherit_stdio(struct argv_list *l, const char *images)
{
	char path[PATH_MAX], line[PATH_MAX];
	if (snprintf(path, sizeof(path), "%s/" STDIO_FILE, images) >= (int)sizeof(path))
		die("--image-path %s: name too long", images);
	FILE *fp = fopen(path, "re");
	if (!fp)
		return; /* not checkpointed through us: crshim's own handling of the pipes */
	for (int fd = 0; fd < 3 && fgets(line, sizeof(line), fp); fd++) {
		line[strcspn(line, "\n")] = 0;
		struct stat sb;
		if (strncmp(line, "pipe:", 5) || fstat(fd, &sb) || !S_ISFIFO(sb.st_mode))
			continue;
		char *arg = NULL;
		if (asprintf(&arg, "fd[%d]:%s", fd, line) < 0)
			die("out of memory");
		add(l, "--inherit-fd");
		add(l, arg);
	}
	fclose(fp);
}

static void do_restore(struct fe *f)
{
	struct cr_req q = {0};
	parse_cr(f, &q, true);
	if (!q.bundle)
		die("restore %s: no --bundle", q.id);
	struct argv_list l = {0};
	add(&l, f->crshim);
	add(&l, "restore");
	add(&l, "--bundle");
	add(&l, q.bundle);
	add_paths(&l, &q, "restore.log");
	if (q.detach)
		add(&l, "--detach");
	if (q.pidfile) {
		add(&l, "--pid-file");
		add(&l, q.pidfile);
	}
	if (q.console) {
		add(&l, "--console-socket");
		add(&l, q.console);
	}
	inherit_stdio(&l, q.images);
	for (int i = 0; i < q.pass.n; i++)
		add(&l, q.pass.v[i]);
	add(&l, q.id);
	exec_list(&l);
}

/* state, kill, delete of a container crshim restored; other verbs are refused. */
static void crshim_verb(struct fe *f, const char *id)
{
	struct argv_list l = {0};
	const char *sig = NULL;
	bool force = false;
	for (int i = 0; i < f->nargs; i++) {
		const char *a = f->args[i];
		if (is_opt(a, "--force") || is_opt(a, "-f"))
			force = true;
		else if (a[0] != '-' && a != id)
			sig = a;
	}
	add(&l, f->crshim);
	if (!strcmp(f->verb, "state")) {
		add(&l, "state");
	} else if (!strcmp(f->verb, "kill")) {
		add(&l, "kill");
		add(&l, id);
		add(&l, sig ? sig : "TERM");
		exec_list(&l);
	} else if (!strcmp(f->verb, "delete")) {
		add(&l, "delete");
		if (force)
			add(&l, "--force");
	} else {
		die("%s: not supported for container %s (restored by crshim)", f->verb, id);
	}
	add(&l, id);
	exec_list(&l);
}

int main(int argc, char **argv)
{
	struct fe f = {0};
	parse_globals(&f, argc, argv);
	if (!f.crun)
		f.crun = getenv("CRSHIM_RUNTIME_CRUN");
	if (!f.crun)
		f.crun = "crun";
	find_crshim(&f);
	if (!f.verb)
		exec_crun(&f);
	if (!strcmp(f.verb, "checkpoint"))
		do_checkpoint(&f);
	if (!strcmp(f.verb, "restore"))
		do_restore(&f);
	/* the container id: the first argument that is not an option */
	const char *id = NULL;
	for (int i = 0; i < f.nargs && !id; i++)
		if (f.args[i][0] != '-')
			id = f.args[i];
	struct oci_state *st = crshim_container(id);
	if (st) {
		oci_state_free(st);
		crshim_verb(&f, id);
	}
	exec_crun(&f);
	return 1;
}
