/* Seize/unseize of one task. */
#define LOG_PREFIX "seize: "
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/log.h"
#include "base/proc.h"
#include "task/seize.h"

/* The state letter of /proc/PID/stat (0: the task is gone). Read without a logged error: after a kill, gone
 * is the answer we wait for. */
static int task_state(pid_t pid)
{
	char buf[1024];
	const char *p = proc_stat_comm_end(pid, 0, buf, sizeof(buf)); /* ") S ppid ..." */
	return p && p[1] == ' ' ? p[2] : 0;
}

bool seize_task_dead(pid_t pid)
{
	int st = task_state(pid);
	return st == 0 || st == 'Z' || st == 'X';
}

/* TracerPid of /proc/PID/status (0 if none or unknown). */
static pid_t tracer_of(pid_t pid)
{
	char path[64], buf[2048];
	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	if (proc_read_small(path, buf, sizeof(buf)) < 0)
		return 0;
	const char *t = strstr(buf, "\nTracerPid:");
	return t ? (pid_t)strtol(t + 11, NULL, 10) : 0;
}

/* A parent waiting for its CLONE_VFORK child to exec or exit sleeps in kernel_clone, uninterruptibly. */
static bool in_vfork_wait(pid_t pid)
{
	char path[64], w[64] = "";
	snprintf(path, sizeof(path), "/proc/%d/wchan", pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return false;
	bool r = fgets(w, sizeof(w), f) && !strcmp(w, "kernel_clone");
	fclose(f);
	return r;
}

/* Wait (WNOHANG polls up to timeout_ms if it is > 0) for the next stop. */
static int wait_stop(struct seized *s, int *statusp, int timeout_ms, struct cr_err *e)
{
	struct timespec t0, now, nap = {0, 20000};
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		int status;
		pid_t r = waitpid(s->pid, &status, __WALL | (timeout_ms > 0 ? WNOHANG : 0));
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return cr_fail_sys(e, "wait for task %d", s->pid);
		}
		if (r == 0) {
			clock_gettime(CLOCK_MONOTONIC, &now);
			if ((now.tv_sec - t0.tv_sec) * 1000 + (now.tv_nsec - t0.tv_nsec) / 1000000 >
			    timeout_ms)
				return in_vfork_wait(s->pid) /* no errno: "Connection timed out" misled */
					   ? cr_fail(e,
						     "task %d waits for its vfork child (CLONE_VFORK) "
						     "to exec or exit: not supported",
						     s->pid)
					   : cr_fail(
						 e,
						 "task %d does not stop within %d s (uninterruptible sleep?)",
						 s->pid, timeout_ms / 1000);
			nanosleep(&nap, NULL);
			if (nap.tv_nsec <
			    1000000) /* at most 1 ms late: the tree's tasks are seized one by one */
				nap.tv_nsec *= 2;
			continue;
		}
		if (WIFEXITED(status) || WIFSIGNALED(status)) {
			s->attached = false;
			if (WIFEXITED(status))
				return cr_fail_errno(e, ESRCH, "task %d exited (status %d) during the dump",
						     s->pid, WEXITSTATUS(status));
			return cr_fail_errno(e, ESRCH, "task %d was killed by signal %d during the dump",
					     s->pid, WTERMSIG(status));
		}
		if (!WIFSTOPPED(status))
			continue;
		*statusp = status;
		return 0;
	}
}

int seize_wait(struct seized *s, int *statusp, struct cr_err *e)
{
	return wait_stop(s, statusp, 0, e);
}

bool seize_is_stop_sig(int sig)
{
	return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU;
}

/* Returns 0 for the interrupt trap, 1 if the task reports a group-stop, < 0 on error. */
/* A task in uninterruptible sleep does not stop: give up after this long. */
#define STOP_TIMEOUT_MS 10000

static int interrupt_stop(struct seized *s, struct cr_err *e)
{
	/* Signal-delivery-stops may come before the interrupt trap: deliver those signals. */
	for (int tries = 0; tries < 64; tries++) {
		int status;
		if (wait_stop(s, &status, STOP_TIMEOUT_MS, e))
			return -1;
		int event = status >> 16, sig = WSTOPSIG(status);
		if (event == PTRACE_EVENT_STOP) {
			if (sig == SIGTRAP)
				return 0;
			s->group_stop_sig = seize_is_stop_sig(sig) ? sig : 0;
			return 1;
		}
		pr_debug("task %d: signal %d before the interrupt stop, delivering it\n", s->pid, sig);
		if (ptrace(PTRACE_CONT, s->pid, NULL, (void *)(long)(event ? 0 : sig)))
			return cr_fail_sys(e, "task %d: PTRACE_CONT", s->pid);
	}
	return cr_fail_errno(e, EBUSY, "task %d: does not stop", s->pid);
}

#ifndef PTRACE_O_SUSPEND_SECCOMP
#define PTRACE_O_SUSPEND_SECCOMP (1 << 21)
#endif

