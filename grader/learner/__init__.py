"""The learner's side: progress, commands (overview, next, hint, show, reset, restore), cases, grading, watch.

watch (the loop and its dispatcher) drives session (the handlers), which draws through screen (an injected
Writer) and reads keys through terminal; filewatch says which files changed.
"""
