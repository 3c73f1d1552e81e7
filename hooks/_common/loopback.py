"""Who owns the sockets of a loopback TCP port: the uid the kernel keeps for each socket (Linux),
asked by its addresses over netlink (``sock_diag``, ~20 µs) or read from ``/proc/net/tcp`` and
``/proc/net/tcp6`` (~5 ms on the development VM: the kernel prints every socket of the host).

    peer_uid(sock)        the uid of the client end of an accepted connection, or None
    listener_uids(port)   the uids of the sockets listening where 127.0.0.1:port connects
    supported()           whether this kernel lists them

``hookmux serve`` closes a connection whose client is another user's before it reads a byte;
the SessionStart hook (hooks/_serve/ensure.py) checks who listens on the wired port before it
sends the secret there. Standard library only; the CLI loads it through ``hookmux.resources``.
"""
import os
import socket
import struct

TABLES = ("/proc/net/tcp", "/proc/net/tcp6")
LISTEN, TIME_WAIT = b"0A", b"06"  # a socket in TIME_WAIT is listed with uid 0: no owner


def supported():
    return os.path.exists(TABLES[0])


def _words(packed):
    """An address as the kernel prints it: each 32-bit word in host byte order, in hex."""
    return b"".join(b"%08X" % struct.unpack("=I", packed[at:at + 4])[0] for at in range(0, len(packed), 4))


def _forms(host):
    """``host`` (a text address) as printed in /proc/net/tcp and in /proc/net/tcp6."""
    try:
        v4 = socket.inet_pton(socket.AF_INET, host)
    except OSError:
        return None, _words(socket.inet_pton(socket.AF_INET6, host))
    return _words(v4), _words(b"\0" * 10 + b"\xff\xff" + v4)


def _read(table):
    try:
        with open(table, "rb") as handle:
            return handle.read()
    except OSError:
        return b""


def _rows(data):
    for line in data.splitlines()[1:]:
        parts = line.split()
        if len(parts) > 7:
            yield parts


def peer_uid(sock):
    """The uid owning the other end of the connected loopback socket ``sock``, or None (not
    listed: it is gone, or this kernel lists nothing)."""
    peer_host, peer_port = sock.getpeername()[:2]
    own_host, own_port = sock.getsockname()[:2]
    try:
        return _diag_uid(peer_host, peer_port, own_host, own_port)
    except (OSError, ValueError, struct.error, AttributeError):  # no sock_diag here: the table
        return _table_uid(peer_host, peer_port, own_host, own_port)


SOCK_DIAG_BY_FAMILY, NETLINK_SOCK_DIAG, NLMSG_ERROR = 20, 4, 2


def _diag_uid(peer_host, peer_port, own_host, own_port):
    """The uid of the socket whose own end is (peer_host, peer_port) and whose other end is ours,
    by an exact ``sock_diag`` lookup: IPv4 first, then as an IPv6 socket (``::ffff:a.b.c.d``)."""
    tries = [(socket.AF_INET, peer_host, own_host)]
    if ":" not in peer_host:
        tries.append((socket.AF_INET6, "::ffff:" + peer_host, "::ffff:" + own_host))
    for family, source, destination in tries:
        link = socket.socket(socket.AF_NETLINK, socket.SOCK_DGRAM, NETLINK_SOCK_DIAG)
        try:
            link.settimeout(1.0)
            sockid = struct.pack("!HH16s16s", peer_port, own_port, socket.inet_pton(family, source).ljust(16, b"\0"),
                                 socket.inet_pton(family, destination).ljust(16, b"\0"))
            body = struct.pack("=BBBBI", family, socket.IPPROTO_TCP, 0, 0, 0xFFFFFFFF) + sockid + struct.pack(
                "=III", 0, 0xFFFFFFFF, 0xFFFFFFFF)  # any interface, no cookie
            link.send(struct.pack("=IHHII", 16 + len(body), SOCK_DIAG_BY_FAMILY, 1, 1, 0) + body)
            data = link.recv(8192)
        finally:
            link.close()
        kind = struct.unpack_from("=H", data, 4)[0]
        if kind == SOCK_DIAG_BY_FAMILY:
            state = data[17]
            return None if state == 6 else struct.unpack_from("=I", data, 16 + 4 + 48 + 12)[0]  # 6: TIME_WAIT
        if kind != NLMSG_ERROR or struct.unpack_from("=i", data, 16)[0] != -2:  # -ENOENT: not this family
            raise OSError("sock_diag answered %d" % kind)
    return None


def _table_uid(peer_host, peer_port, own_host, own_port):
    peer, own = _forms(peer_host), _forms(own_host)
    for index, table in enumerate(TABLES):
        if peer[index] is None or own[index] is None:
            continue
        needle = b" %s:%04X %s:%04X " % (peer[index], peer_port, own[index], own_port)
        data = _read(table)
        at = data.find(needle)
        while at >= 0:
            start = data.rfind(b"\n", 0, at) + 1
            end = data.find(b"\n", at)
            parts = data[start:end if end >= 0 else len(data)].split()
            if len(parts) > 7 and parts[3] != TIME_WAIT:
                try:
                    return int(parts[7])
                except ValueError:
                    return None
            at = data.find(needle, at + 1)
    return None


def listener_uids(port):
    """The uids of the listening sockets a connection to 127.0.0.1:``port`` may reach (bound to
    127.0.0.1, to any IPv4 address, or to IPv6 ``::`` / ``::ffff:127.0.0.1``)."""
    v4, mapped = _forms("127.0.0.1")
    wanted = ({b"%s:%04X" % (v4, port), b"00000000:%04X" % port},
              {b"%s:%04X" % (mapped, port), b"%s:%04X" % (b"0" * 32, port)})
    uids = set()
    for table, addresses in zip(TABLES, wanted):
        for parts in _rows(_read(table)):
            if parts[3] == LISTEN and parts[1] in addresses:
                try:
                    uids.add(int(parts[7]))
                except ValueError:
                    pass
    return uids
