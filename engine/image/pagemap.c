/* Page store: raw page files indexed by a pagemap image with a checksum per block. */
#define LOG_PREFIX "pages: "
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "image/csum.h"
#include "image/image.h"
#include "base/log.h"

struct page_writer {
	int dirfd, id;
	enum img_kind kmap, kpages; /* IMG_PAGEMAP + IMG_PAGES, or the shmem pair */
	int fd;
	char name[64], tmpname[80];
	uint64_t off;
	struct page_block *blocks;
	size_t nr, cap;
	int inject_errno; /* fault injection: writes fail with this errno after a partial write */
};

void pw_inject_error(struct page_writer *pw, int errnum)
{
	pw->inject_errno = errnum;
}

int pw_open(int dirfd, int id, struct page_writer **pwp, struct cr_err *e)
{
	return pw_open_kinds(dirfd, IMG_PAGEMAP, IMG_PAGES, id, pwp, e);
}

int pw_open_kinds(int dirfd, enum img_kind kmap, enum img_kind kpages, int id, struct page_writer **pwp,
		  struct cr_err *e)
{
	struct page_writer *pw = calloc(1, sizeof(*pw));
	if (!pw)
		return cr_fail_errno(e, ENOMEM, "pages: out of memory");
	pw->dirfd = dirfd;
	pw->id = id;
	pw->kmap = kmap;
	pw->kpages = kpages;
	img_name(kpages, id, pw->name, sizeof(pw->name));
	snprintf(pw->tmpname, sizeof(pw->tmpname), ".%s.tmp", pw->name);
	pw->fd = openat(dirfd, pw->tmpname, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (pw->fd < 0) {
		cr_fail_sys(e, "create %s", pw->name);
		free(pw);
		return -1;
	}
	*pwp = pw;
	return 0;
}

int pw_add(struct page_writer *pw, uint64_t vaddr, const void *buf, size_t len, struct cr_err *e)
{
	long psz = sysconf(_SC_PAGESIZE);
	size_t done = 0;

	if (!len)
		return 0;
	if (len % (size_t)psz || vaddr % (uint64_t)psz)
		return cr_fail_errno(e, EINVAL, "%s: block at 0x%llx+%zu is not page aligned", pw->name,
				     (unsigned long long)vaddr, len);
	while (done < len) {
		ssize_t n = pwrite(pw->fd, (const uint8_t *)buf + done, len - done, (off_t)(pw->off + done));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return cr_fail_sys(e, "write %s", pw->name);
		done += (size_t)n;
	}
	if (pw->nr == pw->cap) {
		size_t ncap = pw->cap ? pw->cap * 2 : 256;
		struct page_block *n = realloc(pw->blocks, ncap * sizeof(*n));
		if (!n)
			return cr_fail_errno(e, ENOMEM, "%s: out of memory", pw->name);
		pw->blocks = n;
		pw->cap = ncap;
	}
	pw->blocks[pw->nr++] = (struct page_block){vaddr, pw->off, len, csum64(buf, len, 0)};
	pw->off += len;
	return 0;
}

int pw_add_batch(struct page_writer *pw, const void *buf, size_t len, const struct page_block *b, size_t nb,
		 struct cr_err *e)
{
	uint64_t psz = (uint64_t)sysconf(_SC_PAGESIZE);
	size_t done = 0;

