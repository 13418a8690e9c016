/* Remote syscalls: set the registers, step over one `syscall` instruction, read the result. */
#define LOG_PREFIX "infect: "
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>

#include "arch.h"
#include "base/cleanup.h"
#include "task/infect.h"
#include "base/log.h"
#include "base/proc.h"

int infect_read(struct infect *in, uint64_t addr, void *buf, size_t len, struct cr_err *e)
{
	struct iovec l = {buf, len}, r = {(void *)(uintptr_t)addr, len};
	ssize_t n = process_vm_readv(in->pid, &l, 1, &r, 1, 0);
	if (n < 0)
		return cr_fail_sys(e, "task %d: process_vm_readv 0x%llx+%zu", in->pid,
				   (unsigned long long)addr, len);
	if ((size_t)n != len)
		return cr_fail_errno(e, EFAULT, "task %d: short read at 0x%llx (%zd of %zu)", in->pid,
				     (unsigned long long)addr, n, len);
	return 0;
}

/* Where the last vDSO searched had its syscall instruction: the vDSO of every process of this kernel (and
 * ABI) is the same image, so the next task's is first looked at there (a read of the instruction's bytes,
 * not of the whole vDSO and a search: per task of a tree). */
static struct {
	uint64_t len, off;
} vdso_last;

static bool vdso_insn_at_last(struct infect *in, uint64_t start, uint64_t end, const uint8_t *insn,
			      size_t ilen)
{
	uint64_t len = __atomic_load_n(&vdso_last.len, __ATOMIC_ACQUIRE), off = vdso_last.off;
	uint8_t b[16];
	struct cr_err e2;
	if (!len || len != end - start || off + ilen > len || ilen > sizeof(b) ||
	    infect_read(in, start + off, b, ilen, &e2) || memcmp(b, insn, ilen))
		return false;
	in->sys_ip = start + off;
	return true;
}

static int find_vdso_insn(struct infect *in, struct cr_err *e)
{
	uint64_t start, end;
	size_t ilen;
	const uint8_t *insn = arch_syscall_insn(&ilen);
	if (proc_read(in->pid, "maps", &in->maps, NULL, e))
		return -1;
	int r = proc_find_vdso(in->maps, &start, &end);
	if (r)
		return r;
	if (end - start > (16u << 20))
		return 1;
	if (vdso_insn_at_last(in, start, end, insn, ilen))
		return 0;
	__cleanup_free uint8_t *buf = malloc(end - start);
	if (!buf)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	if (infect_read(in, start, buf, end - start, e))
		return 1;
	/* Instruction-aligned candidates only matter for real code; any occurrence executes the same. */
	uint8_t *p = memmem(buf, end - start, insn, ilen);
	if (!p)
		return 1;
	in->sys_ip = start + (uint64_t)(p - buf);
	vdso_last.off = (uint64_t)(p - buf);
	__atomic_store_n(&vdso_last.len, end - start, __ATOMIC_RELEASE);
	return 0;
}

static int poke_insn(struct infect *in, struct cr_err *e)
{
	size_t ilen;
	const uint8_t *insn = arch_syscall_insn(&ilen);
	uint64_t ip = arch_regs_ip(in->base);
	errno = 0;
	long word = ptrace(PTRACE_PEEKTEXT, in->pid, (void *)(uintptr_t)ip, NULL);
	if (errno)
		return cr_fail_sys(e, "task %d: PTRACE_PEEKTEXT 0x%llx", in->pid, (unsigned long long)ip);
	long patched = word;
	memcpy(&patched, insn, ilen);
	if (ptrace(PTRACE_POKETEXT, in->pid, (void *)(uintptr_t)ip, (void *)patched))
		return cr_fail_sys(e, "task %d: PTRACE_POKETEXT 0x%llx", in->pid, (unsigned long long)ip);
	in->poked = true;
	in->poke_addr = ip;
	in->poke_orig = word;
	in->sys_ip = ip;
	return 0;
}

static int infect_init(struct infect *in, struct seized *s, const void *base_regs, struct cr_err *e)
{
	memset(in, 0, sizeof(*in));
	in->s = s;
	in->pid = s->pid;
	if (arch_gpregs_size() > sizeof(in->base))
		return cr_fail_errno(e, EINVAL, "register set too big");
	memcpy(in->base, base_regs, arch_gpregs_size());
	return 0;
}

