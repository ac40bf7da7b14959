#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz harnesses (tests/fuzz/<harness>/corpus/).

The seeds are small, valid inputs that reach deep into each entry point, so the fuzzer starts
from working exchanges and mutates them: an NVMe/TCP session from ICReq to reads, writes, R2T
+ H2CData, digests and a TermReq; SQEs for every command family; a target's answers to the
host queue; configurations; JSON-RPC requests; hostmem control lines; export descriptors.
Run it again after changing a wire format; the fuzzers add their own finds to a scratch corpus,
not here. Usage: tests/fuzz/make_seeds.py [--out tests/fuzz]
"""
import argparse
import json
import os
import struct

SUBNQN = b"nqn.2026-11.io.skiff:fuzz"
HOSTNQN = b"nqn.2014-08.org.nvmexpress:uuid:0f0e0d0c-0b0a-0908-0706-050403020100"
DISCNQN = b"nqn.2014-08.org.nvmexpress.discovery"


def crc32c(data):
    crc = 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


def sgl(addr=0, length=0, ident=0x01):
    return struct.pack("<QI3xB", addr, length, ident)


def sqe(opcode, cid=0, nsid=0, cdw10=0, cdw11=0, cdw12=0, cdw13=0, cdw14=0, cdw15=0, flags=0, dptr=None):
    return struct.pack("<BBHIIIQ", opcode, flags, cid, nsid, 0, 0, 0) + (dptr or sgl(0, 0, 0x5A)) + \
        struct.pack("<6I", cdw10, cdw11, cdw12, cdw13, cdw14, cdw15)


def connect_sqe(qid, sqsize, cid=0, kato=0, length=1024):
    return struct.pack("<BBHB19x", 0x7F, 0x40, cid, 0x01) + sgl(0, length, 0x01) + \
        struct.pack("<HHHBBI12x", 0, qid, sqsize, 0, 0, kato)


def property_sqe(set_, offset, value=0, cid=0, attrib=0):
    return struct.pack("<BBHB35xB3xIQ8x", 0x7F, 0x40, cid, 0x00 if set_ else 0x04, attrib, offset, value)


def connect_data(cntlid=0xFFFF, subnqn=SUBNQN):
    return bytes([0x5A] * 16) + struct.pack("<H", cntlid) + bytes(238) + subnqn.ljust(256, b"\0") + \
        HOSTNQN.ljust(256, b"\0") + bytes(256)


class TcpStream:
    """The host's side of an NVMe/TCP connection to the target."""

    def __init__(self, hdgst=False, ddgst=False):
        self.hdgst, self.ddgst = hdgst, ddgst
        self.out = b""

    def icreq(self, hpda=0, maxr2t=0):
        dgst = (1 if self.hdgst else 0) | (2 if self.ddgst else 0)
        self.out += struct.pack("<BBBBIHBBI112x", 0, 0, 128, 0, 128, 0, hpda, dgst, maxr2t)
        return self

    def pdu(self, ptype, header_rest, data=b"", flags=0):
        hlen = 8 + len(header_rest)
        hd = 4 if self.hdgst else 0
        pdo = 0
        dd = 4 if self.ddgst and data else 0
        if data:
            pdo = hlen + hd
        plen = hlen + hd + len(data) + dd
        flags |= (1 if self.hdgst else 0) | (2 if dd else 0)
        hdr = struct.pack("<BBBBI", ptype, flags, hlen, pdo, plen) + header_rest
        self.out += hdr
        if hd:
            self.out += struct.pack("<I", crc32c(hdr))
        self.out += data
        if dd:
            self.out += struct.pack("<I", crc32c(data))
        return self

    def capsule(self, cmd, data=b""):
        return self.pdu(0x04, cmd, data)

    def h2c(self, cid, ttag, offset, data, last=True):
        return self.pdu(0x06, struct.pack("<HHII4x", cid, ttag, offset, len(data)), data, 0x04 if last else 0)

    def term(self, fes=1):
        return self.pdu(0x02, struct.pack("<HI10x", fes, 0))

    def bring_up(self, subnqn=SUBNQN, qid=0, cntlid=0xFFFF, sqsize=None):
        if sqsize is None:
            sqsize = 7 if qid == 0 else 15
        self.icreq()
        self.capsule(connect_sqe(qid, sqsize, cid=1), connect_data(cntlid, subnqn))
        if qid == 0:
            self.capsule(property_sqe(True, 0x14, 1 | (6 << 16) | (4 << 20), cid=2))
        return self


