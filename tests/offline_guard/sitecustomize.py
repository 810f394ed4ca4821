"""Network guard of the offline check (conftest.py, tests/test_offline.py): any non-loopback access raises and is logged.

Loaded by every Python started with this folder on PYTHONPATH: the kernels that run the course's notebooks under
nbval (conftest.py's ``OfflineKernels``) and the probe kernels of tests/test_offline.py. Each attempt is appended to
the file named by ``COURSE_NET_GUARD_LOG`` (read at the attempt) before ``NetworkAccessBlocked`` is raised;
``COURSE_NET_GUARD=0`` leaves the socket module alone.
"""
import ipaddress
import os
import socket

_LOCAL_NAMES = {None, "", b"", "localhost", "localhost.localdomain", "ip6-localhost"}


class NetworkAccessBlocked(OSError):
    """Raised by the offline test's guard: the course must not reach the network."""


def _is_local(host):
    if isinstance(host, bytes):
        host = host.decode("ascii", "replace")
    if host in _LOCAL_NAMES:
        return True
    try:
        address = ipaddress.ip_address(str(host).split("%")[0])
    except ValueError:
        return False  # a host name other than localhost: resolving it is a network access
    if getattr(address, "ipv4_mapped", None):
        address = address.ipv4_mapped
    return address.is_loopback or address.is_unspecified


def _blocked(what):
    log = os.environ.get("COURSE_NET_GUARD_LOG")
    if log:
        with open(log, "a", encoding="utf-8") as handle:
            handle.write(what + "\n")
    raise NetworkAccessBlocked(f"network access blocked by the offline test: {what}")


def _install():
    real_getaddrinfo = socket.getaddrinfo
    real_gethostbyname = socket.gethostbyname
    real_gethostbyname_ex = socket.gethostbyname_ex
    real_connect = socket.socket.connect
    real_connect_ex = socket.socket.connect_ex
    real_sendto = socket.socket.sendto

    def _check_address(sock, address, verb):
        if sock.family in (socket.AF_INET, socket.AF_INET6) and isinstance(address, tuple):
            if not _is_local(address[0]):
                _blocked(f"{verb} {address[0]}:{address[1] if len(address) > 1 else ''}")

    def getaddrinfo(host, *args, **kwargs):
        if not _is_local(host):
            _blocked(f"resolve {host}")
        return real_getaddrinfo(host, *args, **kwargs)

    def gethostbyname(host):
        if not _is_local(host):
            _blocked(f"resolve {host}")
        return real_gethostbyname(host)

    def gethostbyname_ex(host):
        if not _is_local(host):
            _blocked(f"resolve {host}")
        return real_gethostbyname_ex(host)

    def connect(self, address):
        _check_address(self, address, "connect")
        return real_connect(self, address)

    def connect_ex(self, address):
        _check_address(self, address, "connect")
        return real_connect_ex(self, address)

    def sendto(self, data, *args):
        if args:
            _check_address(self, args[-1], "sendto")
        return real_sendto(self, data, *args)

    socket.getaddrinfo = getaddrinfo
    socket.gethostbyname = gethostbyname
    socket.gethostbyname_ex = gethostbyname_ex
    socket.socket.connect = connect
    socket.socket.connect_ex = connect_ex
    socket.socket.sendto = sendto


if os.environ.get("COURSE_NET_GUARD", "1") != "0":
    _install()
