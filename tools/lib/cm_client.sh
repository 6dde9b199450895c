# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# The client half of a pair of programs that connect through a
# connection manager, for the tools' VM tests, sourced as
# . "$(dirname "$0")/../../lib/cm_client.sh". Such a server has no TCP
# socket to wait for, and a client that comes before it listens is
# refused (REJECTED, no such service): the client is tried again.

# cm_client COMMAND...: the client of the server whose pid is $spid, its
# output in $tmp/client.out and $tmp/client.err, its status in $crc; run
# again (50 times at most, 0.2 s apart) while it fails and the server
# lives
cm_client() {
	cm_try=0
	while :; do
		timeout 120 "$@" >"$tmp/client.out" 2>"$tmp/client.err"
		crc=$?
		[ $crc -ne 0 ] && [ $cm_try -lt 50 ] &&
			kill -0 "$spid" 2>/dev/null || break
		cm_try=$((cm_try + 1))
		sleep 0.2
	done
}