long ptrace_seize_sc(pid_t pid, long opts)
{
	long r = ptrace(PTRACE_SEIZE, pid, NULL, (void *)(opts | PTRACE_O_SUSPEND_SECCOMP));
	if (r && (errno == EPERM || errno == EINVAL))
		r = ptrace(PTRACE_SEIZE, pid, NULL, (void *)opts);
	return r;
}

int seize_preseize(pid_t tid)
{
	if (ptrace_seize_sc(tid, PTRACE_O_TRACESYSGOOD))
		return -1;
	return ptrace(PTRACE_INTERRUPT, tid, NULL, NULL) ? -1 : 0;
}

int seize_task(pid_t pid, struct seized *s, struct cr_err *e)
{
	memset(s, 0, sizeof(*s));
	s->pid = pid;
	int before = task_state(pid);
	bool pre = false; /* seized by seize_preseize (--freeze-cgroup): its interrupt stop is pending */
	if (ptrace_seize_sc(pid, PTRACE_O_TRACESYSGOOD)) {
		int err = errno; /* tracer_of's /proc read must not replace it (a thread gone: ENOENT) */
		pid_t tracer = err == EPERM ? tracer_of(pid) : 0;
		if (tracer > 0 && tracer == getpid()) {
			pre = true;
			before = 0; /* its state is our stop now */
		} else if (tracer > 0) {
			return cr_fail_errno(
			    e, EBUSY,
			    "task %d is traced by %d (a debugger, or a process of the tree): "
			    "not supported",
			    pid, tracer);
		} else {
			return cr_fail_errno(e, err, "PTRACE_SEIZE task %d", pid);
		}
	}
	s->attached = true;
	if (!pre && ptrace(PTRACE_INTERRUPT, pid, NULL, NULL)) {
		cr_fail_sys(e, "PTRACE_INTERRUPT task %d", pid);
		goto fail;
	}
	int r = interrupt_stop(s, e);
	if (r < 0)
		goto fail;
	s->was_stopped = r == 1 || before == 'T';
	if (ptrace(PTRACE_GETSIGMASK, pid, (void *)sizeof(uint64_t), &s->sigmask)) {
		cr_fail_sys(e, "task %d: PTRACE_GETSIGMASK", pid);
		goto fail;
	}
	uint64_t all = ~0ULL;
	if (ptrace(PTRACE_SETSIGMASK, pid, (void *)sizeof(uint64_t), &all)) {
		cr_fail_sys(e, "task %d: PTRACE_SETSIGMASK", pid);
		goto fail;
	}
	s->mask_saved = true;
	pr_info("seized task %d (state %c%s), sigmask %#llx\n", pid, before ? before : '?',
		s->was_stopped ? ", group-stopped" : "", (unsigned long long)s->sigmask);
	return 0;
fail:
	if (s->attached) {
		ptrace(PTRACE_DETACH, pid, NULL, NULL);
		s->attached = false;
	}
	return -1;
}

int seize_release(struct seized *s, struct cr_err *e)
{
	int ret = 0;
	if (!s->attached)
		return 0;
	if (s->mask_saved && ptrace(PTRACE_SETSIGMASK, s->pid, (void *)sizeof(uint64_t), &s->sigmask))
		ret = cr_fail_sys(e, "task %d: restore sigmask", s->pid);
	if (ptrace(PTRACE_DETACH, s->pid, NULL, NULL)) {
		if (errno != ESRCH)
			ret = cr_fail_sys(e, "task %d: PTRACE_DETACH", s->pid);
		else /* killed while seized: reap our notification so that it can go */
			waitpid(s->pid, &(int){0}, __WALL | WNOHANG);
	}
	s->attached = false;
	if (s->was_stopped) {
		/* The kernel re-enters a group-stop still in effect; make sure it does. */
		if (task_state(s->pid) != 'T')
			kill(s->pid, s->group_stop_sig ? s->group_stop_sig : SIGSTOP);
	} else if (s->stop_sig) {
		kill(s->pid, s->stop_sig);
	}
	pr_info("released task %d\n", s->pid);
	return ret;
}

void seize_release_mm(pid_t pid)
{
	int fd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (fd < 0)
		return;
	if (syscall(SYS_process_mrelease, fd, 0))
		pr_debug("task %d: process_mrelease: %s\n", pid, strerror(errno));
	close(fd);
}

void seize_kill(struct seized *s)
{
	kill(s->pid, SIGKILL);
	if (s->attached) {
		int status;
		/* Reap the ptrace notification so the real parent can reap the task. */
		while (waitpid(s->pid, &status, __WALL) >= 0 && !WIFEXITED(status) && !WIFSIGNALED(status))
			;
		s->attached = false;
	}
	/* Dead is enough: the zombie's PID stays taken until its parent reaps it, which neither a runtime
	 * (it sees a zombie as stopped) nor a restore needs here (rst_check_pids waits for a zombie's PID).
	 */
	for (int i = 0; i < 2000 && !seize_task_dead(s->pid); i++) {
		struct timespec ts = {0, 1000 * 1000};
		nanosleep(&ts, NULL);
	}
	if (!seize_task_dead(s->pid))
		pr_info("task %d: killed but not dead yet\n", s->pid);
}
