/* `crshim restore --bundle DIR --image-path DIR [ID]`: the container of the images, restored as its config
 * says (root, namespaces joined by path, bind mounts from their sources, sysctls, OCI hooks at the spec's
 * points), registered for `crshim state|kill|delete|list`. */
#define LOG_PREFIX "bundle: "
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "bundle.h"
#include "stats.h"
#include "base/log.h"
#include "base/scm.h"

/* The id of the images' container (oci-state.json written by checkpoint). */
static int images_id(const char *images, char *id, size_t len, struct cr_err *err)
{
	char path[PATH_MAX];
	size_t n = 0;
	if (snprintf(path, sizeof(path), "%s/oci-state.json", images) >= (int)sizeof(path))
		return cr_fail_errno(err, ENAMETOOLONG, "%s", images);
	char *b = oci_read_file(path, &n, err);
	if (!b)
		return cr_wrap(err, "no container ID given and none in the images");
	struct oci_state *s = oci_state_parse(b, n, path, err);
	free(b);
	if (!s)
		return -1;
	snprintf(id, len, "%s", s->id);
	oci_state_free(s);
	return 0;
}

/* The config's sysctls, written inside the restored container's net, IPC and UTS namespaces. */
static int apply_sysctls(const struct oci_config *cf, pid_t root, struct cr_err *err)
{
	if (!cf->n_sysctl)
		return 0;
	int p[2];
	if (pipe2(p, O_CLOEXEC))
		return cr_fail_sys(err, "sysctl: pipe");
	pid_t pid = fork();
	if (pid < 0) {
		close(p[0]), close(p[1]);
		return cr_fail_sys(err, "sysctl: fork");
	}
	if (pid == 0) {
		static const char *const kinds[] = {"net", "ipc", "uts"};
		char msg[512] = "", path[PATH_MAX];
		close(p[0]);
		for (size_t k = 0; k < 3 && !msg[0]; k++) {
			snprintf(path, sizeof(path), "/proc/%d/ns/%s", root, kinds[k]);
			int fd = open(path, O_RDONLY | O_CLOEXEC);
			if (fd < 0 || setns(fd, 0))
				snprintf(msg, sizeof(msg), "sysctl: join %.64s: %s", path, strerror(errno));
			if (fd >= 0)
				close(fd);
		}
		for (size_t i = 0; i < cf->n_sysctl && !msg[0]; i++) {
			const char *key = cf->sysctl[i].key, *val = cf->sysctl[i].value;
			int n = snprintf(path, sizeof(path), "/proc/sys/%s", key);
			for (char *q = path + 10; n > 0 && *q; q++)
				if (*q == '.')
					*q = '/';
			int fd = strstr(key, "..") ? -1 : open(path, O_WRONLY | O_CLOEXEC);
			if (fd < 0 || write(fd, val, strlen(val)) < 0)
				snprintf(msg, sizeof(msg), "config sysctl %.128s=%.128s: %s", key, val,
					 strerror(errno));
			if (fd >= 0)
				close(fd);
		}
		if (msg[0] && write(p[1], msg, strlen(msg)) < 0)
			_exit(2);
		_exit(msg[0] ? 1 : 0);
	}
	close(p[1]);
	char msg[512] = "";
	ssize_t n = read(p[0], msg, sizeof(msg) - 1);
	close(p[0]);
	int st = 0;
	waitpid(pid, &st, 0);
	if (n > 0 || !WIFEXITED(st) || WEXITSTATUS(st)) {
		msg[n > 0 ? n : 0] = '\0';
		return cr_fail_errno(err, 0, "%s", msg[0] ? msg : "sysctl: the helper failed");
	}
	return 0;
}

/* The restored container dies with its init (its own PID namespace); without one, the tree is killed by
 * its root only. */
static void kill_restored(pid_t root)
{
	kill(root, SIGKILL);
	waitpid(root, NULL, 0);
}

struct rst {
	struct bundle_cg cg;
	char id[160];
	char images[PATH_MAX], bundle[PATH_MAX], root[PATH_MAX], cgroups[PATH_MAX];
	struct oci_state st;
	struct oci_config *cf;
	const char *cg_root[1]; /* --cgroup-root: the config's cgroupsPath */
	int console;		/* --console-socket, connected (-1: none) */
};

/* The new master of the container's console (its master was the runtime's, outside the tree: the images hold
 * it as an orphan pair) goes to the --console-socket receiver, as runc hands it over. */
static int console_notify(void *arg, const char *script, pid_t pid, int fd)
{
	struct rst *r = arg;
	if (fd < 0 || strcmp(script, "orphan-pts-master"))
		return 0;
	char name[] = "orphan-pts-master";
	struct iovec iov = {.iov_base = name, .iov_len = sizeof(name) - 1};
	if (scm_send(r->console, &iov, 1, &fd, 1) < 0) {
		pr_err("send the console's master to --console-socket: %s\n", strerror(errno));
		return -1;
	}
	pr_info("the console's new master sent to --console-socket\n");
	return 0;
}

static int console_connect(struct shim_cmd *c, struct rst *r, struct cr_err *err)
{
	if (!c->console_socket) {
		if (r->cf->process.terminal)
			return cr_fail_errno(
			    err, EINVAL,
			    "the container has a terminal (process.terminal): give --console-socket "
			    "to receive its new master");
		return 0;
	}
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	if (strlen(c->console_socket) >= sizeof(a.sun_path))
		return cr_fail_errno(err, ENAMETOOLONG, "--console-socket %s", c->console_socket);
	memcpy(a.sun_path, c->console_socket, strlen(c->console_socket) + 1);
	r->console = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (r->console < 0 || connect(r->console, (struct sockaddr *)&a, sizeof(a)))
		return cr_fail_sys(err, "connect to --console-socket %s", c->console_socket);
	c->opts.notify = console_notify;
	c->opts.notify_arg = r;
	return 0;
}

