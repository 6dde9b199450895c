// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * rnic-ud-pingpong: ping-pong over one unreliable datagram (UD) QP; each
 * message is one packet, so -s is limited by the port's active MTU.
 * See pingpong.c and Documentation/man/rnic-rc-pingpong.1.
 */
#include "pingpong.h"

int main(int argc, char **argv)
{
	static const struct pp_example ud = {
		.qp_type = IBV_QPT_UD,
		.default_size = 2048,
	};

	return pp_main(argc, argv, &ud);
}
