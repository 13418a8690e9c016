/* Inside the restorer blob: what sharedvm.c (processes sharing the restored address space) and
 * restorer.c use of each other. */
#ifndef CRSHIM_RST_SVM_H
#define CRSHIM_RST_SVM_H

#include <stdint.h>

#include "restorer-args.h"

/* restorer.c */
__attribute__((noreturn)) void rst_fail(struct rst_args *a, const char *step, long ret, uint64_t x,
					uint64_t y);
void rst_task_state(struct rst_args *a); /* tid address, robust list, rseq, signals, timers, rlimits */
void rst_task_creds(struct rst_args *a); /* creds, dumpable, pdeathsig, no_new_privs */
uint64_t rst_now_ns(void);
void rst_wait_while(volatile int32_t *p, int32_t v);

/* sharedvm.c: the owner clones each sharer (after its address space is in place); a sharer runs
 * rst_svm_main on its own area's stack and then stops with a trap for crshim. */
void rst_svm_clone_all(struct rst_args *a);
void rst_svm_userns(struct rst_args *a); /* the owner, after rst_svm_clone_all: svm_userns_fd */
void rst_svm_main(void *arg);

#endif
