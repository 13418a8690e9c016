/* crshim-hook: an OCI runtime hook (createRuntime, poststart, poststop). The runtime hands the container's
 * state JSON on stdin (runtime spec "State"); the hook registers the container (id, pid, bundle, runtime,
 * annotations) under the run-time dir so that `crshim list` and `crshim checkpoint ID` find it, and removes
 * it when the container stops. crshim-hook [--run-dir DIR]
 * createRuntime|createContainer|startContainer|poststart|prestart|poststop */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "oci.h"

#define STDIN_MAX (4 << 20)

static char *read_stdin(size_t *len, struct cr_err *err)
{
	size_t cap = 4096, off = 0;
	char *b = malloc(cap);
	while (b) {
		if (off == cap) {
			char *nb = cap >= STDIN_MAX ? NULL : realloc(b, cap * 2);
			if (!nb) {
				free(b);
				return (void)cr_fail_errno(err, EFBIG, "state on stdin: too big"), NULL;
			}
			b = nb, cap *= 2;
		}
		ssize_t n = read(0, b + off, cap - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			cr_fail_sys(err, "state on stdin: read");
			free(b);
			return NULL;
		}
		if (n == 0)
			break;
		off += (size_t)n;
	}
	if (!b)
		return (void)cr_fail_errno(err, ENOMEM, "state on stdin"), NULL;
	*len = off;
	return b;
}

/* The runtime that runs us: our parent's name (crun, runc, ...). */
static void parent_name(char *buf, size_t len)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)getppid());
	FILE *f = fopen(path, "re");
	buf[0] = '\0';
	if (f) {
		if (fgets(buf, (int)len, f))
			buf[strcspn(buf, "\n")] = '\0';
		fclose(f);
	}
}

static int run(const char *run_dir, const char *stage, struct cr_err *err)
{
	size_t len = 0;
	char *in = read_stdin(&len, err), rt[64], bundle[PATH_MAX];
	if (!in)
		return -1;
	struct oci_state *s = oci_state_parse(in, len, "state on stdin", err);
	free(in);
	if (!s)
		return -1;
	int r;
	if (stage ? !strcmp(stage, "poststop") : !strcmp(s->status, "stopped")) {
		r = oci_reg_del(run_dir, s->id, err);
	} else {
		parent_name(rt, sizeof(rt));
		s->runtime = rt[0] ? rt : NULL;
		s->created = (long long)time(NULL);
		if (s->bundle[0] != '/' && realpath(s->bundle, bundle)) /* the spec wants it absolute */
			s->bundle = bundle;
		r = oci_reg_put(run_dir, s, err);
	}
	oci_state_free(s);
	return r;
}

int main(int argc, char **argv)
{
	static const char *const stages[] = {"prestart",       "createRuntime", "createContainer",
					     "startContainer", "poststart",	"poststop"};
	const char *run_dir = getenv("CRSHIM_RUN_DIR"), *stage = NULL;
	struct cr_err err = {0};
	char buf[1200];
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--run-dir") && i + 1 < argc)
			run_dir = argv[++i];
		else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			return printf("usage: crshim-hook [--run-dir DIR] [STAGE] < state.json\n"
				      "STAGE: createRuntime|poststart (register) or poststop (remove); "
				      "without it\n"
				      "the state's status decides (stopped: remove)\n") < 0;
		else if (!stage)
			stage = argv[i];
		else
			return fprintf(stderr, "crshim-hook: unexpected argument '%s'\n", argv[i]), 1;
	}
	bool known = !stage;
	for (size_t i = 0; stage && i < sizeof(stages) / sizeof(stages[0]); i++)
		known |= !strcmp(stage, stages[i]);
	if (!known) {
		fprintf(stderr, "crshim-hook: %s '%s'; see crshim-hook --help\n",
			stage ? "unknown stage" : "no stage", stage ? stage : "");
		return 1;
	}
	if (run(run_dir && *run_dir ? run_dir : NULL, stage, &err)) {
		fprintf(stderr, "crshim-hook %s: %s\n", stage ? stage : "",
			cr_err_str(&err, buf, sizeof(buf)));
		return 1;
	}
	return 0;
}
