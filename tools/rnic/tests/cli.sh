#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# Command line tests of the rnic binary that need no module: help, usage
# errors, and "module not loaded" when the rnic family is absent.
# TAP output; exit status 1 if any test failed.
#
# RNIC      the binary (default: build/bin/rnic)
# VALGRIND  command prefix to run it under (optional)

top=$(cd "$(dirname "$0")/../../.." && pwd)
RNIC=${RNIC:-$top/build/bin/rnic}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

n=0
failed=0

# t NAME WANT_STATUS STDERR_PATTERN STDOUT_PATTERN -- ARGS...
t() {
	name=$1 want=$2 epat=$3 opat=$4
	shift 5
	n=$((n + 1))
	$VALGRIND "$RNIC" "$@" >"$tmp/out" 2>"$tmp/err"
	got=$?
	why=
	[ "$got" = "$want" ] || why="exit $got, want $want"
	if [ -n "$epat" ] && ! grep -q -e "$epat" "$tmp/err"; then
		why="$why; stderr lacks '$epat'"
	fi
	if [ -z "$epat" ] && [ -s "$tmp/err" ]; then
		why="$why; unexpected stderr"
	fi
	if [ -n "$opat" ] && ! grep -q -e "$opat" "$tmp/out"; then
		why="$why; stdout lacks '$opat'"
	fi
	if [ -z "$opat" ] && [ -s "$tmp/out" ]; then
		why="$why; unexpected stdout"
	fi
	if [ -z "$why" ]; then
		echo "ok $n - $name"
	else
		failed=$((failed + 1))
		echo "not ok $n - $name"
		echo "# $why"
		sed 's/^/# stderr: /' "$tmp/err"
		sed 's/^/# stdout: /' "$tmp/out"
	fi
}

