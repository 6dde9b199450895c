#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# rnic against peers nobody here wrote, over the wire, in one VM (as root,
# rnic.ko loaded):   tools/dev/vm/run -- selftests/run interop
#
# rdma_rxe works only in the initial network namespace (its UDP socket is
# init_net's), so: a veth pair, rxe0 on ia0 in the initial namespace
# (10.77.0.1, fd77::1), rnic0 on ia1 in the namespace rnic-interop
# (10.77.0.2, fd77::2); MTU 9000 so that both can use an IB MTU of 4096.
#
#   1. rdma-core's ibv_{rc,uc,ud,srq}_pingpong on rxe0 against rnic's
#      examples on rnic0, each side once as the server and once as the
#      client, -c on the rdma-core side (it prints "invalid data" on a bad
#      page), every byte checked on rnic's side; RC also over IPv6 and at
#      MTU 4096. Both sides sleep on completion events (-e): a side that
#      busy-polls while it waits starves a loaded VM.
#   2. rnic-perf on rnic0 against rdma-core-built rnic-perf on rxe0:
#      write_bw, read_bw, send_bw, atomic_lat, both directions; then the
#      numbers of write_bw 64 KiB, send_bw 64 B and write_lat 8 B (rnic
#      client), printed as "# measure" lines (information only).
#   3. rnic-matrix (tools/dev/matrix) on rnic0 against its rdma-core build
#      on rxe0, at MTU 1024 and 4096: every operation (SEND/+IMM,
#      WRITE/+IMM, READ, both atomics; one SGE, three SGEs, inline) on RC,
#      UC, UD and UD to a multicast group (239.77.0.1), 0 B to 1 MiB, both
#      directions, every byte checked; its TAP lines are passed through,
#      prefixed "matrix".
#   4. The connection manager: Debian's rping (rdmacm-utils, the kernel's
#      rdma_cm over rxe0) against rnic-rping on rnic0 (rnic's CM over the
#      udp link), each as the server and as the client, data verified
#      (-V) over 10 ping-pongs, IPv4 and IPv6; and Debian's rping itself
#      run on rnic0 through rnic-run (rnic's librdmacm.so.1) against rping
#      on rxe0; udaddy (UD, SIDR), mckey (a multicast group), ucmatose
#      (5 connections at once) and rdma-core's example rdma_client and
#      rdma_server, both ways.
#   5. Captures (dumpcap), decoded by tshark's InfiniBand dissector: every
#      RoCE packet must decode (BTH), none malformed, and each ICRC must
#      be right (roce_icrc.py: tshark does not check ICRCs): rnic's
#      packets on ia1 during an RC ping-pong with rxe, and rxe's answers
#      in the same capture, which check the checker (they must pass, and
#      must fail with one byte flipped).
#
# INTEROP_PARTS (default all five: "pingpong perf matrix cm capture", what
# make check runs) picks parts, INTEROP_LIMIT (default 20) bounds each
# program of a pair in seconds.
# TAP output; exit status 1 if any test failed. Leaves nothing behind.
set -u

dir=$(cd "$(dirname "$0")" && pwd)
top=${RNIC_TOP:-$(cd "$dir/.." && pwd)}
ns=rnic-interop
rxe_ip=10.77.0.1 rnic_ip=10.77.0.2
rxe_ip6=fd77::1 rnic_ip6=fd77::2
perf_rnic=$top/build/bin/rnic-perf
perf_rxe=$top/build/rdma-core/rnic-perf
matrix_rnic=$top/build/matrix/rnic-matrix
matrix_rxe=$top/build/rdma-core/rnic-matrix
tcp_port=$((21000 + $$ % 10000))
# seconds a program of a pair may run (rdma-core's have no timeout of
# their own: a peer that never answers would hold them forever)
limit=${INTEROP_LIMIT:-20}
[ "$limit" -ge 10 ] || limit=10
# which parts run: pingpong perf matrix capture
parts=${INTEROP_PARTS:-pingpong perf matrix cm capture}
want() {
	case " $parts " in
	*" $1 "*) return 0 ;;
	esac
	return 1
}
tmp=$(mktemp -d) || exit 1
n=0
failed=0