int infect_start_thread(struct infect *in, const struct infect *lead, struct seized *s, const void *base_regs,
			bool no_vdso, struct cr_err *e)
{
	if (no_vdso || lead->poked || !lead->sys_ip)
		return infect_start(in, s, base_regs, no_vdso, e);
	if (infect_init(in, s, base_regs, e))
		return -1;
	in->sys_ip = lead->sys_ip; /* (the vDSO of their address space) */
	pr_debug("task %d: remote syscalls at 0x%llx\n", in->pid, (unsigned long long)in->sys_ip);
	return 0;
}

int infect_start(struct infect *in, struct seized *s, const void *base_regs, bool no_vdso, struct cr_err *e)
{
	if (infect_init(in, s, base_regs, e))
		return -1;
	int r = no_vdso ? 1 : find_vdso_insn(in, e);
	if (r < 0) {
		free(in->maps);
		in->maps = NULL;
		return -1;
	}
	if (r > 0) {
		pr_info("task %d: no syscall instruction in [vdso], patching one at the ip\n", in->pid);
		if (poke_insn(in, e))
			return -1;
	}
	pr_debug("task %d: remote syscalls at 0x%llx\n", in->pid, (unsigned long long)in->sys_ip);
	return 0;
}

/* Resume with PTRACE_SYSCALL until the next syscall stop. */
static int step_to_syscall_stop(struct infect *in, struct cr_err *e)
{
	int sig = 0;
	for (int guard = 0; guard < 128; guard++) {
		int status;
		if (ptrace(PTRACE_SYSCALL, in->pid, NULL, (void *)(long)sig))
			return cr_fail_sys(e, "task %d: PTRACE_SYSCALL", in->pid);
		sig = 0;
		if (seize_wait(in->s, &status, e))
			return -1;
		int event = status >> 16, ssig = WSTOPSIG(status);
		if (!event && ssig == (SIGTRAP | 0x80))
			return 0;
		if (event == PTRACE_EVENT_STOP)
			continue; /* a group-stop or our interrupt: keep going */
		if (!event && seize_is_stop_sig(ssig)) {
			in->s->stop_sig = ssig; /* re-sent when the task is released */
			continue;
		}
		return cr_fail_errno(e, EINVAL,
				     "task %d: unexpected stop (signal %d, event %d) in a remote syscall",
				     in->pid, ssig, event);
	}
	return cr_fail_errno(e, EBUSY, "task %d: remote syscall does not complete", in->pid);
}

static int set_sigmask(struct infect *in, uint64_t mask, struct cr_err *e)
{
	if (ptrace(PTRACE_SETSIGMASK, in->pid, (void *)sizeof(mask), &mask))
		return cr_fail_sys(e, "task %d: PTRACE_SETSIGMASK", in->pid);
	return 0;
}

static int resume_to_trap(struct infect *in, long req, uint64_t trap_ip, void *regs, struct cr_err *e)
{
	for (int guard = 0; guard < 128; guard++) {
		int status;
		if (ptrace((enum __ptrace_request)req, in->pid, NULL, NULL))
			return cr_fail_sys(e, "task %d: resume to a trap", in->pid);
		if (seize_wait(in->s, &status, e))
			return -1;
		int event = status >> 16, ssig = WSTOPSIG(status);
		if (event == PTRACE_EVENT_STOP)
			continue; /* a group-stop or our interrupt: keep going */
		if (!event && seize_is_stop_sig(ssig)) {
			in->s->stop_sig = ssig; /* re-sent when the task is released */
			continue;
		}
		if (!event && ssig == SIGTRAP && !arch_get_gpregs(in->pid, regs, e) &&
		    arch_regs_ip(regs) == trap_ip)
			return 0; /* the signal is dropped: the next resume passes none */
		return cr_fail_errno(e, EINVAL,
				     "task %d: unexpected stop (signal %d, event %d) in remote syscalls",
				     in->pid, ssig, event);
	}
	return cr_fail_errno(e, EBUSY, "task %d: remote syscalls do not complete", in->pid);
}

/* Resume (req: PTRACE_CONT or PTRACE_SINGLESTEP) until the SIGTRAP at trap_ip, with SIGTRAP unblocked (a
 * blocked forced trap would reset its action to SIG_DFL; it stays unblocked until infect_stop or a
 * failure); regs: the registers there. */
static int run_to_trap(struct infect *in, long req, uint64_t trap_ip, void *regs, struct cr_err *e)
{
	int ret = in->mask_trap ? 0 : set_sigmask(in, ~(1ULL << (SIGTRAP - 1)), e);
	in->mask_trap = !ret;
	if (!ret)
		ret = resume_to_trap(in, req, trap_ip, regs, e);
	struct cr_err e2;
	if (ret && in->mask_trap && !set_sigmask(in, ~0ULL, &e2))
		in->mask_trap = false;
	return ret;
}

