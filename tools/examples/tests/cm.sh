#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# The connection manager's examples on the host, without a connection
# manager: rnic-rping's and rnic-cm-client/-server's options, their usage
# errors, and the error when there is no /dev/infiniband/rnic_cm
# (RNIC_DEV_DIR points at an empty directory). The connections themselves
# run in the VM (tests/vm.sh). TAP output.
#
# BIN: the directory of the programs to test.

BIN=${BIN:?BIN must name the directory of rnic-rping}
RPING=$BIN/rnic-rping
TMP=$(mktemp -d "${TMPDIR:-/tmp}/rnic-rping-test.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT
export RNIC_DEV_DIR="$TMP" RNIC_SYSFS_DIR="$TMP"

. "$(dirname "$0")/../../lib/tap.sh"

# run ARGS...: rnic-rping ARGS; sets $rc, $out (stdout), $err (stderr)
run() {
	timeout 10 "$RPING" "$@" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	out=$(cat "$TMP/out")
	err=$(cat "$TMP/err")
}

# usage_error NAME ARGS...: status 1, a message and the usage on stderr
usage_error() {
	name=$1
	shift
	run "$@"
	check_run "$name: status 1, usage on stderr" \
		'[ $rc = 1 ] && [ -z "$out" ] && case $err in *Usage:*) true ;; *) false ;; esac'
}

# bad_value NAME WHAT ARGS...: status 1, "Invalid WHAT" on stderr
bad_value() {
	name=$1 what=$2
	shift 2
	run "$@"
	check_run "$name: status 1, invalid $what" \
		'[ $rc = 1 ] && [ -z "$out" ] && case $err in "Invalid $what "*) true ;; *) false ;; esac'
}

run -h
check_run "-h: usage on stdout, status 0" \
	'[ $rc = 0 ] && [ -z "$err" ] && case $out in Usage:*) true ;; *) false ;; esac'
# all_options: every option has its line in the usage ($out)
all_options() {
	for o in -c -s -P -v -V -d -S -C -a -I -p; do
		case $out in *"	$o"*) ;; *) return 1 ;; esac
	done
}
check_run "-h: every option is in the usage" all_options

usage_error "no arguments"
usage_error "-s and -c" -s -c -a 127.0.0.1
usage_error "client without -a" -c
usage_error "-P on the client" -c -P -a 127.0.0.1
usage_error "-I on the server" -s -I 127.0.0.1
usage_error "unknown option" -s -x
usage_error "missing option argument" -s -C
usage_error "extra argument" -s extra

bad_value "-S below the minimum" size -s -S 10
bad_value "-S above 64 KiB" size -s -S 65537
bad_value "-S not a number" size -s -S 1k
bad_value "-C 0" count -c -a 127.0.0.1 -C 0
bad_value "-p beyond 65535" port -s -p 65536

run -c -a 127.0.0.1 -C 1 -S 26
check_run "no connection manager: the client fails with ENODEV" \
	'[ $rc = 1 ] && [ -z "$out" ] && case $err in rdma_create_event_channel:*"No such device"*) true ;; *) false ;; esac'
run -s -V -S 65536
check_run "no connection manager: the server fails with ENODEV" \
	'[ $rc = 1 ] && [ -z "$out" ] && case $err in rdma_create_event_channel:*"No such device"*) true ;; *) false ;; esac'

# cm_run PROGRAM ARGS...: like run, for rnic-cm-client or -server
cm_run() {
	prog=$1
	shift
	timeout 10 "$BIN/$prog" "$@" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	out=$(cat "$TMP/out")
	err=$(cat "$TMP/err")
}

for prog in rnic-cm-client rnic-cm-server; do
	cm_run $prog -h
	check_run "$prog -h: usage on stdout, status 0" \
		'[ $rc = 0 ] && [ -z "$err" ] && case $out in Usage:*) true ;; *) false ;; esac'
	cm_run $prog -x
	check_run "$prog -x: status 1, usage on stderr" \
		'[ $rc = 1 ] && [ -z "$out" ] && case $err in *Usage:*) true ;; *) false ;; esac'
	cm_run $prog -s 127.0.0.1 extra
	check_run "$prog with an extra argument: status 1, usage on stderr" \
		'[ $rc = 1 ] && [ -z "$out" ] && case $err in *Usage:*) true ;; *) false ;; esac'
done
cm_run rnic-cm-client
check_run "rnic-cm-client without -s: status 1, usage on stderr" \
	'[ $rc = 1 ] && case $err in *"-s is needed"*Usage:*) true ;; *) false ;; esac'
cm_run rnic-cm-client -s 127.0.0.1 -p 7471
check_run "no connection manager: rnic-cm-client fails with ENODEV" \
	'[ $rc = 1 ] && [ "$out" = "rnic-cm-client: start
rnic-cm-client: end -1" ] && case $err in "rdma_create_ep: No such device") true ;; *) false ;; esac'
cm_run rnic-cm-server -s 127.0.0.1
check_run "no connection manager: rnic-cm-server fails with ENODEV" \
	'[ $rc = 1 ] && [ "$out" = "rnic-cm-server: start
rnic-cm-server: end -1" ] && case $err in "rdma_create_ep: No such device") true ;; *) false ;; esac'

# rnic-cmtime: -h, usage errors (status 2), no connection manager
cm_run rnic-cmtime -h
check_run "rnic-cmtime -h: usage on stdout, status 0" \
	'[ $rc = 0 ] && [ -z "$err" ] && case $out in Usage:*) true ;; *) false ;; esac'
for args in "" "-s -a 127.0.0.1" "-a 127.0.0.1 -n 0" "-s -t 0" "-s extra" "-x"; do
	cm_run rnic-cmtime $args
	check_run "rnic-cmtime $args: status 2, usage on stderr" \
		'[ $rc = 2 ] && [ -z "$out" ] && case $err in *Usage:*) true ;; *) false ;; esac'
done
cm_run rnic-cmtime -a 127.0.0.1
check_run "no connection manager: rnic-cmtime fails with ENODEV" \
	'[ $rc = 1 ] && [ -z "$out" ] && case $err in "rdma_create_event_channel: No such device") true ;; *) false ;; esac'

tap_end
