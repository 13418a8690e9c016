/* Typed access to yajl trees, and yajl_gen helpers (the only JSON code of crshim is here, on yajl). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_parse.h>
#include "json.h"

/* Nesting limit: yajl's tree is built and freed recursively, a deep document would exhaust the stack. A first
 * pass with yajl's callback parser counts the depth. */
#define JSON_MAX_DEPTH 64

static int depth_in(void *ctx)
{
	int *d = ctx;
	return ++*d <= JSON_MAX_DEPTH;
}

static int depth_out(void *ctx)
{
	int *d = ctx;
	--*d;
	return 1;
}

static const yajl_callbacks depth_cb = {
    .yajl_start_map = depth_in,
    .yajl_end_map = depth_out,
    .yajl_start_array = depth_in,
    .yajl_end_array = depth_out,
};

static bool too_deep(const char *s, size_t len)
{
	int depth = 0;
	yajl_handle h = yajl_alloc(&depth_cb, NULL, &depth);
	if (!h)
		return false;
	yajl_status st = yajl_parse(h, (const unsigned char *)s, len);
	if (st == yajl_status_ok)
		st = yajl_complete_parse(h);
	yajl_free(h);
	return st == yajl_status_client_canceled;
}

yajl_val json_parse(const char *buf, size_t len, const char *name, struct cr_err *err)
{
	char ebuf[256] = "";
	char *s = malloc(len + 1);
	if (!s)
		return (void)cr_fail_errno(err, ENOMEM, "%s: read", name), NULL;
	memcpy(s, buf, len);
	s[len] = '\0';
	size_t nul = strlen(s);
	if (nul != len) {
		free(s);
		return (void)cr_fail_errno(err, EINVAL, "%s: invalid JSON: NUL byte at offset %zu", name,
					   nul),
		       NULL;
	}
	if (too_deep(s, len)) {
		free(s);
		return (void)cr_fail_errno(err, EINVAL, "%s: invalid JSON: nested deeper than %d", name,
					   JSON_MAX_DEPTH),
		       NULL;
	}
	yajl_val t = yajl_tree_parse(s, ebuf, sizeof(ebuf));
	free(s);
	if (!t) {
		/* yajl's message spans lines (the text and a caret): keep its first line */
		ebuf[strcspn(ebuf, "\n")] = '\0';
		return (void)cr_fail_errno(err, EINVAL, "%s: invalid JSON: %s", name, ebuf[0] ? ebuf : "?"),
		       NULL;
	}
	if (!YAJL_IS_OBJECT(t)) {
		yajl_tree_free(t);
		return (void)cr_fail_errno(err, EINVAL, "%s: invalid JSON: not an object", name), NULL;
	}
	return t;
}

int json_fail(struct jctx *c, const char *field, const char *what)
{
	return cr_fail_errno(c->err, EINVAL, "%s: field '%s': %s", c->file, field, what);
}

yajl_val json_get(yajl_val obj, const char *key)
{
	if (!YAJL_IS_OBJECT(obj))
		return NULL;
	yajl_val found = NULL;
	for (size_t i = 0; i < obj->u.object.len; i++)
		if (!strcmp(obj->u.object.keys[i], key))
			found = obj->u.object.values[i]; /* the last one wins, as in most parsers */
	return found;
}

/* absent or null: 1 (an error if required), present: 0 */
static int member(struct jctx *c, yajl_val obj, const char *key, const char *field, bool required,
		  yajl_val *v)
{
	*v = json_get(obj, key);
	if (*v && !YAJL_IS_NULL(*v))
		return 0;
	if (required)
		return json_fail(c, field, "required, missing");
	return 1;
}

int json_str(struct jctx *c, yajl_val obj, const char *key, const char *field, bool required,
	     const char **out)
{
	yajl_val v;
	int r = member(c, obj, key, field, required, &v);
	if (r)
		return r < 0 ? -1 : 0;
	if (!YAJL_IS_STRING(v))
		return json_fail(c, field, "expected a string");
	*out = YAJL_GET_STRING(v);
	return 0;
}

int json_bool(struct jctx *c, yajl_val obj, const char *key, const char *field, bool *out)
{
	yajl_val v;
	if (member(c, obj, key, field, false, &v))
		return 0;
	if (!YAJL_IS_TRUE(v) && !YAJL_IS_FALSE(v))
		return json_fail(c, field, "expected true or false");
	*out = YAJL_IS_TRUE(v);
	return 0;
}

int json_i64(struct jctx *c, yajl_val obj, const char *key, const char *field, bool required, int64_t min,
	     int64_t max, int64_t *out)
{
	yajl_val v;
	int r = member(c, obj, key, field, required, &v);
	if (r)
		return r < 0 ? -1 : 0;
	if (!YAJL_IS_INTEGER(v))
		return json_fail(c, field, "expected an integer");
	long long x = YAJL_GET_INTEGER(v);
	if (x < min || x > max) {
		char what[96];
		snprintf(what, sizeof(what), "%lld out of range [%lld, %lld]", x, (long long)min,
			 (long long)max);
		return json_fail(c, field, what);
	}
	*out = x;
	return 0;
}

