"""Round 28: does socket.send_fds honour MSG_DONTWAIT on this Python? (box.py relies on it since 4b31425)
Fills a SEQPACKET socketpair nobody reads, the way a stalled resident's command socket fills, and reports whether
the next send raises BlockingIOError (flags honoured) or blocks (flags dropped; SIGALRM after 3 s)."""
import os, signal, socket, sys

a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
r, w = os.pipe()
signal.signal(signal.SIGALRM, lambda *_: (_ for _ in ()).throw(TimeoutError("blocked")))
sent = 0
try:
    signal.alarm(3)
    while True:
        socket.send_fds(a, [b'{"run": "0-1", "inputs": 0}'], [r, w], socket.MSG_DONTWAIT)
        sent += 1
except BlockingIOError:
    print(sys.version.split()[0], f"send_fds honours MSG_DONTWAIT: BlockingIOError after {sent} messages")
except TimeoutError:
    print(sys.version.split()[0], f"send_fds IGNORED MSG_DONTWAIT: blocked after {sent} messages (SIGALRM at 3 s)")
try:
    signal.alarm(3)
    n = 0
    while True:
        a.sendmsg([b'{"run": "0-1", "inputs": 0}'], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, bytes(8))], socket.MSG_DONTWAIT)
        n += 1
except BlockingIOError:
    print("sock.sendmsg(..., MSG_DONTWAIT) on the same full socket: BlockingIOError at once")
except TimeoutError:
    print("sendmsg blocked too")