static int prepare(struct shim_cmd *c, struct rst *r, struct cr_err *err)
{
	if (bundle_abs(r->images, sizeof(r->images), ".", c->opts.images_dir) ||
	    bundle_abs(r->bundle, sizeof(r->bundle), ".", c->bundle))
		return cr_fail_errno(err, ENAMETOOLONG, "--image-path or --bundle");
	if (c->oci_id)
		snprintf(r->id, sizeof(r->id), "%s", c->oci_id);
	else if (images_id(r->images, r->id, sizeof(r->id), err))
		return -1;
	if (oci_id_check(r->id, err))
		return -1;
	struct oci_state *old = oci_reg_get(shim_run_dir(), r->id, err);
	if (old) {
		bool running = old->pid > 0 && kill(old->pid, 0) == 0;
		oci_state_free(old);
		if (running)
			return cr_fail_errno(err, EEXIST, "container %s exists and is running", r->id);
	}
	cr_err_clear(err);
	r->cf = oci_config_load(r->bundle, err);
	if (!r->cf || bundle_fault(c, r->cf, NULL, err))
		return -1;
	if (console_connect(c, r, err))
		return -1;
	if (r->cf->root_path) {
		if (bundle_abs(r->root, sizeof(r->root), r->bundle, r->cf->root_path))
			return cr_fail_errno(err, ENAMETOOLONG, "root.path");
		c->opts.root = r->root;
	}
	if (bundle_join_ns(c, r->cf, err))
		return -1;
	/* no linux.cgroupsPath: a cgroup of its own all the same (runc's default), removed by delete */
	if (!r->cf->cgroups_path || !r->cf->cgroups_path[0]) {
		if (bundle_cg_default(r->id, r->cgroups, sizeof(r->cgroups)))
			return cr_fail_errno(err, ENAMETOOLONG, "default cgroup of %s", r->id);
		r->cf->cgroups_path = r->cgroups;
	}
	r->st = (struct oci_state){.oci_version = r->cf->oci_version,
				   .id = r->id,
				   .status = "creating",
				   .bundle = r->bundle,
				   .runtime = "crshim",
				   .images = r->images,
				   .cgroups = r->cf->cgroups_path,
				   .created = (long long)time(NULL),
				   .annotations = r->cf->annotations,
				   .n_annotations = r->cf->n_annotations};
	return 0;
}

/* The spec's points as a restore meets them: prestart, createRuntime and createContainer before the tree is
 * made (the container's pid is not known yet: state without pid), poststart once it runs. */
static int pre_hooks(struct rst *r, struct cr_err *err)
{
	return bundle_hooks(r->cf, OCI_HOOK_PRESTART, &r->st, err) ||
		       bundle_hooks(r->cf, OCI_HOOK_CREATE_RUNTIME, &r->st, err) ||
		       bundle_hooks(r->cf, OCI_HOOK_CREATE_CONTAINER, &r->st, err)
		   ? -1
		   : 0;
}

int bundle_restore(struct shim_cmd *c)
{
	struct cr_err err = {0};
	struct rst *r = calloc(1, sizeof(*r));
	pid_t root = -1;
	int ret = 1;
	if (!r) {
		cr_fail_errno(&err, ENOMEM, "restore");
		return bundle_fail(c, "restore", &err);
	}
	r->console = -1;
	bundle_default_log(c, "restore.log");
	if (prepare(c, r, &err) || shim_setup_log(c, &err) || pre_hooks(r, &err)) {
		ret = bundle_fail(c, "restore", &err);
		goto out;
	}
	pr_info("restore of container %s from %s (bundle %s)\n", r->id, r->images, r->bundle);
	bundle_cg_engine(r->cf, &c->opts, r->cg_root);
	if (bundle_cg_enter(r->cf, &r->cg, &err)) {
		bundle_cg_leave(&r->cg);
		bundle_cg_remove(r->cf->cgroups_path, &r->cg);
		ret = bundle_fail(c, "restore", &err);
		goto out;
	}
	struct cr_stats cst = {0};
	c->opts.stats = &cst;
	int rr = eng_restore(&c->opts, &root, &err);
	c->opts.stats = NULL;
	bundle_cg_leave(&r->cg);
	if (rr) {
		bundle_cg_remove(r->cf->cgroups_path, &r->cg);
		ret = shim_report_run(c, "restore", &err);
		goto out;
	}
	shim_stats_write(c->opts.work_dir ? c->opts.work_dir : c->opts.images_dir, &cst, false,
			 c->display_stats ? stdout : NULL);
	r->st.pid = root;
	r->st.status = "running";
	if (apply_sysctls(r->cf, root, &err) || oci_reg_put(shim_run_dir(), &r->st, &err) ||
	    (c->opts.pidfile && shim_write_pidfile(c->opts.pidfile, root, &err))) {
		kill_restored(root);
		bundle_cg_remove(r->cf->cgroups_path, &r->cg);
		oci_reg_del(shim_run_dir(), r->id, &(struct cr_err){0});
		ret = bundle_fail(c, "restore", &err);
		goto out;
	}
	pr_info("container %s restored, init %d\n", r->id, root);
	if (bundle_hooks(r->cf, OCI_HOOK_POSTSTART, &r->st, &err)) /* the spec: logged, not fatal */
		pr_warn("%s\n", err.msg);
	ret = 0;
	if (!c->opts.detach) {
		ret = shim_wait_root(root);
		pr_info("container %s: init %d exited, status %d\n", r->id, root, ret);
	}
out:
	if (r->console >= 0)
		close(r->console);
	oci_config_free(r->cf);
	free(r);
	log_close();
	return ret;
}
