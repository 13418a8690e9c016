/* The tree's own IPC namespace (see README.md): System V semaphore sets and message queues (ipc-sem.img,
 * ipc-msg.img: ids, keys, owners, modes, values and messages), POSIX message queues (ipc-mq.img: names,
 * owners, modes, attributes, messages) and the namespace's sysctls (ns.img). System V shared memory is
 * dumped and restored by engine/mem/{dump,restore}-ipc-shm.c, with crshim inside the namespace
 * (ns_dump_enter, ns_rst_enter). Dump reads inside the namespace (setns): /proc/sysvipc, msgrcv(MSG_COPY)
 * which leaves the messages queued, a detached mqueue mount (fsopen) for the names, and mq_receive then
 * mq_send of the same messages in the same order. Restore makes each object with its id
 * (kernel.{sem,msg}_next_id) and key. */
#define LOG_PREFIX "ns-ipc: "
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <mqueue.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/mount.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/log.h"
#include "base/proc.h"
#include "ns-int.h"

#define MSG_MAX_BYTES (1 << 20) /* larger than any kernel.msgmax crshim restores */
#ifndef MSG_COPY
#define MSG_COPY 040000
#endif

union semun_ {
	int val;
	struct semid_ds *buf;
	unsigned short *array;
};

static const char *const ipc_sysctls[] = {
    "kernel/msgmax",
    "kernel/msgmnb",
    "kernel/msgmni",
    "kernel/sem",
    "kernel/shmmax",
    "kernel/shmall",
    "kernel/shmmni",
    "kernel/shm_rmid_forced",
    "fs/mqueue/msg_max",
    "fs/mqueue/msgsize_max",
    "fs/mqueue/queues_max",
    "fs/mqueue/msg_default",
    "fs/mqueue/msgsize_default",
    /* the ids the next object of each kind gets (-1: none set), written once the objects are made
     * (making one takes it, and sets it back to -1): ns_rst_ipc_ids */
    "kernel/sem_next_id",
    "kernel/msg_next_id",
    "kernel/shm_next_id",
};
#define N_IPC_SYSCTLS (sizeof(ipc_sysctls) / sizeof(ipc_sysctls[0]))

static int write_sysctl(const char *name, const char *val, struct cr_err *e)
{
	char path[128];
	snprintf(path, sizeof(path), "/proc/sys/%s", name);
	__cleanup_close int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0 && errno == EACCES && !ns_sysctl_as_owner(NS_IPC, path, val))
		return 0; /* an IPC namespace of a user namespace: only its root may */
	if (fd < 0 || write(fd, val, strlen(val)) != (ssize_t)strlen(val))
		return cr_fail_sys(e, "sysctl %s = %s", name, val);
	return 0;
}

/* ---------------------------------------------------------------- dump */

struct ipc_dump {
	const struct ns_dump_args *a;
	struct img_writer *w;
	NsEntry *ne;
	size_t nsem, nmsg, nmq;
};

static void desc_of(IpcObjDesc *d, int id, const struct ipc_perm *p)
{
	ipc_obj_desc__init(d);
	d->id = id, d->has_id = 1;
	d->key = (int32_t)p->__key, d->has_key = 1;
	d->uid = p->uid, d->has_uid = 1;
	d->gid = p->gid, d->has_gid = 1;
	d->cuid = p->cuid, d->has_cuid = 1;
	d->cgid = p->cgid, d->has_cgid = 1;
	d->mode = p->mode & 0777, d->has_mode = 1;
}

/* The ids in a /proc/sysvipc file (second column). */
static int sysvipc_ids(const char *what, int **ids, size_t *n, struct cr_err *e)
{
	char path[64], line[512];
	snprintf(path, sizeof(path), "/proc/sysvipc/%s", what);
	FILE *f = fopen(path, "re");
	*ids = NULL, *n = 0;
	if (!f)
		return cr_fail_sys(e, "open %s", path);
	if (!fgets(line, sizeof(line), f)) { /* header */
		fclose(f);
		return 0;
	}
	while (fgets(line, sizeof(line), f)) {
		int key, id;
		if (sscanf(line, "%d %d", &key, &id) != 2)
			continue;
		int *ni = realloc(*ids, (*n + 1) * sizeof(*ni));
		if (!ni) {
			free(*ids);
			*ids = NULL, *n = 0;
			fclose(f);
			return cr_fail_errno(e, ENOMEM, "out of memory");
		}
		*ids = ni;
		(*ids)[(*n)++] = id;
	}
	fclose(f);
	return 0;
}