def limits(icd=8192, mdts=16384, qd=16, admin_qd=8, zero_copy=32768):
    """The 6 limits bytes of tests/fuzz/fuzz_limits.hpp (defaults: FuzzTarget's limits)."""
    assert icd % 16 == 0 and icd <= 1 << 20 and 8192 <= mdts <= 1 << 20 and 2 <= qd <= 128 and 2 <= admin_qd <= 64
    icd_field = 0xFFFF if icd == 1 << 20 else icd // 16
    # XORed with the defaults' encoding (fuzz_limits.hpp), so zero bytes mean the defaults.
    return struct.pack("<HBBBB", icd_field ^ 512, (mdts.bit_length() - 14) ^ 1, (qd - 2) ^ 14, (admin_qd - 2) ^ 6,
                       {0: 0, 4096: 1, 32768: 2}[zero_copy] ^ 2)


def tcp_target_receive():
    seeds = {}
    split = b"\x01\x00"
    head = split + limits()
    seeds["icreq"] = head + TcpStream().icreq().out
    s = TcpStream().bring_up()
    s.capsule(sqe(0x06, cid=3, cdw10=1, dptr=sgl(0, 4096, 0x5A)))  # Identify controller
    s.capsule(sqe(0x06, cid=4, nsid=1, cdw10=0, dptr=sgl(0, 4096, 0x5A)))  # Identify namespace
    s.capsule(sqe(0x02, cid=5, nsid=0xFFFFFFFF, cdw10=0x02 | (127 << 16), dptr=sgl(0, 512, 0x5A)))  # SMART
    s.capsule(sqe(0x09, cid=6, cdw10=0x07, cdw11=0x00030003))  # Set Features Number of Queues
    s.capsule(sqe(0x0C, cid=7))  # AER
    s.capsule(sqe(0x18, cid=8))  # Keep Alive
    seeds["admin_session"] = head + s.out
    s = TcpStream().bring_up(cntlid=1, qid=1)
    s.capsule(sqe(0x01, cid=3, nsid=1, cdw12=1, dptr=sgl(0, 1024, 0x01)), bytes(range(256)) * 4)  # in-capsule write
    s.capsule(sqe(0x02, cid=4, nsid=1, cdw12=1, dptr=sgl(0, 1024, 0x5A)))  # read
    s.capsule(sqe(0x01, cid=5, nsid=1, cdw10=8, cdw12=15, dptr=sgl(0, 8192, 0x5A)))  # write by R2T
    s.h2c(5, 0, 0, b"\xab" * 4096, last=False).h2c(5, 0, 4096, b"\xcd" * 4096)
    s.capsule(sqe(0x00, cid=6, nsid=1))  # flush
    s.capsule(sqe(0x08, cid=7, nsid=1, cdw10=16, cdw12=7))  # write zeroes
    s.capsule(sqe(0x09, cid=8, nsid=1, cdw10=0, cdw11=4, dptr=sgl(0, 16, 0x01)), struct.pack("<IIQ", 0, 8, 32))  # DSM
    s.capsule(sqe(0x05, cid=9, nsid=1, cdw12=0, flags=1, dptr=sgl(0, 512, 0x01)), bytes(512))  # fused compare
    s.capsule(sqe(0x01, cid=10, nsid=1, cdw12=0, flags=2, dptr=sgl(0, 512, 0x01)), bytes(512))  # fused write
    seeds["io_queue"] = head + s.out
    s = TcpStream(hdgst=True, ddgst=True).bring_up()
    s.capsule(sqe(0x06, cid=3, cdw10=1, dptr=sgl(0, 4096, 0x5A)))
    seeds["digests"] = head + s.out
    s = TcpStream(hdgst=True, ddgst=True).bring_up(cntlid=1, qid=1)
    s.capsule(sqe(0x01, cid=3, nsid=2, cdw12=0, dptr=sgl(0, 4096, 0x01)), b"\x77" * 4096)
    s.capsule(sqe(0x01, cid=4, nsid=2, cdw10=1, cdw12=1, dptr=sgl(0, 8192, 0x5A)))
    s.h2c(4, 0, 0, b"\x11" * 8192)
    seeds["digests_io"] = head + s.out
    s = TcpStream().bring_up(subnqn=DISCNQN)
    s.capsule(sqe(0x02, cid=3, cdw10=0x70 | (255 << 16), dptr=sgl(0, 1024, 0x5A)))  # discovery log
    seeds["discovery"] = head + s.out
    s = TcpStream().bring_up()
    s.term()
    seeds["termreq"] = head + s.out
    # Byte at a time: the split seed with bit 31 set after the first step gives small chunks.
    seeds["admin_small_splits"] = b"\xff\xff" + limits() + TcpStream().bring_up().out
    # The smallest configuration: no in-capsule data, 8 KiB MDTS (the loader's smallest), queues
    # of 2. The Connect data (1024 bytes) exceeds the in-capsule size here.
    s = TcpStream().bring_up(sqsize=1)
    s.capsule(sqe(0x06, cid=3, cdw10=1, dptr=sgl(0, 4096, 0x5A)))
    seeds["limits_smallest"] = split + limits(icd=0, mdts=8192, qd=2, admin_qd=2, zero_copy=0) + s.out
    # Large transfers: 1 MiB MDTS, 64 KiB in-capsule, deep queues, zero-copy reads from 4 KiB; digests.
    big = limits(icd=65536, mdts=1 << 20, qd=128, admin_qd=64, zero_copy=4096)
    s = TcpStream(hdgst=True, ddgst=True).bring_up(cntlid=1, qid=1, sqsize=127)
    s.capsule(sqe(0x01, cid=3, nsid=2, cdw12=7, dptr=sgl(0, 32768, 0x01)), b"\x5c" * 32768)
    s.capsule(sqe(0x02, cid=4, nsid=2, cdw12=7, dptr=sgl(0, 32768, 0x5A)))  # a read sent from RAM
    s.capsule(sqe(0x01, cid=5, nsid=1, cdw12=255, dptr=sgl(0, 131072, 0x5A)))
    s.h2c(5, 0, 0, b"\x3a" * 65536, last=False).h2c(5, 0, 65536, b"\x3b" * 65536)
    seeds["limits_large_digests"] = split + big + s.out
    # In-capsule data larger than MDTS (the loader now refuses it; the target bounds it anyway).
    s = TcpStream().bring_up(cntlid=1, qid=1)
    s.capsule(sqe(0x01, cid=3, nsid=1, cdw12=15, dptr=sgl(0, 8192, 0x01)), b"\x42" * 8192)
    seeds["in_capsule_over_mdts"] = split + limits(icd=16384, mdts=8192) + s.out
    # Issue 36: in_capsule_data 1 MiB and MDTS 8 KiB (4 KiB in the issue; the loader now starts at
    # 8 KiB), ICReq, then a Connect capsule whose in-capsule SGL and data are 1 MiB (the connect
    # data, then zeroes). It overran the request's buffer before the fix.
    s = TcpStream().icreq()
    s.capsule(connect_sqe(0, 7, cid=1, length=1 << 20), connect_data().ljust(1 << 20, b"\0"))
    seeds["issue36_connect_1mib_in_capsule"] = split + limits(icd=1 << 20, mdts=8192) + s.out
    return seeds


