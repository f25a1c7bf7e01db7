# Round 18: a learner who, with no help, reads how many processes the machine made while the PREVIOUS learner was
# graded: its jail's resident (pid 1) was started (the warm spare) when the previous learner's grading began, and
# its struct pid's pidfs inode number is the machine's pid counter at that moment; its own is the counter now.
import os, threading

fd = os.pidfd_open(1)
then = os.fstat(fd).st_ino
got = []


def f():
    fd2 = os.pidfd_open(threading.get_native_id(), 0x80)
    got.append(os.fstat(fd2).st_ino)


t = threading.Thread(target=f)
t.start()
t.join()


def run_gelu(x):
    raise RuntimeError(f"pids made while the previous learner was graded: {got[0] - then} ({then} -> {got[0]})")
