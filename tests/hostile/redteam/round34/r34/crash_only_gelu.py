# Round 34 control: crash every call without touching new pages
import os, signal
def run_gelu(x):
    os.kill(os.getpid(), signal.SIGSEGV)