def tcp_association():
    """Inputs of tcp_association.cpp: limits, set-up, then records the correct host sends."""
    def setup(hd=False, dd=False, hpda=0, sqfc_off=False, admin_r2t=False, io_r2t=False, admin_sq=7, io_sq=15, kato=0):
        opts = (1 if hd else 0) | (2 if dd else 0) | (hpda << 2) | (0x10 if sqfc_off else 0) | \
            (0x20 if admin_r2t else 0) | (0x40 if io_r2t else 0)
        return bytes([opts, admin_sq - 1, io_sq - 1, {0: 0, 500: 1, 3000: 2}[kato]])

    def cmd(opcode, io=False, flags=0, nsid=0, cdw=(0, 0, 0, 0, 0, 0), mode=0, length=0, fill=0, data=b""):
        ns = {0: b"\x00", 1: b"\x01", 2: b"\x02", 0xFFFFFFFF: b"\x03"}.get(nsid)
        if ns is None:
            ns = b"\x04" + struct.pack("<I", nsid)
        cdw = tuple(cdw) + (0,) * (6 - len(cdw))
        return bytes([1 if io else 0, opcode, flags]) + ns + struct.pack("<6I", *cdw) + \
            bytes([mode]) + struct.pack("<I", length) + bytes([fill, len(data)]) + data

    def keep_alive():
        return b"\x04"

    def pause(turns):
        return bytes([0x06, turns - 1])

    seeds = {}
    base = limits()
    admin = cmd(0x06, cdw=(1,), mode=2, length=4096)  # Identify controller
    admin += cmd(0x06, nsid=1, cdw=(0,), mode=2, length=4096)  # Identify namespace
    admin += cmd(0x02, nsid=0xFFFFFFFF, cdw=(0x02 | (127 << 16),), mode=2, length=512)  # SMART log
    admin += cmd(0x09, cdw=(0x07, 0x00030003))  # Set Features Number of Queues
    admin += cmd(0x0A, cdw=(0x07,))  # Get Features
    admin += cmd(0x0C) + cmd(0x0C)  # two AERs: they may wait
    admin += keep_alive() + pause(8)
    admin += cmd(0x7F, nsid=0x04, cdw=(0, 0x08))  # Property Get VS (fctype in byte 4, offset in CDW11)
    seeds["admin_commands"] = base + setup() + admin
    io = cmd(0x01, io=True, nsid=1, cdw=(0, 0, 1), mode=1, length=1024, fill=0x42)  # in-capsule write
    io += cmd(0x02, io=True, nsid=1, cdw=(0, 0, 1), mode=2, length=1024)  # read (C2HData)
    io += cmd(0x01, io=True, nsid=1, cdw=(8, 0, 15), mode=2, length=8192, fill=0xAB)  # write by R2T
    io += cmd(0x00, io=True, nsid=1)  # flush
    io += cmd(0x08, io=True, nsid=2, cdw=(1, 0, 1))  # write zeroes
    io += cmd(0x09, io=True, nsid=1, cdw=(0, 4), mode=1, length=16, data=struct.pack("<IIQ", 0, 8, 32))  # DSM
    io += cmd(0x05, io=True, flags=1, nsid=1, mode=1, length=512)  # fused compare
    io += cmd(0x01, io=True, flags=2, nsid=1, mode=1, length=512, fill=0x11)  # fused write
    io += cmd(0x0D, io=True, nsid=1, mode=1, length=24, data=bytes(8) + struct.pack("<Q", 0x1234) + bytes(8))  # resv register
    io += cmd(0x0E, io=True, nsid=1, cdw=(1023,), mode=2, length=4096)  # resv report
    seeds["io_commands"] = base + setup() + io
    seeds["digests_sqfc_off"] = base + setup(hd=True, dd=True, hpda=1, sqfc_off=True) + io + admin
    seeds["connect_by_r2t"] = base + setup(admin_r2t=True, io_r2t=True) + io
    # Keep-alive: a 500 ms KATO and pauses longer than that; the host keeps the association alive.
    seeds["keep_alive"] = base + setup(kato=500) + pause(64) + io + pause(64) + pause(64) + admin
    # The smallest configuration: no in-capsule data, 8 KiB MDTS, queues of 2 (Connect data by R2T:
    # see regressions/admin-connect-in-capsule-icd0 for the in-capsule Connect).
    seeds["limits_smallest"] = limits(icd=0, mdts=8192, qd=2, admin_qd=2, zero_copy=0) + \
        setup(admin_sq=1, io_sq=1, admin_r2t=True, io_r2t=True) + io
    # The largest: 1 MiB MDTS and in-capsule data, deep queues, zero-copy reads from 4 KiB.
    big = limits(icd=1 << 20, mdts=1 << 20, qd=128, admin_qd=64, zero_copy=4096)
    large = cmd(0x01, io=True, nsid=2, cdw=(0, 0, 63), mode=1, length=262144, fill=0x5C)
    large += cmd(0x02, io=True, nsid=2, cdw=(0, 0, 63), mode=2, length=262144)
    large += cmd(0x01, io=True, nsid=1, cdw=(0, 0, 2047), mode=2, length=1 << 20, fill=0x3A)
    seeds["limits_large"] = big + setup(hd=True, dd=True, admin_sq=63, io_sq=127) + large
    # Issue 36's limits (in-capsule 1 MiB; MDTS 8 KiB, the loader's smallest): the host keeps to
    # the advertised IOCCSZ.
    seeds["issue36_limits"] = limits(icd=1 << 20, mdts=8192) + setup() + io
    # A lone fused first half at the end may wait; one followed by another command may not.
    seeds["fused_first_alone"] = base + setup() + cmd(0x05, io=True, flags=1, nsid=1, mode=1, length=512) + \
        cmd(0x02, io=True, nsid=1, mode=2, length=512) + cmd(0x05, io=True, flags=1, nsid=1, mode=1, length=512)
    # Controller reset with commands in flight, then Disconnect of the I/O queue.
    reset = cmd(0x0C) + cmd(0x7F, nsid=0x00, cdw=(0, 0x14, 0, 0))  # AER, Property Set CC = 0
    seeds["reset"] = base + setup() + io + reset
    seeds["disconnect"] = base + setup() + io + cmd(0x7F, io=True, nsid=0x08)
    return seeds