cleanup() {
	[ -n "${joiner:-}" ] && kill $joiner 2>/dev/null
	[ -n "${backlog_saved:-}" ] &&
		echo "$backlog_saved" >/proc/sys/net/core/netdev_max_backlog
	rdma link del rxe0 2>/dev/null
	ip netns exec $ns rnic link del rnic0 2>/dev/null
	ip link del ia0 2>/dev/null
	ip netns del $ns 2>/dev/null
	# unloaded if this script loaded it
	[ -n "${rxe_loaded_here:-}" ] && modprobe -r rdma_rxe 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

# result NAME [WHY]: one TAP line; WHY makes it a failure, and the logs
# of the last pair are shown
result() {
	n=$((n + 1))
	if [ -z "${2:-}" ]; then
		echo "ok $n - $1"
		return
	fi
	failed=$((failed + 1))
	echo "not ok $n - $1"
	echo "# $2"
	for f in server.out server.err client.out client.err; do
		[ -s "$tmp/$f" ] && tail -n 8 "$tmp/$f" | sed "s/^/# $f: /"
	done
}

# in_ns COMMAND...: COMMAND in the rnic namespace. Commands for pair()
# are written out (ip netns exec; env -u LD_LIBRARY_PATH so that rdma-core's
# programs load Debian's libibverbs and its rxe provider, never librnic)
# because timeout(1) cannot run a shell function.
in_ns() { ip netns exec $ns "$@"; }

# listening NS PORT: a TCP socket listens on PORT (in namespace NS, or
# the initial one for "-")
listening() {
	if [ "$1" = - ]; then
		ss -Hltn "sport = :$2" | grep -q .
	else
		ip netns exec "$1" ss -Hltn "sport = :$2" | grep -q .
	fi
}

. "$top/tools/lib/cm_client.sh"

# cm_listening_in NS PORT: a CM id listens on PORT (rnic's or the
# kernel's rdma_cm; in namespace NS, or the initial one for "-")
cm_listening_in() {
	if [ "$1" = - ]; then
		cm_listening "$2"
	else
		ip netns exec "$1" sh -c \
			". '$top/tools/lib/cm_client.sh'; cm_listening $2"
	fi
}

# pair WHERE SERVER... -- CLIENT...: runs SERVER in the background
# (WHERE: "ns" for the rnic namespace, "-" for the initial one), waits
# until it listens on $tcp_port (a CM id on $pair_cm_port, for a server
# that listens through a CM; $pair_start seconds for one that does not
# listen at all), runs CLIENT; sets src and crc to their exit statuses
pair() {
	local where=$1 i
	shift
	local -a srv=() cli=()
	while [ "$1" != -- ]; do
		srv+=("$1")
		shift
	done
	shift
	cli=("$@")
	rm -f "$tmp"/server.* "$tmp"/client.*
	# the server's time includes its start-up, which a loaded VM makes long
	timeout $((${pair_limit:-$limit} + 20)) "${srv[@]}" \
		>"$tmp/server.out" 2>"$tmp/server.err" &
	local spid=$!
	[ -n "${pair_start:-}" ] && sleep "$pair_start"
	for i in $(seq 300); do
		[ -n "${pair_start:-}" ] && break
		[ "$where" = ns ] && where=$ns
		if [ -n "${pair_cm_port:-}" ]; then
			cm_listening_in $where $pair_cm_port && break
		else
			listening $where $tcp_port && break
		fi
		kill -0 $spid 2>/dev/null || break
		sleep 0.1
	done
	timeout ${pair_limit:-$limit} "${cli[@]}" >"$tmp/client.out" 2>"$tmp/client.err"
	crc=$?
	wait $spid
	src=$?
}

# pp_check NAME: judges the last pair of ping-pongs
pp_check() {
	local why=
	[ $src -eq 0 ] || why="server exit $src;"
	[ $crc -eq 0 ] || why="$why client exit $crc;"
	for f in server.out client.out; do
		grep -q ' iters in ' "$tmp/$f" || why="$why $f: no iters line;"
		grep -q 'invalid data' "$tmp/$f" && why="$why $f: invalid data;"
	done
	result "$1" "$why"
}

# gid_rxe ADDR [DEV]: the GID index of ADDR on DEV (rxe0); gid_rnic ADDR:
# on rnic0
gid_rxe() {
	local f want
	want=$(gid_of "$1")
	for f in /sys/class/infiniband/${2:-rxe0}/ports/1/gids/*; do
		[ "$(cat "$f" 2>/dev/null)" = "$want" ] && {
			basename "$f"
			return
		}
	done
}
gid_rnic() {
	in_ns rnic-devinfo -d rnic0 -v 2>/dev/null | awk -v g="$(gid_of "$1")" '
	/GID\[ *[0-9]+\]:/ && $NF == g {
		sub(/.*GID\[ */, ""); sub(/\].*/, ""); print; exit }'
}
# gid_of ADDR: ADDR as rxe's sysfs writes a GID
gid_of() {
	python3 -c '
import ipaddress, sys
a = ipaddress.ip_address(sys.argv[1])
if a.version == 4:
    a = ipaddress.IPv6Address("::ffff:" + str(a))
print(":".join(a.exploded.split(":")))' "$1"
}

