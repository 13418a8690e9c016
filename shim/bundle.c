/* OCI verbs: `crshim checkpoint` and `crshim restore --bundle` of a container described by an OCI bundle
 * (config.json), found through crshim-hook's registry, runc's state or --pid. They derive the engine's
 * options from the config (root, external mounts, namespaces joined by path, cr.fault) and call the engine's
 * public API, as the CLI and the RPC server do. */
#define LOG_PREFIX "bundle: "
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "bundle.h"
#include "stats.h"
#include "base/fault.h"
#include "base/log.h"

const char *shim_run_dir(void)
{
	const char *d = getenv("CRSHIM_RUN_DIR");
	return d && *d ? d : OCI_RUN_DIR;
}

int bundle_fail(struct shim_cmd *c, const char *what, struct cr_err *err)
{
	char buf[1200];
	if (c->opts.log_file && !c->log_to_stderr && log_path()[0])
		return shim_report_run(c, what, err);
	fprintf(stderr, "crshim: %s failed: %s\n", what, cr_err_str(err, buf, sizeof(buf)));
	return 1;
}

/* cr.fault of the config's and the state's annotations, checked before anything is touched. CRSHIM_FAULT /
 * CRIU_FAULT of the environment win. */
int bundle_fault(struct shim_cmd *c, const struct oci_config *cf, const struct oci_state *st,
		 struct cr_err *err)
{
	static char src[128];
	int f1 = 0, f2 = 0;
	if (cf && oci_fault_from_annotations(cf->annotations, cf->n_annotations, &f1, err))
		return -1;
	if (st && oci_fault_from_annotations(st->annotations, st->n_annotations, &f2, err))
		return -1;
	int f = f1 ? f1 : f2;
	if (!f || c->opts.fault)
		return 0;
	c->opts.fault = f;
	snprintf(src, sizeof(src), "from annotation %s=%s", OCI_FAULT_ANNOTATION, fault_name(f));
	c->fault_src = src;
	return 0;
}

/* An absolute path: p itself, or base/p. */
int bundle_abs(char *out, size_t len, const char *base, const char *p)
{
	char cwd[PATH_MAX];
	int n;
	if (p[0] == '/')
		n = snprintf(out, len, "%s", p);
	else if (base[0] == '/')
		n = snprintf(out, len, "%s/%s", base, p);
	else if (getcwd(cwd, sizeof(cwd)))
		n = snprintf(out, len, "%s/%s/%s", cwd, base, p);
	else
		return -1;
	return n < 0 || (size_t)n >= len ? -1 : 0;
}

static bool is_bind(const struct oci_mount *m)
{
	if (m->type && !strcmp(m->type, "bind"))
		return true;
	for (size_t i = 0; i < m->options.n; i++)
		if (!strcmp(m->options.v[i], "bind") || !strcmp(m->options.v[i], "rbind"))
			return true;
	return false;
}

/* Strings of --external/--join-ns made here live as long as the process (never freed). */

