/* Restore of epoll instances (see evfd.h). */
#define LOG_PREFIX "restore-epoll: "
#include "evfd.h"
#include "restore.h"

int rst_epoll_create(const FileEntry *f, const FdinfoEntry *fi, char *msg, size_t len)
{
	return -1;
}
int rst_epoll_fill(struct rst_task *t, int lo, const FileEntry *f, const FdinfoEntry *fi, char *msg, size_t len)
{
	return -1;
}
int rst_epoll_tree(struct rst_task *ts, size_t n, struct cr_err *e)
{
	return 0;
}
