/* POSIX message queues of the tree's own IPC namespace (ipc-mq.img), crshim inside the namespace (setns).
 * The names come from a detached mount of the namespace's mqueue filesystem (fsopen/fsmount: no mount
 * anywhere); the messages are received (highest priority first, oldest first within one) and sent again in
 * the same order, so the queue is as it was; a restore sends them in that order. */
#define LOG_PREFIX "ns-ipc: "
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <mqueue.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/fsuid.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/log.h"
#include "ns-int.h"

static void dir_close(DIR **d)
{
	if (*d)
		closedir(*d);
}

static void mq_entry_free(IpcMqEntry *q)
{
	for (size_t i = 0; i < q->n_msgs; i++) {
		free(q->msgs[i]->data.data);
		free(q->msgs[i]);
	}
	free(q->msgs);
}

static int drain(mqd_t q, const char *name, const struct mq_attr *at, char *buf, IpcMqEntry *me,
		 struct cr_err *e);
static int refill(mqd_t q, const char *name, IpcMqEntry *me, int ret, struct cr_err *e);

/* Receive every message of q (non-blocking), then send them back in the same order. */
static int drain_refill(mqd_t q, const char *name, const struct mq_attr *at, IpcMqEntry *me, struct cr_err *e)
{
	int ret = 0;
	me->msgs = calloc((size_t)at->mq_curmsgs + 1, sizeof(void *));
	if (!me->msgs)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	char *buf = malloc((size_t)at->mq_msgsize + 1);
	if (!buf)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	ret = drain(q, name, at, buf, me, e);
	free(buf);
	return refill(q, name, me, ret, e);
}

static int drain(mqd_t q, const char *name, const struct mq_attr *at, char *buf, IpcMqEntry *me,
		 struct cr_err *e)
{
	int ret = 0;
	for (long i = 0; i < at->mq_curmsgs; i++) {
		unsigned prio;
		ssize_t n = mq_receive(q, buf, (size_t)at->mq_msgsize, &prio);
		if (n < 0) {
			ret = cr_fail_sys(e, "POSIX message queue /%s: receive message %ld", name, i);
			break;
		}
		IpcMqMsg *m = malloc(sizeof(*m));
		void *data = malloc((size_t)n + 1);
		if (!m || !data) {
			free(m), free(data);
			ret = cr_fail_errno(e, ENOMEM, "out of memory");
			break;
		}
		ipc_mq_msg__init(m);
		m->prio = prio, m->has_prio = 1;
		memcpy(data, buf, (size_t)n);
		m->data.data = data, m->data.len = (size_t)n, m->has_data = 1;
		me->msgs[me->n_msgs++] = m;
	}
	return ret;
}

static int refill(mqd_t q, const char *name, IpcMqEntry *me, int ret, struct cr_err *e)
{
	for (size_t i = 0; i < me->n_msgs; i++) /* back, also after a failure */
		if (mq_send(q, (const char *)me->msgs[i]->data.data, me->msgs[i]->data.len,
			    me->msgs[i]->prio) &&
		    !ret)
			ret = cr_fail_sys(e, "POSIX message queue /%s: send message %zu back", name, i);
	return ret;
}

static int dump_one(int dfd, const char *name, struct img_writer *w, struct cr_err *e)
{
	struct stat st;
	struct mq_attr at;
	char path[NAME_MAX + 2];
	if (fstatat(dfd, name, &st, 0))
		return cr_fail_sys(e, "POSIX message queue /%s: stat", name);
	snprintf(path, sizeof(path), "/%s", name);
	mqd_t q = mq_open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (q == (mqd_t)-1 || mq_getattr(q, &at)) {
		if (q != (mqd_t)-1)
			mq_close(q);
		return cr_fail_sys(e, "POSIX message queue %s: open", path);
	}
	IpcMqEntry me = IPC_MQ_ENTRY__INIT;
	me.name = (char *)name;
	me.mode = st.st_mode & 07777, me.has_mode = 1;
	me.uid = st.st_uid, me.has_uid = 1;
	me.gid = st.st_gid, me.has_gid = 1;
	me.maxmsg = at.mq_maxmsg, me.has_maxmsg = 1;
	me.msgsize = at.mq_msgsize, me.has_msgsize = 1;
	int ret = drain_refill(q, name, &at, &me, e) || img_write(w, &me.base, e);
	mq_close(q);
	if (!ret)
		pr_info("POSIX message queue %s: %zu messages\n", path, me.n_msgs);
	mq_entry_free(&me);
	return ret ? -1 : 0;
}

