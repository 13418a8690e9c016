/* Page store: raw page files indexed by a pagemap image with a checksum per block. */
#define LOG_PREFIX "pages: "
#include <dirent.h>
#include <linux/falloc.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/array.h"
#include "base/cleanup.h"
#include "image/csum.h"
#include "image/image.h"
#include "image/page-xfer.h"
#include "base/log.h"

struct page_writer {
	int dirfd, id;
	enum img_kind kmap, kpages; /* IMG_PAGEMAP + IMG_PAGES, or the shmem pair */
	int fd;
	char name[64], tmpname[80];
	bool direct; /* fd made under name itself (no file had it): no rename */
	uint64_t off;
	struct page_block *blocks;
	size_t nr, cap;
	int inject_errno;	    /* fault injection: writes fail with this errno after a partial write */
	struct page_block *pblocks; /* PE_PARENT runs, address order */
	size_t pnr, pcap;
	uint64_t parent_map;
	struct page_xfer *px; /* --page-server: the pages go there, not to fd (the pagemap to both) */
};

void pw_set_parent(struct page_writer *pw, uint64_t parent_map)
{
	pw->parent_map = parent_map;
}

int pw_add_parent(struct page_writer *pw, uint64_t vaddr, uint64_t len, struct cr_err *e)
{
	if (pw->pnr && pw->pblocks[pw->pnr - 1].vaddr + pw->pblocks[pw->pnr - 1].len == vaddr) {
		pw->pblocks[pw->pnr - 1].len += len;
		return 0;
	}
	if (arr_room(&pw->pblocks, &pw->pcap, pw->pnr, sizeof(*pw->pblocks), 256))
		return cr_fail_errno(e, ENOMEM, "%s: out of memory", pw->name);
	pw->pblocks[pw->pnr++] = (struct page_block){vaddr, 0, len, 0, PE_PARENT, 0};
	return 0;
}

uint64_t pw_bytes(const struct page_writer *pw)
{
	return pw->off;
}

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
	return pw_open_px(dirfd, NULL, kmap, kpages, id, pwp, e);
}

int pw_open_px(int dirfd, struct page_xfer *px, enum img_kind kmap, enum img_kind kpages, int id,
	       struct page_writer **pwp, struct cr_err *e)
{
	struct page_writer *pw = calloc(1, sizeof(*pw));
	if (!pw)
		return cr_fail_errno(e, ENOMEM, "pages: out of memory");
	pw->dirfd = dirfd;
	pw->id = id;
	pw->kmap = kmap;
	pw->kpages = kpages;
	pw->px = px;
	pw->fd = -1;
	img_name(kpages, id, pw->name, sizeof(pw->name));
	snprintf(pw->tmpname, sizeof(pw->tmpname), ".%s.tmp", pw->name);
	if (px) {
		if (px_open(px, pw->name, e)) {
			free(pw);
			return -1;
		}
		*pwp = pw;
		return 0;
	}
	/* as img_create's images: a name nobody has yet (a dump's new images dir) is made at once, one file
	 * and no rename per process; a file of that name already there is replaced whole or not at all
	 * (written aside, then renamed) */
	pw->direct = true;
	pw->fd = openat(dirfd, pw->name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (pw->fd < 0 && errno == EEXIST) {
		pw->direct = false;
		pw->fd = openat(dirfd, pw->tmpname, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	}
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
	if (pw->px && px_data(pw->px, buf, len, e))
		return -1;
	while (!pw->px && done < len) {
		ssize_t n = pwrite(pw->fd, (const uint8_t *)buf + done, len - done, (off_t)(pw->off + done));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return cr_fail_sys(e, "write %s", pw->name);
		done += (size_t)n;
	}
	if (arr_room(&pw->blocks, &pw->cap, pw->nr, sizeof(*pw->blocks), 256))
		return cr_fail_errno(e, ENOMEM, "%s: out of memory", pw->name);
	pw->blocks[pw->nr++] = (struct page_block){vaddr, pw->off, len, pw_block_csum(buf, len), 0, 0};
	pw->off += len;
	return 0;
}

/* Room for nb more blocks, and the new blocks (offsets in a buffer of len bytes) checked: page aligned, in
 * address order after those already added. */
static int pw_check_blocks(struct page_writer *pw, size_t len, const struct page_block *b, size_t nb,
			   struct cr_err *e)
{
	uint64_t psz = (uint64_t)sysconf(_SC_PAGESIZE);
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
		if (b[i].vaddr % psz || b[i].len % psz || !b[i].len)
			return cr_fail_errno(e, EINVAL, "%s: block at 0x%llx+%llu is not page aligned",
					     pw->name, (unsigned long long)b[i].vaddr,
					     (unsigned long long)b[i].len);
		if (b[i].offset + b[i].len > len)
			return cr_fail_errno(
			    e, EINVAL, "%s: block at 0x%llx+%llu ends past its buffer (%zu bytes)", pw->name,
			    (unsigned long long)b[i].vaddr, (unsigned long long)b[i].len, len);
		if (prev && b[i].vaddr < prev->vaddr + prev->len)
			return cr_fail_errno(e, EINVAL, "%s: block at 0x%llx overlaps or is out of order",
					     pw->name, (unsigned long long)b[i].vaddr);
	}
	return 0;
}

/* The blocks (checked) are the len bytes at pw->off. */
static void pw_record(struct page_writer *pw, size_t len, const struct page_block *b, size_t nb)
{
	for (size_t i = 0; i < nb; i++) {
		pw->blocks[pw->nr] = b[i];
		pw->blocks[pw->nr++].offset = pw->off + b[i].offset;
	}
	pw->off += len;
}

int pw_add_batch(struct page_writer *pw, const void *buf, size_t len, const struct page_block *b, size_t nb,
		 struct cr_err *e)
{
	size_t done = 0;

