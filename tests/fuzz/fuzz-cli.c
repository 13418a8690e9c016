/* libFuzzer target: the command line parser (shim_parse in shim/cli.c).
 * Input: NUL-separated arguments; argv[0] is always "crshim". */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

#define MAX_ARGS 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char buf[4096], prog[] = "crshim";
	char *argv[MAX_ARGS + 1];
	int argc = 0;
	struct shim_cmd c;
	char msg[512];

	if (size >= sizeof(buf))
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	argv[argc++] = prog;
	for (char *p = buf; p <= buf + size && argc < MAX_ARGS; p += strlen(p) + 1)
		argv[argc++] = p;
	argv[argc] = NULL;
	if (shim_parse(argc, argv, &c, msg, sizeof(msg)) == 0) {
		/* A successful parse must be internally consistent. */
		if (c.verb == VERB_NONE && !c.help && !c.version)
			abort();
		if (c.n_inherit_fd > SHIM_MAX_LIST || c.n_external > SHIM_MAX_LIST ||
		    c.n_notes > SHIM_MAX_NOTES)
			abort();
	} else if (!memchr(msg, '\0', sizeof(msg)) || !msg[0]) {
		abort(); /* an error must come with a message */
	}
	return 0;
}
