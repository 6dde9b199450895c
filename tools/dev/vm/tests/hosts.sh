#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tools/dev/vm/tests/hosts.sh - the test of tools/dev/vm/run --hosts (TAP),
# run on the host by make check: three runs of two VMs each.
# functions called through check look unreachable to shellcheck;
# the guest commands are single-quoted on purpose
# shellcheck disable=SC2317,SC2016
set -uo pipefail

top=$(cd "$(dirname "$0")/../../../.." && pwd)
run=$top/tools/dev/vm/run
out=$(mktemp -d "${TMPDIR:-/tmp}/rnic-hosts-test.XXXXXXXX")
trap 'rm -rf -- "$out"' EXIT

n=0
failed=0
echo "1..3"

# check NAME CONDITION...: one TAP line; the run's output on failure.
check() {
	local name=$1
	shift
	n=$((n + 1))
	if "$@"; then
		echo "ok $n - $name"
	else
		echo "not ok $n - $name"
		sed 's/^/# /' "$out/log"
		failed=1
	fi
}

# vm EXPECTED_STATUS ARGS...: tools/dev/vm/run ARGS, output in $out/log;
# true if it exited with EXPECTED_STATUS.
vm() {
	local want=$1 st=0
	shift
	"$run" "$@" >"$out/log" 2>&1 || st=$?
	echo "exit status $st (expected $want)" >>"$out/log"
	[[ $st == "$want" ]]
}

has() {
	grep -qxF -- "$1" "$out/log"
}

# TCP echo over the link, IPv4 and IPv6, jumbo frames, every byte checked
# (by tools/dev/vm/tests/echo, which also checks each eth0's addresses).
echo_ok() {
	vm 0 --hosts 2 --mtu 9000 --no-load -- env RNIC_TEST_MTU=9000 \
		"$top/tools/dev/vm/tests/echo" &&
		has "h0: 10.77.0.2: 1048576 bytes came back unchanged" &&
		has "h0: fd77::2: 1048576 bytes came back unchanged" &&
		has "h1: echoed 1048576 bytes to ::ffff:10.77.0.1" &&
		has "h1: echoed 1048576 bytes to fd77::1"
}
check "two hosts: TCP echo over IPv4 and IPv6 at MTU 9000, bytes checked" echo_ok

# Host 1 fails at once while host 0 would sleep: the run ends with host 1's
# status once host 0's grace period is over, not at the timeout.
fail_ok() {
	local t0=$SECONDS
	vm 3 --hosts 2 --no-load --timeout 300 -- \
		sh -c 'echo "host $RNIC_HOST of $RNIC_HOSTS"; [ "$RNIC_HOST" = 0 ] && exec sleep 600; exit 3' &&
		has "h0: host 0 of 2" && has "h1: host 1 of 2" &&
		has "vm h0: stopped 30s after host 1 failed" &&
		((SECONDS - t0 < 200))
}
check "a failing command on host 1 fails the run with its status" fail_ok

# A kernel WARNING on host 1 fails the run although both commands succeed.
warn_ok() {
	vm 1 --hosts 2 -- sh -c '[ "$RNIC_HOST" = 0 ] || echo "WARNING: hosts test" >/dev/kmsg' &&
		grep -q '^vm h1: kernel: .*WARNING: hosts test' "$out/log" &&
		! grep -q '^vm h0: kernel' "$out/log"
}
check "a kernel WARNING on host 1 fails the run" warn_ok

exit $failed
