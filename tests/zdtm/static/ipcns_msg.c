/* System V message queues in the tree's own IPC namespace: one with a key (0x4e535702), mode 0620, a
 * smaller msg_qbytes, and 4 messages of types 1, 2, 1, 5 (one empty, one of 4000 bytes); an empty
 * IPC_PRIVATE queue. After the restore the namespace is ours, the queues have the same ids, keys, modes and
 * msg_qbytes, and the messages come out in the same order, with the same types and contents. */
#include <sys/ipc.h>
#include <sys/msg.h>
#include "ns_world.h"

struct m {
	long type;
	char text[4096];
};

static const long types[4] = {1, 2, 1, 5};
static const size_t lens[4] = {5, 0, 4000, 11};

static void fill(struct m *m, int i)
{
	m->type = types[i];
	for (size_t k = 0; k < lens[i]; k++)
		m->text[k] = (char)('a' + (k * 7 + (size_t)i) % 26);
}

int main(int argc, char **argv)
{
	struct m m, got;
	struct msqid_ds ds;
	unsigned long host = nsw_init(argc, argv, CLONE_NEWIPC, "ipc");
	int a = msgget(0x4e535702, IPC_CREAT | 0620), b = msgget(IPC_PRIVATE, IPC_CREAT | 0600);
	if (a < 0 || b < 0 || msgctl(a, IPC_STAT, &ds))
		fail("setup: msgget");
	ds.msg_qbytes = 9000;
	if (msgctl(a, IPC_SET, &ds))
		fail("setup: IPC_SET");
	for (int i = 0; i < 4; i++) {
		fill(&m, i);
		if (msgsnd(a, &m, lens[i], IPC_NOWAIT))
			fail("setup: msgsnd %d", i);
	}
	test_daemon();
	test_waitsig();
	nsw_own("ipc", host);
	if (msgctl(a, IPC_STAT, &ds) || ds.msg_perm.__key != 0x4e535702 ||
	    (ds.msg_perm.mode & 0777) != 0620 || ds.msg_qbytes != 9000 || ds.msg_qnum != 4)
		fail("queue %d: key %x mode %o qbytes %lu qnum %lu", a, ds.msg_perm.__key,
		     ds.msg_perm.mode & 0777, (unsigned long)ds.msg_qbytes, (unsigned long)ds.msg_qnum);
	for (int i = 0; i < 4; i++) {
		fill(&m, i);
		ssize_t n = msgrcv(a, &got, sizeof(got.text), 0, IPC_NOWAIT);
		if (n != (ssize_t)lens[i] || got.type != types[i] || memcmp(got.text, m.text, lens[i]))
			fail("message %d: %zd bytes, type %ld", i, n, got.type);
	}
	if (msgctl(b, IPC_STAT, &ds) || ds.msg_qnum != 0 || ds.msg_perm.__key != IPC_PRIVATE)
		fail("private queue %d", b);
	msgctl(a, IPC_RMID, NULL);
	msgctl(b, IPC_RMID, NULL);
	return test_pass();
}
