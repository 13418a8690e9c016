/* CRIU configuration files (`--config FILE`, /etc/criu/default.conf, $HOME/.criu/default.conf,
 * $CRIU_CONFIG_FILE, and the RPC's config_file): one option per line, its name with or without the leading
 * "--", then at most one value separated by blanks or '='; a value may be quoted with "..." (\" and
 * \\ inside);
 * '#' at the start of a token comments out the rest of the line. The options become command-line arguments
 * that go through the same parser as the real command line (shim_parse). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

void shim_args_free(struct shim_args *a)
{
	for (int i = 0; i < a->n; i++)
		free(a->v[i]);
	free(a->v);
	free(a->src);
	a->v = NULL;
	a->src = NULL;
	a->n = a->cap = 0;
}

int shim_args_add(struct shim_args *a, const char *s, const char *src)
{
	if (a->n + 2 > a->cap) {
		int cap = a->cap ? a->cap * 2 : 32;
		char **v = realloc(a->v, (size_t)cap * sizeof(*v));
		if (!v)
			return -1;
		a->v = v;
		const char **sv = realloc(a->src, (size_t)cap * sizeof(*sv));
		if (!sv)
			return -1;
		a->src = sv;
		a->cap = cap;
	}
	a->v[a->n] = strdup(s);
	if (!a->v[a->n])
		return -1;
	a->src[a->n] = src;
	a->n++;
	a->v[a->n] = NULL; /* argv style */
	return 0;
}

/* One token at *p (quoted or not) into out; *p moves past it. 0, 1 at the end of the line, -1 bad quote. */
static int token(const char **p, char *out, size_t len)
{
	const char *s = *p;
	size_t n = 0;
	while (*s == ' ' || *s == '\t' || *s == '\r')
		s++;
	if (!*s || *s == '\n' || *s == '#') {
		*p = s;
		return 1;
	}
	bool quoted = false;
	for (; *s && *s != '\n'; s++) {
		if (*s == '"') {
			quoted = !quoted;
			continue;
		}
		if (quoted && *s == '\\' && (s[1] == '"' || s[1] == '\\'))
			s++;
		else if (!quoted && (*s == ' ' || *s == '\t' || *s == '\r'))
			break;
		if (n + 1 >= len)
			return -1;
		out[n++] = *s;
	}
	if (quoted)
		return -1;
	out[n] = '\0';
	*p = s;
	return 0;
}

/* Parse one line: "name [value]" or "name=value". */
static int config_line(const char *line, int lineno, const char *path, struct shim_args *a, char *msg,
		       size_t len)
{
	char name[512], val[4096], extra[8];
	const char *p = line;
	int r = token(&p, name, sizeof(name));
	if (r == 1)
		return 0;
	if (r < 0)
		goto bad;
	char opt[600];
	snprintf(opt, sizeof(opt), "%s%s", name[0] == '-' ? "" : "--", name);
	r = token(&p, val, sizeof(val));
	if (r < 0)
		goto bad;
	if (r == 0 && token(&p, extra, sizeof(extra)) != 1) {
		snprintf(msg, len, "%s:%d: more than one value for '%s'", path, lineno, name);
		return -1;
	}
	if (shim_args_add(a, opt, path) || (r == 0 && shim_args_add(a, val, path))) {
		snprintf(msg, len, "%s: out of memory", path);
		return -1;
	}
	return 0;
bad:
	snprintf(msg, len, "%s:%d: unterminated quote or token too long", path, lineno);
	return -1;
}

/* The lines of an open file (or a buffer through fmemopen). */
static int config_stream(FILE *f, const char *path, struct shim_args *a, char *msg, size_t len)
{
	char *line = NULL;
	size_t cap = 0;
	int lineno = 0, ret = 0;
	while (getline(&line, &cap, f) > 0) {
		lineno++;
		if (config_line(line, lineno, path, a, msg, len)) {
			ret = -1;
			break;
		}
	}
	if (!ret && ferror(f)) {
		snprintf(msg, len, "config file %s: read error", path);
		ret = -1;
	}
	free(line);
	return ret;
}

int shim_config_read(const char *path, bool must_exist, struct shim_args *a, char *msg, size_t len)
{
	FILE *f = fopen(path, "re");
	if (!f) {
		if (!must_exist && errno == ENOENT)
			return 0;
		snprintf(msg, len, "config file %s: %s", path, strerror(errno));
		return -1;
	}
	int ret = config_stream(f, path, a, msg, len);
	fclose(f);
	return ret;
}

int shim_config_parse(const char *buf, size_t n, const char *name, struct shim_args *a, char *msg, size_t len)
{
	if (!n)
		return 0; /* fmemopen refuses a size of 0 */
	FILE *f = fmemopen((void *)(uintptr_t)buf, n, "r");
	if (!f) {
		snprintf(msg, len, "config %s: %s", name, strerror(errno));
		return -1;
	}
	int ret = config_stream(f, name, a, msg, len);
	fclose(f);
	return ret;
}

/* The value of --config in argv (--config F, --config=F), NULL if none; *no_default for
 * --no-default-config. Stops at "--". */
static const char *config_arg(int argc, char **argv, bool *no_default)
{
	const char *cfg = NULL;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			break;
		if (!strcmp(argv[i], "--no-default-config"))
			*no_default = true;
		else if (!strcmp(argv[i], "--config") && i + 1 < argc)
			cfg = argv[++i];
		else if (!strncmp(argv[i], "--config=", 9))
			cfg = argv[i] + 9;
	}
	return cfg;
}

/* Default configuration files first, then --config (or CRIU_CONFIG_FILE), then the command line: a later
 * option wins. */
int shim_config_expand(int argc, char **argv, const char *home, const char *env_cfg, bool defaults,
		       struct shim_args *out, char *msg, size_t len)
{
	bool no_default = !defaults;
	const char *cfg = config_arg(argc, argv, &no_default);
	char user[4096];
	if (shim_args_add(out, argc > 0 ? argv[0] : "crshim", NULL))
		goto oom;
	if (!no_default) {
		if (shim_config_read("/etc/criu/default.conf", false, out, msg, len))
			return -1;
		if (home && snprintf(user, sizeof(user), "%s/.criu/default.conf", home) < (int)sizeof(user) &&
		    shim_config_read(user, false, out, msg, len))
			return -1;
	}
	if (env_cfg && *env_cfg && shim_config_read(env_cfg, true, out, msg, len))
		return -1;
	if (cfg && shim_config_read(cfg, true, out, msg, len))
		return -1;
	for (int i = 1; i < argc; i++)
		if (shim_args_add(out, argv[i], NULL))
			goto oom;
	return 0;
oom:
	snprintf(msg, len, "out of memory");
	return -1;
}