# wait_gids: until both devices have a GID for every address (5 s)
wait_gids() {
	local i a ok
	for i in $(seq 50); do
		ok=1
		for a in $rxe_ip $rxe_ip6; do
			[ -n "$(gid_rxe $a)" ] || ok=
		done
		for a in $rnic_ip $rnic_ip6; do
			[ -n "$(gid_rnic $a)" ] || ok=
		done
		[ -n "$ok" ] && return 0
		sleep 0.1
	done
	return 1
}

setup() {
	[ -d /sys/module/rdma_rxe ] || rxe_loaded_here=1
	modprobe rdma_rxe || return 1
	ip netns add $ns || return 1
	ip link add ia0 mtu 9000 type veth peer name ia1 mtu 9000 || return 1
	ip link set ia1 netns $ns || return 1
	ip addr add $rxe_ip/24 dev ia0
	ip addr add $rxe_ip6/64 dev ia0 nodad
	ip link set ia0 up
	in_ns ip link set lo up
	in_ns ip addr add $rnic_ip/24 dev ia1
	in_ns ip addr add $rnic_ip6/64 dev ia1 nodad
	in_ns ip link set ia1 up
	# A veth delivers through the backlog of the CPU that sent: a QP
	# whose sender moves between CPUs would see its packets reordered,
	# which a NIC's receive queue does not do and UC does not survive.
	# Each end steers its receive to one CPU (RPS), as a receive queue
	# does, with room for a 1 MiB message at MTU 1024 in its backlog.
	echo 1 >/sys/class/net/ia0/queues/rx-0/rps_cpus || return 1
	in_ns sh -c 'echo 2 >/sys/class/net/ia1/queues/rx-0/rps_cpus' || return 1
	backlog_saved=$(cat /proc/sys/net/core/netdev_max_backlog)
	echo 10000 >/proc/sys/net/core/netdev_max_backlog || return 1
	rdma link add rxe0 type rxe netdev ia0 || return 1
	# rdma_rxe of Linux 6.1 takes a datagram to a group from its UDP
	# socket, which sees it only if the host joined the group on ia0
	# (rxe only adds the group's MAC): a socket joins the matrix's group
	python3 -c '
import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP,
             socket.inet_aton(sys.argv[1]) + socket.inet_aton(sys.argv[2]))
print("joined", flush=True)
time.sleep(86400)' 239.77.0.1 $rxe_ip >"$tmp/join.out" &
	joiner=$!
	for i in $(seq 100); do
		grep -q joined "$tmp/join.out" && break
		sleep 0.1
	done
	grep -q joined "$tmp/join.out" || return 1
	in_ns rnic link add rnic0 netdev ia1 || return 1
	wait_gids
}

if ! setup; then
	echo "not ok 1 - setup: veth, rxe0 and rnic0"
	echo "1..1"
	exit 1
fi
result "setup: rxe0 on ia0, rnic0 on ia1 in $ns, GIDs for both addresses"

