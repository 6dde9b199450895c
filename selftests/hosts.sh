#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# selftests/hosts.sh - rnic between two hosts: RoCEv2 over each VM's eth0.
#
#   tools/dev/vm/run --hosts 2 -- selftests/hosts.sh
#
# Each host binds rnic0 to eth0 (tools/dev/vm/run gives host I
# 10.77.0.(1+I) and fd77::(1+I)). Host 1 runs the servers, host 0 the
# clients and prints TAP (make check counts host 0's lines): the ping-pong
# examples over the IPv4 and the IPv6 GID and the XRC ping-pong (every
# byte checked by the examples), then rnic-perf write_bw, send_bw,
# write_lat and read_bw,
# each with eth0's byte counters showing that the data crossed the link.
# Host 1 exits 1 if one of its servers failed, which fails the run.

# shellcheck disable=SC2317 # functions called through "$@"
set -u

host=${RNIC_HOST:?run under tools/dev/vm/run --hosts 2}
dev=rnic0
peer=10.77.0.$((2 - host))
tmp=$(mktemp -d) || exit 1
meet=${RNIC_TOP:-$(cd "$(dirname "$0")/.." && pwd)}/tools/dev/vm/meet

n=0
failed=0

cleanup() {
	rnic link del "$dev" 2>/dev/null
	rm -rf -- "$tmp"
}
trap cleanup EXIT

# gid_index ADDR: the index of ADDR's GID on $dev ("rnic link show" lists
# "gid N ADDR").
gid_index() {
	rnic link show $dev | awk -v a="$1" '$1 == "gid" && $3 == a { print $2; exit }'
}

# Host 0's TAP line for one test; WHY empty means it passed.
result() {
	n=$((n + 1))
	if [[ -z $1 ]]; then
		echo "ok $n - $2"
	else
		failed=1
		echo "not ok $n - $2"
		echo "# $1"
		for f in "$tmp"/cli.*; do
			[[ -s $f ]] && sed "s|^|# ${f##*/}: |" "$f"
		done
	fi
}

wait_listen() {
	local hex i
	hex=$(printf ':%04X ' "$1")
	for ((i = 0; i < 200; i++)); do
		grep -q "${hex}[0-9A-F:]* 0A " /proc/net/tcp /proc/net/tcp6 && return 0
		sleep 0.1
	done
	return 1
}

bytes() {
	cat "/sys/class/net/eth0/statistics/$1_bytes"
}

