/* The dump's pages by one copy (dump-splice.h). crshim reading the pages (process_vm_readv), checksumming
 * them and writing them (pwrite) copies each page twice; here the task runs arch_pages_code, which
 * checksums a block where it is and vmsplices it into a pipe (its pages referenced, not copied), and a
 * thread of crshim splices the pipe into the pages file (the one copy). The task gets a scratch mapping
 * with the code and the write end of a pipe (made by a remote pipe2; crshim takes the read end with
 * pidfd_getfd), both gone again in dump_splice_close. */
#define LOG_PREFIX "dump-splice: "
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "arch-pages.h"
#include "base/fault.h"
#include "base/log.h"
#include "dump.h"
#include "image/image.h"
#include "mem/dump-splice.h"
#include "task/infect.h"

#define PIPE_BYTES (1 << 20) /* asked for with F_SETPIPE_SZ (pipe-max-size is 1 MiB by default) */
/* Bytes of one splice: a part of the pipe, so that the task (woken as it frees room) refills it while the
 * rest is written, instead of both taking turns at a whole pipe. */
#define SPLICE_CHUNK (256 << 10)

struct dump_splice {
	struct infect in;
	bool started;
	const uint8_t *code;
	size_t code_len, trap;
	int wfd;	 /* the task's write end (-1: none) */
	int rfd, nullfd; /* crshim's read end; /dev/null to drain into after a write failed */
	struct arch_pages_head *tab;
	size_t room; /* records of tab */
};

/* The thread that moves what the task puts into the pipe into the file, until told to stop (evfd) and the
 * pipe is empty. After a write error it drains the pipe into /dev/null: a full pipe would block the task. */
struct splicer {
	int rfd, ofd, nullfd, evfd;
	uint64_t off, got;
	int err;
};

