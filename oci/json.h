/* oci/ internal: typed access to a yajl tree with one-line errors naming the file and the field. */
#ifndef CRSHIM_OCI_JSON_H
#define CRSHIM_OCI_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <yajl/yajl_gen.h>
#include <yajl/yajl_tree.h>
#include "oci.h"

struct jctx {
	const char *file;
	struct cr_err *err;
};

/* Parse buf (any bytes) into a tree that must be an object. NULL with "NAME: invalid JSON: ...". */
yajl_val json_parse(const char *buf, size_t len, const char *name, struct cr_err *err);
int json_fail(struct jctx *c, const char *field, const char *what);
yajl_val json_get(yajl_val obj, const char *key);
/* Each getter: the member key of obj (field = its path for errors). Absent: 0 and the output untouched
 * unless required (then an error). Wrong type: an error. */
int json_str(struct jctx *c, yajl_val obj, const char *key, const char *field, bool required,
	     const char **out);
int json_bool(struct jctx *c, yajl_val obj, const char *key, const char *field, bool *out);
int json_i64(struct jctx *c, yajl_val obj, const char *key, const char *field, bool required, int64_t min,
	     int64_t max, int64_t *out);
int json_u32(struct jctx *c, yajl_val obj, const char *key, const char *field, bool required, uint32_t *out);
int json_strv(struct jctx *c, yajl_val obj, const char *key, const char *field, struct oci_strv *out);
/* An object of strings (annotations, sysctl). */
int json_kv(struct jctx *c, yajl_val obj, const char *key, const char *field, struct oci_kv **out, size_t *n);
/* The member as an object (absent: *out NULL), or an array (absent: *out NULL). */
int json_obj(struct jctx *c, yajl_val obj, const char *key, const char *field, yajl_val *out);
int json_arr(struct jctx *c, yajl_val obj, const char *key, const char *field, yajl_val *out);

/* yajl_gen helpers: a string, a key/value pair. */
void gen_str(yajl_gen g, const char *s);
void gen_kstr(yajl_gen g, const char *k, const char *v);
void gen_kint(yajl_gen g, const char *k, long long v);
/* Write a whole tree. */
void gen_tree(yajl_gen g, yajl_val v);

#endif
