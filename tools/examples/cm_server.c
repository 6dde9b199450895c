// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * rnic-cm-server: listens with rdma_create_ep(RAI_PASSIVE), takes one
 * request with rdma_get_request() (its QP made from the listener's
 * attributes), receives one message and sends it back.
 */
#include <netdb.h>

#include "cm_common.h"

static const char usage[] =
	"Usage: rnic-cm-server [-s ADDRESS] [-p PORT]\n"
	"\t-s ADDRESS\tthe address to listen on (default: every one)\n"
	"\t-p PORT\t\tthe port (default " CM_EX_PORT ")\n";

static int echo(struct rdma_cm_id *id)
{
	static char msg[CM_EX_MSG_SIZE];
	struct ibv_wc wc;
	struct ibv_mr *mr;
	int ret = -1;

	mr = rdma_reg_msgs(id, msg, sizeof(msg));
	if (!mr) {
		perror("rdma_reg_msgs");
		return -1;
	}
	if (rdma_post_recv(id, NULL, msg, sizeof(msg), mr)) {
		perror("rdma_post_recv");
		goto out;
	}
	if (rdma_accept(id, NULL)) {
		perror("rdma_accept");
		goto out;
	}
	if (rdma_get_recv_comp(id, &wc) != 1 || wc.status != IBV_WC_SUCCESS) {
		fprintf(stderr, "rnic-cm-server: receive completion failed\n");
		goto out_disconnect;
	}
	if (rdma_post_send(id, NULL, msg, wc.byte_len, mr, 0)) {
		perror("rdma_post_send");
		goto out_disconnect;
	}
	if (rdma_get_send_comp(id, &wc) != 1 || wc.status != IBV_WC_SUCCESS) {
		fprintf(stderr, "rnic-cm-server: send completion failed\n");
		goto out_disconnect;
	}
	ret = 0;
out_disconnect:
	rdma_disconnect(id);
out:
	rdma_dereg_mr(mr);
	return ret;
}

int main(int argc, char **argv)
{
	struct rdma_cm_id *listen_id, *id;
	const char *addr = NULL, *port = CM_EX_PORT;
	struct rdma_addrinfo hints, *res;
	struct ibv_qp_init_attr attr;
	int ret;

	ret = cm_ex_args(argc, argv, usage, &addr, &port);
	if (ret)
		return ret < 0 ? 0 : ret;
	printf("rnic-cm-server: start\n");
	fflush(stdout);
	memset(&hints, 0, sizeof(hints));
	hints.ai_flags = RAI_PASSIVE;
	hints.ai_port_space = RDMA_PS_TCP;
	ret = rdma_getaddrinfo(addr, port, &hints, &res);
	if (ret) {
		cm_ex_gai_error("rnic-cm-server", ret);
		goto out;
	}
	cm_ex_qp_attr(&attr);
	ret = rdma_create_ep(&listen_id, res, NULL, &attr);
	rdma_freeaddrinfo(res);
	if (ret) {
		perror("rdma_create_ep");
		goto out;
	}
	ret = rdma_listen(listen_id, 0);
	if (ret) {
		perror("rdma_listen");
	} else {
		ret = rdma_get_request(listen_id, &id);
		if (ret) {
			perror("rdma_get_request");
		} else {
			ret = echo(id);
			rdma_destroy_ep(id);
		}
	}
	rdma_destroy_ep(listen_id);
out:
	printf("rnic-cm-server: end %d\n", ret);
	return ret ? 1 : 0;
}
