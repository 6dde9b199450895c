#!/bin/sh
# SPDX-License-Identifier: (GPL-2.0 OR MIT)
#
# check.sh CC RNIC_INCLUDE UAPI_INCLUDE OUTDIR: the ABI probe, run twice:
# for the verbs (<infiniband/verbs.h>: probe-fields.h, probe-consts.h) and
# for the connection manager (<rdma/rdma_cma.h>, <rdma/rdma_verbs.h>,
# <infiniband/sa.h>: probe-cm-fields.h, probe-cm-consts.h; probe.c built
# with -DPROBE_CM).
#
# 1. Every struct and union rnic's headers define is in the fields list,
#    and every constant name they use is in the constants list.
# 2. probe.c built against rdma-core's headers (the system's) and against
#    rnic's prints the same sizes, offsets and values.
#
# Without rdma-core's headers (libibverbs-dev, librdmacm-dev) there is
# nothing to compare with: the check says so and passes.
set -eu
cc=$1 inc=$2 uapi=$3 out=$4
dir=$(cd "$(dirname "$0")" && pwd)

mkdir -p "$out"

# probe NAME FIELDS CONSTS NAMES_RE SYSTEM_HEADER CFLAGS HEADER...
probe() {
	name=$1 fields=$2 consts=$3 names=$4 system=$5 cflags=$6
	shift 6
	o=$out/$name
	grep -ohE '^(struct|union) [a-z_0-9]+ \{' "$@" | sed 's/ {$//' |
		sort -u > "$o-defined.txt"
	sed -n 's/^S(\(.*\))$/\1/p' "$dir/$fields" | sort -u > "$o-probed.txt"
	missing=$(comm -23 "$o-defined.txt" "$o-probed.txt")
	if [ -n "$missing" ]; then
		echo "abi probe: not in $fields (regenerate it):" $missing
		exit 1
	fi
	grep -ohE "$names" "$@" | grep -v '_H$' | sort -u > "$o-names.txt"
	sed -n 's/^[CN](\(.*\))$/\1/p' "$dir/$consts" | sort -u \
		> "$o-consts.txt"
	missing=$(comm -23 "$o-names.txt" "$o-consts.txt")
	if [ -n "$missing" ]; then
		echo "abi probe: not in $consts (gen-consts.sh):" $missing
		exit 1
	fi

	if ! printf '#include <%s>\n' "$system" | \
		"$cc" -E -x c - -o /dev/null 2>/dev/null; then
		echo "abi probe: SKIP, no rdma-core <$system> to compare with"
		return 0
	fi
	# shellcheck disable=SC2086 # $cflags is zero or one word
	"$cc" -Wall -Werror $cflags -o "$o-probe-rdma-core" "$dir/probe.c"
	# shellcheck disable=SC2086
	"$cc" -Wall -Werror $cflags -I"$inc" -I"$uapi" -o "$o-probe-rnic" \
		"$dir/probe.c"
	"$o-probe-rdma-core" > "$o-rdma-core.txt"
	"$o-probe-rnic" > "$o-rnic.txt"
	if ! diff -u "$o-rdma-core.txt" "$o-rnic.txt"; then
		echo "abi probe: rnic's <$system> differs from rdma-core's (above)"
		exit 1
	fi
	echo "abi probe: <$system>: $(grep -c . "$o-rnic.txt") sizes, offsets and values match rdma-core's"
}

probe abi probe-fields.h probe-consts.h '\b(IBV|__VERBS)_[A-Z0-9_]+\b' \
	infiniband/verbs.h '' "$inc/infiniband/verbs.h"
probe abi-cm probe-cm-fields.h probe-cm-consts.h \
	'\b(RDMA|RAI|IBV_PATH)_[A-Z0-9_]+\b' rdma/rdma_cma.h -DPROBE_CM \
	"$inc/rdma/rdma_cma.h" "$inc/rdma/rdma_verbs.h" "$inc/infiniband/sa.h"
