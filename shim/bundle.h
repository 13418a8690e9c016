/* shim/bundle*.c: the OCI verbs. */
#ifndef SHIM_BUNDLE_H
#define SHIM_BUNDLE_H

#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include "cli.h"
#include "oci.h"

/* The registry dir: $CRSHIM_RUN_DIR or /run/crshim. */
const char *shim_run_dir(void);
/* Report a failure (one line; with the log when one is open). Returns 1. */
int bundle_fail(struct shim_cmd *c, const char *what, struct cr_err *err);
int bundle_fault(struct shim_cmd *c, const struct oci_config *cf, const struct oci_state *st,
		 struct cr_err *err);
int bundle_abs(char *out, size_t len, const char *base, const char *p);
int bundle_join_ns(struct shim_cmd *c, const struct oci_config *cf, struct cr_err *err);
void bundle_default_log(struct shim_cmd *c, const char *name);
/* Run the config's hooks of one point with the state on stdin. */
int bundle_hooks(const struct oci_config *cf, enum oci_hook_point p, const struct oci_state *st,
		 struct cr_err *err);

/* bundle-cgroup.c: linux.cgroupsPath and linux.resources (cgroup v1 memory, cpu, pids, freezer). */
#define BUNDLE_CG_N 4
struct bundle_cg {
	bool used[BUNDLE_CG_N];
	char own[BUNDLE_CG_N][256];	  /* our cgroup before */
	char made[BUNDLE_CG_N][PATH_MAX]; /* the first dir we made ("" none) */
};
/* The cgroup path of a config without linux.cgroupsPath, as runc's cgroupfs driver makes it: the container
 * id below the caller's own cgroup (that of the memory hierarchy, else pids, else /). */
int bundle_cg_default(const char *id, char *out, size_t len);
/* Make the config's cgroups, write its resources, put crshim in them (its children are born there). */
int bundle_cg_enter(const struct oci_config *cf, struct bundle_cg *cg, struct cr_err *err);
/* The engine's cgroup options for the config: the images' cgroups go to linux.cgroupsPath (--cgroup-root,
 * root[0] holds it); without one the tree stays in crshim's cgroups (--manage-cgroups=ignore). Options given
 * on the command line win. */
void bundle_cg_engine(const struct oci_config *cf, struct cr_opts *o, const char *root[1]);
/* crshim back to its own cgroups. */
void bundle_cg_leave(struct bundle_cg *cg);
/* Remove the cgroups bundle_cg_enter made. */
void bundle_cg_remove(const char *cgroups_path, struct bundle_cg *cg);
/* delete: remove the container's cgroup (the leaf only; errors ignored). */
void bundle_cg_remove_leaf(const char *cgroups_path);

int bundle_restore(struct shim_cmd *c);
int bundle_state(struct shim_cmd *c);
int bundle_kill(struct shim_cmd *c);
int bundle_delete(struct shim_cmd *c);
int bundle_list(struct shim_cmd *c);

#endif
