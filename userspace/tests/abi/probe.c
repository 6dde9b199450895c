// SPDX-License-Identifier: (GPL-2.0 OR MIT)
/*
 * ABI probe: prints the size of every public struct of <infiniband/verbs.h>,
 * the offset and size of each of its members, and the value of each of its
 * constants. Built once against rdma-core's header and once against
 * rnic's; the two outputs must be the same (check.sh). The list of structs
 * and members is probe-fields.h, generated from rdma-core's layout by
 * gen-probe.py; the constants are probe-consts.h, by gen-consts.sh.
 *
 * Built with -DPROBE_CM, it probes the connection manager's headers
 * instead: <rdma/rdma_cma.h>, <rdma/rdma_verbs.h> and <infiniband/sa.h>
 * (probe-cm-fields.h, probe-cm-consts.h).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#ifdef PROBE_CM
#include <rdma/rdma_verbs.h>
#else
#include <infiniband/verbs.h>
#endif

/*
 * Structs whose size is not the release's the probe is compared with,
 * though every member of it matches: those rdma-core grew later and
 * passes with their size (so the library writes only the caller's part),
 * where rnic has the newer, longer layout; and struct ibv_qp_init_attr,
 * to which rnic appends the reference documents' OFED xrc_domain, read
 * and written only for IBV_QPT_XRC (a type rdma-core has not).
 */
static const char *const grown[] = {
	"struct ibv_port_attr",
	"struct ibv_qp_init_attr",
};

static void size(const char *type, size_t sz)
{
	size_t i;

	for (i = 0; i < sizeof(grown) / sizeof(grown[0]); i++) {
		if (!strcmp(type, grown[i])) {
			printf("%s grows\n", type);
			return;
		}
	}
	printf("%s size %zu\n", type, sz);
}

#define S(type) size(#type, sizeof(type));
#define F(type, member)                                                \
	printf("%s.%s offset %zu size %zu\n", #type, #member,          \
	       offsetof(type, member), sizeof(((type *)0)->member));

/* Enumerators, macros and __VERBS_ABI_IS_EXTENDED (a pointer) alike. */
#define C(name) \
	printf("%s = %llu\n", #name, (unsigned long long)(uintptr_t)(name));
/* A name of a newer rdma-core than the one compared with. */
#define N(name)

int main(void)
{
#ifdef PROBE_CM
#include "probe-cm-fields.h"
#include "probe-cm-consts.h"
#else
#include "probe-fields.h"
#include "probe-consts.h"
#endif
	return 0;
}
