#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# The compat libraries export what the distribution's rdma-core exports:
# every name at the version node where a binary linked against rdma-core
# looks for it (the default version, name@@NODE), and every node. Compared
# with the installed libibverbs.so.1 and librdmacm.so.1 (skipped when they
# are not installed); and the provider nodes of later rdma-core releases
# carry the installed one's provider names. TAP output.
#
# COMPAT: directory of the compat libraries (build/lib/rnic).

COMPAT=${COMPAT:?COMPAT must name the directory of the compat libraries}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/rnic-compat-symbols.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT

. "$(dirname "$0")/../../lib/tap.sh"

# exports LIB: "NAME NODE" of each defined symbol's default version
exports() {
	readelf -W --dyn-syms "$1" |
		awk '$7 != "UND" && $8 ~ /@@/ { sub("@@", " ", $8); print $8 }' |
		sort -u
}

# nodes LIB: the version nodes LIB defines, but the one named after itself
nodes() {
	readelf -W -V "$1" |
		awk '/Version definition/ { d = 1 } /Version needs/ { d = 0 }
		     d && /Name:/ && !/BASE/ { print $NF }' | sort -u
}

# distro LIB: path of the distribution's LIB, empty if not installed
distro() {
	ldconfig -p 2>/dev/null | awk -v lib="$1" '$1 == lib { print $NF; exit }'
}

ours=$COMPAT/libibverbs.so.1
exports "$ours" >"$TMP/ours"

# Whatever the distribution has, ours exports only rdma-core's nodes:
# librnic's own RNIC_1.0 and its internal functions stay hidden.
res=0
grep -v -e ' IBVERBS_1\.[0-9]*$' -e ' IBVERBS_PRIVATE_[0-9]*$' "$TMP/ours" \
	>"$TMP/stray" && { echo "# exported outside IBVERBS nodes:"; sed 's/^/#   /' "$TMP/stray"; res=1; }
ok $res "libibverbs.so.1 exports only IBVERBS nodes"

# has_all LIST THEIRS OURS WHAT NAME: test NAME, that LIST (exports or
# nodes) of library OURS has every line LIST of THEIRS has; the lines
# missing are shown as WHAT
has_all() {
	$1 "$2" >"$TMP/theirs"
	$1 "$3" >"$TMP/ours"
	comm -23 "$TMP/theirs" "$TMP/ours" >"$TMP/missing"
	res=0
	if [ -s "$TMP/missing" ]; then
		echo "# $4 missing from ours:"
		sed 's/^/#   /' "$TMP/missing"
		res=1
	fi
	ok $res "$5"
}

compare() { # LIB
	lib=$1
	theirs=$(distro "$lib")
	if [ -z "$theirs" ]; then
		skip "$lib: every name of rdma-core's at its node" "no $lib installed"
		skip "$lib: every version node of rdma-core's" "no $lib installed"
		return
	fi
	has_all exports "$theirs" "$COMPAT/$lib" "names (name node)" \
		"$lib: every name of $theirs at its node"
	has_all nodes "$theirs" "$COMPAT/$lib" "version nodes" \
		"$lib: every version node of $theirs"
}

compare libibverbs.so.1

# Providers of later rdma-core releases bind the same names at their own
# node (and register with verbs_register_driver_N): each newer node has
# at least the names of the installed rdma-core's node.
theirs=$(distro libibverbs.so.1)
if [ -n "$theirs" ]; then
	readelf -W --dyn-syms "$COMPAT/libibverbs.so.1" |
		awk '$7 != "UND" { sub("@@?", " ", $8); print $8 }' |
		sort -u >"$TMP/all"
	exports "$theirs" | awk '$2 ~ /^IBVERBS_PRIVATE_/ { print $1 }' |
		grep -v -x verbs_register_driver_34 >"$TMP/private"
	for node in 57 59 64 65; do
		{ sed "s/\$/ IBVERBS_PRIVATE_$node/" "$TMP/private"
		  echo "verbs_register_driver_$node IBVERBS_PRIVATE_$node"; } |
			sort | comm -23 - "$TMP/all" >"$TMP/missing"
		res=0
		if [ -s "$TMP/missing" ]; then
			echo "# missing from IBVERBS_PRIVATE_$node:"
			sed 's/^/#   /' "$TMP/missing"
			res=1
		fi
		ok $res "libibverbs.so.1: IBVERBS_PRIVATE_$node has the provider names of $theirs"
	done
else
	skip "libibverbs.so.1: the newer provider nodes" "no libibverbs.so.1 installed"
fi
compare librdmacm.so.1

tap_end
