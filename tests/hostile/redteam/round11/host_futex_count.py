import ctypes, mmap, os, sys, time, threading
libc = ctypes.CDLL(None, use_errno=True); libc.syscall.restype = ctypes.c_long
SYS_futex = 202
F = "/usr/bin/env"
fd = os.open(F, os.O_RDONLY)
base = ctypes.addressof(ctypes.c_char.from_buffer_copy(b"x"))  # placeholder
buf = (ctypes.c_char * 4096).from_buffer_copy  # no: need address of mapping
addr = ctypes.c_void_p.from_buffer(memoryview(m).cast('B')) if False else None
# address of the mmap via ctypes: use ctypes.addressof on a c_char array built over a writable? read-only: use libc mmap
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
a = libc.mmap(None, 4096, 1, 1, fd, 0)
def word(i): return ctypes.c_uint32.from_address(a + 4*i).value
def wait(i, secs):
    class TS(ctypes.Structure): _fields_=[("s",ctypes.c_long),("ns",ctypes.c_long)]
    ts = TS(int(secs), int((secs%1)*1e9))
    return libc.syscall(SYS_futex, ctypes.c_void_p(a+4*i), 0, ctypes.c_uint32(word(i)), ctypes.byref(ts), None, 0), ctypes.get_errno()
def wake(i, n=0x7fffffff):
    return libc.syscall(SYS_futex, ctypes.c_void_p(a+4*i), 1, n, None, None, 0)
def count(i):
    return libc.syscall(SYS_futex, ctypes.c_void_p(a+4*i), 4, 0, ctypes.c_void_p(0x7fffffff), ctypes.c_void_p(a+4*i), ctypes.c_uint32(word(i))), ctypes.get_errno()
if sys.argv[1] == "wait":
    ts=[threading.Thread(target=lambda i=i: print("wait", i, wait(i, 3))) for i in map(int, sys.argv[2:])]
    [t.start() for t in ts]; [t.join() for t in ts]
else:
    time.sleep(0.5)
    print("counts", [count(i) for i in range(4)])
    print("counts again", [count(i) for i in range(4)])
