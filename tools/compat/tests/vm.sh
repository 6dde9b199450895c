#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# Debian's unmodified RDMA programs on rnic under rnic-run, as root inside
# the VM with rnic.ko loaded:  tools/dev/vm/run -- selftests/run compat
# (the host's / is the guest's: /usr/bin/ibv_* and ib_* are Debian's).
#
#   1. ibverbs-utils: ibv_devices and ibv_devinfo print what rnic's own
#      rnic-devices and rnic-devinfo print (same format, values from
#      librnic); ibv_devinfo -v too, but the GIDs (rdma-core's format, with
#      their type: ::ffff:127.0.0.1, RoCE v2) and its extended attributes,
#      with the board_id it reads from rnic's sysfs directory (ibdev_path);
#      ibv_asyncwatch opens the device and waits for events.
#   2. ibv_{rc,uc,ud,srq}_pingpong, server and client both under rnic-run
#      over 127.0.0.1 on a device bound to lo, -c (each side checks every
#      byte it receives, and says "invalid data" if one is wrong): both
#      exit 0, print their throughput line and no "invalid data"; RC
#      also with -N (sends through ibv_wr_*). ibv_xsrq_pingpong (XRC:
#      ibv_open_xrcd, XRC SRQs, XRC_SEND/XRC_RECV QPs, remote_srqn, all
#      through verbs_context) with one client: both print "success".
#   3. perftest: ib_{write,read,send,atomic}_{bw,lat}, server and client,
#      on perftest's default path and, for the bandwidth tests, with
#      --use_old_post_send: both exit 0, with their result table (the
#      passive side of read_lat and atomic_lat prints none).
#   4. librdmacm (rdmacm-utils, and perftest -R), through the compat
#      librdmacm.so.1 on rnic's connection manager: Debian's rping -V
#      against itself and against rnic-rping, each side as server and as
#      client; rdma_server and rdma_client against rnic-cm-client and
#      rnic-cm-server; udaddy (UD ids: SIDR); ucmatose with two
#      connections; ib_send_bw and ib_write_bw connecting with rdma_cm
#      (-R).
#
# A program that needs a name@node the compat libibverbs.so.1 does not
# export yet (its own imports and those of the provider libraries it
# links) cannot load: its tests are reported "not ok ... # TODO" with the
# missing names, which TAP does not count as failures. Leaves no device
# behind. TAP output; exit status 1 if any test failed.

dev=compat0
tmp=$(mktemp -d) || exit 1
top=${RNIC_TOP:-$(cd "$(dirname "$0")/../../.." && pwd)}
compat=$top/build/lib/rnic
tcp_port=$((22000 + $$ % 10000))
n=0
failed=0

cleanup() {
	rnic link del $dev 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

# result NAME WHY [TODO]: ok if WHY is empty; a TODO failure does not count
result() {
	n=$((n + 1))
	if [ -z "$2" ]; then
		echo "ok $n - $1"
		return
	fi
	if [ -n "${3:-}" ]; then
		echo "not ok $n - $1 # TODO $3"
		return
	fi
	failed=$((failed + 1))
	echo "not ok $n - $1"
	echo "# $2"
	for f in server.out server.err client.out client.err; do
		[ -s "$tmp/$f" ] && tail -n 15 "$tmp/$f" | sed "s/^/# $f: /"
	done
}

# The names the compat library exports, "name@node" (default versions).
readelf -W --dyn-syms "$compat/libibverbs.so.1" |
	awk '$7 != "UND" && $8 ~ /@@/ { sub("@@", "@", $8); print $8 }' |
	sort -u >"$tmp/exports"

# missing PROGRAM: the IBVERBS name@node PROGRAM and the rdma-core
# libraries it needs import that the compat library lacks, on one line
missing() {
	libs=$(ldd "$(command -v "$1")" 2>/dev/null |
		awk '/lib(mlx5|efa)\.so/ { print $3 }')
	for f in "$(command -v "$1")" $libs; do
		objdump -T "$f" | awk '$0 ~ /\*UND\*/ && $(NF - 1) ~ /^\(IBVERBS_/ {
			print $NF "@" substr($(NF - 1), 2, length($(NF - 1)) - 2) }'
	done | sort -u | comm -23 - "$tmp/exports" | tr '\n' ' '
}

