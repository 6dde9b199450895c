// SPDX-License-Identifier: (GPL-2.0 OR MIT)
/*
 * librdmacm.so.1: rdma-core's librdmacm ABI (nodes RDMACM_1.0 to 1.3,
 * rdmacm.map). The connection manager's calls are librnic's own (lib/cm/,
 * linked into this library too); what is here is rsocket, which rnic does
 * not have: its calls, exported in RDMACM_1.0, fail with -1 and errno
 * ENOSYS, so that programs that link them without using them load.
 */
#include "stub.h"

/* RDMACM_1.0: rsocket */
STUB_MINUS1(rsocket, ENOSYS)
STUB_MINUS1(rbind, ENOSYS)
STUB_MINUS1(rlisten, ENOSYS)
STUB_MINUS1(raccept, ENOSYS)
STUB_MINUS1(rconnect, ENOSYS)
STUB_MINUS1(rshutdown, ENOSYS)
STUB_MINUS1(rclose, ENOSYS)
STUB_MINUS1(rrecv, ENOSYS)
STUB_MINUS1(rrecvfrom, ENOSYS)
STUB_MINUS1(rrecvmsg, ENOSYS)
STUB_MINUS1(rsend, ENOSYS)
STUB_MINUS1(rsendto, ENOSYS)
STUB_MINUS1(rsendmsg, ENOSYS)
STUB_MINUS1(rread, ENOSYS)
STUB_MINUS1(rreadv, ENOSYS)
STUB_MINUS1(rwrite, ENOSYS)
STUB_MINUS1(rwritev, ENOSYS)
STUB_MINUS1(rpoll, ENOSYS)
STUB_MINUS1(rselect, ENOSYS)
STUB_MINUS1(rgetpeername, ENOSYS)
STUB_MINUS1(rgetsockname, ENOSYS)
STUB_MINUS1(rsetsockopt, ENOSYS)
STUB_MINUS1(rgetsockopt, ENOSYS)
STUB_MINUS1(rfcntl, ENOSYS)
STUB_MINUS1(riomap, ENOSYS)
STUB_MINUS1(riounmap, ENOSYS)
STUB_MINUS1(riowrite, ENOSYS)
