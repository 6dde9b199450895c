/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The ping-pong examples: two processes, a server and a client, bounce
 * messages between their QPs and check every byte. rnic-rc-pingpong,
 * rnic-uc-pingpong, rnic-ud-pingpong and rnic-srq-pingpong differ only in
 * the struct pp_example they hand to pp_main(); everything else (options,
 * rdma-core's TCP exchange of QP numbers, PSNs and GIDs, the verbs, the
 * payload check, the report) is in pingpong.c.
 *
 * Only <infiniband/verbs.h> is used, so the same source builds against
 * librnic (-lrnic) and against rdma-core (-libverbs).
 */
#ifndef RNIC_PINGPONG_H
#define RNIC_PINGPONG_H

#include <stdbool.h>
#include <infiniband/verbs.h>

/**
 * struct pp_example - what makes one example different from the others
 * @qp_type: IBV_QPT_RC, IBV_QPT_UC or IBV_QPT_UD
 * @srq: the QPs share a shared receive queue; -q sets how many QPs
 * @default_size: message size without -s
 */
struct pp_example {
	enum ibv_qp_type qp_type;
	bool srq;
	unsigned int default_size;
};

/* Runs the example: parses @argv, serves or connects, returns the exit status. */
int pp_main(int argc, char **argv, const struct pp_example *ex);

#endif
