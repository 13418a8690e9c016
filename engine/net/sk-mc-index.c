/* The interface an IPv4 socket (or an IPv6 one, for its IPv4 traffic) sends multicast on, as IP_MULTICAST_IF
 * set it by index (struct ip_mreqn with imr_ifindex): getsockopt(IP_MULTICAST_IF) reads back only the address
 * (inet_sock.mc_addr), sock_diag and /proc tell neither. A BPF iterator over the files of one process
 * (bpf_iter_task_file, limited to it by its pidfd; field offsets from the kernel's BTF) writes, for each of
 * its inet sockets whose inet_sock.mc_index is not 0, the fd and that index: one pass over a process's fds
 * gives the indexes of all its sockets, bound or not, of any network namespace. Without BTF or BPF (a kernel
 * without them, no CAP_BPF and CAP_PERFMON, the verifier refuses the program) the indexes are not known:
 * sk_mc_read says why and the caller decides. */
#define LOG_PREFIX "sk-mcast: "
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <linux/bpf.h>
#include <linux/btf.h>

#include "base/cleanup.h"
#include "base/err.h"
#include "base/log.h"
#include "net/sk-inet.h"

#define VMLINUX_BTF "/sys/kernel/btf/vmlinux"

struct btf_view {
	const uint8_t *types, *strs;
	uint32_t types_len, strs_len;
	const struct btf_type **by_id; /* [1..n] */
	uint32_t n;
};

static const char *btf_name(const struct btf_view *b, uint32_t off)
{
	return off < b->strs_len ? (const char *)b->strs + off : ""; /* strs ends with a NUL (btf_index) */
}

/* The bytes that follow a type's struct btf_type, by kind. */
static size_t btf_extra(const struct btf_type *t)
{
	uint32_t vlen = BTF_INFO_VLEN(t->info);
	switch (BTF_INFO_KIND(t->info)) {
	case BTF_KIND_INT:
	case BTF_KIND_VAR:
	case BTF_KIND_DECL_TAG:
		return 4;
	case BTF_KIND_ARRAY:
		return sizeof(struct btf_array);
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		return vlen * sizeof(struct btf_member);
	case BTF_KIND_ENUM:
		return vlen * sizeof(struct btf_enum);
	case BTF_KIND_FUNC_PROTO:
		return vlen * sizeof(struct btf_param);
	case BTF_KIND_DATASEC:
		return vlen * sizeof(struct btf_var_secinfo);
	case 19: /* BTF_KIND_ENUM64 (an enum constant, not a macro), of struct btf_enum64 */
		return vlen * 12;
	default:
		return 0;
	}
}

/* Index the types of BTF data d (len bytes): 0, or -1 when malformed (a type running past the types, the
 * strings not ending with a NUL). */
static int btf_index(struct btf_view *b, const uint8_t *d, size_t len)
{
	const struct btf_header *h = (const struct btf_header *)d;
	if (len < sizeof(*h) || h->magic != BTF_MAGIC || h->hdr_len > len ||
	    (size_t)h->hdr_len + h->type_off + h->type_len > len ||
	    (size_t)h->hdr_len + h->str_off + h->str_len > len || !h->str_len)
		return -1;
	b->types = d + h->hdr_len + h->type_off, b->types_len = h->type_len;
	b->strs = d + h->hdr_len + h->str_off, b->strs_len = h->str_len;
	if (b->strs[b->strs_len - 1])
		return -1;
	size_t cap = 0;
	for (size_t off = 0; off < b->types_len;) {
		const struct btf_type *t = (const struct btf_type *)(b->types + off);
		if (off + sizeof(*t) > b->types_len || off + sizeof(*t) + btf_extra(t) > b->types_len)
			return -1;
		if (b->n + 2 > cap) {
			cap = cap ? cap * 2 : 4096;
			// NOLINTNEXTLINE(bugprone-sizeof-expression): an array of pointers
			const struct btf_type **nb = realloc(b->by_id, cap * sizeof(*nb));
			if (!nb)
				return -1;
			b->by_id = nb;
		}
		b->by_id[++b->n] = t;
		off += sizeof(*t) + btf_extra(t);
	}
	return b->n ? 0 : -1;
}

static int btf_find(const struct btf_view *b, int kind, const char *name)
{
	for (uint32_t i = 1; i <= b->n; i++)
		if ((int)BTF_INFO_KIND(b->by_id[i]->info) == kind &&
		    !strcmp(btf_name(b, b->by_id[i]->name_off), name))
			return (int)i;
	return -1;
}