# across NAME PORT MIN_TX MIN_RX CMD...: CMD -p PORT as a server on host 1
# and CMD -p PORT 10.77.0.2 as a client on host 0. Host 0's eth0 must have
# sent MIN_TX and received MIN_RX bytes or more meanwhile. Sets $why.
step=0
across() {
	local name=$1 port=$2 min_tx=$3 min_rx=$4 tx rx rc
	shift 4
	step=$((step + 1))
	why=
	: >"$tmp/cli.out"
	: >"$tmp/cli.err"
	if [[ $host == 1 ]]; then
		timeout 120 "$@" -p "$port" >"$tmp/srv.out" 2>&1 &
		local srv=$!
		wait_listen "$port" || echo "server of $name: not listening on $port"
		"$meet" "step$step" || echo "server of $name: the hosts did not meet"
		wait $srv
		rc=$?
		if [[ $rc != 0 ]]; then
			failed=1
			echo "server of $name: exit status $rc"
			sed 's/^/  /' "$tmp/srv.out"
			rnic stat show $dev | sed 's/^/  stat: /'
		fi
		return
	fi
	"$meet" "step$step" || why="the hosts did not meet"
	tx=$(bytes tx)
	rx=$(bytes rx)
	timeout 120 "$@" -p "$port" "$peer" >"$tmp/cli.out" 2>"$tmp/cli.err"
	rc=$?
	tx=$(($(bytes tx) - tx))
	rx=$(($(bytes rx) - rx))
	[[ $rc == 0 ]] || why="client exit status $rc"
	((tx >= min_tx)) || why+="; eth0 sent $tx bytes, expected $min_tx or more"
	((rx >= min_rx)) || why+="; eth0 received $rx bytes, expected $min_rx or more"
	why=${why#; }
	# the device's counters say what went wrong
	[[ -z $why ]] || rnic stat show $dev | sed 's/^/# stat: /'
}

# The ping-pong examples bounce -n messages of -s bytes each way and check
# every byte they receive.
pingpong() {
	local name=$1 port=$2 gid=$3
	across "$name" "$port" $((200 * 4096)) $((200 * 4096)) \
		rnic-rc-pingpong -d $dev -g "$gid" -n 200 -s 4096
	[[ $host == 0 ]] || return
	[[ -n $why ]] || grep -q '^1638400 bytes in' "$tmp/cli.out" ||
		why="no '1638400 bytes in' in the client's output"
	result "$why" "$name"
}

# The XRC ping-pong: one client's XRC INI QP sends to the server's XRC
# SRQs through its TGT QP, every request with an XRCETH on the wire.
xrc_pingpong() {
	local name=$1 port=$2 gid=$3
	across "$name" "$port" $((200 * 4096)) $((200 * 4096)) \
		rnic-xrc-pingpong -d $dev -g "$gid" -c 1 -n 200 -s 4096
	[[ $host == 0 ]] || return
	[[ -n $why ]] || grep -q '^1638400 bytes in' "$tmp/cli.out" ||
		why="no '1638400 bytes in' in the client's output"
	result "$why" "$name"
}

# rnic-perf TEST: the client's table must have one row of the size asked.
# The transport timeout is 268 ms (-u 16), not perftest's 67 ms: two TCG
# VMs on a host that runs more than them stall for longer than 7 x 67 ms,
# and a READ's requester, which waits for bursts the other VM sends,
# then ends in IBV_WC_RETRY_EXC_ERR as IB says it must (seen in CI).
perf() {
	local test=$1 port=$2 size=$3 iters=$4 min_tx=$5 min_rx=$6
	across "$test" "$port" "$min_tx" "$min_rx" \
		rnic-perf "$test" -d $dev -s "$size" -n "$iters" -u 16
	[[ $host == 0 ]] || return
	[[ -n $why ]] || [[ $(awk '/#bytes/ { on = 1; next } /^---/ { on = 0 } on { print $1 }' \
		"$tmp/cli.out") == "$size" ]] || why="no row for $size bytes in the table"
	result "$why" "rnic-perf $test $size bytes x $iters"
}

[[ $host == 0 ]] && echo "1..8"

why=
rnic link add $dev netdev eth0 || why="rnic link add $dev netdev eth0 failed"
gid4=$(gid_index "::ffff:10.77.0.$((host + 1))")
gid6=$(gid_index "fd77::$((host + 1))")
[[ -n $gid4 && -n $gid6 ]] || why+="; no GID for 10.77.0.$((host + 1)) or fd77::$((host + 1))"
why=${why#; }
if [[ $host == 0 ]]; then
	result "$why" "$dev on eth0 with the GIDs of its IPv4 and IPv6 address"
elif [[ -n $why ]]; then
	echo "$why"
	failed=1
fi

pingpong "RC ping-pong over the IPv4 GID, 200 x 4096 bytes checked" 18601 "$gid4"
pingpong "RC ping-pong over the IPv6 GID, 200 x 4096 bytes checked" 18602 "$gid6"
xrc_pingpong "XRC ping-pong over the IPv4 GID, 200 x 4096 bytes checked" 18607 "$gid4"
perf write_bw 18603 65536 200 $((200 * 65536)) 0
perf send_bw 18604 4096 1000 $((1000 * 4096)) 0
perf write_lat 18605 8 1000 $((1000 * 8)) $((1000 * 8))
perf read_bw 18606 65536 200 0 $((200 * 65536))

"$meet" end || failed=1
exit $failed
