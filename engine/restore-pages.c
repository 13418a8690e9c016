/* Restore: load the root task's pagemap and verify every page block checksum with all CPUs (the image
 * layer's pm_load does the same on one CPU; for a large image the checksums are a third of the restore). */
#define LOG_PREFIX "restore-pages: "
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "csum.h"
#include "log.h"
#include "restore.h"

#define VERIFY_MAX_THREADS 8
#define VERIFY_PER_THREAD_MIN (32ull << 20)

struct verify_part {
	const struct page_map *pm;
	const uint8_t *data;
	size_t from, to; /* block indexes */
	size_t bad;      /* first bad block, or SIZE_MAX */
};

static void *verify_main(void *arg)
{
	struct verify_part *p = arg;
	p->bad = SIZE_MAX;
	for (size_t i = p->from; i < p->to; i++) {
		const struct page_block *b = &p->pm->blocks[i];
		if (csum64(p->data + b->offset, b->len, 0) != b->csum) {
			p->bad = i;
			break;
		}
	}
	return NULL;
}

/* Split the blocks into n parts of about equal bytes and check them in parallel. */
static int verify_blocks(const struct page_map *pm, const uint8_t *data, const char *name, struct cr_err *e)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	size_t n = (size_t)(cpus > 0 ? cpus : 1);
	struct verify_part part[VERIFY_MAX_THREADS];
	pthread_t th[VERIFY_MAX_THREADS];
	bool started[VERIFY_MAX_THREADS] = {false};

	if (n > VERIFY_MAX_THREADS)
		n = VERIFY_MAX_THREADS;
	if (n > pm->total_size / VERIFY_PER_THREAD_MIN + 1)
		n = pm->total_size / VERIFY_PER_THREAD_MIN + 1;
	uint64_t per = pm->total_size / n + 1, acc = 0;
	size_t bi = 0;
	for (size_t k = 0; k < n; k++) {
		part[k] = (struct verify_part){pm, data, bi, bi, SIZE_MAX};
		while (bi < pm->nr && (k == n - 1 || acc < per * (k + 1)))
			acc += pm->blocks[bi++].len;
		part[k].to = bi;
		if (k && !pthread_create(&th[k], NULL, verify_main, &part[k]))
			started[k] = true;
		else if (k)
			verify_main(&part[k]);
	}
	verify_main(&part[0]);
	size_t bad = SIZE_MAX;
	for (size_t k = 0; k < n; k++) {
		if (started[k])
			pthread_join(th[k], NULL);
		if (part[k].bad < bad)
			bad = part[k].bad;
	}
	if (bad != SIZE_MAX)
		return cr_fail_errno(e, EBADMSG, "image %s: checksum mismatch in the block for 0x%llx (corrupt image)", name,
				     (unsigned long long)pm->blocks[bad].vaddr);
	return 0;
}

static int add_block(struct page_map *pm, const PagemapEntry *pe, uint32_t psz, size_t *cap, const char *name,
		     struct cr_err *e)
{
	uint64_t len = (uint64_t)pe->nr_pages * psz;
	if (!pe->has_vaddr || !pe->has_offset || !pe->has_csum || !pe->nr_pages || pe->vaddr % psz || pe->offset % psz ||
	    pe->offset > pm->total_size || len > pm->total_size - pe->offset)
		return cr_fail_errno(e, EBADMSG, "image %s: malformed entry %zu", name, pm->nr);
	if (pm->nr && pe->vaddr < pm->blocks[pm->nr - 1].vaddr + pm->blocks[pm->nr - 1].len)
		return cr_fail_errno(e, EBADMSG, "image %s: entry %zu overlaps or is out of order", name, pm->nr);
	if (pm->nr == *cap) {
		size_t ncap = *cap ? *cap * 2 : 256;
		struct page_block *nb = realloc(pm->blocks, ncap * sizeof(*nb));
		if (!nb)
			return cr_fail_errno(e, ENOMEM, "out of memory");
		pm->blocks = nb;
		*cap = ncap;
	}
	pm->blocks[pm->nr++] = (struct page_block){pe->vaddr, pe->offset, len, pe->csum};
	return 0;
}

static int read_map(int dirfd, int id, struct page_map *pm, struct cr_err *e)
{
	struct img_reader *r;
	ProtobufCMessage *m;
	char mname[64], pname[64];
	size_t cap = 0;
	int ret;

	img_name(IMG_PAGEMAP, id, mname, sizeof(mname));
	img_name(IMG_PAGES, id, pname, sizeof(pname));
	if (img_open(dirfd, IMG_PAGEMAP, id, &r, e))
		return -1;
	if ((ret = img_read(r, &m, e)) <= 0) {
		img_close(r);
		return ret ? -1 : cr_fail_errno(e, EBADMSG, "image %s: empty", mname);
	}
	const PagemapHead *h = (PagemapHead *)m;
	uint32_t psz = h->has_page_size ? h->page_size : 0;
	bool bad = psz != (uint32_t)sysconf(_SC_PAGESIZE) || !h->pages_file || strcmp(h->pages_file, pname);
	pm->total_size = h->total_size;
	protobuf_c_message_free_unpacked(m, NULL);
	if (bad) {
		img_close(r);
		return cr_fail_errno(e, EBADMSG, "image %s: bad head (page size or page file name)", mname);
	}
	while ((ret = img_read(r, &m, e)) > 0) {
		ret = add_block(pm, (PagemapEntry *)m, psz, &cap, mname, e);
		protobuf_c_message_free_unpacked(m, NULL);
		if (ret)
			break;
	}
	img_close(r);
	return ret < 0 ? -1 : 0;
}

int rst_pages_load(int dirfd, int id, struct page_map *pm, struct cr_err *e)
{
	char pname[64];
	struct stat st;

	memset(pm, 0, sizeof(*pm));
	pm->pages_fd = -1;
	img_name(IMG_PAGES, id, pname, sizeof(pname));
	if (read_map(dirfd, id, pm, e))
		goto fail;
	pm->pages_fd = openat(dirfd, pname, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (pm->pages_fd < 0 || fstat(pm->pages_fd, &st)) {
		cr_fail_sys(e, "open image %s", pname);
		goto fail;
	}
	if ((uint64_t)st.st_size != pm->total_size) {
		cr_fail_errno(e, EBADMSG, "image %s: size %lld, pagemap says %llu (truncated?)", pname,
			      (long long)st.st_size, (unsigned long long)pm->total_size);
		goto fail;
	}
	if (!pm->total_size)
		return 0;
	void *data = mmap(NULL, pm->total_size, PROT_READ, MAP_SHARED | MAP_POPULATE, pm->pages_fd, 0);
	if (data == MAP_FAILED) {
		cr_fail_sys(e, "map %s", pname);
		goto fail;
	}
	int ret = verify_blocks(pm, data, pname, e);
	munmap(data, pm->total_size);
	if (!ret)
		return 0;
fail:
	pm_free(pm);
	return -1;
}