static int splice_some(struct splicer *p)
{
	int to = p->err ? p->nullfd : p->ofd;
	loff_t off = (loff_t)(p->off + p->got);
	ssize_t n =
	    splice(p->rfd, NULL, to, p->err ? NULL : &off, PIPE_BYTES, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
	if (n > 0 && !p->err)
		p->got += (uint64_t)n;
	if (n < 0 && errno != EAGAIN && errno != EINTR && !p->err)
		p->err = errno; /* (then /dev/null) */
	else if (n < 0 && errno != EAGAIN && errno != EINTR)
		return -1; /* not even /dev/null takes it */
	return n > 0 ? 1 : n == 0 ? -1 /* no writer: the task is gone */ : 0;
}

static void *splicer_main(void *arg)
{
	struct splicer *p = arg;
	for (;;) {
		struct pollfd f[2] = {{p->rfd, POLLIN, 0}, {p->evfd, POLLIN, 0}};
		if (poll(f, 2, -1) < 0 && errno != EINTR) {
			p->err = p->err ? p->err : errno;
			return NULL;
		}
		if ((f[0].revents & (POLLIN | POLLHUP | POLLERR)) && splice_some(p) < 0)
			return NULL;
		if (f[1].revents & POLLIN) { /* the task is done: what it put in is all in the pipe */
			while (splice_some(p) > 0)
				;
			return NULL;
		}
	}
}

size_t dump_splice_room(const struct dump_splice *s)
{
	return s->room;
}

/* Run the code over the n records in s->tab while a thread splices; *err: the splicer's, *got its bytes. */
static int run_batch(struct dump_splice *s, int ofd, uint64_t off, uint64_t *got, int *err, struct cr_err *e)
{
	struct splicer p = {s->rfd, ofd, s->nullfd, -1, off, 0, 0};
	pthread_t th;
	p.evfd = eventfd(0, EFD_CLOEXEC);
	if (p.evfd < 0)
		return cr_fail_sys(e, "eventfd");
	if ((errno = pthread_create(&th, NULL, splicer_main, &p))) {
		close(p.evfd);
		return cr_fail_sys(e, "splice thread");
	}
	size_t len = sizeof(*s->tab) + (size_t)s->tab->nr * sizeof(struct arch_pages_rec);
	int ret = infect_run_code(&s->in, s->code, s->code_len, s->trap, s->tab, len, e);
	uint64_t one = 1;
	if (write(p.evfd, &one, sizeof(one)) != sizeof(one))
		pr_warn("eventfd write: %s\n",
			strerror(errno)); /* (cannot fail: one count on a new eventfd) */
	pthread_join(th, NULL);
	close(p.evfd);
	*got = p.got;
	*err = p.err;
	return ret;
}

int dump_splice_batch(struct dump_splice *s, struct page_writer *pw, struct page_block *b, size_t nb,
		      uint64_t len, struct cr_err *e)
{
	uint64_t off, got;
	int err, ofd = pw_data_fd(pw, &off);
	struct arch_pages_rec *rec = (struct arch_pages_rec *)(s->tab + 1);
	if (ofd < 0 || nb > s->room)
		return cr_fail_errno(e, EINVAL, "splice: no pages file, or %zu blocks", nb);
	s->tab->pipe_fd = s->wfd;
	s->tab->nr = (int64_t)nb;
	for (size_t i = 0; i < nb; i++)
		rec[i] = (struct arch_pages_rec){b[i].vaddr, b[i].len, {0, 0, 0, 0}};
	struct cr_err e2 = {0};
	if (run_batch(s, ofd, off, &got, &err, &e2) || s->tab->left || s->tab->ret) {
		if (!e2.msg[0])
			cr_fail_errno(&e2, s->tab->ret < 0 ? (int)-s->tab->ret : EIO,
				      "vmsplice, %lld blocks left", (long long)s->tab->left);
		pr_warn("task %d: the pages through the task failed (%s): read by crshim from here on\n",
			s->in.pid, e2.msg);
		return 1;
	}
	if (err)
		return cr_fail_errno(e, err, "splice into the pages file");
	if (got != len)
		return cr_fail_errno(e, EIO, "splice: %llu bytes of %llu", (unsigned long long)got,
				     (unsigned long long)len);
	for (size_t i = 0; i < nb; i++)
		b[i].csum = arch_pages_csum(&rec[i], b[i].len);
	return pw_add_written(pw, len, b, nb, e);
}

/* The pipe: made by the task, its read end taken by crshim and closed in the task. 1: the task could not. */
static int make_pipe(struct dump_splice *s, struct cr_err *e)
{
	long r;
	int fds[2];
	if (infect_sys(&s->in, &r, e, __NR_pipe2, s->in.scratch, O_CLOEXEC, 0, 0, 0, 0))
		return -1;
	if (r < 0) {
		pr_info("task %d: remote pipe2: %s\n", s->in.pid, strerror((int)-r));
		return 1;
	}
	if (infect_read(&s->in, s->in.scratch, fds, sizeof(fds), e))
		return -1;
	s->wfd = fds[1];
	int pidfd = (int)syscall(SYS_pidfd_open, s->in.pid, 0);
	s->rfd = pidfd < 0 ? -1 : (int)syscall(SYS_pidfd_getfd, pidfd, fds[0], 0);
	int gerr = errno;
	if (pidfd >= 0)
		close(pidfd);
	if (infect_sys(&s->in, &r, e, __NR_close, (unsigned long)fds[0], 0, 0, 0, 0, 0))
		return -1;
	if (s->rfd < 0)
		return cr_fail_errno(e, gerr, "task %d: pidfd_getfd of its pipe", s->in.pid);
	if (fcntl(s->rfd, F_SETPIPE_SZ, PIPE_BYTES) < 0)
		pr_debug("F_SETPIPE_SZ %d: %s\n", PIPE_BYTES, strerror(errno));
	return 0;
}

static int splice_setup(struct dump_ctx *c, struct dump_splice *s, struct cr_err *e)
{
	if (infect_start(&s->in, &c->s, c->regs_resume, fault_injected(c->o, FI_NO_VDSO_SYSCALL), e))
		return -1;
	s->started = true;
	if (infect_map_scratch(&s->in, e))
		return -1;
	size_t bytes = infect_code_room(&s->in, s->code_len);
	if (bytes < sizeof(*s->tab) + sizeof(struct arch_pages_rec)) {
		pr_info("task %d: no room for remote code (no writable and executable mapping)\n", c->pid);
		return 1;
	}
	s->room = (bytes - sizeof(*s->tab)) / sizeof(struct arch_pages_rec);
	s->tab = calloc(1, sizeof(*s->tab) + s->room * sizeof(struct arch_pages_rec));
	s->nullfd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (!s->tab || s->nullfd < 0)
		return cr_fail_sys(e, "splice buffers");
	return make_pipe(s, e);
}

enum dump_copy dump_splice_mode(void)
{
	/* (read by default: on this project's 2-core VM the splice path cost more CPU and wall time at load
	 * 1.3, and behind more CPU at load 17-50: README.md's bench section, mem/README.md) */
	static const struct {
		const char *name;
		enum dump_copy how;
	} ways[] = {{"read", DUMP_COPY_READ},
		    {"behind", DUMP_COPY_BEHIND},
		    {"map", DUMP_COPY_MAP},
		    {"auto", DUMP_COPY_AUTO},
		    {"splice", DUMP_COPY_SPLICE}};
	const char *how = getenv("CRSHIM_DUMP_COPY");
	if (!how || !*how)
		return DUMP_COPY_READ;
	for (size_t i = 0; i < sizeof(ways) / sizeof(ways[0]); i++)
		if (!strcmp(how, ways[i].name))
			return ways[i].how;
	pr_warn("CRSHIM_DUMP_COPY=%s: neither read, behind, map, auto nor splice, ignored\n", how);
	return DUMP_COPY_READ;
}

int dump_splice_open(struct dump_ctx *c, struct dump_splice **sp, struct cr_err *e)
{
	struct dump_splice *s;
	*sp = NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	s->wfd = s->rfd = s->nullfd = -1;
	s->code = arch_pages_code(&s->code_len, &s->trap);
	int r = s->code ? splice_setup(c, s, e) : 1;
	if (r) {
		struct cr_err e2;
		if (dump_splice_close(s, r < 0 ? &e2 : e))
			r = -1;
		return r;
	}
	pr_info("task %d: pages checksummed in the task and spliced, %zu blocks a run\n", c->pid, s->room);
	*sp = s;
	return 0;
}

int dump_splice_close(struct dump_splice *s, struct cr_err *e)
{
	int ret = 0;
	if (!s)
		return 0;
	if (s->wfd >= 0 && s->in.s && s->in.s->attached) {
		long r;
		if (infect_sys(&s->in, &r, e, __NR_close, (unsigned long)s->wfd, 0, 0, 0, 0, 0))
			ret = -1;
		else if (r)
			ret = cr_fail_errno(e, (int)-r, "task %d: remote close of its pipe", s->in.pid);
	}
	if (s->started && infect_stop(&s->in, e))
		ret = -1;
	if (s->rfd >= 0)
		close(s->rfd);
	if (s->nullfd >= 0)
		close(s->nullfd);
	free(s->tab);
	free(s);
	return ret;
}
