import socket, os, sys, time
target = int(sys.argv[1]) << 20
pairs, total = [], 0
chunk = b"x" * 65536
while total < target:
    a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    a.setblocking(False)
    try:
        while True:
            total += a.send(chunk)
    except BlockingIOError:
        pass
    pairs.append((a, b))
    if len(pairs) >= 480: break
print(len(pairs), "pairs", total >> 20, "MiB queued", flush=True)
time.sleep(2)
