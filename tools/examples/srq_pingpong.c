// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * rnic-srq-pingpong: ping-pong over several RC QPs (-q) whose receives all
 * come from one shared receive queue.
 * See pingpong.c and Documentation/man/rnic-rc-pingpong.1.
 */
#include "pingpong.h"

int main(int argc, char **argv)
{
	static const struct pp_example srq = {
		.qp_type = IBV_QPT_RC,
		.srq = true,
		.default_size = 4096,
	};

	return pp_main(argc, argv, &srq);
}
