"""Read stdin to the end (it must be empty, never the grader's terminal), then answer correctly."""
import sys


def run_double(x):
    data = sys.stdin.read()
    assert data == "", data
    return 2 * x
