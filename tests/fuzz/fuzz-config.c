/* libFuzzer target: CRIU configuration files (shim_config_parse in shim/config.c), and what they turn into:
 * the options go through the command-line option parser (shim_parse_options), as `crshim --config FILE` does.
 * Input: the text of a config file. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

static void one_line_msg(const char *msg, size_t len)
{
	if (!memchr(msg, '\0', len) || !msg[0] || strchr(msg, '\n'))
		abort(); /* an error is one line */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct shim_args a = {0};
	struct shim_cmd c;
	char msg[512] = "";

	if (shim_args_add(&a, "crshim", "fuzz"))
		return 0;
	if (shim_config_parse((const char *)data, size, "fuzz.conf", &a, msg, sizeof(msg))) {
		one_line_msg(msg, sizeof(msg));
		shim_args_free(&a);
		return 0;
	}
	if (a.v[a.n] != NULL)
		abort(); /* argv style */
	for (int i = 1; i < a.n; i++)
		if (!a.v[i] || !a.src[i] || strcmp(a.src[i], "fuzz.conf"))
			abort(); /* every argument from the file says so */
	msg[0] = '\0';
	if (shim_parse_options(a.n, a.v, &c, msg, sizeof(msg)))
		one_line_msg(msg, sizeof(msg));
	shim_args_free(&a);
	return 0;
}
