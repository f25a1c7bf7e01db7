"""Every call ends its worker without an answer (the jail is then ended and the next call gets a new one, from the
warm spare): ~one jail per case. Module __getattr__ answers any run_* name the stage asks for."""
import os


def __getattr__(name):
    if name.startswith("run_"):
        def f(*args, **kwargs):
            os._exit(3)
        return f
    raise AttributeError(name)