int infect_syscall(struct infect *in, long nr, const unsigned long args[6], long *ret, struct cr_err *e)
{
	uint8_t regs[INFECT_REGS_MAX];
	size_t ilen;
	arch_syscall_insn(&ilen);
	memcpy(regs, in->base, arch_gpregs_size());
	arch_prep_syscall(regs, in->sys_ip, nr, args);
	if (arch_set_gpregs(in->pid, regs, e))
		return -1;
	if (in->trap_ok) { /* one stop: the trap of the single step after the syscall */
		if (run_to_trap(in, PTRACE_SINGLESTEP, in->sys_ip + ilen, regs, e))
			goto fail;
	} else {
		for (int stop = 0; stop < 2; stop++) /* the syscall-entry stop, then the syscall-exit stop */
			if (step_to_syscall_stop(in, e))
				goto fail;
		if (arch_get_gpregs(in->pid, regs, e))
			goto fail;
	}
	*ret = arch_syscall_result(regs);
	in->regs_dirty = true; /* (base put back by infect_stop) */
	pr_debug("task %d: remote syscall %ld = %ld\n", in->pid, nr, *ret);
	return 0;
fail:
	cr_wrap(e, "remote syscall %ld", nr);
	if (in->s->attached) {
		struct cr_err e2;
		if (!arch_set_gpregs(in->pid, in->base, &e2))
			in->regs_dirty = false;
	}
	return -1;
}

_Static_assert(sizeof(struct infect_call) == 8 * sizeof(long), "the table layout of arch_batch_code");

#define BATCH_BYTES 8192 /* the batch code, then its table */
#define BATCH_TABLE 64	 /* offset of the table */

/* SIGTRAP, the batch code's end, would take a pending one's place, and an ignored one would be reset to
 * SIG_DFL by the kernel (a trap is forced): those tasks get one remote syscall at a time. */
static bool sigtrap_free(pid_t tid)
{
	char path[64], buf[4096];
	snprintf(path, sizeof(path), "/proc/%d/status", tid);
	if (proc_read_small(path, buf, sizeof(buf)) < 0)
		return false;
	static const char *const keys[] = {"\nSigPnd:", "\nShdPnd:", "\nSigIgn:"};
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
		const char *p = strstr(buf, keys[i]);
		if (!p || (strtoull(p + strlen(keys[i]), NULL, 16) & (1ULL << (SIGTRAP - 1))))
			return false;
	}
	return true;
}

static int remote_mmap(struct infect *in, size_t len, int prot, long *r, struct cr_err *e)
{
	/* MAP_SHARED never merges with a neighbouring anonymous VMA, so the layout stays as it was. */
	return infect_sys(in, r, e, __NR_mmap, 0, len, (unsigned long)prot, MAP_SHARED | MAP_ANONYMOUS,
			  (unsigned long)-1, 0);
}

int infect_map_scratch(struct infect *in, struct cr_err *e)
{
	long r;
	size_t psz = (size_t)sysconf(_SC_PAGESIZE), code_len, trap;
	size_t user = (INFECT_SCRATCH_USER + psz - 1) / psz * psz,
	       batch = (BATCH_BYTES + psz - 1) / psz * psz;
	in->trap_ok = arch_batch_code(&code_len, &trap) && sigtrap_free(in->pid);
	bool want = in->trap_ok && code_len <= BATCH_TABLE;
	if (want && remote_mmap(in, user + batch, PROT_READ | PROT_WRITE | PROT_EXEC, &r, e))
		return -1;
	if (want && (r == -EACCES || r == -EPERM)) { /* PR_SET_MDWE, an LSM */
		pr_info("task %d: no writable and executable mapping (%s): one remote syscall at a time\n",
			in->pid, strerror((int)-r));
		want = false;
	}
	if (!want && remote_mmap(in, user, PROT_READ | PROT_WRITE, &r, e))
		return -1;
	if (r < 0 && r > -4096)
		return cr_fail_errno(e, (int)-r, "task %d: remote mmap of a scratch page", in->pid);
	in->scratch = (uint64_t)r;
	in->scratch_len = want ? user + batch : user;
	in->batch = want ? in->scratch + user : 0;
	in->batch_len = want ? batch : 0;
	return 0;
}

/* Where run_code puts the table after code of code_len bytes (BATCH_TABLE for the batch code). */
static size_t table_off(size_t code_len)
{
	return (code_len + BATCH_TABLE - 1) / BATCH_TABLE * BATCH_TABLE;
}

