/* Fault injection points (see fault.h). The table is the only state here; the selected point is per run
 * (struct cr_opts.fault). */
#define LOG_PREFIX "fault: "
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "crshim.h"
#include "base/fault.h"
#include "base/log.h"

#define F FAULT_FATAL
#define D FAULT_DEGRADE

/* CRIU numbers: 1 FI_DUMP_EARLY, 2 FI_RESTORE_ROOT_ONLY, 3 FI_DUMP_PAGES, 5 FI_PARASITE_CONNECT,
 * 6 FI_POST_RESTORE, 135 FI_DONT_USE_PAGEMAP_SCAN: mapped to the points that fail at the same step. */
static const struct fault_point table[] = {
    {FI_DUMP_EARLY, "dump-early", F, 1, "dump: right after the task is seized"},
    {FI_RESTORE_ROOT_ONLY, "restore-root-only", F, 2,
     "restore: root task created by clone3, nothing else yet"},
    {FI_DUMP_INFECTED, "dump-infected", F, 5,
     "dump: remote syscalls set up, scratch page mapped in the task"},
    {FI_DUMP_REMOTE_DONE, "dump-remote-done", F, 0,
     "dump: remote reads done, before the scratch page is unmapped"},
    {FI_DUMP_AFTER_FILES, "dump-after-files", F, 0, "dump: files.img and fdinfo image written"},
    {FI_DUMP_IMG_WRITE, "dump-img-write", F, 0,
     "dump: image layer fails writing the mm image half-way (EIO)"},
    {FI_DUMP_MM_MID, "dump-mm-mid", F, 3, "dump: memory dump stops after half of the page runs"},
    {FI_DUMP_ENOSPC, "dump-enospc", F, 0, "dump: pages file write fails with ENOSPC after a partial write"},
    {FI_DUMP_BEFORE_KILL, "dump-before-kill", F, 0,
     "dump: all images incl. inventory.img written, tree not killed/released yet"},
    {FI_RESTORE_AFTER_LOAD, "restore-after-load", F, 0,
     "restore: images verified and loaded, nothing created"},
    {FI_RESTORE_BEFORE_FORK, "restore-before-fork", F, 0,
     "restore: restore area and prefilled memory mapped, before clone3"},
    {FI_RESTORE_FILES, "restore-files", F, 0, "restore: child has its session and fds, before fs/creds/blob"},
    {FI_RESTORER_BEFORE_MM, "restorer-before-mm", F, 0, "restorer blob: before the address space is built"},
    {FI_RESTORER_AFTER_MM, "restorer-after-mm", F, 0, "restorer blob: address space built, before signals"},
    {FI_RESTORER_BEFORE_CREDS, "restorer-before-creds", F, 0,
     "restorer blob: signals, timers, rlimits done, before creds"},
    {FI_RESTORE_BEFORE_RESUME, "restore-before-resume", F, 0,
     "restore: final ptrace stop, registers set, before detaching"},
    {FI_RESTORE_AFTER_DETACH, "restore-after-detach", F, 6,
     "restore: task detached (post-restore); crshim kills it and fails"},
    {FI_RESTORE_BEFORE_LOAD, "restore-before-load", F, 0, "restore: images dir open, no image read yet"},
    {FI_RESTORE_NS_MADE, "restore-ns-made", F, 0,
     "restore: the root's namespaces made and filled (net devices, addresses, IPC objects), no task yet"},
    {FI_RESTORE_NS_NET_MID, "restore-ns-net-mid", F, 0,
     "restore: network namespace links made (veth ends outside), before addresses and routes"},
    {FI_DUMP_NS, "dump-ns", F, 0, "dump: namespaces read and their images written, before ns.img"},
    {FI_DUMP_RESTORE_CHECK, "dump-restore-check", F, 0,
     "dump: images written, the restore's dry run over them refuses (tree not yet killed/released)"},
    {FI_DUMP_TIMER_TAKEN, "dump-timer-taken", F, 0,
     "dump: a periodic POSIX timer's pending signal taken in the task to read its overrun count, before it "
     "is queued again"},
    {FI_DUMP_TIMER_STALE, "dump-timer-stale", F, 0,
     "dump: a periodic POSIX timer's stale pending signal dropped by its taking in the task, before the "
     "timer queues it again"},
    {FI_DUMP_TIMER_REARM, "dump-timer-rearm", F, 0,
     "dump: a POSIX timer armed to expire at once to queue its stale signal again is not armed again as it "
     "was (its remote timer_settime fails once)"},
    {FI_DUMP_TIMER_LOST, "dump-timer-lost", F, 0,
     "dump: as dump-timer-stale, and the timer cannot queue the stale signal again: the signal is queued "
     "back by the task, a plain one (no longer stale)"},
    {FI_RESTORE_CGROUP_MID, "restore-cgroup-mid", F, 0,
     "restore: the first of the tree's cgroups made (mkdir, properties), before the others and the tasks"},
    {FI_RESTORE_MNT_MID, "restore-mnt-mid", F, 0,
     "restore: the root task made half of the mount tree under --root, before pivot_root"},
    {FI_RESTORE_MNT_LATE, "restore-mnt-late", F, 0,
     "restore: the tree's mount tree stands, its deleted files and unix sockets made in it, before the "
     "others"},
    {FI_RESTORE_MNT_NESTED, "restore-mnt-nested", F, 0,
     "restore: a process of the tree made its nested mount namespace and placed its mounts, before their "
     "flags and peer groups"},
    {FI_PREDUMP_TRACK_MID, "predump-track-mid", F, 0,
     "pre-dump --track-mem: half of the VMAs registered and write-protected, then it fails"},
    {FI_DUMP_DEDUP, "dump-dedup", F, 0,
     "dump --auto-dedup: the chain's new pagemaps written, none in place (the dump succeeds, no dedup)"},
    {FI_RESTORE_LAZY_MID, "restore-lazy-mid", F, 0,
     "restore --lazy-pages: the first task's userfaultfd handed to lazy-pages, then the restore fails"},
    {FI_NO_PAGEMAP_SCAN, "no-pagemap-scan", D, 135, "dump: read /proc/PID/pagemap instead of PAGEMAP_SCAN"},
    {FI_NO_VDSO_SYSCALL, "no-vdso-syscall", D, 0, "dump: poke a syscall insn at the ip, not the vDSO's"},
    {FI_NO_VM_READV, "no-vm-readv", D, 0, "dump: read pages from /proc/PID/mem, not process_vm_readv"},
    {FI_NO_TIMER_RESTORE_IDS, "no-timer-restore-ids", D, 0,
     "restorer: no PR_TIMER_CREATE_RESTORE_IDS, timers created in order"},
    {FI_NO_POPULATE, "no-populate", D, 0, "restorer: no MADV_POPULATE_WRITE before reading pages"},
    {FI_NO_PREFILL, "no-prefill", D, 0, "restore: no prefill of big anonymous VMAs in crshim"},
    {FI_TCP_QUEUE_CHANGED, "tcp-queue-changed", D, 0,
     "dump: a TCP receive queue seems to change while read: read again"},
    {FI_TIMER_SIGNALS_EARLY, "timer-signals-early", D, 0,
     "restorer: the pending signals (but the first thread's own) queued before the timers take their own "
     "signal to give their overrun count back, as signals sent during the restore: kept and queued back"},
};