static int dump_sem(struct ipc_dump *d, int id, struct cr_err *e)
{
	struct semid_ds ds = {0};
	union semun_ u = {.buf = &ds};
	if (semctl(id, 0, IPC_STAT, u) < 0)
		return cr_fail_sys(e, "semaphore set %d: IPC_STAT", id);
	unsigned short *v = calloc(ds.sem_nsems + 1, sizeof(*v));
	uint32_t *vals = calloc(ds.sem_nsems + 1, sizeof(*vals));
	int ret = v && vals ? 0 : cr_fail_errno(e, ENOMEM, "out of memory");
	u.array = v;
	if (!ret && semctl(id, 0, GETALL, u) < 0)
		ret = cr_fail_sys(e, "semaphore set %d: GETALL", id);
	if (!ret) {
		for (size_t k = 0; k < ds.sem_nsems; k++)
			vals[k] = v[k];
		IpcSemEntry se = IPC_SEM_ENTRY__INIT;
		IpcObjDesc od;
		desc_of(&od, id, &ds.sem_perm);
		se.desc = &od;
		se.n_values = ds.sem_nsems, se.values = vals;
		ret = img_write(d->w, &se.base, e);
		if (!ret)
			pr_info("semaphore set %d (key 0x%x): %lu semaphores\n", id, od.key,
				(unsigned long)ds.sem_nsems);
	}
	free(v);
	free(vals);
	return ret;
}

/* Every object of /proc/sysvipc/what through fn into image k. */
static int dump_kind(struct ipc_dump *d, const char *what, enum img_kind k,
		     int (*fn)(struct ipc_dump *d, int id, struct cr_err *e), size_t *count, struct cr_err *e)
{
	int *ids = NULL;
	size_t n = 0;
	int ret = img_create(d->a->dirfd, k, 0, &d->w, e) || sysvipc_ids(what, &ids, &n, e);
	for (size_t i = 0; !ret && i < n; i++)
		ret = fn(d, ids[i], e);
	free(ids);
	if (ret)
		return -1;
	*count = n;
	struct img_writer *w = d->w;
	d->w = NULL;
	return img_commit(w, e) || d->a->created(d->a->created_arg, k, 0, e);
}

static int queue_copy(int id, size_t qnum, char *buf, IpcMsgEntry *me, struct cr_err *e);

/* The messages of queue id (qnum of them), left queued: msgrcv(MSG_COPY) reads the i-th. */
static int queue_msgs(int id, size_t qnum, IpcMsgEntry *me, struct cr_err *e)
{
	me->msgs = calloc(qnum ? qnum : 1, sizeof(void *));
	if (!me->msgs)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	char *buf = malloc(sizeof(long) + MSG_MAX_BYTES);
	int ret = buf ? queue_copy(id, qnum, buf, me, e) : cr_fail_errno(e, ENOMEM, "out of memory");
	free(buf);
	return ret;
}

static int queue_copy(int id, size_t qnum, char *buf, IpcMsgEntry *me, struct cr_err *e)
{
	for (size_t i = 0; i < qnum; i++) {
		ssize_t r = msgrcv(id, buf, MSG_MAX_BYTES, (long)i, IPC_NOWAIT | MSG_COPY | MSG_NOERROR);
		if (r < 0)
			return cr_fail_sys(e, "message queue %d: message %zu (MSG_COPY)", id, i);
		IpcMsg *m = malloc(sizeof(*m));
		if (!m)
			return cr_fail_errno(e, ENOMEM, "out of memory");
		ipc_msg__init(m);
		me->msgs[me->n_msgs++] = m;
		memcpy(&m->mtype, buf, sizeof(long)), m->has_mtype = 1;
		m->data.len = (size_t)r, m->data.data = malloc((size_t)r + 1), m->has_data = 1;
		if (!m->data.data)
			return cr_fail_errno(e, ENOMEM, "out of memory");
		memcpy(m->data.data, buf + sizeof(long), (size_t)r);
	}
	return 0;
}

static void msg_entry_free(IpcMsgEntry *me)
{
	for (size_t i = 0; i < me->n_msgs; i++) {
		free(me->msgs[i]->data.data);
		free(me->msgs[i]);
	}
	free(me->msgs);
}

static int dump_msq(struct ipc_dump *d, int id, struct cr_err *e)
{
	struct msqid_ds ds;
	if (msgctl(id, IPC_STAT, &ds) < 0)
		return cr_fail_sys(e, "message queue %d: IPC_STAT", id);
	IpcMsgEntry me = IPC_MSG_ENTRY__INIT;
	IpcObjDesc od;
	desc_of(&od, id, &ds.msg_perm);
	me.desc = &od;
	me.qbytes = ds.msg_qbytes, me.has_qbytes = 1;
	int ret = queue_msgs(id, ds.msg_qnum, &me, e) || img_write(d->w, &me.base, e);
	msg_entry_free(&me);
	if (ret)
		return -1;
	pr_info("message queue %d (key 0x%x): %lu messages\n", id, od.key, (unsigned long)ds.msg_qnum);
	return 0;
}

