# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# The client half of a pair of programs that connect through a
# connection manager, for the tools' VM tests, sourced as
# . "$(dirname "$0")/../../lib/cm_client.sh". Such a server has no TCP
# socket to wait for: the client starts once the server's CM id listens
# (rnic res show cm_id). A client that came before would be refused (no
# such service); trying it again is no cure, since a client of several
# connections may have had some accepted, and the server counts them.

# cm_listening PORT: a CM id of this network namespace listens on PORT,
# one of rnic's (rnic res show cm_id) or of the kernel's rdma_cm (rdma
# resource show cm_id; both print "state LISTEN ... src-addr ADDR:PORT")
cm_listening() {
	{ rnic res show cm_id; rdma resource show cm_id; } 2>/dev/null |
		grep -q "state LISTEN .*src-addr [^ ]*:$1\( \|\$\)"
}

# cm_client PORT COMMAND...: once the server whose pid is $spid listens
# on PORT, the client COMMAND, its output in $tmp/client.out and
# $tmp/client.err, its status in $crc. A server that does not listen
# within 30 s, or ends first, fails the pair without a client (status
# 125, the reason in client.err).
cm_client() {
	cm_wait_port=$1
	shift
	cm_deadline=$(($(date +%s) + 30))
	until cm_listening "$cm_wait_port"; do
		if ! kill -0 "$spid" 2>/dev/null ||
			[ "$(date +%s)" -ge $cm_deadline ]; then
			echo "no CM id listened on port $cm_wait_port" \
				>"$tmp/client.err"
			: >"$tmp/client.out"
			crc=125
			return
		fi
		sleep 0.1
	done
	timeout 120 "$@" >"$tmp/client.out" 2>"$tmp/client.err"
	crc=$?
}
