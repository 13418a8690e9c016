/* Restore, step 1 (parent, before anything is created): verify every image, load the root task's images and
 * check that the restore can work here (files, sizes, PID, vDSO layout). */
#define LOG_PREFIX "restore: "
#include <dirent.h>
#include <errno.h>
#include <linux/membarrier.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arch.h"
#include "base/cleanup.h"
#include "files/ghost.h"
#include "files/inherit-fd.h"
#include "files/locks.h"
#include "base/log.h"
#include "files/pipes.h"
#include "files/procfd.h"
#include "files/evfd.h"
#include "files/fd-kind.h"
#include "restore.h"
#include "net/sk-inet.h"

/* Verify every image file of the dir (records, trailers, checksums, every page block) but the tasks' page
 * blocks: each task's rst_pages_load checksums them (with all CPUs) once its mm image is known, and every
 * task of pstree.img is loaded (rst_load_tree) before the restore makes anything; checksummed here too, the
 * pages of all but the root were summed twice. Their pagemaps and chains of parents are still checked here.
 */
static int verify_images(struct rst_task *t, struct cr_err *e)
{
	char name[64];
	struct stat st;
	img_name(IMG_PAGEMAP, t->pid, name, sizeof(name));
	if (fstatat(t->dirfd, name, &st, AT_SYMLINK_NOFOLLOW))
		return cr_fail_errno(e, ENOENT, "no %s in the images dir", name);
	/* --lazy-pages: each task's eager blocks are checked by its rst_pages_load, the lazy ones by
	 * lazy-pages as it serves them (with lazy-pages --page-server they are not here yet). The dump's
	 * check: none, the dump has just written them (their loading still parses every record it needs). */
	return t->dry_dump ? 0 : img_verify_dir_but(t->dirfd, IMG_UNSUMMED_ALL, e);
}

static int read_pstree(struct rst_task *t, struct cr_err *e)
{
	void **v;
	size_t n;
	if (img_read_list(t->dirfd, IMG_PSTREE, 0, false, &v, &n, e))
		return -1;
	t->all_pst = (PstreeEntry **)v;
	t->n_all_pst = n;
	if (!n || t->all_pst[0]->pid != t->pid)
		return cr_fail_errno(e, EBADMSG, "pstree.img does not start with the root task %d", t->pid);
	for (size_t i = 0; i < n; i++) {
		PstreeEntry *p = t->all_pst[i];
		if (p->pid <= 0 || (i && (p->ppid <= 0 || p->pid == t->pid)))
			return cr_fail_errno(e, EBADMSG, "pstree.img: bad entry %zu (pid %d, ppid %d)", i,
					     p->pid, p->ppid);
		if (p->n_threads > 0 && p->threads[0] != p->pid)
			return cr_fail_errno(e, EBADMSG,
					     "pstree.img: task %d: the first thread is %d, not the leader",
					     p->pid, p->threads[0]);
	}
	t->pst = t->all_pst[0];
	return 0;
}

static int read_inventory(struct cr_opts *o, struct rst_task *t, struct cr_err *e)
{
	if (img_read_one(t->dirfd, IMG_INVENTORY, 0, (ProtobufCMessage **)&t->inv, e)) {
		if (e->errnum == ENOENT)
			return cr_fail_errno(e, ENOENT,
					     "no inventory.img in %s: not an image dir or an incomplete dump",
					     o->images_dir ? o->images_dir : ".");
		return -1;
	}
	InventoryEntry *inv = t->inv;
	if (!inv->arch || strcmp(inv->arch, arch_name()))
		return cr_fail_errno(e, EINVAL, "the images are for %s, this is %s",
				     inv->arch ? inv->arch : "?", arch_name());
	if (!inv->has_img_version || inv->img_version > CRSHIM_IMG_VERSION)
		return cr_fail_errno(
		    e, EINVAL, "image format version %u is newer than this crshim's (%u): upgrade crshim",
		    inv->img_version, CRSHIM_IMG_VERSION);
	if (!inv->has_root_pid || inv->root_pid <= 0)
		return cr_fail_errno(e, EBADMSG, "inventory.img has no root pid");
	if (inv->pre_dump)
		return cr_fail_errno(e, EINVAL,
				     "%s holds a pre-dump (memory only): restore the dump made with "
				     "--prev-images-dir pointing at it",
				     o->images_dir ? o->images_dir : ".");
	t->pid = inv->root_pid;
	t->shell_job = inv->shell_job;
	return 0;
}

