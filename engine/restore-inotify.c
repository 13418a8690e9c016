/* Restore of inotify and fanotify instances (see evfd.h). */
#define LOG_PREFIX "restore-inotify: "
#include "evfd.h"
#include "restore.h"

int rst_inotify_open(const FileEntry *f, const FdinfoEntry *fi, char *msg, size_t len)
{
	return -1;
}
int rst_fanotify_open(const FileEntry *f, const FdinfoEntry *fi, char *msg, size_t len)
{
	return -1;
}
