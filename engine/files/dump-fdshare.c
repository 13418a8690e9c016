/* Tree-wide numbers of open file descriptions (see fdshare.h). */
#define LOG_PREFIX "dump-fdshare: "
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/kcmp.h>

#include "dump.h"
#include "files/fdshare.h"
#include "base/log.h"

struct desc {
	pid_t pid;
	int fd;
	dev_t dev;
	ino_t ino;
	uint32_t id;
};

struct kept {
	int fd;	   /* crshim's copy */
	pid_t pid; /* the process whose files image has it */
	uint32_t id;
};

struct memo {
	uint64_t key;
	void *val;
	void (*fr)(void *);
};

struct dump_fdshare {
	struct desc *d; /* one fd per description, by (dev, ino, kcmp order) */
	size_t n;
	uint32_t next;
	struct kept *keep; /* crshim's copies of files in flight */
	size_t nkeep;
	bool unordered;		  /* a kcmp failed: d is searched one by one (dump_fdshare_id) */
	struct dump_loose *loose; /* epoll targets found nowhere yet */
	size_t nloose;
	const int *wfd;	     /* the files in flight being written now (dump_fdshare_writing): crshim's fds */
	const uint32_t *wid; /* ... and their ids */
	size_t nw;
	pid_t wpid;	   /* ... of this process (0: none) */
	struct memo *memo; /* dump_fdshare_memo: a hash table of capmemo slots (val NULL: free) */
	size_t nmemo, capmemo;
};

void dump_fdshare_writing(struct dump_fdshare *s, pid_t pid, const int *fds, const uint32_t *ids, size_t n)
{
	s->wpid = pid, s->wfd = fds, s->wid = ids, s->nw = n;
}

pid_t dump_fdshare_writer(const struct dump_fdshare *s)
{
	return s->wpid;
}

uint32_t dump_fdshare_find_flight(const struct dump_ctx *c, bool (*is_it)(int fd, void *arg), void *arg,
				  pid_t *pid)
{
	const struct dump_fdshare *s = c->fdsh;
	*pid = 0;
	for (size_t i = 0; i < s->nw; i++)
		if (s->wfd[i] >= 0 && is_it(s->wfd[i], arg))
			return s->wid[i];
	uint32_t id = 0;
	if (!dump_fdshare_flight(s, is_it, arg, pid, &id))
		return 0;
	if (*pid == (s->wpid ? s->wpid : c->pid))
		*pid = 0;
	return id;
}

int dump_fdshare_new(struct dump_fdshare **out, struct cr_err *e)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : cr_fail_errno(e, ENOMEM, "out of memory");
}

void dump_fdshare_free(struct dump_fdshare *s)
{
	if (s) {
		free(s->d);
		for (size_t i = 0; i < s->nkeep; i++)
			close(s->keep[i].fd);
		free(s->keep);
		free(s->loose);
		for (size_t i = 0; i < s->capmemo; i++)
			if (s->memo[i].val)
				s->memo[i].fr(s->memo[i].val);
		free(s->memo);
	}
	free(s);
}

/* The slot of key in memo (cap slots, a power of two), else the free one where it goes. (A hash table: a
 * sorted array moved up on each insertion was quadratic in the sockets of a tree that shares none.) */
static size_t memo_slot(const struct memo *memo, size_t cap, uint64_t key)
{
	uint64_t h = key * 0x9e3779b97f4a7c15ull;
	size_t i = (size_t)(h >> 32) & (cap - 1);
	while (memo[i].val && memo[i].key != key)
		i = (i + 1) & (cap - 1);
	return i;
}

void *dump_fdshare_memo(const struct dump_fdshare *s, uint64_t key)
{
	return s && s->capmemo ? s->memo[memo_slot(s->memo, s->capmemo, key)].val : NULL;
}

/* Twice the slots (at least 64), every entry moved over. */
static int memo_grow(struct dump_fdshare *s)
{
	size_t cap = s->capmemo ? s->capmemo * 2 : 64;
	struct memo *nm = calloc(cap, sizeof(*nm));
	if (!nm)
		return -1;
	for (size_t i = 0; i < s->capmemo; i++)
		if (s->memo[i].val)
			nm[memo_slot(nm, cap, s->memo[i].key)] = s->memo[i];
	free(s->memo);
	s->memo = nm, s->capmemo = cap;
	return 0;
}

int dump_fdshare_memo_put(struct dump_fdshare *s, uint64_t key, void *val, void (*fr)(void *),
			  struct cr_err *e)
{
	if (!s || dump_fdshare_memo(s, key)) { /* no memo, or one already */
		fr(val);
		return 0;
	}
	if ((s->nmemo + 1) * 2 > s->capmemo && memo_grow(s)) {
		fr(val);
		return cr_fail_errno(e, ENOMEM, "out of memory");
	}
	s->memo[memo_slot(s->memo, s->capmemo, key)] = (struct memo){key, val, fr};
	s->nmemo++;
	return 0;
}