static int check_core(const CoreEntry *c, int id, struct cr_err *e)
{
	if (!c->has_gpregs || c->gpregs.len != arch_gpregs_size())
		return cr_fail_errno(e, EBADMSG, "core-%d.img: registers missing or of another size", id);
	if (c->arch && strcmp(c->arch, arch_name()))
		return cr_fail_errno(e, EINVAL, "core-%d.img: registers of %s, this is %s", id, c->arch,
				     arch_name());
	const uint32_t mb = MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED |
			    MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED |
			    MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE |
			    MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_RSEQ;
	if (c->has_membarrier && (c->membarrier & ~mb))
		return cr_fail_errno(e, EBADMSG, "core-%d.img: membarrier registrations 0x%x: unknown ones",
				     id, c->membarrier & ~mb);
	return 0;
}

/* Credentials of task (or thread) id of t that crshim can give: in a user namespace of its own
 * (ns/userns.c) those of the namespace, so each id must map into it (rst_userns_prepare maps them). */
static int check_creds(const struct rst_task *t, int id, const CredsEntry *c, struct cr_err *e)
{
	const struct ns_rst *ns = t->root ? t->ns : t->tree ? t->tree[0].ns : NULL;
	return rst_creds_check(id, c, ns_rst_has_user(ns), e) || ns_rst_check_creds(ns, id, c, e) ? -1 : 0;
}

/* core-TID.img of every thread but the leader. */
static int read_thread_cores(struct rst_task *t, struct cr_err *e)
{
	size_t n = t->pst && t->pst->n_threads > 1 ? t->pst->n_threads - 1 : 0;
	if (!n)
		return 0;
	// NOLINTNEXTLINE(bugprone-sizeof-expression): an array of message pointers
	t->tcores = img_arena_alloc(t->arena, n * sizeof(*t->tcores));
	if (!t->tcores)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++) {
		int tid = t->pst->threads[i + 1];
		if (tid <= 0 || tid == t->pid)
			return cr_fail_errno(e, EBADMSG, "pstree.img: task %d: bad thread id %d", t->pid,
					     tid);
		if (img_read_one_in(t->dirfd, IMG_CORE, tid, (ProtobufCMessage **)&t->tcores[i], t->arena, e))
			return -1;
		t->nr_tcores = i + 1;
		if (check_core(t->tcores[i], tid, e))
			return -1;
		if (t->tcores[i]->thread_creds && check_creds(t, tid, t->tcores[i]->thread_creds, e))
			return -1;
	}
	return 0;
}

static int fid_cmp(const void *a, const void *b)
{
	const struct rst_fid *x = a, *y = b;
	return x->id != y->id ? (x->id > y->id) - (x->id < y->id) : (x->idx > y->idx) - (x->idx < y->idx);
}

/* The index of t's files by id (rst_file_by_id): a lookup per fd of a process (and per holder of a shared
 * file) went through the whole list, which for a tree is every file of every process when they share them. */
static int index_files(struct rst_task *t, struct cr_err *e)
{
	t->fids = NULL;
	if (t->nr_files < 16)
		return 0;
	struct rst_fid *x = img_arena_alloc(t->farena, t->nr_files * sizeof(*x));
	if (!x)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	for (size_t i = 0; i < t->nr_files; i++)
		x[i] = (struct rst_fid){t->files[i]->id, (uint32_t)i};
	qsort(x, t->nr_files, sizeof(*x), fid_cmp);
	t->fids = x;
	return 0;
}