def tcp_association_regressions():
    """Inputs that failed tcp_association before their bugs were fixed (tests/fuzz/README.md, "Bugs
    found so far"), written into tcp_association/regressions/, which every test run replays."""
    base_setup = bytes([0, 6, 14, 0])  # no digests, admin SQSIZE 7, I/O SQSIZE 15, no KATO
    identify = bytes([0, 0x06, 0x40, 0]) + struct.pack("<6I", 1, 0, 0, 0, 0, 0) + bytes([2]) + \
        struct.pack("<I", 4096) + bytes([0, 0])
    aer = bytes([0, 0x0C, 0x40, 0]) + bytes(24) + bytes([0]) + struct.pack("<I", 0) + bytes([0, 0])
    return {
        # in_capsule_data_size 0: the admin Connect's 1024 bytes of data, in the capsule as Linux
        # sends them (NVMe/TCP admin queues take 8 KiB), end the connection with a C2HTermReq.
        "admin-connect-in-capsule-icd0": limits(icd=0) + base_setup,
        # max_queue_depth 2, admin queue of 8 entries: the third admin command in flight (two
        # AERs and an Identify) ends the connection with a C2HTermReq (PDU sequence error).
        "admin-entries-over-queue-depth": limits(qd=2, admin_qd=32) + bytes([0, 6, 0, 0]) + aer + aer +
        identify,
    }