/* The byte offset of member name of struct or union id (also inside its anonymous ones), -1: none. */
static long btf_member_in(const struct btf_view *b, uint32_t id, const char *name, int depth)
{
	if (!id || id > b->n || depth > 8)
		return -1;
	const struct btf_type *t = b->by_id[id];
	int k = (int)BTF_INFO_KIND(t->info);
	if (k != BTF_KIND_STRUCT && k != BTF_KIND_UNION)
		return -1;
	const struct btf_member *m = (const struct btf_member *)(t + 1);
	for (uint32_t i = 0; i < BTF_INFO_VLEN(t->info); i++) {
		uint32_t bits = BTF_INFO_KFLAG(t->info) ? BTF_MEMBER_BIT_OFFSET(m[i].offset) : m[i].offset;
		if (m[i].name_off && !strcmp(btf_name(b, m[i].name_off), name))
			return bits % 8 ? -1 : (long)(bits / 8);
		if (!m[i].name_off) {
			long in = btf_member_in(b, m[i].type, name, depth + 1);
			if (in >= 0)
				return (long)(bits / 8) + in;
		}
	}
	return -1;
}

static long btf_member(const struct btf_view *b, const char *sname, const char *name)
{
	int id = btf_find(b, BTF_KIND_STRUCT, sname);
	return id < 0 ? -1 : btf_member_in(b, (uint32_t)id, name, 0);
}

static long sys_bpf(int cmd, union bpf_attr *a)
{
	return syscall(SYS_bpf, cmd, a, sizeof(*a));
}

/* The offsets the program reads at, and the BTF id of the iterator's function. */
struct mcx_offs {
	long meta, fd, file;	   /* struct bpf_iter__task_file, the iterator's context */
	long seq;		   /* struct bpf_iter_meta */
	long sk, family, mc_index; /* struct socket, struct sock (sock_common), struct inet_sock */
	int iter_id;
};

