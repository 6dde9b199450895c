#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# End-to-end tests of the rnic tool against the module, as root inside the
# VM with rnic.ko loaded:  tools/dev/vm/run -- tools/rnic/tests/vm.sh
# Leaves no device behind. TAP output; exit status 1 if any test failed.

RNIC=${RNIC:-rnic}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

n=0
failed=0
pfx=rnictooltest

# t NAME WANT_STATUS STDERR_REGEX STDOUT_REGEX -- ARGS...
# An empty regex means the stream must be empty. $wrap, if set, is a
# command prefix to run rnic under.
wrap=
t() {
	name=$1 want=$2 epat=$3 opat=$4
	shift 5
	n=$((n + 1))
	$wrap $VALGRIND "$RNIC" "$@" >"$tmp/out" 2>"$tmp/err"
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

# lines N: the last output has N lines
lines() {
	[ "$(wc -l <"$tmp/out")" -eq "$1" ]
}

# hold N DEV COMMAND...: run COMMAND holding N verbs contexts of char
# device DEV open (opened by python3, which then becomes COMMAND)
hold() {
	python3 -c '
import os, resource, sys
n = int(sys.argv[1])
resource.setrlimit(resource.RLIMIT_NOFILE, (n + 64, n + 64))
for _ in range(n):
    os.set_inheritable(os.open(sys.argv[2], os.O_RDWR), True)
os.execvp(sys.argv[3], sys.argv[3:])
' "$@"
}

a=${pfx}0
b=${pfx}1
long=$(printf '%063d' 0 | tr 0 a)

t "add"                   0 "" "" -- link add "$a"
t "add netdev lo"         0 "" "" -- link add "$b" netdev lo
t "add max_burst"         0 "" "" -- link add "${pfx}2" max_burst 4096
t "show one"              0 "" "^[0-9]*: $a: uverbs[0-9]* port 1 state ACTIVE physical_state LINK_UP active_mtu [0-9]* contexts 0\$" -- link show "$a"
t "show bound"            0 "" "netdev lo netdev_mtu [0-9]* contexts" -- l s "$b"
t "show max_burst"        0 "" "active_mtu [0-9]* max_burst 4096 contexts 0\$" -- l s "${pfx}2"
t "json max_burst"        0 "" "\"active_mtu\":[0-9]*,\"max_burst\":4096,\"contexts\":0," -- -j link show "${pfx}2"
t "del max_burst"         0 "" "" -- link del "${pfx}2"
t "node_guid line"        0 "" "^    node_guid [0-9a-f]\{4\}:[0-9a-f]\{4\}:[0-9a-f]\{4\}:[0-9a-f]\{4\}\$" -- link show "$a"
check "show: three lines, no counters" lines 3
t "IPv4-mapped GID of lo" 0 "" "^    gid [0-9]* ::ffff:127.0.0.1\$" -- link show "$b"
t "dump lists both"       0 "" "^[0-9]*: $b: " -- link
t "json dump"             0 "" "\"ifname\":\"$b\",\"uverbs\":\"uverbs" -- -j link show
check "json dump parses"  valid_json "$tmp/out"
t "json bound members"    0 "" "\"netdev\":\"lo\",\"netdev_index\":1,\"netdev_mtu\":" -- -j link show "$b"
t "json port"             0 "" "\"uverbs\":\"uverbs[0-9]*\",\"port\":1,\"state\":\"ACTIVE\",\"physical_state\":\"LINK_UP\",\"active_mtu\":" -- -j link show "$a"

jnofault='"fault":{"drop":0,"duplicate":0,"corrupt":0,"delay":0,"delay_us":0,"rnr":0,"rem_access":0,"retry_exc":0,"fault_drop":0,"fault_duplicate":0,"fault_corrupt":0,"fault_delay":0,"fault_rnr":0,"fault_rem_access":0,"fault_retry_exc":0}'
t "json fault, none"      0 "" "\"node_guid\":\"[0-9a-f:]*\",$jnofault,\"gids\":" -- -j link show "$a"
t "set drop"              0 "" "" -- link set "$a" drop 20
t "show fault line"       0 "" "^    fault drop 20% duplicate 0% corrupt 0% delay 0% delay_us 0 rnr 0 rem_access 0 retry_exc 0\$" -- link show "$a"
check "show: five lines" lines 5
t "fault counters line"   0 "" "^    fault_drop 0 fault_duplicate 0 fault_corrupt 0 fault_delay 0 fault_rnr 0 fault_rem_access 0 fault_retry_exc 0\$" -- link show "$a"
t "set rates and counts"  0 "" "" -- link set "$a" dup 0.5% corrupt 5ppm delay 100 delay_us 250 rnr 3 rem 4 retry_exc 5
t "show them"             0 "" "^    fault drop 20% duplicate 0.5% corrupt 0.0005% delay 100% delay_us 250 rnr 3 rem_access 4 retry_exc 5\$" -- link show "$a"
t "json them"             0 "" '"fault":{"drop":200000,"duplicate":5000,"corrupt":5,"delay":1000000,"delay_us":250,"rnr":3,"rem_access":4,"retry_exc":5,"fault_drop":0,' -- -j link show "$a"
t "set clear and one"     0 "" "" -- link set "$a" clear rnr 1
t "show after clear"      0 "" "^    fault drop 0% duplicate 0% corrupt 0% delay 0% delay_us 0 rnr 1 rem_access 0 retry_exc 0\$" -- link show "$a"
t "set rate above 100%"   1 "^rnic: fault rate above 1000000 ppm (100%)\$" "" -- link set "$a" drop 100.0001
t "set delay above 1 s"   1 "^rnic: fault delay above 1000000 us (1 s)\$" "" -- link set "$a" delay_us 1000001
t "set count above max"   1 "^rnic: fault count above 2147483647\$" "" -- link set "$a" retry_exc 2147483648
t "set nosuch"            1 "^rnic: no such rnic device\$" "" -- link set ${pfx}nosuch drop 1
t "set clear"             0 "" "" -- link set "$a" clear
t "show after set clear"  0 "" "^    node_guid " -- link show "$a"
check "show: no fault line" lines 3

counters="req_not_peer 0 resp_not_peer 0 sent_pkts 0 rcvd_pkts 0 duplicate_request 0 out_of_seq_request 0 rcvd_rnr_err 0 send_rnr_err 0 rcvd_seq_err 0 retry_exceeded_err 0 retry_rnr_exceeded_err 0 completer_retry_err 0 send_err 0 link_downed 0 drop_no_qp 0 drop_not_reached 0 drop_bad_opcode 0 drop_qp_state 0 drop_bad_qkey 0 drop_bad_pkey 0 drop_length 0 gsi_dropped 0 drop_bad_header 0 drop_bad_icrc 0 fault_drop 0 fault_duplicate 0 fault_corrupt 0 fault_delay 0 fault_rnr 0 fault_rem_access 0 fault_retry_exc 0 drop_no_wqe 0 cm_ignored 0"
t "stat show one"         0 "" "^[0-9]*: $a: port 1 $counters\$" -- stat show "$a"
check "stat show: one line" lines 1
t "bare stat lists both"  0 "" "^[0-9]*: $b: port 1 req_not_peer 0 " -- stat
t "statistic prefixes"    0 "" "^[0-9]*: $a: port 1 " -- st l "$a"
t "stat show nosuch"      1 "^rnic: no such rnic device\$" "" -- stat show ${pfx}nosuch
t "stat extra argument"   2 "^rnic: stat show: unexpected argument 'x'\$" "" -- stat show "$a" x
t "json stat show"        0 "" "^\[{\"ifindex\":[0-9]*,\"ifname\":\"$a\",\"port\":1,\"req_not_peer\":0,\"resp_not_peer\":0,\"sent_pkts\":0,.*,\"gsi_dropped\":0,\"drop_bad_header\":0,\"drop_bad_icrc\":0,\"fault_drop\":0,.*,\"fault_retry_exc\":0,\"drop_no_wqe\":0,\"cm_ignored\":0}\]\$" -- -j stat show "$a"
check "json stat show parses" valid_json "$tmp/out"
t "json stat dump"        0 "" "\"ifname\":\"$b\",\"port\":1," -- -j stat
check "json stat dump parses" valid_json "$tmp/out"
t "pretty json"           0 "" '^    "ifname": "'"$a"'",$' -- -p link show "$a"
check "pretty json parses" valid_json "$tmp/out"

zero="pd 0 mr 0 channel 0 cq 0 srq 0 qp 0 ah 0 mw 0 xrcd 0 tgt_qp 0 pinned 0"
jzero='"pd":0,"mr":0,"channel":0,"cq":0,"srq":0,"qp":0,"ah":0,"mw":0,"xrcd":0,"tgt_qp":0,"pinned":0'
t "res show one"          0 "" "^[0-9]*: $a: $zero\$" -- res show "$a"
check "res show: no contexts" lines 1
t "bare res lists both"   0 "" "^[0-9]*: $b: $zero\$" -- res
t "resource prefixes"     0 "" "^[0-9]*: $a: $zero\$" -- r l "$a"
t "res show nosuch"       1 "^rnic: no such rnic device\$" "" -- res show ${pfx}nosuch
t "res show qp, none"     0 "" "" -- res show qp "$a"
check "res show qp, none: empty" lines 0
t "json res show mr, none" 0 "" "^\[\]\$" -- -j res show mr "$a" pid 1
t "json res show"         0 "" "^\[{\"ifindex\":[0-9]*,\"ifname\":\"$a\",$jzero,\"contexts\":\[\]}\]\$" -- -j res show "$a"
check "json res show parses" valid_json "$tmp/out"
t "json res dump"         0 "" "\"ifname\":\"$b\",$jzero," -- -j res
check "json res dump parses" valid_json "$tmp/out"
t "pretty json res"       0 "" '^    "contexts": \[\]' -- -p res show "$a"
check "pretty json res parses" valid_json "$tmp/out"

# Contexts: opening the uverbs char device creates one.
uverbs=$("$RNIC" link show "$a" | sed -n 's/^[0-9]*: [^ ]*: \(uverbs[0-9]*\) .*/\1/p')
cdev=/dev/infiniband/$uverbs
check "uverbs char device of $a" test -c "$cdev"
wrap="hold 1 $cdev"
t "res context"           0 "" "^    ctx [0-9]* pid [0-9]* $zero comm python3\$" -- res show "$a"
check "res context: one line" lines 2
t "json res context"      0 "" "\"contexts\":\[{\"ctx\":[0-9]*,\"pid\":[0-9]*,$jzero,\"comm\":\"python3\"}\]" -- -j res show "$a"
check "json res context parses" valid_json "$tmp/out"
# An answer bigger than 32 KiB; the tool keeps the first 64 contexts.
wrap="hold 1000 $cdev"
t "res 1000 contexts"     0 "^rnic: $a: only the first 64 contexts are shown\$" "^    ctx [0-9]* pid [0-9]* $zero comm python3\$" -- res show "$a"
check "res 1000 contexts: 64 shown" lines 65
t "json res 1000 contexts" 0 "only the first 64" "\"comm\":\"python3\"" -- -j res show "$a"
check "json res 1000 contexts parses" valid_json "$tmp/out"
t "res dump, 1000 contexts" 0 "^rnic: $a: only the first 64 contexts are shown\$" "^[0-9]*: $a: " -- res
wrap=
t "contexts closed"       0 "" "^[0-9]*: $a: $zero\$" -- res show "$a"
check "contexts closed: no context line" lines 1

# CM ids: rnic-rping listening on lo's address, on device $b
cm_port=$((20000 + $$ % 10000))
rnic-rping -s -a 127.0.0.1 -p $cm_port >/dev/null 2>&1 &
rping=$!
i=0
while ! "$RNIC" res show cm_id | grep -q "src-addr 127.0.0.1:$cm_port " &&
	[ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
t "res show cm_id"        0 "" "^[0-9]*: $b: state LISTEN ps TCP type RC src-addr 127.0.0.1:$cm_port pid $rping comm rnic-rping\$" -- res show cm_id "$b"
check "res show cm_id: one line" lines 1
t "json res show cm_id"   0 "" "^\[{\"ifindex\":[0-9]*,\"ifname\":\"$b\",\"state\":\"LISTEN\",\"ps\":\"TCP\",\"type\":\"RC\",\"src-addr\":\"127.0.0.1:$cm_port\",\"pid\":$rping,\"comm\":\"rnic-rping\"}\]\$" -- -j res show cm_id "$b" pid $rping
check "json res show cm_id parses" valid_json "$tmp/out"
t "res show cm_id, other device" 0 "" "" -- res show cm_id "$a"
t "res show cm_id, other pid" 0 "" "" -- res show cm_id pid $$
kill $rping
wait $rping
t "res show cm_id, gone"  0 "" "" -- res show cm_id pid $rping

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
t "res gone"              1 "^rnic: no such rnic device\$" "" -- res show "$a"

echo "1..$n"
echo "# $((n - failed)) passed, $failed failed"
[ "$failed" = 0 ]