static int dump_sysctls(struct ipc_dump *d, struct cr_err *e)
{
	NsEntry *ne = d->ne;
	ne->ipc_sysctls = calloc(N_IPC_SYSCTLS, sizeof(void *));
	if (!ne->ipc_sysctls)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	for (size_t i = 0; i < N_IPC_SYSCTLS; i++) {
		char path[128], val[256];
		snprintf(path, sizeof(path), "/proc/sys/%s", ipc_sysctls[i]);
		if (proc_read_value(path, val, sizeof(val)))
			continue;
		NsSysctl *s = malloc(sizeof(*s));
		if (!s)
			return cr_fail_errno(e, ENOMEM, "out of memory");
		ns_sysctl__init(s);
		s->name = strdup(ipc_sysctls[i]), s->value = strdup(val);
		ne->ipc_sysctls[ne->n_ipc_sysctls++] = s;
		if (!s->name || !s->value)
			return cr_fail_errno(e, ENOMEM, "out of memory");
	}
	return 0;
}

static int read_ipc(void *arg, struct cr_err *e)
{
	struct ipc_dump *d = arg;
	return dump_sysctls(d, e) || dump_kind(d, "sem", IMG_IPC_SEM, dump_sem, &d->nsem, e) ||
	       dump_kind(d, "msg", IMG_IPC_MSG, dump_msq, &d->nmsg, e) || ns_mq_dump(d->a, &d->nmq, e);
}

int ns_ipc_dump(const struct ns_dump_args *a, NsEntry *ne, struct cr_err *e)
{
	struct ipc_dump d = {.a = a, .ne = ne};
	int ret = ns_run_in(a->pids[0], NS_IPC, read_ipc, &d, e);
	img_abort(d.w);
	if (!ret)
		pr_info("IPC namespace: %zu semaphore sets, %zu message queues, %zu POSIX message queues\n",
			d.nsem, d.nmsg, d.nmq);
	return ret;
}

void ns_ipc_dump_free(NsEntry *ne)
{
	for (size_t i = 0; i < ne->n_ipc_sysctls; i++) {
		free(ne->ipc_sysctls[i]->name);
		free(ne->ipc_sysctls[i]->value);
		free(ne->ipc_sysctls[i]);
	}
	free(ne->ipc_sysctls);
	ne->ipc_sysctls = NULL, ne->n_ipc_sysctls = 0;
}

/* ---------------------------------------------------------------- restore (crshim in the new namespace) */

static int next_id(const char *what, int id, struct cr_err *e)
{
	char name[64], v[16];
	snprintf(name, sizeof(name), "kernel/%s_next_id", what);
	snprintf(v, sizeof(v), "%d", id);
	return write_sysctl(name, v, e);
}

static int set_perm(int id, const IpcObjDesc *d, bool sem, uint64_t qbytes, bool has_q, struct cr_err *e)
{
	int r;
	if (sem) {
		struct semid_ds ds;
		union semun_ u = {.buf = &ds};
		if (semctl(id, 0, IPC_STAT, u) < 0)
			return cr_fail_sys(e, "semaphore set %d: IPC_STAT", id);
		ds.sem_perm.uid = d->uid, ds.sem_perm.gid = d->gid, ds.sem_perm.mode = d->mode;
		r = semctl(id, 0, IPC_SET, u);
	} else {
		struct msqid_ds ds;
		if (msgctl(id, IPC_STAT, &ds) < 0)
			return cr_fail_sys(e, "message queue %d: IPC_STAT", id);
		ds.msg_perm.uid = d->uid, ds.msg_perm.gid = d->gid, ds.msg_perm.mode = d->mode;
		if (has_q)
			ds.msg_qbytes = qbytes;
		r = msgctl(id, IPC_SET, &ds);
	}
	if (r < 0)
		return cr_fail_sys(e, "%s %d: owner %u:%u mode %o", sem ? "semaphore set" : "message queue",
				   id, d->uid, d->gid, d->mode);
	return 0;
}

static int make_sem(const IpcSemEntry *se, struct cr_err *e)
{
	const IpcObjDesc *d = se->desc;
	if (!d || !se->n_values)
		return cr_fail_errno(e, EBADMSG, "ipc-sem.img: a set without id or semaphores");
	if (next_id("sem", d->id, e))
		return -1;
	int id = semget(d->key, (int)se->n_values, IPC_CREAT | IPC_EXCL | 0600);
	if (id != d->id)
		return cr_fail_sys(e, "semaphore set %d (key 0x%x): semget gave %d", d->id, d->key, id);
	unsigned short *v = calloc(se->n_values, sizeof(*v));
	if (!v)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	for (size_t k = 0; k < se->n_values; k++)
		v[k] = (unsigned short)se->values[k];
	union semun_ u = {.array = v};
	int r = semctl(id, 0, SETALL, u);
	free(v);
	if (r < 0)
		return cr_fail_sys(e, "semaphore set %d: SETALL", id);
	return set_perm(id, d, true, 0, false, e);
}

