/* unixecho PATH: a unix stream listener bound at PATH that writes back what each connection sends, one
 * connection at a time, forever. unixecho -c PATH WORD: connects to PATH, sends WORD, prints the answer. */
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static int addr_of(const char *path, struct sockaddr_un *a)
{
	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(a->sun_path))
		return -1;
	strcpy(a->sun_path, path);
	return 0;
}

static int client(const char *path, const char *word)
{
	struct sockaddr_un a;
	char buf[256];
	int s = socket(AF_UNIX, SOCK_STREAM, 0);
	if (s < 0 || addr_of(path, &a) || connect(s, (struct sockaddr *)&a, sizeof(a))) {
		perror("unixecho: connect");
		return 1;
	}
	if (write(s, word, strlen(word)) != (ssize_t)strlen(word))
		return 1;
	ssize_t n = read(s, buf, sizeof(buf) - 1);
	if (n <= 0)
		return 1;
	buf[n] = 0;
	printf("%s\n", buf);
	return 0;
}

int main(int argc, char **argv)
{
	struct sockaddr_un a;
	char buf[256];
	if (argc == 4 && !strcmp(argv[1], "-c"))
		return client(argv[2], argv[3]);
	int l = socket(AF_UNIX, SOCK_STREAM, 0);
	if (argc != 2 || l < 0 || addr_of(argv[1], &a) || bind(l, (struct sockaddr *)&a, sizeof(a)) ||
	    listen(l, 8)) {
		perror("unixecho: listen");
		return 1;
	}
	for (;;) {
		int c = accept(l, NULL, NULL);
		if (c < 0)
			continue;
		ssize_t n = read(c, buf, sizeof(buf));
		if (n > 0 && write(c, buf, (size_t)n) != n)
			perror("unixecho: write");
		close(c);
	}
}
