/* config.json of an OCI bundle (runtime spec v1.x) read with yajl_tree: the fields crshim uses. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "json.h"

#define F(buf, ...) (snprintf((buf), sizeof(buf), __VA_ARGS__), (buf))

static const char *const hook_names[OCI_HOOK_N] = {
    [OCI_HOOK_PRESTART] = "prestart",
    [OCI_HOOK_CREATE_RUNTIME] = "createRuntime",
    [OCI_HOOK_CREATE_CONTAINER] = "createContainer",
    [OCI_HOOK_START_CONTAINER] = "startContainer",
    [OCI_HOOK_POSTSTART] = "poststart",
    [OCI_HOOK_POSTSTOP] = "poststop",
};

const char *oci_hook_point_name(enum oci_hook_point p)
{
	return (unsigned)p < OCI_HOOK_N ? hook_names[p] : "?";
}

static int caps(struct jctx *c, yajl_val p, struct oci_process *pr)
{
	yajl_val cp;
	if (json_obj(c, p, "capabilities", "process.capabilities", &cp))
		return -1;
	if (!cp)
		return 0;
	if (json_strv(c, cp, "bounding", "process.capabilities.bounding", &pr->cap_bounding) ||
	    json_strv(c, cp, "effective", "process.capabilities.effective", &pr->cap_effective) ||
	    json_strv(c, cp, "inheritable", "process.capabilities.inheritable", &pr->cap_inheritable) ||
	    json_strv(c, cp, "permitted", "process.capabilities.permitted", &pr->cap_permitted) ||
	    json_strv(c, cp, "ambient", "process.capabilities.ambient", &pr->cap_ambient))
		return -1;
	return 0;
}

static int rlimits(struct jctx *c, yajl_val p, struct oci_process *pr)
{
	yajl_val a;
	char f[96];
	if (json_arr(c, p, "rlimits", "process.rlimits", &a))
		return -1;
	if (!a)
		return 0;
	pr->rlimits = calloc(a->u.array.len + 1, sizeof(*pr->rlimits));
	if (!pr->rlimits)
		return cr_fail_errno(c->err, ENOMEM, "%s: process.rlimits", c->file);
	pr->n_rlimits = a->u.array.len;
	for (size_t i = 0; i < a->u.array.len; i++) {
		yajl_val r = a->u.array.values[i];
		struct oci_rlimit *l = &pr->rlimits[i];
		int64_t hard = 0, soft = 0;
		if (!YAJL_IS_OBJECT(r))
			return json_fail(c, F(f, "process.rlimits[%zu]", i), "expected an object");
		if (json_str(c, r, "type", F(f, "process.rlimits[%zu].type", i), true, &l->type) ||
		    json_i64(c, r, "hard", F(f, "process.rlimits[%zu].hard", i), true, 0, INT64_MAX, &hard) ||
		    json_i64(c, r, "soft", F(f, "process.rlimits[%zu].soft", i), true, 0, INT64_MAX, &soft))
			return -1;
		l->hard = (uint64_t)hard, l->soft = (uint64_t)soft;
	}
	return 0;
}

static int process(struct jctx *c, yajl_val t, struct oci_process *pr)
{
	yajl_val p, u;
	if (json_obj(c, t, "process", "process", &p))
		return -1;
	if (!p)
		return 0;
	pr->present = true;
	if (json_bool(c, p, "terminal", "process.terminal", &pr->terminal) ||
	    json_bool(c, p, "noNewPrivileges", "process.noNewPrivileges", &pr->no_new_privileges) ||
	    json_strv(c, p, "args", "process.args", &pr->args) ||
	    json_strv(c, p, "env", "process.env", &pr->env) ||
	    json_str(c, p, "cwd", "process.cwd", true, &pr->cwd) ||
	    json_str(c, p, "apparmorProfile", "process.apparmorProfile", false, &pr->apparmor) ||
	    json_str(c, p, "selinuxLabel", "process.selinuxLabel", false, &pr->selinux_label))
		return -1;
	if (json_obj(c, p, "user", "process.user", &u))
		return -1;
	if (u && (json_u32(c, u, "uid", "process.user.uid", true, &pr->uid) ||
		  json_u32(c, u, "gid", "process.user.gid", true, &pr->gid) ||
		  json_strv(c, u, "additionalGids", "process.user.additionalGids", &pr->additional_gids)))
		return -1;
	return caps(c, p, pr) || rlimits(c, p, pr) ? -1 : 0;
}

static int mounts(struct jctx *c, yajl_val t, struct oci_config *cf)
{
	yajl_val a;
	char f[96];
	if (json_arr(c, t, "mounts", "mounts", &a))
		return -1;
	if (!a)
		return 0;
	cf->mounts = calloc(a->u.array.len + 1, sizeof(*cf->mounts));
	if (!cf->mounts)
		return cr_fail_errno(c->err, ENOMEM, "%s: mounts", c->file);
	cf->n_mounts = a->u.array.len;
	for (size_t i = 0; i < a->u.array.len; i++) {
		yajl_val m = a->u.array.values[i];
		struct oci_mount *mt = &cf->mounts[i];
		if (!YAJL_IS_OBJECT(m))
			return json_fail(c, F(f, "mounts[%zu]", i), "expected an object");
		if (json_str(c, m, "destination", F(f, "mounts[%zu].destination", i), true,
			     &mt->destination) ||
		    json_str(c, m, "source", F(f, "mounts[%zu].source", i), false, &mt->source) ||
		    json_str(c, m, "type", F(f, "mounts[%zu].type", i), false, &mt->type) ||
		    json_strv(c, m, "options", F(f, "mounts[%zu].options", i), &mt->options))
			return -1;
		if (mt->destination[0] != '/')
			return json_fail(c, F(f, "mounts[%zu].destination", i), "not an absolute path");
	}
	return 0;
}

static int hooks(struct jctx *c, yajl_val t, struct oci_config *cf)
{
	yajl_val h;
	char f[128];
	if (json_obj(c, t, "hooks", "hooks", &h))
		return -1;
	for (int k = 0; h && k < OCI_HOOK_N; k++) {
		yajl_val a;
		if (json_arr(c, h, hook_names[k], F(f, "hooks.%s", hook_names[k]), &a))
			return -1;
		if (!a)
			continue;
		struct oci_hooks *hs = &cf->hooks[k];
		hs->v = calloc(a->u.array.len + 1, sizeof(*hs->v));
		if (!hs->v)
			return cr_fail_errno(c->err, ENOMEM, "%s: hooks", c->file);
		hs->n = a->u.array.len;
		for (size_t i = 0; i < a->u.array.len; i++) {
			yajl_val e = a->u.array.values[i];
			struct oci_hook *hk = &hs->v[i];
			int64_t to = 0;
			const char *n = hook_names[k];
			if (!YAJL_IS_OBJECT(e))
				return json_fail(c, F(f, "hooks.%s[%zu]", n, i), "expected an object");
			if (json_str(c, e, "path", F(f, "hooks.%s[%zu].path", n, i), true, &hk->path) ||
			    json_strv(c, e, "args", F(f, "hooks.%s[%zu].args", n, i), &hk->args) ||
			    json_strv(c, e, "env", F(f, "hooks.%s[%zu].env", n, i), &hk->env) ||
			    json_i64(c, e, "timeout", F(f, "hooks.%s[%zu].timeout", n, i), false, 1,
				     INT32_MAX, &to))
				return -1;
			hk->timeout = (int)to;
		}
	}
	return 0;
}

static int namespaces(struct jctx *c, yajl_val l, struct oci_config *cf)
{
	static const char *const kinds[] = {"pid", "network", "mount",	"ipc",
					    "uts", "user",    "cgroup", "time"};
	yajl_val a;
	char f[96];
	if (json_arr(c, l, "namespaces", "linux.namespaces", &a))
		return -1;
	if (!a)
		return 0;
	cf->namespaces = calloc(a->u.array.len + 1, sizeof(*cf->namespaces));
	if (!cf->namespaces)
		return cr_fail_errno(c->err, ENOMEM, "%s: linux.namespaces", c->file);
	cf->n_namespaces = a->u.array.len;
	for (size_t i = 0; i < a->u.array.len; i++) {
		yajl_val n = a->u.array.values[i];
		struct oci_ns *ns = &cf->namespaces[i];
		bool known = false;
		if (!YAJL_IS_OBJECT(n))
			return json_fail(c, F(f, "linux.namespaces[%zu]", i), "expected an object");
		if (json_str(c, n, "type", F(f, "linux.namespaces[%zu].type", i), true, &ns->type) ||
		    json_str(c, n, "path", F(f, "linux.namespaces[%zu].path", i), false, &ns->path))
			return -1;
		for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
			known |= !strcmp(ns->type, kinds[k]);
		if (!known)
			return json_fail(c, F(f, "linux.namespaces[%zu].type", i), "unknown namespace type");
		for (size_t j = 0; j < i; j++)
			if (!strcmp(cf->namespaces[j].type, ns->type))
				return json_fail(c, F(f, "linux.namespaces[%zu].type", i), "given twice");
	}
	return 0;
}

static int idmaps(struct jctx *c, yajl_val l, const char *key, struct oci_idmap **out, size_t *n)
{
	yajl_val a;
	char f[96];
	if (json_arr(c, l, key, F(f, "linux.%s", key), &a))
		return -1;
	if (!a)
		return 0;
	*out = calloc(a->u.array.len + 1, sizeof(**out));
	if (!*out)
		return cr_fail_errno(c->err, ENOMEM, "%s: linux.%s", c->file, key);
	*n = a->u.array.len;
	for (size_t i = 0; i < a->u.array.len; i++) {
		yajl_val m = a->u.array.values[i];
		struct oci_idmap *im = &(*out)[i];
		if (!YAJL_IS_OBJECT(m))
			return json_fail(c, F(f, "linux.%s[%zu]", key, i), "expected an object");
		if (json_u32(c, m, "containerID", F(f, "linux.%s[%zu].containerID", key, i), true,
			     &im->container_id) ||
		    json_u32(c, m, "hostID", F(f, "linux.%s[%zu].hostID", key, i), true, &im->host_id) ||
		    json_u32(c, m, "size", F(f, "linux.%s[%zu].size", key, i), true, &im->size))
			return -1;
	}
	return 0;
}

static int resources(struct jctx *c, yajl_val l, struct oci_resources *r)
{
	yajl_val res, m, cpu, p;
	r->memory_limit = r->memory_swap = r->cpu_shares = r->cpu_quota = r->cpu_period = r->pids_limit = -1;
	if (json_obj(c, l, "resources", "linux.resources", &res))
		return -1;
	if (!res)
		return 0;
	if (json_obj(c, res, "memory", "linux.resources.memory", &m) ||
	    json_obj(c, res, "cpu", "linux.resources.cpu", &cpu) ||
	    json_obj(c, res, "pids", "linux.resources.pids", &p))
		return -1;
	if (m &&
	    (json_i64(c, m, "limit", "linux.resources.memory.limit", false, -1, INT64_MAX,
		      &r->memory_limit) ||
	     json_i64(c, m, "swap", "linux.resources.memory.swap", false, -1, INT64_MAX, &r->memory_swap)))
		return -1;
	if (cpu &&
	    (json_i64(c, cpu, "shares", "linux.resources.cpu.shares", false, 0, INT64_MAX, &r->cpu_shares) ||
	     json_i64(c, cpu, "quota", "linux.resources.cpu.quota", false, -1, INT64_MAX, &r->cpu_quota) ||
	     json_i64(c, cpu, "period", "linux.resources.cpu.period", false, 0, INT64_MAX, &r->cpu_period)))
		return -1;
	if (p && json_i64(c, p, "limit", "linux.resources.pids.limit", false, -1, INT64_MAX, &r->pids_limit))
		return -1;
	return 0;
}

static int linux_part(struct jctx *c, yajl_val t, struct oci_config *cf)
{
	yajl_val l;
	if (json_obj(c, t, "linux", "linux", &l))
		return -1;
	if (resources(c, l, &cf->resources))
		return -1;
	if (!l)
		return 0;
	return namespaces(c, l, cf) || idmaps(c, l, "uidMappings", &cf->uid_mappings, &cf->n_uid_mappings) ||
		       idmaps(c, l, "gidMappings", &cf->gid_mappings, &cf->n_gid_mappings) ||
		       json_strv(c, l, "maskedPaths", "linux.maskedPaths", &cf->masked_paths) ||
		       json_strv(c, l, "readonlyPaths", "linux.readonlyPaths", &cf->readonly_paths) ||
		       json_str(c, l, "cgroupsPath", "linux.cgroupsPath", false, &cf->cgroups_path) ||
		       json_kv(c, l, "sysctl", "linux.sysctl", &cf->sysctl, &cf->n_sysctl)
		   ? -1
		   : 0;
}

static int config_fill(struct jctx *c, yajl_val t, struct oci_config *cf)
{
	yajl_val root;
	if (json_str(c, t, "ociVersion", "ociVersion", true, &cf->oci_version) ||
	    json_str(c, t, "hostname", "hostname", false, &cf->hostname) ||
	    json_str(c, t, "domainname", "domainname", false, &cf->domainname) || process(c, t, &cf->process))
		return -1;
	if (json_obj(c, t, "root", "root", &root))
		return -1;
	if (root && (json_str(c, root, "path", "root.path", true, &cf->root_path) ||
		     json_bool(c, root, "readonly", "root.readonly", &cf->root_readonly)))
		return -1;
	return mounts(c, t, cf) || hooks(c, t, cf) ||
		       json_kv(c, t, "annotations", "annotations", &cf->annotations, &cf->n_annotations) ||
		       linux_part(c, t, cf)
		   ? -1
		   : 0;
}

struct oci_config *oci_config_parse(const char *buf, size_t len, const char *name, struct cr_err *err)
{
	struct jctx c = {name, err};
	struct oci_config *cf = calloc(1, sizeof(*cf));
	if (!cf)
		return (void)cr_fail_errno(err, ENOMEM, "%s", name), NULL;
	yajl_val t = json_parse(buf, len, name, err);
	if (!t) {
		free(cf);
		return NULL;
	}
	cf->tree_ = t;
	if (config_fill(&c, t, cf)) {
		oci_config_free(cf);
		return NULL;
	}
	return cf;
}

/* Read a whole small file (at most 16 MiB). */
static char *read_small(const char *path, size_t *len, struct cr_err *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0)
		return (void)cr_fail_sys(err, "%s", path), NULL;
	if (fstat(fd, &st) || st.st_size > (16 << 20)) {
		if (!errno)
			errno = EFBIG;
		cr_fail_sys(err, "%s", path);
		close(fd);
		return NULL;
	}
	char *b = malloc((size_t)st.st_size + 1);
	size_t off = 0;
	ssize_t n = 1;
	while (b && off < (size_t)st.st_size && (n = read(fd, b + off, (size_t)st.st_size - off)) > 0)
		off += (size_t)n;
	if (!b || n < 0) {
		cr_fail_sys(err, "read %s", path);
		free(b);
		close(fd);
		return NULL;
	}
	close(fd);
	*len = off;
	return b;
}

