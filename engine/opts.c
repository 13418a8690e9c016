/* Per-run options (no globals). */
#include <string.h>
#include "crshim.h"

void eng_opts_init(struct cr_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->imgdir_fd = -1;
	o->verbosity = 2;
	o->ghost_limit = 1ull << 20;
}
