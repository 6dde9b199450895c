// SPDX-License-Identifier: (GPL-2.0 OR MIT)
/*
 * rnic-devices: list rnic devices and their node GUIDs, in the format of
 * rdma-core's ibv_devices. Written on librnic's public verbs API only.
 */
#include <endian.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <infiniband/verbs.h>

int main(int argc, char *argv[])
{
	struct ibv_device **list;
	int num, i;

	if (argc > 1) {
		int help = !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help");

		fprintf(help ? stdout : stderr,
			"Usage: %s\n\nList rnic devices and their node GUIDs.\n",
			argv[0]);
		return help ? 0 : 1;
	}

	list = ibv_get_device_list(&num);
	if (!list) {
		perror("Failed to get IB devices list");
		return 1;
	}

	printf("    %-16s\t   node GUID\n", "device");
	printf("    %-16s\t----------------\n", "------");
	for (i = 0; i < num; i++)
		printf("    %-16s\t%016" PRIx64 "\n",
		       ibv_get_device_name(list[i]),
		       be64toh(ibv_get_device_guid(list[i])));

	ibv_free_device_list(list);
	return 0;
}