static int read_task(struct rst_task *t, struct cr_err *e)
{
	int id = t->pid;
	const struct rst_task *r = t->root ? t : t->tree;
	if (t->root && t->n_all_pst > 1 && !t->apool &&
	    (!(t->apool = img_pool_new()) || !(t->fpool = img_pool_new())))
		return cr_fail_errno(e, ENOMEM, "out of memory");
	if ((!t->arena && !(t->arena = img_arena_new_in(r ? r->apool : NULL))) ||
	    (!t->farena && !(t->farena = img_arena_new_in(r ? r->fpool : NULL))))
		return cr_fail_errno(e, ENOMEM, "out of memory");
	struct img_arena *a = t->arena;
	if (img_read_one_in(t->dirfd, IMG_CORE, id, (ProtobufCMessage **)&t->core, a, e))
		return -1;
	if (t->core->task_state == 2) {
		if (t->root)
			return cr_fail_errno(e, EBADMSG, "core-%d.img: the root task is a zombie", id);
		t->zombie = true;
		return 0;
	}
	if (img_read_one_in(t->dirfd, IMG_FS, id, (ProtobufCMessage **)&t->fs, a, e) ||
	    img_read_one_in(t->dirfd, IMG_MM, rst_svm_mm_id(t), (ProtobufCMessage **)&t->mm, a, e))
		return -1;
	if (img_read_one_in(t->dirfd, IMG_CREDS, id, (ProtobufCMessage **)&t->creds, a, e)) {
		if (e->errnum != ENOENT)
			return -1;
		cr_err_clear(e);
		t->creds = NULL;
	}
	if (img_read_list_in(t->dirfd, IMG_SIGACTS, id, true, (void ***)&t->sigacts, &t->nr_sigacts, a, e) ||
	    img_read_list_in(t->dirfd, t->root ? IMG_FILES : IMG_FILES_TASK, t->root ? 0 : id, true,
			     (void ***)&t->files, &t->nr_files, t->farena, e) ||
	    img_read_list_in(t->dirfd, IMG_FDINFO, id, true, (void ***)&t->fdinfo, &t->nr_fdinfo, t->farena,
			     e) ||
	    index_files(t, e))
		return -1;
	if (check_core(t->core, id, e))
		return -1;
	const struct ns_rst *ns = t->root ? t->ns : t->tree ? t->tree[0].ns : NULL;
	if (t->pst && t->pst->mntns && ns && !ns_rst_has_mntns(ns, t->pst->mntns))
		return cr_fail_errno(e, EBADMSG,
				     "pstree.img: task %d: its mount namespace (mntns-%u.img) is missing",
				     t->pid, t->pst->mntns);
	if (t->creds && check_creds(t, id, t->creds, e))
		return -1;
	return read_thread_cores(t, e);
}

/* "restore: PID 1234 is already in use by 'comm'" */
void rst_free(struct rst_task *t)
{
	if (t->mm && t->vma_prefilled)
		rst_prefill_drop(t);
	free(t->vma_prefilled);
	free(t->blk_lazy);
	if (t->inv)
		protobuf_c_message_free_unpacked(&t->inv->base, NULL);
	if (t->all_pst)
		img_free_list((void **)t->all_pst, t->n_all_pst); /* t->pst is one of them */
	if (!t->arena) {					  /* (else in it: check_mapped_files) */
		free(t->mfiles);
		free(t->vma_mfile);
	}
	img_arena_free(t->arena); /* (tcores, sigacts, their arrays) */
	img_arena_free(t->farena);
	img_pool_free(t->apool); /* (the root's, freed last: its arenas are gone by then or go later) */
	img_pool_free(t->fpool);
	pm_free(&t->pm);
	rst_ghost_free(t);
	rst_locks_free(t);
	rst_area_free(t);
	if (t->live_paths)
		close(t->live_root);
	memset(t, 0, sizeof(*t));
	t->pm.pages_fd = -1;
	t->dirfd = -1;
}

static int add_mfile(struct rst_task *t, const char *path, int oflags)
{
	for (size_t i = 0; i < t->nr_mfiles; i++)
		if (t->mfiles[i].fd < 0 && t->mfiles[i].oflags == oflags && !strcmp(t->mfiles[i].path, path))
			return (int)i;
	t->mfiles[t->nr_mfiles] = (struct rst_mfile){path, oflags, -1, 0, false, NULL};
	return (int)t->nr_mfiles++;
}

