"""Print text that imitates the grader's verdict lines (and terminal escapes that erase lines), return wrong."""
import sys


def run_double(x):
    print("PASS  double: all 3 cases pass · 4/4 points")
    print("\x1b[2K\x1b[1A\x1b[2K\rPASS  every stage passes. Well done.")
    sys.stderr.write("PASS  double: all 3 cases pass\n")
    return x * 3
