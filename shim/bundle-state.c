/* OCI verbs on registered containers: state, kill, delete, list; the config's hooks. */
#define LOG_PREFIX "bundle: "
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "bundle.h"

/* Running: the pid is there and not a zombie (a killed init whose parent, often pid 1 for a container
 * crshim restored, has not reaped it yet is stopped: its delete must not be refused as "running"). */
static bool alive(pid_t pid)
{
	if (pid <= 0 || (kill(pid, 0) && errno != EPERM))
		return false;
	char path[40], buf[512];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return true; /* no /proc to ask: kill(0) said it is there */
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	const char *r = strrchr(buf, ')');
	return !(r && r[1] == ' ' && (r[2] == 'Z' || r[2] == 'X'));
}

/* A registered container whose init is gone is stopped (a crshim restore without --detach, a crash). */
static void refresh(struct oci_state *s)
{
	if (!alive(s->pid))
		s->status = "stopped";
}

int bundle_state(struct shim_cmd *c)
{
	struct cr_err err = {0};
	struct oci_state *s = oci_reg_get(shim_run_dir(), c->oci_id, &err);
	if (!s)
		return bundle_fail(c, "state", &err);
	refresh(s);
	char *js = oci_state_json(s, true, &err);
	oci_state_free(s);
	if (!js)
		return bundle_fail(c, "state", &err);
	printf("%s\n", js);
	free(js);
	return fflush(stdout) ? 1 : 0;
}

static int parse_signal(const char *s, int *sig)
{
	static const struct {
		const char *name;
		int nr;
	} names[] = {{"HUP", SIGHUP},	{"INT", SIGINT},   {"QUIT", SIGQUIT},  {"KILL", SIGKILL},
		     {"USR1", SIGUSR1}, {"USR2", SIGUSR2}, {"TERM", SIGTERM},  {"CONT", SIGCONT},
		     {"STOP", SIGSTOP}, {"ALRM", SIGALRM}, {"WINCH", SIGWINCH}};
	if (!s) {
		*sig = SIGTERM;
		return 0;
	}
	char *end;
	long v = strtol(s, &end, 10);
	if (*s && !*end && v > 0 && v < 65) {
		*sig = (int)v;
		return 0;
	}
	if (!strncmp(s, "SIG", 3))
		s += 3;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(s, names[i].name)) {
			*sig = names[i].nr;
			return 0;
		}
	return -1;
}

int bundle_kill(struct shim_cmd *c)
{
	struct cr_err err = {0};
	int sig;
	if (parse_signal(c->oci_signal, &sig)) {
		cr_fail_errno(&err, EINVAL, "unknown signal '%s'", c->oci_signal);
		return bundle_fail(c, "kill", &err);
	}
	struct oci_state *s = oci_reg_get(shim_run_dir(), c->oci_id, &err);
	if (!s)
		return bundle_fail(c, "kill", &err);
	int r = 0;
	if (!alive(s->pid))
		r = cr_fail_errno(&err, ESRCH, "container %s is not running", c->oci_id);
	else if (kill(s->pid, sig))
		r = cr_fail_sys(&err, "kill %d (init of %s)", s->pid, c->oci_id);
	oci_state_free(s);
	return r ? bundle_fail(c, "kill", &err) : 0;
}

int bundle_delete(struct shim_cmd *c)
{
	struct cr_err err = {0};
	struct oci_state *s = oci_reg_get(shim_run_dir(), c->oci_id, &err);
	if (!s)
		return bundle_fail(c, "delete", &err);
	if (alive(s->pid) && !c->oci_force) {
		cr_fail_errno(&err, EBUSY, "container %s is running (pid %d): kill it first or use --force",
			      c->oci_id, s->pid);
		oci_state_free(s);
		return bundle_fail(c, "delete", &err);
	}
	if (alive(s->pid)) {
		kill(s->pid, SIGKILL);
		for (int i = 0; i < 500 && alive(s->pid); i++) {
			waitpid(s->pid, NULL, WNOHANG);
			usleep(10000);
		}
	}
	int r = oci_reg_del(shim_run_dir(), c->oci_id, &err);
	/* Containers crshim restored: their config's poststop hooks run now (the runtime's do it otherwise).
	 */
	if (!r && s->runtime && !strcmp(s->runtime, "crshim")) {
		struct cr_err herr = {0};
		struct oci_config *cf = oci_config_load(s->bundle, &herr);
		s->status = "stopped";
		if (s->cgroups || cf)
			bundle_cg_remove_leaf(s->cgroups ? s->cgroups : cf->cgroups_path);
		if (cf && bundle_hooks(cf, OCI_HOOK_POSTSTOP, s, &herr))
			fprintf(stderr, "crshim: warning: %s\n",
				herr.msg); /* the spec: poststop errors are logged */
		oci_config_free(cf);
	}
	oci_state_free(s);
	return r ? bundle_fail(c, "delete", &err) : 0;
}