# todo PROGRAM: empty if PROGRAM can load, else why not (for result's TODO)
todo() {
	m=$(missing "$1")
	[ -z "$m" ] || echo "$1 needs $m(lib/verbs/ does not define them yet)"
}

# listening PORT: a TCP socket listens on PORT
listening() {
	hex=$(printf ':%04X ' "$1")
	grep -q "${hex}[0-9A-F:]* 0A " /proc/net/tcp /proc/net/tcp6 2>/dev/null
}

# pair NAME SPAT CPAT PROGRAM ARGS...: PROGRAM ARGS as the server, then as
# the client of 127.0.0.1, both under rnic-run; both must exit 0, the
# server with a line matching SPAT on stdout, the client with one
# matching CPAT
pair() {
	name=$1 spat=$2 cpat=$3 prog=$4
	shift 4
	why=$(todo "$prog")
	if [ -n "$why" ]; then
		result "$name" "cannot load" "$why"
		return
	fi
	tcp_port=$((tcp_port + 1))
	rm -f "$tmp"/server.* "$tmp"/client.*
	timeout 120 rnic-run "$prog" "$@" -p $tcp_port \
		>"$tmp/server.out" 2>"$tmp/server.err" &
	spid=$!
	i=0
	while ! listening $tcp_port && [ $i -lt 300 ] &&
		kill -0 $spid 2>/dev/null; do
		sleep 0.1
		i=$((i + 1))
	done
	timeout 120 rnic-run "$prog" "$@" -p $tcp_port 127.0.0.1 \
		>"$tmp/client.out" 2>"$tmp/client.err"
	crc=$?
	wait $spid
	src=$?
	why=
	[ $src -eq 0 ] || why="server exit $src;"
	[ $crc -eq 0 ] || why="$why client exit $crc;"
	grep -q -e "$spat" "$tmp/server.out" || why="$why server output lacks '$spat';"
	grep -q -e "$cpat" "$tmp/client.out" || why="$why client output lacks '$cpat';"
	# rdma-core's ping-pongs report a bad byte (-c) but exit 0
	! grep -q "invalid data" "$tmp"/server.* "$tmp"/client.* ||
		why="$why invalid data;"
	result "$name" "$why"
}

