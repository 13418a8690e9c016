/* Tree-wide numbers of open file descriptions (see fdshare.h). */
#define LOG_PREFIX "dump-fdshare: "
#include <errno.h>
#include <stdlib.h>
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

struct dump_fdshare {
	struct desc *d;
	size_t n;
	uint32_t next;
	struct kept *keep; /* crshim's copies of files in flight */
	size_t nkeep;
	struct dump_loose *loose; /* epoll targets found nowhere yet */
	size_t nloose;
	const int *wfd;	     /* the files in flight being written now (dump_fdshare_writing): crshim's fds */
	const uint32_t *wid; /* ... and their ids */
	size_t nw;
	pid_t wpid; /* ... of this process (0: none) */
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
	}
	free(s);
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

int dump_fdshare_id(struct dump_ctx *c, int fd, const struct stat *st, uint32_t *id, struct cr_err *e)
{
	struct dump_fdshare *s = c->fdsh;
	for (size_t i = 0; i < s->n; i++) {
		const struct desc *d = &s->d[i];
		if (d->pid == c->pid || d->dev != st->st_dev || d->ino != st->st_ino)
			continue;
		if (syscall(SYS_kcmp, d->pid, c->pid, KCMP_FILE, d->fd, fd) == 0) {
			*id = d->id;
			pr_debug("task %d fd %d: the description of task %d fd %d\n", c->pid, fd, d->pid,
				 d->fd);
			return 0;
		}
	}
	struct desc *nd = realloc(s->d, (s->n + 1) * sizeof(*nd));
	if (!nd)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	s->d = nd;
	*id = ++s->next;
	s->d[s->n++] = (struct desc){c->pid, fd, st->st_dev, st->st_ino, *id};
	return 0;
}