g4_rxe=$(gid_rxe $rxe_ip) g4_rnic=$(gid_rnic $rnic_ip)
g6_rxe=$(gid_rxe $rxe_ip6) g6_rnic=$(gid_rnic $rnic_ip6)
echo "# rxe0 GIDs: $rxe_ip $g4_rxe, $rxe_ip6 $g6_rxe;" \
	"rnic0 GIDs: $rnic_ip $g4_rnic, $rnic_ip6 $g6_rnic"

# ---- 1. ping-pong ----------------------------------------------------------

# pingpong EX FAMILY ARGS...: rdma-core's ibv_EX_pingpong on rxe0 against
# rnic-EX-pingpong on rnic0, rxe as the server and then rnic as the server
pingpong() {
	local ex=$1 fam=$2 grxe grnic arxe arnic
	shift 2
	# the GIDs choose the family of the RoCE packets; TCP stays on IPv4,
	# where rdma-core's servers listen (the first address getaddrinfo gives)
	arxe=$rxe_ip arnic=$rnic_ip
	if [ "$fam" = 6 ]; then
		grxe=$g6_rxe grnic=$g6_rnic
	else
		grxe=$g4_rxe grnic=$g4_rnic
	fi
	tcp_port=$((tcp_port + 1))
	pair - env -u LD_LIBRARY_PATH ibv_${ex}_pingpong -d rxe0 -g "$grxe" -c -e \
		-p $tcp_port "$@" -- \
		ip netns exec $ns "$top/build/bin/rnic-$ex-pingpong" -d rnic0 -g "$grnic" \
		-c -e --timeout $((limit - 5)) -p $tcp_port "$@" $arxe
	pp_check "pingpong $ex IPv$fam $*: ibv_${ex}_pingpong on rxe serves rnic"
	tcp_port=$((tcp_port + 1))
	pair ns ip netns exec $ns "$top/build/bin/rnic-$ex-pingpong" -d rnic0 \
		-g "$grnic" -c -e --timeout $((limit - 5)) -p $tcp_port "$@" -- \
		env -u LD_LIBRARY_PATH ibv_${ex}_pingpong -d rxe0 -g "$grxe" -c -e \
		-p $tcp_port "$@" $arnic
	pp_check "pingpong $ex IPv$fam $*: rnic serves ibv_${ex}_pingpong on rxe"
}

if want pingpong; then
pingpong rc 4 -n 200
pingpong rc 4 -n 50 -s 100000 -m 4096
pingpong rc 6 -n 100 -s 10000
pingpong uc 4 -n 200 -s 1000
pingpong ud 4 -n 200 -s 1024
pingpong ud 6 -n 100 -s 512
pingpong srq 4 -n 200 -q 4 -r 64
fi

# ---- 2. rnic-perf ------------------------------------------------------------

# perf TEST ARGS...: rnic-perf on rnic0 against rdma-core's on rxe0, each
# way; the client's JSON of the rnic-client run is kept in
# $tmp/TEST-SIZE.json
perf() {
	local test=$1 why size
	shift
	size=$(echo " $* " | sed -n 's/.* -s \([0-9]*\) .*/\1/p')
	tcp_port=$((tcp_port + 1))
	pair - env -u LD_LIBRARY_PATH "$perf_rxe" "$test" -d rxe0 -x "$g4_rxe" \
		-p $tcp_port "$@" -- \
		ip netns exec $ns "$perf_rnic" "$test" -d rnic0 -x "$g4_rnic" -p $tcp_port \
		"$@" --json "$tmp/$test-${size:-default}.json" $rxe_ip
	why=
	[ $src -eq 0 ] || why="rxe server exit $src;"
	[ $crc -eq 0 ] || why="$why rnic client exit $crc;"
	result "rnic-perf $test $*: rnic client, rxe server" "$why"
	tcp_port=$((tcp_port + 1))
	pair ns ip netns exec $ns "$perf_rnic" "$test" -d rnic0 -x "$g4_rnic" \
		-p $tcp_port "$@" -- \
		env -u LD_LIBRARY_PATH "$perf_rxe" "$test" -d rxe0 -x "$g4_rxe" \
		-p $tcp_port "$@" $rnic_ip
	why=
	[ $src -eq 0 ] || why="rnic server exit $src;"
	[ $crc -eq 0 ] || why="$why rxe client exit $crc;"
	result "rnic-perf $test $*: rxe client, rnic server" "$why"
}

