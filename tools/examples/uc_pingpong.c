// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * rnic-uc-pingpong: ping-pong over one unreliable connected (UC) QP.
 * See pingpong.c and Documentation/man/rnic-rc-pingpong.1.
 */
#include "pingpong.h"

int main(int argc, char **argv)
{
	static const struct pp_example uc = {
		.qp_type = IBV_QPT_UC,
		.default_size = 4096,
	};

	return pp_main(argc, argv, &uc);
}