static int add_ext(struct shim_cmd *c, const char **list, int *n, struct cr_err *err, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static int add_ext(struct shim_cmd *c, const char **list, int *n, struct cr_err *err, const char *fmt, ...)
{
	va_list ap;
	char *b = NULL;
	if (*n >= SHIM_MAX_LIST)
		return cr_fail_errno(err, E2BIG, "too many external mounts and namespaces (max %d)",
				     SHIM_MAX_LIST);
	va_start(ap, fmt);
	int r = vasprintf(&b, fmt, ap);
	va_end(ap);
	if (r < 0)
		return cr_fail_errno(err, ENOMEM, "out of memory");
	list[(*n)++] = b;
	c->opts.external = c->external, c->opts.n_external = c->n_external;
	c->opts.join_ns = c->join_ns, c->opts.n_join_ns = c->n_join_ns;
	return 0;
}

/* The config's bind mounts come from outside the container: external at dump, bound again at restore. The
 * network namespace given by path belongs to someone else: external at dump, joined at restore. */
static int dump_externals(struct shim_cmd *c, const struct oci_config *cf, struct cr_err *err)
{
	for (size_t i = 0; i < cf->n_mounts; i++) {
		const struct oci_mount *m = &cf->mounts[i];
		if (is_bind(m) && add_ext(c, c->external, &c->n_external, err, "mnt[%s]:%s", m->destination,
					  m->destination))
			return -1;
	}
	const struct oci_ns *net = oci_config_ns(cf, "network");
	if (net && net->path) {
		struct stat st;
		if (stat(net->path, &st))
			return cr_fail_sys(err, "network namespace %s of the config", net->path);
		if (add_ext(c, c->external, &c->n_external, err, "net[%lu]:oci-net",
			    (unsigned long)st.st_ino))
			return -1;
	}
	return 0;
}

int bundle_join_ns(struct shim_cmd *c, const struct oci_config *cf, struct cr_err *err)
{
	static const struct {
		const char *oci, *kind;
	} joinable[] = {{"network", "net"}, {"ipc", "ipc"}, {"uts", "uts"}, {"time", "time"}};
	for (size_t i = 0; i < cf->n_namespaces; i++) {
		const struct oci_ns *ns = &cf->namespaces[i];
		const char *kind = NULL;
		if (!ns->path)
			continue;
		for (size_t k = 0; k < sizeof(joinable) / sizeof(joinable[0]); k++)
			if (!strcmp(ns->type, joinable[k].oci))
				kind = joinable[k].kind;
		if (!kind)
			return cr_fail_errno(err, ENOTSUP,
					     "config: joining a %s namespace by path is not supported",
					     ns->type);
		if (add_ext(c, c->join_ns, &c->n_join_ns, err, "%s:%s", kind, ns->path))
			return -1;
	}
	for (size_t i = 0; i < cf->n_mounts; i++) {
		const struct oci_mount *m = &cf->mounts[i];
		if (is_bind(m) && m->source &&
		    add_ext(c, c->external, &c->n_external, err, "mnt[%s]:%s", m->destination, m->source))
			return -1;
	}
	return 0;
}

/* The container: the registry, else runc's state; --pid alone needs --bundle. */
static struct oci_state *find_container(struct shim_cmd *c, struct cr_err *err)
{
	struct oci_state *st = NULL;
	if (c->oci_id) {
		st = oci_reg_get(shim_run_dir(), c->oci_id, err);
		if (!st && err->errnum == ENOENT) {
			cr_err_clear(err);
			st = oci_runc_state(NULL, c->oci_id, err);
			if (!st && err->errnum == ENOENT && c->opts.pid && c->bundle) {
				/* another runtime's (crshim-runtime over crun): its id with --pid and
				 * --bundle */
				cr_err_clear(err);
				st = calloc(1, sizeof(*st));
				if (!st)
					return (void)cr_fail_errno(err, ENOMEM, "state"), NULL;
				st->id = c->oci_id;
			} else if (!st && err->errnum == ENOENT)
				cr_fail_errno(err, ENOENT,
					      "container %s: not registered in %s and not a runc container",
					      c->oci_id, shim_run_dir());
		}
		if (!st)
			return NULL;
	} else {
		st = calloc(1, sizeof(*st));
		if (!st)
			return (void)cr_fail_errno(err, ENOMEM, "state"), NULL;
	}
	if (c->opts.pid)
		st->pid = c->opts.pid;
	if (c->bundle)
		st->bundle = c->bundle;
	if (!st->bundle || !st->bundle[0]) {
		oci_state_free(st);
		return (void)cr_fail_errno(err, EINVAL,
					   "no bundle known for the container: give --bundle DIR"),
		       NULL;
	}
	if (st->pid <= 0 || kill(st->pid, 0)) {
		cr_fail_errno(err, ESRCH, "container %s: its init (pid %d) is not running",
			      c->oci_id ? c->oci_id : "-", st->pid);
		oci_state_free(st);
		return NULL;
	}
	return st;
}

/* The bundle's config.json and the container's state are kept with the images. */
static int keep_config(struct shim_cmd *c, const struct oci_state *st, struct cr_err *err)
{
	char src[PATH_MAX], dst[PATH_MAX];
	size_t len = 0;
	if (bundle_abs(src, sizeof(src), st->bundle, "config.json") ||
	    snprintf(dst, sizeof(dst), "%s/config.json", c->opts.images_dir) >= (int)sizeof(dst))
		return cr_fail_errno(err, ENAMETOOLONG, "bundle %s", st->bundle);
	char *b = oci_read_file(src, &len, err);
	if (!b)
		return -1;
	int r = oci_json_copy(b, len, src, dst, err);
	free(b);
	if (r)
		return -1;
	struct oci_state keep = *st;
	keep.tree_ = NULL;
	keep.images = NULL;
	keep.status = "stopped";
	if (!keep.id)
		keep.id = "oci-container";
	char *js = oci_state_json(&keep, true, err);
	if (!js)
		return -1;
	snprintf(dst, sizeof(dst), "%s/oci-state.json", c->opts.images_dir);
	r = oci_json_copy(js, strlen(js), "container state", dst, err);
	free(js);
	return r;
}

/* No -o: the log goes to WORK/NAME.log, as runc asks criu for. */
void bundle_default_log(struct shim_cmd *c, const char *name)
{
	if (!c->opts.log_file) {
		c->opts.log_file = name;
		c->log_to_stderr = false;
	}
}

static int run_checkpoint(struct shim_cmd *c)
{
	struct cr_err err = {0};
	struct oci_state *st = find_container(c, &err);
	if (!st)
		return bundle_fail(c, "checkpoint", &err);
	struct oci_config *cf = oci_config_load(st->bundle, &err);
	int ret = 1;
	if (!cf || bundle_fault(c, cf, st, &err) || dump_externals(c, cf, &err))
		goto out;
	c->opts.pid = st->pid;
	c->opts.orphan_pts |= cf->process.terminal; /* its console's master is the runtime's */
	bundle_default_log(c, "checkpoint.log");
	if (mkdir(c->opts.images_dir, 0700) && errno != EEXIST) {
		cr_fail_sys(&err, "create images dir %s", c->opts.images_dir);
		goto out;
	}
	if (c->opts.work_dir && mkdir(c->opts.work_dir, 0700) && errno != EEXIST) {
		cr_fail_sys(&err, "create work dir %s", c->opts.work_dir);
		goto out;
	}
	if (shim_setup_log(c, &err) || keep_config(c, st, &err))
		goto out;
	pr_info("checkpoint of container %s (init %d, bundle %s, runtime %s)\n", c->oci_id ? c->oci_id : "-",
		st->pid, st->bundle, st->runtime ? st->runtime : "?");
	struct cr_stats cst = {0};
	c->opts.stats = &cst;
	int rd = eng_dump(&c->opts, &err);
	c->opts.stats = NULL;
	if (rd) {
		ret = shim_report_run(c, "checkpoint", &err);
		goto done;
	}
	pr_info("checkpoint of %s finished\n", c->oci_id ? c->oci_id : "-");
	shim_stats_write(c->opts.work_dir ? c->opts.work_dir : c->opts.images_dir, &cst, true,
			 c->display_stats ? stdout : NULL);
	/* A container crshim restored is ours to mark stopped; a runtime's goes through its own hooks. */
	if (c->oci_id && !c->opts.leave_running && st->runtime && !strcmp(st->runtime, "crshim")) {
		st->status = "stopped";
		oci_reg_put(shim_run_dir(), st, &err);
	}
	ret = 0;
	goto done;
out:
	ret = bundle_fail(c, "checkpoint", &err);
done:
	oci_config_free(cf);
	oci_state_free(st);
	log_close();
	return ret;
}

int shim_oci_run(struct shim_cmd *c)
{
	switch (c->verb) {
	case VERB_CHECKPOINT:
		return run_checkpoint(c);
	case VERB_RESTORE:
		return bundle_restore(c);
	case VERB_STATE:
		return bundle_state(c);
	case VERB_KILL:
		return bundle_kill(c);
	case VERB_DELETE:
		return bundle_delete(c);
	case VERB_LIST:
		return bundle_list(c);
	default:
		break;
	}
	fprintf(stderr, "crshim: not an OCI verb\n");
	return 1;
}
