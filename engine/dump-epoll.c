/* Dump of epoll instances (see evfd.h). */
#define LOG_PREFIX "dump-epoll: "
#include "dump.h"
#include "evfd.h"

int dump_epoll_fill(struct dump_ctx *c, const struct evfd_src *s, FileEntry *fe, struct cr_err *e)
{
	return cr_fail(e, "fd %d is an epoll instance (%s), not supported yet", s->fd, s->link);
}