const struct fault_point *fault_table(size_t *n)
{
	*n = sizeof(table) / sizeof(table[0]);
	return table;
}

const struct fault_point *fault_point(int id)
{
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (table[i].id == id)
			return &table[i];
	return NULL;
}

const char *fault_name(int id)
{
	const struct fault_point *p = fault_point(id);
	return p ? p->name : "?";
}

/* A decimal number without sign or junk, 0 < n < 100000; -1 otherwise. */
static int parse_nr(const char *s)
{
	char *end;
	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	long n = strtol(s, &end, 10);
	if (errno || *end || n <= 0 || n >= 100000)
		return -1;
	return (int)n;
}

int fault_parse(const char *s, int *id, struct cr_err *e)
{
	if (!s || !*s)
		return cr_fail_errno(e, EINVAL, "empty fault point");
	int n = parse_nr(s);
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (n > 0 ? table[i].id == n : !strcmp(table[i].name, s)) {
			*id = table[i].id;
			return 0;
		}
	return cr_fail_errno(e, EINVAL, "unknown fault point '%.64s' (see crshim check --faults)", s);
}

int fault_parse_criu(const char *s, int *id, struct cr_err *e)
{
	int n = parse_nr(s);
	if (n < 0)
		return cr_fail_errno(e, EINVAL, "CRIU fault '%.64s' is not a number", s ? s : "");
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (table[i].criu_nr == n) {
			*id = table[i].id;
			return 0;
		}
	return cr_fail_errno(e, EINVAL, "CRIU fault %d has no crshim equivalent (see crshim check --faults)",
			     n);
}

bool fault_hit(int selected, int id)
{
	if (!selected || selected != id)
		return false;
	const struct fault_point *p = fault_point(id);
	pr_warn("fault injected at %s (%d, %s)\n", p ? p->name : "?", id,
		p && p->kind == FAULT_DEGRADE ? "degrade" : "fatal");
	return true;
}

bool fault_injected(const struct cr_opts *o, int id)
{
	return o && fault_hit(o->fault, id);
}

void fault_list(FILE *out)
{
	fprintf(out, "%-4s %-22s %-5s %-8s %s\n", "nr", "name", "criu", "kind", "where");
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		const struct fault_point *p = &table[i];
		char criu[16] = "-";
		if (p->criu_nr)
			snprintf(criu, sizeof(criu), "%d", p->criu_nr);
		fprintf(out, "%-4d %-22s %-5s %-8s %s\n", p->id, p->name, criu,
			p->kind == FAULT_FATAL ? "fatal" : "degrade", p->where);
	}
}

int fault_check(const struct cr_opts *o, int id, struct cr_err *e)
{
	if (!fault_injected(o, id))
		return 0;
	return fault_fail(e, id);
}
