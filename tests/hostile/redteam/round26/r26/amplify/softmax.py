# Attacker: every public call raises with 16 Ki unassigned astral characters (each escaped to 10 characters
# by safetext AFTER the 16 KiB cap) and prints 8 KiB of them too.
import sys

def run_softmax(x):
    sys.stdout.write("\U000e0080" * 4096)
    raise ValueError("\U000e0080" * 20000)