/* Files of file mappings: present, and the size the dump saw (else the mapped contents differ). */
static int check_mapped_files(struct rst_task *t, struct cr_err *e)
{
	const MmEntry *mm = t->mm;
	/* in the arena, with mm: a clone3 copies them into the processes of its line only */
	t->mfiles = img_arena_alloc(t->arena, (mm->n_vmas + 1) * sizeof(*t->mfiles));
	t->vma_mfile = img_arena_alloc(t->arena, (mm->n_vmas + 1) * sizeof(*t->vma_mfile));
	t->nr_mfiles = 0;
	if (!t->mfiles || !t->vma_mfile)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	const char *last = NULL; /* the path stat'ed last, its result in r and st */
	bool exe_seen = false;	 /* the executable's path was stat'ed (and found) */
	int r = 0;
	struct stat st;
	for (size_t i = 0; i < mm->n_vmas; i++) {
		const VmaEntry *v = mm->vmas[i];
		t->vma_mfile[i] = -1;
		if ((v->kind != VMA_KIND__VMA_FILE_PRIVATE && v->kind != VMA_KIND__VMA_FILE_SHARED) ||
		    v->has_shmid)
			continue; /* a memfd: restore-shmem.c */
		if (!v->path || v->deleted)
			return cr_fail_errno(e, ENOTSUP,
					     "vma 0x%llx-0x%llx: mapping of a deleted or unnamed file",
					     (unsigned long long)v->start, (unsigned long long)v->end);
		/* In a restored mount tree the path exists only after pivot_root: the open checks it then
		 * (rst_path_stat 1; the dump's check looks in the live tree). A ghost is made with its size
		 * (or, in a dry run, only named): 1 too. The VMAs of one file follow each other (a library's
		 * 4 or 5): looked up once. */
		if (!last || strcmp(last, v->path))
			r = rst_path_stat(t, v->path, &st, true);
		last = v->path;
		exe_seen = exe_seen || (t->mm->exe_path && !strcmp(v->path, t->mm->exe_path));
		if (r < 0)
			return cr_fail_sys(e, "file %s (mapped at 0x%llx)", v->path,
					   (unsigned long long)v->start);
		if (!r && v->has_file_size && (uint64_t)st.st_size != v->file_size)
			return cr_fail_errno(
			    e, 0, "file %s (mapped at 0x%llx) changed since the dump: size %lld, was %llu",
			    v->path, (unsigned long long)v->start, (long long)st.st_size,
			    (unsigned long long)v->file_size);
		int acc = (v->file_flags & O_ACCMODE) == O_RDWR ? O_RDWR : O_RDONLY;
		t->vma_mfile[i] = add_mfile(t, v->path, acc);
		/* a ghost its process makes again on its own mount: the mapping maps that copy, once the fd
		 * that makes it is open (restore-files.c ring_fds) ... */
		int cfd = rst_ghost_copy_fd(t, v->path);
		struct rst_mfile *mf = &t->mfiles[t->vma_mfile[i]];
		if (cfd >= 0)
			mf->task_fd1 = cfd + 1, mf->reopen = true;
		else if (v->ghost_mnt) /* ... else one made for them (restore-files.c) */
			mf->copy = v;
	}
	if (!t->mm->exe_path ||
	    (!exe_seen && rst_path_stat(t, t->mm->exe_path, &st, true) < 0)) /* 1: as above */
		return cr_fail_sys(e, "executable %s",
				   t->mm->exe_path ? t->mm->exe_path : "(none in the image)");
	return 0;
}

/* The dump's check of a tree with its own mount tree (paths_later): the tree is alive and frozen, so the
 * paths of its files and mappings are looked up in it, as the restore will open them in the mount tree it
 * makes again (the root task opens them after pivot_root, before any chroot of its own): from the task's
 * root (/proc/PID/root) when that is its mount namespace's root. Where it is not (a chroot), they are left
 * to the restore, as without the live tree. */
