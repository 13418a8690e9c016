/* crshim engine: the small public interface used by shim/ (CLI, RPC) and hooks/.
 * The engine never exits the process and never prints to the user; it logs and returns errors. */
#ifndef CRSHIM_H
#define CRSHIM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <time.h>
#include "base/err.h"

#define CRSHIM_VERSION "0.1.0"
/* Image format version written by this release; images with a higher one are refused. 2: page blocks
 * checked by CRC32C (pagemap_head.csum_kind); 1 (before): XXH64, still restored. */
#define CRSHIM_IMG_VERSION 2

/* --manage-cgroups modes (CRIU's meanings: ns/cgroup-restore.c). */
enum cr_cg_mode { CR_CG_SOFT = 0, CR_CG_IGNORE, CR_CG_NONE, CR_CG_PROPS, CR_CG_FULL, CR_CG_STRICT };

/* What a dump or restore measured (CRIU's stats-dump / stats-restore, shim/stats.c; --display-stats):
 * times in microseconds, summed over the tree's processes where a process has one. The fields under
 * "progress" are updated while the run goes (atomically: another thread of the caller reads them to show
 * the progress on a terminal). */
struct cr_stats {
	/* dump */
	uint64_t freezing_us; /* seize (and freeze) of the tree */
	uint64_t frozen_us;   /* from frozen until killed or resumed */
	uint64_t memdump_us;  /* finding the pages to save (VMAs, pagemap) */
	uint64_t memwrite_us; /* copying them into the pages files (or to the page server) */
	uint64_t pages_scanned, pages_skipped_parent, pages_written;
	uint64_t shpages_written; /* shared memory (MAP_SHARED anonymous, memfd, SysV) */
	/* restore */
	uint64_t forking_us; /* from the first clone until every process restored its state */
	uint64_t restore_us; /* the whole restore */
	uint64_t mm_load_us; /* loading, verifying and prefilling the address spaces' pages */
	uint64_t pages_restored;
	/* progress */
	uint64_t tasks_total, tasks_done;
	uint64_t bytes_total, bytes_done; /* pages, known so far */
};
/* Atomic adds to a cr_stats field (NULL stats: nothing). */
#define CR_STAT_ADD(st, field, v)                                                                            \
	do {                                                                                                 \
		if (st)                                                                                      \
			__atomic_fetch_add(&(st)->field, (uint64_t)(v), __ATOMIC_RELAXED);                   \
	} while (0)
uint64_t cr_us_since(const struct timespec *t0);

