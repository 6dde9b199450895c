#!/bin/sh
# SPDX-License-Identifier: (GPL-2.0 OR MIT)
#
# check.sh CC RNIC_INCLUDE UAPI_INCLUDE OUTDIR: the ABI probe.
#
# 1. Every struct and union rnic's verbs.h defines is in probe-fields.h,
#    and every IBV_ / __VERBS_ name it uses is in probe-consts.h.
# 2. probe.c built against rdma-core's <infiniband/verbs.h> (the system's)
#    and against rnic's prints the same sizes, offsets and values.
#
# Without rdma-core's header (libibverbs-dev) there is nothing to compare
# with: the check says so and passes.
set -eu
cc=$1 inc=$2 uapi=$3 out=$4
dir=$(cd "$(dirname "$0")" && pwd)
hdr=$inc/infiniband/verbs.h

mkdir -p "$out"
grep -oE '^(struct|union) [a-z_0-9]+ \{' "$hdr" | sed 's/ {$//' | sort -u \
	> "$out/abi-defined.txt"
sed -n 's/^S(\(.*\))$/\1/p' "$dir/probe-fields.h" | sort -u \
	> "$out/abi-probed.txt"
missing=$(comm -23 "$out/abi-defined.txt" "$out/abi-probed.txt")
if [ -n "$missing" ]; then
	echo "abi probe: not in probe-fields.h (regenerate it):" $missing
	exit 1
fi
grep -oE '\b(IBV|__VERBS)_[A-Z0-9_]+\b' "$hdr" | sort -u \
	> "$out/abi-names.txt"
sed -n 's/^[CN](\(.*\))$/\1/p' "$dir/probe-consts.h" | sort -u \
	> "$out/abi-consts.txt"
missing=$(comm -23 "$out/abi-names.txt" "$out/abi-consts.txt")
if [ -n "$missing" ]; then
	echo "abi probe: not in probe-consts.h (gen-consts.sh):" $missing
	exit 1
fi

if ! printf '#include <infiniband/verbs.h>\n' | \
	"$cc" -E -x c - -o /dev/null 2>/dev/null; then
	echo "abi probe: SKIP, no rdma-core <infiniband/verbs.h> to compare with"
	exit 0
fi
"$cc" -Wall -Werror -o "$out/abi-probe-rdma-core" "$dir/probe.c"
"$cc" -Wall -Werror -I"$inc" -I"$uapi" -o "$out/abi-probe-rnic" "$dir/probe.c"
"$out/abi-probe-rdma-core" > "$out/abi-rdma-core.txt"
"$out/abi-probe-rnic" > "$out/abi-rnic.txt"
if ! diff -u "$out/abi-rdma-core.txt" "$out/abi-rnic.txt"; then
	echo "abi probe: rnic's verbs.h differs from rdma-core's (above)"
	exit 1
fi
echo "abi probe: $(grep -c . "$out/abi-rnic.txt") sizes, offsets and values match rdma-core's"
