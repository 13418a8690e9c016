/* A seccomp filter (with NO_NEW_PRIVS) that makes getppid() fail with EPERM
 * and uname() with ENOSYS: still installed and enforced after restore
 * (Seccomp: 2, same Seccomp_filters count). Beyond issue 2's list: noauto. */
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>
#include "zdtmtst.h"

int main(int argc, char **argv)
{
	struct sock_filter f[] = {
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getppid, 0, 1),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_uname, 0, 1),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {ARRAY_SIZE(f), f};
	char mode0[32], nf0[32];
	struct utsname u;

	test_init(argc, argv);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog)) {
		fail("seccomp");
		return 1;
	}
	if (syscall(SYS_getppid) != -1 || errno != EPERM)
		fail("filter not active before dump");
	snprintf(mode0, sizeof(mode0), "%s", proc_status("Seccomp"));
	snprintf(nf0, sizeof(nf0), "%s",
		 proc_status("Seccomp_filters") ? proc_status("Seccomp_filters") : "");
	test_daemon();
	test_waitsig();

	errno = 0;
	if (syscall(SYS_getppid) != -1 || errno != EPERM)
		fail("getppid not filtered after restore");
	errno = 0;
	if (uname(&u) != -1 || errno != ENOSYS)
		fail("uname not filtered after restore");
	if (prctl(PR_GET_SECCOMP) != 2)
		fail("PR_GET_SECCOMP %d", prctl(PR_GET_SECCOMP));
	if (strcmp(mode0, proc_status("Seccomp")))
		fail("Seccomp: %s, want %s", proc_status("Seccomp"), mode0);
	if (proc_status("Seccomp_filters") && strcmp(nf0, proc_status("Seccomp_filters")))
		fail("Seccomp_filters: %s, want %s", proc_status("Seccomp_filters"), nf0);
	if (getpid() <= 0)
		fail("getpid");
	pass();
	return 0;
}
