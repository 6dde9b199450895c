// SPDX-License-Identifier: (GPL-2.0 OR MIT)
/*
 * Static rate conversions, both directions, round trips and invalid input.
 */
#include <limits.h>

#include <infiniband/verbs.h>

#include "tap.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* rdma-core's values: multiple of 2.5 Gbit/s (-1: none) and Mbit/s. */
static const struct {
	enum ibv_rate rate;
	int num;
	int mult;
	int mbps;
} rates[] = {
	{ IBV_RATE_2_5_GBPS, 2, 1, 2500 },
	{ IBV_RATE_10_GBPS, 3, 4, 10000 },
	{ IBV_RATE_30_GBPS, 4, 12, 30000 },
	{ IBV_RATE_5_GBPS, 5, 2, 5000 },
	{ IBV_RATE_20_GBPS, 6, 8, 20000 },
	{ IBV_RATE_40_GBPS, 7, 16, 40000 },
	{ IBV_RATE_60_GBPS, 8, 24, 60000 },
	{ IBV_RATE_80_GBPS, 9, 32, 80000 },
	{ IBV_RATE_120_GBPS, 10, 48, 120000 },
	{ IBV_RATE_14_GBPS, 11, -1, 14062 },
	{ IBV_RATE_56_GBPS, 12, -1, 56250 },
	{ IBV_RATE_112_GBPS, 13, -1, 112500 },
	{ IBV_RATE_168_GBPS, 14, -1, 168750 },
	{ IBV_RATE_25_GBPS, 15, -1, 25781 },
	{ IBV_RATE_100_GBPS, 16, -1, 103125 },
	{ IBV_RATE_200_GBPS, 17, -1, 206250 },
	{ IBV_RATE_300_GBPS, 18, -1, 309375 },
	{ IBV_RATE_28_GBPS, 19, 11, 28125 },
	{ IBV_RATE_50_GBPS, 20, 20, 53125 },
	{ IBV_RATE_400_GBPS, 21, 160, 425000 },
	{ IBV_RATE_600_GBPS, 22, 240, 637500 },
	{ IBV_RATE_800_GBPS, 23, 320, 850000 },
	{ IBV_RATE_1200_GBPS, 24, 480, 1275000 },
};

int main(void)
{
	static const int bad_rates[] = { IBV_RATE_MAX, 1, 25, 100, -1, INT_MAX };
	static const int bad_mults[] = { 0, -1, 3, 5, 10, 47, 49, 479, 481,
					 INT_MAX, INT_MIN };
	static const int bad_mbps[] = { 0, -1, 2499, 2501, 14063, 100000,
					106250, 200000, 400000, 1200000,
					INT_MAX };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(rates); i++) {
		is_int(rates[i].rate, rates[i].num, "enum value of rate %d",
		       rates[i].num);
		is_int(ibv_rate_to_mult(rates[i].rate), rates[i].mult,
		       "ibv_rate_to_mult(%d)", rates[i].num);
		is_int(ibv_rate_to_mbps(rates[i].rate), rates[i].mbps,
		       "ibv_rate_to_mbps(%d)", rates[i].num);
		if (rates[i].mult > 0)
			is_int(mult_to_ibv_rate(rates[i].mult), rates[i].rate,
			       "mult_to_ibv_rate(%d)", rates[i].mult);
		is_int(mbps_to_ibv_rate(rates[i].mbps), rates[i].rate,
		       "mbps_to_ibv_rate(%d)", rates[i].mbps);
	}

	/* Round trips over every value in range of each direction. */
	{
		int bad = 0, n_mult = 0, n_mbps = 0, m;

		for (i = 0; i <= 30; i++) {
			enum ibv_rate r = (enum ibv_rate)i;
			int mult = ibv_rate_to_mult(r);
			int mbps = ibv_rate_to_mbps(r);

			if (mult > 0 && mult_to_ibv_rate(mult) != r) {
				diag("rate %zu -> mult %d -> rate %d", i, mult,
				     mult_to_ibv_rate(mult));
				bad++;
			}
			if (mbps > 0 && mbps_to_ibv_rate(mbps) != r) {
				diag("rate %zu -> mbps %d -> rate %d", i, mbps,
				     mbps_to_ibv_rate(mbps));
				bad++;
			}
		}
		for (m = -10; m <= 1300000; m++) {
			enum ibv_rate r = mult_to_ibv_rate(m);

			if (r != IBV_RATE_MAX) {
				n_mult++;
				if (ibv_rate_to_mult(r) != m) {
					diag("mult %d -> rate %d -> mult %d",
					     m, r, ibv_rate_to_mult(r));
					bad++;
				}
			}
			r = mbps_to_ibv_rate(m);
			if (r != IBV_RATE_MAX) {
				n_mbps++;
				if (ibv_rate_to_mbps(r) != m) {
					diag("mbps %d -> rate %d -> mbps %d",
					     m, r, ibv_rate_to_mbps(r));
					bad++;
				}
			}
		}
		is_int(bad, 0, "every round trip gives back its input");
		is_int(n_mult, 15, "15 multiples map to a rate");
		is_int(n_mbps, 23, "23 Mbit/s values map to a rate");
	}

	for (i = 0; i < ARRAY_SIZE(bad_rates); i++) {
		is_int(ibv_rate_to_mult((enum ibv_rate)bad_rates[i]), -1,
		       "ibv_rate_to_mult(%d) invalid", bad_rates[i]);
		is_int(ibv_rate_to_mbps((enum ibv_rate)bad_rates[i]), -1,
		       "ibv_rate_to_mbps(%d) invalid", bad_rates[i]);
	}
	for (i = 0; i < ARRAY_SIZE(bad_mults); i++)
		is_int(mult_to_ibv_rate(bad_mults[i]), IBV_RATE_MAX,
		       "mult_to_ibv_rate(%d) invalid", bad_mults[i]);
	for (i = 0; i < ARRAY_SIZE(bad_mbps); i++)
		is_int(mbps_to_ibv_rate(bad_mbps[i]), IBV_RATE_MAX,
		       "mbps_to_ibv_rate(%d) invalid", bad_mbps[i]);

	return tap_done();
}
