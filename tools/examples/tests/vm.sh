#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# End-to-end tests of the ping-pong examples, as root inside the VM with
# rnic.ko loaded:  tools/dev/vm/run -- tools/examples/tests/vm.sh
# Every example runs as a server and a client process (rnic-xrc-pingpong:
# a server and several clients) over 127.0.0.1 on a device bound to lo; both must exit 0 with the address and throughput
# lines (every payload byte is checked by the examples themselves). Then
# the error cases, and rnic-rping's pings over the connection manager.
# Leaves no device behind. TAP output; exit status 1 if
# any test failed.

dev=ppexample0
tmp=$(mktemp -d) || exit 1
tcp_port=$((20000 + $$ % 10000))
n=0
failed=0

cleanup() {
	rnic link del $dev 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

result() {
	n=$((n + 1))
	if [ -z "$2" ]; then
		echo "ok $n - $1"
		return
	fi
	failed=$((failed + 1))
	echo "not ok $n - $1"
	echo "# $2"
	for f in server.out server.err client.out client.err \
		client1.out client1.err client2.err client3.err; do
		[ -s "$tmp/$f" ] && sed "s/^/# $f: /" "$tmp/$f"
	done
}

# listening PORT: a TCP socket listens on PORT
listening() {
	hex=$(printf ':%04X ' "$1")
	grep -q "${hex}[0-9A-F:]* 0A " /proc/net/tcp /proc/net/tcp6 2>/dev/null
}

# server COMMAND...: starts COMMAND -d $dev -p PORT as the server on a new
# PORT in the background (pid $spid) and waits until it listens
server() {
	tcp_port=$((tcp_port + 1))
	rm -f "$tmp"/server.* "$tmp"/client*
	timeout 120 "$@" -d $dev -p $tcp_port >"$tmp/server.out" \
		2>"$tmp/server.err" &
	spid=$!
	i=0
	while ! listening $tcp_port && [ $i -lt 300 ]; do
		sleep 0.1
		i=$((i + 1))
	done
}

# report FILE QPS BYTES ITERS: what FILE lacks of the output of a run
# with QPS QPs (one awk: every process started costs time under TCG)
report() {
	awk -v qps="$2" -v bytes="$3" -v iters="$4" '
	/^  local address:  LID 0x[0-9a-f]+, QPN 0x[0-9a-f]+, PSN 0x[0-9a-f]+, GID [0-9a-f:.]+$/ { l++ }
	/^  remote address: LID 0x[0-9a-f]+, QPN 0x[0-9a-f]+, PSN 0x[0-9a-f]+, GID [0-9a-f:.]+$/ { r++ }
	/^  local address:  INI QPN 0x[0-9a-f]+, TGT QPN 0x[0-9a-f]+, SRQN 0x[0-9a-f]+, PSN 0x[0-9a-f]+, GID [0-9a-f:.]+$/ { l++ }
	/^  remote address: INI QPN 0x[0-9a-f]+, TGT QPN 0x[0-9a-f]+, SRQN 0x[0-9a-f]+, PSN 0x[0-9a-f]+, GID [0-9a-f:.]+$/ { r++ }
	$0 ~ "^" bytes " bytes in [0-9.]+ seconds = [0-9.]+ Mbit/sec$" { b++ }
	$0 ~ "^" iters " iters in [0-9.]+ seconds = [0-9.]+ usec/iter$" { i++ }
	END {
		if (l != qps) printf " %d local address lines, not %d;", l, qps
		if (r != qps) printf " %d remote address lines, not %d;", r, qps
		if (b != 1) printf " no \"%s bytes\" line;", bytes
		if (i != 1) printf " no \"%s iters\" line;", iters
	}' "$1"
}

# pair EXAMPLE QPS SIZE ITERS ARGS...: server and client with ARGS (and
# -r 32 unless ARGS say otherwise); both must succeed and print QPS pairs
# of address lines and the report for ITERS SIZE-byte messages each way
# (over all QPs, as rdma-core counts them).
pair() {
	ex=$1 qps=$2 size=$3 iters=$4
	shift 4
	name="$ex $*"
	server "rnic-$ex-pingpong" -s "$size" -n "$iters" -r 32 "$@"
	timeout 120 "rnic-$ex-pingpong" -d $dev -p $tcp_port -s "$size" \
		-n "$iters" -r 32 "$@" 127.0.0.1 >"$tmp/client.out" 2>"$tmp/client.err"
	crc=$?
	wait $spid
	src=$?
	why=
	[ $src -eq 0 ] || why="server exit $src;"
	[ $crc -eq 0 ] || why="$why client exit $crc;"
	bytes=$((2 * size * iters))
	for side in server client; do
		lacks=$(report "$tmp/$side.out" "$qps" "$bytes" "$iters")
		[ -z "$lacks" ] || why="$why $side:$lacks"
		[ -s "$tmp/$side.err" ] && why="$why $side: stderr;"
	done
	result "$name" "$why"
	while read -r line; do
		last=$line
	done <"$tmp/client.out"
	echo "# client: $last"
}

# xrc CLIENTS SIZE ITERS: rnic-xrc-pingpong's server with CLIENTS
# clients and as many client processes at once; all must succeed, each
# client print its two address lines and its report, the server
# CLIENTS pairs of address lines and the report of all of them.
xrc() {
	clients=$1 size=$2 iters=$3
	server rnic-xrc-pingpong -c "$clients" -s "$size" -n "$iters" \
		-f "$tmp/xrcd"
	pids=
	for c in $(seq "$clients"); do
		timeout 120 rnic-xrc-pingpong -d $dev -p $tcp_port -s "$size" \
			-n "$iters" 127.0.0.1 >"$tmp/client$c.out" \
			2>"$tmp/client$c.err" &
		pids="$pids $!"
	done
	why=
	c=0
	for pid in $pids; do
		c=$((c + 1))
		wait "$pid" || why="$why client $c exit $?;"
		lacks=$(report "$tmp/client$c.out" 1 $((2 * size * iters)) \
			"$iters")
		[ -z "$lacks" ] || why="$why client $c:$lacks"
		[ -s "$tmp/client$c.err" ] &&
			why="$why client $c: $(head -1 "$tmp/client$c.err");"
	done
	wait $spid || why="$why server exit $?;"
	lacks=$(report "$tmp/server.out" "$clients" \
		$((2 * size * iters * clients)) $((iters * clients)))
	[ -z "$lacks" ] || why="$why server:$lacks"
	[ -s "$tmp/server.err" ] && why="$why server: stderr;"
	result "xrc -c $clients -s $size -n $iters" "$why"
}

# fails NAME PATTERN COMMAND...: COMMAND exits 1 with PATTERN on stderr
fails() {
	name=$1 pat=$2
	shift 2
	rm -f "$tmp"/client.*
	timeout 120 "$@" >"$tmp/client.out" 2>"$tmp/client.err"
	rc=$?
	why=
	[ $rc -eq 1 ] || why="exit $rc, want 1"
	grep -q -e "$pat" "$tmp/client.err" || why="$why; stderr lacks '$pat'"
	result "$name" "$why"
}

# server_failed NAME REGEX: the server started by server() exits 1 saying
# REGEX on stderr.
server_failed() {
	wait $spid
	src=$?
	why=
	[ $src -eq 1 ] || why="server exit $src, want 1"
	grep -q -e "$2" "$tmp/server.err" || why="$why; server stderr lacks '$2'"
	result "$1" "$why"
}

ip link set lo up
rnic link del $dev 2>/dev/null
if ! rnic link add $dev netdev lo; then
	echo "not ok 1 - rnic link add $dev netdev lo"
	exit 1
fi
# GID 1 is 127.0.0.1 once lo's address has reached the table.
i=0
while ! rnic-devinfo -d $dev -v | grep -q 'GID\[  1\]:.*ffff:7f00:0001' &&
	[ $i -lt 50 ]; do
	sleep 0.1
	i=$((i + 1))
done

pair rc 1 1 200
pair rc 1 4096 100 -e -r 500
pair rc 1 10000 100 -m 1024 -g 1
pair uc 1 1 200 -e
pair uc 1 4096 100
pair uc 1 10000 100 -m 1024 -e
pair ud 1 1 200
pair ud 1 4096 100 -e -g 1
pair srq 4 1 50 -q 4
pair srq 8 4096 20 -q 8 -e
pair srq 3 10000 30 -q 3 -m 1024 -r 8
xrc 1 1 100
xrc 3 4096 50

fails "no server: error exit" "can't connect to 127.0.0.1" \
	rnic-rc-pingpong -d $dev -p 1 -n 10 -r 8 127.0.0.1
fails "unknown device: error exit" "RDMA device nosuchdev not found" \
	rnic-rc-pingpong -d nosuchdev 127.0.0.1
fails "UD message larger than the MTU: error exit" \
	"-s 8192 is larger than the port's active MTU 4096" \
	rnic-ud-pingpong -d $dev -s 8192 -r 8 127.0.0.1
fails "MTU not a power of two: error exit" "invalid value '3000' for -m" \
	rnic-rc-pingpong -d $dev -m 3000 127.0.0.1
fails "UD has no -m" "invalid option" rnic-ud-pingpong -d $dev -m 1024
fails "bad number: error exit" "invalid value 'x' for -n" \
	rnic-uc-pingpong -d $dev -n x
fails "empty GID index: error exit" "GID 60 of port 1 is empty" \
	rnic-rc-pingpong -d $dev -g 60 -r 8 127.0.0.1
fails "SRQ -r below -q: error exit" "-r 2 is less than -q 4" \
	rnic-srq-pingpong -d $dev -q 4 -r 2

fails "rdma-core's -o: error exit" "-o (--odp): on-demand paging is not supported by rnic" \
	rnic-rc-pingpong -d $dev -o 127.0.0.1
fails "rdma-core's -t: error exit" "-t (--ts): completion timestamps" \
	rnic-rc-pingpong -d $dev -t 127.0.0.1
fails "UC has no -o" "invalid option" rnic-uc-pingpong -d $dev -o
fails "SRQ -q beyond rdma-core's 255: error exit" "invalid value '256' for -q" \
	rnic-srq-pingpong -d $dev -q 256 -r 300
fails "XRC -c beyond 64: error exit" "invalid value '65' for -c" \
	rnic-xrc-pingpong -d $dev -c 65

# The address records say how many QPs the peer has: the server refuses
# an SRQ client with fewer QPs and hangs up on it.
server rnic-srq-pingpong -q 4 -n 10 -r 8
fails "SRQ client with fewer QPs: error exit" \
	'TCP \(send\|receive\): \(Connection reset by peer\|the peer closed the connection\)' \
	rnic-srq-pingpong -d $dev -p $tcp_port -q 2 -n 10 -r 8 127.0.0.1
server_failed "SRQ client with fewer QPs: server error exit" \
	'the peer has fewer QPs than -q 4'

# One flipped byte is caught: the client's message 5 has its last byte
# changed after the example filled it (tests/corrupt.c); the server stops
# on it, and the client, whose answer never comes, gives up after
# --timeout.
top=$(cd "$(dirname "$0")/../../.." && pwd)
server rnic-rc-pingpong -s 100 -n 20 -r 32
fails "corrupted message: client error exit" "no completion for 2 s" \
	env LD_PRELOAD="$top/build/obj/tools/examples/pp-corrupt.so" \
	PP_CORRUPT_SEND=5 rnic-rc-pingpong -d $dev -p $tcp_port -s 100 -n 20 \
	-r 32 --timeout 2 127.0.0.1
server_failed "corrupted message: server reports the byte" \
	'message 5: byte 99 is 0x[0-9a-f]*, expected 0x'

. "$top/tools/lib/cm_client.sh"

# rnic-rping over the connection manager: ten pings, each read and written
# back by the server and checked by the client (-V), then DISCONNECTED on
# both sides.
rping_port=$((tcp_port + 1))
rm -f "$tmp"/server.* "$tmp"/client*
timeout 120 rnic-rping -s -a 127.0.0.1 -p $rping_port -v \
	>"$tmp/server.out" 2>"$tmp/server.err" &
spid=$!
cm_client $rping_port rnic-rping -c -a 127.0.0.1 -p $rping_port -v -V -C 10
wait $spid
src=$?
why=
[ $src -eq 0 ] || why="server exit $src;"
[ $crc -eq 0 ] || why="$why client exit $crc;"
[ "$(grep -c '^ping data: rdma-ping-[0-9]: ' "$tmp/client.out")" = 10 ] ||
	why="$why not 10 client ping lines;"
[ "$(grep -c '^server ping data: rdma-ping-[0-9]: ' "$tmp/server.out")" = 10 ] ||
	why="$why not 10 server ping lines;"
[ "$(cat "$tmp/client.err")" = "client DISCONNECT EVENT..." ] ||
	why="$why client stderr;"
[ "$(cat "$tmp/server.err")" = "server DISCONNECT EVENT..." ] ||
	why="$why server stderr;"
result "rnic-rping -V -C 10" "$why"

# rnic-cm-server and rnic-cm-client (synchronous, rdma_create_ep): one
# message and its echo
cm_port=$((rping_port + 1))
timeout 120 rnic-cm-server -s 127.0.0.1 -p $cm_port >"$tmp/server.out" \
	2>"$tmp/server.err" &
spid=$!
cm_client $cm_port rnic-cm-client -s 127.0.0.1 -p $cm_port
wait $spid
src=$?
why=
[ $src -eq 0 ] || why="server exit $src;"
[ $crc -eq 0 ] || why="$why client exit $crc;"
[ "$(tail -n 1 "$tmp/server.out")" = "rnic-cm-server: end 0" ] ||
	why="$why server output;"
[ "$(tail -n 1 "$tmp/client.out")" = "rnic-cm-client: end 0" ] ||
	why="$why client output;"
result "rnic-cm-server and rnic-cm-client" "$why"

# rnic-cmtime: 50 connections one after the other, each step timed; a
# line per step with its count and five times
cmt_port=$((cm_port + 1))
timeout 120 rnic-cmtime -s -b 127.0.0.1 -p $cmt_port -n 50 \
	>"$tmp/server.out" 2>"$tmp/server.err" &
spid=$!
cm_client $cmt_port rnic-cmtime -a 127.0.0.1 -p $cmt_port -n 50
wait $spid
src=$?
why=
[ $src -eq 0 ] || why="server exit $src;"
[ $crc -eq 0 ] || why="$why client exit $crc;"
for step in resolve_addr resolve_route create_qp connect disconnect destroy; do
	grep -Eq "^$step +50( +[0-9]+\.[0-9]){5}\$" "$tmp/client.out" ||
		why="$why no $step line;"
done
result "rnic-cmtime -n 50: every step timed" "$why"

rnic link del $dev
why=
rnic link show | grep -q $dev && why="$dev still exists"
result "device removed" "$why"

echo "1..$n"
[ $failed -eq 0 ]