if want perf; then
perf write_bw -s 65536 -n 500
perf read_bw -s 65536 -n 500
# a whole message in one READ: 256 responses at MTU 4096
perf read_bw -s 1048576 -n 20
perf send_bw -s 64 -n 5000
perf atomic_lat -n 500
perf write_lat -s 8 -n 2000
perf send_bw -s 65536 -n 200 -q 2

for t in write_bw-65536 send_bw-64 write_lat-8; do
	[ -s "$tmp/$t.json" ] && echo "# measure rnic->rxe $t: $(tr -d '\n' <"$tmp/$t.json")"
done
fi

# ---- 3. the operation matrix ---------------------------------------------

# matrix MTU: rnic-matrix, rnic0 the server; every case one TAP line
matrix() {
	local why
	tcp_port=$((tcp_port + 1))
	pair_limit=600 pair ns ip netns exec $ns "$matrix_rnic" -d rnic0 -x "$g4_rnic" \
		-p $tcp_port -m "$1" -L rnic -- \
		env -u LD_LIBRARY_PATH "$matrix_rxe" -d rxe0 -x "$g4_rxe" \
		-p $tcp_port -m "$1" -L rxe $rnic_ip
	awk -v n=$n '/^(not )?ok [0-9]+ - / {
		sub(/ok [0-9]+ - /, "ok " ++n " - matrix "); print }' \
		"$tmp/client.out"
	n=$((n + $(grep -cE '^(not )?ok [0-9]+ - ' "$tmp/client.out")))
	failed=$((failed + $(grep -c '^not ok' "$tmp/client.out")))
	why=
	[ $src -eq 0 ] || why="server exit $src;"
	[ $crc -le 1 ] || why="$why client exit $crc;"
	grep -q '^1\.\.[0-9]' "$tmp/client.out" || why="$why the matrix did not finish;"
	result "matrix at MTU $1: rnic-matrix ran to the end" "$why"
}

if want matrix; then
	matrix 1024
	matrix 4096
fi

# ---- 4. the connection manager ---------------------------------------------

# cm_pair WHERE PORT SERVER... -- CLIENT...: as pair(), for programs
# that listen through a CM: the client starts once the server's CM id
# listens on PORT. A client that came first would be rejected, and one of
# several connections may have been accepted by then.
cm_pair() {
	local where=$1 port=$2
	shift 2
	pair_cm_port=$port pair "$where" "$@"
}

# cm_check NAME: judges the last pair: both exit 0
cm_check() {
	local why=
	[ $src -eq 0 ] || why="server exit $src;"
	[ $crc -eq 0 ] || why="$why client exit $crc;"
	result "$1" "$why"
}

