"""A learner's submission zip, well formed and holding a correct student/gelu.py, whose central directory entry says
it needs zip version 25.5 to extract (the `version needed` field = 255). Python's zipfile raises NotImplementedError
("zip file version 25.5") as it opens the zip, which submissions._from_zip does not catch (it catches BadZipFile,
OSError, ValueError), so the batch's catch-all makes the row a grader *error*.
usage: make.py OUT.zip"""
import io, struct, sys, zipfile

GELU = ("import math\nimport numpy as np\n\n\ndef run_gelu(x):\n"
        "    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))\n")
buf = io.BytesIO()
with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
    z.writestr("student/gelu.py", GELU)
data = bytearray(buf.getvalue())
cd = data.find(b"PK\x01\x02")  # the central directory entry: version made by (+4), version needed (+6)
data[cd + 6:cd + 8] = struct.pack("<H", 255)
open(sys.argv[1], "wb").write(bytes(data))