def command_execution():
    def cmd(s, data=b""):
        return s + struct.pack("<H", len(data)) + data

    seeds = {}
    admin = b"\x00"
    for cns in (0, 1, 2, 3, 0x10, 0x11, 0x13):
        admin += cmd(sqe(0x06, cid=cns, nsid=1 if cns in (0, 3, 0x11) else 0, cdw10=cns, dptr=sgl(0, 4096, 0x5A)))
    for lid in (1, 2, 3, 4, 5, 0x0C, 0x80, 0x81):
        admin += cmd(sqe(0x02, cid=0x100 + lid, nsid=0xFFFFFFFF, cdw10=lid | (127 << 16), dptr=sgl(0, 512, 0x5A)))
    for fid in (1, 2, 4, 5, 6, 7, 8, 0x0B, 0x0F, 0x80, 0x81, 0x82, 0x83):
        admin += cmd(sqe(0x0A, cid=0x200 + fid, nsid=1, cdw10=fid, dptr=sgl(0, 512, 0x5A)))
        admin += cmd(sqe(0x09, cid=0x300 + fid, nsid=1, cdw10=fid, cdw11=3, dptr=sgl(0, 512, 0x5A)))
    admin += cmd(sqe(0x0C, cid=0x400))
    admin += cmd(sqe(0x18, cid=0x401))
    admin += cmd(property_sqe(False, 0x00, cid=0x402, attrib=1))
    admin += cmd(property_sqe(False, 0x1C, cid=0x403))
    admin += cmd(sqe(0x08, cid=0x404, cdw10=0x0C))  # abort
    seeds["admin"] = admin
    io = b"\x01"
    io += cmd(sqe(0x01, cid=1, nsid=1, cdw12=1, dptr=sgl(0, 1024, 0x01)), b"\x42" * 1024)
    io += cmd(sqe(0x02, cid=2, nsid=1, cdw12=1, dptr=sgl(0, 1024, 0x5A)))
    io += cmd(sqe(0x00, cid=3, nsid=1))
    io += cmd(sqe(0x08, cid=4, nsid=2, cdw10=1, cdw12=1))
    io += cmd(sqe(0x09, cid=5, nsid=1, cdw11=4, dptr=sgl(0, 16, 0x01)), struct.pack("<IIQ", 0, 8, 32))
    io += cmd(sqe(0x05, cid=6, nsid=1, flags=1, dptr=sgl(0, 512, 0x01)), b"\x42" * 512)
    io += cmd(sqe(0x01, cid=7, nsid=1, flags=2, dptr=sgl(0, 512, 0x01)), b"\x43" * 512)
    io += cmd(sqe(0x0D, cid=8, nsid=1, cdw10=0, dptr=sgl(0, 24, 0x01)), bytes(8) + struct.pack("<Q", 0x1234) + bytes(8))  # resv register
    io += cmd(sqe(0x0E, cid=9, nsid=1, cdw10=0x8 | 0x100, dptr=sgl(0, 4096, 0x5A)))  # resv report
    io += cmd(sqe(0x11, cid=10, nsid=1, cdw10=1, dptr=sgl(0, 16, 0x01)), struct.pack("<QQ", 0x1234, 0))  # acquire
    io += cmd(sqe(0x15, cid=11, nsid=1, dptr=sgl(0, 8, 0x01)), struct.pack("<Q", 0x1234))  # release
    io += cmd(sqe(0x04, cid=12, nsid=1, cdw12=3))  # write uncorrectable
    io += cmd(sqe(0x01, cid=13, nsid=1, cdw12=0, cdw10=0xFFFFFFF0, dptr=sgl(0, 512, 0x01)), bytes(512))
    seeds["io"] = io
    disc = b"\x02"
    disc += cmd(sqe(0x06, cid=1, cdw10=1, dptr=sgl(0, 4096, 0x5A)))
    disc += cmd(sqe(0x02, cid=2, cdw10=0x70 | (255 << 16), dptr=sgl(0, 1024, 0x5A)))
    disc += cmd(sqe(0x02, cid=3, cdw10=0x70 | (3 << 16), cdw12=16, dptr=sgl(0, 16, 0x5A)))
    disc += cmd(sqe(0x0A, cid=4, cdw10=0x0F))
    disc += cmd(sqe(0x0C, cid=5))
    seeds["discovery"] = disc
    raw = b"\x03" + cmd(connect_sqe(0, 31, cid=1), connect_data()) + cmd(property_sqe(False, 0x08, cid=2))
    raw += cmd(connect_sqe(1, 15, cid=3), connect_data(1))
    seeds["unconnected"] = raw
    return seeds