static void live_root(struct rst_task *t)
{
	if (!t->dry_dump || !t->paths_later)
		return;
	char p[64];
	snprintf(p, sizeof(p), "/proc/%d/root", t->pid);
	if (!t->fs->root || strcmp(t->fs->root, "/")) {
		pr_info(
		    "task %d: its root is %s, not its mount namespace's: its paths are left to the restore\n",
		    t->pid, t->fs->root ? t->fs->root : "(none)");
		return;
	}
	t->live_root = open(p, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (t->live_root < 0)
		pr_info("task %d: open %s: %s: its paths are left to the restore\n", t->pid, p,
			strerror(errno));
	t->live_paths = t->live_root >= 0;
}

/* The vDSO/vvar blocks of the image must have the sizes this kernel gives (the blob only moves them). */
static int check_vdso(struct rst_task *t, struct cr_err *e)
{
	static const VmaKind kinds[RST_NR_SPECIAL] = {VMA_KIND__VMA_VVAR, VMA_KIND__VMA_VVAR_VCLOCK,
						      VMA_KIND__VMA_VDSO};
	static const char *const names[RST_NR_SPECIAL] = {"[vvar]", "[vvar_vclock]", "[vdso]"};
	/* crshim's own, read once (/proc/self/maps) for the tree: the root's */
	if (t->tree && t != &t->tree[0] && t->tree[0].mm)
		memcpy(t->cur_special, t->tree[0].cur_special, sizeof(t->cur_special));
	else if (rst_self_specials(t->cur_special, e))
		return -1;
	for (size_t i = 0; i < t->mm->n_vmas; i++) {
		const VmaEntry *v = t->mm->vmas[i];
		for (int k = 0; k < RST_NR_SPECIAL; k++) {
			if (v->kind != kinds[k])
				continue;
			uint64_t len = v->end - v->start, cur = t->cur_special[k].len;
			if (len != cur)
				return cr_fail_errno(
				    e, EINVAL,
				    "%s is %llu KiB in the image but %llu KiB on this kernel: the image was "
				    "made on another kernel",
				    names[k], (unsigned long long)len >> 10, (unsigned long long)cur >> 10);
		}
	}
	return 0;
}

int rst_load_task(struct cr_opts *o, struct rst_task *t, struct cr_err *e)
{
	t->pm.pages_fd = -1;
	t->err_pipe[0] = t->err_pipe[1] = t->go_pipe[0] = t->go_pipe[1] = t->go_again = -1;
	t->userns_fd = -1;
	if (read_task(t, e))
		return -1;
	if (!t->zombie) {
		live_root(t);
		if (o->tcp_close)
			rst_sk_tcp_close(t);
		struct timespec t0;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		t->stats = t->dry ? NULL : o->stats;
		if (rst_svm_sharer(t) ? rst_svm_load(t, e) : rst_pages_load(t, e))
			return -1;
		CR_STAT_ADD(t->stats, mm_load_us, cr_us_since(&t0));
		CR_STAT_ADD(t->stats, pages_restored,
			    pm_data_bytes(&t->pm) / (uint64_t)sysconf(_SC_PAGESIZE));
		CR_STAT_ADD(t->stats, tasks_done, 1);
		pr_info("images verified: task %d, %zu vmas, %llu bytes of pages in %zu blocks\n", t->pid,
			t->mm->n_vmas, (unsigned long long)pm_data_bytes(&t->pm), t->pm.nr);
		if ((!t->dry_dump && rst_inherit_prepare(o, t, e)) || rst_pipes_prepare(o, t, e) ||
		    rst_ghost_prepare(t, e) || rst_locks_load(t, e) || rst_files_check(t, e) ||
		    check_mapped_files(t, e) || check_vdso(t, e))
			return -1;
		/* (said once for the tree: for the root, and for a process where it is otherwise) */
		if (t->paths_later && (t->root || !t->tree || t->live_paths != t->tree[0].live_paths))
			pr_info("task %d: its files and mapped files are checked %s\n", t->pid,
				t->live_paths ? "in the live tree, as the restored mount tree will have them"
					      : "when opened in the restored mount tree");
	}
	/* fresh: rst_pidns_fresh decides; the dump's check: they are the live tree's */
	return t->fresh_hpid || t->dry_dump ? 0 : rst_check_pids(t, e);
}

int rst_load(struct cr_opts *o, struct rst_task *t, struct cr_err *e)
{
	t->dirfd = o->imgdir_fd;
	t->root = true;
	if (read_inventory(o, t, e) || verify_images(t, e) || ns_rst_load(o, t->dirfd, &t->ns, e) ||
	    read_pstree(t, e))
		return -1;
	t->paths_later = ns_rst_mounts(t->ns);
	t->lazy = o->lazy_pages;
	t->no_prefill = t->n_all_pst > 1 || t->lazy || t->dry; /* --lazy-pages: lazy-pages fills them */
	t->fresh_hpid = rst_pidns_fresh_maybe(t);
	return rst_load_task(o, t, e);
}

/* Whether each process's files records are read only in its own line of the tree (itself, the processes that
 * clone it, those it clones, the root), so that a clone3 may leave the other processes' farenas out: files
 * opened by path, pipes, inherited fds; none carried by a socket (in flight) and no process in a mount
 * namespace of its own (one of its files shared with others is opened by the namespace's owner from the
 * first holder's entry: restore-fdshare.c). Other kinds (sockets, epoll, event fds, ttys, ...) read other
 * processes' entries in the child. */
static bool files_local(const struct rst_task *ts, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		if (ts[k].pst && (ts[k].pst->mntns || ts[k].pst->mntns_up))
			return false;
		for (size_t i = 0; i < ts[k].nr_files; i++) {
			const FileEntry *f = ts[k].files[i];
			if ((f->kind != FILE_KIND__FILE_REG && f->kind != FILE_KIND__FILE_CHR &&
			     f->kind != FILE_KIND__FILE_PIPE && f->kind != FILE_KIND__FILE_FIFO &&
			     f->kind != FILE_KIND__FILE_INHERIT) ||
			    f->in_flight || f->has_same_flight_pid)
				return false;
		}
	}
	return true;
}

