/* The image layer: every image file is
 *   header  { u32 magic; u32 version; }
 *   records { u32 len; u8 protobuf[len]; } ...
 *   trailer { u32 0xffffffff; u32 nr_records; u64 xxh64(header + records) }
 * Page contents live in raw page-aligned files (pages-PID.img) indexed by pagemap-PID.img,
 * whose entries carry an xxh64 of every block. Readers verify everything before use. */
#ifndef CRSHIM_IMAGE_H
#define CRSHIM_IMAGE_H

#include <stdbool.h>
#include <stdint.h>
#include <protobuf-c/protobuf-c.h>
#include "base/err.h"
#include "image/csum.h"

#include "inventory.pb-c.h"
#include "pstree.pb-c.h"
#include "core.pb-c.h"
#include "creds.pb-c.h"
#include "fs.pb-c.h"
#include "mm.pb-c.h"
#include "pagemap.pb-c.h"
#include "sigact.pb-c.h"
#include "files.pb-c.h"
#include "shmem.pb-c.h"
#include "ghost.pb-c.h"
#include "locks.pb-c.h"
#include "netns.pb-c.h"
#include "ipc-shm.pb-c.h"
#include "ns.pb-c.h"
#include "net.pb-c.h"
#include "ipc.pb-c.h"
#include "mnt.pb-c.h"
#include "cgroup.pb-c.h"

enum img_kind {
	IMG_INVENTORY,
	IMG_PSTREE,
	IMG_CORE,
	IMG_CREDS,
	IMG_FS,
	IMG_MM,
	IMG_PAGEMAP,
	IMG_PAGES, /* raw */
	IMG_SIGACTS,
	IMG_FILES,
	IMG_FDINFO,
	IMG_FILES_TASK,	     /* files-PID.img: the open files of a process other than the root of the tree */
	IMG_SHMEM,	     /* shmem.img: shared memory objects of the tree (dump-shmem.c) */
	IMG_SHMEM_PAGEMAP,   /* pagemap-shmem-ID.img: contents of one (vaddr = offset in the object) */
	IMG_SHMEM_PAGES,     /* pages-shmem-ID.img (raw) */
	IMG_GHOST,	     /* ghost-PID.img: contents of unlinked files held open or mapped */
	IMG_FILE_LOCKS,	     /* filelocks-PID.img: file locks of a process (--file-locks) */
	IMG_NETNS,	     /* netns.img: the tree's own network namespace (dump-netns.c) */
	IMG_IPC_SHM,	     /* ipc-shm.img: System V shared memory segments of the tree (dump-ipc-shm.c) */
	IMG_IPC_SHM_PAGEMAP, /* pagemap-ipcshm-ID.img: contents of segment ID (vaddr = offset) */
	IMG_IPC_SHM_PAGES,   /* pages-ipcshm-ID.img (raw) */
	IMG_NS,		     /* ns.img: the tree's namespaces by inode, UTS, time offsets (ns/ns-dump.c) */
	IMG_NET,       /* net.img: links, addresses, routes, rules, sysctls, nftables of the root's netns */
	IMG_IPC_SEM,   /* ipc-sem.img: System V semaphore sets of the root's own IPC namespace (ns/ipc.c) */
	IMG_IPC_MSG,   /* ipc-msg.img: System V message queues, with their messages */
	IMG_IPC_MQ,    /* ipc-mq.img: POSIX message queues, with their messages */
	IMG_MNT,       /* mnt.img: the mount tree of the root's mount namespace (ns/mnt-dump.c) */
	IMG_TMPFS,     /* tmpfs-ID.img: the files of the tmpfs first mounted as mount ID */
	IMG_MNTNS,     /* mntns-ID.img: a nested mount namespace, as it differs from its parent's */
	IMG_CGROUP,    /* cgroup.img: each task's cgroups, the cgroups and their properties (ns/cgroup.c) */
	IMG_NET_EXTRA, /* net-ID.img: another network namespace of the tree, as net.img (ns/net-multi.c) */
	IMG__COUNT
};

struct img_kind_desc {
	const char *name;			 /* short name for messages/JSON */
	const char *pattern;			 /* file name; "%d" for per-task images */
	uint32_t magic;				 /* 0 for raw files */
	const ProtobufCMessageDescriptor *first; /* descriptor of the first record */
	const ProtobufCMessageDescriptor *rest;	 /* descriptor of the following records */
};

#define IMG_TRAILER_MARK 0xffffffffu
#define IMG_MAX_RECORD (64u << 20)

const struct img_kind_desc *img_kind_desc(enum img_kind k);
/* File name of an image ("core-42.img"). id is ignored for images without %d. */
void img_name(enum img_kind k, int id, char *buf, size_t len);
/* Which kind a file name is (and its id); -1 if it is not an image file. */
int img_kind_of(const char *fname, int *id);
/* The size in a protobuf-c message struct of one value of a field of type t (img-show.c). */
size_t img_pb_elem_size(ProtobufCType t);

