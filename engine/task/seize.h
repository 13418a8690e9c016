/* Seizing one task with PTRACE_SEIZE + PTRACE_INTERRUPT and letting it go again. */
#ifndef CRSHIM_SEIZE_H
#define CRSHIM_SEIZE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include "base/err.h"

struct seized {
	pid_t pid;
	bool attached;	  /* ptrace-attached by us */
	bool was_stopped; /* in group-stop when seized (State T) */
	bool mask_saved;
	uint64_t sigmask;   /* original blocked mask (bit n-1 = signal n) */
	int stop_sig;	    /* a SIGSTOP-like signal swallowed during the dump, re-sent at release */
	int group_stop_sig; /* was_stopped: the signal that stopped it (0: not known, SIGSTOP) */
};

/* PTRACE_SEIZE with opts and PTRACE_O_SUSPEND_SECCOMP (so that a task's seccomp filters do not apply to
 * the syscalls we make it do), without the latter where we may not use it (we run under seccomp). */
long ptrace_seize_sc(pid_t pid, long opts);
/* --freeze-cgroup: PTRACE_SEIZE + PTRACE_INTERRUPT of a thread of the frozen cgroup (its stop comes once
 * the cgroup is thawed; seize_task then takes it as it is). -1 and errno on failure. */
int seize_preseize(pid_t tid);
/* Seize and stop the task; on success the task is in a ptrace stop with all signals blocked. */
int seize_task(pid_t pid, struct seized *s, struct cr_err *e);
/* Wait for the next ptrace stop of the task: 0 and *status (as waitpid) or < 0 if it died. */
int seize_wait(struct seized *s, int *status, struct cr_err *e);
bool seize_is_stop_sig(int sig);
/* Restore the original sigmask and detach (the task keeps running, or stays stopped if it was). */
int seize_release(struct seized *s, struct cr_err *e);
/* After its SIGKILL: free the dying process's memory from here as well (process_mrelease), while its own exit
 * frees it too: about twice as fast as the exit alone (1 GiB: 0.16 s -> 0.08 s). Refused (memory shared with
 * a process not killed, an old kernel): the exit does it all, as before. */
void seize_release_mm(pid_t pid);
/* Kill the seized task and wait for it to go away (up to ~2 s). */
void seize_kill(struct seized *s);
bool seize_task_dead(pid_t pid); /* gone, or a zombie (its PID may still be taken) */

#endif
