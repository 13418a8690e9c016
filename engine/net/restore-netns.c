/* Network namespace of a restored tree (see dump-netns.c): images of a tree that lived in a network
 * namespace of its own (netns.img) are refused with one line, before anything is made. */
#define LOG_PREFIX "restore-netns: "
#include <errno.h>

#include "restore.h"

int rst_netns_check(int dirfd, struct cr_err *e)
{
	ProtobufCMessage *m;
	if (img_read_one(dirfd, IMG_NETNS, 0, &m, e)) {
		if (e->errnum != ENOENT)
			return -1;
		cr_err_clear(e);
		return 0;
	}
	const NetnsEntry *ne = (const NetnsEntry *)m;
	unsigned long long ino = ne->ino;
	int pid = ne->pid;
	protobuf_c_message_free_unpacked(m, NULL);
	return cr_fail(e,
		       "not supported yet: task %d lived in a network namespace of its own (net:[%llu]), "
		       "which a restore cannot make again",
		       pid, ino);
}