/* ---- writing ---- */
struct img_writer;
/* Start an image in dirfd. Nothing is visible under the final name until img_commit. */
int img_create(int dirfd, enum img_kind k, int id, struct img_writer **w, struct cr_err *e);
int img_write(struct img_writer *w, const ProtobufCMessage *m, struct cr_err *e);
/* img_write that drops the image (img_abort) when it fails: the caller then only returns -1. */
int img_write_or_drop(struct img_writer *w, const ProtobufCMessage *m, struct cr_err *e);
/* Write the trailer and the file, fsync-free: made under its name if no file has it yet (removed again if the
 * write fails), else written aside and renamed over the old one. Frees w. */
int img_commit(struct img_writer *w, struct cr_err *e);
/* The same into fd, a file the caller made (under the image's name): e.g. made before the writer lost the
 * right to create files in the images dir. */
int img_commit_to(struct img_writer *w, int fd, struct cr_err *e);
/* Drop an uncommitted image (removes the temporary file). NULL is fine. */
void img_abort(struct img_writer *w);
/* Convenience: one-record image. */
/* The image files a run made, removed again if it fails (names as img_name gives them). */
struct img_made {
	char (*name)[64];
	size_t n, cap;
};
int img_made_add(struct img_made *m, enum img_kind k, int id, struct cr_err *e);
void img_made_free(struct img_made *m);

int img_write_one(int dirfd, enum img_kind k, int id, const ProtobufCMessage *m, struct cr_err *e);
/* The same, for fault injection: inject_errno != 0 makes the file write fail with it half-way (the partial
 * temporary file is removed as on a real write error). */
int img_write_one_fault(int dirfd, enum img_kind k, int id, const ProtobufCMessage *m, int inject_errno,
			struct cr_err *e);

/* ---- reading ---- */
struct img_reader;
/* Open and verify (magic, version, trailer, checksum) an image. Missing file: e->errnum == ENOENT. */
int img_open(int dirfd, enum img_kind k, int id, struct img_reader **r, struct cr_err *e);
/* The same for an image that may be missing: 0 and *r = NULL then, nothing logged. */
int img_open_opt(int dirfd, enum img_kind k, int id, struct img_reader **r, struct cr_err *e);
/* Same for a file name (kind from the name); used by `show` and the verifier. */
int img_open_name(int dirfd, const char *fname, struct img_reader **r, struct cr_err *e);
/* Next record: 1 and *out set (free with protobuf_c_message_free_unpacked), 0 at the end, < 0 on error.
 * The descriptor is the kind's (first record / rest). */
int img_read(struct img_reader *r, ProtobufCMessage **out, struct cr_err *e);
enum img_kind img_reader_kind(const struct img_reader *r);
const char *img_reader_name(const struct img_reader *r);
void img_close(struct img_reader *r);
/* Convenience: read the single record of an image. */
int img_read_one(int dirfd, enum img_kind k, int id, ProtobufCMessage **out, struct cr_err *e);
/* Each record of an image that may be missing (then there are none), in order. fn returns < 0 on an error
 * (e filled: img_each stops and returns -1), 0 when done with the record (img_each frees it), 1 when it keeps
 * the record (it frees it later). A missing image is not an error; a damaged one is. */
typedef int (*img_each_fn)(ProtobufCMessage *m, void *arg, struct cr_err *e);
int img_each(int dirfd, enum img_kind k, int id, img_each_fn fn, void *arg, struct cr_err *e);

/* Every record of an image into an array (*out, *n records; free with img_free_list). A missing image has no
 * records if optional, else it is an error. On an error nothing is handed out (*out NULL, *n 0). */
int img_read_list(int dirfd, enum img_kind k, int id, bool optional, void ***out, size_t *n,
		  struct cr_err *e);
void img_free_list(void **v, size_t n);

/* An arena: records unpacked into memory of their own (mmap'd chunks, none from the heap), freed all at once
 * with img_arena_free (never with protobuf_c_message_free_unpacked; a list's array is in the arena too).
 * The restore keeps a process's images in one, so that each clone3 copies only the arenas the child needs
 * (img_arena_fork), not the whole tree's. */
struct img_arena;
struct img_arena *img_arena_new(void); /* NULL: out of memory */
/* A pool: the chunks of its arenas are carved one after the other from address space reserved for them, so
 * that the arenas of a tree's processes, when a child gets them all, are one mapping of it (a fork copies,
 * and the restorer removes, one mapping, not one per process). Its arenas' chunks are unmapped with it, once
 * img_pool_free and img_arena_free of each of its arenas were called (in any order). */
