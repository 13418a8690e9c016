/* Dump of memfds (see evfd.h). */
#define LOG_PREFIX "dump-memfd: "
#include <string.h>
#include "dump.h"
#include "evfd.h"

bool dump_memfd_is(const char *link, const struct stat *st)
{
	return !strncmp(link, "/memfd:", 7) && st->st_nlink == 0;
}
int dump_memfd_fill(const struct evfd_src *s, FileEntry *fe, struct cr_err *e)
{
	return cr_fail(e, "fd %d is a memfd (%s), not supported yet", s->fd, s->link);
}
