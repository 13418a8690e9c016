/* oci/: the OCI runtime spec's config.json and state JSON (yajl only here), the container registry of
 * crshim-hook and `crshim restore --bundle`, and the cr.* annotations. Errors: one line naming the file and
 * the field ("config.json: field 'process.args[2]': expected a string"). */
#ifndef CRSHIM_OCI_H
#define CRSHIM_OCI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "base/err.h"

struct oci_kv {
	const char *key, *value;
};

struct oci_strv {
	const char **v;
	size_t n;
};

struct oci_rlimit {
	const char *type;
	uint64_t hard, soft;
};

struct oci_mount {
	const char *destination, *source, *type; /* source, type: NULL when absent */
	struct oci_strv options;
};

struct oci_ns {
	const char *type; /* pid, network, mount, ipc, uts, user, cgroup, time */
	const char *path; /* NULL: a new one */
};

struct oci_idmap {
	uint32_t container_id, host_id, size;
};

struct oci_hook {
	const char *path;
	struct oci_strv args, env;
	int timeout; /* seconds, 0 = none */
};

enum oci_hook_point {
	OCI_HOOK_PRESTART,
	OCI_HOOK_CREATE_RUNTIME,
	OCI_HOOK_CREATE_CONTAINER,
	OCI_HOOK_START_CONTAINER,
	OCI_HOOK_POSTSTART,
	OCI_HOOK_POSTSTOP,
	OCI_HOOK_N,
};

struct oci_hooks {
	struct oci_hook *v;
	size_t n;
};

/* linux.resources: the parts crshim applies (-1: not set). */
struct oci_resources {
	int64_t memory_limit, memory_swap;
	int64_t cpu_shares, cpu_quota, cpu_period;
	int64_t pids_limit;
};

struct oci_process {
	bool present;
	bool terminal, no_new_privileges;
	struct oci_strv args, env;
	const char *cwd;
	uint32_t uid, gid;
	struct oci_strv additional_gids; /* as decimal strings of the JSON */
	struct oci_strv cap_bounding, cap_effective, cap_inheritable, cap_permitted, cap_ambient;
	struct oci_rlimit *rlimits;
	size_t n_rlimits;
	const char *apparmor, *selinux_label;
};

struct oci_config {
	const char *oci_version;
	const char *hostname, *domainname;
	struct oci_process process;
	const char *root_path; /* NULL when absent */
	bool root_readonly;
	struct oci_mount *mounts;
	size_t n_mounts;
	struct oci_hooks hooks[OCI_HOOK_N];
	struct oci_kv *annotations;
	size_t n_annotations;
	/* linux */
	struct oci_ns *namespaces;
	size_t n_namespaces;
	struct oci_idmap *uid_mappings, *gid_mappings;
	size_t n_uid_mappings, n_gid_mappings;
	struct oci_strv masked_paths, readonly_paths;
	const char *cgroups_path;
	struct oci_resources resources;
	struct oci_kv *sysctl;
	size_t n_sysctl;
	void *tree_; /* the yajl tree the strings point into */
};

/* Parse a config.json from a buffer (need not be NUL-terminated). name is used in errors ("DIR/config.json").
 * Returns a config to free with oci_config_free, or NULL with the one-line error in err. */
struct oci_config *oci_config_parse(const char *buf, size_t len, const char *name, struct cr_err *err);
/* Read and parse DIR/config.json. */
struct oci_config *oci_config_load(const char *bundle, struct cr_err *err);
void oci_config_free(struct oci_config *c);
/* A whole small file (<= 16 MiB), malloc'ed (not NUL-terminated). */
char *oci_read_file(const char *path, size_t *len, struct cr_err *err);
/* The namespace of this type in the config, NULL if the config has none. */
const struct oci_ns *oci_config_ns(const struct oci_config *c, const char *type);
const char *oci_config_annotation(const struct oci_config *c, const char *key);
const char *oci_hook_point_name(enum oci_hook_point p);

/* Reformat a JSON buffer (validated with yajl) into path, 0600. For keeping config.json with the images. */
int oci_json_copy(const char *buf, size_t len, const char *name, const char *path, struct cr_err *err);

/* OCI state (runtime spec "State") plus what the registry keeps. */
struct oci_state {
	const char *oci_version;
	const char *id;
	const char *status; /* creating, created, running, stopped */
	pid_t pid;
	const char *bundle;
	const char *runtime; /* registry: "runc", "crun", "crshim", ... (NULL: unknown) */
	const char *images;  /* registry: images dir of a crshim restore (NULL: none) */
	const char
	    *cgroups;	   /* registry: the cgroup path a crshim restore put the container in (NULL: none) */
	long long created; /* registry: time of registration (seconds) */
	struct oci_kv *annotations;
	size_t n_annotations;
	void *tree_;
};

struct oci_state *oci_state_parse(const char *buf, size_t len, const char *name, struct cr_err *err);
void oci_state_free(struct oci_state *s);
const char *oci_state_annotation(const struct oci_state *s, const char *key);
/* The state as JSON (runtime spec fields, then the registry's), malloc'ed, NUL-terminated. */
char *oci_state_json(const struct oci_state *s, bool pretty, struct cr_err *err);

/* The registry: one RUN_DIR/ID.json per container (hook or restore --bundle). run_dir NULL: OCI_RUN_DIR. */
#define OCI_RUN_DIR "/run/crshim"
/* A container id: [A-Za-z0-9][A-Za-z0-9_.-]*, at most 128 bytes (no '/', no '..'). */
int oci_id_check(const char *id, struct cr_err *err);
int oci_reg_put(const char *run_dir, const struct oci_state *s, struct cr_err *err);
/* NULL with err (errnum ENOENT when not registered). */
struct oci_state *oci_reg_get(const char *run_dir, const char *id, struct cr_err *err);
int oci_reg_del(const char *run_dir, const char *id, struct cr_err *err);
/* Calls fn for each registered container in id order; stops at fn's non-zero return. A broken entry is
 * skipped (reported through bad when not NULL). */
int oci_reg_each(const char *run_dir, int (*fn)(const struct oci_state *s, void *arg), void *arg,
		 void (*bad)(const char *id, const struct cr_err *e, void *arg), struct cr_err *err);

/* runc's own state (ROOT/ID/state.json, ROOT default /run/runc): the init pid, the bundle and the
 * annotations of its config. NULL with err (ENOENT: no such container). */
struct oci_state *oci_runc_state(const char *runc_root, const char *id, struct cr_err *err);

/* cr.fault=<point> among the annotations: *fault = its id (0 when not there). An unknown point is an error
 * naming the annotation ("annotation cr.fault=xyz: unknown fault point ..."). */
#define OCI_FAULT_ANNOTATION "cr.fault"
int oci_fault_from_annotations(const struct oci_kv *a, size_t n, int *fault, struct cr_err *err);

#endif
