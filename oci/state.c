/* OCI state JSON (runtime spec "State"), the registry of containers (RUN_DIR/ID.json), runc's state.json,
 * the cr.fault annotation. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "json.h"
#include "base/fault.h"

struct oci_state *oci_state_parse(const char *buf, size_t len, const char *name, struct cr_err *err)
{
	struct jctx c = {name, err};
	struct oci_state *s = calloc(1, sizeof(*s));
	int64_t pid = 0, created = 0;
	if (!s)
		return (void)cr_fail_errno(err, ENOMEM, "%s", name), NULL;
	yajl_val t = json_parse(buf, len, name, err);
	if (!t) {
		free(s);
		return NULL;
	}
	s->tree_ = t;
	if (json_str(&c, t, "ociVersion", "ociVersion", true, &s->oci_version) ||
	    json_str(&c, t, "id", "id", true, &s->id) ||
	    json_str(&c, t, "status", "status", true, &s->status) ||
	    json_i64(&c, t, "pid", "pid", false, 0, INT32_MAX, &pid) ||
	    json_str(&c, t, "bundle", "bundle", true, &s->bundle) ||
	    json_str(&c, t, "runtime", "runtime", false, &s->runtime) ||
	    json_str(&c, t, "images", "images", false, &s->images) ||
	    json_str(&c, t, "cgroups", "cgroups", false, &s->cgroups) ||
	    /* the registry's seconds; crun's and runc's `state` give an RFC 3339 string: not kept */
	    (!YAJL_IS_STRING(json_get(t, "created")) &&
	     json_i64(&c, t, "created", "created", false, 0, INT64_MAX, &created)) ||
	    json_kv(&c, t, "annotations", "annotations", &s->annotations, &s->n_annotations)) {
		oci_state_free(s);
		return NULL;
	}
	s->pid = (pid_t)pid;
	s->created = created;
	return s;
}

void oci_state_free(struct oci_state *s)
{
	if (!s)
		return;
	free(s->annotations);
	if (s->tree_)
		yajl_tree_free(s->tree_);
	free(s);
}

static char *gen_finish(yajl_gen g, struct cr_err *err)
{
	const unsigned char *out;
	size_t len;
	char *r = NULL;
	if (yajl_gen_get_buf(g, &out, &len) == yajl_gen_status_ok && (r = malloc(len + 1))) {
		memcpy(r, out, len);
		r[len] = '\0';
	} else {
		cr_fail_errno(err, ENOMEM, "JSON output");
	}
	yajl_gen_free(g);
	return r;
}

char *oci_state_json(const struct oci_state *s, bool pretty, struct cr_err *err)
{
	yajl_gen g = yajl_gen_alloc(NULL);
	if (!g)
		return (void)cr_fail_errno(err, ENOMEM, "JSON output"), NULL;
	yajl_gen_config(g, yajl_gen_beautify, pretty ? 1 : 0);
	yajl_gen_map_open(g);
	gen_kstr(g, "ociVersion", s->oci_version ? s->oci_version : "1.0.2");
	gen_kstr(g, "id", s->id);
	gen_kstr(g, "status", s->status ? s->status : "running");
	if (s->pid > 0)
		gen_kint(g, "pid", s->pid);
	gen_kstr(g, "bundle", s->bundle ? s->bundle : "");
	if (s->n_annotations) {
		gen_str(g, "annotations");
		yajl_gen_map_open(g);
		for (size_t i = 0; i < s->n_annotations; i++)
			gen_kstr(g, s->annotations[i].key, s->annotations[i].value);
		yajl_gen_map_close(g);
	}
	if (s->runtime)
		gen_kstr(g, "runtime", s->runtime);
	if (s->images)
		gen_kstr(g, "images", s->images);
	if (s->cgroups)
		gen_kstr(g, "cgroups", s->cgroups);
	if (s->created)
		gen_kint(g, "created", s->created);
	yajl_gen_map_close(g);
	return gen_finish(g, err);
}