size_t infect_code_room(const struct infect *in, size_t code_len)
{
	size_t off = table_off(code_len);
	return in->batch && off < in->batch_len ? in->batch_len - off : 0;
}

/* Copy code and its table (the n iovecs of l, tlen bytes) into the batch area, run the code up to its trap
 * and read back rlen bytes of the table into back. */
static int run_code(struct infect *in, const uint8_t *code, size_t code_len, size_t trap, struct iovec *l,
		    size_t n, size_t tlen, void *back, size_t rlen, struct cr_err *e)
{
	uint64_t table = in->batch + table_off(code_len);
	struct iovec lv[4],
	    r[2] = {{(void *)(uintptr_t)in->batch, code_len}, {(void *)(uintptr_t)table, tlen}};
	if (n > 3 || tlen > infect_code_room(in, code_len))
		return cr_fail_errno(e, E2BIG, "task %d: remote code table too big", in->pid);
	lv[0] = (struct iovec){(void *)code, code_len};
	memcpy(lv + 1, l, n * sizeof(*l));
	ssize_t w = process_vm_writev(in->pid, lv, n + 1, r, 2, 0);
	if (w != (ssize_t)(code_len + tlen))
		return cr_fail_errno(e, w < 0 ? errno : EFAULT, "task %d: write the remote code", in->pid);
	uint8_t regs[INFECT_REGS_MAX];
	memcpy(regs, in->base, arch_gpregs_size());
	arch_prep_batch(regs, in->batch, table);
	if (arch_set_gpregs(in->pid, regs, e))
		return -1;
	int ret = run_to_trap(in, PTRACE_CONT, in->batch + trap, regs, e);
	in->regs_dirty = true; /* (base put back by infect_stop, or now on a failure) */
	struct cr_err e2;
	if (ret && in->s->attached && !arch_set_gpregs(in->pid, in->base, &e2))
		in->regs_dirty = false;
	if (!ret)
		ret = infect_read(in, table, back, rlen, e);
	return ret;
}

/* Up to the table's room of calls in one run of the batch code. */
static int batch_run(struct infect *in, struct infect_call *calls, size_t n, struct cr_err *e)
{
	size_t code_len, trap;
	const uint8_t *code = arch_batch_code(&code_len, &trap);
	struct infect_call end = {.nr = -1};
	struct iovec l[2] = {{calls, n * sizeof(*calls)}, {&end, sizeof(end)}};
	int ret =
	    run_code(in, code, code_len, trap, l, 2, (n + 1) * sizeof(*calls), calls, n * sizeof(*calls), e);
	for (size_t i = 0; !ret && i < n; i++)
		pr_debug("task %d: remote syscall %ld = %ld (batch)\n", in->pid, calls[i].nr, calls[i].ret);
	return ret;
}

int infect_batch(struct infect *in, struct infect_call *calls, size_t n, struct cr_err *e)
{
	if (!in->batch) {
		for (size_t i = 0; i < n; i++)
			if (infect_syscall(in, calls[i].nr, calls[i].a, &calls[i].ret, e))
				return -1;
		return 0;
	}
	size_t room = (in->batch_len - BATCH_TABLE) / sizeof(*calls) - 1;
	for (size_t i = 0; i < n; i += room)
		if (batch_run(in, calls + i, n - i < room ? n - i : room, e))
			return -1;
	return 0;
}

int infect_stop(struct infect *in, struct cr_err *e)
{
	int ret = 0;
	free(in->maps);
	in->maps = NULL;
	if (!in->s || !in->s->attached)
		return 0;
	if (in->scratch) {
		long r;
		if (infect_sys(in, &r, e, __NR_munmap, in->scratch, in->scratch_len, 0, 0, 0, 0))
			ret = -1;
		else if (r)
			ret =
			    cr_fail_errno(e, (int)-r, "task %d: remote munmap of the scratch page", in->pid);
		in->scratch = 0;
	}
	if (in->poked) {
		if (ptrace(PTRACE_POKETEXT, in->pid, (void *)(uintptr_t)in->poke_addr, (void *)in->poke_orig))
			ret = cr_fail_sys(e, "task %d: restore code at 0x%llx", in->pid,
					  (unsigned long long)in->poke_addr);
		else
			in->poked = false;
	}
	struct cr_err e2;
	if (in->regs_dirty) {
		if (arch_set_gpregs(in->pid, in->base, ret ? &e2 : e))
			ret = -1;
		else
			in->regs_dirty = false;
	}
	if (in->mask_trap) {
		if (set_sigmask(in, ~0ULL, ret ? &e2 : e))
			ret = -1;
		else
			in->mask_trap = false;
	}
	return ret;
}