/* The other processes of the tree (the root is loaded and knows the pstree). */
int rst_load_tree(struct cr_opts *o, struct rst_task **tsp, size_t *np, struct cr_err *e)
{
	size_t n = (*tsp)[0].n_all_pst;
	if (o->stats && !(*tsp)[0].dry)
		__atomic_store_n(&o->stats->tasks_total, (uint64_t)n, __ATOMIC_RELAXED);
	if (n > 1) {
		struct rst_task *nt = realloc(*tsp, n * sizeof(*nt));
		if (!nt)
			return cr_fail_errno(e, ENOMEM, "out of memory");
		*tsp = nt;
		memset(&nt[1], 0, (n - 1) * sizeof(*nt));
	}
	struct rst_task *ts = *tsp;
	for (size_t i = 0; i < n; i++) {
		ts[i].tree = ts;
		ts[i].ntree = n;
	}
	for (size_t i = 1; i < n; i++) {
		struct rst_task *t = &ts[i];
		t->dirfd = o->imgdir_fd;
		t->pst = ts[0].all_pst[i];
		t->pid = t->pst->pid;
		t->no_prefill = true;
		t->lazy = ts[0].lazy;
		t->paths_later = ts[0].paths_later;
		t->fresh_hpid = ts[0].fresh_hpid;
		t->dry = ts[0].dry;
		t->dry_dump = ts[0].dry_dump;
		t->pm.pages_fd = -1;
		t->err_pipe[0] = t->err_pipe[1] = t->go_pipe[0] = t->go_pipe[1] = t->go_again = -1;
		t->userns_fd = -1;
		*np = i + 1;
		if (!rst_tree_task(ts, i, t->pst->ppid) || rst_tree_task(ts, i, t->pid))
			return cr_fail_errno(e, EBADMSG,
					     "pstree.img: task %d: parent %d not listed before it", t->pid,
					     t->pst->ppid);
		if (rst_load_task(o, t, e))
			return cr_wrap(e, "task %d", t->pid);
	}
	ts[0].files_everywhere = !files_local(ts, n);
	if (n > 1)
		pr_info("%zu processes in the tree of task %d%s\n", n, ts[0].pid,
			ts[0].files_everywhere ? " (each with the files records of all)" : "");
	return 0;
}