int ns_mq_dump(const struct ns_dump_args *a, size_t *n, struct cr_err *e)
{
	struct img_writer *w = NULL;
	__cleanup_close int fs = fsopen("mqueue", FSOPEN_CLOEXEC);
	if (fs < 0 || fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0))
		return cr_fail_sys(e, "the IPC namespace's mqueue filesystem (fsopen)");
	__cleanup_close int mnt = fsmount(fs, FSMOUNT_CLOEXEC, 0);
	if (mnt < 0)
		return cr_fail_sys(e, "the IPC namespace's mqueue filesystem (fsmount)");
	int dfd = openat(mnt, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	__attribute__((cleanup(dir_close))) DIR *d = dfd < 0 ? NULL : fdopendir(dfd);
	if (!d) {
		if (dfd >= 0)
			close(dfd);
		return cr_fail_sys(e, "read the mqueue filesystem");
	}
	if (img_create(a->dirfd, IMG_IPC_MQ, 0, &w, e))
		return -1;
	struct dirent *de;
	*n = 0;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (dump_one(dirfd(d), de->d_name, w, e)) {
			img_abort(w);
			return -1;
		}
		(*n)++;
	}
	return img_commit(w, e) || a->created(a->created_arg, IMG_IPC_MQ, 0, e);
}

static int make_mq(const IpcMqEntry *me, struct cr_err *e)
{
	char path[NAME_MAX + 2];
	if (!me->name || !*me->name || strchr(me->name, '/') || strlen(me->name) > NAME_MAX)
		return cr_fail_errno(e, EBADMSG, "ipc-mq.img: a queue without a valid name");
	snprintf(path, sizeof(path), "/%s", me->name);
	struct mq_attr at = {.mq_maxmsg = me->maxmsg, .mq_msgsize = me->msgsize};
	/* made with its owner's fs ids: in the IPC namespace of a user namespace only an id mapped in it may
	 * make a file of its mqueue (else EOVERFLOW); the fs capabilities come back with fsuid 0 */
	int ou = setfsuid(me->uid), og = setfsgid(me->gid);
	mqd_t q =
	    mq_open(path, O_RDWR | O_CREAT | O_EXCL | O_NONBLOCK | O_CLOEXEC, (mode_t)(me->mode & 0777), &at);
	int err = errno;
	setfsgid((gid_t)og);
	setfsuid((uid_t)ou);
	errno = err;
	if (q == (mqd_t)-1)
		return cr_fail_sys(e, "POSIX message queue %s: create (%ld messages of %ld bytes)", path,
				   (long)me->maxmsg, (long)me->msgsize);
	int ret = 0;
	for (size_t i = 0; !ret && i < me->n_msgs; i++)
		if (mq_send(q, (const char *)me->msgs[i]->data.data, me->msgs[i]->data.len,
			    me->msgs[i]->prio))
			ret = cr_fail_sys(e, "POSIX message queue %s: message %zu", path, i);
	/* an mqd_t is a file descriptor on Linux */
	if (!ret && (fchown(q, me->uid, me->gid) || fchmod(q, (mode_t)(me->mode & 07777))))
		ret = cr_fail_sys(e, "POSIX message queue %s: owner %u:%u mode %o", path, me->uid, me->gid,
				  me->mode);
	mq_close(q);
	return ret;
}

static int mq_one(ProtobufCMessage *m, void *arg, struct cr_err *e)
{
	return make_mq((const IpcMqEntry *)m, e);
}

int ns_mq_restore(int dirfd, struct cr_err *e)
{
	return img_each(dirfd, IMG_IPC_MQ, 0, mq_one, NULL, e);
}
