/* libFuzzer target: the OCI JSON parsers of oci/ (config.json, state JSON, and the writer on what parsed).
 * Input: any bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "oci.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cr_err err = {0};
	struct oci_config *c = oci_config_parse((const char *)data, size, "config.json", &err);
	if (!c && (!err.msg[0] || strchr(err.msg, '\n')))
		abort(); /* an error is one line */
	if (c) {
		int f = 0;
		cr_err_clear(&err);
		if (oci_fault_from_annotations(c->annotations, c->n_annotations, &f, &err) && !err.msg[0])
			abort();
		for (size_t i = 0; i < c->n_namespaces; i++)
			if (oci_config_ns(c, c->namespaces[i].type) == NULL)
				abort();
	}
	oci_config_free(c);
	cr_err_clear(&err);
	struct oci_state *s = oci_state_parse((const char *)data, size, "state", &err);
	if (s) {
		char *js = oci_state_json(s, false, &err);
		struct oci_state *b = js ? oci_state_parse(js, strlen(js), "state2", &err) : NULL;
		if (!b || strcmp(b->id, s->id) || b->pid != s->pid || b->n_annotations != s->n_annotations)
			abort(); /* what we write, we read back */
		oci_state_free(b);
		free(js);
	}
	oci_state_free(s);
	return 0;
}