	if (pw->nr && !pw->blocks) /* cannot happen; says so to the static analyzers */
		return cr_fail_errno(e, EINVAL, "%s: page writer without blocks", pw->name);
	if (!pw->blocks || pw->nr + nb > pw->cap) {
		size_t ncap = pw->cap ? pw->cap : 256;
		while (ncap < pw->nr + nb)
			ncap *= 2;
		struct page_block *n = realloc(pw->blocks, ncap * sizeof(*n));
		if (!n)
			return cr_fail_errno(e, ENOMEM, "%s: out of memory", pw->name);
		pw->blocks = n;
		pw->cap = ncap;
	}
	for (size_t i = 0; i < nb; i++) {
		const struct page_block *prev = i ? &b[i - 1] : pw->nr ? &pw->blocks[pw->nr - 1] : NULL;
		if (b[i].vaddr % psz || b[i].len % psz || !b[i].len || b[i].offset + b[i].len > len)
			return cr_fail_errno(e, EINVAL, "%s: block at 0x%llx+%llu is not page aligned",
					     pw->name, (unsigned long long)b[i].vaddr,
					     (unsigned long long)b[i].len);
		if (prev && b[i].vaddr < prev->vaddr + prev->len)
			return cr_fail_errno(e, EINVAL, "%s: block at 0x%llx overlaps or is out of order",
					     pw->name, (unsigned long long)b[i].vaddr);
	}
	while (done < len) {
		size_t want = len - done;
		if (pw->inject_errno &&
		    done >= len / 2) /* a disk that fills up: short write, then the error */
			return cr_fail_errno(e, pw->inject_errno, "write %s", pw->name);
		if (pw->inject_errno)
			want = len / 2 - done;
		ssize_t n = pwrite(pw->fd, (const uint8_t *)buf + done, want, (off_t)(pw->off + done));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return cr_fail_sys(e, "write %s", pw->name);
		done += (size_t)n;
	}
	for (size_t i = 0; i < nb; i++) {
		pw->blocks[pw->nr] = b[i];
		pw->blocks[pw->nr++].offset = pw->off + b[i].offset;
	}
	pw->off += len;
	return 0;
}

static int pw_write_map(struct page_writer *pw, struct cr_err *e)
{
	struct img_writer *w;
	PagemapHead h = PAGEMAP_HEAD__INIT;

	if (img_create(pw->dirfd, pw->kmap, pw->id, &w, e))
		return -1;
	h.pages_file = pw->name;
	h.total_size = pw->off;
	h.has_total_size = 1;
	h.page_size = (uint32_t)sysconf(_SC_PAGESIZE);
	h.has_page_size = 1;
	if (img_write(w, &h.base, e))
		goto fail;
	for (size_t i = 0; i < pw->nr; i++) {
		PagemapEntry pe = PAGEMAP_ENTRY__INIT;
		pe.vaddr = pw->blocks[i].vaddr;
		pe.has_vaddr = 1;
		pe.nr_pages = (uint32_t)(pw->blocks[i].len / h.page_size);
		pe.has_nr_pages = 1;
		pe.offset = pw->blocks[i].offset;
		pe.has_offset = 1;
		pe.csum = pw->blocks[i].csum;
		pe.has_csum = 1;
		if (img_write(w, &pe.base, e))
			goto fail;
	}
	return img_commit(w, e);
fail:
	img_abort(w);
	return -1;
}

int pw_commit(struct page_writer *pw, struct cr_err *e)
{
	int ret = -1;
	if (close(pw->fd)) {
		pw->fd = -1;
		cr_fail_sys(e, "close %s", pw->name);
		goto out;
	}
	pw->fd = -1;
	if (renameat(pw->dirfd, pw->tmpname, pw->dirfd, pw->name)) {
		cr_fail_sys(e, "rename %s", pw->name);
		goto out;
	}
	if (pw_write_map(pw, e)) {
		unlinkat(pw->dirfd, pw->name, 0);
		goto out;
	}
	pr_debug("%s: %zu blocks, %llu bytes\n", pw->name, pw->nr, (unsigned long long)pw->off);
	ret = 0;
out:
	if (ret)
		unlinkat(pw->dirfd, pw->tmpname, 0);
	free(pw->blocks);
	free(pw);
	return ret;
}

void pw_abort(struct page_writer *pw)
{
	if (!pw)
		return;
	if (pw->fd >= 0)
		close(pw->fd);
	unlinkat(pw->dirfd, pw->tmpname, 0);
	free(pw->blocks);
	free(pw);
}

/* ---------------- reading ---------------- */

static int pm_add_entry(struct page_map *pm, const PagemapEntry *pe, uint32_t psz, size_t *cap,
			const char *name, struct cr_err *e)
{
	uint64_t len = (uint64_t)pe->nr_pages * psz;
	if (!pe->has_vaddr || !pe->has_offset || !pe->has_csum || !pe->nr_pages || pe->vaddr % psz ||
	    pe->offset % psz)
		return cr_fail_errno(e, EBADMSG, "image %s: malformed entry %zu", name, pm->nr);
	if (pe->offset > pm->total_size || len > pm->total_size - pe->offset)
		return cr_fail_errno(e, EBADMSG, "image %s: entry %zu points past the end of the page file",
				     name, pm->nr);
	if (pm->nr && pe->vaddr < pm->blocks[pm->nr - 1].vaddr + pm->blocks[pm->nr - 1].len)
		return cr_fail_errno(e, EBADMSG, "image %s: entry %zu overlaps or is out of order", name,
				     pm->nr);
	if (pm->nr == *cap) {
		size_t ncap = *cap ? *cap * 2 : 256;
		struct page_block *n = realloc(pm->blocks, ncap * sizeof(*n));
		if (!n)
			return cr_fail_errno(e, ENOMEM, "out of memory");
		pm->blocks = n;
		*cap = ncap;
	}
	pm->blocks[pm->nr++] = (struct page_block){pe->vaddr, pe->offset, len, pe->csum};
	return 0;
}

static int pm_verify_data(struct page_map *pm, const char *pname, struct cr_err *e)
{
	if (!pm->total_size)
		return 0;
	__cleanup_munmap struct cr_map m = {NULL, pm->total_size};
	m.addr = mmap(NULL, pm->total_size, PROT_READ, MAP_PRIVATE, pm->pages_fd, 0);
	if (m.addr == MAP_FAILED)
		return cr_fail_sys(e, "map %s", pname);
	madvise(m.addr, m.len, MADV_SEQUENTIAL);
	for (size_t i = 0; i < pm->nr; i++) {
		const struct page_block *b = &pm->blocks[i];
		if (csum64((uint8_t *)m.addr + b->offset, b->len, 0) != b->csum)
			return cr_fail_errno(
			    e, EBADMSG, "image %s: checksum mismatch in the block for 0x%llx (corrupt image)",
			    pname, (unsigned long long)b->vaddr);
	}
	return 0;
}

int pm_load(int dirfd, int id, struct page_map *pm, struct cr_err *e)
{
	return pm_load_kinds(dirfd, IMG_PAGEMAP, IMG_PAGES, id, pm, e);
}

int pm_open(int dirfd, int id, struct page_map *pm, struct cr_err *e)
{
	return pm_open_kinds(dirfd, IMG_PAGEMAP, IMG_PAGES, id, pm, e);
}

int pm_open_kinds(int dirfd, enum img_kind kmap, enum img_kind kpages, int id, struct page_map *pm,
		  struct cr_err *e)
{
	struct img_reader *r;
	ProtobufCMessage *m;
	size_t cap = 0;
	int ret;
	char pname[64], mname[64];