if want cm; then
	rping_rnic=$top/build/bin/rnic-rping
	rping_rxe="env -u LD_LIBRARY_PATH rping"
	port=$((7000 + $$ % 1000))
	for fam in 4 6; do
		if [ $fam = 4 ]; then arxe=$rxe_ip arnic=$rnic_ip
		else arxe=$rxe_ip6 arnic=$rnic_ip6; fi
		port=$((port + 1))
		cm_pair - $port $rping_rxe -s -a $arxe -p $port -C 10 -S 1000 -V -- \
			ip netns exec $ns "$rping_rnic" -c -a $arxe -p $port \
			-C 10 -S 1000 -V
		cm_check "cm: rnic-rping client on rnic0 -> rping server on rxe0, IPv$fam, -V"
		port=$((port + 1))
		cm_pair ns $port ip netns exec $ns "$rping_rnic" -s -a $arnic -p $port \
			-C 10 -S 1000 -V -- \
			$rping_rxe -c -a $arnic -p $port -C 10 -S 1000 -V
		cm_check "cm: rping client on rxe0 -> rnic-rping server on rnic0, IPv$fam, -V"
	done
	# rdma-core's own rping, unmodified, on rnic0 through rnic-run
	port=$((port + 1))
	cm_pair - $port $rping_rxe -s -a $rxe_ip -p $port -C 10 -S 1000 -V -- \
		ip netns exec $ns "$top/build/bin/rnic-run" rping -c \
		-a $rxe_ip -p $port -C 10 -S 1000 -V
	cm_check "cm: rnic-run rping client on rnic0 -> rping server on rxe0"
	port=$((port + 1))
	cm_pair ns $port ip netns exec $ns "$top/build/bin/rnic-run" rping -s \
		-a $rnic_ip -p $port -C 10 -S 1000 -V -- \
		$rping_rxe -c -a $rnic_ip -p $port -C 10 -S 1000 -V
	cm_check "cm: rping client on rxe0 -> rnic-run rping server on rnic0"
	# UD through SIDR: udaddy (its own port, 7174; -p is a port space),
	# both ways
	cm_pair - 7174 env -u LD_LIBRARY_PATH udaddy -b $rxe_ip -C 10 -- \
		ip netns exec $ns "$top/build/bin/rnic-run" udaddy \
		-s $rxe_ip -C 10
	cm_check "cm: rnic-run udaddy on rnic0 -> udaddy on rxe0 (SIDR, UD)"
	cm_pair ns 7174 ip netns exec $ns "$top/build/bin/rnic-run" udaddy \
		-b $rnic_ip -C 10 -- \
		env -u LD_LIBRARY_PATH udaddy -s $rnic_ip -C 10
	cm_check "cm: udaddy on rxe0 -> rnic-run udaddy on rnic0 (SIDR, UD)"
	# multicast: mckey's receiver joins first (it has no listener to
	# wait for: 2 s), then the sender's datagrams to the group must all
	# arrive
	pair_start=2 pair - env -u LD_LIBRARY_PATH mckey -m 239.77.0.5 -b $rxe_ip \
		-C 10 -- \
		ip netns exec $ns "$top/build/bin/rnic-run" mckey \
		-m 239.77.0.5 -b $rnic_ip -s -C 10
	cm_check "cm: rnic-run mckey sender on rnic0 -> mckey on rxe0 (multicast)"
	pair_start=2 pair ns ip netns exec $ns "$top/build/bin/rnic-run" mckey \
		-m 239.77.0.6 -b $rnic_ip -C 10 -- \
		env -u LD_LIBRARY_PATH mckey -m 239.77.0.6 -b $rxe_ip -s -C 10
	cm_check "cm: mckey sender on rxe0 -> rnic-run mckey on rnic0 (multicast)"
	# ucmatose: 5 connections at once, 10 messages each way on each
	port=$((port + 1))
	cm_pair - $port env -u LD_LIBRARY_PATH ucmatose -b $rxe_ip -p $port \
		-c 5 -C 10 -- \
		ip netns exec $ns "$top/build/bin/rnic-run" ucmatose \
		-s $rxe_ip -p $port -c 5 -C 10
	cm_check "cm: rnic-run ucmatose client on rnic0 -> ucmatose on rxe0 (5 connections)"
	port=$((port + 1))
	cm_pair ns $port ip netns exec $ns "$top/build/bin/rnic-run" ucmatose \
		-b $rnic_ip -p $port -c 5 -C 10 -- \
		env -u LD_LIBRARY_PATH ucmatose -s $rnic_ip -p $port -c 5 -C 10
	cm_check "cm: ucmatose client on rxe0 -> rnic-run ucmatose on rnic0 (5 connections)"
	# rdma-core's example client and server (rdma_getaddrinfo,
	# rdma_create_ep, rdma_get_request, inline sends), unmodified
	port=$((port + 1))
	cm_pair - $port env -u LD_LIBRARY_PATH rdma_server -s $rxe_ip -p $port -- \
		ip netns exec $ns "$top/build/bin/rnic-run" rdma_client \
		-s $rxe_ip -p $port
	cm_check "cm: rnic-run rdma_client on rnic0 -> rdma_server on rxe0"
	port=$((port + 1))
	cm_pair ns $port ip netns exec $ns "$top/build/bin/rnic-run" rdma_server \
		-s $rnic_ip -p $port -- \
		env -u LD_LIBRARY_PATH rdma_client -s $rnic_ip -p $port
	cm_check "cm: rdma_client on rxe0 -> rnic-run rdma_server on rnic0"
fi

