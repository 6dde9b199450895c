// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * LD_PRELOAD shim for tests/vm.sh: flips the last payload byte of send
 * number $PP_CORRUPT_SEND (counted from 0) of the process it is loaded
 * into, so that the peer's check must catch it.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <infiniband/verbs.h>

typedef int (*post_send_fn)(struct ibv_qp *, struct ibv_send_wr *,
			    struct ibv_send_wr **);

int ibv_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
		  struct ibv_send_wr **bad_wr)
{
	static unsigned long sends;
	const char *at = getenv("PP_CORRUPT_SEND");
	post_send_fn real = (post_send_fn)dlsym(RTLD_NEXT, "ibv_post_send");
	struct ibv_sge *sge = wr->sg_list;

	if (at && sends++ == strtoul(at, NULL, 0) && wr->num_sge &&
	    sge->length)
		((uint8_t *)(uintptr_t)sge->addr)[sge->length - 1] ^= 0x5a;
	return real(qp, wr, bad_wr);
}
