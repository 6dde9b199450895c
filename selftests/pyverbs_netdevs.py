#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Run rdma-core's tests/run_tests.py with a device -> netdev map.

Usage: PYVERBS_NETDEVS="rnic0=pv1 rxe0=pv0" pyverbs_netdevs.py \
           tests/run_tests.py [ARG...]

rdma-core's test suite finds the IP address of the device under test
(tests.base, RDMATestCase._get_ip_mac) by listing the device's netdevs in
/sys/class/infiniband/DEV/device/net/: a PCI NIC has that directory, a
software device on a veth (rxe, rnic) does not, and every test that needs
an address (test_rdmacm, its RDMACMBaseTest) skips with "Device DEV doesn't
have net interface". This wrapper answers that one question for the
devices PYVERBS_NETDEVS names: for them, _get_ip_mac takes the netdev from
the map instead of sysfs, then reads its address and MAC as the suite does
(RDMATestCase.get_ip_mac_address, "ip -j addr show"). Devices not in the
map, and everything else in the suite, are left as they are; the test
code is not changed.

It runs run_tests.py as Python runs a script, after installing an import
hook that patches tests.base right after the suite loads it.
"""
import importlib.abc
import os
import runpy
import sys


def netdevs():
    """PYVERBS_NETDEVS as a dict, device name -> netdev name."""
    pairs = (w.split('=', 1) for w in
             os.environ.get('PYVERBS_NETDEVS', '').split() if '=' in w)
    return {dev: net for dev, net in pairs}


def patch(base, table):
    """Make base.RDMATestCase find the netdevs of table's devices."""
    cls = base.RDMATestCase
    sysfs_get_ip_mac = cls._get_ip_mac
    sysfs_get_net_name = cls.get_net_name

    def get_net_name(dev):
        return table[dev] if dev in table else sysfs_get_net_name(dev)

    def _get_ip_mac(self, dev, port, idx):
        if dev not in table:
            return sysfs_get_ip_mac(self, dev, port, idx)
        try:
            ip_addr, mac_addr = self.get_ip_mac_address(table[dev])
        except (KeyError, IndexError):
            ip_addr = mac_addr = None
        self.args.append([dev, port, idx, ip_addr, mac_addr])
        return None

    cls.get_net_name = staticmethod(get_net_name)
    cls._get_ip_mac = _get_ip_mac


class Hook(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds tests.base through the other finders and patches it."""

    def __init__(self, table):
        self.table = table
        self.loader = None

    def find_spec(self, name, path, target=None):
        if name != 'tests.base' or self.loader is not None:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, 'find_spec'):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None:
                self.loader = spec.loader
                spec.loader = self
                return spec
        return None

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module):
        self.loader.exec_module(module)
        patch(module, self.table)


def main():
    if len(sys.argv) < 2:
        sys.exit('usage: pyverbs_netdevs.py RUN_TESTS.PY [ARG...]')
    script = sys.argv[1]
    table = netdevs()
    if table:
        sys.meta_path.insert(0, Hook(table))
    sys.argv = sys.argv[1:]
    sys.path[0] = os.path.dirname(os.path.abspath(script))
    runpy.run_path(script, run_name='__main__')


if __name__ == '__main__':
    main()
