// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * rnic-cm-client: connects to rnic-cm-server (or rdma-core's rdma_server)
 * with rdma_create_ep(), sends one 16-byte message and waits for the
 * server's 16-byte answer. rnic-cm-server echoes the message; rdma-core's
 * rdma_server answers with a buffer of its own, so only the answer's
 * length is checked.
 */
#include <netdb.h>

#include "cm_common.h"

static const char usage[] =
	"Usage: rnic-cm-client -s SERVER [-p PORT]\n"
	"\t-s SERVER\tthe server's address or name\n"
	"\t-p PORT\t\tits port (default " CM_EX_PORT ")\n";

static int exchange(struct rdma_cm_id *id)
{
	static char send_msg[CM_EX_MSG_SIZE] = "rnic cm ping";
	static char recv_msg[CM_EX_MSG_SIZE];
	struct ibv_mr *send_mr, *recv_mr = NULL;
	struct ibv_wc wc;
	int ret = -1;

	send_mr = rdma_reg_msgs(id, send_msg, sizeof(send_msg));
	if (send_mr)
		recv_mr = rdma_reg_msgs(id, recv_msg, sizeof(recv_msg));
	if (!recv_mr) {
		perror("rdma_reg_msgs");
		goto out;
	}
	/* The receive first: the echo may come at once. */
	if (rdma_post_recv(id, NULL, recv_msg, sizeof(recv_msg), recv_mr)) {
		perror("rdma_post_recv");
		goto out;
	}
	if (rdma_connect(id, NULL)) {
		perror("rdma_connect");
		goto out;
	}
	if (rdma_post_send(id, NULL, send_msg, sizeof(send_msg), send_mr, 0)) {
		perror("rdma_post_send");
		goto out_disconnect;
	}
	if (rdma_get_send_comp(id, &wc) != 1 || wc.status != IBV_WC_SUCCESS) {
		fprintf(stderr, "rnic-cm-client: send completion failed\n");
		goto out_disconnect;
	}
	if (rdma_get_recv_comp(id, &wc) != 1 || wc.status != IBV_WC_SUCCESS) {
		fprintf(stderr, "rnic-cm-client: receive completion failed\n");
		goto out_disconnect;
	}
	if (wc.byte_len != sizeof(recv_msg)) {
		fprintf(stderr, "rnic-cm-client: an answer of %u bytes\n",
			wc.byte_len);
		goto out_disconnect;
	}
	ret = 0;
out_disconnect:
	rdma_disconnect(id);
out:
	if (recv_mr)
		rdma_dereg_mr(recv_mr);
	if (send_mr)
		rdma_dereg_mr(send_mr);
	return ret;
}

int main(int argc, char **argv)
{
	struct rdma_addrinfo hints, *res;
	const char *server = NULL, *port = CM_EX_PORT;
	struct ibv_qp_init_attr attr;
	struct rdma_cm_id *id;
	int ret;

	ret = cm_ex_args(argc, argv, usage, &server, &port);
	if (ret)
		return ret < 0 ? 0 : ret;
	if (!server) {
		fprintf(stderr, "rnic-cm-client: -s is needed\n%s", usage);
		return 1;
	}
	printf("rnic-cm-client: start\n");
	memset(&hints, 0, sizeof(hints));
	hints.ai_port_space = RDMA_PS_TCP;
	ret = rdma_getaddrinfo(server, port, &hints, &res);
	if (ret) {
		cm_ex_gai_error("rnic-cm-client", ret);
		goto out;
	}
	cm_ex_qp_attr(&attr);
	ret = rdma_create_ep(&id, res, NULL, &attr);
	rdma_freeaddrinfo(res);
	if (ret) {
		perror("rdma_create_ep");
		goto out;
	}
	ret = exchange(id);
	rdma_destroy_ep(id);
out:
	printf("rnic-cm-client: end %d\n", ret);
	return ret ? 1 : 0;
}
