#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# Command-line tests of rnic-perf on the host, where no device is needed:
# option checks, usage and exit codes of both builds. TAP output.
#
# BIN: the librnic build; BIN_RDMA_CORE: the rdma-core build, or empty;
# VALGRIND: optional command prefix.

BIN=${BIN:?BIN must name the librnic build of rnic-perf}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/rnic-perf-test.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT
# No devices for librnic: an empty sysfs class.
mkdir "$TMP/class" "$TMP/dev"
export RNIC_SYSFS_DIR="$TMP/class" RNIC_DEV_DIR="$TMP/dev"

n=0
failed=0

# t NAME STATUS STDERR_REGEX PROG ARGS...: PROG exits STATUS saying
# STDERR_REGEX on stderr.
t() {
	name=$1 want=$2 pat=$3
	shift 3
	n=$((n + 1))
	$VALGRIND "$@" >"$TMP/out" 2>"$TMP/err"
	got=$?
	why=
	[ "$got" = "$want" ] || why="exit $got, want $want"
	grep -q -e "$pat" "$TMP/err" || why="$why; stderr lacks '$pat'"
	if [ -z "$why" ]; then
		echo "ok $n - $name"
	else
		failed=$((failed + 1))
		echo "not ok $n - $name"
		echo "# $why"
		sed 's/^/# stderr: /' "$TMP/err"
	fi
}

t "no test" 2 "^Usage: rnic-perf TEST" "$BIN"
t "unknown test" 2 "unknown test 'write_bwx'" "$BIN" write_bwx
t "unknown option" 2 "^Usage" "$BIN" --no-such-option write_bw
t "too many arguments" 2 "^Usage" "$BIN" write_bw a b
t "-s 0" 2 "-s wants a number from 1 to 8388608, not '0'" "$BIN" write_bw -s 0
t "-s 16M" 2 "-s wants a number" "$BIN" write_bw -s 16777216
t "-n x" 2 "-n wants a number" "$BIN" write_bw -n x
t "-q 65" 2 "-q wants a number from 1 to 64" "$BIN" write_bw -q 65
t "-r 0" 2 "-r wants a number from 1 to 32768, not '0'" "$BIN" send_bw -r 0
t "-r 32769" 2 "-r wants a number from 1 to 32768" "$BIN" send_bw -r 32769
t "-u 0" 2 "-u wants a number from 1 to 31, not '0'" "$BIN" read_bw -u 0
t "-u 32" 2 "-u wants a number from 1 to 31" "$BIN" read_bw -u 32
t "-a with -s" 2 "-a and -s exclude each other" "$BIN" write_bw -a -s 8
t "-n with -D" 2 "-n and -D exclude each other" "$BIN" write_bw -n 5 -D 1
t "-q 2 on a latency test" 2 "latency tests use one QP" "$BIN" send_lat -q 2
t "--start-at on the server" 2 "--start-at is for the client" "$BIN" send_bw --start-at 1
t "--start-at x" 2 "--start-at wants seconds since the epoch, not .x." "$BIN" send_bw --start-at x h
t "--start-at 0" 2 "--start-at wants seconds since the epoch" "$BIN" send_bw --start-at 0 h
t "-e on write_lat" 2 "no -e" "$BIN" write_lat -e
t "atomics are 8 bytes" 2 "atomics are 8 bytes" "$BIN" atomic_lat -s 16
t "no device" 1 "no RDMA device" "$BIN" write_bw
t "no such device" 1 "no such device: mlx5_0" "$BIN" write_bw -d mlx5_0

n=$((n + 1))
if "$BIN" --help >"$TMP/out" 2>"$TMP/err" && grep -q -e "--json=FILE" "$TMP/out" &&
   [ ! -s "$TMP/err" ]; then
	echo "ok $n - --help"
else
	failed=$((failed + 1))
	echo "not ok $n - --help"
fi

if [ -n "$BIN_RDMA_CORE" ]; then
	t "rdma-core build: --poll is an error" 2 "this build uses rdma-core" \
		"$BIN_RDMA_CORE" write_bw --poll
	t "rdma-core build: unknown test" 2 "unknown test" \
		"$BIN_RDMA_CORE" read_bwx
else
	n=$((n + 1))
	echo "ok $n - rdma-core build # SKIP not built (no libibverbs-dev)"
fi

echo "1..$n"
[ $failed -eq 0 ]