def host_rx_stream():
    def icresp(cpda=0, dgst=0, maxh2c=131072):
        return struct.pack("<BBBBIHBBI112x", 1, 0, 128, 0, 128, 0, cpda, dgst, maxh2c)

    def resp(cid, status=0, hd=False):
        hdr = struct.pack("<BBBBIQHHHH", 5, 1 if hd else 0, 24, 0, 28 if hd else 24, 0, 0, 0, cid, status)
        return hdr + (struct.pack("<I", crc32c(hdr)) if hd else b"")

    def c2h(cid, data, offset=0, last=True, success=False, hd=False, dd=False):
        flags = (4 if last else 0) | (8 if success else 0) | (1 if hd else 0) | (2 if dd else 0)
        pdo = 24 + (4 if hd else 0)
        plen = pdo + len(data) + (4 if dd else 0)
        hdr = struct.pack("<BBBBIHHII4x", 7, flags, 24, pdo, plen, cid, 0, offset, len(data))
        out = hdr + (struct.pack("<I", crc32c(hdr)) if hd else b"") + data
        return out + (struct.pack("<I", crc32c(data)) if dd else b"")

    def r2t(cid, ttag, offset, length):
        return struct.pack("<BBBBIHHII4x", 9, 0, 24, 0, 24, cid, ttag, offset, length)

    seeds = {}
    # CIDs: the harness submits a read (cid 0), a write (cid 1) and a flush (cid 2).
    seeds["plain"] = b"\x00" + icresp() + c2h(0, b"\x5a" * 12288) + resp(0) + r2t(1, 3, 0, 10240) + resp(1) + resp(2)
    seeds["success_flag"] = b"\x00" + icresp() + c2h(0, b"\x01" * 6144, last=False) + \
        c2h(0, b"\x02" * 6144, offset=6144, success=True) + resp(2) + resp(1, status=0x4)
    seeds["digests"] = b"\x03" + icresp(dgst=3) + c2h(0, b"\x33" * 12288, hd=True, dd=True) + resp(0, hd=True) + \
        resp(1, hd=True) + resp(2, hd=True)
    seeds["in_capsule"] = b"\x20" + icresp() + resp(1) + resp(2) + c2h(0, b"\x44" * 12288, success=True)
    seeds["termreq"] = b"\x00" + icresp() + struct.pack("<BBBBIHI10x", 3, 0, 24, 0, 24, 2, 0)
    seeds["hpda"] = b"\x0c" + icresp(cpda=3) + struct.pack("<BBBBIHHII4x", 7, 4, 24, 32, 32 + 12288, 0, 0, 0, 12288) + \
        bytes(8) + b"\x66" * 12288 + resp(0) + resp(1) + resp(2)
    return seeds


def config_loader():
    seeds = {}
    for name in sorted(os.listdir(os.path.join(ROOT, "config", "examples"))):
        if name.endswith(".json"):
            with open(os.path.join(ROOT, "config", "examples", name), "rb") as f:
                seeds["skiff_" + name[:-5]] = b"\x00" + f.read()
    nvmetcli = {
        "hosts": [{"nqn": HOSTNQN.decode()}],
        "ports": [{"addr": {"adrfam": "ipv4", "traddr": "127.0.0.1", "trsvcid": "4420", "trtype": "tcp",
                            "treq": "not specified"}, "portid": 1, "referrals": [],
                   "subsystems": [SUBNQN.decode()], "param": {"inline_data_size": "16384"}},
                  {"addr": {"adrfam": "ipv4", "traddr": "127.0.0.1", "trsvcid": "4421", "trtype": "tcp",
                            "tsas": "tls1.3", "treq": "not required"}, "portid": 2, "referrals": [],
                   "subsystems": [SUBNQN.decode()]}],
        "subsystems": [{"nqn": SUBNQN.decode(), "allowed_hosts": [HOSTNQN.decode()],
                        "attr": {"allow_any_host": "0", "serial": "abcdef0123", "model": "fuzz", "version": "1.3"},
                        "namespaces": [{"nsid": 1, "enable": 1,
                                        "device": {"path": "/dev/nullb0", "nguid": "00000000-0000-0000-0000-000000000000",
                                                   "uuid": "8f2f8a0e-6e1a-4a3e-9b7c-1f2e3d4c5b6a"}}]}],
    }
    seeds["nvmetcli"] = b"\x01" + json.dumps(nvmetcli, indent=2).encode()
    return seeds


