#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# End-to-end tests of the rnic tool against the module, as root inside the
# VM with rnic.ko loaded:  tools/vm/run -- tools/rnic/tests/vm.sh
# Leaves no device behind. TAP output; exit status 1 if any test failed.

RNIC=${RNIC:-rnic}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

n=0
failed=0
pfx=rnictooltest

# t NAME WANT_STATUS STDERR_REGEX STDOUT_REGEX -- ARGS...
# An empty regex means the stream must be empty.
t() {
	name=$1 want=$2 epat=$3 opat=$4
	shift 5
	n=$((n + 1))
	$VALGRIND "$RNIC" "$@" >"$tmp/out" 2>"$tmp/err"
	got=$?
	why=
	[ "$got" = "$want" ] || why="exit $got, want $want"
	if [ -n "$epat" ]; then
		grep -q -e "$epat" "$tmp/err" || why="$why; stderr lacks '$epat'"
	elif [ -s "$tmp/err" ]; then
		why="$why; unexpected stderr"
	fi
	if [ -n "$opat" ]; then
		grep -q -e "$opat" "$tmp/out" || why="$why; stdout lacks '$opat'"
	elif [ -s "$tmp/out" ]; then
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

# check NAME COMMAND...: a shell condition as one test
check() {
	name=$1
	shift
	n=$((n + 1))
	if "$@"; then
		echo "ok $n - $name"
	else
		failed=$((failed + 1))
		echo "not ok $n - $name"
	fi
}

valid_json() {
	if command -v python3 >/dev/null; then
		python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$1"
	else
		grep -q '^\[.*\]$' "$1"
	fi
}

a=${pfx}0
b=${pfx}1
long=$(printf '%063d' 0 | tr 0 a)

t "add"                   0 "" "" -- link add "$a"
t "add netdev lo"         0 "" "" -- link add "$b" netdev lo
t "show one"              0 "" "^[0-9]*: $a: uverbs[0-9]* state ACTIVE active_mtu [0-9]* contexts 0\$" -- link show "$a"
t "show bound"            0 "" "netdev lo netdev_mtu [0-9]* contexts" -- l s "$b"
t "node_guid line"        0 "" "^    node_guid [0-9a-f]\{4\}:[0-9a-f]\{4\}:[0-9a-f]\{4\}:[0-9a-f]\{4\}\$" -- link show "$a"
t "IPv4-mapped GID of lo" 0 "" "^    gid [0-9]* ::ffff:127.0.0.1\$" -- link show "$b"
t "dump lists both"       0 "" "^[0-9]*: $b: " -- link
t "json dump"             0 "" "\"ifname\":\"$b\",\"uverbs\":\"uverbs" -- -j link show
check "json dump parses"  valid_json "$tmp/out"
t "json bound members"    0 "" "\"netdev\":\"lo\",\"netdev_index\":1,\"netdev_mtu\":" -- -j link show "$b"
t "pretty json"           0 "" '^    "ifname": "'"$a"'",$' -- -p link show "$a"
check "pretty json parses" valid_json "$tmp/out"

t "duplicate name"        1 "^rnic: .*exists" "" -- link add "$a"
t "unknown netdev"        1 "^rnic: " "" -- link add ${pfx}x netdev nosuchdev0
t "netdev already bound"  1 "^rnic: " "" -- link add ${pfx}x netdev lo
t "63-byte name"          0 "" "" -- link add "$long"
t "64-byte name"          1 "^rnic: .*63" "" -- link add "${long}a"
t "empty name"            1 "^rnic: " "" -- link add ""
t "name with /"           1 "^rnic: " "" -- link add a/b
t "del nosuch"            1 "^rnic: no such rnic device\$" "" -- link del ${pfx}nosuch
t "show nosuch"           1 "^rnic: no such rnic device\$" "" -- link show ${pfx}nosuch
t "json show nosuch"      1 "^rnic: no such rnic device\$" "" -- -j link show ${pfx}nosuch

t "del long"              0 "" "" -- link del "$long"
t "delete"                0 "" "" -- link delete "$a"
t "abbreviated del"       0 "" "" -- l d "$b"
t "gone"                  1 "^rnic: no such rnic device\$" "" -- link show "$a"

echo "1..$n"
echo "# $((n - failed)) passed, $failed failed"
[ "$failed" = 0 ]
