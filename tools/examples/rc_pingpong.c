// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * rnic-rc-pingpong: ping-pong over one reliable connected (RC) QP.
 * See pingpong.c and Documentation/man/rnic-rc-pingpong.1.
 */
#include "pingpong.h"

int main(int argc, char **argv)
{
	static const struct pp_example rc = {
		.qp_type = IBV_QPT_RC,
		.default_size = 4096,
	};

	return pp_main(argc, argv, &rc);
}