static int make_msq(const IpcMsgEntry *me, struct cr_err *e)
{
	const IpcObjDesc *d = me->desc;
	char mnb[32];
	if (!d)
		return cr_fail_errno(e, EBADMSG, "ipc-msg.img: a queue without id");
	/* a new queue gets kernel.msgmnb bytes; raising it later needs CAP_SYS_RESOURCE */
	snprintf(mnb, sizeof(mnb), "%llu", (unsigned long long)me->qbytes);
	if ((me->has_qbytes && write_sysctl("kernel/msgmnb", mnb, e)) || next_id("msg", d->id, e))
		return -1;
	int id = msgget(d->key, IPC_CREAT | IPC_EXCL | 0600);
	if (id != d->id)
		return cr_fail_sys(e, "message queue %d (key 0x%x): msgget gave %d", d->id, d->key, id);
	char *buf = malloc(sizeof(long) + MSG_MAX_BYTES);
	int ret = buf ? 0 : cr_fail_errno(e, ENOMEM, "out of memory");
	for (size_t i = 0; !ret && i < me->n_msgs; i++) {
		const IpcMsg *m = me->msgs[i];
		long t = m->mtype;
		if (m->data.len > MSG_MAX_BYTES) {
			ret = cr_fail_errno(e, EBADMSG, "ipc-msg.img: queue %d: a message of %zu bytes", id,
					    m->data.len);
			break;
		}
		memcpy(buf, &t, sizeof(t));
		if (m->data.len)
			memcpy(buf + sizeof(long), m->data.data, m->data.len);
		if (msgsnd(id, buf, m->data.len, IPC_NOWAIT) < 0)
			ret =
			    cr_fail_sys(e, "message queue %d: message %zu of %zu bytes", id, i, m->data.len);
	}
	free(buf);
	if (ret)
		return -1;
	return set_perm(id, d, false, me->qbytes, me->has_qbytes, e);
}

static int sem_fn(ProtobufCMessage *m, void *arg, struct cr_err *e)
{
	return make_sem((const IpcSemEntry *)m, e);
}

static int msg_fn(ProtobufCMessage *m, void *arg, struct cr_err *e)
{
	return make_msq((const IpcMsgEntry *)m, e);
}

static bool is_next_id(const char *name)
{
	size_t l = strlen(name);
	return l > 8 && !strcmp(name + l - 8, "_next_id");
}

static bool known_sysctl(const char *name)
{
	for (size_t i = 0; i < N_IPC_SYSCTLS; i++)
		if (!strcmp(ipc_sysctls[i], name))
			return true;
	return false;
}

/* The namespace's sysctls: the mqueue limits first (the queues are made within them), all again at the
 * end (kernel.msgmnb was changed for each queue). */
static int set_sysctls(const NsEntry *ne, bool mq_only, struct cr_err *e)
{
	for (size_t i = 0; ne && i < ne->n_ipc_sysctls; i++) {
		const NsSysctl *s = ne->ipc_sysctls[i];
		if (!s->name || !s->value || !known_sysctl(s->name))
			return cr_fail_errno(e, EBADMSG, "ns.img: IPC sysctl %s is not one crshim restores",
					     s->name ? s->name : "?");
		if ((mq_only && strncmp(s->name, "fs/mqueue/", 10)) || is_next_id(s->name))
			continue;
		if (write_sysctl(s->name, s->value, e))
			return -1;
	}
	return 0;
}

int ns_ipc_restore(struct ns_rst *r, struct cr_err *e)
{
	if (set_sysctls(r->ne, true, e) || img_each(r->dirfd, IMG_IPC_SEM, 0, sem_fn, NULL, e) ||
	    img_each(r->dirfd, IMG_IPC_MSG, 0, msg_fn, NULL, e) || ns_mq_restore(r->dirfd, e) ||
	    set_sysctls(r->ne, false, e))
		return -1;
	pr_info("IPC namespace filled\n");
	return 0;
}

int ns_rst_ipc_ids(struct ns_rst *r, struct cr_err *e)
{
	if (!r || !r->ne || !(r->made & CLONE_NEWIPC) || r->join_fd[NS_IPC] >= 0)
		return 0; /* not made, or the caller's */
	for (size_t i = 0; i < r->ne->n_ipc_sysctls; i++) {
		const NsSysctl *s = r->ne->ipc_sysctls[i];
		if (!s->name || !s->value || !is_next_id(s->name) || !strcmp(s->value, "-1"))
			continue; /* none set at dump: after the objects are made it is -1 again */
		if (write_sysctl(s->name, s->value, e))
			return -1;
		pr_info("sysctl %s = %s\n", s->name, s->value);
	}
	return 0;
}
