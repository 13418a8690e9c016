/* Unix sockets are charged to the memory cgroup of their tree, not to crshim's: the kernel charges a socket's
 * objects (sock, inode, file: about 2.4 KiB) to the memory cgroup of the process that makes it, for good. The
 * test goes into a v1 memory cgroup of its own (memcg_test.h: zdtm-skmem-PID below its cgroup there, or
 * zdtm-skmem-nsINO in mode ns, in the hierarchy it mounts in its mount namespace) and makes 200 stream
 * socketpairs, a listener and 50 connections to it, accepted: memory.kmem.usage_in_bytes grows by D (about
 * 1.2 MB). After restore, closing them all gives back at least half of D to that cgroup. Before: nothing (the
 * restore made them in crshim, outside the cgroup, which was charged instead).
 * SKMEM_TIGHT (sk_unix_memcg_tight): the cgroup's memory.limit_in_bytes is set 4 MiB above its usage once the
 * sockets are made: crshim, which would be charged there too for what it allocates in the window (and be
 * the OOM killer's pick), must stay out of it (ns/cgroup-restore.c ns_cg_room_for_crshim: 16 MiB): closing
 * the sockets gives back less than half of D. Before: crshim entered it all the same. */
#include "memcg_test.h"
#include "sk_unix.h"

#ifndef SKMEM_TIGHT
#define SKMEM_TIGHT 0
#endif
enum { NPAIR = 200, NCONN = 50, FD0 = 100, LS = 99 };

static long kmem(void)
{
	return memcg_val("memory.kmem.usage_in_bytes");
}

static void close_all(void)
{
	for (int fd = LS; fd < FD0 + 2 * NPAIR + 2 * NCONN; fd++)
		close(fd);
}

int main(int argc, char **argv)
{
	struct sockaddr_un a;
	test_init(argc, argv);
	memcg_setup("zdtm-skmem");
	long k0 = kmem();
	for (int i = 0; i < NPAIR; i++)
		sk_pair(SOCK_STREAM, FD0 + 2 * i, FD0 + 2 * i + 1);
	char name[64];
	snprintf(name, sizeof(name), "@zdtm_skmem-%d", getpid()); /* (runs side by side do not meet) */
	socklen_t al = sk_bound(LS, SOCK_STREAM, name, NCONN, &a);
	for (int i = 0; i < NCONN; i++) {
		int c = FD0 + 2 * NPAIR + 2 * i;
		sk_connect_to(c, SOCK_STREAM, &a, al);
		sk_place_new(accept(LS, NULL, NULL), c + 1);
	}
	long d = kmem() - k0;
	if (k0 < 0 || d < 300000) {
		close_all();
		memcg_cleanup();
		test_skip("no kernel memory accounting of sockets seen (%ld bytes for %d sockets)", d,
			  2 * NPAIR + 2 * NCONN + 1);
	}
	test_msg("%d sockets: %ld bytes of kmem in %s\n", 2 * NPAIR + 2 * NCONN + 1, d, memcg_top);
	if (SKMEM_TIGHT)
		memcg_put("memory.limit_in_bytes", memcg_val("memory.usage_in_bytes") + (4L << 20));
	test_daemon();
	test_waitsig();

	long k2 = kmem(), k3 = k2;
	close_all();
	for (int i = 0; i < 50 && k2 - k3 < d / 2; i++) { /* (inodes are freed after an RCU grace period) */
		usleep(100000);
		k3 = kmem();
	}
	memcg_cleanup();
	if (SKMEM_TIGHT && k2 >= 0 && k2 - k3 >= d / 2)
		fail("closing the restored sockets gave back %ld bytes of kernel memory to the test's memory "
		     "cgroup (%ld at setup): crshim made them in it, though its limit left less than 16 MiB",
		     k2 - k3, d);
	else if (!SKMEM_TIGHT && (k2 < 0 || k2 - k3 < d / 2))
		fail(
		    "closing the restored sockets gave back %ld bytes of kernel memory to the test's memory "
		    "cgroup, want at least %ld (half of what they took at setup): they are charged elsewhere",
		    k2 - k3, d / 2);
	return test_pass();
}
