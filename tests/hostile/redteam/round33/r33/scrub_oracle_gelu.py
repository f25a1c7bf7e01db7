# A learner's gelu that prints guesses of the instructor's folders: the grader cuts the ones that are real
# (paths.scrub: "No absolute path of the grading machine in what a learner reads"), so the feedback confirms them.
GUESSES = ["/tmp/rt33-o/cohort-wrongname/subs", "/tmp/rt33-o/cohort-secretname/subs", "/home/prof/subs",
           "/work/redteam33", "/work/redteam32"]
def run_gelu(x):
    for g in GUESSES:
        print("guess<" + g + ">")
    raise ValueError("x")