	memset(pm, 0, sizeof(*pm));
	pm->pages_fd = -1;
	img_name(kpages, id, pname, sizeof(pname));
	img_name(kmap, id, mname, sizeof(mname));
	if (img_open(dirfd, kmap, id, &r, e))
		return -1;
	ret = img_read(r, &m, e);
	if (ret <= 0) {
		if (!ret)
			cr_fail_errno(e, EBADMSG, "image %s: empty", mname);
		goto fail;
	}
	PagemapHead *h = (PagemapHead *)m;
	uint32_t psz = h->has_page_size ? h->page_size : 0;
	pm->total_size = h->total_size;
	int bad_head =
	    !psz || psz != (uint32_t)sysconf(_SC_PAGESIZE) || !h->pages_file || strcmp(h->pages_file, pname);
	protobuf_c_message_free_unpacked(m, NULL);
	if (bad_head) {
		cr_fail_errno(e, EBADMSG, "image %s: bad head (page size or page file name)", mname);
		goto fail;
	}
	while ((ret = img_read(r, &m, e)) > 0) {
		ret = pm_add_entry(pm, (PagemapEntry *)m, psz, &cap, mname, e);
		protobuf_c_message_free_unpacked(m, NULL);
		if (ret)
			goto fail;
	}
	if (ret < 0)
		goto fail;
	img_close(r);
	r = NULL;
	pm->pages_fd = openat(dirfd, pname, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	struct stat st;
	if (pm->pages_fd < 0 || fstat(pm->pages_fd, &st)) {
		cr_fail_sys(e, "open image %s", pname);
		goto fail;
	}
	if ((uint64_t)st.st_size != pm->total_size) {
		cr_fail_errno(e, EBADMSG, "image %s: size %lld, pagemap says %llu (truncated?)", pname,
			      (long long)st.st_size, (unsigned long long)pm->total_size);
		goto fail;
	}
	return 0;
fail:
	img_close(r);
	pm_free(pm);
	return -1;
}

int pm_load_kinds(int dirfd, enum img_kind kmap, enum img_kind kpages, int id, struct page_map *pm,
		  struct cr_err *e)
{
	char pname[64];
	img_name(kpages, id, pname, sizeof(pname));
	if (pm_open_kinds(dirfd, kmap, kpages, id, pm, e))
		return -1;
	if (pm_verify_data(pm, pname, e)) {
		pm_free(pm);
		return -1;
	}
	return 0;
}

void pm_free(struct page_map *pm)
{
	if (pm->pages_fd >= 0)
		close(pm->pages_fd);
	pm->pages_fd = -1;
	free(pm->blocks);
	pm->blocks = NULL;
	pm->nr = 0;
}

int img_verify_dir_but(int dirfd, int unsummed_id, struct cr_err *e)
{
	/* A fresh open: a dup() would share (and consume) the caller's directory position. */
	int dfd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return cr_fail_sys(e, "images dir");
	__cleanup_closedir DIR *d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return cr_fail_sys(e, "images dir");
	}
	struct dirent *de;
	int found_inventory = 0;
	while ((de = readdir(d))) {
		int id, k = img_kind_of(de->d_name, &id);
		if (k < 0)
			continue;
		if (k == IMG_INVENTORY)
			found_inventory = 1;
		if (k == IMG_PAGES || k == IMG_SHMEM_PAGES || k == IMG_IPC_SHM_PAGES) {
			continue; /* verified through its pagemap */
		} else if (k == IMG_PAGEMAP || k == IMG_SHMEM_PAGEMAP || k == IMG_IPC_SHM_PAGEMAP) {
			struct page_map pm;
			enum img_kind kp = k == IMG_PAGEMAP	    ? IMG_PAGES
					   : k == IMG_SHMEM_PAGEMAP ? IMG_SHMEM_PAGES
								    : IMG_IPC_SHM_PAGES;
			int r = k == IMG_PAGEMAP && id == unsummed_id
				    ? pm_open_kinds(dirfd, (enum img_kind)k, kp, id, &pm, e)
				    : pm_load_kinds(dirfd, (enum img_kind)k, kp, id, &pm, e);
			if (r)
				return -1;
			pm_free(&pm);
		} else {
			struct img_reader *r;
			ProtobufCMessage *m;
			int ret;
			if (img_open_name(dirfd, de->d_name, &r, e))
				return -1;
			while ((ret = img_read(r, &m, e)) > 0)
				protobuf_c_message_free_unpacked(m, NULL);
			img_close(r);
			if (ret < 0)
				return -1;
		}
	}
	if (!found_inventory)
		return cr_fail_errno(e, ENOENT,
				     "no inventory.img: not a crshim image dir or an incomplete dump");
	return 0;
}

int img_verify_dir(int dirfd, struct cr_err *e)
{
	return img_verify_dir_but(dirfd, 0, e);
}