static int write_all(const char *path, const char *data, size_t len, struct cr_err *err)
{
	char tmp[PATH_MAX];
	if (snprintf(tmp, sizeof(tmp), "%s.tmp%d", path, (int)getpid()) >= (int)sizeof(tmp))
		return cr_fail_errno(err, ENAMETOOLONG, "%s", path);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return cr_fail_sys(err, "create %s", tmp);
	size_t off = 0;
	while (off < len) {
		ssize_t n = write(fd, data + off, len - off);
		if (n <= 0) {
			cr_fail_sys(err, "write %s", tmp);
			close(fd);
			unlink(tmp);
			return -1;
		}
		off += (size_t)n;
	}
	if (close(fd) || rename(tmp, path)) {
		cr_fail_sys(err, "write %s", path);
		unlink(tmp);
		return -1;
	}
	return 0;
}

int oci_json_copy(const char *buf, size_t len, const char *name, const char *path, struct cr_err *err)
{
	yajl_val t = json_parse(buf, len, name, err);
	if (!t)
		return -1;
	yajl_gen g = yajl_gen_alloc(NULL);
	if (!g) {
		yajl_tree_free(t);
		return cr_fail_errno(err, ENOMEM, "JSON output");
	}
	yajl_gen_config(g, yajl_gen_beautify, 1);
	gen_tree(g, t);
	yajl_tree_free(t);
	char *out = gen_finish(g, err);
	if (!out)
		return -1;
	int r = write_all(path, out, strlen(out), err);
	free(out);
	return r;
}

int oci_id_check(const char *id, struct cr_err *err)
{
	size_t n = id ? strlen(id) : 0;
	if (!n || n > 128)
		return cr_fail_errno(err, EINVAL, "container id '%.64s': empty or longer than 128",
				     id ? id : "");
	for (size_t i = 0; i < n; i++) {
		char ch = id[i];
		bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
			  (i && (ch == '_' || ch == '.' || ch == '-'));
		if (!ok)
			return cr_fail_errno(err, EINVAL, "container id '%.64s': only [A-Za-z0-9_.-] allowed",
					     id);
	}
	return 0;
}

static int reg_path(char *buf, size_t len, const char *run_dir, const char *id, struct cr_err *err)
{
	if (oci_id_check(id, err))
		return -1;
	if (snprintf(buf, len, "%s/%s.json", run_dir ? run_dir : OCI_RUN_DIR, id) >= (int)len)
		return cr_fail_errno(err, ENAMETOOLONG, "registry entry %s", id);
	return 0;
}

int oci_reg_put(const char *run_dir, const struct oci_state *s, struct cr_err *err)
{
	char path[PATH_MAX];
	const char *dir = run_dir ? run_dir : OCI_RUN_DIR;
	if (reg_path(path, sizeof(path), dir, s->id, err))
		return -1;
	if (mkdir(dir, 0700) && errno != EEXIST)
		return cr_fail_sys(err, "create %s", dir);
	char *js = oci_state_json(s, true, err);
	if (!js)
		return -1;
	int r = write_all(path, js, strlen(js), err);
	free(js);
	return r;
}

struct oci_state *oci_reg_get(const char *run_dir, const char *id, struct cr_err *err)
{
	char path[PATH_MAX];
	size_t len = 0;
	if (reg_path(path, sizeof(path), run_dir, id, err))
		return NULL;
	char *b = oci_read_file(path, &len, err);
	if (!b) {
		if (err->errnum == ENOENT)
			cr_fail_errno(err, ENOENT, "container %s is not registered (%s)", id, path);
		return NULL;
	}
	struct oci_state *s = oci_state_parse(b, len, path, err);
	free(b);
	if (s && strcmp(s->id, id)) {
		cr_fail_errno(err, EINVAL, "%s: field 'id': '%.64s', not %s", path, s->id, id);
		oci_state_free(s);
		return NULL;
	}
	return s;
}

int oci_reg_del(const char *run_dir, const char *id, struct cr_err *err)
{
	char path[PATH_MAX];
	if (reg_path(path, sizeof(path), run_dir, id, err))
		return -1;
	if (unlink(path) && errno != ENOENT)
		return cr_fail_sys(err, "remove %s", path);
	return 0;
}

