/* Dump of inotify and fanotify instances (see evfd.h). */
#define LOG_PREFIX "dump-inotify: "
#include "dump.h"
#include "evfd.h"

int dump_inotify_fill(const struct evfd_src *s, FileEntry *fe, struct cr_err *e)
{
	return cr_fail(e, "fd %d is an inotify instance (%s), not supported yet", s->fd, s->link);
}
int dump_fanotify_fill(const struct evfd_src *s, FileEntry *fe, struct cr_err *e)
{
	return cr_fail(e, "fd %d is a fanotify instance (%s), not supported yet", s->fd, s->link);
}
