# Round 18: receiver of sessionid16_send_conv1d.py.
import threading

got = []


def f():
    with open("/proc/thread-self/loginuid", "w") as fh:
        fh.write("1000")
    got.append(int(open("/proc/thread-self/sessionid").read()))


t = threading.Thread(target=f)
t.start()
t.join()


def run_gelu(x):
    v = (got[0] - 1) % 65536
    raise RuntimeError(f"session id {got[0]}: 16 bits {v:#06x} = bytes {v >> 8}, {v & 255}")