# same NAME OURS THEIRS: rnic-run THEIRS prints what OURS prints
same() {
	name=$1 ours=$2 theirs=$3
	why=$(todo "${theirs%% *}")
	if [ -n "$why" ]; then
		result "$name" "cannot load" "$why"
		return
	fi
	rm -f "$tmp"/server.* "$tmp"/client.*
	# shellcheck disable=SC2086 # commands with their arguments
	$ours >"$tmp/server.out" 2>"$tmp/server.err"
	# shellcheck disable=SC2086
	timeout 60 rnic-run $theirs >"$tmp/client.out" 2>"$tmp/client.err"
	rc=$?
	why=
	[ $rc -eq 0 ] || why="exit $rc;"
	if ! diff "$tmp/server.out" "$tmp/client.out" >"$tmp/diff"; then
		why="$why output differs from '$ours':"
		sed 's/^/# diff: /' "$tmp/diff"
	fi
	[ -s "$tmp/server.out" ] || why="$why '$ours' printed nothing;"
	result "$name" "$why"
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

# 1. ibverbs-utils
same "ibv_devices" "rnic-devices" "ibv_devices"
same "ibv_devinfo -d $dev" "rnic-devinfo -d $dev" "ibv_devinfo -d $dev"

# ibv_devinfo -v: rnic-devinfo -v's lines but the GIDs, which rdma-core 44
# prints compressed and with their type (ibv_query_gid_type); and the
# extended attributes (ibv_query_device_ex) rnic-devinfo does not print
why=$(todo ibv_devinfo)
if [ -z "$why" ]; then
	rnic-devinfo -v -d $dev | grep -v 'GID\[' >"$tmp/server.out"
	timeout 60 rnic-run ibv_devinfo -v -d $dev >"$tmp/client.out" \
		2>"$tmp/client.err"
	rc=$?
	why=
	[ $rc -eq 0 ] || why="exit $rc;"
	sed '/^\tgeneral_odp_caps:$/,/^\ttag matching not supported$/d' \
		"$tmp/client.out" | grep -v 'GID\[' >"$tmp/rest"
	if ! diff "$tmp/server.out" "$tmp/rest" >"$tmp/diff"; then
		why="$why output differs from rnic-devinfo -v:"
		sed 's/^/# diff: /' "$tmp/diff"
	fi
	# board_id comes from <ibdev_path>/board_id, rnic's sysfs directory
	grep -q "^$(printf '\t')board_id:$(printf '\t\t\t')$(cat /sys/class/rnic/$dev/board_id)\$" \
		"$tmp/client.out" || why="$why no board_id from sysfs;"
	grep -q "GID\[  1\]:$(printf '\t\t')::ffff:127.0.0.1, RoCE v2\$" \
		"$tmp/client.out" || why="$why no 'GID[  1]: ::ffff:127.0.0.1, RoCE v2';"
	flags=$(awk '$1 == "device_cap_flags:" { print $2 }' "$tmp/client.out")
	grep -q "device_cap_flags_ex:.*0x$(printf '%X' "$flags")\$" \
		"$tmp/client.out" || why="$why device_cap_flags_ex is not $flags;"
	result "ibv_devinfo -v -d $dev" "$why"
else
	result "ibv_devinfo -v -d $dev" "cannot load" "$why"
fi

why=$(todo ibv_asyncwatch)
if [ -z "$why" ]; then
	timeout 3 rnic-run ibv_asyncwatch -d $dev >"$tmp/client.out" \
		2>"$tmp/client.err"
	rc=$?
	why=
	[ $rc -eq 124 ] || why="exit $rc, want 124 (still waiting for events);"
	grep -q "^$dev: async event FD" "$tmp/client.out" ||
		why="$why no '$dev: async event FD' line;"
	result "ibv_asyncwatch opens $dev and waits" "$why"
else
	result "ibv_asyncwatch opens $dev and waits" "cannot load" "$why"
fi

# 2. the ping-pongs: -c checks every byte received; -N sends through the
# ibv_wr_* builder
pp=" bytes in .* seconds = "
pair "ibv_rc_pingpong" "$pp" "$pp" \
	ibv_rc_pingpong -d $dev -g 1 -c -n 200 -s 4096
pair "ibv_rc_pingpong -e -m 1024, 10000 bytes" "$pp" "$pp" \
	ibv_rc_pingpong -d $dev -g 1 -c -e -n 100 -s 10000 -m 1024
pair "ibv_rc_pingpong -N" "$pp" "$pp" \
	ibv_rc_pingpong -d $dev -g 1 -c -N -n 200 -s 4096
pair "ibv_uc_pingpong -e" "$pp" "$pp" \
	ibv_uc_pingpong -d $dev -g 1 -c -e -n 200 -s 4096
pair "ibv_ud_pingpong -e" "$pp" "$pp" \
	ibv_ud_pingpong -d $dev -g 1 -c -e -n 200 -s 1024
pair "ibv_srq_pingpong" "$pp" "$pp" \
	ibv_srq_pingpong -d $dev -g 1 -c -n 50 -q 4
pair "ibv_xsrq_pingpong" "success" "success" \
	ibv_xsrq_pingpong -d $dev -g 1 -n 20 -m 1024

# 3. perftest: the result table's header line; the target of a READ or an
# atomic takes no part in the latency test and prints no table
bw="#bytes *#iterations *BW peak"
lat="#bytes *#iterations *t_min"
conn="remote address: "
for t in write read send atomic; do
	size=4096
	[ $t = atomic ] && size=8
	pair "ib_${t}_bw" "$bw" "$bw" \
		ib_${t}_bw -d $dev -x 1 -n 100 -s $size -F
	pair "ib_${t}_bw --use_old_post_send" "$bw" "$bw" \
		ib_${t}_bw -d $dev -x 1 -n 100 -s $size -F --use_old_post_send
	slat=$lat
	case $t in read | atomic) slat=$conn ;; esac
	pair "ib_${t}_lat" "$slat" "$lat" \
		ib_${t}_lat -d $dev -x 1 -n 100 -s 8 -F
