/* The lock of the network namespaces a restore makes (netns-lock.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "files/fdshare.h"
#include "net/netns-lock.h"
#include "net/sk-inet.h"

/* The locks made: crshim's fd of each namespace (its own, the namespace may outlive ns_rst_done) and the
 * lock's name. One restore at a time in a process. */
struct made_lock {
	int fd;
	char *lock;
};
static struct made_lock *made;
static size_t n_made;

struct lock_how {
	struct cr_opts o; /* network_lock: the method */
	bool must;	  /* given: a failure fails the restore */
	const struct rst_task *ts;
	size_t n;
};

/* Does the tree hold an inet or packet socket of network namespace net (its inode at dump): one its restore
 * makes there, which the lock keeps from traffic until its process runs? (A socket's own namespace, else its
 * holder's: older images. In flight in a unix socket's queue too: those are in the files of a task.) */
static bool has_sockets(const struct rst_task *ts, size_t n, uint64_t net)
{
	for (size_t k = 0; k < n; k++)
		for (size_t i = 0; i < ts[k].nr_files; i++) {
			const FileEntry *f = ts[k].files[i];
			bool sk = f->kind == FILE_KIND__FILE_INETSK || f->kind == FILE_KIND__FILE_PACKETSK ||
				  (f->kind == FILE_KIND__FILE_INHERIT && f->inet_sk);
			uint64_t at = sk ? rst_sk_netns(f) : 0;
			if (sk && (at ? at : ns_rst_task_net_ino(ts[0].ns, ts[k].pid)) == net)
				return true;
		}
	return false;
}

static int lock_one(int nsfd, uint64_t ino, void *arg, struct cr_err *e)
{
	const struct lock_how *h = arg;
	struct cr_err e2 = {0};
	char *lock = NULL;
	if (!has_sockets(h->ts, h->n, ino)) {
		pr_info("net:[%llu] holds no inet or packet socket of the tree: not locked\n",
			(unsigned long long)ino);
		return 0;
	}
	/* crshim (this thread) is in the namespace */
	if (netns_lock(&h->o, gettid(), &lock, h->must ? e : &e2)) {
		if (h->must)
			return -1;
		pr_warn("a network namespace the restore made is not locked: %s\n", e2.msg);
		return 0;
	}
	if (!lock)
		return 0;
	struct made_lock *m = realloc(made, (n_made + 1) * sizeof(*m));
	int fd = m ? fcntl(nsfd, F_DUPFD_CLOEXEC, 3) : -1;
	if (m)
		made = m;
	if (fd < 0) {
		int err = m ? errno : ENOMEM;
		netns_unlock(lock, -1, &e2);
		free(lock);
		return cr_fail_errno(e, err, "keep the network lock's namespace");
	}
	made[n_made++] = (struct made_lock){.fd = fd, .lock = lock};
	return 0;
}

int rst_netns_lock_made(const struct cr_opts *o, const struct rst_task *ts, size_t n, struct cr_err *e)
{
	struct lock_how h = {.o = *o, .must = o->network_lock != NULL, .ts = ts, .n = n};
	const char *dumped = ts->inv ? ts->inv->netns_lock : NULL;
	if (!o->network_lock && dumped)
		h.o.network_lock = !strncmp(dumped, "ipt:", 4) ? "iptables" : "nftables";
	if (h.o.network_lock && !strcmp(h.o.network_lock, "skip"))
		return 0;
	if (ns_rst_net_made_each(ts->ns, lock_one, &h, e)) {
		rst_netns_unlock_made();
		return -1;
	}
	if (n_made)
		pr_info("%zu network namespaces made by the restore locked until the tree resumes\n", n_made);
	return 0;
}

void rst_netns_unlock_made(void)
{
	for (size_t i = 0; i < n_made; i++) {
		struct cr_err e = {0};
		if (netns_unlock(made[i].lock, made[i].fd, &e))
			pr_warn("network unlock of a namespace the restore made: %s\n", e.msg);
		free(made[i].lock);
		close(made[i].fd);
	}
	free(made);
	made = NULL, n_made = 0;
}
