/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * rnic-cm-client and rnic-cm-server: librdmacm's rdma_client and
 * rdma_server examples on librnic, synchronous (rdma_create_ep(),
 * rdma_get_request(), rdma_verbs.h's helpers). The client sends one
 * 16-byte message, the server answers with one (rnic-cm-server: the
 * same bytes).
 */
#ifndef RNIC_CM_COMMON_H
#define RNIC_CM_COMMON_H

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>

#define CM_EX_PORT "7471"
#define CM_EX_MSG_SIZE 16

/* The QP both sides make: one message each way, every send signalled. */
static inline void cm_ex_qp_attr(struct ibv_qp_init_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->cap.max_send_wr = 1;
	attr->cap.max_recv_wr = 1;
	attr->cap.max_send_sge = 1;
	attr->cap.max_recv_sge = 1;
	attr->qp_type = IBV_QPT_RC;
	attr->sq_sig_all = 1;
}

/*
 * -s ADDRESS and -p PORT (the only options, as rdma-core's examples);
 * -h prints @usage. Returns 0 to run, else the exit status.
 */
static inline int cm_ex_args(int argc, char **argv, const char *usage,
			     const char **addr, const char **port)
{
	int c;

	opterr = 0;
	while ((c = getopt(argc, argv, "s:p:h")) != -1) {
		switch (c) {
		case 's':
			*addr = optarg;
			break;
		case 'p':
			*port = optarg;
			break;
		case 'h':
			printf("%s", usage);
			return -1;
		default:
			fprintf(stderr, "%s: unknown option or missing argument: -%c\n%s",
				argv[0], optopt, usage);
			return 1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "%s: unexpected argument: %s\n%s", argv[0],
			argv[optind], usage);
		return 1;
	}
	return 0;
}

/* rdma_getaddrinfo()'s errors: -1 with errno, or an EAI_* code. */
static inline void cm_ex_gai_error(const char *prog, int ret)
{
	if (ret == -1)
		perror("rdma_getaddrinfo");
	else
		fprintf(stderr, "%s: rdma_getaddrinfo: %s\n", prog,
			gai_strerror(ret));
}

#endif /* RNIC_CM_COMMON_H */