	if (pw_check_blocks(pw, len, b, nb, e))
		return -1;
	if (pw->px && px_data(pw->px, buf, len, e))
		return -1;
	while (!pw->px && done < len) {
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
	pw_record(pw, len, b, nb);
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
	h.parent_map = pw->parent_map, h.has_parent_map = pw->pnr > 0;
	h.csum_kind = CSUM_CRC32C, h.has_csum_kind = 1;
	if (img_write(w, &h.base, e))
		goto fail;
	for (size_t i = 0, j = 0; i < pw->nr || j < pw->pnr;) { /* data and parent runs, by address */
		bool par = j < pw->pnr && (i == pw->nr || pw->pblocks[j].vaddr < pw->blocks[i].vaddr);
		const struct page_block *b = par ? &pw->pblocks[j++] : &pw->blocks[i++];
		for (uint64_t done = 0; done < b->len;) { /* nr_pages is 32 bits */
			uint64_t len = b->len - done;
			if (len > (1ull << 30))
				len = 1ull << 30;
			PagemapEntry pe = PAGEMAP_ENTRY__INIT;
			pe.vaddr = b->vaddr + done, pe.has_vaddr = 1;
			pe.nr_pages = (uint32_t)(len / h.page_size), pe.has_nr_pages = 1;
			if (par) {
				pe.flags = PE_PARENT, pe.has_flags = 1;
			} else {
				pe.offset = b->offset, pe.has_offset = 1;
				pe.csum = b->csum, pe.has_csum = 1;
				len = b->len; /* a data block is written whole (its checksum covers it) */
				pe.nr_pages = (uint32_t)(len / h.page_size);
			}
			if (img_write(w, &pe.base, e))
				goto fail;
			done += len;
		}
	}
	return img_commit(w, e);
fail:
	img_abort(w);
	return -1;
}

/* --page-server: the pages file is closed on the server, the pagemap written here and sent too. */
static int pw_commit_px(struct page_writer *pw, struct cr_err *e)
{
	char mname[64];
	img_name(pw->kmap, pw->id, mname, sizeof(mname));
	if (px_close_file(pw->px, e) || pw_write_map(pw, e))
		return -1;
	if (px_send_file(pw->px, pw->dirfd, mname, e)) {
		unlinkat(pw->dirfd, mname, 0);
		return -1;
	}
	pr_debug("%s: %zu blocks, %llu bytes sent to the page server\n", pw->name, pw->nr,
		 (unsigned long long)pw->off);
	return 0;
}

/* The file pw's pages are written to: its own name, or the temporary one renamed to it at the commit. */
static const char *pw_made(const struct page_writer *pw)
{
	return pw->direct ? pw->name : pw->tmpname;
}

int pw_commit(struct page_writer *pw, struct cr_err *e)
{
	int ret = -1;
	if (pw->px) {
		ret = pw_commit_px(pw, e);
		goto out_free;
	}
	if (close(pw->fd)) {
		pw->fd = -1;
		cr_fail_sys(e, "close %s", pw->name);
		goto out;
	}
	pw->fd = -1;
	if (!pw->direct && renameat(pw->dirfd, pw->tmpname, pw->dirfd, pw->name)) {
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
		unlinkat(pw->dirfd, pw_made(pw), 0);
out_free:
	free(pw->blocks);
	free(pw->pblocks);
	free(pw);
	return ret;
}

void pw_abort(struct page_writer *pw)
{
	if (!pw)
		return;
	if (pw->px)
		px_abort_file(pw->px);
	if (pw->fd >= 0)
		close(pw->fd);
	if (!pw->px)
		unlinkat(pw->dirfd, pw_made(pw), 0);
	free(pw->blocks);
	free(pw->pblocks);
	free(pw);
}

/* ---------------- reading ---------------- */

/* What a walk of the parent chain does: verify every level whole, only check the chain's structure
 * (parents' maps unchanged, every parent run held by some level: the restore verifies the data it uses),
 * or resolve the child's parent runs into blocks of the levels' files (verifying the blocks used). */
enum chain_mode { CHAIN_VERIFY, CHAIN_MAP_ONLY, CHAIN_BUILD };
static int pm_chain_do(int dirfd, enum img_kind kmap, enum img_kind kpages, int id, struct page_map *pm,
		       enum chain_mode mode, struct cr_err *e);

static int pm_add_entry(struct page_map *pm, const PagemapEntry *pe, uint32_t psz, size_t *cap,
			const char *name, struct cr_err *e)
{
	uint64_t len = (uint64_t)pe->nr_pages * psz;
	uint32_t flags = pe->has_flags ? pe->flags : 0;
	bool par = flags == PE_PARENT;
	if (!pe->has_vaddr || (!par && (!pe->has_offset || !pe->has_csum)) || !pe->nr_pages ||
	    pe->vaddr % psz || pe->offset % psz || (flags & ~PE_PARENT))
		return cr_fail_errno(e, EBADMSG, "image %s: malformed entry %zu", name, pm->nr);
	uint64_t ent[5] = {pe->vaddr, pe->nr_pages, pe->offset, pe->csum, flags};
	pm->map_csum = csum64(ent, sizeof(ent), pm->map_csum);
	if (!par && (pe->offset > pm->total_size || len > pm->total_size - pe->offset))
		return cr_fail_errno(e, EBADMSG, "image %s: entry %zu points past the end of the page file",
				     name, pm->nr);
	if (pm->nr && pe->vaddr < pm->blocks[pm->nr - 1].vaddr + pm->blocks[pm->nr - 1].len)
		return cr_fail_errno(e, EBADMSG, "image %s: entry %zu overlaps or is out of order", name,
				     pm->nr);
	if (arr_room(&pm->blocks, cap, pm->nr, sizeof(*pm->blocks), 256))
		return cr_fail_errno(e, ENOMEM, "out of memory");
	pm->blocks[pm->nr++] =
	    (struct page_block){pe->vaddr, par ? 0 : pe->offset, len, par ? 0 : pe->csum, flags, 0};
	pm->nr_parent += par;
	return 0;
}

static uint64_t src_size(const struct page_map *pm, uint32_t k)
{
	return k ? pm->src[k - 1].size : pm->total_size;
}

int pm_map_data(const struct page_map *pm, const char *pname, const uint8_t ***data, struct cr_err *e)
{
	uint32_t ns = pm->nr_src + 1;
	const uint8_t **d = *data = calloc(ns, sizeof(*d));
	if (!d)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	for (uint32_t k = 0; k < ns; k++) {
		uint64_t len = src_size(pm, k);
		if (!len)
			continue;
		void *a = mmap(NULL, len, PROT_READ, MAP_SHARED, k ? pm->src[k - 1].fd : pm->pages_fd, 0);
		if (a == MAP_FAILED)
			return cr_fail_sys(e, "map %s%s", k ? "a parent's " : "", pname);
		d[k] = a;
	}
	return 0;
}

void pm_unmap_data(const struct page_map *pm, const uint8_t **data)
{
	for (uint32_t k = 0; data && k < pm->nr_src + 1; k++)
		if (data[k])
			munmap((void *)(uintptr_t)data[k], src_size(pm, k));
	free(data);
}

bool pm_block_ok(const struct page_map *pm, const uint8_t *const *data, const struct page_block *b)
{
	return b->src <= pm->nr_src && data[b->src] && b->offset + b->len <= src_size(pm, b->src) &&
	       pm_csum(pm, data[b->src] + b->offset, b->len) == b->csum;
}

/* Every data block's checksum, in whichever pages file (src) it is. */
static int pm_verify_data(struct page_map *pm, const char *pname, struct cr_err *e)
{
	const uint8_t **data;
	int ret = pm_map_data(pm, pname, &data, e);
	for (uint32_t k = 0; !ret && k < pm->nr_src + 1; k++)
		if (data[k])
			madvise((void *)(uintptr_t)data[k], src_size(pm, k), MADV_SEQUENTIAL);
	for (size_t i = 0; i < pm->nr && !ret; i++) {
		const struct page_block *b = &pm->blocks[i];
		if (!(b->flags & PE_PARENT) && !pm_block_ok(pm, data, b))
			ret = cr_fail_errno(
			    e, EBADMSG, "image %s: checksum mismatch in the block for 0x%llx (corrupt image)",
			    pname, (unsigned long long)b->vaddr);
	}
	pm_unmap_data(pm, data);
	return ret;
}

int pm_load(int dirfd, int id, struct page_map *pm, struct cr_err *e)
{
	return pm_load_kinds(dirfd, IMG_PAGEMAP, IMG_PAGES, id, pm, e);
}

int pm_open(int dirfd, int id, struct page_map *pm, struct cr_err *e)
{
	return pm_open_kinds(dirfd, IMG_PAGEMAP, IMG_PAGES, id, pm, e);
}

static int pm_open_do(int dirfd, enum img_kind kmap, enum img_kind kpages, int id, struct page_map *pm,
		      bool map_only, struct cr_err *e);

int pm_open_raw(int dirfd, enum img_kind kmap, enum img_kind kpages, int id, struct page_map *pm,
		struct cr_err *e)
{
	return pm_open_do(dirfd, kmap, kpages, id, pm, false, e);
}

int pm_open_map(int dirfd, enum img_kind kmap, enum img_kind kpages, int id, struct page_map *pm,
		struct cr_err *e)
{
	return pm_open_do(dirfd, kmap, kpages, id, pm, true, e);
}

static int pm_open_do(int dirfd, enum img_kind kmap, enum img_kind kpages, int id, struct page_map *pm,
		      bool map_only, struct cr_err *e)
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
	pm->parent_map = h->parent_map;
	pm->csum_kind = h->has_csum_kind ? h->csum_kind : CSUM_XXH64; /* images from before the field */
	int bad_head = !psz || psz != (uint32_t)sysconf(_SC_PAGESIZE) || !h->pages_file ||
		       strcmp(h->pages_file, pname) || pm->csum_kind > CSUM_KIND_MAX;
	protobuf_c_message_free_unpacked(m, NULL);
	if (bad_head) {
		cr_fail_errno(e, EBADMSG, "image %s: bad head (page size, page file name or checksum kind)",
			      mname);
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
	if (pm->nr && pm->nr < cap) { /* room for 256 blocks at first: a process of a tree has a dozen */
		struct page_block *fit = realloc(pm->blocks, pm->nr * sizeof(*pm->blocks));
		if (fit)
			pm->blocks = fit;
	}
	if (map_only)
		return 0;
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

int pm_open_kinds(int dirfd, enum img_kind kmap, enum img_kind kpages, int id, struct page_map *pm,
		  struct cr_err *e)
{
	if (pm_open_raw(dirfd, kmap, kpages, id, pm, e))
		return -1;
	if (pm->nr_parent && pm_chain_do(dirfd, kmap, kpages, id, pm, CHAIN_BUILD, e)) {
		pm_free(pm);
		return -1;
	}
	return 0;
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
	for (uint32_t k = 0; k < pm->nr_src; k++)
		if (pm->src[k].fd >= 0)
			close(pm->src[k].fd);
	free(pm->src);
	pm->src = NULL;
	pm->nr_src = 0;
	free(pm->blocks);
	pm->blocks = NULL;
	pm->nr = 0;
}

/* The images directory opened afresh for a walk: a dup() would share (and consume) the caller's directory
 * position. NULL (e set) on failure. */
static DIR *images_dir_open(int dirfd, struct cr_err *e)
{
	int dfd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		cr_fail_sys(e, "images dir");
		return NULL;
	}
	DIR *d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		cr_fail_sys(e, "images dir");
	}
	return d;
}

int img_verify_dir_but(int dirfd, int unsummed_id, struct cr_err *e)
{
	__cleanup_closedir DIR *d = images_dir_open(dirfd, e);
	if (!d)
		return -1;
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
			int r = k == IMG_PAGEMAP && (id == unsummed_id || unsummed_id == IMG_UNSUMMED_ALL)
				    ? pm_open_raw(dirfd, (enum img_kind)k, kp, id, &pm, e)
				    : pm_check_chain(dirfd, (enum img_kind)k, kp, id, e);
			if (r)
				return -1;
			if (k == IMG_PAGEMAP && (id == unsummed_id || unsummed_id == IMG_UNSUMMED_ALL)) {
				/* its checksums and those of the parent blocks it uses are verified by the
				 * restore; the chain's structure here */
				r = pm.nr_parent
					? pm_chain_do(dirfd, (enum img_kind)k, kp, id, &pm, CHAIN_MAP_ONLY, e)
					: 0;
				pm_free(&pm);
				if (r)
					return -1;
			}
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

/* ---------------- the parent chain ---------------- */

#define PM_CHAIN_MAX 64

/* The levels of a chain: lv[0] the child, lv[k+1] the parent of lv[k], each opened raw. */
struct pm_chain {
	struct page_map lv[PM_CHAIN_MAX + 1];
	uint8_t *data[PM_CHAIN_MAX + 1]; /* page files mapped (CHAIN_BUILD) */
	int dfd[PM_CHAIN_MAX + 1];	 /* [1, ndfd]: the levels' dirs */
	int n, ndfd;
};

/* A part of a parent run of the child, held by level lv in its block blk at offset off of its file. */
struct chain_piece {
	uint64_t vaddr, len, off, csum;
	uint32_t lv;
	size_t blk;
};
struct chain_pieces {
	struct chain_piece *p;
	size_t n, cap;
};

static void chain_free(struct pm_chain *c)
{
	for (int k = 1; k <= c->ndfd; k++)
		close(c->dfd[k]);
	for (int k = 1; k < c->n; k++) {
		if (c->data[k] && c->data[k] != MAP_FAILED)
			munmap(c->data[k], c->lv[k].total_size);
		pm_free(&c->lv[k]);
	}
}

/* Open the parents of lv[0] (already open) and check each: its entries are what the child was made
 * against (parent_map); with CHAIN_VERIFY every data block's checksum; with CHAIN_BUILD its file mapped. */
static int chain_open(int dirfd, enum img_kind kmap, enum img_kind kpages, int id, struct pm_chain *c,
		      enum chain_mode mode, struct cr_err *e)
{
	char mname[64], pname[64];
	img_name(kmap, id, mname, sizeof(mname));
	img_name(kpages, id, pname, sizeof(pname));
	int dfd = dirfd;
	c->n = 1;
	while (c->lv[c->n - 1].nr_parent) {
		if (c->n > PM_CHAIN_MAX)
			return cr_fail_errno(e, ELOOP, "image %s: a chain of more than %d parents", mname,
					     PM_CHAIN_MAX);
		int pfd = openat(dfd, "parent", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (pfd >= 0)
			c->dfd[++c->ndfd] = pfd; /* closed by chain_free */
		if (pfd < 0)
			return cr_fail_errno(
			    e, errno,
			    "image %s: parent images %d levels up (the `parent` link) cannot be "
			    "opened (broken chain): %s",
			    mname, c->n, strerror(errno));
		struct page_map *p = &c->lv[c->n];
		int r = pm_open_raw(pfd, kmap, kpages, id, p, e);
		dfd = pfd;
		if (r) {
			return cr_wrap(e, "parent %d of %s (broken chain)", c->n, mname);
		}
		c->n++;
		if (p->map_csum != c->lv[c->n - 2].parent_map) {
			return cr_fail_errno(
			    e, EBADMSG,
			    "image %s: the parent's %s (%d levels up) changed since the dump "
			    "(broken chain)",
			    mname, mname, c->n - 1);
		}
		if (mode == CHAIN_VERIFY && pm_verify_data(p, pname, e)) {
			return cr_wrap(e, "parent %d of %s", c->n - 1, mname);
		}
		if (mode != CHAIN_BUILD || !p->total_size)
			continue;
		c->data[c->n - 1] = mmap(NULL, p->total_size, PROT_READ, MAP_SHARED, p->pages_fd, 0);
		if (c->data[c->n - 1] == MAP_FAILED) {
			return cr_fail_sys(e, "map the parent's %s", pname);
		}
	}
	return 0;
}

static int pieces_add(struct chain_pieces *ps, const struct chain_piece *q)
{
	if (arr_room(&ps->p, &ps->cap, ps->n, sizeof(*ps->p), 256))
		return -1;
	ps->p[ps->n++] = *q;
	return 0;
}

/* Resolve [vaddr, vaddr+len) at level k (a PE_PARENT run of level k-1): note where its pieces are (out) or
 * only check they are there. -1: a page is in no level; -2: out of memory. */
static int chain_resolve(const struct pm_chain *c, int k, uint64_t vaddr, uint64_t len,
			 struct chain_pieces *out)
{
	if (k >= c->n)
		return -1;
	const struct page_map *p = &c->lv[k];
	size_t l = 0, h = p->nr;
	while (l < h) { /* the first block ending after vaddr */
		size_t mid = (l + h) / 2;
		if (p->blocks[mid].vaddr + p->blocks[mid].len <= vaddr)
			l = mid + 1;
		else
			h = mid;
	}
	while (len) {
		if (l == p->nr || p->blocks[l].vaddr > vaddr)
			return -1;
		const struct page_block *b = &p->blocks[l];
		uint64_t n = b->vaddr + b->len - vaddr;
		if (n > len)
			n = len;
		if (b->flags & PE_PARENT) {
			int r = chain_resolve(c, k + 1, vaddr, n, out);
			if (r)
				return r;
		} else if (out) {
			struct chain_piece q = {vaddr, n, b->offset + (vaddr - b->vaddr), 0, (uint32_t)k, l};
			if (pieces_add(out, &q))
				return -2;
		}
		vaddr += n, len -= n;
		l++;
	}
	return 0;
}

/* Checksum every parent block the pieces use (once: the pieces of a level are in its block order), and
 * each piece on its own while it is in the cache. */
static int chain_sum_pieces(const struct pm_chain *c, struct chain_pieces *ps, const char *mname,
			    struct cr_err *e)
{
	for (int k = 1; k < c->n; k++) {
		const struct page_map *p = &c->lv[k];
		size_t last = SIZE_MAX;
		for (size_t i = 0; i < ps->n; i++) {
			struct chain_piece *q = &ps->p[i];
			if (q->lv != (uint32_t)k)
				continue;
			const struct page_block *b = &p->blocks[q->blk];
			if (!c->data[k])
				return cr_fail_errno(e, EBADMSG, "image %s: parent %d has no page data",
						     mname, k);
			if (q->blk != last && pm_csum(p, c->data[k] + b->offset, b->len) != b->csum)
				return cr_fail_errno(
				    e, EBADMSG,
				    "image %s (parent %d levels up): checksum mismatch in the "
				    "block for 0x%llx (corrupt image)",
				    mname, k, (unsigned long long)b->vaddr);
			last = q->blk;
			q->csum = pm_csum(&c->lv[0], c->data[k] + q->off, q->len); /* the child's kind */
		}
	}
	return 0;
}

/* Every PE_PARENT run of pm is in the chain; with CHAIN_BUILD each becomes the blocks of the levels that
 * hold it (src), whose files pm keeps open. Nothing is copied. */
static int chain_build(struct page_map *pm, struct pm_chain *c, enum chain_mode mode, const char *mname,
		       struct cr_err *e)
{
	struct chain_pieces ps = {NULL, 0, 0};
	struct page_block *nb = NULL;
	struct pm_src *src = NULL;
	int ret = -1;
	for (size_t i = 0; i < pm->nr; i++) {
		const struct page_block *b = &pm->blocks[i];
		if (!(b->flags & PE_PARENT))
			continue;
		int r = chain_resolve(c, 1, b->vaddr, b->len, mode == CHAIN_BUILD ? &ps : NULL);
		if (r == -2) {
			cr_fail_errno(e, ENOMEM, "out of memory");
			goto out;
		}
		if (r) {
			cr_fail_errno(e, EBADMSG,
				      "image %s: pages at 0x%llx are in no parent image (broken chain)",
				      mname, (unsigned long long)b->vaddr);
			goto out;
		}
	}
	if (mode != CHAIN_BUILD)
		return 0;
	if (chain_sum_pieces(c, &ps, mname, e))
		goto out;
	size_t n = pm->nr - pm->nr_parent + ps.n, j = 0, q = 0;
	nb = calloc(n + 1, sizeof(*nb));
	src = calloc((size_t)c->n, sizeof(*src));
	if (!nb || !src) {
		cr_fail_errno(e, ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < pm->nr; i++) {
		const struct page_block *b = &pm->blocks[i];
		if (!(b->flags & PE_PARENT)) {
			nb[j++] = *b;
			continue;
		}
		for (; q < ps.n && ps.p[q].vaddr < b->vaddr + b->len && j < n; q++)
			nb[j++] = (struct page_block){ps.p[q].vaddr, ps.p[q].off, ps.p[q].len,
						      ps.p[q].csum,  0,		  ps.p[q].lv};
	}
	for (int k = 1; k < c->n; k++) {
		src[k - 1] = (struct pm_src){c->lv[k].pages_fd, c->lv[k].total_size};
		c->lv[k].pages_fd = -1;
	}
	free(pm->blocks);
	pm->blocks = nb;
	pm->nr = j;
	pm->src = src;
	pm->nr_src = (uint32_t)(c->n - 1);
	pm->nr_parent = 0;
	nb = NULL;
	src = NULL;
	pr_debug("%s: the parent runs are %zu blocks in %d parent levels\n", mname, ps.n, c->n - 1);
	ret = 0;
out:
	free(ps.p);
	free(nb);
	free(src);
	return ret;
}

static int pm_chain_do(int dirfd, enum img_kind kmap, enum img_kind kpages, int id, struct page_map *pm,
		       enum chain_mode mode, struct cr_err *e)
{
	char mname[64];
	struct pm_chain *c = calloc(1, sizeof(*c));
	if (!c)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	img_name(kmap, id, mname, sizeof(mname));
	c->lv[0] = *pm;
	int ret = chain_open(dirfd, kmap, kpages, id, c, mode, e);
	if (!ret)
		ret = chain_build(pm, c, mode, mname, e);
	chain_free(c);
	free(c);
	return ret;
}

int pm_check_chain(int dirfd, enum img_kind kmap, enum img_kind kpages, int id, struct cr_err *e)
{
	struct page_map pm;
	char pname[64];
	img_name(kpages, id, pname, sizeof(pname));
	if (pm_open_raw(dirfd, kmap, kpages, id, &pm, e))
		return -1;
	int ret = pm_verify_data(&pm, pname, e);
	if (!ret && pm.nr_parent)
		ret = pm_chain_do(dirfd, kmap, kpages, id, &pm, CHAIN_VERIFY, e);
	pm_free(&pm);
	return ret;
}

/* ---------------- --auto-dedup ---------------- */

/* The parts of [vaddr, vaddr+len) (data of the child) that level k holds as data, following its parent
 * runs down; pages no level holds are skipped. -2: out of memory. */
static int dedup_resolve(const struct pm_chain *c, int k, uint64_t vaddr, uint64_t len,
			 struct chain_pieces *out)
{
	if (k >= c->n)
		return 0;
	const struct page_map *p = &c->lv[k];
	uint64_t end = vaddr + len;
	size_t l = 0, h = p->nr;
	while (l < h) {
		size_t mid = (l + h) / 2;
		if (p->blocks[mid].vaddr + p->blocks[mid].len <= vaddr)
			l = mid + 1;
		else
			h = mid;
	}
	for (; l < p->nr && p->blocks[l].vaddr < end; l++) {
		const struct page_block *b = &p->blocks[l];
		uint64_t s = b->vaddr > vaddr ? b->vaddr : vaddr;
		uint64_t en = b->vaddr + b->len < end ? b->vaddr + b->len : end;
		if (b->flags & PE_PARENT) {
			int r = dedup_resolve(c, k + 1, s, en - s, out);
			if (r)
				return r;
			continue;
		}
		struct chain_piece q = {s, en - s, b->offset + (s - b->vaddr), 0, (uint32_t)k, l};
		if (pieces_add(out, &q))
			return -2;
	}
	return 0;
}

static void map_csum_add(uint64_t *map_csum, const struct page_block *b, uint32_t psz)
{
	uint64_t ent[5] = {b->vaddr, b->len / psz, b->offset, b->csum, b->flags};
	*map_csum = csum64(ent, sizeof(ent), *map_csum);
}

/* Level k's entries without the pieces of it (ps: level k's in block order), each remaining part of a
 * block a piece was cut from checksummed from the file (data: mapped). */
static int dedup_entries(const struct page_map *p, int k, const struct chain_pieces *ps, const uint8_t *data,
			 struct page_block **out, size_t *nout)
{
	size_t cap = p->nr + ps->n + 1, n = 0, q = 0;
	struct page_block *nb = calloc(cap, sizeof(*nb));
	if (!nb)
		return -1;
	for (size_t i = 0; i < p->nr; i++) {
		const struct page_block *b = &p->blocks[i];
		while (q < ps->n && ps->p[q].lv != (uint32_t)k)
			q++;
		if (q == ps->n || ps->p[q].blk != i) {
			nb[n++] = *b;
			continue;
		}
		uint64_t at = b->vaddr, end = b->vaddr + b->len;
		for (; q < ps->n; q++) {
			const struct chain_piece *c = &ps->p[q];
			if (c->lv != (uint32_t)k)
				continue;
			if (c->blk != i)
				break;
			if (c->vaddr > at && n < cap)
				nb[n++] = (struct page_block){
				    at,
				    b->offset + (at - b->vaddr),
				    c->vaddr - at,
				    pm_csum(p, data + b->offset + (at - b->vaddr), c->vaddr - at),
				    0,
				    0};
			at = c->vaddr + c->len;
		}
		if (at < end && n < cap)
			nb[n++] = (struct page_block){
			    at,	      b->offset + (at - b->vaddr),
			    end - at, pm_csum(p, data + b->offset + (at - b->vaddr), end - at),
			    0,	      0};
	}
	*out = nb;
	*nout = n;
	return 0;
}

/* A pagemap image (head and entries as given), not committed. */
static int map_write(int dfd, enum img_kind kmap, enum img_kind kpages, int id, const struct page_map *pm,
		     uint64_t parent_map, const struct page_block *b, size_t n, struct img_writer **wp,
		     struct cr_err *e)
{
	char pname[64];
	struct img_writer *w;
	PagemapHead h = PAGEMAP_HEAD__INIT;
	uint32_t psz = (uint32_t)sysconf(_SC_PAGESIZE);
	img_name(kpages, id, pname, sizeof(pname));
	if (img_create(dfd, kmap, id, &w, e))
		return -1;
	h.pages_file = pname;
	h.total_size = pm->total_size, h.has_total_size = 1;
	h.csum_kind = pm->csum_kind, h.has_csum_kind = pm->csum_kind != CSUM_XXH64; /* as it was */
	h.page_size = psz, h.has_page_size = 1;
	h.parent_map = parent_map;
	for (size_t i = 0; i < n; i++)
		h.has_parent_map |= (b[i].flags & PE_PARENT) != 0;
	if (img_write(w, &h.base, e))
		goto fail;
	for (size_t i = 0; i < n; i++) {
		PagemapEntry pe = PAGEMAP_ENTRY__INIT;
		pe.vaddr = b[i].vaddr, pe.has_vaddr = 1;
		pe.nr_pages = (uint32_t)(b[i].len / psz), pe.has_nr_pages = 1;
		if (b[i].flags & PE_PARENT) {
			pe.flags = PE_PARENT, pe.has_flags = 1;
		} else {
			pe.offset = b[i].offset, pe.has_offset = 1;
			pe.csum = b[i].csum, pe.has_csum = 1;
		}
		if (img_write(w, &pe.base, e))
			goto fail;
	}
	*wp = w;
	return 0;
fail:
	img_abort(w);
	return -1;
}

/* Punch the pieces of level k out of its pages file (adjacent ones together). */
static uint64_t dedup_punch(const struct pm_chain *c, int k, const struct chain_pieces *ps, const char *pname)
{
	uint64_t freed = 0;
	int fd = openat(c->dfd[k], pname, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0) {
		pr_warn("auto-dedup: open the parent's %s (%d levels up): %s\n", pname, k, strerror(errno));
		return 0;
	}
	for (size_t q = 0; q < ps->n;) {
		if (ps->p[q].lv != (uint32_t)k) {
			q++;
			continue;
		}
		uint64_t off = ps->p[q].off, len = ps->p[q].len;
		for (q++; q < ps->n && ps->p[q].lv == (uint32_t)k && ps->p[q].off == off + len; q++)
			len += ps->p[q].len;
		if (fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)off, (off_t)len)) {
			pr_warn("auto-dedup: punch %llu bytes of the parent's %s: %s\n",
				(unsigned long long)len, pname, strerror(errno));
			break;
		}
		freed += len;
	}
	close(fd);
	return freed;
}

int pm_dedup(int dirfd, int id, bool fail_before_commit, uint64_t *freed, struct cr_err *e)
{
	char mname[64], pname[64];
	struct chain_pieces ps = {NULL, 0, 0};
	struct img_writer *w[PM_CHAIN_MAX + 1] = {NULL};
	struct page_block *nb[PM_CHAIN_MAX + 1] = {NULL};
	size_t nn[PM_CHAIN_MAX + 1] = {0};
	uint64_t newmap[PM_CHAIN_MAX + 1] = {0};
	int ret = -1;
	img_name(IMG_PAGEMAP, id, mname, sizeof(mname));
	img_name(IMG_PAGES, id, pname, sizeof(pname));
	*freed = 0;
	struct pm_chain *c = calloc(1, sizeof(*c));
	if (!c)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	if (pm_open_raw(dirfd, IMG_PAGEMAP, IMG_PAGES, id, &c->lv[0], e)) {
		free(c);
		return -1;
	}
	if (!c->lv[0].nr_parent) { /* nothing of the parent is used: no chain to shorten */
		ret = 0;
		goto out;
	}
	if (chain_open(dirfd, IMG_PAGEMAP, IMG_PAGES, id, c, CHAIN_BUILD, e))
		goto out;
	for (size_t i = 0; i < c->lv[0].nr; i++) {
		const struct page_block *b = &c->lv[0].blocks[i];
		if (!(b->flags & PE_PARENT) && dedup_resolve(c, 1, b->vaddr, b->len, &ps)) {
			cr_fail_errno(e, ENOMEM, "out of memory");
			goto out;
		}
	}
	if (!ps.n) {
		ret = 0;
		goto out;
	}
	/* The new entries of each level that loses pages, its blocks verified first (a corrupt block must
	 * not get a checksum of its parts) */
	for (int k = 1; k < c->n; k++) {
		size_t last = SIZE_MAX;
		for (size_t q = 0; q < ps.n; q++) {
			const struct chain_piece *p = &ps.p[q];
			if (p->lv != (uint32_t)k || p->blk == last)
				continue;
			const struct page_block *b = &c->lv[k].blocks[p->blk];
			last = p->blk;
			if (!c->data[k] || pm_csum(&c->lv[k], c->data[k] + b->offset, b->len) != b->csum) {
				cr_fail_errno(
				    e, EBADMSG,
				    "image %s (parent %d levels up): checksum mismatch in the block for "
				    "0x%llx (corrupt image): not deduplicated",
				    mname, k, (unsigned long long)b->vaddr);
				goto out;
			}
		}
		if (last != SIZE_MAX && dedup_entries(&c->lv[k], k, &ps, c->data[k], &nb[k], &nn[k])) {
			cr_fail_errno(e, ENOMEM, "out of memory");
			goto out;
		}
	}
	/* Deepest first: a level whose entries change gets a new map hash, which its child's head names. */
	uint32_t psz = (uint32_t)sysconf(_SC_PAGESIZE);
	for (int k = c->n - 1; k >= 0; k--) {
		bool below = k + 1 < c->n && nb[k + 1];
		if (!nb[k] && !below)
			continue;
		const struct page_block *bl = nb[k] ? nb[k] : c->lv[k].blocks;
		size_t n = nb[k] ? nn[k] : c->lv[k].nr;
		for (size_t i = 0; i < n; i++)
			map_csum_add(&newmap[k], &bl[i], psz);
		if (map_write(k ? c->dfd[k] : dirfd, IMG_PAGEMAP, IMG_PAGES, id, &c->lv[k],
			      below ? newmap[k + 1] : c->lv[k].parent_map, bl, n, &w[k], e))
			goto out;
	}
	if (fail_before_commit) {
		cr_fail_errno(e, EIO, "fault injected: the new pagemaps of the chain written, none in place");
		goto out;
	}
	for (int k = c->n - 1; k >= 0; k--) {
		if (!w[k])
			continue;
		int r = img_commit(w[k], e);
		w[k] = NULL;
		if (r) {
			cr_wrap(e, "auto-dedup: %s %d levels up", mname, k);
			goto out;
		}
	}
	for (int k = 1; k < c->n; k++)
		if (nb[k])
			*freed += dedup_punch(c, k, &ps, pname);
	pr_info("auto-dedup: %s: %llu bytes of the parents' pages freed (%zu runs)\n", mname,
		(unsigned long long)*freed, ps.n);
	ret = 0;
out:
	for (int k = 0; k <= PM_CHAIN_MAX; k++) {
		if (w[k])
			img_abort(w[k]);
		free(nb[k]);
	}
	free(ps.p);
	pm_free(&c->lv[0]);
	chain_free(c);
	free(c);
	return ret;
}

int pm_dedup_dir(int dirfd, bool fail_before_commit, uint64_t *freed, struct cr_err *e)
{
	__cleanup_closedir DIR *d = images_dir_open(dirfd, e);
	if (!d)
		return -1;
	struct dirent *de;
	*freed = 0;
	while ((de = readdir(d))) {
		int id;
		uint64_t f;
		if (img_kind_of(de->d_name, &id) != IMG_PAGEMAP)
			continue;
		if (pm_dedup(dirfd, id, fail_before_commit, &f, e))
			return -1;
		*freed += f;
	}
	return 0;
}
