"""Write into the submission's own folder and the course folder (to plant code for the next grade)."""
from pathlib import Path


def run_double(x):
    for target in (Path("@@ROOT@@") / "student" / "double.py", Path("@@ROOT@@") / "course.yaml"):
        try:
            with open(target, "a") as f:
                f.write("\n# planted\n")
        except OSError as e:
            print("blocked:", e)
    return x * 0