struct img_pool;
struct img_pool *img_pool_new(void); /* NULL: out of memory */
void img_pool_free(struct img_pool *p);
struct img_arena *img_arena_new_in(struct img_pool *p); /* p NULL: as img_arena_new */
void img_arena_free(struct img_arena *a);
/* Whether a fork copies the arena into the child (MADV_DOFORK) or not (MADV_DONTFORK). */
void img_arena_fork(const struct img_arena *a, bool copy);
ProtobufCAllocator *img_arena_allocator(struct img_arena *a); /* NULL for NULL (protobuf-c's default) */
/* size bytes of zeros in arena a (NULL: calloc), never free()d when in an arena */
void *img_arena_alloc(struct img_arena *a, size_t size);
/* A copy of s in arena a (NULL: strdup), for a string field of a record unpacked there: never free()d */
char *img_arena_strdup(struct img_arena *a, const char *s);
/* img_read_one and img_read_list into arena a (NULL: the heap, as they do) */
int img_read_one_in(int dirfd, enum img_kind k, int id, ProtobufCMessage **out, struct img_arena *a,
		    struct cr_err *e);
int img_read_list_in(int dirfd, enum img_kind k, int id, bool optional, void ***out, size_t *n,
		     struct img_arena *a, struct cr_err *e);

/* ---- pages ---- */
struct page_writer;
/* Creates pagemap-ID.img and pages-ID.img. */
int pw_open(int dirfd, int id, struct page_writer **pw, struct cr_err *e);
/* The same with other kinds (IMG_SHMEM_PAGEMAP + IMG_SHMEM_PAGES). */
int pw_open_kinds(int dirfd, enum img_kind kmap, enum img_kind kpages, int id, struct page_writer **pw,
		  struct cr_err *e);
/* Append len bytes (multiple of the page size) that belong at vaddr. */
/* The same, the pages sent to a page server (image/page-xfer.h; NULL: written to dirfd as above). */
struct page_xfer;
int pw_open_px(int dirfd, struct page_xfer *px, enum img_kind kmap, enum img_kind kpages, int id,
	       struct page_writer **pw, struct cr_err *e);
int pw_add(struct page_writer *pw, uint64_t vaddr, const void *buf, size_t len, struct cr_err *e);
/* Append a buffer of consecutive blocks whose checksums the caller computed: b[i].offset is the block's
 * offset in buf, b[i].len its length, b[i].csum = pw_block_csum(buf + offset, len). Blocks in address order.
 */
struct page_block;
int pw_add_batch(struct page_writer *pw, const void *buf, size_t len, const struct page_block *b, size_t nb,
		 struct cr_err *e);
/* Bytes of pages added so far. */
uint64_t pw_bytes(const struct page_writer *pw);
int pw_commit(struct page_writer *pw, struct cr_err *e);
/* Fault injection: from now on writes of pw fail with errnum after a partial write (e.g. ENOSPC). */
void pw_inject_error(struct page_writer *pw, int errnum);
void pw_abort(struct page_writer *pw);

struct page_block {
	uint64_t vaddr;
	uint64_t offset; /* in the pages file */
	uint64_t len;	 /* bytes */
	uint64_t csum;
	uint32_t flags; /* PE_* */
	uint32_t src;	/* pm_open of a chain: 0 the dir's own pages file, k the page_map's src[k - 1] */
};
#define PE_PARENT 1u /* pagemap_entry.flags: the pages are in the parent images dir (the `parent` link) */
/* Incremental dumps: the pages of [vaddr, vaddr+len) are the parent's (parent_map: pm_open_raw's map_csum
 * of the parent's pagemap of the same id, checked when restore follows the chain). */
void pw_set_parent(struct page_writer *pw, uint64_t parent_map);
int pw_add_parent(struct page_writer *pw, uint64_t vaddr, uint64_t len, struct cr_err *e);
/* A pages file of a parent level that blocks of a resolved chain read from. */
struct pm_src {
	int fd;
	uint64_t size;
};
struct page_map {
	int pages_fd; /* open pages file, O_RDONLY */
	uint64_t total_size;
	size_t nr;
	struct page_block *blocks; /* address order */
	uint64_t map_csum;	   /* hash of the entries as written (what a child's parent_map names) */
	uint32_t csum_kind;	   /* enum csum_kind (image/csum.h) of the blocks' csum */
	uint64_t parent_map;	   /* the head's parent_map */
	size_t nr_parent;	   /* PE_PARENT entries (pm_open_raw only: pm_open resolves them) */
	struct pm_src *src;	   /* pm_open of a chain: the parents' pages files blocks point into */
	uint32_t nr_src;
};
/* The checksum of a block a page writer writes (new images: CRC32C). */
static inline uint64_t pw_block_csum(const void *buf, size_t len)
{
	return csum_block(CSUM_CRC32C, buf, len);
}
/* The checksum of len bytes at data, of the kind pm's blocks carry (a resolved chain's are all that). */
static inline uint64_t pm_csum(const struct page_map *pm, const void *data, size_t len)
{
	return csum_block((enum csum_kind)pm->csum_kind, data, len);
}
/* Bytes of page data of the blocks (a resolved chain's are in several files: total_size is its own). */
static inline uint64_t pm_data_bytes(const struct page_map *pm)
{
	uint64_t n = 0;
	for (size_t i = 0; i < pm->nr; i++)
		n += pm->blocks[i].len;
	return n;
}
/* The fd of the pages file a block's data is in (its src). */
static inline int pm_block_fd(const struct page_map *pm, const struct page_block *b)
{
	return b->src ? pm->src[b->src - 1].fd : pm->pages_fd;
}
/* Verify a pagemap and its page file, and when it has PE_PARENT entries the whole chain (every level's
 * checksums, every parent run there) without copying anything. */
