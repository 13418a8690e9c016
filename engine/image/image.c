/* Image files: framing, checksums, versions (see image.h for the layout). */
#define LOG_PREFIX "img: "
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/array.h"
#include "base/cleanup.h"
#include "crshim.h"
#include "image/csum.h"
#include "image/image.h"
#include "base/log.h"

struct img_hdr {
	uint32_t magic;
	uint32_t version;
};
struct img_trailer {
	uint32_t mark;
	uint32_t nr;
	uint64_t csum;
};

static const struct img_kind_desc kinds[IMG__COUNT] = {
    [IMG_INVENTORY] = {"inventory", "inventory.img", 0x43520001, &inventory_entry__descriptor,
		       &inventory_entry__descriptor},
    [IMG_PSTREE] = {"pstree", "pstree.img", 0x43520002, &pstree_entry__descriptor, &pstree_entry__descriptor},
    [IMG_CORE] = {"core", "core-%d.img", 0x43520003, &core_entry__descriptor, &core_entry__descriptor},
    [IMG_CREDS] = {"creds", "creds-%d.img", 0x43520004, &creds_entry__descriptor, &creds_entry__descriptor},
    [IMG_FS] = {"fs", "fs-%d.img", 0x43520005, &fs_entry__descriptor, &fs_entry__descriptor},
    [IMG_MM] = {"mm", "mm-%d.img", 0x43520006, &mm_entry__descriptor, &mm_entry__descriptor},
    [IMG_PAGEMAP] = {"pagemap", "pagemap-%d.img", 0x43520007, &pagemap_head__descriptor,
		     &pagemap_entry__descriptor},
    [IMG_PAGES] = {"pages", "pages-%d.img", 0, NULL, NULL},
    [IMG_SIGACTS] = {"sigacts", "sigacts-%d.img", 0x43520008, &sigaction_entry__descriptor,
		     &sigaction_entry__descriptor},
    [IMG_FILES] = {"files", "files.img", 0x43520009, &file_entry__descriptor, &file_entry__descriptor},
    [IMG_FDINFO] = {"fdinfo", "fdinfo-%d.img", 0x4352000a, &fdinfo_entry__descriptor,
		    &fdinfo_entry__descriptor},
    [IMG_FILES_TASK] = {"files", "files-%d.img", 0x4352000b, &file_entry__descriptor,
			&file_entry__descriptor},
    [IMG_SHMEM] = {"shmem", "shmem.img", 0x43520030, &shmem_entry__descriptor, &shmem_entry__descriptor},
    [IMG_SHMEM_PAGEMAP] = {"pagemap-shmem", "pagemap-shmem-%d.img", 0x43520031, &pagemap_head__descriptor,
			   &pagemap_entry__descriptor},
    [IMG_SHMEM_PAGES] = {"pages-shmem", "pages-shmem-%d.img", 0, NULL, NULL},
    [IMG_GHOST] = {"ghost", "ghost-%d.img", 0x43520041, &ghost_file_entry__descriptor,
		   &ghost_file_entry__descriptor},
    [IMG_FILE_LOCKS] = {"filelocks", "filelocks-%d.img", 0x43520042, &file_lock_entry__descriptor,
			&file_lock_entry__descriptor},
    [IMG_NETNS] = {"netns", "netns.img", 0x43520050, &netns_entry__descriptor, &netns_entry__descriptor},
    [IMG_IPC_SHM] = {"ipc-shm", "ipc-shm.img", 0x43520060, &ipc_shm_entry__descriptor,
		     &ipc_shm_entry__descriptor},
    [IMG_IPC_SHM_PAGEMAP] = {"pagemap-ipcshm", "pagemap-ipcshm-%d.img", 0x43520061, &pagemap_head__descriptor,
			     &pagemap_entry__descriptor},
    [IMG_IPC_SHM_PAGES] = {"pages-ipcshm", "pages-ipcshm-%d.img", 0, NULL, NULL},
    [IMG_NS] = {"ns", "ns.img", 0x43520070, &ns_entry__descriptor, &ns_entry__descriptor},
    [IMG_NET] = {"net", "net.img", 0x43520071, &net_entry__descriptor, &net_entry__descriptor},
    [IMG_IPC_SEM] = {"ipc-sem", "ipc-sem.img", 0x43520072, &ipc_sem_entry__descriptor,
		     &ipc_sem_entry__descriptor},
    [IMG_IPC_MSG] = {"ipc-msg", "ipc-msg.img", 0x43520073, &ipc_msg_entry__descriptor,
		     &ipc_msg_entry__descriptor},
    [IMG_IPC_MQ] = {"ipc-mq", "ipc-mq.img", 0x43520074, &ipc_mq_entry__descriptor, &ipc_mq_entry__descriptor},
    [IMG_MNT] = {"mnt", "mnt.img", 0x43520080, &mnt_entry__descriptor, &mnt_entry__descriptor},
    [IMG_TMPFS] = {"tmpfs", "tmpfs-%d.img", 0x43520081, &tmpfs_entry__descriptor, &tmpfs_entry__descriptor},
    [IMG_MNTNS] = {"mntns", "mntns-%d.img", 0x43520082, &mntns_mount__descriptor, &mntns_mount__descriptor},
    [IMG_CGROUP] = {"cgroup", "cgroup.img", 0x43520090, &cgroup_entry__descriptor, &cgroup_entry__descriptor},
    [IMG_NET_EXTRA] = {"net-extra", "net-%d.img", 0x43520075, &net_entry__descriptor, &net_entry__descriptor},
};