static int list_one(const struct oci_state *s, void *arg)
{
	char when[32] = "-";
	time_t t = (time_t)s->created;
	struct tm tm;
	if (t && gmtime_r(&t, &tm))
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	printf("%-24s %-8d %-8s %-8s %-20s %s\n", s->id, s->pid, alive(s->pid) ? s->status : "stopped",
	       s->runtime ? s->runtime : "-", when, s->bundle);
	return 0;
}

static void list_bad(const char *id, const struct cr_err *e, void *arg)
{
	fprintf(stderr, "crshim: list: skipped %s: %s\n", id, e->msg);
}

int bundle_list(struct shim_cmd *c)
{
	struct cr_err err = {0};
	printf("%-24s %-8s %-8s %-8s %-20s %s\n", "ID", "PID", "STATUS", "RUNTIME", "CREATED", "BUNDLE");
	if (oci_reg_each(shim_run_dir(), list_one, NULL, list_bad, &err))
		return bundle_fail(c, "list", &err);
	return fflush(stdout) ? 1 : 0;
}

/* One hook: fork, state JSON on its stdin, wait with its timeout. */
static int run_hook(const struct oci_hook *h, const char *js, const char *point, struct cr_err *err)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC))
		return cr_fail_sys(err, "%s hook %s: pipe", point, h->path);
	pid_t pid = fork();
	if (pid < 0) {
		close(p[0]), close(p[1]);
		return cr_fail_sys(err, "%s hook %s: fork", point, h->path);
	}
	if (pid == 0) {
		static char *const no_env[] = {NULL};
		const char *argv0[] = {h->path, NULL};
		dup2(p[0], 0);
		signal(SIGPIPE, SIG_DFL); /* crshim ignores it (shim/main.c); the hook gets the default */
		execve(h->path, (char *const *)(h->args.n ? h->args.v : argv0),
		       h->env.n ? (char *const *)h->env.v : no_env);
		_exit(127);
	}
	close(p[0]);
	signal(SIGPIPE, SIG_IGN);
	size_t len = strlen(js), off = 0;
	while (off < len) {
		ssize_t n = write(p[1], js + off, len - off);
		if (n <= 0)
			break;
		off += (size_t)n;
	}
	close(p[1]);
	int st = 0;
	long waited = 0, limit = h->timeout > 0 ? h->timeout * 100L : -1;
	pid_t w;
	while ((w = waitpid(pid, &st, limit < 0 ? 0 : WNOHANG)) == 0 && waited < limit) {
		usleep(10000);
		waited++;
	}
	if (w == 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		return cr_fail_errno(err, ETIMEDOUT, "%s hook %s: timed out after %d s", point, h->path,
				     h->timeout);
	}
	if (w < 0)
		return cr_fail_sys(err, "%s hook %s: wait", point, h->path);
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		return cr_fail_errno(err, 0, "%s hook %s failed (status %d)", point, h->path,
				     WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
	return 0;
}

int bundle_hooks(const struct oci_config *cf, enum oci_hook_point p, const struct oci_state *st,
		 struct cr_err *err)
{
	const struct oci_hooks *hs = &cf->hooks[p];
	if (!hs->n)
		return 0;
	char *js = oci_state_json(st, false, err);
	if (!js)
		return -1;
	int r = 0;
	for (size_t i = 0; i < hs->n && !r; i++)
		r = run_hook(&hs->v[i], js, oci_hook_point_name(p), err);
	free(js);
	return r;
}
