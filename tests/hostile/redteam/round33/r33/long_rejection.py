"""A zip whose rejection message lists every one of N folders (intake._one_shallowest joins them all, uncut).
usage: python attacks/long_rejection.py OUT.zip N"""
import sys, zipfile
out, n = sys.argv[1], int(sys.argv[2])
with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as z:
    for i in range(n):
        z.writestr(f"{i:06d}" + "d" * 240 + "/gelu.py", b"x = 1\n")