int json_u32(struct jctx *c, yajl_val obj, const char *key, const char *field, bool required, uint32_t *out)
{
	int64_t x = -1;
	if (json_i64(c, obj, key, field, required, 0, UINT32_MAX, &x))
		return -1;
	if (x >= 0)
		*out = (uint32_t)x;
	return 0;
}

int json_obj(struct jctx *c, yajl_val obj, const char *key, const char *field, yajl_val *out)
{
	yajl_val v;
	*out = NULL;
	if (member(c, obj, key, field, false, &v))
		return 0;
	if (!YAJL_IS_OBJECT(v))
		return json_fail(c, field, "expected an object");
	*out = v;
	return 0;
}

int json_arr(struct jctx *c, yajl_val obj, const char *key, const char *field, yajl_val *out)
{
	yajl_val v;
	*out = NULL;
	if (member(c, obj, key, field, false, &v))
		return 0;
	if (!YAJL_IS_ARRAY(v))
		return json_fail(c, field, "expected an array");
	*out = v;
	return 0;
}

int json_strv(struct jctx *c, yajl_val obj, const char *key, const char *field, struct oci_strv *out)
{
	yajl_val a;
	if (json_arr(c, obj, key, field, &a))
		return -1;
	if (!a)
		return 0;
	size_t n = a->u.array.len;
	const char **v = calloc(n + 1, sizeof(*v));
	if (!v)
		return cr_fail_errno(c->err, ENOMEM, "%s: field '%s'", c->file, field);
	for (size_t i = 0; i < n; i++) {
		yajl_val s = a->u.array.values[i];
		if (YAJL_IS_STRING(s)) {
			v[i] = YAJL_GET_STRING(s);
		} else if (YAJL_IS_INTEGER(s) && !strcmp(key, "additionalGids")) {
			v[i] = YAJL_GET_NUMBER(s); /* its text */
		} else {
			char f[256];
			snprintf(f, sizeof(f), "%s[%zu]", field, i);
			free(v);
			return json_fail(c, f, "expected a string");
		}
	}
	free(out->v);
	out->v = v;
	out->n = n;
	return 0;
}

int json_kv(struct jctx *c, yajl_val obj, const char *key, const char *field, struct oci_kv **out, size_t *n)
{
	yajl_val o;
	if (json_obj(c, obj, key, field, &o))
		return -1;
	if (!o)
		return 0;
	struct oci_kv *kv = calloc(o->u.object.len + 1, sizeof(*kv));
	if (!kv)
		return cr_fail_errno(c->err, ENOMEM, "%s: field '%s'", c->file, field);
	for (size_t i = 0; i < o->u.object.len; i++) {
		yajl_val s = o->u.object.values[i];
		if (!YAJL_IS_STRING(s)) {
			char f[256];
			snprintf(f, sizeof(f), "%s.%s", field, o->u.object.keys[i]);
			free(kv);
			return json_fail(c, f, "expected a string");
		}
		kv[i].key = o->u.object.keys[i];
		kv[i].value = YAJL_GET_STRING(s);
	}
	free(*out);
	*out = kv;
	*n = o->u.object.len;
	return 0;
}

void gen_str(yajl_gen g, const char *s)
{
	yajl_gen_string(g, (const unsigned char *)s, strlen(s));
}

void gen_kstr(yajl_gen g, const char *k, const char *v)
{
	gen_str(g, k);
	gen_str(g, v);
}

void gen_kint(yajl_gen g, const char *k, long long v)
{
	gen_str(g, k);
	yajl_gen_integer(g, v);
}

void gen_tree(yajl_gen g, yajl_val v)
{
	if (YAJL_IS_OBJECT(v)) {
		yajl_gen_map_open(g);
		for (size_t i = 0; i < v->u.object.len; i++) {
			gen_str(g, v->u.object.keys[i]);
			gen_tree(g, v->u.object.values[i]);
		}
		yajl_gen_map_close(g);
	} else if (YAJL_IS_ARRAY(v)) {
		yajl_gen_array_open(g);
		for (size_t i = 0; i < v->u.array.len; i++)
			gen_tree(g, v->u.array.values[i]);
		yajl_gen_array_close(g);
	} else if (YAJL_IS_STRING(v)) {
		gen_str(g, YAJL_GET_STRING(v));
	} else if (YAJL_IS_NUMBER(v)) {
		const char *t = YAJL_GET_NUMBER(v);
		yajl_gen_number(g, t, strlen(t));
	} else if (YAJL_IS_TRUE(v) || YAJL_IS_FALSE(v)) {
		yajl_gen_bool(g, YAJL_IS_TRUE(v));
	} else {
		yajl_gen_null(g);
	}
}