int pm_check_chain(int dirfd, enum img_kind kmap, enum img_kind kpages, int id, struct cr_err *e);
/* The entries as written, PE_PARENT ones included (offset and csum 0), without following the chain. */
int pm_open_raw(int dirfd, enum img_kind kmap, enum img_kind kpages, int id, struct page_map *pm,
		struct cr_err *e);
/* The same without the pages file (pages_fd -1): a parent dumped through a page server has none here. */
int pm_open_map(int dirfd, enum img_kind kmap, enum img_kind kpages, int id, struct page_map *pm,
		struct cr_err *e);
/* Load pagemap-ID.img (every entry checked) and open pages-ID.img (its size checked), no block checksums.
 * Entries in the parent (PE_PARENT) are resolved through the `parent` chain without copying: each becomes
 * blocks that point into the pages file of the level holding them (src, pm->src[]); every parent block
 * they use is checksummed here and each such block gets the checksum of its own bytes, so the reader
 * verifies it as it reads like any other block. */
int pm_open(int dirfd, int id, struct page_map *pm, struct cr_err *e);
/* pm_open, then verify every block checksum (on one CPU). */
int pm_load(int dirfd, int id, struct page_map *pm, struct cr_err *e);
/* The same with other kinds (IMG_SHMEM_PAGEMAP + IMG_SHMEM_PAGES). */
int pm_open_kinds(int dirfd, enum img_kind kmap, enum img_kind kpages, int id, struct page_map *pm,
		  struct cr_err *e);
int pm_load_kinds(int dirfd, enum img_kind kmap, enum img_kind kpages, int id, struct page_map *pm,
		  struct cr_err *e);
void pm_free(struct page_map *pm);
/* Every pages file of pm mapped read-only: *data[0] its own, *data[k] the parent src[k - 1] (NULL when
 * empty); pname names the pages file in errors. Undone by pm_unmap_data (also of a half-made *data). */
int pm_map_data(const struct page_map *pm, const char *pname, const uint8_t ***data, struct cr_err *e);
void pm_unmap_data(const struct page_map *pm, const uint8_t **data);
/* Block b of pm lies within its mapped pages file (data of pm_map_data) and has its checksum. */
bool pm_block_ok(const struct page_map *pm, const uint8_t *const *data, const struct page_block *b);

/* --auto-dedup: the pages pagemap-ID.img (just written) holds itself are removed from the levels of its chain
 * that hold them too (FALLOC_FL_PUNCH_HOLE in their pages files); each such level's pagemap loses those
 * pages (the parts left re-checksummed, its blocks verified first) and the head of the level below names
 * its new map, so the chain still verifies. The new pagemaps are all written before any is put in place
 * (fail_before_commit: a fault point there; nothing changes), the holes punched last. The parents are no
 * longer restore points of their own. freed: bytes punched. */
int pm_dedup(int dirfd, int id, bool fail_before_commit, uint64_t *freed, struct cr_err *e);
/* pm_dedup for every pagemap-*.img of the dir. */
int pm_dedup_dir(int dirfd, bool fail_before_commit, uint64_t *freed, struct cr_err *e);

/* Verify every image file in a dir (records and page blocks). Used before a restore touches anything. */
int img_verify_dir(int dirfd, struct cr_err *e);
/* The same, but the page blocks of pages-UNSUMMED_ID.img are not checksummed (the caller does it, e.g. the
 * restore with all CPUs); its pagemap is still checked. 0: every id is checksummed. */
int img_verify_dir_but(int dirfd, int unsummed_id, struct cr_err *e);
#define IMG_UNSUMMED_ALL                                                                                     \
	(-1) /* unsummed_id: the page blocks of no task's pages file (the restore: each rst_pages_load) */

#endif
