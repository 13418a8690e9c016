/* Unit tests of the restore's check of VMA NUMA memory policies (engine/mem/mpol.c rst_mpol_check): a
 * policy this host can set passes, one on a node it does not have (node 1000) or with a nodemask longer
 * than crshim keeps, or one on the vDSO, is one line naming the policy and the VMA; the blob's array takes
 * the policies of the VMAs that have one. */
#include <string.h>

#include "mem/mpol.h"
#include "restore.h"
#include "tap.h"

static struct cr_err err;

static int check_one(VmaEntry *v)
{
	VmaEntry *vp[1] = {v};
	MmEntry mm = MM_ENTRY__INIT;
	struct rst_task t;
	memset(&t, 0, sizeof(t));
	mm.n_vmas = 1, mm.vmas = vp;
	t.pid = 42, t.mm = &mm;
	memset(&err, 0, sizeof(err));
	return rst_mpol_check(&t, &err);
}

static void vma(VmaEntry *v, int32_t mode, uint8_t *nodes, size_t len)
{
	vma_entry__init(v);
	v->start = 0x10000, v->end = 0x12000, v->has_start = v->has_end = 1;
	v->mempolicy = mode, v->has_mempolicy = 1;
	v->mempolicy_nodes = (ProtobufCBinaryData){len, nodes}, v->has_mempolicy_nodes = len != 0;
}

int main(void)
{
	uint8_t n0[1] = {1}, far[126] = {0}, big[200] = {1};
	VmaEntry v;

	vma(&v, 2 /* MPOL_BIND */, n0, sizeof(n0));
	ok(check_one(&v) == 0, "bind:0 can be set here (%s)", err.msg);
	vma(&v, 2 | 0x8000 /* MPOL_F_STATIC_NODES */, n0, sizeof(n0));
	ok(check_one(&v) == 0, "bind=static:0 can be set here (%s)", err.msg);
	vma(&v, 4 /* MPOL_LOCAL */, NULL, 0);
	ok(check_one(&v) == 0, "local can be set here (%s)", err.msg);
	vma(&v, 0, NULL, 0);
	ok(check_one(&v) == 0, "the default is nothing to set");

	far[125] = 1; /* node 1000 */
	vma(&v, 2, far, sizeof(far));
	ok(check_one(&v) < 0 &&
	       strstr(err.msg, "bind:1000 of vma 0x10000-0x12000 cannot be set on this host"),
	   "bind:1000 refused: %s", err.msg);
	vma(&v, 3 /* MPOL_INTERLEAVE */, far, sizeof(far));
	ok(check_one(&v) < 0 && strstr(err.msg, "task 42: the NUMA memory policy interleave:1000"),
	   "interleave:1000 refused: %s", err.msg);
	vma(&v, 2, big, sizeof(big));
	ok(check_one(&v) < 0 && strstr(err.msg, "is not one crshim can set"), "1600 node bits refused: %s",
	   err.msg);
	vma(&v, 2, n0, sizeof(n0));
	v.kind = VMA_KIND__VMA_VDSO, v.has_kind = 1;
	ok(check_one(&v) < 0 && strstr(err.msg, "is not one crshim can set"),
	   "a policy on the vDSO refused: %s", err.msg);
	vma(&v, 99, n0, sizeof(n0));
	ok(check_one(&v) < 0 && strstr(err.msg, "mode 99:0"), "an unknown mode refused: %s", err.msg);

	/* the blob's array: the VMAs with a policy, not the vDSO's */
	VmaEntry a, b, c;
	vma(&a, 2 | 0x4000, n0, sizeof(n0));
	vma(&b, 0, NULL, 0);
	vma(&c, 13, NULL, 0);
	a.kind = VMA_KIND__VMA_AIO_RING, a.has_kind = 1;
	b.start = c.start = 0x20000, b.end = c.end = 0x21000;
	c.kind = VMA_KIND__VMA_VVAR, c.has_kind = 1;
	VmaEntry *vp[3] = {&a, &b, &c};
	MmEntry mm = MM_ENTRY__INIT;
	struct rst_task t;
	struct rst_vma_mpol m[4];
	memset(&t, 0, sizeof(t));
	memset(m, 0, sizeof(m));
	mm.n_vmas = 3, mm.vmas = vp, t.mm = &mm;
	ok(rst_mpol_count(&t) == 1 && rst_mpol_fill(&t, m) == 1, "one VMA with a policy");
	ok(m[0].start == 0x10000 && m[0].len == 0x2000 && m[0].mode == (2 | 0x4000) && m[0].nodes[0] == 1 &&
	       m[0].late == 1,
	   "its range, mode, nodes, and late (an AIO ring)");
	return done_testing();
}
