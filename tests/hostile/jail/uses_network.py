"""Reach the network: a server on the grader's loopback, a public DNS server, an abstract unix socket."""
import socket


def run_double(x):
    reached = []
    for family, address in ((socket.AF_INET, ("127.0.0.1", @@PORT@@)), (socket.AF_INET, ("1.1.1.1", 53)),
                            (socket.AF_UNIX, "\0@@ABSTRACT@@")):
        try:
            with socket.socket(family, socket.SOCK_STREAM) as s:
                s.settimeout(2)
                s.connect(address)
                reached.append(address)
        except OSError as e:
            print("blocked:", address, type(e).__name__, e)
    return 2 * x if reached else x * 0