static int json_entry(const struct dirent *d)
{
	size_t n = strlen(d->d_name);
	return n > 5 && !strcmp(d->d_name + n - 5, ".json");
}

int oci_reg_each(const char *run_dir, int (*fn)(const struct oci_state *s, void *arg), void *arg,
		 void (*bad)(const char *id, const struct cr_err *e, void *arg), struct cr_err *err)
{
	struct dirent **ents = NULL;
	const char *dir = run_dir ? run_dir : OCI_RUN_DIR;
	int n = scandir(dir, &ents, json_entry, alphasort), r = 0;
	if (n < 0)
		return errno == ENOENT ? 0 : cr_fail_sys(err, "read %s", dir);
	for (int i = 0; i < n; i++) {
		char id[256];
		struct cr_err e = {0};
		snprintf(id, sizeof(id), "%.*s", (int)strlen(ents[i]->d_name) - 5, ents[i]->d_name);
		struct oci_state *s = r ? NULL : oci_reg_get(dir, id, &e);
		if (s)
			r = fn(s, arg);
		else if (!r && bad)
			bad(id, &e, arg);
		oci_state_free(s);
		free(ents[i]);
	}
	free(ents);
	return r;
}

/* runc 1.x keeps ROOT/ID/state.json: init_process_pid, config.labels ("bundle=DIR" and one "KEY=VALUE" per
 * annotation of the container's config). */
static int runc_labels(struct jctx *c, yajl_val t, struct oci_state *s)
{
	yajl_val cfg, labels;
	if (json_obj(c, t, "config", "config", &cfg) || json_arr(c, cfg, "labels", "config.labels", &labels))
		return -1;
	size_t n = labels ? labels->u.array.len : 0;
	s->annotations = calloc(n + 1, sizeof(*s->annotations));
	if (!s->annotations)
		return cr_fail_errno(c->err, ENOMEM, "%s", c->file);
	for (size_t i = 0; i < n; i++) {
		yajl_val l = labels->u.array.values[i];
		if (!YAJL_IS_STRING(l))
			return json_fail(c, "config.labels", "expected strings");
		char *kv = YAJL_GET_STRING(l), *eq = strchr(kv, '=');
		if (!eq)
			continue;
		*eq = '\0'; /* the tree is ours: split in place */
		if (!strcmp(kv, "bundle")) {
			s->bundle = eq + 1;
			continue;
		}
		s->annotations[s->n_annotations].key = kv;
		s->annotations[s->n_annotations++].value = eq + 1;
	}
	return 0;
}

struct oci_state *oci_runc_state(const char *runc_root, const char *id, struct cr_err *err)
{
	char path[PATH_MAX];
	size_t len = 0;
	int64_t pid = 0;
	if (oci_id_check(id, err))
		return NULL;
	snprintf(path, sizeof(path), "%s/%s/state.json", runc_root ? runc_root : "/run/runc", id);
	char *b = oci_read_file(path, &len, err);
	if (!b)
		return NULL;
	struct jctx c = {path, err};
	struct oci_state *s = calloc(1, sizeof(*s));
	yajl_val t = s ? json_parse(b, len, path, err) : NULL;
	free(b);
	if (!t) {
		free(s);
		return NULL;
	}
	s->tree_ = t;
	if (json_str(&c, t, "id", "id", true, &s->id) ||
	    json_i64(&c, t, "init_process_pid", "init_process_pid", true, 1, INT32_MAX, &pid) ||
	    runc_labels(&c, t, s)) {
		oci_state_free(s);
		return NULL;
	}
	s->pid = (pid_t)pid;
	s->status = "running";
	s->runtime = "runc";
	return s;
}

int oci_fault_from_annotations(const struct oci_kv *a, size_t n, int *fault, struct cr_err *err)
{
	*fault = 0;
	for (size_t i = 0; a && i < n; i++) {
		if (strcmp(a[i].key, OCI_FAULT_ANNOTATION))
			continue;
		if (fault_parse(a[i].value, fault, err))
			return cr_wrap(err, "annotation %s=%.64s", OCI_FAULT_ANNOTATION, a[i].value);
	}
	return 0;
}