def management_rpc():
    def req(method, params=None, id_=1):
        r = {"jsonrpc": "2.0", "method": method, "id": id_}
        if params is not None:
            r["params"] = params
        return json.dumps(r).encode()

    nqn = "nqn.2026-11.io.skiff:fuzz-rpc"
    seeds = {}
    seeds["list"] = req("list") + b"\n" + req("controllers", id_=2)
    seeds["namespace"] = req("namespace.add", {"nqn": nqn, "namespace": {"nsid": 2},
                                              "backend": {"name": "n2", "kind": "null", "size": "1MiB"}}) + b"\n" + \
        req("namespace.remove", {"nqn": nqn, "nsid": 2}, 2)
    seeds["subsystem"] = req("subsystem.add", {"subsystem": {"nqn": nqn + "-2", "namespaces": [{"nsid": 1, "backend": "r2"}]}}) + \
        b"\n" + req("subsystem.remove", {"nqn": nqn + "-2"}, 2)
    seeds["error_inject"] = req("backend.add", {"backend": {"name": "e1", "kind": "error", "base": {"kind": "ram", "size": "1MiB"}}}) + b"\n" + \
        req("error.inject", {"backend": "e1", "op": "read", "count": 2, "status": 641}, 2)
    seeds["reload"] = req("reload") + b"\n" + req("config.apply", {"config": {"backends": []}}, 2)
    seeds["bad"] = b"{\"jsonrpc\": 2}\n[1,2]\nnot json\n" + req("nope", id_="x")
    host = "nqn.2014-08.org.nvmexpress:uuid:7a6b1b0e-3c7e-4d5f-9c0a-00000000000a"
    seeds["host_secrets"] = req("host.add", {"nqn": nqn, "host": host,
                                             "dhchap_key": "DHHC-1:01:WulleCBkG4oCs0iIC3Cit9gBDCLWiZ9PNXuhqytWkBIZkvGy:"}) + \
        b"\n" + req("host.add", {"nqn": nqn, "host": host, "per_subsystem": True,
                                "tls_psk": "NVMeTLSkey-1:01:VRLbtnN9AQb2WXW3c9+wEf/DRLz0QuLdbYvEhwtdWwNf9LrZ:"}, 2) + \
        b"\n" + req("list", id_=3) + b"\n" + req("host.remove", {"nqn": nqn, "host": host}, 4)
    return seeds


def hostmem_control():
    def msg(b):
        return struct.pack("<H", len(b)) + b

    line = b"EXPORT " + (b"%02x" % 7) * 160 + b" 140737488355328 8388608 1"
    seeds = {}
    seeds["export"] = msg(b"." + line)
    seeds["fragments"] = msg(b"+" + line[:100]) + msg(b"+" + line[100:200]) + msg(b"." + line[200:])
    seeds["revoked"] = msg(b".REVOKED 1") + msg(b".HELLO")
    return seeds


def rdma_cm_private_data():
    seeds = {}
    limits = bytes([8, 63, 31, 31, 16])  # initiator depth, max I/O queues, admin depth, io depth/4, max_wr/16
    seeds["admin"] = limits + struct.pack("<HHHHH22x", 0, 0, 32, 31, 0xFFFF)
    seeds["io"] = limits + struct.pack("<HHHHH22x", 0, 1, 128, 127, 1)
    seeds["short"] = limits + struct.pack("<HHHH", 0, 1, 32, 31)
    seeds["capsule"] = limits + sqe(0x01, cid=1, nsid=1, cdw12=0, dptr=sgl(0, 512, 0x01)) + bytes(512)
    seeds["keyed"] = limits + sqe(0x02, cid=1, nsid=1, cdw12=0, dptr=struct.pack("<Q", 0x10000) + (512).to_bytes(3, "little") + struct.pack("<IB", 0x1234, 0x40))
    return seeds


def rdma_capsule_intake():
    # [depth - 1][in-capsule size index][MDTS index], then ops: 0x00 + u32 byte count + SQE is an
    # arrival, 0x01 a response SEND completing. Index 5 is 64 KiB in-capsule, MDTS index 2 128 KiB.
    def arrive(n, cmd):
        return b"\x00" + struct.pack("<I", n) + cmd

    seeds = {}
    get_log = sqe(0x02, cid=1, nsid=0xFFFFFFFF, cdw10=(1023 << 16) | 0x01, dptr=sgl(0, 4096, 0x01))
    past_end = sqe(0x02, cid=2, nsid=0xFFFFFFFF, cdw10=(1023 << 16) | 0x01, dptr=sgl(65000, 4096, 0x01))
    write = sqe(0x01, cid=3, nsid=1, cdw12=7, dptr=sgl(0, 4096, 0x01))
    # One slot: the second 64 KiB capsule waits in the backlog and is planned on replay.
    seeds["backlog_64k"] = bytes([0, 5, 2]) + arrive(65536, get_log) + arrive(65536, past_end) + b"\x01" + arrive(4096, write) + b"\x01\x01"
    seeds["one_mib_capsules"] = bytes([1, 7, 3]) + arrive(1 << 20, write) + arrive(1 << 20, past_end) + arrive(70000, get_log) + b"\x01\x03\x01"
    seeds["keyed"] = bytes([3, 2, 0]) + arrive(0, sqe(0x02, cid=1, nsid=1, cdw12=0, dptr=struct.pack("<Q", 0x10000) + (512).to_bytes(3, "little") + struct.pack("<IB", 0x1234, 0x40)))
    seeds["in_capsule_over_mdts"] = bytes([0, 4, 0]) + arrive(65472, sqe(0x01, cid=4, nsid=1, cdw12=15, dptr=sgl(0, 8192, 0x01)))
    return seeds