/* Options of one run (no global options: this is passed down explicitly). */
struct cr_opts {
	pid_t pid;		/* dump: root task */
	const char *images_dir; /* -D */
	const char *work_dir;	/* -W (logs; default images_dir) */
	int imgdir_fd;		/* opened images dir (set by eng_*), -1 before */
	bool leave_running;	/* -R */
	bool shell_job;		/* -j */
	/* --orphan-pts-master: dump: a pty slave whose master is outside the tree (not a shell job: a
	 * container's console) is saved with its pair; restore: a new pair is made in the same devpts and
	 * its master handed to the caller (notify "orphan-pts-master" with the fd: runc's console socket) */
	bool orphan_pts;
	bool tcp_established;
	bool tcp_close;		  /* --tcp-close: dump leaves connections alone, restore makes them closed */
	bool skip_in_flight;	  /* --skip-in-flight: drop TCP connections not yet established or accepted */
	const char *network_lock; /* --network-lock: "nftables" (NULL: default) or "skip" */
	bool ext_unix_sk;
	bool file_locks;
	bool track_mem;			/* --track-mem: dirty-page tracking (engine/mem/README.md) */
	bool auto_dedup;		/* --auto-dedup: punch the pages this dump holds out of its parents */
	bool pre_dump;			/* set by eng_pre_dump: memory only, the tree is left running */
	bool page_server;		/* --page-server: the pages go to ps_address:ps_port */
	unsigned long long ghost_limit; /* --ghost-limit: bytes of data of an unlinked file (default 1 MiB) */
	const char *prev_images_dir; /* --prev-images-dir: the parent images (a pre-dump), relative to -D */
	const char *ps_address; /* dump/pre-dump --page-server --address (page-server: where to listen) */
	const char *root;	/* --root */
	bool detach;		/* restore -d */
	bool check_only;	/* restore --check-only: the restore's checks of the images, nothing made */
	bool restore_sibling;	/* restore: the root is our sibling (CLONE_PARENT), not our child */
	bool lazy_pages;	/* restore --lazy-pages: crshim lazy-pages fills the memory (mem/lazy.md) */
	int lazy_src_sk;      /* lazy-pages --page-server: the source's connection (eng_lazy_pages_listen) */
	const char *pidfile;  /* restore --pidfile */
	const char *log_file; /* -o */
	int verbosity;	      /* -v */
	int fault;	      /* fault point id, 0 = none (engine/fault.h) */
	/* --inherit-fd fd[N]:KEY and --external KEY, as given on the command line (repeatable). */
	const char *const *inherit_fd;
	int n_inherit_fd;
	int ps_port; /* --port of --page-server and page-server */
	const char *const *external;
	int n_external;
	/* restore --ext-mount-map KEY:PATH (CRIU's older spelling of --external mnt[KEY]:PATH) */
	const char *const *ext_mount_map;
	int n_ext_mount_map;
	/* Automatic external mounts (ns/mnt-ext.c): dump --external mnt[] (every mount from outside the tree
	 * found in crshim's mount namespace is external), restore --ext-mount-map auto (or --external mnt[]:
	 * their sources taken from where the dump found them); --enable-external-sharing (mnt[]:s) and
	 * --enable-external-masters (mnt[]:m): such a mount may be shared, or a slave of a group outside. */
	bool ext_mnt_auto;
	bool ext_sharing;
	bool ext_masters;
	/* The dump's own run of the restore's checks (engine/restore-check.c, check_only too): the dumped
	 * tree's root, alive and frozen, whose root, mounts and namespaces stand in for what only the
	 * restore's options give (--root, --external mnt[KEY]:PATH, an external namespace's --inherit-fd or
	 * --join-ns); 0 else. */
	pid_t live_root;
	/* Namespaces (ns/): --empty-ns (CLONE_NEW* flags: made empty, the caller fills them), --join-ns
	 * KIND:PATH (repeatable: the restore uses that namespace instead of making one). */
	uint32_t empty_ns;
	const char *const *join_ns;
	int n_join_ns;
	/* Cgroups (ns/cgroup*.c): --manage-cgroups[=MODE] (enum cr_cg_mode; the default is soft, as CRIU's),
	 * --cgroup-root [CONTROLLER:]/PATH (repeatable), dump --freeze-cgroup PATH (freeze, then seize). */
	int manage_cgroups;
	const char *const *cgroup_root;
	int n_cgroup_root;
	const char *freeze_cgroup;
	/* A warning the user should see besides the log (one line, no newline), e.g. state a dump cannot
	 * save; NULL: the log only. */
	void (*notice)(void *arg, const char *line);
	void *notice_arg;
	/* Notifications of the RPC client (CRIU's action scripts, e.g. "pre-dump", "post-restore") at each
	 * named step, with the task it concerns (0: none) and an fd to hand over (-1: none). Non-zero fails
	 * the run (the client refused). NULL: none. */
	int (*notify)(void *arg, const char *script, pid_t pid, int fd);
	void *notify_arg;
	struct cr_stats *stats; /* filled by eng_dump, eng_pre_dump, eng_restore; NULL: not kept */
};

void eng_opts_init(struct cr_opts *o);
/* Syntax of the --inherit-fd and --external values (eng_dump and eng_restore check it first): one error line
 * for a malformed value or an unknown --external type. An RPC inherit_fd {key, fd} is passed as "fd[FD]:KEY".
 */