const struct img_kind_desc *img_kind_desc(enum img_kind k)
{
	return (unsigned)k < IMG__COUNT ? &kinds[k] : NULL;
}

void img_name(enum img_kind k, int id, char *buf, size_t len)
{
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	snprintf(buf, len, kinds[k].pattern, id);
#pragma GCC diagnostic pop
}

int img_kind_of(const char *fname, int *id)
{
	for (int k = 0; k < IMG__COUNT; k++) {
		const char *pat = kinds[k].pattern, *pct = strstr(pat, "%d");
		if (!pct) {
			if (!strcmp(fname, pat)) {
				*id = 0;
				return k;
			}
			continue;
		}
		size_t pre = (size_t)(pct - pat);
		const char *suffix = pct + 2;
		if (strncmp(fname, pat, pre))
			continue;
		char *endp;
		errno = 0;
		long v = strtol(fname + pre, &endp, 10);
		if (endp == fname + pre || errno || v < 0 || v > 0x7fffffff || strcmp(endp, suffix))
			continue;
		*id = (int)v;
		return k;
	}
	return -1;
}

/* ---------------- writer ---------------- */

struct img_writer {
	int dirfd;
	enum img_kind kind;
	char name[64];
	char tmpname[80];
	uint8_t *buf;
	size_t len, cap;
	uint32_t nr;
	int inject_errno; /* fault injection: the file write fails with this errno half-way */
	int out;	  /* img_commit_to: the file to write, made by the caller; -1 */
};

static int wbuf_reserve(struct img_writer *w, size_t more, struct cr_err *e)
{
	if (w->len + more <= w->cap)
		return 0;
	size_t ncap = w->cap ? w->cap * 2 : 4096;
	while (ncap < w->len + more)
		ncap *= 2;
	uint8_t *n = realloc(w->buf, ncap);
	if (!n)
		return cr_fail_errno(e, ENOMEM, "image %s: out of memory", w->name);
	w->buf = n;
	w->cap = ncap;
	return 0;
}

int img_create(int dirfd, enum img_kind k, int id, struct img_writer **wp, struct cr_err *e)
{
	struct img_writer *w = calloc(1, sizeof(*w));
	if (!w)
		return cr_fail_errno(e, ENOMEM, "image: out of memory");
	w->dirfd = dirfd;
	w->out = -1;
	w->kind = k;
	img_name(k, id, w->name, sizeof(w->name));
	snprintf(w->tmpname, sizeof(w->tmpname), ".%s.tmp", w->name);
	struct img_hdr h = {kinds[k].magic, CRSHIM_IMG_VERSION};
	if (wbuf_reserve(w, sizeof(h), e)) {
		free(w);
		return -1;
	}
	memcpy(w->buf, &h, sizeof(h));
	w->len = sizeof(h);
	*wp = w;
	return 0;
}

int img_write(struct img_writer *w, const ProtobufCMessage *m, struct cr_err *e)
{
	size_t sz = protobuf_c_message_get_packed_size(m);
	if (sz > IMG_MAX_RECORD)
		return cr_fail_errno(e, EFBIG, "image %s: record of %zu bytes is too big", w->name, sz);
	if (wbuf_reserve(w, 4 + sz, e))
		return -1;
	uint32_t len = (uint32_t)sz;
	memcpy(w->buf + w->len, &len, 4);
	protobuf_c_message_pack(m, w->buf + w->len + 4);
	w->len += 4 + sz;
	w->nr++;
	return 0;
}

