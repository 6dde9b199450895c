#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# rnic-run on the host, against a fake sysfs (RNIC_SYSFS_DIR): its command
# line, the environment it gives the program, and that an unmodified
# program linked against rdma-core's libibverbs.so.1 (Debian's
# ibv_devices; a program with a DT_RPATH to rdma-core's library, built
# here) lists rnic's devices under it. TAP output.
#
# RNIC_RUN: the rnic-run to test; COMPAT: the directory it runs programs on.

RNIC_RUN=${RNIC_RUN:?RNIC_RUN must name rnic-run}
COMPAT=${COMPAT:?COMPAT must name the directory of the compat libraries}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/rnic-run-test.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT
export RNIC_SYSFS_DIR="$TMP/class" RNIC_DEV_DIR="$TMP/dev"
unset RNIC_DEBUG LD_PRELOAD
mkdir -p "$TMP/dev" "$TMP/class/rnic7"
echo 1 >"$TMP/class/rnic7/abi_version"
echo uverbs9 >"$TMP/class/rnic7/uverbs"
echo 0002:c9ff:fe00:0007 >"$TMP/class/rnic7/node_guid"
echo 231:1024 >"$TMP/class/rnic7/dev"

. "$(dirname "$0")/../../lib/tap.sh"

# run ARGS...: rnic-run ARGS; sets $rc, $out (stdout), $err (stderr)
run() {
	"$RNIC_RUN" "$@" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	out=$(cat "$TMP/out")
	err=$(cat "$TMP/err")
}

run --help
check_run "--help: usage on stdout, status 0" \
	'[ $rc = 0 ] && [ -z "$err" ] && case $out in Usage:*) true ;; *) false ;; esac'
run
check_run "no command: usage on stderr, status 2" \
	'[ $rc = 2 ] && [ -z "$out" ] && case $err in Usage:*) true ;; *) false ;; esac'
run --bogus
check_run "unknown option: status 2" '[ $rc = 2 ] && [ -n "$err" ]'
run sh -c 'exit 7'
check_run "the command's exit status is rnic-run's" '[ $rc = 7 ]'
run rnic-run-no-such-command
check_run "unknown command: status 127, said so" \
	'[ $rc = 127 ] && [ "$err" = "rnic-run: rnic-run-no-such-command: command not found" ]'

LD_LIBRARY_PATH=/nowhere run -- sh -c 'echo "$LD_LIBRARY_PATH"; echo "$LD_PRELOAD"'
check_run "environment: compat directory first, the caller's path kept, both libraries preloaded" \
	'[ "$out" = "$COMPAT:/nowhere
$COMPAT/libibverbs.so.1 $COMPAT/librdmacm.so.1" ]'

expected="    device          	   node GUID
    ------          	----------------
    rnic7           	0002c9fffe000007"
if [ -x /usr/bin/ibv_devices ]; then
	run /usr/bin/ibv_devices
	check_run "Debian's ibv_devices lists rnic's device" \
		'[ $rc = 0 ] && [ "$out" = "$expected" ] && [ -z "$err" ]'
else
	skip "Debian's ibv_devices lists rnic's device" "no /usr/bin/ibv_devices"
fi

# A program whose DT_RPATH names a directory holding rdma-core's library:
# LD_LIBRARY_PATH alone would lose to it, LD_PRELOAD does not.
theirs=$(ldconfig -p 2>/dev/null |
	awk '$1 == "libibverbs.so.1" { print $NF; exit }')
if [ -n "$theirs" ] && command -v "${CC:-cc}" >/dev/null; then
	mkdir "$TMP/rpath"
	cp "$theirs" "$TMP/rpath/libibverbs.so.1"
	cat >"$TMP/list.c" <<'PROG'
#include <stdio.h>
struct ibv_device;
struct ibv_device **ibv_get_device_list(int *num);
const char *ibv_get_device_name(struct ibv_device *device);
int main(void)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	for (int i = 0; list && list[i]; i++)
		printf("%s\n", ibv_get_device_name(list[i]));
	return !list;
}
PROG
	"${CC:-cc}" -o "$TMP/list" "$TMP/list.c" -L"$TMP/rpath" \
		-l:libibverbs.so.1 -Wl,--disable-new-dtags,-rpath,"$TMP/rpath"
	run "$TMP/list"
	check_run "a DT_RPATH to rdma-core's library loses to rnic-run" \
		'[ $rc = 0 ] && [ "$out" = rnic7 ]'
	LD_LIBRARY_PATH=$COMPAT "$TMP/list" >"$TMP/out" 2>&1
	check_run "(the same program under LD_LIBRARY_PATH alone does not list it)" \
		'[ "$(cat "$TMP/out")" != rnic7 ]'
else
	skip "a DT_RPATH to rdma-core's library loses to rnic-run" "no libibverbs.so.1 installed"
fi

tap_end