int eng_ext_check(const struct cr_opts *o, struct cr_err *err);

/* dump / pre-dump: returns 0 on success; the tree is killed unless leave_running. */
int eng_dump(struct cr_opts *o, struct cr_err *err);
/* pre-dump: the tree's memory (mm, pagemap, pages) into images_dir, the tree left running as it was. With
 * o->track_mem the written pages are tracked from now on (userfaultfd async write-protect, held by a keeper
 * process found through images_dir), so that a later dump or pre-dump with prev_images_dir = this dir saves
 * only the pages written since, and references the rest ("parent" link). */
int eng_pre_dump(struct cr_opts *o, struct cr_err *err);
/* Dirty-page tracking (--track-mem, FEATURE_CHECK mem_track): 1 when this kernel has it (userfaultfd
 * UFFD_FEATURE_WP_ASYNC + PAGEMAP_SCAN, tried on a few pages of our own), 0 when not (why in why). */
int eng_mem_track_supported(char *why, size_t len);
/* restore: on success *root_pid is the restored root. With o->detach the tasks are left running
 * detached; otherwise the caller should wait for root_pid (it is our child). */
int eng_restore(struct cr_opts *o, pid_t *root_pid, struct cr_err *err);
/* restore --check-only: would the restore of o's images dir make every object they hold, here and now? 0 or
 * -1 with the restore's refusal; nothing is made (engine/restore-check.c). */
int eng_restore_check(struct cr_opts *o, struct cr_err *err);

/* page-server: listen on o->ps_address:o->ps_port (port 0: the kernel chooses; *port gets it). Then serve
 * one dump's pages into o->images_dir (opened by eng_page_server_listen) and return: 0 when the dump
 * finished, -1 when it failed or the connection dropped (what it sent is removed). Protocol:
 * engine/image/page-xfer.md. */
int eng_page_server_listen(struct cr_opts *o, int *lfd, int *port, struct cr_err *err);
int eng_page_server_serve(struct cr_opts *o, int lfd, struct cr_err *err);

/* lazy-pages: listen on o->images_dir/lazy-pages.sock (eng_lazy_pages_listen), then serve one
 * `restore --lazy-pages` from that dir until every page of the tree is in (engine/mem/lazy.md): 0 then;
 * -1 when the restore failed or the pages could not be served (the restored tree is killed then). */
int eng_lazy_pages_listen(struct cr_opts *o, int *lfd, struct cr_err *err);
int eng_lazy_pages_serve(struct cr_opts *o, int lfd, struct cr_err *err);

/* dump --lazy-pages (mem/lazy-remote.c): listen on o->ps_address:o->ps_port (port 0: the kernel chooses;
 * *port gets it) before the dump; after it, eng_lazy_src_ready moves the dump's pages files out of
 * o->images_dir (into its LAZY_SRC_DIR, so that the images dir holds no pages, as CRIU's lazy dump, and a
 * `lazy-pages --page-server` may use that same dir), before the caller says it is ready; then serve them to
 * one `lazy-pages --page-server` until it says it has every page (0), or -1 when it went away before.
 * Serving removes LAZY_SRC_DIR, whatever the outcome. */
#define LAZY_SRC_DIR ".lazy-src"
int eng_lazy_src_listen(struct cr_opts *o, int *lfd, int *port, struct cr_err *err);
int eng_lazy_src_ready(struct cr_opts *o, struct cr_err *err);
int eng_lazy_src_serve(struct cr_opts *o, int lfd, struct cr_err *err);

/* check: probe the kernel features crshim needs. feature NULL = all. Writes a report to out. */
int eng_check(const char *feature, FILE *out, struct cr_err *err);

/* show: decode an image dir or one image file to JSON on out. */
int img_show(const char *path, FILE *out, struct cr_err *err);

#endif