char *oci_read_file(const char *path, size_t *len, struct cr_err *err)
{
	return read_small(path, len, err);
}

struct oci_config *oci_config_load(const char *bundle, struct cr_err *err)
{
	char path[PATH_MAX];
	size_t len = 0;
	if (snprintf(path, sizeof(path), "%s/config.json", bundle) >= (int)sizeof(path))
		return (void)cr_fail_errno(err, ENAMETOOLONG, "bundle %s", bundle), NULL;
	char *b = read_small(path, &len, err);
	if (!b)
		return NULL;
	struct oci_config *cf = oci_config_parse(b, len, path, err);
	free(b);
	return cf;
}

static void strv_free(struct oci_strv *s)
{
	free(s->v);
}

void oci_config_free(struct oci_config *c)
{
	if (!c)
		return;
	struct oci_process *p = &c->process;
	strv_free(&p->args), strv_free(&p->env), strv_free(&p->additional_gids);
	strv_free(&p->cap_bounding), strv_free(&p->cap_effective), strv_free(&p->cap_inheritable);
	strv_free(&p->cap_permitted), strv_free(&p->cap_ambient);
	free(p->rlimits);
	for (size_t i = 0; c->mounts && i < c->n_mounts; i++)
		strv_free(&c->mounts[i].options);
	free(c->mounts);
	for (int k = 0; k < OCI_HOOK_N; k++) {
		for (size_t i = 0; c->hooks[k].v && i < c->hooks[k].n; i++)
			strv_free(&c->hooks[k].v[i].args), strv_free(&c->hooks[k].v[i].env);
		free(c->hooks[k].v);
	}
	free(c->annotations);
	free(c->namespaces);
	free(c->uid_mappings), free(c->gid_mappings);
	strv_free(&c->masked_paths), strv_free(&c->readonly_paths);
	free(c->sysctl);
	yajl_tree_free(c->tree_);
	free(c);
}

const struct oci_ns *oci_config_ns(const struct oci_config *c, const char *type)
{
	for (size_t i = 0; i < c->n_namespaces; i++)
		if (!strcmp(c->namespaces[i].type, type))
			return &c->namespaces[i];
	return NULL;
}

static const char *kv_find(const struct oci_kv *kv, size_t n, const char *key)
{
	for (size_t i = 0; kv && i < n; i++)
		if (!strcmp(kv[i].key, key))
			return kv[i].value;
	return NULL;
}

const char *oci_config_annotation(const struct oci_config *c, const char *key)
{
	return kv_find(c->annotations, c->n_annotations, key);
}

const char *oci_state_annotation(const struct oci_state *s, const char *key)
{
	return kv_find(s->annotations, s->n_annotations, key);
}
