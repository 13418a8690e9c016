/* Datagrams flowing all the time: a sender outside the dumped tree sends numbered datagrams to a UDP
 * socket of the test every 300 us; the test reads them in bursts every 20 ms, so a dump always finds
 * dozens queued, and more keep coming while the queue is put back at restore. Every datagram read comes
 * from that sender, numbers only grow (none twice, none out of order; some may be lost while the task
 * is dumped), and some arrive. A second socket holds one datagram of the sender, read only at the end: a
 * queue the dump always finds, however the flow was timed (mode user's refusal needs a queued datagram). */
#include "../static/sk_udp.h"

static void sender(int fd, const struct sockaddr_storage *to, const struct sockaddr_storage *pin)
{
	uint32_t seq = 0;
	char buf[64] = {0};
	alarm(300);
	udp_send(fd, pin, 32, 7);
	for (;;) {
		struct pollfd p = {fd, POLLIN, 0};
		if (poll(&p, 1, 0) == 1) /* the test says stop */
			_exit(0);
		seq++;
		memcpy(buf, &seq, sizeof(seq));
		sendto(fd, buf, sizeof(buf), MSG_DONTWAIT, (const struct sockaddr *)to, udp_len(to));
		usleep(300);
	}
}

int main(int argc, char **argv)
{
	struct sockaddr_storage ra, sa, pa;
	uint32_t last = 0, n = 0;
	char buf[128];
	test_init(argc, argv);
	int s = udp_bound(AF_INET, "127.0.0.1", &sa);
	int r = udp_bound(AF_INET, "127.0.0.1", &ra);
	int pin = udp_bound(AF_INET, "127.0.0.1", &pa);
	if (udp_fork_outside(&s, 1))
		sender(s, &ra, &pa);
	close(s);
	udp_wait(pin);
	udp_wait(r);
	test_daemon();
	for (int go = 1; go;) {
		go = test_go();
		if (go)
			usleep(20000);
		for (;;) {
			struct sockaddr_storage from;
			socklen_t l = sizeof(from);
			uint32_t seq;
			ssize_t k = recvfrom(r, buf, sizeof(buf), MSG_DONTWAIT, (struct sockaddr *)&from, &l);
			if (k < 0)
				break;
			memcpy(&seq, buf, sizeof(seq));
			if (k != 64 || !udp_same(&from, &sa))
				fail("datagram of %zd bytes from %s, not 64 from %s", k, udp_str(&from),
				     udp_str(&sa));
			if (seq <= last)
				fail("datagram %u after %u: twice or out of order", seq, last);
			last = seq, n++;
		}
		if (test_failures)
			break;
	}
	udp_send(r, &sa, 4, 1); /* the sender stops */
	struct udp_dg pinned = {32, 7, sa};
	udp_read("the datagram held all along", pin, &pinned, 1);
	if (n < 10)
		fail("only %u datagrams", n);
	test_msg("%u datagrams, the last one %u\n", n, last);
	pass();
	return 0;
}
