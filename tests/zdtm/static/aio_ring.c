/* AIO contexts (io_setup; CRIU's aio00, aio01): an empty one, and one whose ring wrapped around and holds
 * completed events not read yet (writes to a file, each with its own aio_data). After restore: both
 * contexts at the same address (the id), their rings with the same nr, head and tail; the held events are
 * read back in order with their data and results, the kernel's count of them right (the ring takes as many
 * new requests as before), new requests complete in the restored ring, io_destroy works. */
#include <fcntl.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "zdtmtst.h"
#include "aioctx.h"

struct aio_ring {
	unsigned id, nr, head, tail, magic, compat_features, incompat_features, header_length;
	struct io_event io_events[];
};

static struct io_event ev[1024];

int main(int argc, char **argv)
{
	aio_context_t empty = 0, ctx = 0;
	unsigned nr, head, tail, held, sent = 0, got = 0;

	test_init(argc, argv);
	int fd = open("aio.data", O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || syscall(__NR_io_setup, 1, &empty) || syscall(__NR_io_setup, 64, &ctx))
		fail("setup: %m");
	volatile struct aio_ring *r = (struct aio_ring *)ctx, *re = (struct aio_ring *)empty;
	nr = r->nr;
	for (unsigned i = 0; i < nr + 2; i++) { /* every second one read: the ring wraps around */
		if (aioctx_write(ctx, fd, 1000 + sent) != 1)
			fail("submit %u: %m", i);
		sent++;
		if (i % 2 && aioctx_events(ctx, 1, 1, ev) == 1)
			got++;
	}
	head = r->head, tail = r->tail;
	held = (tail + nr - head) % nr;
	if (held != sent - got || tail >= head)
		fail("before: nr %u head %u tail %u, %u held, want %u and a wrapped ring", nr, head, tail,
		     held, sent - got);
	unsigned enr = re->nr;
	test_daemon();
	test_waitsig();

	if (r->nr != nr || r->head != head || r->tail != tail || re->nr != enr || re->head || re->tail)
		fail("ring: nr %u head %u tail %u (empty: nr %u head %u tail %u), was %u %u %u (%u 0 0)",
		     r->nr, r->head, r->tail, re->nr, re->head, re->tail, nr, head, tail, enr);
	if (aioctx_events(empty, 0, 1, ev) != 0)
		fail("the empty context: io_getevents %m");
	long n = aioctx_events(ctx, held, held, ev);
	if (n != (long)held)
		fail("%ld of %u held events read back (%m)", n, held);
	for (long i = 0; i < n; i++)
		if (ev[i].data != 1000 + got + (uint64_t)i || ev[i].res != 1) {
			fail("event %ld: data %llu res %lld, want %u and 1", i,
			     (unsigned long long)ev[i].data, (long long)ev[i].res, 1000 + got + (unsigned)i);
			break;
		}
	/* the kernel counts no event as held any more: the ring takes nr - 1 new requests */
	unsigned more = 0;
	while (more < nr - 1 && aioctx_write(ctx, fd, 5000 + more) == 1)
		more++;
	if (more < nr / 2)
		fail("only %u new requests taken (ring of %u)", more, nr);
	n = aioctx_events(ctx, more, more, ev);
	if (n != (long)more || ev[0].data != 5000 || ev[more - 1].data != 5000 + more - 1)
		fail("%ld of %u new events, data %llu", n, more, (unsigned long long)ev[0].data);
	if (r->head != r->tail || r->tail != (tail + more) % nr)
		fail("new events not in the restored ring: head %u tail %u", r->head, r->tail);
	if (aioctx_write(empty, fd, 7) != 1 || aioctx_events(empty, 1, 1, ev) != 1 || ev[0].data != 7)
		fail("the empty context does not work");
	if (syscall(__NR_io_destroy, ctx) || syscall(__NR_io_destroy, empty))
		fail("io_destroy: %m");
	return test_pass();
}
