/* libFuzzer target: the OCI JSON inputs crshim parses (oci/): config.json (oci_config_parse), the copy kept
 * with the images (oci_json_copy, then parsed again), the OCI state (oci_state_parse, and the writer on what
 * parsed) and runc's own ROOT/ID/state.json (oci_runc_state). The hook's stdin has its own target
 * (fuzz-hook). Input: any bytes. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "oci.h"

static char top[64], runc_state[128], copy[128];

static void cleanup(void)
{
	unlink(runc_state);
	unlink(copy);
	snprintf(runc_state, sizeof(runc_state), "%s/fuzz", top);
	rmdir(runc_state);
	rmdir(top);
}

static void setup(void)
{
	snprintf(top, sizeof(top), "/tmp/crshim-fuzz-oci.XXXXXX");
	if (!mkdtemp(top))
		abort();
	snprintf(runc_state, sizeof(runc_state), "%s/fuzz", top);
	if (mkdir(runc_state, 0700))
		abort();
	snprintf(runc_state, sizeof(runc_state), "%s/fuzz/state.json", top);
	snprintf(copy, sizeof(copy), "%s/config.json", top);
	atexit(cleanup);
}

static void one_line(const struct cr_err *err)
{
	char msg[1200];
	cr_err_str(err, msg, sizeof(msg));
	if (!msg[0] || strchr(msg, '\n'))
		abort(); /* an error is one line */
}

static void config(const uint8_t *data, size_t size)
{
	struct cr_err err = {0};
	struct oci_config *c = oci_config_parse((const char *)data, size, "config.json", &err);
	if (!c)
		one_line(&err);
	if (c) {
		int f = 0;
		cr_err_clear(&err);
		if (oci_fault_from_annotations(c->annotations, c->n_annotations, &f, &err) && !err.msg[0])
			abort();
		for (size_t i = 0; i < c->n_namespaces; i++)
			if (oci_config_ns(c, c->namespaces[i].type) == NULL)
				abort();
	}
	/* The copy kept with the images must say what the original said. */
	cr_err_clear(&err);
	if (oci_json_copy((const char *)data, size, "config.json", copy, &err) == 0) {
		size_t len = 0;
		char *b = oci_read_file(copy, &len, &err);
		struct oci_config *k = b ? oci_config_parse(b, len, "copy", &err) : NULL;
		if (!b || !c != !k)
			abort(); /* the copy parses exactly when the original does */
		if (c && (k->n_namespaces != c->n_namespaces || k->n_annotations != c->n_annotations ||
			  k->n_mounts != c->n_mounts))
			abort();
		oci_config_free(k);
		free(b);
	} else {
		one_line(&err);
	}
	oci_config_free(c);
}

static void state(const uint8_t *data, size_t size)
{
	struct cr_err err = {0};
	struct oci_state *s = oci_state_parse((const char *)data, size, "state", &err);
	if (s) {
		char *js = oci_state_json(s, false, &err);
		struct oci_state *b = js ? oci_state_parse(js, strlen(js), "state2", &err) : NULL;
		if (!b || strcmp(b->id, s->id) || b->pid != s->pid || b->n_annotations != s->n_annotations)
			abort(); /* what we write, we read back */
		oci_state_free(b);
		free(js);
	} else {
		one_line(&err);
	}
	oci_state_free(s);
}

static void runc(const uint8_t *data, size_t size)
{
	struct cr_err err = {0};
	int fd = open(runc_state, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		abort();
	if (size && write(fd, data, size) != (ssize_t)size)
		abort();
	close(fd);
	struct oci_state *s = oci_runc_state(top, "fuzz", &err);
	if (s && (!s->id || s->pid <= 0))
		abort(); /* runc's state has its id and init pid */
	if (!s)
		one_line(&err);
	oci_state_free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!top[0])
		setup();
	config(data, size);
	state(data, size);
	runc(data, size);
	return 0;
}
