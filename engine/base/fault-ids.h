/* Fault point numbers (stable; see fault.h). A header of its own: the freestanding restorer blob includes it.
 */
#ifndef CRSHIM_FAULT_IDS_H
#define CRSHIM_FAULT_IDS_H

enum fault_id {
	FI_NONE = 0,
	/* fatal, dump */
	FI_DUMP_EARLY = 1,
	FI_RESTORE_ROOT_ONLY = 2, /* restore: the root task exists (right after clone3), nothing else yet */
	FI_DUMP_INFECTED = 3,	  /* remote syscalls set up, scratch page mapped in the task */
	FI_DUMP_REMOTE_DONE = 4,  /* all remote reads done, scratch page still mapped */
	FI_DUMP_AFTER_FILES = 5,  /* files.img and fdinfo written */
	FI_DUMP_IMG_WRITE = 6,	  /* the mm image fails half-written (EIO) in the image layer */
	FI_DUMP_MM_MID = 7,	  /* after half of the page runs were copied */
	FI_DUMP_ENOSPC = 8,	  /* pages file write fails with ENOSPC after a partial write */
	FI_DUMP_BEFORE_KILL = 9,  /* every image incl. inventory.img written, tree not yet killed/released */
	/* fatal, restore */
	FI_RESTORE_AFTER_LOAD = 10,    /* images verified and loaded, nothing created */
	FI_RESTORE_BEFORE_FORK = 11,   /* restore area and prefill mapped in crshim, no task yet */
	FI_RESTORE_FILES = 12,	       /* child: fds and session restored, before the rest of the C stage */
	FI_RESTORER_BEFORE_MM = 13,    /* blob: before the address space is built */
	FI_RESTORER_AFTER_MM = 14,     /* blob: address space built (vmas, pages, vdso, mm map) */
	FI_RESTORER_BEFORE_CREDS = 15, /* blob: signals, timers, rlimits restored, creds not yet */
	FI_RESTORE_BEFORE_RESUME = 16, /* final ptrace stop: registers set, before detaching */
	FI_RESTORE_AFTER_DETACH = 17,  /* task detached and running; crshim kills it and fails */
	FI_RESTORE_BEFORE_LOAD = 18,   /* images dir open, no image read yet */
	FI_RESTORE_NS_MADE = 19,    /* the root's namespaces made and filled (ns/), no object or task yet */
	FI_RESTORE_NS_NET_MID = 20, /* network namespace: links made (veth ends outside), no address yet */
	FI_DUMP_NS = 21,	    /* dump: namespaces read (net.img written), ns.img not yet */
	FI_DUMP_RESTORE_CHECK = 22, /* dump: images written, the restore's checks refuse them */
	FI_DUMP_TIMER_TAKEN = 23,   /* dump: a POSIX timer's pending signal taken in the task (its overrun) */
	FI_DUMP_TIMER_STALE = 24,   /* dump: a POSIX timer's stale pending signal dropped by its taking */
	FI_DUMP_TIMER_REARM = 25,   /* dump: a POSIX timer made to expire at once is not armed again */
	FI_DUMP_TIMER_LOST = 26,    /* dump: as 24, and the stale signal cannot be made again: queued back */
	FI_RESTORE_CGROUP_MID = 32, /* restore: the first cgroup made, the rest and the tasks not yet */
	FI_RESTORE_MNT_MID = 33,  /* root task: half of the mount tree made under --root, no pivot_root yet */
	FI_RESTORE_MNT_LATE = 34, /* the tree's mount tree stands, its ghosts and unix sockets made in it */
	FI_RESTORE_MNT_NESTED =
	    35, /* a process made its nested mount namespace, its mounts placed, no flags */
	FI_PREDUMP_TRACK_MID = 46, /* pre-dump --track-mem: half of the VMAs write-protected, then it fails */
	FI_DUMP_DEDUP = 47,	   /* --auto-dedup: the chain's new pagemaps written, none put in place */
	FI_RESTORE_LAZY_MID = 49,  /* restore --lazy-pages: a task handed to lazy-pages, then it fails */
	/* degrade: must not fail, force a fallback */
	FI_NO_PAGEMAP_SCAN = 50,      /* dump: read /proc/PID/pagemap instead of the PAGEMAP_SCAN ioctl */
	FI_NO_VDSO_SYSCALL = 51,      /* dump: poke a syscall insn at the task's ip, not the vDSO's */
	FI_NO_VM_READV = 52,	      /* dump: read pages with pread of /proc/PID/mem, not process_vm_readv */
	FI_NO_TIMER_RESTORE_IDS = 53, /* restore: no PR_TIMER_CREATE_RESTORE_IDS: create timers in order */
	FI_NO_POPULATE = 54,	      /* restorer blob: no MADV_POPULATE_WRITE before reading pages */
	FI_NO_PREFILL = 55,	      /* restore: no parent-side prefill of big anonymous VMAs */
	FI_TCP_QUEUE_CHANGED = 56,    /* dump: a TCP queue reads as changed once: it is read again */
	FI_TIMER_SIGNALS_EARLY = 57,  /* restorer blob: pending signals queued before the timers' dances */
};

#endif
