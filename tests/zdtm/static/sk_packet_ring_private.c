/* The rings of a packet socket mapped privately (MAP_PRIVATE, read-write, as CRIU's packet_sock_mmap), beside
 * the program's shared mapping of them: a TPACKET_V2 receive ring (16 frames) and a transmit ring, 3 frames
 * received and held. A private mapping shows the rings until the program writes one of its pages (then a copy
 * of its own); this one is never written. After restore it is at the same address with the same maps line
 * (private, the socket's inode; before, the dump refused it), shows what the shared mapping shows, also
 * frames received after the restore, and the frames go on in order through the shared one. */
#include <sys/mman.h>
#include <string.h>
#include "zdtmtst.h"

int main(int argc, char **argv)
{
	struct pkring r;
	struct tpacket_req3 req = {
	    .tp_block_size = 4096, .tp_block_nr = 4, .tp_frame_size = 1024, .tp_frame_nr = 16};
	struct tpacket_req treq = {
	    .tp_block_size = 4096, .tp_block_nr = 1, .tp_frame_size = 1024, .tp_frame_nr = 4};
	char before[128], after[128], fl[256];
	uint32_t want = 0;
	test_init(argc, argv);
	pkring_open(&r, TPACKET_V2, &req, &treq);
	size_t len = r.len + (size_t)treq.tp_block_size * treq.tp_block_nr;
	uint8_t *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE, r.sk, 0);
	if (p == MAP_FAILED)
		fail("private mapping of the rings");
	for (uint32_t s = 0; s < 3; s++)
		pkring_send(&r, s);
	usleep(100000);
	if (memcmp(p, r.map, len))
		fail("the private mapping does not show the rings");
	if (vma_info(p, before, sizeof(before), fl, sizeof(fl)) || !strstr(before, "rw-p"))
		fail("no private mapping of the rings");
#ifdef RING_WRITTEN
	p[len - 1] = 1; /* a copy of its own of the transmit ring's page: refused at dump */
	len = r.len;	/* the receive ring still shows the kernel's */
#endif

	test_daemon();
	test_waitsig();

	if (vma_info(p, after, sizeof(after), fl, sizeof(fl)) || strcmp(before, after))
		fail("the private mapping was \"%s\", now \"%s\"", before, after);
	if (memcmp(p, r.map, len))
		fail("after restore the private mapping does not show the rings");
	pkring_expect(&r, &want, 2);
	pkring_send(&r, 3);
	pkring_expect(&r, &want, 3);
	if (memcmp(p, r.map, len))
		fail("a frame received after restore is not seen in the private mapping");
	return test_pass();
}