# ---- 5. capture ----------------------------------------------------------

# capture IN IFACE FILE -- PAIR...: records IFACE (namespace IN: ns or -)
# into FILE (classic pcap) while the pair runs
capture() {
	local in=$1 iface=$2 file=$3 cpid i
	shift 4
	rm -f "$file"
	if [ "$in" = ns ]; then
		ip netns exec $ns dumpcap -q -i "$iface" -P -s 0 -w "$file" \
			2>"$tmp/dumpcap.log" &
	else
		dumpcap -q -i "$iface" -P -s 0 -w "$file" 2>"$tmp/dumpcap.log" &
	fi
	cpid=$!
	for i in $(seq 300); do
		[ -s "$file" ] && break
		sleep 0.1
	done
	tcp_port=$((tcp_port + 1))
	pair "$@"
	sleep 1
	# not SIGINT: a script's background jobs ignore it
	kill -TERM $cpid 2>/dev/null
	wait $cpid 2>/dev/null
}

# decode FILE SRC FILTER: how many RoCE packets from SRC in FILE match the
# display FILTER; -1 if tshark fails (a bad filter must not count as 0)
decode() {
	local out
	out=$(tshark -r "$1" -Y "ip.src == $2 && udp.dstport == 4791 && ($3)" \
		2>/dev/null) || {
		echo -1
		return
	}
	[ -n "$out" ] && echo "$out" | wc -l || echo 0
}

# check_capture FILE SRC WHO: the decode and ICRC verdicts on SRC's packets
check_capture() {
	local total ib bad rc why
	total=$(decode "$1" "$2" frame)
	ib=$(decode "$1" "$2" infiniband.bth)
	bad=$(decode "$1" "$2" '_ws.malformed || _ws.expert.severity >= warning')
	why=
	[ "$total" -gt 0 ] || why="no RoCE packet from $3 in the capture;"
	[ "$ib" -eq "$total" ] || why="$why only $ib of $total packets decode as InfiniBand BTH;"
	[ "$bad" -eq 0 ] || why="$why $bad malformed or flagged packets (-1: tshark failed);"
	result "capture: $total RoCE packets from $3 decode as InfiniBand, none malformed" "$why"
	python3 "$dir/roce_icrc.py" "$1" --src "$2" >"$tmp/icrc.out"
	rc=$?
	why=
	[ $rc -eq 0 ] || why="$(grep -m 3 ' bad ' "$tmp/icrc.out" | tr '\n' ';') $(tail -n 1 "$tmp/icrc.out")"
	result "capture: every ICRC of $3's packets is right ($(tail -n 1 "$tmp/icrc.out"))" "$why"
}

want capture || {
	echo "1..$n"
	[ $failed -eq 0 ]
	exit
}

# rnic's packets on the veth, during an RC ping-pong with rxe; rxe's
# answers in the same capture check the checker: they must pass, and a
# copy with one byte of one of them flipped must fail.
cap=$tmp/rnic.pcap
capture ns ia1 "$cap" -- - env -u LD_LIBRARY_PATH ibv_rc_pingpong -d rxe0 \
	-g "$g4_rxe" -c -e -p $((tcp_port + 1)) -n 20 -s 5000 -- \
	ip netns exec $ns "$top/build/bin/rnic-rc-pingpong" -d rnic0 \
	-g "$g4_rnic" -c -e --timeout $((limit - 5)) -p $((tcp_port + 1)) \
	-n 20 -s 5000 $rxe_ip
pp_check "capture: RC ping-pong with rxe on ia1 under dumpcap"
check_capture "$cap" $rnic_ip rnic
check_capture "$cap" $rxe_ip rxe
cp "$cap" "$tmp/flipped.pcap"
python3 "$dir/roce_icrc.py" "$tmp/flipped.pcap" --src $rxe_ip --flip 1 \
	>"$tmp/icrc-flip.out"
rc=$?
why=
[ $rc -eq 1 ] || why="exit $rc, want 1"
grep -q ' bad want=' "$tmp/icrc-flip.out" || why="$why; no bad ICRC reported"
result "capture: one flipped byte in an rxe packet is an ICRC error" "$why"

echo "1..$n"
[ $failed -eq 0 ]