done

# 4. librdmacm. There is no TCP socket to wait for: the client starts once
# the server's CM id listens (rnic res show cm_id).
. "$top/tools/lib/cm_client.sh"

# cm_pair NAME SPAT CPAT PORT SERVER CLIENT: the commands SERVER and
# CLIENT (words), the client once the server listens on PORT; both must
# exit 0, with lines matching SPAT and CPAT on their stdout
cm_pair() {
	name=$1 spat=$2 cpat=$3 port=$4
	# the program is the word after rnic-run
	why=$(todo "$(echo "$5" | awk '{ print $2 }')")
	if [ -n "$why" ]; then
		result "$name" "cannot load" "$why"
		return
	fi
	rm -f "$tmp"/server.* "$tmp"/client.*
	# shellcheck disable=SC2086 # the commands are word lists
	timeout 120 $5 >"$tmp/server.out" 2>"$tmp/server.err" &
	spid=$!
	# shellcheck disable=SC2086
	cm_client "$port" $6
	wait $spid
	src=$?
	[ $src -eq 0 ] || why="server exit $src;"
	[ $crc -eq 0 ] || why="$why client exit $crc;"
	grep -q -e "$spat" "$tmp/server.out" || why="$why server output lacks '$spat';"
	grep -q -e "$cpat" "$tmp/client.out" || why="$why client output lacks '$cpat';"
	grep -q "data mismatch" "$tmp"/client.* && why="$why data mismatch;"
	result "$name" "$why"
}

cm_port=$((tcp_port + 100))
ping="^ping data: rdma-ping-9: "
sping="^server ping data: rdma-ping-9: "
for server in rping rnic-rping; do
	for client in rping rnic-rping; do
		cm_port=$((cm_port + 1))
		srv="rnic-run $server -s -a 127.0.0.1 -p $cm_port -v"
		cli="rnic-run $client -c -a 127.0.0.1 -p $cm_port -v -V -C 10"
		cm_pair "$server -s, $client -c -V -C 10" "$sping" "$ping" \
			$cm_port "$srv" "$cli"
	done
done
# udaddy: UD ids, SIDR, its port fixed (7174)
cm_pair "udaddy (UD, SIDR)" "^test complete" "^test complete" 7174 \
	"rnic-run udaddy -b 127.0.0.1" "rnic-run udaddy -s 127.0.0.1"
cm_port=$((cm_port + 1))
cm_pair "ucmatose, 2 connections" "^test complete" "^test complete" $cm_port \
	"rnic-run ucmatose -b 127.0.0.1 -p $cm_port -c 2 -C 10" \
	"rnic-run ucmatose -s 127.0.0.1 -p $cm_port -c 2 -C 10"
cm_port=$((cm_port + 1))
cm_pair "rdma_server, rnic-cm-client" "end 0" "end 0" $cm_port \
	"rnic-run rdma_server -s 127.0.0.1 -p $cm_port" \
	"rnic-run rnic-cm-client -s 127.0.0.1 -p $cm_port"
cm_port=$((cm_port + 1))
cm_pair "rnic-cm-server, rdma_client" "end 0" "end 0" $cm_port \
	"rnic-run rnic-cm-server -s 127.0.0.1 -p $cm_port" \
	"rnic-run rdma_client -s 127.0.0.1 -p $cm_port"
for t in send write; do
	cm_port=$((cm_port + 1))
	cm_pair "ib_${t}_bw -R" "$bw" "$bw" $cm_port \
		"rnic-run ib_${t}_bw -d $dev -R -n 100 -s 4096 -F -p $cm_port" \
		"rnic-run ib_${t}_bw -d $dev -R -n 100 -s 4096 -F -p $cm_port 127.0.0.1"
done

echo "1..$n"
[ $failed -eq 0 ]