int dump_fdshare_keep(struct dump_fdshare *s, int fd, pid_t pid, uint32_t id, struct cr_err *e)
{
	struct kept *nk = realloc(s->keep, (s->nkeep + 1) * sizeof(*nk));
	if (!nk) {
		close(fd);
		return cr_fail_errno(e, ENOMEM, "out of memory");
	}
	s->keep = nk;
	s->keep[s->nkeep++] = (struct kept){fd, pid, id};
	return 0;
}

bool dump_fdshare_flight(const struct dump_fdshare *s, bool (*is_it)(int fd, void *arg), void *arg,
			 pid_t *pid, uint32_t *id)
{
	for (size_t i = 0; i < s->nkeep; i++)
		if (is_it(s->keep[i].fd, arg)) {
			*pid = s->keep[i].pid, *id = s->keep[i].id;
			return true;
		}
	return false;
}

int dump_fdshare_loose(struct dump_fdshare *s, const struct dump_loose *l, struct cr_err *e)
{
	struct dump_loose *nl = realloc(s->loose, (s->nloose + 1) * sizeof(*nl));
	if (!nl)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	s->loose = nl;
	s->loose[s->nloose++] = *l;
	return 0;
}

const struct dump_loose *dump_fdshare_loose_list(const struct dump_fdshare *s, size_t *n)
{
	*n = s->nloose;
	return s->loose;
}

/* Where the description of task pid's fd goes among the saved ones of its inode, s->d[lo, hi) (kept in the
 * order kcmp(KCMP_FILE) gives the kernel's file pointers, a total order that holds for the whole boot): its
 * index when it is one of them (*same), else where to insert it. -1 when kcmp fails (the order is then not
 * trusted any more: every later look-up compares one by one). */
static ssize_t desc_search(const struct dump_fdshare *s, size_t lo, size_t hi, pid_t pid, int fd, bool *same)
{
	*same = false;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		long r = syscall(SYS_kcmp, pid, s->d[mid].pid, KCMP_FILE, fd, s->d[mid].fd);
		if (r == 0) {
			*same = true;
			return (ssize_t)mid;
		}
		if (r == 1) /* ours is before */
			hi = mid;
		else if (r == 2)
			lo = mid + 1;
		else
			return -1;
	}
	return (ssize_t)lo;
}

static bool desc_before(const struct desc *d, const struct stat *st)
{
	return d->dev < st->st_dev || (d->dev == st->st_dev && d->ino < st->st_ino);
}

/* One id per open file description of the tree: s->d holds one fd of each description saved so far, sorted
 * by (device, inode, kcmp order), so a look-up costs O(log n) kcmp calls even when thousands of processes
 * each opened /dev/null themselves (a linear scan was quadratic: 1,500 such processes took 13 s to dump). */
int dump_fdshare_id(struct dump_ctx *c, int fd, const struct stat *st, uint32_t *id, struct cr_err *e)
{
	struct dump_fdshare *s = c->fdsh;
	size_t lo = 0, hi = s->n, at;
	while (lo < hi) { /* the first of the inode's */
		size_t mid = lo + (hi - lo) / 2;
		if (desc_before(&s->d[mid], st))
			lo = mid + 1;
		else
			hi = mid;
	}
	for (hi = lo; hi < s->n && s->d[hi].dev == st->st_dev && s->d[hi].ino == st->st_ino; hi++)
		;
	bool same = false;
	ssize_t k = s->unordered ? -1 : desc_search(s, lo, hi, c->pid, fd, &same);
	if (k < 0) { /* kcmp failed once: one by one (the old way), appended at the end of the inode's */
		if (!s->unordered)
			pr_warn("kcmp failed (%s): descriptions compared one by one from now on\n",
				strerror(errno));
		s->unordered = true;
		for (at = lo; at < hi && !same; at++)
			same = syscall(SYS_kcmp, s->d[at].pid, c->pid, KCMP_FILE, s->d[at].fd, fd) == 0;
		at = same ? at - 1 : hi;
	} else {
		at = (size_t)k;
	}
	if (same) {
		*id = s->d[at].id;
		pr_debug("task %d fd %d: the description of task %d fd %d\n", c->pid, fd, s->d[at].pid,
			 s->d[at].fd);
		return 0;
	}
	struct desc *nd = realloc(s->d, (s->n + 1) * sizeof(*nd));
	if (!nd)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	s->d = nd;
	memmove(&s->d[at + 1], &s->d[at], (s->n - at) * sizeof(*nd));
	s->n++;
	*id = ++s->next;
	s->d[at] = (struct desc){c->pid, fd, st->st_dev, st->st_ino, *id};
	return 0;
}