usage='^Usage: rnic'
t "help"                      0 "" "$usage" -- help
t "-h"                        0 "" "$usage" -- -h
t "--help"                    0 "" "link add NAME" -- --help
t "-V"                        0 "" "^rnic utility, version" -- -V
t "--version"                 0 "" "netlink family rnic, version 1" -- --version
t "link help"                 0 "" "^Usage: rnic link add" -- link help
t "l h (prefixes)"            0 "" "^Usage: rnic link add" -- l h
t "no object"                 2 "object expected" "" --
t "unknown object"            2 "unknown object 'frob'" "" -- frob
t "usage on stderr"           2 "$usage" "" -- frob
t "unknown option"            2 "unknown option '-x'" "" -- -x link
t "unknown long option"       2 "unknown option '--frob'" "" -- --frob
t "options after object"      2 "unexpected argument '-j'" "" -- link show x -j
t "unknown link command"      2 "link: unknown command 'frob'" "" -- link frob
t "help with extra argument"  2 "unexpected argument 'x'" "" -- help x
t "link help extra argument"  2 "unexpected argument 'x'" "" -- link help x
t "link add without name"     2 "^Usage: rnic link add" "" -- link add
t "link add unknown option"   2 "unknown option 'bogus'" "" -- link add r0 bogus lo
t "link add netdev no value"  2 "interface name expected" "" -- link add r0 netdev
t "link add netdev twice"     2 "netdev given twice" "" -- link add r0 netdev lo netdev lo
t "link add max_burst no value" 2 "max_burst: a number of bytes" "" -- link add r0 max_burst
t "link add max_burst 0"      2 "max_burst: a number of bytes" "" -- link add r0 max_burst 0
t "link add max_burst -1"     2 "max_burst: a number of bytes" "" -- link add r0 max_burst -1
t "link add max_burst 2^32"   2 "max_burst: a number of bytes" "" -- link add r0 max_burst 4294967296
t "link add max_burst 1k"     2 "max_burst: a number of bytes" "" -- link add r0 max_burst 1k
t "link add max_burst twice"  2 "max_burst given twice" "" -- link add r0 max_burst 1 max_burst 1
t "link del without name"     2 "device name expected" "" -- link del
t "link set without name"     2 "link set: device name expected" "" -- link set
t "link set nothing"          2 "link set: nothing to set" "" -- link set r0
t "link set rate no value"    2 "drop: a rate (20, 0.5%, 5000ppm) expected" "" -- link set r0 drop
t "link set rate 5 decimals"  2 "drop: a rate" "" -- link set r0 drop 1.23456
t "link set rate no decimals" 2 "corrupt: a rate" "" -- link set r0 corrupt 5.
t "link set rate word"        2 "delay: a rate" "" -- link set r0 delay x
t "link set rate negative"    2 "duplicate: a rate" "" -- link set r0 duplicate -1
t "link set rate 1k ppm"      2 "drop: a rate" "" -- link set r0 drop 1kppm
t "link set count negative"   2 "rnr: a number from 0 expected" "" -- link set r0 rnr -1
t "link set count 2^32"       2 "retry_exc: a number from 0" "" -- link set r0 retry_exc 4294967296
t "link set ambiguous"        2 "link set: 'd' is ambiguous" "" -- link set r0 d 5
t "link set unknown"          2 "link set: unknown option 'foo'" "" -- link set r0 foo 1
t "link set twice"            2 "link set: drop given twice" "" -- link set r0 drop 1 drop 2
t "link delete extra"         2 "unexpected argument 'b'" "" -- link delete a b
t "link show extra"           2 "unexpected argument 'b'" "" -- link show a b
t "res help"                  0 "" "^Usage: rnic res\[ource\]" -- res help
t "r h (prefixes)"            0 "" "^Usage: rnic res\[ource\]" -- r h
t "resource help"             0 "" "^Counts: pd mr channel cq srq qp ah mw xrcd tgt_qp pinned" -- resource help
t "--help lists res"          0 "" "res\[ource\] \[ show \[ DEV \] \]" -- --help
t "unknown res command"       2 "res: unknown command 'frob'" "" -- res frob
t "res show extra"            2 "unexpected argument 'b'" "" -- res show a b
t "res help extra argument"   2 "unexpected argument 'x'" "" -- res help x
t "res show qp: no number"    2 "res show qp: lqpn: a number expected" "" -- res show qp lqpn
t "res show qp: bad number"   2 "res show qp: lqpn: a number expected" "" -- res show qp lqpn 5x
t "res show qp: two devices"  2 "res show qp: unexpected argument 'b'" "" -- res show qp a b
t "res show mr: lqpn unknown" 2 "res show mr: unexpected argument '5'" "" -- res show mr lqpn 5
t "res show mr: key too big"  2 "res show mr: rkey: a number expected" "" -- res show mr rkey 0x100000000
t "res show cm_id: lkey"     2 "res show cm_id: unexpected argument '5'" "" -- res show cm_id lkey 5
t "stat help"                 0 "" "^Usage: rnic stat\[istic\]" -- stat help
t "stat show extra"           2 "unexpected argument 'b'" "" -- stat show a b

if [ -e /sys/module/rnic ]; then
	echo "# rnic module loaded on this host: skipping 'module not loaded'"
else
	nf="^rnic: module not loaded (generic netlink family 'rnic' not found)\$"
	t "show: module not loaded"       1 "$nf" "" -- link show
	t "bare link: module not loaded"  1 "$nf" "" -- link
	t "l s NAME: module not loaded"   1 "$nf" "" -- l s rnic0
	t "json: module not loaded"       1 "$nf" "" -- -j link show
	t "add: module not loaded"        1 "$nf" "" -- link add r0 netdev lo
	t "del: module not loaded"        1 "$nf" "" -- link del r0
	t "set: module not loaded"        1 "$nf" "" -- link set r0 drop 1
	t "res: module not loaded"        1 "$nf" "" -- res
	t "res show DEV: module not loaded" 1 "$nf" "" -- resource show rnic0
	t "json res: module not loaded"   1 "$nf" "" -- -j res show
fi

echo "1..$n"
echo "# $((n - failed)) passed, $failed failed"
[ "$failed" = 0 ]
