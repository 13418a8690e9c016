/* shim/bundle*.c: the OCI verbs. */
#ifndef SHIM_BUNDLE_H
#define SHIM_BUNDLE_H

#include <stdarg.h>
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

int bundle_restore(struct shim_cmd *c);
int bundle_state(struct shim_cmd *c);
int bundle_kill(struct shim_cmd *c);
int bundle_delete(struct shim_cmd *c);
int bundle_list(struct shim_cmd *c);

#endif
