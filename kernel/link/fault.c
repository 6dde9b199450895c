// SPDX-License-Identifier: GPL-2.0
/*
 * rnic: software RDMA NIC - fault injection, for the users' own tests of
 * their error handling (Documentation/admin-guide.rst, "Fault
 * injection").
 *
 * A device's settings (struct rnic_fault, set by RNIC_NL_CMD_LINK_SET)
 * are of two kinds. Packet faults take a fraction of the packets the
 * device sends, whatever the link: every packet goes through
 * rnic_link_xmit(), which comes here only when one of them is set
 * (struct rnic_fault.pkt). Each packet is decided on its own with the
 * kernel's per-CPU random numbers (get_random_u32_below()): no lock, no
 * state shared between CPUs. Forced errors make the next N RC messages
 * or work requests fail in a chosen way: the engine asks at the one
 * place where each would happen by itself (rnic_fault_rnr(),
 * rnic_fault_rem_access(), rnic_fault_retry_exc() in link.h), and each
 * use is taken from the count atomically (rnic_fault_take()).
 */
#include <linux/random.h>

#include "engine/engine.h"

/* Does a fault of @ppm parts per million hit this packet? */
static bool rnic_fault_hit(u32 ppm)
{
	return ppm && get_random_u32_below(RNIC_FAULT_PPM_MAX) < ppm;
}

/**
 * rnic_fault_xmit() - send a packet of a device with a packet fault set
 * @pkt: the packet, as rnic_link_xmit() has it
 *
 * In this order: the packet is dropped (not sent at all), or sent;
 * damaged (RNIC_PKT_CORRUPT) and held back (delay_us, a link that can
 * only) as it goes; and then sent again, as it was, if it is duplicated.
 * Each fault applied is counted on the sending device.
 *
 * Context: see rnic_link_xmit().
 * Return: 0 (a dropped packet too), or the link's error for the first
 * sending.
 */
int rnic_fault_xmit(struct rnic_pkt *pkt)
{
	struct rnic_dev *rdev = pkt->dev;
	struct rnic_fault *f = &rdev->fault;
	int ret;

	if (rnic_fault_hit(READ_ONCE(f->drop))) {
		rnic_dev_count(rdev, RNIC_NL_COUNTER_FAULT_DROP);
		return 0;
	}
	/* a sender may send one struct again (READ responses): decide anew */
	pkt->flags &= ~RNIC_PKT_CORRUPT;
	if (rnic_fault_hit(READ_ONCE(f->corrupt))) {
		pkt->flags |= RNIC_PKT_CORRUPT;
		rnic_dev_count(rdev, RNIC_NL_COUNTER_FAULT_CORRUPT);
	}
	pkt->delay_us = 0;
	if (rnic_av_link(pkt->av)->can_delay &&
	    rnic_fault_hit(READ_ONCE(f->delay))) {
		pkt->delay_us = READ_ONCE(f->delay_us);
		rnic_dev_count(rdev, RNIC_NL_COUNTER_FAULT_DELAY);
	}
	ret = rnic_link_send(pkt);
	if (rnic_fault_hit(READ_ONCE(f->duplicate))) {
		rnic_dev_count(rdev, RNIC_NL_COUNTER_FAULT_DUPLICATE);
		rnic_link_send(pkt);
	}
	return ret;
}

/**
 * rnic_fault_take() - use one of a forced error's count, if one is left
 * @rdev: the device
 * @left: the count, a member of @rdev's struct rnic_fault
 * @counter: what a use is counted as
 *
 * Return: true if one was left: the caller fails its message or work
 * request as the fault says.
 */
bool rnic_fault_take(struct rnic_dev *rdev, atomic_t *left,
		     enum rnic_nl_counter counter)
{
	if (atomic_dec_if_positive(left) < 0)
		return false;
	rnic_dev_count(rdev, counter);
	return true;
}