/* The whole of file fd into *d (*n bytes): 0, or -1 with errno. */
static int read_all(int fd, uint8_t **d, size_t *n)
{
	size_t cap = 0;
	*d = NULL, *n = 0;
	for (;;) {
		if (*n == cap) {
			uint8_t *nd = realloc(*d, cap = cap ? cap * 2 : 1 << 22);
			if (!nd)
				return errno = ENOMEM, -1;
			*d = nd;
		}
		ssize_t got = read(fd, *d + *n, cap - *n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return (int)got;
		*n += (size_t)got;
	}
}

static int mcx_offsets(struct mcx_offs *o, char *why, size_t len)
{
	struct btf_view b = {0};
	uint8_t *d = NULL;
	size_t n = 0;
	int r = -1;
	__cleanup_close int fd = open(VMLINUX_BTF, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || read_all(fd, &d, &n)) {
		snprintf(why, len, "%s: %s", VMLINUX_BTF, strerror(errno));
		goto out;
	}
	if (btf_index(&b, d, n)) {
		snprintf(why, len, "%s: not BTF data", VMLINUX_BTF);
		goto out;
	}
	o->meta = btf_member(&b, "bpf_iter__task_file", "meta");
	o->fd = btf_member(&b, "bpf_iter__task_file", "fd");
	o->file = btf_member(&b, "bpf_iter__task_file", "file");
	o->seq = btf_member(&b, "bpf_iter_meta", "seq");
	o->sk = btf_member(&b, "socket", "sk");
	long common = btf_member(&b, "sock", "__sk_common"),
	     fam = btf_member(&b, "sock_common", "skc_family");
	o->family = common < 0 || fam < 0 ? -1 : common + fam;
	o->mc_index = btf_member(&b, "inet_sock", "mc_index");
	o->iter_id = btf_find(&b, BTF_KIND_FUNC, "bpf_iter_task_file");
	const long *off[] = {&o->meta, &o->fd, &o->file, &o->seq, &o->sk, &o->family, &o->mc_index};
	bool ok = o->iter_id > 0;
	for (size_t i = 0; i < sizeof(off) / sizeof(off[0]); i++)
		ok = ok && *off[i] >= 0 && *off[i] <= INT16_MAX; /* an instruction's offset: 16 bits */
	if (!ok)
		snprintf(why, len, "the kernel's BTF lacks bpf_iter_task_file or a field the program reads");
	else
		r = 0;
out:
	free(b.by_id);
	free(d);
	return r;
}

#define INSN(c, d, s, o, i)                                                                                  \
	((struct bpf_insn){.code = (c), .dst_reg = (d), .src_reg = (s), .off = (o), .imm = (i)})
#define LDX(sz, d, s, o) INSN(BPF_LDX | BPF_MEM | (sz), d, s, (int16_t)(o), 0)
#define STX(sz, d, s, o) INSN(BPF_STX | BPF_MEM | (sz), d, s, (int16_t)(o), 0)
#define JEQ0(r, o) INSN(BPF_JMP | BPF_JEQ | BPF_K, r, 0, o, 0)
#define MOVX(d, s) INSN(BPF_ALU64 | BPF_MOV | BPF_X, d, s, 0, 0)
#define MOVK(d, k) INSN(BPF_ALU64 | BPF_MOV | BPF_K, d, 0, 0, k)
#define ADDK(d, k) INSN(BPF_ALU64 | BPF_ADD | BPF_K, d, 0, 0, k)
#define CALL(f) INSN(BPF_JMP | BPF_CALL, 0, 0, 0, f)

/* For each file of the process that is an IPv4 or IPv6 socket whose inet_sock.mc_index is not 0: the
 * record {fd, index} (two u32) written to the iterator's output. The jumps go to the last two instructions.
 */
static int mcx_load(const struct mcx_offs *o, char *why, size_t len)
{
	struct bpf_insn p[] = {
	    MOVX(6, 1),			   /* r6 = ctx */
	    LDX(BPF_DW, 1, 6, o->file),	   /* r1 = ctx->file */
	    JEQ0(1, 24),		   /* to out */
	    CALL(BPF_FUNC_sock_from_file), /* r0 = its struct socket, NULL: not a socket */
	    JEQ0(0, 22),
	    LDX(BPF_DW, 3, 0, o->sk), /* r3 = socket->sk */
	    JEQ0(3, 20),
	    LDX(BPF_H, 2, 3, o->family),
	    INSN(BPF_JMP | BPF_JEQ | BPF_K, 2, 0, 1, AF_INET), /* an inet_sock: IPv4 or IPv6 */
	    INSN(BPF_JMP | BPF_JNE | BPF_K, 2, 0, 17, AF_INET6),
	    ADDK(3, (int32_t)o->mc_index), /* beyond struct sock: bpf_probe_read_kernel */
	    MOVX(1, 10),
	    ADDK(1, -8),
	    MOVK(2, 4),
	    CALL(BPF_FUNC_probe_read_kernel), /* *(u32 *)(fp - 8) = inet_sock.mc_index */
	    INSN(BPF_JMP | BPF_JNE | BPF_K, 0, 0, 11, 0),
	    LDX(BPF_W, 2, 10, -8),
	    JEQ0(2, 9),
	    STX(BPF_W, 10, 2, -12),
	    LDX(BPF_W, 2, 6, o->fd),
	    STX(BPF_W, 10, 2, -16), /* the record {fd, index} at fp - 16 */
	    LDX(BPF_DW, 1, 6, o->meta),
	    LDX(BPF_DW, 1, 1, o->seq),
	    MOVX(2, 10),
	    ADDK(2, -16),
	    MOVK(3, 8),
	    CALL(BPF_FUNC_seq_write),
	    MOVK(0, 0), /* out */
	    INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
	};
	static char vlog[1 << 16];
	union bpf_attr a;
	memset(&a, 0, sizeof(a));
	vlog[0] = '\0';
	a.prog_type = BPF_PROG_TYPE_TRACING;
	a.expected_attach_type = BPF_TRACE_ITER;
	a.attach_btf_id = (uint32_t)o->iter_id;
	a.insns = (uint64_t)(uintptr_t)p;
	a.insn_cnt = sizeof(p) / sizeof(p[0]);
	/* the kernel lets only a GPL-compatible program read its structures (BTF) and call
	 * bpf_probe_read_kernel; this one is crshim's own */
	a.license = (uint64_t)(uintptr_t) "Dual BSD/GPL";
	long fd = sys_bpf(BPF_PROG_LOAD, &a); /* without a log: one too small fails a load (ENOSPC) */
	if (fd >= 0)
		return (int)fd;
	int err = errno;
	if (err != EPERM) { /* the verifier refused it: once more, for its log */
		a.log_buf = (uint64_t)(uintptr_t)vlog, a.log_size = sizeof(vlog), a.log_level = 1;
		fd = sys_bpf(BPF_PROG_LOAD, &a);
		if (fd >= 0) /* (it should not) */
			return (int)fd;
	}
	/* the verifier's last line is its statistics: the one before says why */
	vlog[sizeof(vlog) - 1] = '\0';
	size_t l = strlen(vlog);
	while (l && vlog[l - 1] == '\n')
		vlog[--l] = '\0';
	char *last = strrchr(vlog, '\n');
	if (last)
		*last = '\0';
	last = strrchr(vlog, '\n');
	snprintf(why, len, "load the BPF iterator: %s%s%s%.160s", strerror(err),
		 err == EPERM ? " (needs CAP_BPF and CAP_PERFMON)" : "", vlog[0] ? ": " : "",
		 last ? last + 1 : vlog);
	return -1;
}

/* The program, loaded once per crshim process (-1: not yet; -2: cannot be, why in mcx_why). */
static int mcx_prog = -1;
static char mcx_why[256];

static int mcx_setup(void)
{
	struct mcx_offs o;
	if (mcx_prog == -1 && (mcx_offsets(&o, mcx_why, sizeof(mcx_why)) ||
			       (mcx_prog = mcx_load(&o, mcx_why, sizeof(mcx_why))) < 0))
		mcx_prog = -2;
	if (mcx_prog >= 0)
		return 0;
	pr_info("the multicast interface set by index (IP_MULTICAST_IF, ip_mreqn) cannot be read: %s\n",
		mcx_why);
	return -1;
}

static int cmp_fd(const void *a, const void *b)
{
	const struct sk_mc_index *x = a, *y = b;
	return (x->fd > y->fd) - (x->fd < y->fd);
}

/* Run the iterator over the files of the process pidfd is: the records into t. */
static int mcx_run(int pidfd, struct sk_mc_table *t, struct cr_err *e)
{
	union bpf_iter_link_info li;
	memset(&li, 0, sizeof(li));
	li.task.pid_fd = (uint32_t)pidfd;
	union bpf_attr a;
	memset(&a, 0, sizeof(a));
	a.link_create.prog_fd = (uint32_t)mcx_prog;
	a.link_create.attach_type = BPF_TRACE_ITER;
	a.link_create.iter_info = (uint64_t)(uintptr_t)&li;
	a.link_create.iter_info_len = sizeof(li);
	__cleanup_close int link = (int)sys_bpf(BPF_LINK_CREATE, &a);
	if (link < 0)
		return cr_fail_sys(e, "BPF iterator of the process's files: link");
	memset(&a, 0, sizeof(a));
	a.iter_create.link_fd = (uint32_t)link;
	__cleanup_close int it = (int)sys_bpf(BPF_ITER_CREATE, &a);
	if (it < 0)
		return cr_fail_sys(e, "BPF iterator of the process's files");
	uint8_t *d;
	size_t n;
	if (read_all(it, &d, &n)) {
		free(d);
		return cr_fail_sys(e, "BPF iterator of the process's files: read");
	}
	t->n = n / sizeof(*t->v);
	t->v = (struct sk_mc_index *)d; /* records of two u32, as struct sk_mc_index */
	qsort(t->v, t->n, sizeof(*t->v), cmp_fd);
	return 0;
}

int sk_mc_read(int pidfd, struct sk_mc_table *t, struct cr_err *e)
{
	if (t->read)
		return 0;
	t->read = true;
	if (mcx_setup()) {
		snprintf(t->why, sizeof(t->why), "%s", mcx_why);
		return 0;
	}
	if (mcx_run(pidfd, t, e))
		return -1;
	t->known = true;
	pr_debug("%zu sockets with a multicast interface index (IP_MULTICAST_IF)\n", t->n);
	return 0;
}

uint32_t sk_mc_find(const struct sk_mc_table *t, int fd)
{
	struct sk_mc_index k = {.fd = (uint32_t)fd};
	const struct sk_mc_index *f = t->n ? bsearch(&k, t->v, t->n, sizeof(k), cmp_fd) : NULL;
	return f ? f->idx : 0;
}

void sk_mc_free(struct sk_mc_table *t)
{
	free(t->v);
	*t = (struct sk_mc_table){0};
}