def tls_client_hello():
    """TLS 1.3 ClientHellos as a Linux host (tlshd) or skiff's initiator send them: PSK only, the
    pre_shared_key extension last, one or two identities with their binders."""
    def ext(kind, body):
        return struct.pack(">HH", kind, len(body)) + body

    def hello(identities, binder_len=32, cipher=b"\x13\x01"):
        ids = b"".join(struct.pack(">H", len(i)) + i + struct.pack(">I", 0) for i in identities)
        binders = b"".join(bytes([binder_len]) + bytes([0xB0 + n]) * binder_len for n in range(len(identities)))
        psk = struct.pack(">H", len(ids)) + ids + struct.pack(">H", len(binders)) + binders
        exts = (ext(43, b"\x02\x03\x04") + ext(45, b"\x01\x01") + ext(10, b"\x00\x02\x00\x1d")
                + ext(51, b"\x00\x24\x00\x1d\x00\x20" + bytes(range(32))) + ext(41, psk))
        body = (b"\x03\x03" + bytes(range(32)) + b"\x20" + bytes(32) + struct.pack(">H", len(cipher)) + cipher
                + b"\x01\x00" + struct.pack(">H", len(exts)) + exts)
        return b"\x01" + len(body).to_bytes(3, "big") + body

    ident = b"NVMe0R01 " + HOSTNQN + b" " + SUBNQN
    seeds = {}
    # A real one: what `openssl s_client -tls1_3 -ciphersuites TLS_AES_128_GCM_SHA256
    # -psk_identity "<ident>" -psk 000102...1f` sent (captured 2026-11-29, OpenSSL 3.0).
    seeds["openssl-s_client"] = b"\x00\x00" + bytes.fromhex(
        "0100016a03031176e27db4bca155de018eb1a90ff6a6517b96abb8dfda4e666d371b89cc1e08204984c4314e663e47e9"
        "cd7dbcea8b4e1a30cbda1ff98d48c56869a55466a5ab890004130100ff0100011d000b000403000102000a0016001400"
        "1d0017001e0019001801000101010201030104002300000016000000170000000d001e001c0403050306030807080808"
        "09080a080b080408050806040105010601002b0003020304002d00020101003300260024001d0020ea420af242ca9cac"
        "a7f1e2d63cb24c72c00d36b0d99a934c6d4f5be16517156000290092006d00674e564d6530523031206e716e2e323031"
        "342d30382e6f72672e6e766d657870726573733a757569643a30663065306430632d306230612d303930382d30373036"
        "2d303530343033303230313030206e716e2e323032362d31312e696f2e736b6966663a66757a7a00000000002120781f"
        "6945c0a441e8f80d42b06d167b94286cc388d7c417e9439cc57fab74e61e")
    seeds["sha256-v0"] = b"\x00\x00" + hello([ident])
    seeds["sha384-v0"] = b"\x00\x01" + hello([ident.replace(b"R01", b"R02")], 48, b"\x13\x02")
    seeds["second-identity"] = b"\x01\x00" + hello([b"NVMe1R01 " + HOSTNQN + b" " + SUBNQN + b" " + b"A" * 44, ident])
    return seeds


def mmap_export():
    seeds = {}
    seeds["genuine"] = b"\x01"  # the genuine descriptor, unchanged
    seeds["flip_len"] = b"\x01" + bytes(40) + b"\x01"
    seeds["raw"] = b"\x00" + bytes(160)
    return seeds


ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
HARNESSES = {
    "tcp_target_receive": tcp_target_receive,
    "tcp_association": tcp_association,
    "command_execution": command_execution,
    "host_rx_stream": host_rx_stream,
    "config_loader": config_loader,
    "management_rpc": management_rpc,
    "hostmem_control": hostmem_control,
    "rdma_cm_private_data": rdma_cm_private_data,
    "rdma_capsule_intake": rdma_capsule_intake,
    "mmap_export": mmap_export,
    "tls_client_hello": tls_client_hello,
}

if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=os.path.join(ROOT, "tests", "fuzz"))
    ap.add_argument("harness", nargs="*", help="only these (default: all)")
    args = ap.parse_args()
    if not args.harness or "tcp_association" in args.harness:
        d = os.path.join(args.out, "tcp_association", "regressions")
        os.makedirs(d, exist_ok=True)
        for name, data in tcp_association_regressions().items():
            with open(os.path.join(d, name), "wb") as f:
                f.write(data)
    for name in args.harness or HARNESSES:
        d = os.path.join(args.out, name, "corpus")
        os.makedirs(d, exist_ok=True)
        for seed, data in HARNESSES[name]().items():
            with open(os.path.join(d, seed), "wb") as f:
                f.write(data)
        print(f"{name}: {len(os.listdir(d))} seeds in {d}")