int img_write_or_drop(struct img_writer *w, const ProtobufCMessage *m, struct cr_err *e)
{
	if (!img_write(w, m, e))
		return 0;
	img_abort(w);
	return -1;
}

static int write_all(int fd, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	while (len) {
		ssize_t n = write(fd, p, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int img_write_file(struct img_writer *w, struct cr_err *e)
{
	if (w->out >= 0) { /* img_commit_to: made by the caller */
		if (write_all(w->out, w->buf, w->len))
			return cr_fail_sys(e, "write image %s", w->name);
		return 0;
	}
	/* A name nobody has yet (a dump's new images dir): made under it at once, one file and no rename (a
	 * dump of a tree writes some 9 per process); a half-written one is removed as the temporary file was.
	 * A file of that name already there is replaced whole or not at all: written aside, then renamed. */
	bool direct = true;
	__cleanup_close int fd =
	    openat(w->dirfd, w->name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 && errno == EEXIST) {
		direct = false;
		fd = openat(w->dirfd, w->tmpname, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	}
	if (fd < 0)
		return cr_fail_sys(e, "create image %s", w->name);
	const char *made = direct ? w->name : w->tmpname;
	if (w->inject_errno && !write_all(fd, w->buf, w->len / 2))
		errno = w->inject_errno;
	if (w->inject_errno || write_all(fd, w->buf, w->len)) {
		cr_fail_sys(e, "write image %s", w->name);
		unlinkat(w->dirfd, made, 0);
		return -1;
	}
	if (!direct && renameat(w->dirfd, w->tmpname, w->dirfd, w->name)) {
		cr_fail_sys(e, "rename image %s", w->name);
		unlinkat(w->dirfd, w->tmpname, 0);
		return -1;
	}
	return 0;
}

int img_commit_to(struct img_writer *w, int fd, struct cr_err *e)
{
	w->out = fd;
	return img_commit(w, e);
}

int img_commit(struct img_writer *w, struct cr_err *e)
{
	int ret = -1;
	struct img_trailer t = {IMG_TRAILER_MARK, w->nr, 0};
	t.csum = csum64(w->buf, w->len, 0);
	if (wbuf_reserve(w, sizeof(t), e))
		goto out;
	memcpy(w->buf + w->len, &t, sizeof(t));
	w->len += sizeof(t);
	if (img_write_file(w, e))
		goto out;
	pr_debug("wrote %s: %u records, %zu bytes\n", w->name, w->nr, w->len);
	ret = 0;
out:
	free(w->buf);
	free(w);
	return ret;
}

void img_abort(struct img_writer *w)
{
	if (!w)
		return;
	unlinkat(w->dirfd, w->tmpname, 0);
	free(w->buf);
	free(w);
}

int img_write_one(int dirfd, enum img_kind k, int id, const ProtobufCMessage *m, struct cr_err *e)
{
	return img_write_one_fault(dirfd, k, id, m, 0, e);
}

int img_write_one_fault(int dirfd, enum img_kind k, int id, const ProtobufCMessage *m, int inject_errno,
			struct cr_err *e)
{
	struct img_writer *w;
	if (img_create(dirfd, k, id, &w, e))
		return -1;
	w->inject_errno = inject_errno;
	if (img_write_or_drop(w, m, e))
		return -1;
	return img_commit(w, e);
}

int img_made_add(struct img_made *m, enum img_kind k, int id, struct cr_err *e)
{
	if (arr_room(&m->name, &m->cap, m->n, sizeof(*m->name), 16))
		return cr_fail_errno(e, ENOMEM, "out of memory");
	img_name(k, id, m->name[m->n++], sizeof(m->name[0]));
	return 0;
}

void img_made_free(struct img_made *m)
{
	free(m->name);
	*m = (struct img_made){0};
}

/* ---------------- reader ---------------- */

struct img_reader {
	enum img_kind kind;
	char name[256];
	uint8_t *buf;
	size_t len; /* bytes of header + records (trailer excluded) */
	size_t pos;
	uint32_t nr, idx;
};

/* 0, 1 if optional and there is no such file (*out untouched), -1 on error */
static int read_file(int dirfd, const char *name, bool optional, uint8_t **out, size_t *outlen,
		     struct cr_err *e)
{
	__cleanup_close int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0 && optional && errno == ENOENT)
		return 1;
	if (fd < 0)
		return cr_fail_sys(e, "open image %s", name);
	struct stat st;
	if (fstat(fd, &st))
		return cr_fail_sys(e, "stat image %s", name);
	if (!S_ISREG(st.st_mode))
		return cr_fail_errno(e, EINVAL, "image %s: not a regular file", name);
	if (st.st_size > (off_t)1 << 32)
		return cr_fail_errno(e, EFBIG, "image %s: too big (%lld bytes)", name, (long long)st.st_size);
	size_t len = (size_t)st.st_size;
	uint8_t *buf = malloc(len ? len : 1);
	if (!buf)
		return cr_fail_errno(e, ENOMEM, "image %s: out of memory", name);
	size_t got = 0;
	while (got < len) {
		ssize_t n = read(fd, buf + got, len - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			free(buf);
			return cr_fail_sys(e, "read image %s", name);
		}
		got += (size_t)n;
	}
	*out = buf;
	*outlen = len;
	return 0;
}

static int verify_frame(struct img_reader *r, struct cr_err *e)
{
	const struct img_kind_desc *d = &kinds[r->kind];
	struct img_hdr h;
	struct img_trailer t;

	if (r->len < sizeof(h) + sizeof(t))
		return cr_fail_errno(e, EINVAL, "image %s: truncated (%zu bytes)", r->name, r->len);
	memcpy(&h, r->buf, sizeof(h));
	if (h.magic != d->magic)
		return cr_fail_errno(e, EINVAL, "image %s: bad magic 0x%08x (expected 0x%08x for a %s image)",
				     r->name, h.magic, d->magic, d->name);
	if (h.version > CRSHIM_IMG_VERSION || h.version == 0)
		return cr_fail_errno(e, EINVAL,
				     "image %s: format version %u is not supported (this crshim reads 1..%u)",
				     r->name, h.version, CRSHIM_IMG_VERSION);
	memcpy(&t, r->buf + r->len - sizeof(t), sizeof(t));
	if (t.mark != IMG_TRAILER_MARK)
		return cr_fail_errno(e, EINVAL, "image %s: truncated (no trailer)", r->name);
	r->len -= sizeof(t);
	uint64_t c = csum64(r->buf, r->len, 0);
	if (c != t.csum)
		return cr_fail_errno(e, EBADMSG, "image %s: checksum mismatch (corrupt image)", r->name);
	/* Walk the records once so that img_read never sees a bad frame. */
	size_t pos = sizeof(h);
	uint32_t nr = 0;
	while (pos < r->len) {
		uint32_t len;
		if (r->len - pos < 4)
			return cr_fail_errno(e, EBADMSG, "image %s: record %u header truncated", r->name, nr);
		memcpy(&len, r->buf + pos, 4);
		if (len > IMG_MAX_RECORD || len > r->len - pos - 4)
			return cr_fail_errno(e, EBADMSG, "image %s: record %u length %u out of bounds",
					     r->name, nr, len);
		pos += 4 + len;
		nr++;
	}
	if (nr != t.nr)
		return cr_fail_errno(e, EBADMSG, "image %s: %u records, trailer says %u", r->name, nr, t.nr);
	r->nr = nr;
	r->pos = sizeof(h);
	return 0;
}

/* img_open_name; optional: a file that is not there is *rp NULL, 0 */
static int open_name(int dirfd, const char *fname, bool optional, struct img_reader **rp, struct cr_err *e)
{
	int id, k = img_kind_of(fname, &id);
	if (k < 0)
		return cr_fail_errno(e, EINVAL, "%s: not a crshim image file name", fname);
	if (!kinds[k].magic)
		return cr_fail_errno(e, EINVAL, "%s: raw page file, read it through its pagemap", fname);
	struct img_reader *r = calloc(1, sizeof(*r));
	if (!r)
		return cr_fail_errno(e, ENOMEM, "image: out of memory");
	r->kind = (enum img_kind)k;
	snprintf(r->name, sizeof(r->name), "%s", fname);
	int got = read_file(dirfd, fname, optional, &r->buf, &r->len, e);
	if (got == 1 && optional) { /* optional and missing: quietly none */
		img_close(r);
		*rp = NULL;
		return 0;
	}
	if (got || verify_frame(r, e)) {
		img_close(r);
		return -1;
	}
	*rp = r;
	return 0;
}

int img_open_name(int dirfd, const char *fname, struct img_reader **rp, struct cr_err *e)
{
	return open_name(dirfd, fname, false, rp, e);
}

int img_open(int dirfd, enum img_kind k, int id, struct img_reader **r, struct cr_err *e)
{
	char name[64];
	img_name(k, id, name, sizeof(name));
	return img_open_name(dirfd, name, r, e);
}

int img_open_opt(int dirfd, enum img_kind k, int id, struct img_reader **r, struct cr_err *e)
{
	char name[64];
	img_name(k, id, name, sizeof(name));
	*r = NULL;
	return open_name(dirfd, name, true, r, e); /* (no file: *r NULL, 0) */
}

static int read_in(struct img_reader *r, ProtobufCMessage **out, ProtobufCAllocator *al, struct cr_err *e)
{
	if (r->pos >= r->len)
		return 0;
	uint32_t len;
	memcpy(&len, r->buf + r->pos, 4);
	const ProtobufCMessageDescriptor *d = r->idx == 0 ? kinds[r->kind].first : kinds[r->kind].rest;
	ProtobufCMessage *m = protobuf_c_message_unpack(d, al, len, r->buf + r->pos + 4);
	if (!m)
		return cr_fail_errno(e, EBADMSG, "image %s: record %u does not decode as %s", r->name, r->idx,
				     d->name);
	r->pos += 4 + len;
	r->idx++;
	*out = m;
	return 1;
}

int img_read(struct img_reader *r, ProtobufCMessage **out, struct cr_err *e)
{
	return read_in(r, out, NULL, e);
}

enum img_kind img_reader_kind(const struct img_reader *r)
{
	return r->kind;
}
const char *img_reader_name(const struct img_reader *r)
{
	return r->name;
}

void img_close(struct img_reader *r)
{
	if (!r)
		return;
	free(r->buf);
	free(r);
}

int img_read_one_in(int dirfd, enum img_kind k, int id, ProtobufCMessage **out, struct img_arena *a,
		    struct cr_err *e)
{
	struct img_reader *r;
	if (img_open(dirfd, k, id, &r, e))
		return -1;
	int ret = read_in(r, out, img_arena_allocator(a), e);
	if (ret == 0)
		ret = cr_fail_errno(e, EBADMSG, "image %s: empty", r->name);
	img_close(r);
	return ret < 0 ? -1 : 0;
}

void img_free_list(void **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		protobuf_c_message_free_unpacked(v[i], NULL);
	free(v);
}

int img_read_one(int dirfd, enum img_kind k, int id, ProtobufCMessage **out, struct cr_err *e)
{
	return img_read_one_in(dirfd, k, id, out, NULL, e);
}

int img_read_list(int dirfd, enum img_kind k, int id, bool optional, void ***out, size_t *n, struct cr_err *e)
{
	return img_read_list_in(dirfd, k, id, optional, out, n, NULL, e);
}

int img_read_list_in(int dirfd, enum img_kind k, int id, bool optional, void ***out, size_t *n,
		     struct img_arena *a, struct cr_err *e)
{
	ProtobufCAllocator *al = img_arena_allocator(a);
	struct img_reader *r;
	ProtobufCMessage *m;
	size_t cap = 0;
	int ret;

	*out = NULL;
	*n = 0;
	if ((optional ? img_open_opt(dirfd, k, id, &r, e) : img_open(dirfd, k, id, &r, e)))
		return -1;
	if (!r) /* optional and missing */
		return 0;
	if (a && r->nr) { /* the array in the arena too, at its size (the frame counted the records) */
		cap = r->nr;
		if (!(*out = img_arena_alloc(a, cap * sizeof(**out)))) {
			img_close(r);
			return cr_fail_errno(e, ENOMEM, "out of memory");
		}
	}
	while ((ret = read_in(r, &m, al, e)) > 0) {
		if (!a && arr_room(out, &cap, *n, sizeof(**out), 16)) {
			protobuf_c_message_free_unpacked(m, al);
			ret = cr_fail_errno(e, ENOMEM, "out of memory");
			break;
		}
		(*out)[(*n)++] = m;
	}
	img_close(r);
	if (ret < 0) { /* the records read so far are not handed out */
		if (!a)
			img_free_list(*out, *n);
		*out = NULL;
		*n = 0;
		return -1;
	}
	return 0;
}

int img_each(int dirfd, enum img_kind k, int id, img_each_fn fn, void *arg, struct cr_err *e)
{
	struct img_reader *r;
	ProtobufCMessage *m;
	int ret;
	if (img_open_opt(dirfd, k, id, &r, e))
		return -1;
	if (!r)
		return 0;
	while ((ret = img_read(r, &m, e)) > 0) {
		ret = fn(m, arg, e);
		if (ret <= 0)
			protobuf_c_message_free_unpacked(m, NULL);
		if (ret < 0)
			break;
	}
	img_close(r);
	return ret < 0 ? -1 : 0;
}
