/* sk_unix_sender_gone_path for many senders at once: N clients bound to distinct path names sent a message
 * each to one of R dgram sockets and were closed: in the test dir (every third one's socket file left there,
 * the others removed), in a subdirectory of it that was removed since (its whole path is gone), in a
 * subdirectory that is still there, and two clients one after the other bound to the same path. After restore
 * each message comes back in order with its sender's path as recvfrom() gave it, the socket files left there
 * are the same inodes, the removed paths and the subdirectory are still gone. crshim binds all these paths in
 * one child (restore-sk-unix-queue.c, the binder; before 3058ebf one child each, ~2 ms apiece on a loaded
 * machine). */
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/stat.h>
#include "sk_unix.h"

enum {
	S = 60,
	R = 5,
	N = 50
}; /* (R receivers: one holds net.unix.max_dgram_qlen + 1 messages from strangers) */

static char names[N][96];
static ino_t kept[N];

int main(int argc, char **argv)
{
	char dir[PATH_MAX], sn[64], gone[80], sub[80], data[16];
	struct sockaddr_un sa[R];
	socklen_t sal[R];
	struct stat st;

	test_init(argc, argv);
	if (!getcwd(dir, sizeof(dir)) || strlen(dir) > 60)
		fail("cwd %s too long for a socket path", dir);
	snprintf(gone, sizeof(gone), "%s/gd", dir);
	snprintf(sub, sizeof(sub), "%s/sd", dir);
	if (mkdir(gone, 0755) || mkdir(sub, 0755))
		fail("mkdir");
	for (int r = 0; r < R; r++) {
		snprintf(sn, sizeof(sn), "@zdtm-sk-gone-many-%d-%d", getpid(), r);
		sal[r] = sk_bound(S + r, SOCK_DGRAM, sn, 0, &sa[r]);
	}
	for (int i = 0; i < N; i++) {
		const char *in = i % 5 == 1 ? gone : i % 5 == 2 ? sub : dir;
		/* (the last one is sent from the path of the one before it, bound again) */
		snprintf(names[i], sizeof(names[i]), "%s/g%d", in, i < N - 1 ? i : i - 1);
		snprintf(data, sizeof(data), "m%d", i);
		if (i == N - 1 && unlink(names[i]) && errno != ENOENT)
			fail("unlink %s", names[i]);
		sk_dgram_from(names[i], &sa[i % R], sal[i % R], data);
	}
	for (int i = 0; i < N; i++) {
		bool keep = i % 3 == 0 && i % 5 != 1 && i < N - 2;
		if (keep && (lstat(names[i], &st) || !S_ISSOCK(st.st_mode)))
			fail("%s is no socket file", names[i]);
		kept[i] = keep ? st.st_ino : 0;
		if (!keep && unlink(names[i]) && errno != ENOENT)
			fail("unlink %s", names[i]);
	}
	if (rmdir(gone))
		fail("rmdir %s", gone);
	test_daemon();
	test_waitsig();

	for (int i = 0; i < N; i++) {
		snprintf(data, sizeof(data), "m%d", i);
		sk_expect_from(S + i % R, data, names[i]);
	}
	for (int r = 0; r < R; r++)
		if (recv(S + r, data, sizeof(data), MSG_DONTWAIT) != -1 || errno != EAGAIN)
			fail("more messages than sent");
	for (int i = 0; i < N; i++) {
		int r = lstat(names[i], &st);
		if (kept[i] && (r || st.st_ino != kept[i]))
			fail("%s: not the socket file it was (inode %lu, was %lu): %m", names[i],
			     r ? 0UL : (unsigned long)st.st_ino, (unsigned long)kept[i]);
		if (!kept[i] && (!r || errno != ENOENT))
			fail("%s is there: %m", names[i]);
	}
	if (!lstat(gone, &st) || errno != ENOENT)
		fail("%s is there: %m", gone);
	for (int i = 0; i < N; i++)
		if (kept[i])
			unlink(names[i]);
	rmdir(sub);
	pass();
	return 0;
}
