#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check the ICRC of every RoCEv2 packet of a classic pcap capture.

Usage: roce_icrc.py CAPTURE [--src ADDR] [--flip N]

Wireshark 4.0's InfiniBand dissector shows a RoCEv2 packet's ICRC
(infiniband.invariant.crc) but never checks it: it has no status field
and no expert item for a bad one. So this script recomputes it, as IBTA
Annex A17 defines it: CRC-32 over eight 0xff bytes (the masked LRH), the
IP header with its variant fields set to ones (IPv4 TOS, TTL, checksum;
IPv6 traffic class, flow label, hop limit), the UDP header with its
checksum set to ones, the BTH with its reserved byte 4 set to ones, and
the rest of the packet up to the ICRC, which is stored least significant
byte first.

For each UDP packet to port 4791 (from ADDR only, with --src) it prints
"icrc FRAME SRC good" or "icrc FRAME SRC bad want=... have=...", then
"icrc-summary GOOD BAD". Exit status 1 if any ICRC is bad or no RoCEv2
packet was found. --flip N first flips the last payload byte before the
ICRC of the N-th (1-based) RoCEv2 packet that --src selects and writes the
capture back, which proves the check can fail.
"""
import ipaddress
import struct
import sys
import zlib

ROCE_PORT = 4791
ETH_P_IP = 0x0800
ETH_P_IPV6 = 0x86DD
BTH_LEN = 12


def records(data):
    """(offset of packet bytes, length) of every record of a pcap file."""
    magic = struct.unpack_from("<I", data, 0)[0]
    if magic not in (0xA1B2C3D4, 0xA1B23C4D):
        raise SystemExit("roce_icrc: not a little-endian classic pcap file")
    linktype = struct.unpack_from("<I", data, 20)[0]
    if linktype != 1:
        raise SystemExit("roce_icrc: link type %d, not Ethernet" % linktype)
    off = 24
    while off + 16 <= len(data):
        incl, orig = struct.unpack_from("<II", data, off + 8)
        if incl != orig:
            raise SystemExit("roce_icrc: truncated capture (use -s 0)")
        yield off + 16, incl
        off += 16 + incl


def roce(pkt):
    """(source address, masked IP+UDP header, RoCE part) or None."""
    if len(pkt) < 14:
        return None
    (ethertype,) = struct.unpack_from("!H", pkt, 12)
    l3 = pkt[14:]
    if ethertype == ETH_P_IP and len(l3) >= 20:
        ihl = (l3[0] & 0xF) * 4
        if l3[9] != 17 or len(l3) < ihl + 8:
            return None
        (total,) = struct.unpack_from("!H", l3, 2)
        l3 = l3[:total]
        ip = bytearray(l3[:ihl])
        ip[1] = 0xFF                     # TOS
        ip[8] = 0xFF                     # TTL
        ip[10:12] = b"\xff\xff"          # header checksum
        src = str(ipaddress.IPv4Address(bytes(l3[12:16])))
        rest = l3[ihl:]
    elif ethertype == ETH_P_IPV6 and len(l3) >= 48:
        if l3[6] != 17:
            return None
        (plen,) = struct.unpack_from("!H", l3, 4)
        l3 = l3[:40 + plen]
        ip = bytearray(l3[:40])
        ip[0] |= 0x0F                    # traffic class ...
        ip[1:4] = b"\xff\xff\xff"        # ... and flow label
        ip[7] = 0xFF                     # hop limit
        src = str(ipaddress.IPv6Address(bytes(l3[8:24])))
        rest = l3[40:]
    else:
        return None
    (dport,) = struct.unpack_from("!H", rest, 2)
    if dport != ROCE_PORT or len(rest) < 8 + BTH_LEN + 4:
        return None
    udp = bytearray(rest[:8])
    udp[6:8] = b"\xff\xff"               # UDP checksum
    return src, bytes(ip) + bytes(udp), rest[8:]


def icrc(hdr, ib):
    """The ICRC over the masked headers and the RoCE part without its ICRC."""
    bth = bytearray(ib[:BTH_LEN])
    bth[4] = 0xFF                        # resv8a
    body = b"\xff" * 8 + hdr + bytes(bth) + bytes(ib[BTH_LEN:-4])
    return zlib.crc32(body) & 0xFFFFFFFF


def main(argv):
    path, src_only, flip = argv[1], None, 0
    args = argv[2:]
    while args:
        if args[0] == "--src":
            src_only = args[1]
        elif args[0] == "--flip":
            flip = int(args[1])
        else:
            raise SystemExit(__doc__)
        args = args[2:]
    data = bytearray(open(path, "rb").read())
    good = bad = seen = frame = 0
    for off, length in records(data):
        frame += 1
        found = roce(bytes(data[off:off + length]))
        if not found or (src_only and found[0] != src_only):
            continue
        seen += 1
        src, hdr, ib = found
        if seen == flip:
            # the last byte before the ICRC, inside the packet's bytes
            end = off + 14 + len(hdr) + len(ib) - 4 - 1
            data[end] ^= 0x5A
            open(path, "wb").write(data)
            ib = roce(bytes(data[off:off + length]))[2]
        want = icrc(hdr, ib)
        (have,) = struct.unpack_from("<I", ib, len(ib) - 4)
        if want == have:
            good += 1
            print("icrc %d %s good" % (frame, src))
        else:
            bad += 1
            print("icrc %d %s bad want=0x%08x have=0x%08x" %
                  (frame, src, want, have))
    print("icrc-summary %d %d" % (good, bad))
    return 1 if bad or not good else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
